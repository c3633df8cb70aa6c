#!/usr/bin/env python3
"""Checks the book (docs/), README.md and ARCHITECTURE.md, as scripts/book runs it:

1. every relative link resolves: the file exists, and an anchor (`page.md#section`, `#section`)
   names a heading of that page (slugged as mdBook and GitHub slug them);
2. every `dixit` command quoted (in a code block, or inline code that starts with `dixit `)
   names a command the binary has, and every `--flag` it uses is one that command's `--help`
   lists;
3. every source path ARCHITECTURE.md names in inline code (`report/samples_page/`,
   `eval/samples/merge.rs`, `chart.rs`) is a file or folder of the tree: from the root, from
   `runner/src`, or as the end of a tracked path (a bare name inside its folder's entry).

Usage: scripts/check_book.py DIXIT_BINARY. Prints each problem as FILE:LINE: what, exits 1 if any.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIXIT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/dixit")


def pages():
    yield os.path.join(ROOT, "README.md")
    yield os.path.join(ROOT, "ARCHITECTURE.md")
    for d, _, files in os.walk(os.path.join(ROOT, "docs")):
        for f in sorted(files):
            if f.endswith(".md"):
                yield os.path.join(d, f)


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[`*_~]|<[^>]*>", "", s)
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, fence = set(), False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("```"):
                    fence = not fence
                elif not fence and re.match(r"#{1,6} ", line):
                    found.add(slug(line.lstrip("#")))
        cache[path] = found
    return cache[path]


HELP = {}


def help_of(words):
    key = tuple(words)
    if key not in HELP:
        r = subprocess.run([DIXIT, *words, "--help"], capture_output=True, text=True)
        HELP[key] = r.stdout if r.returncode == 0 else None
    return HELP[key]


def subcommands(help_text):
    names, inside = set(), False
    for line in help_text.splitlines():
        if line.startswith("Commands:"):
            inside = True
        elif inside and re.match(r"  \S", line):
            names.add(line.split()[0])
        elif inside and line and not line.startswith(" "):
            inside = False
    return names


def check_command(cmd):
    """Problems with one quoted `dixit ...` command line."""
    words = cmd.split()
    path = []
    top = help_of([])
    if top is None:
        return [f"`{DIXIT} --help` fails"]
    known = subcommands(top)
    rest = words[1:]
    while rest and rest[0] in known:
        path.append(rest.pop(0))
        known = subcommands(help_of(path) or "")
    if not path:
        first = rest[0] if rest else ""
        if first.startswith("-") or not re.match(r"^[a-z][a-z-]*$", first):
            return []
        return [f"`dixit {first}` is not a command"]
    text = help_of(path) or ""
    problems = []
    # `dixit slurm ... -- eval ...`: what follows `--` is a command of its own.
    own, _, inner = " ".join(words).partition(" -- ")
    if inner:
        problems += check_command("dixit " + inner)
    for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", own):
        if flag not in ("--help", "--version") and not re.search(
            r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])", text
        ):
            problems.append(f"`dixit {' '.join(path)}` has no {flag}")
    return problems


def commands_in(line):
    """The `dixit ...` command a line of a code block starts with (after a `$ ` prompt or a
    path to the binary), if any; a comment ends it."""
    m = re.match(r"\s*(?:\$ )?(?:\S*/)?(dixit [^#]*)", line)
    return [m.group(1).strip()] if m else []


PATH_LIKE = re.compile(r"^[A-Za-z0-9_.\-/]+$")
SOURCE_ENDINGS = (".rs", ".py", ".mjs", ".md", ".toml", ".sh", "/")


def architecture_paths():
    """Inline-code paths of ARCHITECTURE.md that name nothing in the tree."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    known = set()
    for f in tracked:
        parts = f.split("/")
        for i in range(len(parts)):
            tail = "/".join(parts[i:])
            known.add(tail)
            if i < len(parts) - 1:
                known.add("/".join(parts[i:-1]) + "/")
            for j in range(i + 1, len(parts)):
                known.add("/".join(parts[i:j]) + "/")
    problems = []
    path = os.path.join(ROOT, "ARCHITECTURE.md")
    for n, line in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
        for code in re.findall(r"`([^`]+)`", line):
            if not PATH_LIKE.match(code) or not code.endswith(SOURCE_ENDINGS) or code.startswith(("-", ".")):
                continue
            if "/" not in code.rstrip("/") and not code.endswith((".rs", ".py", ".mjs")):
                continue  # a bare folder word (`cli/`) is checked only where it names a path
            if code not in known and code.rstrip("/") not in known:
                problems.append(f"ARCHITECTURE.md:{n}: `{code}` names no file or folder of the tree")
    return problems


def main():
    problems = []
    for page in pages():
        rel = os.path.relpath(page, ROOT)
        text = open(page, encoding="utf-8").read()
        fence, joined = None, ""
        for n, line in enumerate(text.splitlines(), 1):
            if line.startswith("```"):
                fence = None if fence is not None else line[3:].strip()
                continue
            if fence is not None:
                if fence not in ("", "sh", "bash", "console", "text", "shell"):
                    continue
                joined += line.rstrip("\\").rstrip() + " "
                if line.endswith("\\"):
                    continue
                for cmd in commands_in(joined):
                    problems += [f"{rel}:{n}: {p}" for p in check_command(cmd)]
                joined = ""
                continue
            for cmd in re.findall(r"`(dixit [^`]+)`", line):
                problems += [f"{rel}:{n}: {p}" for p in check_command(cmd)]
            for target in re.findall(r"\]\(([^)\s]+)\)", line):
                if re.match(r"[a-z]+:", target):
                    continue
                file, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(page), file)) if file else page
                if not os.path.exists(dest):
                    problems.append(f"{rel}:{n}: broken link {target}")
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    problems.append(f"{rel}:{n}: no section #{anchor} in {os.path.relpath(dest, ROOT)}")
    problems += architecture_paths()
    for p in problems:
        print(p)
    print(f"check_book: {len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
