#!/usr/bin/env python3
"""Diffs two verdict matrices of the same corpus, cell by cell, and says why cells differ.

A: a native harness's output (`scripts/native_eval.py CORPUS OUT.json`), or a `dixit eval --out`
   directory (two dixit binaries, or two settings, compared with each other);
B: a `dixit eval --out DIR` directory (its `verdicts.json`, plus `problems/*.json` for the
   sandbox's verdict kinds and exception names).

Cells are matched by problem id, solution source and test source (hidden checks and the
reference solution included). Against a native output, a cell differs when one passes and the
other does not; between two dixit outputs, when the verdict kind differs (`wrong_answer` to
`runtime_error` counts). Prints how many cells differ in each direction, grouped by B's verdict
and exception (and A's, for two dixit outputs), then up to --examples examples of each group.

Usage: diff_verdicts.py NATIVE.json|DIXIT_OUT_DIR DIXIT_OUT_DIR [--examples 3]
"""

import argparse
import collections
import glob
import json
import os

CODES = {"P": "pass", "W": "wrong_answer", "R": "runtime_error", "T": "time_limit",
         "L": "wall_time_limit", "M": "memory_limit", "O": "output_limit",
         "C": "compile_error", "I": "internal_error"}


def cells_native(path):
    out = {}
    for p in json.load(open(path))["problems"]:
        tests = [t["source"] for t in p["tests"]]
        rows = [(s["source"], p["passes"][i], p["hidden"][i]) for i, s in enumerate(p["solutions"])]
        rows.append(("<reference>", p["reference_passes"], p.get("reference_hidden")))
        for src, passes, hidden in rows:
            out[(p["id"], src, "<hidden>")] = hidden
            for t, ok in zip(tests, passes):
                out[(p["id"], src, t)] = ok
    return out


def cells_dixit(out_dir):
    out = {}
    for f in glob.glob(os.path.join(out_dir, "problems", "*.json")):
        p = json.load(open(f))
        tests = [t["source"] for t in p["tests"]]
        notes = {(n.get("solution"), n.get("test")): n["note"] for n in p["notes"]}
        rows = [(i, s["source"], p["rows"][i], p["hidden"][i]) for i, s in enumerate(p["solutions"])]
        rows.append((None, "<reference>", p["reference_row"], p["reference_hidden"]))
        for i, src, codes, hidden in rows:
            out[(p["id"], src, "<hidden>")] = (hidden, notes.get((i, None), ""))
            for j, (t, c) in enumerate(zip(tests, codes)):
                out[(p["id"], src, t)] = (c, notes.get((i, j), ""))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("native", help="native_eval.py output, or a dixit eval --out directory")
    ap.add_argument("dixit_out")
    ap.add_argument("--examples", type=int, default=3)
    a = ap.parse_args()
    both_dixit = os.path.isdir(a.native)
    nat = cells_dixit(a.native) if both_dixit else cells_native(a.native)
    dix = cells_dixit(a.dixit_out)
    common = nat.keys() & dix.keys()
    name = "A" if both_dixit else "native"
    print(f"cells: {name} {len(nat)}, dixit {len(dix)}, common {len(common)}")
    groups = collections.defaultdict(list)
    for k in sorted(common):
        code, note = dix[k]
        d_ok = code == "P"
        if both_dixit:
            a_code, a_note = nat[k]
            if (a_code, a_note) != (code, note):
                was = f"{CODES.get(a_code, a_code)} {a_note}".strip()
                groups[(f"A {was} ->", CODES.get(code, code), note)].append(k)
            continue
        n_ok = bool(nat[k])
        if n_ok != d_ok:
            direction = "native pass, dixit fail" if n_ok else "native fail, dixit pass"
            groups[(direction, CODES.get(code, code), note)].append(k)
    total = sum(len(v) for v in groups.values())
    print(f"differing cells: {total}")
    for (direction, verdict, note), ks in sorted(groups.items(), key=lambda g: -len(g[1])):
        solutions = len({(k[0], k[1]) for k in ks})
        print(f"\n{len(ks):6} {direction}: dixit {verdict} {note}  ({solutions} solutions)")
        for k in ks[: a.examples]:
            src = k[1] if k[1] == "<reference>" else "..." + k[1][-160:]
            print(f"    {k[0]}  test {k[2][:100]!r}\n      solution {src!r}")


if __name__ == "__main__":
    main()
