"""dixit's Python guest runtime: the implementation behind `dixit_runner.WitWorld.run`.

componentize-py builds `dixit_runner` (which imports this module) into a pre-initialised CPython
component: everything imported at module level below is already loaded when a run starts, so a
run costs about a millisecond. `dixit_runner` takes a reference to `run` and removes this module
from `sys.modules`: the functions below resolve their names in this module's own namespace, which
no import reaches, so a solution that rebinds a name of the runner (`dixit_runner.X = ...`,
`import dixit_runtime`) changes nothing the runner calls.

The host calls `run(mode, target, args)` once per run:

  check  target: a file or directory; compiles every .py file; returns 1 with the SyntaxError. With
         args ["--emit-code"], a clean check writes the compiled code objects (a marshalled
         {path: code} dict) to stdout, for the host to cache.
  test   target: a test file; args[0]: the interface (JSON, see `dixit_bridge.py`). The test
         runs as __main__; `solution` is a module made from the interface alone, whose
         functions send their calls to the solution, which runs in another instance (see
         `dixit_bridge.py`: the test and the solution never share an interpreter, and only data
         crosses). Then any test_* functions and unittest.TestCase classes it defines are run,
         pytest/unittest style (`unittest.main()` does nothing: the runner runs the test's
         TestCase classes itself, once the script ends). With args[1] "bind", the interface's
         names are bound in the test's namespace before it runs, as `from solution import *`.
  serve  target: the solution directory; args[0]: the interface. Imports the module `solution`
         from it (a failure is kept, and ends the run at the first call); then the host calls
         the `answer` export with the test's calls, each answered by the real module.
  main   target: a program file, args: its argv[1:]. Runs it as __main__ (I/O solutions, checkers);
         SystemExit(n) gives n, as for any program.
  pair   target: a test; args: the interface, how the test is given ("source": Python source
         text, or "marshal": what `build` made of it) and the reference solution (same
         encoding; may be empty). Offline evaluation (`dixit eval`): the test runs in a fresh
         namespace where the reference ran first (its imports, helpers and the prompt's
         names), with only the interface's names bound to the solution, which runs apart in an
         instance serving it with `serve-pair`; stdout and stderr discarded and stdin closed (as
         CodeT's harness swallows its I/O). On failure the exception's class name is reported
         to the host (no traceback: it would cost more than most tests).
  serve-pair  args: the interface, a solution and its encoding (as for `pair`). Runs the
         solution in a fresh namespace, I/O discarded, and serves it (a failure ends the run at
         the first call). Its code, and the reference's in `pair`, is kept per argument for the
         life of the instance, so a session (isolation level `solution`) decodes or compiles it
         once.
  build  target: the file name code objects get (e.g. "<test>"); args: Python sources. Writes
         one line per source to stdout: "+" and the base64 of `marshal.dumps(compile(source))`,
         or "-" and the class name of what `compile` raised. Compiling once and loading the
         marshalled code in each `pair` run saves a compile per run (a test's compile costs
         several times its execution).
  compile  args: Python sources. Writes one character per source to stdout: `1` when
         `compile(source, "", "exec")` succeeds, `0` when it raises (warnings ignored). The
         importer's compile check (CodeT keeps a generated test only if it compiles).
  sanitize  args: pairs of an entry point's name and a model's raw answer. Writes one line per
         pair to stdout: "+" and the JSON string of the code taken out of the answer (EvalPlus's
         sanitizer: the fenced block, else the longest stretch that parses; then the entry
         point's function and what it uses: imports, helpers, classes, globals; chat text,
         `if __name__` blocks and example calls dropped), or "-" when no code defines the entry
         point. Parsing only (`ast`): nothing of the answer runs.

Cached code: the host's `bridge.code` gives each run the marshalled code of its side's files from
earlier checks. Files with cached code are not compiled again (compiling is most of a small test's
cost), and top-level modules of the solution directory are loaded straight from it.

What a unit test's run returns (modes test and pair) is the evidence the host judges: the test
passed only when `run` returns 0, which happens only after the test's own code ran to its end.
A solution that ends the process (`os._exit`, WASI `proc_exit`) never makes `run` return at all,
and a SystemExit raised before the test's end is reported as such, whoever raised it:

  0  the test ran to its end and every check passed
  1  a check failed (AssertionError, a unittest failure, SystemExit(1) or SystemExit("message"))
  2  an uncaught exception
  3  the program exited (SystemExit with any other code, KeyboardInterrupt, ...) before the test
     finished

When a unit test (mode test) fails, the runner reports the failure to the host through the
bridge's `failure` import (never on a stream, which the solution's output also reaches): a JSON
object with the exception's `type`, its `message`, and where the test was when it happened: the
test's `file`, the `line` of the last frame in that file and its source (`code`). The host keeps
it as the failure's evidence (`runner/src/evidence.rs`) from the test's instance only; in mode
pair the report holds the exception's `type` only.

Randomness: `random`'s global generator is seeded lazily, from the host's seeded WASI RNG, at its
first use; a run that never draws a random number reads no entropy, so the host can tell its
reruns would be identical.
"""

import sys
import os
import io
import types
import traceback
import builtins
import marshal
import importlib.machinery
import ast as _ast

# The runner's own name lookups go to a private copy of the builtins, taken before any solution
# runs: a solution that rebinds `builtins.AssertionError` or `builtins.isinstance` changes what
# it and its caller see, not what the runner calls. (Functions capture their builtins when they
# are defined, so this comes first.)
__builtins__ = dict(vars(builtins))

# Standard-library modules LLM-written code commonly uses: pre-imported into the snapshot. Only
# these (and what they import) exist at run time: the component carries no other stdlib files.
# The second group holds modules recorded solutions import beside their function (seen in the
# CodeT corpus); those that cannot work under WASI (socket, multiprocessing, sqlite3, ctypes,
# tkinter) are absent whatever this list says.
_PRELOAD = (
    "abc array base64 bisect calendar cmath collections collections.abc contextlib copy csv "
    "dataclasses datetime decimal difflib enum fractions functools hashlib heapq inspect io "
    "itertools json keyword math numbers operator pprint random re statistics string struct "
    "textwrap time typing unicodedata unittest uuid warnings zlib "
    "__future__ argparse colorsys configparser fnmatch glob logging optparse pathlib pickle "
    "queue secrets shlex shutil subprocess tempfile threading traceback urllib.parse zipfile "
    # `ast.unparse` (the disagreement finder's guard) imports it on first use.
    "_ast_unparse"
).split()
for _name in _PRELOAD:
    try:
        __import__(_name)
    except Exception:  # a module this CPython build lacks is simply not preloaded
        pass

import random as _random
import unittest as _unittest

import dixit_bridge as _bridge
from wit_world.imports import bridge as _host_bridge

# The host's import that carries a test's requests to the solution's instance, and the two
# sides of the boundary, held by reference (see `dixit_runner`).
_host_call = _host_bridge.call
_host_failure = _host_bridge.failure
_host_code = _host_bridge.code
_stand_in = _bridge.stand_in
_SERVER = _bridge.Server()
_BRIDGE_FILE = _bridge.__file__

# The machinery the runner relies on after a solution has run, captured now: a solution can
# rebind `unittest.TextTestRunner` or `builtins.len` by name, but not these references.
_FunctionType = types.FunctionType
_TestCase = _unittest.TestCase
_TestSuite = _unittest.TestSuite
_TestLoader = _unittest.TestLoader
_TextTestRunner = _unittest.TextTestRunner
_TextTestResult = _unittest.TextTestResult
_walk_tb = traceback.walk_tb
_PRISTINE_BUILTINS = dict(vars(builtins))


def _unittest_main(*args, **kwargs):
    """`unittest.main()` in a test does nothing: once the script has run to its end, the runner
    runs the TestCase classes it defined. (unittest's own `main` would end the process with
    SystemExit, and an exit is never evidence that a test finished.)"""
    return None


_unittest.main = _unittest_main


class _LazySeededRandom(_random.Random):
    """random.Random whose default seeding is deferred to its first draw.

    Constructed once, at build time (the C constructor seeds from urandom when given no seed, so
    it is always given one); `_reset` re-arms it at the start of every run without entropy.
    """

    def __init__(self):
        super().__init__(0)
        self._dixit_seeded = False

    def _reset(self):
        # Every drawing method reseeds from entropy first (`_dixit_ensure`), so re-arming is
        # cheap: no reseeding here (it cost a Mersenne Twister initialisation per run), only the
        # Gaussian a previous run may have cached.
        self._dixit_seeded = False
        self.gauss_next = None

    def seed(self, a=None, version=2):
        if a is None:
            # Seeding from entropy is deferred to the first draw (indistinguishable to the
            # caller), so a run that seeds but never draws reads no entropy.
            self._dixit_seeded = False
            return
        self._dixit_seeded = True
        super().seed(a, version)

    def setstate(self, state):
        self._dixit_seeded = True
        super().setstate(state)

    def _dixit_ensure(self):
        if not self._dixit_seeded:
            self._dixit_seeded = True
            super().seed(os.urandom(32))

    def random(self):
        self._dixit_ensure()
        return super().random()

    def getrandbits(self, k):
        self._dixit_ensure()
        return super().getrandbits(k)

    def getstate(self):
        self._dixit_ensure()
        return super().getstate()

    def randbytes(self, n):
        self._dixit_ensure()
        return super().randbytes(n)


_LAZY = _LazySeededRandom()
_random._inst = _LAZY
for _name in dir(_random.Random):
    if not _name.startswith("_") and callable(getattr(_random, _name, None)) and hasattr(_LAZY, _name):
        setattr(_random, _name, getattr(_LAZY, _name))


# Code objects from the host's cache for this run ({guest path: code}); see `_load_cached_code`.
_CODE = {}
# Top-level modules of the solution directory with cached code ({module name: path}).
_TOP = {}


def _forget_solution_modules():
    """Drops every module imported since start-up, so a run imports its solution afresh.

    In a fresh instance there is nothing to drop; in a session (one instance, many runs) this
    keeps one run's solution from leaking into the next. The first run of an instance whose
    `sys.modules` is still the snapshot's (same size: nothing can have been imported yet) skips
    the loop, which touches the reference count of every module name (~370 objects spread over
    the snapshot's heap, each a page the instance would copy).
    """
    if _RUNS[0] == 1 and len(sys.modules) == _SNAPSHOT_MODULES[0]:
        return
    for name in [n for n in sys.modules if n not in _BASE_MODULES]:
        del sys.modules[name]


def _load_cached_code():
    """Loads the code the host cached for this run's files (`bridge.code`: one side's files,
    {guest path: code} marshalled, or nothing). The code comes as data through the call, not as a
    file: a file read is several host calls, each a wake-up of WASI's background threads."""
    _CODE.clear()
    _TOP.clear()
    blob = _host_code()
    if not blob:
        return
    try:
        _CODE.update(marshal.loads(blob))
    except (ValueError, EOFError, TypeError):
        _CODE.clear()  # no usable cache: the files are compiled as usual


def _index_top_modules(directory):
    prefix = directory.rstrip("/") + "/"
    for path in _CODE:
        if path.startswith(prefix) and path.endswith(".py") and "/" not in path[len(prefix):]:
            name = path[len(prefix):-3]
            if name.isidentifier():
                _TOP[name] = path


def _code_for(path):
    code = _CODE.get(path)
    if code is None:
        with open(path, "r", encoding="utf-8") as f:
            code = compile(f.read(), path, "exec")
    return code


class _CachedLoader:
    """Loads a top-level solution module from cached code (the file is the code's source)."""

    def __init__(self, path):
        self.path = path

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(_code_for(self.path), module.__dict__)

    def get_source(self, fullname):
        with open(self.path, "r", encoding="utf-8") as f:
            return f.read()


class _CachedFinder:
    """First on sys.meta_path: finds the solution's top-level modules that have cached code."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if path is not None:
            return None
        p = _TOP.get(name)
        if p is None:
            return None
        spec = importlib.machinery.ModuleSpec(name, _CachedLoader(p), origin=p)
        spec.has_location = True
        return spec

    @staticmethod
    def invalidate_caches():
        pass


sys.meta_path.insert(0, _CachedFinder)


# What `run` returns in the unit-test modes (see the module docstring).
_PASSED, _FAILED, _ERROR, _EXITED = 0, 1, 2, 3


def _program_exit_code(exc):
    """The exit code of a program (mode `main`) that ended with `exc`, as CPython's would be."""
    if isinstance(exc, SystemExit):
        code = exc.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    _print_failure(exc)
    return 1 if isinstance(exc, AssertionError) else 2


def _test_status(exc):
    """What a unit test that ended with `exc` returns: a failed check, an error, or an exit
    before the test's end (which is never a pass, whatever its code)."""
    if isinstance(exc, SystemExit):
        code = exc.code
        if code == 1 and type(code) in (int, bool):
            return _FAILED
        if isinstance(code, str):
            print(code, file=sys.stderr)
            return _FAILED
        print(
            f"dixit: the program exited (SystemExit({code!r})) before the test finished",
            file=sys.stderr,
        )
        return _EXITED
    if not isinstance(exc, Exception):
        print(
            f"dixit: the program stopped ({type(exc).__name__}) before the test finished",
            file=sys.stderr,
        )
        return _EXITED
    _print_failure(exc)
    return _FAILED if isinstance(exc, AssertionError) else _ERROR


def _print_failure(exc):
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next  # the runner's own frames say nothing about the test
    try:
        sys.stderr.write("".join(_format_exception(exc, tb, set())))
    except Exception:
        traceback.print_exception(type(exc), exc, tb)


_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"


def _format_exception(exc, tb, seen):
    """The standard traceback text without the column carets.

    `traceback.print_exception` costs about 2 M instructions per failing run (most of a failing
    run), mostly in building TracebackException and locating the carets; this prints the same
    frames, source lines, chained exceptions and final message for a fraction. Exception groups
    and syntax errors keep the standard module's formatting.
    """
    import linecache

    seen.add(id(exc))
    out = []
    cause, context = exc.__cause__, exc.__context__
    if cause is not None and id(cause) not in seen:
        out += _format_exception(cause, cause.__traceback__, seen) + [_CAUSE]
    elif context is not None and not exc.__suppress_context__ and id(context) not in seen:
        out += _format_exception(context, context.__traceback__, seen) + [_CONTEXT]
    if isinstance(exc, (BaseExceptionGroup, SyntaxError)):
        return out + traceback.format_exception(type(exc), exc, tb, chain=False)
    if tb is not None:
        out.append("Traceback (most recent call last):\n")
        for frame, lineno in traceback.walk_tb(tb):
            code = frame.f_code
            if code.co_filename == _BRIDGE_FILE:
                continue  # the boundary's own frames say nothing about the test
            out.append(f'  File "{code.co_filename}", line {lineno}, in {code.co_name}\n')
            line = linecache.getline(code.co_filename, lineno, frame.f_globals).strip()
            if line:
                out.append(f"    {line}\n")
    out += traceback.format_exception_only(type(exc), exc)
    return out


# How much of each text the failure report carries (the host cuts them shorter).
_FAILURE_TEXT_MAX = 2000
import json as _json

_FAILURE_ENCODER = _json.JSONEncoder(ensure_ascii=True)


def _failure_report(exc, tb, target):
    """The failure report of a unit test that ended with `exc` (traceback `tb`): its type, its
    message, and the test's line where it happened. Never raises (an exception whose `str`
    fails is reported without its message)."""
    import linecache

    def text(get):
        try:
            return str(get())[:_FAILURE_TEXT_MAX]
        except BaseException:
            return ""

    report = {"type": text(lambda: type(exc).__name__), "message": text(lambda: exc)}
    try:
        for frame, lineno in _walk_tb(tb):
            if frame.f_code.co_filename == target:
                report["file"] = target.rsplit("/", 1)[-1]
                report["line"] = lineno
                report["code"] = text(
                    lambda: linecache.getline(target, lineno, frame.f_globals).strip()
                )
    except BaseException:
        pass
    return _FAILURE_ENCODER.encode(report)


def _report_failure(exc, tb, target):
    """Reports the failure to the host (see the module docstring)."""
    try:
        _host_failure(_failure_report(exc, tb, target))
    except BaseException:
        pass


class _FirstFailure(_TextTestResult):
    """unittest's text result, keeping the first failure or error (its exception and
    traceback) for the failure line."""

    first = None

    def addFailure(self, test, err):
        if self.first is None:
            self.first = err
        super().addFailure(test, err)

    def addError(self, test, err):
        if self.first is None:
            self.first = err
        super().addError(test, err)


def _run_collected(ns, filename):
    """Runs the pytest-style test_* functions and unittest.TestCase classes the test defined;
    returns the test's status and its first failure (`(type, exception, traceback)`, or None).
    The unittest machinery was captured when the runtime was built, before any solution could
    rebind it by name."""
    for name, obj in list(ns.items()):
        if (
            name.startswith("test")
            and isinstance(obj, _FunctionType)
            and obj.__code__.co_filename == filename
            and obj.__code__.co_argcount == 0
        ):
            obj()
    cases = [
        obj
        for obj in ns.values()
        if isinstance(obj, type)
        and issubclass(obj, _TestCase)
        and obj.__module__ == ns.get("__name__")
    ]
    if not cases:
        return _PASSED, None
    suite = _TestSuite()
    loader = _TestLoader()
    for c in cases:
        suite.addTests(loader.loadTestsFromTestCase(c))
    runner = _TextTestRunner(stream=sys.stderr, verbosity=1, resultclass=_FirstFailure)
    result = runner.run(suite)
    first = result.first if isinstance(result, _FirstFailure) else None
    if result.errors:
        return _ERROR, first
    if result.failures or result.unexpectedSuccesses:
        return _FAILED, first
    return _PASSED, None


def _run_file(path, name, private_builtins=False, preset=None):
    """Executes a file as module `name`. With `private_builtins` its namespace gets its own copy
    of the builtins as they were when the runtime was built: a solution that rebinds
    `builtins.len` changes the solution's `len`, not the test's. `preset` names are bound in
    the namespace before the file runs (its own definitions and imports rebind them)."""
    code = _code_for(path)
    mod = types.ModuleType(name)
    mod.__dict__.update(preset or {})
    mod.__dict__.update(
        {
            "__name__": name,
            "__file__": path,
            "__builtins__": dict(_PRISTINE_BUILTINS) if private_builtins else builtins,
        }
    )
    sys.modules[name] = mod
    exec(code, mod.__dict__)
    return mod.__dict__


def _mode_check(target, args=()):
    paths = []
    if os.path.isdir(target):
        for root, _dirs, files in os.walk(target):
            paths.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(".py"))
    else:
        paths.append(target)
    bad = 0
    compiled = {}
    for p in sorted(paths):
        try:
            with open(p, "r", encoding="utf-8") as f:
                compiled[p] = compile(f.read(), p, "exec")
        except SyntaxError as e:
            bad += 1
            print(f"{p}:{e.lineno}:{e.offset}: SyntaxError: {e.msg}", file=sys.stderr)
        except (UnicodeDecodeError, ValueError) as e:
            bad += 1
            print(f"{p}: {e}", file=sys.stderr)
    if bad:
        return 1
    if "--emit-code" in args:
        sys.stdout.flush()
        sys.stdout.buffer.write(marshal.dumps(compiled))
    return 0


def _mode_test(target, args):
    _forget_solution_modules()
    solution = _stand_in(_host_call, args[0] if args else "")
    sys.modules["solution"] = solution
    # "bind": the interface's names are in the test's namespace from the start, as after
    # `from solution import *`: a test that forgot its import still reaches the code.
    preset = None
    if len(args) > 1 and args[1] == "bind":
        preset = {n: getattr(solution, n) for n in solution.__all__}
    sys.argv = [target]
    try:
        ns = _run_file(target, "__main__", private_builtins=True, preset=preset)
        status, first = _run_collected(ns, target)
    except BaseException as exc:
        status, first = _test_status(exc), (type(exc), exc, exc.__traceback__)
    if status != _PASSED and first is not None:
        _report_failure(first[1], first[2], target)
    return status


def _mode_serve(target, args):
    _forget_solution_modules()
    _index_top_modules(target)
    sys.path[:0] = [target]
    sys.argv = ["solution"]
    module, failure = None, None
    try:
        import solution as module
    except BaseException as exc:
        failure = exc
    _SERVER.start(module, failure, args[0] if args else "")
    return _PASSED


def answer(request):
    """One request of the test's, answered by the solution this instance serves (the
    component's `answer` export). Never raises."""
    return _SERVER.answer(request)


def _mode_main(target, args):
    d = os.path.dirname(target) or "."
    _forget_solution_modules()
    _index_top_modules(d)
    sys.path[:0] = [d]
    sys.argv = [target] + list(args)
    try:
        _run_file(target, "__main__")
    except BaseException as exc:
        return _program_exit_code(exc)
    return 0


def _warm_up_failure_path():
    """Formats one failing assertion's traceback at build time, so the lazy set-up on the
    failure path (source lines, caret anchors, colour checks, compiled patterns) is in the
    snapshot instead of being redone by every failing run."""
    import linecache

    name = "<dixit-warm-up>"
    src = "def check(xs):\n    assert xs[0] + 1 == 3, xs\n\ncheck([1])\n"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    try:
        exec(compile(src, name, "exec"), {"__name__": "__dixit_warm_up__"})
    except AssertionError as exc:
        traceback.format_exception(type(exc), exc, exc.__traceback__)
        _failure_report(exc, exc.__traceback__, name)
    finally:
        linecache.cache.pop(name, None)


_warm_up_failure_path()

class _Discard(io.TextIOBase):
    """A text stream that accepts and drops everything (CodeT swallows the guest's output)."""

    def writable(self):
        return True

    def write(self, s):
        return len(s)


class _ClosedInput(io.TextIOBase):
    """A stdin that refuses to be read, like CodeT's."""

    def readable(self):
        return False

    def read(self, *args, **kwargs):
        raise OSError("stdin is closed")

    readline = read

    def readlines(self, *args, **kwargs):
        raise OSError("stdin is closed")


_DISCARD = _Discard()
_CLOSED_INPUT = _ClosedInput()
_PAIR_SOLUTIONS = {}


def _pair_code(text, name, encoding):
    if encoding == "marshal":
        import binascii
        import marshal

        return marshal.loads(binascii.a2b_base64(text))
    return compile(text, name, "exec")


class _Quiet:
    """Discards the guest's output and closes its stdin for a while (CodeT swallows both)."""

    def __enter__(self):
        self.saved = sys.stdout, sys.stderr, sys.stdin
        sys.stdout = sys.stderr = _DISCARD
        sys.stdin = _CLOSED_INPUT

    def __exit__(self, *exc):
        sys.stdout, sys.stderr, sys.stdin = self.saved
        return False


def _mode_pair(target, args):
    interface = args[0] if args else ""
    encoding = args[1] if len(args) > 1 else "source"
    reference = args[2] if len(args) > 2 else ""
    failure = None
    with _Quiet():
        try:
            ns = {"__name__": "__main__", "__builtins__": builtins}
            if reference:
                exec(_cached_code(reference, "<reference>", encoding), ns)
            stand_in = _stand_in(_host_call, interface)
            for name in stand_in.__all__:
                ns[name] = getattr(stand_in, name)
            exec(_pair_code(target, "<test>", encoding), ns)
            status = _PASSED
        except AssertionError as exc:
            status, failure = _FAILED, exc
        except Exception as exc:
            status, failure = _ERROR, exc
        except BaseException as exc:
            status, failure = _EXITED, exc
    if failure is not None:
        try:
            _host_failure(_FAILURE_ENCODER.encode({"type": type(failure).__name__}))
        except BaseException:
            pass
    return status


def _cached_code(text, name, encoding):
    """The code of a source given to every run of an instance (a solution, a reference), made
    once per instance."""
    code = _PAIR_SOLUTIONS.get((encoding, name, text))
    if code is None:
        code = _pair_code(text, name, encoding)
        _PAIR_SOLUTIONS[encoding, name, text] = code
    return code


def _mode_serve_pair(target, args):
    interface = args[0] if args else ""
    solution = args[1] if len(args) > 1 else ""
    encoding = args[2] if len(args) > 2 else "source"
    module, failure = types.ModuleType("__main__"), None
    with _Quiet():
        try:
            code = _cached_code(solution, "<solution>", encoding)
            module.__dict__["__builtins__"] = builtins
            exec(code, module.__dict__)
        except BaseException as exc:
            failure = exc
    _SERVER.start(module, failure, interface, quiet=_Quiet)
    return _PASSED


def _mode_build(target, args):
    import binascii
    import marshal
    import warnings

    lines = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for source in args:
            try:
                code = compile(source, target or "<source>", "exec")
            except Exception as exc:
                lines.append("-" + type(exc).__name__)
                continue
            data = binascii.b2a_base64(marshal.dumps(code), newline=False)
            lines.append("+" + data.decode("ascii"))
    # One write per line: a single write of more than 64 KiB loses what does not fit in the
    # first chunk the host accepts (seen with componentize-py's stdout).
    for line in lines:
        sys.stdout.write(line + "\n")
    return 0


def _mode_compile(target, args):
    import warnings

    verdicts = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for source in args:
            try:
                compile(source, "", "exec")
                verdicts.append("1")
            except Exception:
                verdicts.append("0")
    sys.stdout.write("".join(verdicts))
    return 0


def _fenced_blocks(text):
    """The bodies of the markdown code fences of `text`, in order."""
    blocks, body, inside = [], [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            if inside:
                blocks.append("\n".join(body))
                body = []
            inside = not inside
            continue
        if inside:
            body.append(line)
    if inside and body:
        blocks.append("\n".join(body))
    return blocks


def _parses(code):
    try:
        _ast.parse(code)
        return True
    except Exception:
        return False


def _longest_valid(code):
    """The stretch of whole lines of `code` with the most non-blank lines that parses."""
    if _parses(code):
        return code
    lines = code.split("\n")
    best, best_count = "", 0
    for i in range(len(lines)):
        for j in range(len(lines), i, -1):
            count = sum(1 for l in lines[i:j] if l.strip())
            if count <= best_count:
                break
            chunk = "\n".join(lines[i:j])
            if _parses(chunk):
                best, best_count = chunk, count
                break
    return best


def _names_used(node):
    return {n.id for n in _ast.walk(node) if isinstance(n, _ast.Name)} | {
        n.attr for n in _ast.walk(node) if isinstance(n, _ast.Attribute)
    }


def _sanitize_one(entry, text):
    """The code of `text` that defines `entry`, with what it depends on; None when none does."""
    blocks = _fenced_blocks(text)
    candidates = [b for b in blocks if ("def " + entry) in b] or blocks or [text]
    code = max(candidates, key=lambda b: len(b.strip()))
    code = _longest_valid(code)
    if not code.strip():
        return None
    tree = _ast.parse(code)
    imports, defs = [], {}
    order = []
    for node in tree.body:
        if isinstance(node, (_ast.Import, _ast.ImportFrom)):
            imports.append(node)
        elif isinstance(node, (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.ClassDef)):
            defs[node.name] = node
            order.append(node)
        elif isinstance(node, (_ast.Assign, _ast.AnnAssign)):
            targets = node.targets if isinstance(node, _ast.Assign) else [node.target]
            for t in targets:
                for n in _ast.walk(t):
                    if isinstance(n, _ast.Name):
                        defs.setdefault(n.id, node)
            order.append(node)
    if entry not in defs or not isinstance(defs[entry], (_ast.FunctionDef, _ast.AsyncFunctionDef)):
        return None
    keep, todo = set(), [entry]
    while todo:
        name = todo.pop()
        node = defs.get(name)
        if node is None or id(node) in keep:
            continue
        keep.add(id(node))
        todo.extend(_names_used(node))
    pieces = [_ast.get_source_segment(code, n) for n in imports]
    pieces += [_ast.get_source_segment(code, n) for n in order if id(n) in keep]
    out = []
    for node, piece in zip(imports + [n for n in order if id(n) in keep], pieces):
        decorators = getattr(node, "decorator_list", [])
        if decorators:
            lines = code.split("\n")
            first = min(d.lineno for d in decorators) - 1
            piece = "\n".join(lines[first:node.lineno - 1]) + "\n" + piece
        out.append(piece)
    return "\n".join(out) + "\n"


def _mode_sanitize(target, args):
    lines = []
    for k in range(0, len(args) - 1, 2):
        try:
            code = _sanitize_one(args[k], args[k + 1])
        except Exception:
            code = None
        if code is None:
            lines.append("-")
        else:
            lines.append("+" + _json.dumps(code))
    for line in lines:
        sys.stdout.write(line + "\n")
    return 0


_MODES = {
    "check": _mode_check,
    "test": _mode_test,
    "serve": _mode_serve,
    "main": _mode_main,
    "pair": _mode_pair,
    "serve-pair": _mode_serve_pair,
    "build": _mode_build,
    "compile": _mode_compile,
    "sanitize": _mode_sanitize,
}
_BASE_PATH = list(sys.path)
_BASE_RECURSION_LIMIT = sys.getrecursionlimit()
# Every module loaded so far belongs to the runtime; a run forgets every other one.
_BASE_MODULES = frozenset(sys.modules)
# The size of `sys.modules` in the snapshot (see `_snapshot_taken`) and the runs this instance
# has started.
_SNAPSHOT_MODULES = [-1]
_RUNS = [0]


def _snapshot_taken():
    """Called by `dixit_runner` as the last thing before the heap is snapshotted: forgets the
    modules imported since this module was loaded (as every run does) and records how many
    remain, so a fresh instance's first run can tell that it has nothing to forget."""
    for name in [n for n in sys.modules if n not in _BASE_MODULES]:
        del sys.modules[name]
    _SNAPSHOT_MODULES[0] = len(sys.modules)


def run(mode, target, args):
    """One run: the entry `dixit_runner.WitWorld.run` calls. Never raises: whatever the guest
    code does, the status it returns is the verdict's evidence (or the process ends without
    one)."""
    _RUNS[0] += 1
    _LAZY._reset()
    sys.path[:] = _BASE_PATH
    sys.setrecursionlimit(_BASE_RECURSION_LIMIT)
    try:
        handler = _MODES.get(mode)
        if handler is None:
            print(f"dixit runner: unknown mode {mode!r}", file=sys.stderr)
            code = _ERROR
        elif mode == "check":
            code = handler(target, args)
        else:
            _load_cached_code()
            code = handler(target, list(args))
    except BaseException as exc:  # a failure of the runner itself: an error, never a pass
        try:
            _print_failure(exc)
        except BaseException:
            pass
        code = _ERROR
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
    return code
