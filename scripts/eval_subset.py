#!/usr/bin/env python3
"""Mean pass@1 of every strategy of a `dixit eval --out DIR` over the problems B4's harness
evaluates: those where some, but not all, of the unique solutions that run are correct (B4's
`main.py` keeps a problem when `0 < pass rate < max_px`, max_px = 1, over the unique executable
solutions). B4 reports its gains on such problems, so its anchors compare with these means.

Usage: eval_subset.py DIR

Reads DIR/report.json (each problem's pass@1 per strategy, as exact fractions) and
DIR/problems/*.json (which unique solutions compile and which pass the hidden tests).
"""

import json
import pathlib
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    report = json.loads((out / "report.json").read_text())
    verdicts = {}
    for f in (out / "problems").glob("*.json"):
        v = json.loads(f.read_text())
        verdicts[v["id"]] = v
    kept = []
    for p in report["results"]["problems"]:
        v = verdicts[p["id"]]
        # A solution that does not compile is a compile error in every cell.
        runs = [h for h in v["hidden"] if h != "C"]
        right = sum(1 for h in runs if h == "P")
        if 0 < right < len(runs):
            kept.append(p)
    print(f"{len(kept)} of {len(report['results']['problems'])} problems: "
          "some but not all unique solutions that run are correct")

    def value(x):
        if isinstance(x, dict) and "num" in x and "den" in x:
            return x["num"] / x["den"] if x["den"] else 0.0
        if isinstance(x, dict) and "correct" in x and "coders" in x:
            return x["correct"] / x["coders"] if x["coders"] else 0.0
        return None

    names = [k for k, x in kept[0].items() if value(x) is not None] if kept else []
    for name in names:
        values = [value(p.get(name)) for p in kept]
        if any(v is None for v in values):
            continue
        print(f"  {name:<28} {100 * sum(values) / len(values):6.2f} %")


if __name__ == "__main__":
    main()
