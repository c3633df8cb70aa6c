"""dixit's Python guest runtime.

componentize-py builds this module into a pre-initialised CPython component: everything imported
at module level below is already loaded when a run starts, so a run costs about a millisecond.
The host calls `run(mode, target, args)` once per run:

  check  target: a file or directory; compiles every .py file; exit 1 with the SyntaxError. With
         args ["--emit-code"], a clean check writes the compiled code objects (a marshalled
         {path: code} dict) to stdout, for the host to cache.
  test   target: a test file; args[0]: the solution directory. The test runs as __main__ with the
         solution importable (`from solution import f`); then any test_* functions and
         unittest.TestCase classes it defines are run, pytest/unittest style.
  main   target: a program file, args: its argv[1:]. Runs it as __main__ (I/O solutions, checkers).
  exec   target: Python source; args[0]: a solution file. Runs the solution, then the source, in
         one fresh namespace (the CodeT convention for `assert f(x) == y` tests).
  pair   target: a test; args[0]: a solution; args[1]: how both are given, "source" (default:
         Python source text) or "marshal" (what `build` made of them). Offline evaluation
         (`dixit eval`): runs the solution, then the test, in one fresh namespace, with stdout
         and stderr discarded and stdin closed (as CodeT's harness swallows its I/O). Exit 0
         pass, 1 AssertionError, 2 any other Exception, 3 a BaseException that is not an
         Exception (SystemExit, KeyboardInterrupt). On failure the exception's class name is the
         only thing written to stderr (no traceback: it would cost more than most tests). The
         solution's code is kept per argument for the life of the instance, so a session
         (isolation level `solution`) decodes or compiles it once.
  build  target: the file name code objects get (e.g. "<test>"); args: Python sources. Writes
         one line per source to stdout: "+" and the base64 of `marshal.dumps(compile(source))`,
         or "-" and the class name of what `compile` raised. Compiling once and loading the
         marshalled code in each `pair` run saves a compile per run (a test's compile costs
         several times its execution).
  compile  args: Python sources. Writes one character per source to stdout: `1` when
         `compile(source, "", "exec")` succeeds, `0` when it raises (warnings ignored). The
         importer's compile check (CodeT keeps a generated test only if it compiles).

The host may put ["--dixit-code=PATH", ..., "--dixit-code-end"] before the mode's own args:
marshalled code from earlier checks. Files with cached code are not compiled again (compiling is most of a small test's cost),
and top-level modules of the solution directory are loaded straight from it.

Exit codes: 0 pass; 1 a failed assertion (AssertionError, unittest failure) or sys.exit(1);
2 an uncaught exception; SystemExit(n) gives n.

Randomness: `random`'s global generator is seeded lazily, from the host's seeded WASI RNG, at its
first use; a run that never draws a random number reads no entropy, so the host can tell its
reruns would be identical.
"""

import wit_world

import sys
import os
import io
import types
import traceback
import builtins
import marshal
import importlib.machinery

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
    "queue secrets shlex shutil subprocess tempfile threading traceback urllib.parse zipfile"
).split()
for _name in _PRELOAD:
    try:
        __import__(_name)
    except Exception:  # a module this CPython build lacks is simply not preloaded
        pass

import random as _random


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


# Code objects from the host's cache for this run ({guest path: code}); see `_take_code_args`.
_CODE = {}
# Top-level modules of the solution directory with cached code ({module name: path}).
_TOP = {}


def _forget_solution_modules():
    """Drops every module imported since start-up, so a run imports its solution afresh.

    In a fresh instance there is nothing to drop; in a session (one instance, many runs) this
    keeps one run's solution from leaking into the next.
    """
    for name in [n for n in sys.modules if n not in _BASE_MODULES]:
        del sys.modules[name]


def _take_code_args(args):
    """Strips the leading ["--dixit-code=PATH", ..., "--dixit-code-end"] from args and loads the
    code they name. Without the end marker nothing is stripped, so a program's own arguments are
    never mistaken for these."""
    _CODE.clear()
    _TOP.clear()
    if _CODE_END not in args:
        return args
    end = args.index(_CODE_END)
    if not all(a.startswith(_CODE_ARG) for a in args[:end]):
        return args
    for a in args[:end]:
        try:
            with open(a[len(_CODE_ARG):], "rb") as f:
                _CODE.update(marshal.loads(f.read()))
        except (OSError, ValueError, EOFError, TypeError):
            pass  # no usable cache: the files are compiled as usual
    return args[end + 1:]


_CODE_ARG = "--dixit-code="
_CODE_END = "--dixit-code-end"


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


def _exit_code(exc):
    if isinstance(exc, SystemExit):
        code = exc.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next  # the runner's own frames say nothing about the test
    try:
        sys.stderr.write("".join(_format_exception(exc, tb, set())))
    except Exception:
        traceback.print_exception(type(exc), exc, tb)
    if isinstance(exc, AssertionError):
        return 1
    return 2


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
            out.append(f'  File "{code.co_filename}", line {lineno}, in {code.co_name}\n')
            line = linecache.getline(code.co_filename, lineno, frame.f_globals).strip()
            if line:
                out.append(f"    {line}\n")
    out += traceback.format_exception_only(type(exc), exc)
    return out


def _collect_and_run(ns, filename):
    """Runs pytest-style test_* functions and unittest.TestCase classes defined by the test."""
    import unittest

    for name, obj in list(ns.items()):
        if (
            name.startswith("test")
            and isinstance(obj, types.FunctionType)
            and obj.__code__.co_filename == filename
            and obj.__code__.co_argcount == 0
        ):
            obj()
    cases = [
        obj
        for obj in ns.values()
        if isinstance(obj, type)
        and issubclass(obj, unittest.TestCase)
        and obj.__module__ == ns.get("__name__")
    ]
    if cases:
        suite = unittest.TestSuite()
        loader = unittest.TestLoader()
        for c in cases:
            suite.addTests(loader.loadTestsFromTestCase(c))
        result = unittest.TextTestRunner(stream=sys.stderr, verbosity=1).run(suite)
        if result.errors:
            raise SystemExit(2)
        if result.failures or result.unexpectedSuccesses:
            raise SystemExit(1)


def _run_file(path, name):
    code = _code_for(path)
    ns = {"__name__": name, "__file__": path, "__builtins__": builtins}
    mod = types.ModuleType(name)
    mod.__dict__.update(ns)
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
    sol = args[0] if args else "/solution"
    _forget_solution_modules()
    _index_top_modules(sol)
    sys.path[:0] = [sol]
    sys.argv = [target]
    ns = _run_file(target, "__main__")
    _collect_and_run(ns, target)
    return 0


def _mode_main(target, args):
    d = os.path.dirname(target) or "."
    _forget_solution_modules()
    _index_top_modules(d)
    sys.path[:0] = [d]
    sys.argv = [target] + list(args)
    _run_file(target, "__main__")
    return 0


_COMPILED = {}


def _mode_exec(target, args):
    ns = {"__name__": "__main__", "__builtins__": builtins}
    if args:
        path = args[0]
        code = _COMPILED.get(path) or _CODE.get(path)
        if code is None:
            with open(path, "r", encoding="utf-8") as f:
                code = compile(f.read(), path, "exec")
            _COMPILED[path] = code
        exec(code, ns)
    exec(compile(target, "<test>", "exec"), ns)
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


def _mode_pair(target, args):
    solution = args[0] if args else ""
    encoding = args[1] if len(args) > 1 else "source"
    saved = sys.stdout, sys.stderr, sys.stdin
    sys.stdout = sys.stderr = _DISCARD
    sys.stdin = _CLOSED_INPUT
    failure = None
    try:
        code = _PAIR_SOLUTIONS.get((encoding, solution))
        if code is None:
            code = _pair_code(solution, "<solution>", encoding)
            _PAIR_SOLUTIONS[encoding, solution] = code
        ns = {"__name__": "__main__", "__builtins__": builtins}
        exec(code, ns)
        exec(_pair_code(target, "<test>", encoding), ns)
        status = 0
    except AssertionError as exc:
        status, failure = 1, exc
    except Exception as exc:
        status, failure = 2, exc
    except BaseException as exc:
        status, failure = 3, exc
    finally:
        sys.stdout, sys.stderr, sys.stdin = saved
    if failure is not None:
        sys.stderr.write(type(failure).__name__)
    return status


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


_MODES = {
    "test": _mode_test,
    "main": _mode_main,
    "exec": _mode_exec,
    "pair": _mode_pair,
    "build": _mode_build,
    "compile": _mode_compile,
}
_BASE_PATH = list(sys.path)
_BASE_MODULES = frozenset(sys.modules)
_BASE_RECURSION_LIMIT = sys.getrecursionlimit()


class WitWorld(wit_world.WitWorld):
    def run(self, mode: str, target: str, args) -> int:
        _LAZY._reset()
        sys.path[:] = _BASE_PATH
        sys.setrecursionlimit(_BASE_RECURSION_LIMIT)
        try:
            if mode == "check":
                code = _mode_check(target, args)
            elif mode in _MODES:
                code = _MODES[mode](target, _take_code_args(list(args)))
            else:
                print(f"dixit runner: unknown mode {mode!r}", file=sys.stderr)
                code = 2
        except BaseException as exc:  # the guest's failure is the verdict, never a crash
            code = _exit_code(exc)
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except Exception:
                pass
        return code


# Everything above lives in the pre-initialised snapshot for the life of every instance. Moving it
# to the collector's permanent generation means no collection ever walks (and writes to) those
# objects, so an instance only copies the memory pages its own run touches.
import gc as _gc

_gc.collect()
_gc.freeze()
