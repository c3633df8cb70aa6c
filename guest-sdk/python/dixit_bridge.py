"""The boundary between a unit test and the solution it checks (both sides of it).

A test and a solution never share an interpreter: each runs in its own fresh instance of the
Python runtime, and only data crosses between them, carried and checked by the host.

  test instance                       host                              solution instance
  `solution`: the interface,  --request-->  decodes, checks and  --request-->  `answer(request)`:
  built here from its names   <--answer---  re-encodes each      <--answer---  the real module
                                            message

What crosses is one small grammar of values (`crates/dixit-sandbox/src/boundary/` is the host's
reader; docs/security.md states the rules):

  None, bool, int, float (NaN, ±inf and -0.0 kept), str, bytes, complex, and list, tuple, dict,
  set and frozenset of these, nested at most 100 deep.

A request is a call of a name of the interface (or a method of an object the interface
declares) with such values; an answer is a value, or a raised exception as the name of a
built-in class and a message. A value of a subclass of one of these types crosses as the
base's own value, taken by the base's own operation (a `Counter` as its dict, a namedtuple as
its tuple, an `int` subclass as its int: an "always equal" override never crosses). Anything
else a solution returns is not data: the host ends the run with a runtime error that says
what it was (a generator, an instance of a class of the solution's, a function, ...). An
instance of a class the interface declares (`Stack: push, pop`), whatever else it derives
from, crosses as a handle of its most derived declared class: the test's object for it offers
the declared methods only, each a call by value, applied on the solution's side as Python
applies the operator (`bool` from `__len__`, `in` from `__iter__`), and its `repr`, `hash`,
equality and identity are the test's own, the same whatever the solution. A class that
declares `__eq__`, `__hash__` or an order is a value class: its object crosses with its
stated fields' values, and the test's side compares, hashes and orders it by them; the
solution's operators never decide a test's comparison.

The test's `solution` module is made here from the interface's names, never from the
solution: it holds one function per name (and one class per declared class) and nothing
else, so everything a test can see of it (its names, `repr`, `hash`, docstrings, attributes)
is the same for every solution. What differs between solutions is only what they answer.

Exceptions cross as the most derived classes of `EXCEPTIONS` in their class's MRO (a solution's
`class InvalidInput(ValueError)` arrives as ValueError, a class of KeyError and TypeError as a
class of both), a call whose arguments do not fit as a TypeError in the interface's words, and
the control-flow ones
(`StopIteration`, `StopAsyncIteration`, `GeneratorExit`, `SystemExit`, `KeyboardInterrupt`)
arrive as RuntimeError, as PEP 479 does for generators: none can end a test's loop or the
test itself. Arguments are copied; a list, dict or set the solution changes in place is
copied back into the test's own object after the call (its identity stays the test's).

Messages are JSON. Values: null, true/false, strings and lists as JSON; {"int": "12"},
{"float": "0.5"}, {"complex": [re, im]}, {"bytes": hex}, {"tuple": [...]}, {"dict": [[k, v],
...]}, {"set": [...]}, {"frozenset": [...]}, {"handle": [id, class]}, {"object": [id, class,
[[field, v], ...]]}. Requests: {"call": name,
"args": [...], "kwargs": [[k, v], ...]} or {"method": name, "on": id, ...}. Answers: {"value":
v, "out": [[argument, v], ...]}, {"raise": [class, message]}, and, which the host turns into a
verdict and never passes on, {"not_data": what}, {"missing": name}, {"failed": [class,
message]} (importing the solution raised; the class as raised).
"""

import builtins
import json
import sys

# This module's name lookups go to a private copy of the builtins, taken before any solution or
# test runs: one that rebinds `builtins.int` or `builtins.isinstance` changes what it sees, not
# what the bridge calls. (Functions capture their builtins when they are defined.)
__builtins__ = dict(vars(builtins))

# Captured at build time: a solution or a test that rebinds these changes nothing here.
_json_dumps = json.dumps
_json_loads = json.loads
_type = type
_isinstance = isinstance
_issubclass = issubclass
_getattr = getattr
_len = len
_list = list
_dict = dict
_tuple = tuple
_str = str
_int = int
_float = float
_complex = complex
_bytes = bytes
_set = set
_frozenset = frozenset
_object_new = object.__new__
_object_setattr = object.__setattr__
_object_getattribute = object.__getattribute__
_BaseException = BaseException
_Exception = Exception
_TypeError = TypeError
_int_repr = int.__repr__
_float_repr = float.__repr__
_get_int_digits = sys.get_int_max_str_digits
_set_int_digits = sys.set_int_max_str_digits
_ModuleType = _type(sys)

MAX_DEPTH = 100
# At most this many built-in classes of one exception cross.
MAX_BASES = 8
_SEP = (",", ":")
_MESSAGE_MAX = 10_000

# The exception classes that cross, by name: built-ins whose constructor takes one message.
EXCEPTIONS = frozenset(
    "ArithmeticError AssertionError AttributeError BufferError EOFError Exception "
    "FileExistsError FileNotFoundError FloatingPointError ImportError IndexError "
    "IsADirectoryError KeyError LookupError MemoryError ModuleNotFoundError NameError "
    "NotADirectoryError NotImplementedError OSError OverflowError PermissionError "
    "RecursionError ReferenceError RuntimeError SyntaxError TimeoutError TypeError "
    "UnboundLocalError UnicodeError ValueError ZeroDivisionError".split()
)
_EXC = {n: _getattr(builtins, n) for n in EXCEPTIONS}
_CONTROL_FLOW = (StopIteration, StopAsyncIteration, GeneratorExit, SystemExit, KeyboardInterrupt)


class BridgeError(Exception):
    """A message that does not decode."""


class NotData(Exception):
    """A value outside the grammar; its argument says what it was."""


class Missing(Exception):
    """The solution lacks something the interface declares; its argument names it."""


# ---------------------------------------------------------------------------------------------
# Values

# A subclass of a grammar type crosses as the base's own value, taken by the base's own C-level
# operation (never by a method the subclass may override).
_BASES = (
    (int, int.__index__),
    (float, float.__float__),
    (str, str.__str__),
    (bytes, bytes.__bytes__),
    (complex, complex.__complex__),
    (list, list.copy),
    (tuple, lambda v: tuple.__getitem__(v, slice(None))),
    (dict, dict.copy),
    (set, set.copy),
    (frozenset, frozenset.copy),
)


def describe(v):
    """What a value that is not data is, in a few words."""
    t = _type(v)
    try:
        name = _str(_type.__getattribute__(t, "__name__"))[:80]
    except _BaseException:
        name = "?"
    for kind in ("generator", "coroutine", "function", "builtin_function_or_method", "method", "module"):
        if name == kind:
            return "a " + kind.replace("builtin_function_or_method", "built-in function")
    if _issubclass(t, _type):
        return "a class"
    if name.endswith("iterator") or name in ("map", "filter", "zip", "range", "enumerate", "reversed"):
        return f"an iterator ({name})"
    return f"an instance of {name}"


def encode(v, handle_of, depth=0):
    """`v` as the grammar's JSON. Anything but a grammar type's own instance goes first to
    `handle_of(v, depth)`, which returns what crosses for an object of a declared class, or None;
    then a subclass of a grammar type crosses as its base's value; anything else is NotData."""
    if depth > MAX_DEPTH:
        raise NotData(f"a value nested more than {MAX_DEPTH} deep")
    t = _type(v)
    if v is None or t is bool or t is str:
        return v
    if t is int:
        return {"int": _int_repr(v)}
    if t is float:
        return {"float": _float_repr(v)}
    if t is list:
        return [encode(x, handle_of, depth + 1) for x in v]
    if t is tuple:
        return {"tuple": [encode(x, handle_of, depth + 1) for x in v]}
    if t is dict:
        return {"dict": [[encode(k, handle_of, depth + 1), encode(x, handle_of, depth + 1)] for k, x in v.items()]}
    if t is set or t is frozenset:
        return {"set" if t is set else "frozenset": [encode(x, handle_of, depth + 1) for x in v]}
    if t is bytes:
        return {"bytes": v.hex()}
    if t is complex:
        return {"complex": [_float_repr(v.real), _float_repr(v.imag)]}
    # An object of a declared class crosses as one, whatever else it derives from (a subclass of
    # `list` or of a namedtuple is the declared class, not a plain list or tuple).
    declared = handle_of(v, depth)
    if declared is not None:
        return declared
    for base, own in _BASES:
        if _issubclass(t, base):
            return encode(own(v), handle_of, depth)
    raise NotData(describe(v))


def decode(j, handle, depth=0):
    """The value `encode` made; `handle(id, class, fields)` makes this side's object for a
    handle (`fields` None) or a value object (its fields' values, decoded). Raises BridgeError
    on anything malformed."""
    if depth > MAX_DEPTH:
        raise BridgeError("value nested too deeply")
    if j is None or j is True or j is False or _type(j) is str:
        return j
    if _type(j) is list:
        return [decode(x, handle, depth + 1) for x in j]
    if _type(j) is not dict or _len(j) != 1:
        raise BridgeError("malformed value")
    ((tag, v),) = j.items()
    try:
        if tag == "int":
            return _int(_text(v))
        if tag == "float":
            return _float(_text(v))
        if tag == "tuple":
            return _tuple([decode(x, handle, depth + 1) for x in _seq(v)])
        if tag == "dict":
            out = {}
            for kv in _seq(v):
                k, x = _seq(kv)
                out[decode(k, handle, depth + 1)] = decode(x, handle, depth + 1)
            return out
        if tag == "set":
            return _set([decode(x, handle, depth + 1) for x in _seq(v)])
        if tag == "frozenset":
            return _frozenset([decode(x, handle, depth + 1) for x in _seq(v)])
        if tag == "bytes":
            return _bytes.fromhex(_text(v))
        if tag == "complex":
            re, im = _seq(v)
            return _complex(_float(_text(re)), _float(_text(im)))
        if tag == "handle":
            h, cls = _seq(v)
            if _type(h) is not int:
                raise BridgeError("malformed handle")
            return handle(h, _text(cls), None)
        if tag == "object":
            h, cls, fields = _seq(v)
            if _type(h) is not int:
                raise BridgeError("malformed object")
            values = []
            for nv in _seq(fields):
                _n, x = _seq(nv)
                values.append(decode(x, handle, depth + 1))
            return handle(h, _text(cls), _tuple(values))
    except BridgeError:
        raise
    except _Exception as e:
        raise BridgeError(f"malformed {tag}: {_type(e).__name__}") from None
    raise BridgeError("unknown value")


def _seq(v):
    if _type(v) is not list:
        raise BridgeError("malformed value")
    return v


def _text(v):
    if _type(v) is not str:
        raise BridgeError("malformed value")
    return v


class _Digits:
    """Lifts CPython's limit on int <-> str conversion (4,300 digits) while a message is
    encoded or decoded, so a large int crosses as any other (the host bounds its length)."""

    def __enter__(self):
        self.saved = _get_int_digits()
        _set_int_digits(0)

    def __exit__(self, *exc):
        _set_int_digits(self.saved)
        return False


_DIGITS = _Digits()


def dumps(obj):
    """A message's bytes. A string that is not valid Unicode (a lone surrogate) is not data."""
    try:
        return _json_dumps(obj, separators=_SEP, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise NotData("a string that is not valid Unicode (a lone surrogate)") from None


def loads(data):
    try:
        return _json_loads(_bytes(data).decode("utf-8"))
    except _Exception as e:
        raise BridgeError(f"malformed message: {_type(e).__name__}") from None


def exception_info(exc):
    """What crosses for an exception: every most-derived class of EXCEPTIONS in its MRO, joined
    by `+` (`KeyError+TypeError` for a class of both, so that a test's `except` matches as it
    would natively; RuntimeError for the control-flow ones), and its message, never its
    traceback, attributes or own class name."""
    t = _type(exc)
    if _isinstance(exc, _CONTROL_FLOW):
        name, prefix = "RuntimeError", f"the solution raised {t.__name__}"
    else:
        prefix = None
        found = []
        for c in _type.__getattribute__(t, "__mro__"):
            n = _type.__getattribute__(c, "__name__")
            if _type(n) is str and n in EXCEPTIONS and c is _EXC[n]:
                found.append(c)
        leaves = [c for c in found if not any(o is not c and _issubclass(o, c) for o in found)]
        name = "+".join(c.__name__ for c in leaves[:MAX_BASES]) or "Exception"
    try:
        args = exc.args
        if _type(args) is tuple and _len(args) == 1 and _type(args[0]) is str:
            message = args[0]
        else:
            message = _str.__str__(_str(exc))
    except _BaseException:
        message = ""
    if prefix is not None:
        message = prefix + (": " + message if message else "")
    message = message[:_MESSAGE_MAX]
    try:
        message.encode("utf-8")
    except UnicodeEncodeError:
        message = message.encode("utf-8", "replace").decode("utf-8")
    return [name, message]


def call_error(name, exc):
    """What crosses for an exception of a call of the interface's `name`. A TypeError raised by
    the call itself, before any of the solution's code ran (its arguments do not fit the
    parameters), crosses in the interface's words: Python's own text names how the coder bound
    the function (`<lambda>()`, a wrapper) and its parameters, which correct coders choose
    differently."""
    tb = exc.__traceback__ if _type(exc) is _TypeError else None
    if tb is not None and tb.tb_next is None:
        return ["TypeError", f"{name}() does not take the arguments it was called with"]
    return exception_info(exc)


# ---------------------------------------------------------------------------------------------
# The interface: {"functions": [name, ...], "classes": {name: [method, ...]}}, as the host
# passes it to both sides.


# A declared class that states any of these is a value class: its objects cross as their
# fields' values (the class's stated public names, read as attributes), and these operators are
# decided on the test's side from those values, never asked of the solution (whose `__eq__`
# could say yes to anything).
VALUE_OPERATORS = frozenset("__eq__ __ne__ __hash__ __lt__ __le__ __gt__ __ge__".split())


def is_value_class(methods):
    return any(m in VALUE_OPERATORS for m in methods)


def value_fields(methods):
    """A value class's fields: its stated public names, in the order stated."""
    return [m for m in methods if not m.startswith("_")]


def parse_interface(text):
    spec = loads(text.encode("utf-8")) if text else {}
    if _type(spec) is not dict:
        raise BridgeError("malformed interface")
    functions = [_text(n) for n in _seq(spec.get("functions", []))]
    classes = spec.get("classes", {})
    if _type(classes) is not dict:
        raise BridgeError("malformed interface")
    return functions, {_text(c): [_text(m) for m in _seq(ms)] for c, ms in classes.items()}


# ---------------------------------------------------------------------------------------------
# The solution's side: the real module, answering requests.


class Server:
    """Answers one test's requests with the real module `solution`."""

    def __init__(self):
        self.module = None
        self.failed = None
        self.quiet = None
        self.classes = {}
        self.objects = []
        self.kinds = []

    def start(self, module, failure, interface, quiet=None):
        """Serves `module` (or, when importing it raised, `failure` to every request) with the
        interface `interface` (its JSON text). With `quiet` (a context manager class),
        answering runs inside it."""
        self.module = module
        self.failed = failure
        self.quiet = quiet
        self.objects = []
        self.kinds = []
        _functions, classes = parse_interface(interface)
        self.classes = classes

    def answer(self, request):
        """One request (bytes) → one answer (bytes). Never raises."""
        try:
            if self.quiet is not None:
                with self.quiet():
                    return self._answer_bytes(request)
            return self._answer_bytes(request)
        except _BaseException as exc:
            try:
                return dumps({"not_data": f"an answer that could not be sent ({_type(exc).__name__})"})
            except _BaseException:
                return b'{"not_data":"an answer that could not be sent"}'

    def _answer_bytes(self, request):
        with _DIGITS:
            try:
                return dumps(self._answer(loads(request)))
            except NotData as e:
                return dumps({"not_data": _str(e.args[0])})
            except Missing as e:
                return dumps({"missing": _str(e.args[0])})

    def _answer(self, req):
        if self.failed is not None:
            name = _str(_type.__getattribute__(_type(self.failed), "__name__"))[:100]
            return {"failed": [name, exception_info(self.failed)[1]]}
        if _type(req) is not dict:
            raise BridgeError("malformed request")
        if "call" in req:
            name = _text(req["call"])
            target = _getattr(self.module, name, _MISSING)
            what = name
        else:
            name = _text(req.get("method"))
            on = req.get("on")
            if _type(on) is not int or not 0 < on <= _len(self.objects):
                raise BridgeError("unknown handle")
            obj = self.objects[on - 1]
            target = _operator(obj, name) if name in SPECIAL else _getattr(obj, name, _MISSING)
            what = f"{self.kinds[on - 1]}.{name}"
        if target is _MISSING:
            return {"missing": what}
        raw_args = _seq(req.get("args", []))
        raw_kwargs = _seq(req.get("kwargs", []))
        args = [decode(a, self._object) for a in raw_args]
        kwargs = {}
        for kv in raw_kwargs:
            k, x = _seq(kv)
            kwargs[_text(k)] = decode(x, self._object)
        try:
            result = target(*args, **kwargs)
        except _BaseException as exc:
            return {"raise": call_error(name, exc)}
        try:
            answer = {"value": encode(result, self._handle_of)}
            out = []
            for i, a in enumerate(args):
                if _type(a) in _MUTABLE:
                    after = encode(a, self._handle_of)
                    if after != raw_args[i]:
                        out.append([i, after])
            for (k, x), raw in zip(kwargs.items(), raw_kwargs):
                if _type(x) in _MUTABLE:
                    after = encode(x, self._handle_of)
                    if after != raw[1]:
                        out.append([k, after])
        except (NotData, Missing):
            raise
        except _BaseException as exc:  # encoding ran the solution's code (an override), which raised
            raise NotData(f"a value whose contents could not be read ({_type(exc).__name__})") from None
        if out:
            answer["out"] = out
        return answer

    def _object(self, h, cls, fields):
        if fields is not None or not 0 < h <= _len(self.objects):
            raise BridgeError("unknown handle")
        return self.objects[h - 1]

    def _handle_of(self, v, depth):
        """What crosses for an instance of a class the interface declares, as its most derived
        declared class (a new handle each time it crosses, so identity tells nothing): a handle,
        or for a value class its fields' values with it. None for any other object."""
        t = _type(v)
        mro = _type.__getattribute__(t, "__mro__")
        best = None
        for name in self.classes:
            cls = _getattr(self.module, name, None)
            if _isinstance(cls, _type):
                for rank, c in enumerate(mro):
                    if c is cls and (best is None or rank < best[0]):
                        best = (rank, name)
        if best is None:
            return None
        name = best[1]
        methods = self.classes[name]
        self.objects.append(v)
        self.kinds.append(name)
        h = _len(self.objects)
        if not is_value_class(methods):
            return {"handle": [h, name]}
        for op in methods:
            if op in VALUE_OPERATORS and not _defines(t, op):
                raise Missing(f"{name}.{op}")
        fields = []
        for f in value_fields(methods):
            x = _getattr(v, f, _MISSING)
            if x is _MISSING:
                raise Missing(f"{name}.{f}")
            fields.append([f, encode(x, self._handle_of, depth + 1)])
        return {"object": [h, name, fields]}


def _lookup(t, name):
    """`name` as Python's operators find it on class `t`: in its MRO's own namespaces (never
    the metaclass's), None when absent or set to None."""
    for c in _type.__getattribute__(t, "__mro__"):
        d = _type.__getattribute__(c, "__dict__")
        if name in d:
            return d[name]
    return None


def _own(t, name):
    """Whether class `t` has `name` other than as `object`'s own."""
    found = _lookup(t, name)
    return found is not None and found is not _OBJECT_DICT.get(name)


def _defines(t, op):
    """Whether the solution's class `t` supports the value operator `op` as Python applies it
    (`!=` from `__eq__`, `>` reflected from `__lt__`); a hash left to Python's default (the
    object's address) is not one."""
    if op == "__hash__":
        return _own(t, "__hash__")
    mirror = {"__eq__": "__ne__", "__ne__": "__eq__", "__lt__": "__gt__", "__gt__": "__lt__", "__le__": "__ge__", "__ge__": "__le__"}
    if op == "__ne__":
        return _own(t, "__eq__") or _own(t, "__ne__")
    return _own(t, op) or _own(t, mirror[op])


def _operator(obj, name):
    """A declared special method of the solution's object `obj`, applied as Python applies its
    operator (`bool` from `__len__`, `in` from `__iter__`, an iterator as its items), or
    _MISSING where Python would find none. The value operators are never asked of a solution."""
    t = _type(obj)
    has = lambda *names: any(_lookup(t, n) is not None for n in names)
    if name == "__len__":
        return (lambda: _len(obj)) if has("__len__") else _MISSING
    if name == "__contains__":
        return (lambda x: x in obj) if has("__contains__", "__iter__", "__getitem__") else _MISSING
    if name == "__iter__":
        return (lambda: _list(iter(obj))) if has("__iter__", "__getitem__") else _MISSING
    if name == "__getitem__":
        return (lambda k: obj[k]) if has("__getitem__") else _MISSING
    if name == "__setitem__":
        def setitem(k, x):
            obj[k] = x
        return setitem if has("__setitem__") else _MISSING
    if name == "__delitem__":
        def delitem(k):
            del obj[k]
        return delitem if has("__delitem__") else _MISSING
    if name == "__bool__":
        return lambda: bool(obj)
    if name == "__str__":
        return (lambda: _str(obj)) if _own(t, "__str__") or _own(t, "__repr__") else _MISSING
    if name == "__repr__":
        return (lambda: repr(obj)) if _own(t, "__repr__") else _MISSING
    if name == "__call__":
        return obj if has("__call__") else _MISSING
    return _MISSING


_MISSING = object()
_OBJECT_DICT = _dict(_type.__getattribute__(object, "__dict__"))
_MUTABLE = (list, dict, set)


# ---------------------------------------------------------------------------------------------
# The test's side: the module `solution`, made from the interface.


class SolutionModule(_ModuleType):
    """The test's module `solution`: the interface's functions and classes, made here. It cannot
    be changed (a test that rebinds a name would only fool itself)."""

    def __setattr__(self, name, value):
        raise AttributeError(f"the module `solution` is the interface; `{name}` cannot be set")

    def __delattr__(self, name):
        raise AttributeError(f"the module `solution` is the interface; `{name}` cannot be deleted")

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"the interface of `solution` has no `{name}` (it has {', '.join(_object_getattribute(self, '__all__')) or 'nothing'})"
        )


def stand_in(call, interface):
    """A fresh module `solution` for one test, made from `interface` (its JSON text), whose
    calls go through `call` (the host's import)."""
    functions, classes = parse_interface(interface)
    link = _Link(call)
    m = SolutionModule("solution")
    d = _ModuleType.__getattribute__(m, "__dict__")
    made = {}
    for c, methods in classes.items():
        made[c] = _make_class(link, c, methods)
    link.classes = made
    link.values = {made[c] for c, methods in classes.items() if is_value_class(methods)}
    for f in functions:
        d[f] = _make_function(link, f)
    d.update(made)
    d["__all__"] = _list(functions) + _list(made)
    return m


class _Link:
    """A test's end of the bridge: sends requests through `call` and turns answers into values."""

    def __init__(self, call):
        self.call = call
        self.classes = {}
        self.values = set()

    def handle(self, h, cls, fields):
        c = self.classes.get(cls)
        if c is None or (fields is None) != (c not in self.values):
            raise BridgeError("handle of an undeclared class")
        obj = _object_new(c)
        _object_setattr(obj, "_dixit_id", h)
        if fields is not None:
            _object_setattr(obj, "_dixit_fields", fields)
        return obj

    def handle_of(self, v, depth):
        t = _type(v)
        for name, c in self.classes.items():
            if t is c:
                return {"handle": [_object_getattribute(v, "_dixit_id"), name]}
        return None

    def request(self, head, args, kwargs):
        with _DIGITS:
            try:
                head["args"] = [encode(a, self.handle_of) for a in args]
                if kwargs:
                    head["kwargs"] = [[k, encode(x, self.handle_of)] for k, x in kwargs.items()]
                message = dumps(head)
            except NotData as e:
                raise _TypeError(f"only data can be passed to the solution, not {e.args[0]}") from None
            reply = loads(self.call(message))
            if _type(reply) is not dict:
                raise BridgeError("malformed answer")
            if "raise" in reply:
                name, message = _seq(reply["raise"])
                if _type(name) is not str or _type(message) is not str:
                    raise BridgeError("malformed answer")
                raise exception_class(name)(message)
            if "value" not in reply:
                raise BridgeError("malformed answer")
            value = decode(reply["value"], self.handle)
            for i, after in _seq(reply.get("out", [])):
                target = args[i] if _type(i) is int and 0 <= i < _len(args) else (kwargs or {}).get(i)
                _copy_back(target, decode(after, self.handle))
            return value


_COMBINED = {}


def exception_class(name):
    """The test's class for an exception that crossed as `name`: the built-in itself, or for
    `A+B` one class deriving from each, in that order (the same class object every time)."""
    cls = _COMBINED.get(name)
    if cls is not None:
        return cls
    bases = []
    for n in name.split("+"):
        c = _EXC.get(n)
        if c is None or c in bases:
            raise BridgeError("malformed answer")
        bases.append(c)
    if _len(bases) == 1:
        cls = bases[0]
    else:
        try:
            cls = _type(bases[0].__name__, _tuple(bases), {"__module__": "builtins"})
        except _TypeError:
            cls = bases[0]  # bases no class can derive from together: the first
    _COMBINED[name] = cls
    return cls


def _copy_back(target, value):
    t = _type(target)
    if t is not _type(value):
        return
    if t is list:
        target[:] = value
    elif t is dict or t is set:
        target.clear()
        target.update(value)


def _make_function(link, name):
    head = {"call": name}

    def function(*args, **kwargs):
        return link.request(_dict(head), args, kwargs)

    function.__name__ = function.__qualname__ = name
    function.__module__ = "solution"
    function.__doc__ = None
    return function


# The special methods a class of the interface may declare (each a call of the solution's).
SPECIAL = frozenset(
    "__len__ __contains__ __getitem__ __setitem__ __delitem__ __iter__ __str__ __repr__ "
    "__bool__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__ __call__ __hash__".split()
)


def _make_class(link, name, methods):
    """The test's class for a declared class. A value class's object holds its fields' values
    and compares, hashes and orders by them here; any other object is a handle that compares
    and hashes by identity. Each other declared method is a call of the solution's."""
    value = is_value_class(methods)
    fields = value_fields(methods) if value else []

    def __new__(cls, *args, **kwargs):
        return link.request({"call": name}, args, kwargs)

    def __init__(self, *args, **kwargs):
        pass

    def __repr__(self):
        if value:
            own = _object_getattribute(self, "_dixit_fields")
            return f"{name}({', '.join(f'{f}={x!r}' for f, x in zip(fields, own))})"
        return f"<solution.{name} #{_object_getattribute(self, '_dixit_id')}>"

    ns = {
        "__slots__": ("_dixit_id", "_dixit_fields") if value else ("_dixit_id",),
        "__module__": "solution",
        "__qualname__": name,
        "__doc__": None,
        "__new__": __new__,
        "__init__": __init__,
        "__repr__": __repr__,
    }
    for m in methods:
        if m not in VALUE_OPERATORS and m not in fields:
            ns[m] = _make_method(link, m)
    if value:
        for i, f in enumerate(fields):
            ns[f] = property(lambda self, i=i: _object_getattribute(self, "_dixit_fields")[i])
        ns.update(_value_operators(methods))
    if "__iter__" in methods:
        items = ns["__iter__"]
        ns["__iter__"] = lambda self: iter(items(self))
        # `in` over the items the solution answers, as Python does for a class without
        # `__contains__`: a `__contains__` that says yes to anything decides nothing.
        ns["__contains__"] = lambda self, x: any(y is x or y == x for y in items(self))
    return _type(name, (), ns)


def _value_operators(methods):
    """`==` always (a value class is equal to another of its class with equal fields, to
    nothing else), the hash of the fields where `__hash__` is stated (unhashable otherwise, as
    a class with `__eq__` alone is), and each stated order, by the fields in the order stated."""

    def own(v):
        return _object_getattribute(v, "_dixit_fields")

    def order(compare):
        def op(self, other):
            if _type(other) is not _type(self):
                return NotImplemented
            return compare(own(self), own(other))

        return op

    ops = {
        "__eq__": order(lambda a, b: a == b),
        "__hash__": (lambda self: hash(own(self))) if "__hash__" in methods else None,
    }
    for m, compare in (
        ("__lt__", lambda a, b: a < b),
        ("__le__", lambda a, b: a <= b),
        ("__gt__", lambda a, b: a > b),
        ("__ge__", lambda a, b: a >= b),
    ):
        if m in methods:
            ops[m] = order(compare)
    return ops


def _make_method(link, name):
    def method(self, *args, **kwargs):
        return link.request({"method": name, "on": _object_getattribute(self, "_dixit_id")}, args, kwargs)

    method.__name__ = method.__qualname__ = name
    return method
