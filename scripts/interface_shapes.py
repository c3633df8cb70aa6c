#!/usr/bin/env python3
"""Count what the interfaces of a C++ benchmark pass: scalars only, or memory.

Reads HumanEval-X's C++ records (`humaneval_cpp.jsonl` or `.jsonl.gz`, from the CodeGeeX
repository) and classifies each task's entry point by its parameter and return types. A
boundary that carries calls by value between two WebAssembly instances (docs/security.md,
"Stated limits") needs nothing more than the call itself for scalars; a string, a container, a
pointer or a reference lives in the caller's linear memory and needs a marshaller for its type.

    scripts/interface_shapes.py humaneval_cpp.jsonl.gz
"""

import collections
import gzip
import json
import re
import sys

SCALARS = {
    "bool", "char", "int", "long", "long long", "float", "double", "void",
    "unsigned", "unsigned int", "unsigned long", "unsigned long long", "short",
}


def entry_point(declaration: str, name: str) -> tuple[str, list[str]]:
    """The return type and parameter types of `name`'s declaration."""
    m = re.search(r"^(\w[\w:<>, ]*?)\s+" + re.escape(name) + r"\s*\(([^)]*)\)", declaration, re.M)
    if not m:
        raise ValueError(f"no declaration of {name}")
    ret, params = m.group(1).strip(), m.group(2)
    types, depth, cur = [], 0, ""
    for ch in params:  # split on commas outside template brackets
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "," and depth == 0:
            types.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        types.append(cur)
    return ret, [re.sub(r"\s*[\w]+\s*$", "", t.strip()) or t.strip() for t in types]


def shape(t: str) -> str:
    t = re.sub(r"\bconst\b|\bstd::", "", t).strip()
    if "*" in t or "&" in t:
        return "pointer or reference"
    if t in SCALARS:
        return "scalar"
    if t.startswith("string"):
        return "string"
    if re.match(r"(vector|map|set|pair|tuple)\b", t):
        return "container"
    if t in ("boost::any", "list_any"):
        return "dynamic (boost::any)"
    return "other (" + t + ")"


def main() -> int:
    path = sys.argv[1]
    opener = gzip.open if path.endswith(".gz") else open
    tasks = collections.Counter()
    kinds = collections.Counter()
    total = 0
    with opener(path, "rt") as f:
        for line_no, line in enumerate(f, 1):
            record = json.loads(line)
            name = record["task_id"]
            decl = record["declaration"]
            found = re.findall(r"^\w[\w:<>, ]*?\s+(\w+)\s*\([^)]*\)\s*\{?\s*$", decl, re.M)
            if not found:
                print(f"{path}:{line_no}: {name}: no entry point found", file=sys.stderr)
                return 1
            ret, params = entry_point(decl, found[-1])  # the last one defined
            shapes = {shape(t) for t in [ret, *params]}
            kinds.update(shapes)
            tasks["scalars only" if shapes <= {"scalar"} else "passes memory"] += 1
            total += 1
    for k, n in tasks.most_common():
        print(f"{k:>22}: {n:4} of {total} ({100 * n / total:.0f} %)")
    print("types seen (a task counts once per kind):")
    for k, n in kinds.most_common():
        print(f"{k:>22}: {n:4}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
