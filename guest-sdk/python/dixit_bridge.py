"""The boundary between a unit test and the solution it checks (both sides of it).

A test and a solution never share an interpreter: each runs in its own fresh instance of the
Python runtime, and the only thing that crosses between them is data, carried by the host.

  test instance                         host                          solution instance
  `solution` is a stand-in module  --request-->  bounded bytes  --request-->  `answer(request)`
  values, proxies, exceptions     <--answer---                  <--answer---  the real module

What the test can observe of the solution is exactly what its interface answers: the values its
functions return (plain data, by value), exceptions (by class names and arguments), and objects
that are not plain data, as proxies: every use of a proxy (attribute, call, operator, iteration,
`len`, `repr`, `isinstance`, ...) is one more request, answered by the real object. The solution
sees only the calls: never the test's code, files or objects. Semantics a test may notice:

- Arguments are copied. A list, dict, set or bytearray the solution changes in place is copied
  back into the test's own object after the call (so `f(xs)` sorting `xs` in place works), but
  identity is not preserved (`f(xs) is xs` is false).
- Only plain data and proxies (objects the solution returned) can be passed to the solution; a
  function or any other object of the test's raises TypeError in the test.
- An exception class the solution raises or exposes arrives as a class of the test's own with
  the same name and the nearest built-in base (so `except ValueError` and `except
  solution.InvalidInput` both work); custom attributes of an exception do not cross.
- The interface is public: attribute names that begin with `_` are refused (so `__code__`,
  `__globals__`, `__dict__` or a docstring never cross), and so are code objects, frames,
  tracebacks and cells. A module, or a function or class of the standard library (`math`,
  `math.sqrt`, `typing.List`, `int`), crosses by name: the test gets its own. Only what the
  solution itself defines or makes is reached through proxies, so a test cannot call the
  solution's imports (`os.listdir`, `pathlib.Path`) to read the solution's files.
- `repr` of a proxy leaves out memory addresses (`<function f>`), which would tell apart
  implementations by their allocations rather than by their answers.

Messages are JSON with the value encoding of dixit's disagreement finder (`runner/src/consensus/
value.rs` reads it): None, bools, strings and lists as JSON; {"int": "12"}, {"float": "0.5"},
{"complex": [re, im]}, {"bytes": hex}, {"tuple": [...]}, {"dict": [[k, v], ...]}, {"set": [...]},
{"frozenset": [...]}; and here also {"handle": [id, type name]} for a proxy and {"exc_class":
[class names of the MRO]} for an exception class. Each side treats what it receives as
untrusted: it is parsed as JSON (memory-safe in CPython) and checked as it is decoded.
"""

import builtins
import json
import operator
import sys
import types

# This module's name lookups go to a private copy of the builtins, taken before any solution or
# test runs: one that rebinds `builtins.int` or `builtins.isinstance` changes what it sees, not
# what the bridge calls. (Functions capture their builtins when they are defined.)
__builtins__ = dict(vars(builtins))

# Captured at build time: a solution or a test that rebinds these changes nothing here.
_json_dumps = json.dumps
_json_loads = json.loads
_type = type
_isinstance = isinstance
_getattr = getattr
_setattr = setattr
_delattr = delattr
_len = len
_list = list
_dict = dict
_tuple = tuple
_str = str
_int = int
_float = float
_repr = repr
_BaseException = BaseException
_Exception = Exception
_TypeError = TypeError
_int_repr = int.__repr__
_float_repr = float.__repr__

_MUTABLE = (list, dict, set, bytearray)
_ModuleType = types.ModuleType
_REFLECTIVE = (types.CodeType, types.FrameType, types.TracebackType, types.CellType)
_ADDRESS = None  # compiled lazily: `re` is preloaded, but not needed on most runs
_MAX_DEPTH = 200
_SEP = (",", ":")


class BridgeError(Exception):
    """A message that does not decode (the other side sent something malformed)."""


# ---------------------------------------------------------------------------------------------
# Values


def encode(v, handle_of, depth=0):
    """`v` as JSON-able data; objects that are not plain data become `handle_of(v)`."""
    if depth > _MAX_DEPTH:
        raise _TypeError("value nested too deeply to pass between test and solution")
    t = _type(v)
    if v is None or t is bool:
        return v
    if t is int:
        return {"int": _int_repr(v)}
    if t is float:
        return {"float": _float_repr(v)}
    if t is str:
        return v
    if t is list:
        return [encode(x, handle_of, depth + 1) for x in v]
    if t is tuple:
        return {"tuple": [encode(x, handle_of, depth + 1) for x in v]}
    if t is dict:
        return {"dict": [[encode(k, handle_of, depth + 1), encode(x, handle_of, depth + 1)] for k, x in v.items()]}
    if t is bytes:
        return {"bytes": v.hex()}
    if t is bytearray:
        return {"bytearray": bytes(v).hex()}
    if t is set or t is frozenset:
        return {t.__name__: [encode(x, handle_of, depth + 1) for x in v]}
    if t is complex:
        return {"complex": [_float_repr(v.real), _float_repr(v.imag)]}
    return handle_of(v)


def _address_free(s):
    global _ADDRESS
    if _ADDRESS is None:
        import re

        _ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
    return _ADDRESS.sub("", s)


def decode(j, resolve, depth=0):
    """The value `encode` made; `resolve(tag, payload)` turns a handle or an exception class
    into this side's object. Raises BridgeError on anything malformed."""
    if depth > _MAX_DEPTH:
        raise BridgeError("value nested too deeply")
    if j is None or j is True or j is False or _type(j) is str:
        return j
    if _type(j) is list:
        return [decode(x, resolve, depth + 1) for x in j]
    if _type(j) is not dict or _len(j) != 1:
        raise BridgeError("malformed value")
    ((tag, v),) = j.items()
    try:
        if tag == "int":
            if _type(v) is not str or _len(v) > 5000:
                raise BridgeError("malformed int")
            return _int(v)
        if tag == "float":
            return _float(_str(v))
        if tag == "tuple":
            return _tuple(decode(x, resolve, depth + 1) for x in _seq(v))
        if tag == "dict":
            out = {}
            for kv in _seq(v):
                k, x = _seq(kv)
                out[decode(k, resolve, depth + 1)] = decode(x, resolve, depth + 1)
            return out
        if tag == "set":
            return {decode(x, resolve, depth + 1) for x in _seq(v)}
        if tag == "frozenset":
            return frozenset(decode(x, resolve, depth + 1) for x in _seq(v))
        if tag == "bytes":
            return bytes.fromhex(_str(v))
        if tag == "bytearray":
            return bytearray.fromhex(_str(v))
        if tag == "complex":
            re, im = _seq(v)
            return complex(_float(_str(re)), _float(_str(im)))
        if tag in ("handle", "exc_class"):
            return resolve(tag, v)
        if tag == "module":
            return _import(_str(v))
        if tag == "import":
            mod, qualname = _seq(v)
            obj = _import(_str(mod))
            for part in _str(qualname).split("."):
                obj = _getattr(obj, part)
            return obj
    except BridgeError:
        raise
    except _Exception as e:
        raise BridgeError(f"malformed {tag}: {_type(e).__name__}") from None
    raise BridgeError(f"unknown tag {tag!r}")


def _import(name):
    mod = sys.modules.get(name)
    if mod is None:
        import importlib

        mod = importlib.import_module(name)
    return mod


def _seq(v):
    if _type(v) is not list:
        raise BridgeError("malformed value")
    return v


def dumps(obj):
    return _json_dumps(obj, separators=_SEP, ensure_ascii=False).encode("utf-8")


def loads(data):
    try:
        return _json_loads(bytes(data).decode("utf-8"))
    except _Exception as e:
        raise BridgeError(f"malformed message: {_type(e).__name__}") from None


def exception_info(exc, handle_of):
    """What crosses for an exception: its classes' names (MRO), its arguments when they are
    plain data (else its text), never its traceback or attributes."""
    mro = [c.__name__ for c in _type(exc).__mro__ if c is not object]
    try:
        args = [encode(a, _refuse) for a in exc.args]
    except _Exception:
        try:
            args = [_str(exc)]
        except _Exception:
            args = []
    return {"mro": mro, "args": args}


def _refuse(v):
    raise _TypeError(_type(v).__name__)


# ---------------------------------------------------------------------------------------------
# The solution's side: the real module, answering requests.

# Operations on objects, by name: built-ins and `operator`, captured now.
_FNS = {
    "len": len, "iter": iter, "next": next, "repr": repr, "str": str, "hash": hash,
    "bool": bool, "int": int, "float": float, "index": operator.index, "abs": abs,
    "neg": operator.neg, "pos": operator.pos, "invert": operator.invert, "round": round,
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
    "gt": operator.gt, "ge": operator.ge, "add": operator.add, "sub": operator.sub,
    "mul": operator.mul, "truediv": operator.truediv, "floordiv": operator.floordiv,
    "mod": operator.mod, "pow": pow, "and": operator.and_, "or": operator.or_,
    "xor": operator.xor, "lshift": operator.lshift, "rshift": operator.rshift,
    "matmul": operator.matmul, "divmod": divmod,
    "getitem": operator.getitem, "setitem": operator.setitem, "delitem": operator.delitem,
    "contains": operator.contains, "isinstance": isinstance, "issubclass": issubclass,
    "dir": dir, "format": format, "enter": lambda o: o.__enter__(),
    "exit": lambda o: o.__exit__(None, None, None), "reversed": reversed,
}


class Server:
    """Answers one test's requests with the real module `solution` (handle 0)."""

    def __init__(self):
        self.objects = {}
        self.ids = {}
        self.failed = None  # the exception importing the solution raised
        self.quiet = None
        self.shared = frozenset()

    def start(self, module, failure, quiet=None, shared=frozenset()):
        """Serves `module` (or, when importing it raised, `failure` to every request). With
        `quiet` (a context manager class), answering runs inside it. `shared`: the modules
        both sides have (the runtime's standard library), whose modules, functions and classes
        cross by name."""
        self.objects = {0: module} if failure is None else {}
        self.ids = {}
        self.failed = failure
        self.quiet = quiet
        self.shared = shared

    def _handle_of(self, v):
        t = _type(v)
        if t is _ModuleType:
            name = _getattr(v, "__name__", None)
            if name in self.shared:
                return {"module": name}
            raise _TypeError("a module of the solution's cannot be passed to the test")
        if _isinstance(v, _REFLECTIVE):
            raise _TypeError(f"a {t.__name__} cannot be passed to the test")
        by_name = self._by_name(v)
        if by_name is not None:
            return by_name
        key = id(v)
        h = self.ids.get(key)
        if h is None or self.objects.get(h) is not v:
            h = _len(self.objects) + 1
            while h in self.objects:
                h += 1
            self.objects[h] = v
            self.ids[key] = h
        if _isinstance(v, _type) and issubclass(v, _BaseException):
            return {"exc_class": [c.__name__ for c in v.__mro__ if c is not object]}
        return {"handle": [h, _type(v).__name__]}

    def _by_name(self, v):
        """{"import": [module, qualname]} for a function or class of a shared module that
        its name resolves to, else None."""
        try:
            mod = _getattr(v, "__module__", None)
            qualname = _getattr(v, "__qualname__", None)
        except _Exception:
            return None
        if _type(mod) is not str or _type(qualname) is not str or mod not in self.shared:
            return None
        try:
            obj = sys.modules[mod]
            for part in qualname.split("."):
                obj = _getattr(obj, part)
        except _Exception:
            return None
        if obj is not v:
            return None
        return {"import": [mod, qualname]}

    def _resolve(self, tag, v):
        if tag != "handle":
            raise BridgeError("an exception class cannot be passed to the solution")
        h = _seq(v)[0]
        if _type(h) is not int or h not in self.objects:
            raise BridgeError("unknown handle")
        return self.objects[h]

    def answer(self, request):
        """One request (bytes) → one answer (bytes). Never raises."""
        try:
            if self.quiet is not None:
                with self.quiet():
                    return dumps(self._answer(loads(request)))
            return dumps(self._answer(loads(request)))
        except _BaseException as exc:  # an answer that does not encode
            try:
                return dumps({"raise": exception_info(exc, _refuse)})
            except _BaseException:
                return b'{"raise":{"mro":["RuntimeError","Exception","BaseException"],"args":[]}}'

    def _answer(self, req):
        if self.failed is not None:
            return {"raise": exception_info(self.failed, _refuse)}
        if _type(req) is not dict:
            raise BridgeError("malformed request")
        op = req.get("op")
        enc = self._handle_of
        dec = self._resolve
        try:
            if op == "names":
                mod = self.objects[0]
                names = _getattr(mod, "__all__", None)
                if names is None:
                    names = [n for n, v in vars(mod).items() if _type(n) is str and _type(v) is not _ModuleType]
                return {"value": [n for n in names if _type(n) is str and not n.startswith("_")]}
            if op == "vars":
                # Every name of the namespace (offline evaluation runs the test among them).
                ns = vars(self.objects[0])
                return {"value": encode({k: v for k, v in ns.items() if _type(k) is str and k != "__builtins__"}, enc)}
            target = self._target(req)
            if op in ("getattr", "setattr", "delattr"):
                name = _str(req["name"])
                if name.startswith("_"):
                    raise AttributeError(f"{name!r} is not part of the solution's interface")
                if op == "getattr":
                    return {"value": encode(_getattr(target, name), enc)}
                if op == "setattr":
                    _setattr(target, name, decode(req["value"], dec))
                else:
                    _delattr(target, name)
                return {"value": None}
            if op == "call" or op == "fn":
                raw_args = _seq(req.get("args", []))
                raw_kwargs = _seq(req.get("kwargs", []))
                args = [decode(a, dec) for a in raw_args]
                kwargs = {}
                for kv in raw_kwargs:
                    k, x = _seq(kv)
                    kwargs[_str(k)] = decode(x, dec)
                if op == "call":
                    result = target(*args, **kwargs)
                else:
                    which = req.get("fn")
                    fn = _FNS.get(which)
                    if fn is None:
                        raise BridgeError("unknown operation")
                    result = fn(*args, **kwargs)
                    if which in ("repr", "str", "format") and _type(result) is str:
                        result = _address_free(result)
                    elif which == "dir" and _type(result) is list:
                        result = [n for n in result if _type(n) is str and not n.startswith("_")]
                out = []
                for i, a in enumerate(args):
                    if _type(a) in _MUTABLE:
                        after = encode(a, enc)
                        if after != raw_args[i]:
                            out.append([i, after])
                for (k, x), raw in zip(kwargs.items(), raw_kwargs):
                    if _type(x) in _MUTABLE:
                        after = encode(x, enc)
                        if after != raw[1]:
                            out.append([k, after])
                answer = {"value": encode(result, enc)}
                if out:
                    answer["out"] = out
                return answer
            raise BridgeError("unknown request")
        except _BaseException as exc:
            return {"raise": exception_info(exc, enc)}

    def _target(self, req):
        if req.get("op") == "fn":
            return None
        h = req.get("h")
        if _type(h) is not int or h not in self.objects:
            raise BridgeError("unknown handle")
        return self.objects[h]


# ---------------------------------------------------------------------------------------------
# The test's side: a stand-in module whose every use is a request.

_EXC_CLASSES = {}


def exception_class(mro):
    """The test-side class for a solution's exception class (by the names of its MRO): the
    built-in class itself when it is one, else a class of that name whose base is the nearest
    built-in exception in the MRO. The same names give the same class within a run."""
    names = _tuple(_str(n) for n in _seq(mro))[:64]
    if not names:
        names = ("Exception",)
    cls = _EXC_CLASSES.get(names)
    if cls is not None:
        return cls
    base = Exception
    for n in names:
        b = _getattr(builtins, n, None)
        if _isinstance(b, _type) and issubclass(b, _BaseException):
            base = b
            break
    first = names[0]
    if _getattr(builtins, first, None) is base:
        cls = base
    else:
        name = first if first.isidentifier() else "SolutionError"
        cls = _type(name, (base,), {"__module__": "solution"})
    _EXC_CLASSES[names] = cls
    return cls


class Client:
    """Sends requests through `call` (the host's import) and turns answers into values."""

    def __init__(self, call):
        self._call = call

    def _resolve(self, tag, v):
        if tag == "exc_class":
            return exception_class(v)
        h, tname = _seq(v)
        if _type(h) is not int:
            raise BridgeError("malformed handle")
        return Remote._make(self, h, _str(tname))

    def _handle_of(self, v):
        if _type(v) is Remote:
            return {"handle": [object.__getattribute__(v, "_dixit_h"), ""]}
        if _isinstance(v, _type) and v in _EXC_CLASSES.values():
            raise _TypeError("an exception class cannot be passed to the solution")
        raise _TypeError(
            f"only plain data and objects the solution returned can be passed to it, "
            f"not {_type(v).__name__}"
        )

    def request(self, req, args=None, kwargs=None):
        """Sends `req` (with `args`/`kwargs` encoded) and returns the answer's value, raising
        what the solution raised; copies back arguments the solution changed in place."""
        enc = self._handle_of
        if args is not None:
            req["args"] = [encode(a, enc) for a in args]
        if kwargs:
            req["kwargs"] = [[k, encode(x, enc)] for k, x in kwargs.items()]
        reply = loads(self._call(dumps(req)))
        if _type(reply) is not dict:
            raise BridgeError("malformed answer")
        if "raise" in reply:
            info = reply["raise"]
            if _type(info) is not dict:
                raise BridgeError("malformed answer")
            cls = exception_class(info.get("mro", []))
            try:
                exc_args = [decode(a, self._resolve) for a in _seq(info.get("args", []))]
            except BridgeError:
                exc_args = []
            try:
                exc = cls(*exc_args)
            except _Exception:
                exc = cls()
            raise exc
        value = decode(reply.get("value"), self._resolve)
        for i, after in _seq(reply.get("out", [])):
            target = args[i] if _type(i) is int and args and 0 <= i < _len(args) else (kwargs or {}).get(i)
            _copy_back(target, decode(after, self._resolve))
        return value


def _copy_back(target, value):
    t = _type(target)
    if t is not _type(value):
        return
    if t is list or t is bytearray:
        target[:] = value
    elif t is dict or t is set:
        target.clear()
        target.update(value)


class Remote:
    """A proxy for an object of the solution's: every use is a request."""

    __slots__ = ("_dixit_c", "_dixit_h", "_dixit_t")

    @staticmethod
    def _make(client, h, tname):
        r = object.__new__(Remote)
        object.__setattr__(r, "_dixit_c", client)
        object.__setattr__(r, "_dixit_h", h)
        object.__setattr__(r, "_dixit_t", tname)
        return r

    def __getattr__(self, name):
        c = object.__getattribute__(self, "_dixit_c")
        return c.request({"op": "getattr", "h": object.__getattribute__(self, "_dixit_h"), "name": name})

    def __setattr__(self, name, value):
        c = object.__getattribute__(self, "_dixit_c")
        h = object.__getattribute__(self, "_dixit_h")
        c.request({"op": "setattr", "h": h, "name": name, "value": encode(value, c._handle_of)})

    def __delattr__(self, name):
        c = object.__getattribute__(self, "_dixit_c")
        c.request({"op": "delattr", "h": object.__getattribute__(self, "_dixit_h"), "name": name})

    def __call__(self, *args, **kwargs):
        c = object.__getattribute__(self, "_dixit_c")
        return c.request({"op": "call", "h": object.__getattribute__(self, "_dixit_h")}, _list(args), kwargs)

    def __iter__(self):
        return _fn(self, "iter")

    def __next__(self):
        return _fn(self, "next")

    def __instancecheck__(self, obj):
        return _fn(obj, "isinstance", self)

    def __subclasscheck__(self, cls):
        return _fn(cls, "issubclass", self)

    def __exit__(self, *exc):
        _fn(self, "exit")
        return False

    def __setitem__(self, key, value):
        _fn(self, "setitem", key, value)

    def __delitem__(self, key):
        _fn(self, "delitem", key)

    def __contains__(self, item):
        return _fn(self, "contains", item)

    def __format__(self, spec):
        return _fn(self, "format", spec)

    def __reversed__(self):
        return _fn(self, "reversed")


def _fn(obj, name, *rest):
    c = object.__getattribute__(obj, "_dixit_c") if _type(obj) is Remote else None
    if c is None:
        c = object.__getattribute__(rest[0], "_dixit_c")
    return c.request({"op": "fn", "fn": name}, [obj, *rest])


def _unary(name):
    def op(self, *rest):
        return _fn(self, name, *rest)

    return op


def _binary(name):
    def op(self, other):
        return _fn(self, name, other)

    return op


def _reflected(name):
    def op(self, other):
        c = object.__getattribute__(self, "_dixit_c")
        return c.request({"op": "fn", "fn": name}, [other, self])

    return op


for _n in ("len", "repr", "str", "hash", "bool", "int", "float", "index", "abs", "neg", "pos",
           "invert", "round", "enter"):
    _setattr(Remote, f"__{_n}__", _unary(_n))
for _n in ("eq", "ne", "lt", "le", "gt", "ge", "add", "sub", "mul", "truediv", "floordiv", "mod",
           "pow", "and", "or", "xor", "lshift", "rshift", "matmul", "divmod", "getitem"):
    _setattr(Remote, f"__{_n}__", _binary(_n))
for _n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
           "lshift", "rshift", "matmul", "divmod"):
    _setattr(Remote, f"__r{_n}__", _reflected(_n))
Remote.__dir__ = _unary("dir")
del _n


class RemoteModule(types.ModuleType):
    """The test's module `solution`: each attribute is asked of the real one."""

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            if name == "__all__":
                return self.__dict__["_dixit_client"].request({"op": "names"})
            raise AttributeError(name)
        return self.__dict__["_dixit_client"].request({"op": "getattr", "h": 0, "name": name})


def stand_in(call):
    """A fresh module `solution` for one test, whose requests go through `call`."""
    m = RemoteModule("solution")
    m.__dict__["_dixit_client"] = Client(call)
    return m
