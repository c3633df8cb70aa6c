#!/usr/bin/env python3
"""Native (unsandboxed) reference harness: builds verdict matrices from a corpus.

Reads a corpus JSON file (the serde form of `dixit::eval::Corpus`, written by
`dixit eval --export-corpus FILE`, so both harnesses see the same post-processed
tests) and, like CodeT's harness
(microsoft/CodeT, `src/execution.py` and `src/_execution.py`), runs natively:

* every unique solution against the hidden tests (`solution + "\\n" +
  hidden_test`, one exec under a single timeout, as CodeT's
  `check_correctness`);
* every unique solution, and the reference solution, against every unique
  generated test (solution module exec'd once, then each test run in its
  globals under its own timeout, as CodeT's `check_correctness_with_test_cases`:
  a test is wrapped as the body of a function with CodeT's 12-space
  re-indentation, `Exception` means fail, and a `BaseException` that is not an
  `Exception` (e.g. `SystemExit`) or a failing module fails every test of that
  solution, as it aborts CodeT's whole check program).

Each check runs in a forked child (one for the hidden check, one for the
generated tests, so they share no state), with stdio swallowed, a private
temporary directory, an address-space limit, and CodeT-like disabling of
destructive functions (`os.remove`, `os.system`, `subprocess.Popen`, `exit`,
...). This is NOT a sandbox: run it only on data you trust as much as CodeT's.
A child that outlives its deadline is killed and counts as failing everything
it had not reported yet (CodeT loses the whole result too).

Writes JSON: {"timeout", "hidden_timeout", "workers", "wall_seconds",
"problems": [{"id", "solutions": [{"source", "count"}], "tests": [...],
"passes": [[bool per test] per solution], "hidden": [bool per solution],
"reference_passes": [bool per test], "reference_hidden": bool}]},
which `dixit::eval::scoring::VerdictFile` reads. Prints the wall time.

Usage: native_eval.py CORPUS.json OUT.json [--timeout 0.1] [--hidden-timeout T]
                      [--workers 2] [--memory-mb 1024] [--limit N] [--only ID,ID]
"""

import argparse
import builtins
import io
import json
import multiprocessing
import os
import select
import signal
import sys
import tempfile
import time

CORPUS = None  # set in the parent; inherited by forked workers
TEST_CODE = None  # per problem: per test, a code object defining _dixit_test
OPTIONS = None
WORKDIR = None  # one scratch directory for all children, removed at the end

TEST_FN = "_dixit_test"


class Timeout(Exception):
    """Raised by the alarm; an Exception, so a timed-out test simply fails."""


def _on_alarm(signum, frame):
    raise Timeout("timed out")


def run_limited(fn, seconds):
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def wrap_test(test):
    """A test as the body of a function, re-indented the way CodeT packs it."""
    body = test.strip().replace("\n", "\n" + " " * 12)
    return f"def {TEST_FN}():\n            {body}\n"


class _NoInput(io.StringIO):
    def read(self, *a, **k):
        raise IOError("stdin is closed")

    readline = read
    readlines = read

    def readable(self, *a, **k):
        return False


def _sandbox_child(memory_mb):
    """Best-effort isolation of a forked child (not a security boundary)."""
    import resource

    limit = memory_mb * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):
        pass
    os.chdir(WORKDIR)
    devnull = open(os.devnull, "w")
    sys.stdout = devnull
    sys.stderr = devnull
    sys.stdin = _NoInput()
    builtins.exit = None
    builtins.quit = None
    import shutil
    import subprocess

    for name in ("kill", "system", "putenv", "remove", "removedirs", "rmdir",
                 "fchdir", "setuid", "fork", "forkpty", "killpg", "rename",
                 "renames", "truncate", "replace", "unlink", "fchmod", "fchown",
                 "chmod", "chown", "chroot", "lchown", "getcwd", "chdir"):
        if hasattr(os, name):
            setattr(os, name, None)
    shutil.rmtree = None
    shutil.move = None
    shutil.chown = None
    subprocess.Popen = None


def in_child(work, deadline, memory_mb):
    """Runs `work(emit)` in a forked child; returns the lines it emitted.

    `emit(str)` sends one line to the parent at once, so lines emitted
    before a crash or a kill are kept.
    """
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        code = 0
        try:
            _sandbox_child(memory_mb)

            def emit(line):
                data = (line + "\n").encode()
                while data:
                    data = data[os.write(w, data):]

            work(emit)
        except BaseException:  # noqa: BLE001 - the child must never return
            code = 1
        os._exit(code)
    os.close(w)
    chunks = []
    end = time.monotonic() + deadline
    killed = False
    while True:
        left = end - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            killed = True
            break
        ready, _, _ = select.select([r], [], [], left)
        if ready:
            data = os.read(r, 1 << 16)
            if not data:
                break
            chunks.append(data)
    os.close(r)
    os.waitpid(pid, 0)
    text = b"".join(chunks).decode(errors="replace")
    lines = text.split("\n")
    if killed or not text.endswith("\n"):
        lines = lines[:-1]  # drop a partial last line
    return [ln for ln in lines if ln]


def hidden_check(solution, hidden_test, timeout):
    def work(emit):
        ok = False
        try:
            run_limited(lambda: exec(solution + "\n" + hidden_test, {}), timeout)
            ok = True
        except BaseException:  # CodeT: any exception fails the check
            ok = False
        emit("1" if ok else "0")

    out = in_child(work, timeout + 1.0, OPTIONS.memory_mb)
    return bool(out) and out[0] == "1"


def tests_check(solution, codes, timeout):
    """Verdicts of one solution on the generated tests (list of bools)."""
    n = len(codes)
    if n == 0:
        return []

    def work(emit):
        g = {}
        try:
            exec(solution + "\n", g)
        except BaseException:
            emit("X")  # module failed: CodeT fails every test
            return
        verdicts = []
        for code in codes:
            if code is None:  # the wrapped test does not compile
                verdicts.append("0")
                continue
            try:
                exec(code, g)
                run_limited(g[TEST_FN], timeout)
                verdicts.append("1")
            except Exception:
                verdicts.append("0")
            except BaseException:
                emit("X")  # aborts CodeT's whole check program
                return
        emit("".join(verdicts))

    deadline = timeout * n + 2.0
    out = in_child(work, deadline, OPTIONS.memory_mb)
    if not out or out[0] == "X" or len(out[0]) != n:
        return [False] * n
    return [c == "1" for c in out[0]]


def run_item(item):
    """Worker task: (problem index, solution index or -1 for the reference)."""
    p, i = item
    problem = CORPUS["problems"][p]
    source = problem["reference"] if i < 0 else problem["solutions"][i]["source"]
    hidden = hidden_check(source, problem["hidden_test"], OPTIONS.hidden_timeout)
    passes = tests_check(source, TEST_CODE[p], OPTIONS.timeout)
    return p, i, hidden, passes


def compile_tests(problem):
    codes = []
    for t in problem["tests"]:
        try:
            codes.append(compile(wrap_test(t["source"]), "<test>", "exec"))
        except Exception:  # would abort CodeT's program; here: this test fails
            codes.append(None)
    return codes


def main():
    global CORPUS, TEST_CODE, OPTIONS, WORKDIR
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--timeout", type=float, default=0.1,
                    help="seconds per generated test (CodeT: 0.1)")
    ap.add_argument("--hidden-timeout", type=float, default=None,
                    help="seconds for the whole hidden check (default: --timeout, as CodeT)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-mb", type=int, default=1024)
    ap.add_argument("--limit", type=int, default=None, help="first N problems only")
    ap.add_argument("--only", default=None, help="comma-separated problem ids")
    OPTIONS = ap.parse_args()
    if OPTIONS.hidden_timeout is None:
        OPTIONS.hidden_timeout = OPTIONS.timeout

    with open(OPTIONS.corpus, encoding="utf8") as f:
        CORPUS = json.load(f)
    problems = CORPUS["problems"]
    if OPTIONS.only:
        wanted = set(OPTIONS.only.split(","))
        problems = [p for p in problems if p["id"] in wanted]
    if OPTIONS.limit is not None:
        problems = problems[: OPTIONS.limit]
    CORPUS = {"problems": problems}
    TEST_CODE = [compile_tests(p) for p in problems]
    uncompiled = sum(c is None for codes in TEST_CODE for c in codes)

    items = []
    for p, problem in enumerate(problems):
        items.append((p, -1))
        items.extend((p, i) for i in range(len(problem["solutions"])))
    # Longest jobs first (most tests) for better load balance.
    items.sort(key=lambda it: -len(problems[it[0]]["tests"]))

    hidden = [[False] * len(p["solutions"]) for p in problems]
    passes = [[None] * len(p["solutions"]) for p in problems]
    ref = [None] * len(problems)
    start = time.monotonic()
    WORKDIR = tempfile.mkdtemp(prefix="native_eval_")
    ctx = multiprocessing.get_context("fork")
    done = 0
    with ctx.Pool(OPTIONS.workers) as pool:
        for p, i, h, row in pool.imap_unordered(run_item, items, chunksize=1):
            if i < 0:
                ref[p] = (h, row)
            else:
                hidden[p][i] = h
                passes[p][i] = row
            done += 1
            if done % 500 == 0:
                print(f"{done}/{len(items)} checks, {time.monotonic() - start:.0f} s",
                      file=sys.stderr, flush=True)
    wall = time.monotonic() - start
    import shutil

    shutil.rmtree(WORKDIR, ignore_errors=True)

    out = []
    for p, problem in enumerate(problems):
        ref_hidden, ref_row = ref[p]
        if not ref_hidden:
            print(f"warning: reference of {problem['id']} fails its hidden tests",
                  file=sys.stderr)
        out.append({
            "id": problem["id"],
            "solutions": problem["solutions"],
            "tests": problem["tests"],
            "passes": passes[p],
            "hidden": hidden[p],
            "reference_passes": ref_row,
            "reference_hidden": ref_hidden,
        })
    with open(OPTIONS.out, "w", encoding="utf8") as f:
        json.dump({
            "timeout": OPTIONS.timeout,
            "hidden_timeout": OPTIONS.hidden_timeout,
            "workers": OPTIONS.workers,
            "wall_seconds": wall,
            "problems": out,
        }, f)
    checks = sum(len(p["solutions"]) + 1 for p in problems)
    pairs = sum((len(p["solutions"]) + 1) * len(p["tests"]) for p in problems)
    if uncompiled:
        print(f"note: {uncompiled} tests do not compile when wrapped; counted as failing",
              file=sys.stderr)
    print(f"{len(problems)} problems, {checks} solutions (incl. references), "
          f"{pairs} solution x test pairs: wall time {wall:.1f} s")


if __name__ == "__main__":
    main()
