"""dixit's disagreement finder, the guest side (the host side is runner/src/consensus/).

Run by the Python runtime in mode `main` (a program), one sandbox run per use:

  consensus.py record TEST NAMES_JSON
      Runs the test file TEST against a stand-in for the module `solution`: no implementation
      is in the process, so no solution can add, hide or alter a record. Every call the test
      makes into `solution` is written to stdout as it happens, one line each:
          "\\x1edixit-call " + {"fn": NAME, "args": [V...], "kwargs": [[KEY, V]...]}
      or, when an argument is not plain data, {"fn": NAME, "unsupported": TYPE}.
      The stand-in answers every call with a wildcard (equal to anything, usable as a number,
      a sequence, a callable...), and every statement of the test is guarded, so a failed
      check does not end the test: the calls after it are recorded too. NAMES_JSON lists the
      names the implementations define (for `from solution import *`).

  consensus.py probe SOLUTION_DIR CALL_JSON [CODE]
      Imports `solution` from SOLUTION_DIR (from CODE, the host's cache of its compiled code, when
      given), makes the one call CALL_JSON describes (the record's fields), and writes the answer
      as the last line of stdout:
          "\\x1edixit-answer " + {"value": V} | {"raised": TYPE} | {"unrepresentable": TYPE}
                                | {"missing": true}
      (`raised` with "where": "import" when importing the solution failed).

V is a value encoded as plain data (see `_enc`; the host's reader is consensus/value.rs). The
host treats everything this program prints as untrusted: a test or a solution shares its
process and may print anything, so the host bounds and checks every line.
"""

import ast
import json
import marshal
import sys
import types
import unittest

CALL = "\x1edixit-call "
ANSWER = "\x1edixit-answer "
MAX_CALLS = 300  # distinct calls recorded per test
MAX_NODES = 2000  # parts of one encoded value
MAX_SCALAR = 10000  # characters of one string, digits of one int
MAX_DEPTH = 16

_out = sys.stdout


class _Unsupported(Exception):
    """A value that is not plain data (its type name is the message)."""


class _Enough(BaseException):
    """Ends a test that made more than MAX_CALLS distinct calls (not caught by its guards)."""


def _enc(v, state=None, depth=0):
    """`v` as JSON-able plain data. Exact built-in types (and subclasses of int, float, str,
    tuple, list and dict, read through the base type's methods, so an override runs nothing);
    anything else raises _Unsupported."""
    if state is None:
        state = [0]
    state[0] += 1
    if state[0] > MAX_NODES or depth > MAX_DEPTH:
        raise _Unsupported("value too large")
    if v is None or v is True or v is False:
        return v
    t = type(v)
    if isinstance(v, int) and t is not bool:
        # Below CPython's 4,300-digit limit of int-to-str conversion.
        if int.bit_length(v) > 14000:
            raise _Unsupported("int too large")
        return {"int": int.__repr__(v)}
    if isinstance(v, float):
        return {"float": float.__repr__(v)}
    if t is complex:
        return {"complex": [float.__repr__(v.real), float.__repr__(v.imag)]}
    if isinstance(v, str):
        s = str.__str__(v)
        if len(s) > MAX_SCALAR:
            raise _Unsupported("str too long")
        return s
    if t is bytes or t is bytearray:
        if len(v) > MAX_SCALAR:
            raise _Unsupported("bytes too long")
        return {"bytes": bytes(v).hex()}
    if isinstance(v, tuple):
        return {"tuple": [_enc(x, state, depth + 1) for x in tuple.__getitem__(v, slice(None))]}
    if isinstance(v, list):
        return [_enc(x, state, depth + 1) for x in list.__getitem__(v, slice(None))]
    if isinstance(v, dict):
        return {"dict": [[_enc(k, state, depth + 1), _enc(x, state, depth + 1)] for k, x in dict.items(v)]}
    if t is set or t is frozenset:
        return {t.__name__: [_enc(x, state, depth + 1) for x in v]}
    raise _Unsupported(t.__name__)


def _dec(j):
    """The value `_enc` encoded (the host sends calls in this form)."""
    if j is None or isinstance(j, (bool, str)):
        return j
    if isinstance(j, list):
        return [_dec(x) for x in j]
    (tag, v), = j.items()
    if tag == "int":
        return int(v)
    if tag == "float":
        return float(v)
    if tag == "complex":
        return complex(float(v[0]), float(v[1]))
    if tag == "bytes":
        return bytes.fromhex(v)
    if tag == "tuple":
        return tuple(_dec(x) for x in v)
    if tag == "dict":
        return {_dec(k): _dec(x) for k, x in v}
    if tag == "set":
        return {_dec(x) for x in v}
    if tag == "frozenset":
        return frozenset(_dec(x) for x in v)
    raise ValueError(tag)


class _Any:
    """The stand-in's answer to every call: compares equal to anything and supports what a
    test commonly does with a result, so the test goes on to its next call."""

    __slots__ = ()

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __lt__ = __le__ = __gt__ = __ge__ = __contains__ = __eq__

    def __hash__(self):
        return 0

    def __bool__(self):
        return True

    def __len__(self):
        return 0

    def __iter__(self):
        return iter(())

    def __index__(self):
        return 0

    __int__ = __index__

    def __float__(self):
        return 0.0

    def __str__(self):
        return ""

    def __repr__(self):
        return "<any>"

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def _self(self, *args, **kwargs):
        return self

    __call__ = __getitem__ = __neg__ = __pos__ = __abs__ = __invert__ = __round__ = _self
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _self
    __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = _self
    __rpow__ = __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _self
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = __matmul__ = __rmatmul__ = _self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


ANY = _Any()

# Statements left unguarded: definitions and directives that cannot fail on their own (and
# `from __future__` must stay first).
_KEEP = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Global, ast.Nonlocal, ast.Pass)


def _guard(body):
    """Every statement of `body` (recursively) wrapped in `try: ... except Exception: pass`."""
    out = []
    for st in body:
        for field in ("body", "orelse", "finalbody"):
            sub = getattr(st, field, None)
            if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                setattr(st, field, _guard(sub))
        for h in getattr(st, "handlers", ()):
            h.body = _guard(h.body)
        for c in getattr(st, "cases", ()):
            c.body = _guard(c.body)
        if isinstance(st, _KEEP) or (isinstance(st, ast.ImportFrom) and st.module == "__future__"):
            out.append(st)
            continue
        handler = ast.ExceptHandler(type=ast.Name(id="Exception", ctx=ast.Load()), name=None, body=[ast.Pass()])
        out.append(ast.copy_location(ast.Try(body=[st], handlers=[handler], orelse=[], finalbody=[]), st))
    return out


class _Discard:
    def write(self, s):
        return len(s)

    def flush(self):
        pass


def _silenced(fn):
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = _Discard()
    try:
        return fn()
    finally:
        sys.stdout, sys.stderr = saved


def record(test_path, names_json):
    seen = set()
    recorders = {}

    def recorder(name):
        def call(*args, **kwargs):
            try:
                rec = {"fn": name, "args": [_enc(a) for a in args],
                       "kwargs": [[k, _enc(kwargs[k])] for k in sorted(kwargs)]}
            except _Unsupported as e:
                rec = {"fn": name, "unsupported": str(e)}
            line = json.dumps(rec, separators=(",", ":"))
            if line not in seen:
                if len(seen) >= MAX_CALLS:
                    raise _Enough()
                seen.add(line)
                _out.write(CALL + line + "\n")
                _out.flush()
            return ANY

        call.__name__ = call.__qualname__ = name
        return call

    def module_getattr(name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in recorders:
            recorders[name] = recorder(name)
        return recorders[name]

    stub = types.ModuleType("solution")
    stub.__dict__["__getattr__"] = module_getattr
    stub.__all__ = [n for n in json.loads(names_json) if isinstance(n, str) and n.isidentifier()]
    sys.modules["solution"] = stub

    with open(test_path, "r", encoding="utf-8") as f:
        source = f.read()
    try:
        tree = ast.parse(source, test_path)
        tree.body = _guard(tree.body)
        code = compile(ast.fix_missing_locations(tree), test_path, "exec")
    except Exception:
        code = compile(source, test_path, "exec")
    ns = {"__name__": "__main__", "__file__": test_path, "__builtins__": __builtins__}

    def run():
        try:
            exec(code, ns)
            # What the runner runs after the script: its test_* functions and TestCase classes.
            for name, obj in list(ns.items()):
                if (name.startswith("test") and isinstance(obj, types.FunctionType)
                        and obj.__code__.co_filename == test_path and obj.__code__.co_argcount == 0):
                    try:
                        obj()
                    except Exception:
                        pass
            cases = [o for o in ns.values() if isinstance(o, type) and issubclass(o, unittest.TestCase)]
            if cases:
                suite = unittest.TestSuite()
                for c in cases:
                    suite.addTests(unittest.TestLoader().loadTestsFromTestCase(c))
                unittest.TextTestRunner(stream=_Discard(), verbosity=0).run(suite)
        except _Enough:
            pass
        except BaseException:
            pass

    _silenced(run)
    return 0


def _import_solution(solution_dir, code_path):
    """The module `solution`: executed from the cached code object when there is one (compiling
    is most of a small run's cost), else imported from its file."""
    path = solution_dir.rstrip("/") + "/solution.py"
    code = None
    if code_path:
        try:
            with open(code_path, "rb") as f:
                code = marshal.loads(f.read()).get(path)
        except Exception:
            code = None
    if code is None:
        import solution
        return solution
    mod = types.ModuleType("solution")
    mod.__file__ = path
    sys.modules["solution"] = mod
    exec(code, mod.__dict__)
    return mod


def probe(solution_dir, call_json, code_path=None):
    call = json.loads(call_json)
    name = call["fn"]
    args = [_dec(a) for a in call["args"]]
    kwargs = {k: _dec(v) for k, v in call["kwargs"]}
    sys.path.insert(0, solution_dir)

    def run():
        try:
            solution = _import_solution(solution_dir, code_path)
        except BaseException as e:
            return {"raised": type(e).__name__, "where": "import"}
        try:
            fn = getattr(solution, name, None)
        except BaseException:
            fn = None
        if not callable(fn):
            return {"missing": True}
        try:
            result = fn(*args, **kwargs)
        except BaseException as e:
            return {"raised": type(e).__name__}
        try:
            return {"value": _enc(result)}
        except _Unsupported as e:
            return {"unrepresentable": str(e)}

    answer = _silenced(run)
    _out.write(ANSWER + json.dumps(answer, separators=(",", ":")) + "\n")
    _out.flush()
    return 0


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "record":
        sys.exit(record(sys.argv[2], sys.argv[3]))
    elif mode == "probe":
        sys.exit(probe(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None))
    sys.exit(2)
