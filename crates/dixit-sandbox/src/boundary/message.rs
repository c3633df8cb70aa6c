//! The two messages that cross the boundary: a test's [`Call`] and a solution's [`Answer`],
//! each read by the host from the sender's bytes within fixed bounds, checked against the
//! interface and the run's handles, and written again in one canonical form for the other side.
//! Nothing a sender writes reaches the other side as it was written.

use serde_json::{json, Value as Json};

use super::interface::Interface;
use super::value::{Bounds, Value, ValueError};

/// The longest exception message passed on, in bytes (a longer one is cut).
pub const MAX_EXCEPTION_MESSAGE: usize = 10_000;

/// At most this many built-in classes of one exception cross (`KeyError+TypeError`).
pub(super) const MAX_EXCEPTION_BASES: usize = 8;

/// The exception classes that cross, by name (`dixit_bridge.EXCEPTIONS`): built-ins whose
/// constructor takes one message. A solution's other exceptions arrive as the nearest of these
/// in their class's MRO; the control-flow ones (`StopIteration`, `SystemExit`, ...) as
/// `RuntimeError`.
pub const EXCEPTIONS: &[&str] = &[
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BufferError",
    "EOFError",
    "Exception",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "ImportError",
    "IndexError",
    "IsADirectoryError",
    "KeyError",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "NotADirectoryError",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PermissionError",
    "RecursionError",
    "ReferenceError",
    "RuntimeError",
    "SyntaxError",
    "TimeoutError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeError",
    "ValueError",
    "ZeroDivisionError",
];

/// What a call calls: a function (or class) of the interface, or a method of an object the
/// run handed out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A function or class of the interface, by name.
    Function(String),
    /// A method of an object the run handed out.
    Method {
        /// The handle's number of the object called.
        on: u32,
        /// The object's class.
        class: String,
        /// The method's name.
        name: String,
    },
}

impl std::fmt::Display for Callee {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Callee::Function(n) => f.write_str(n),
            Callee::Method { class, name, .. } => write!(f, "{class}.{name}"),
        }
    }
}

/// A test's call, as read and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// What is called.
    pub callee: Callee,
    /// The positional arguments.
    pub args: Vec<Value>,
    /// The keyword arguments, in the order given.
    pub kwargs: Vec<(String, Value)>,
}

/// Which argument a solution changed in place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Argument {
    /// The argument at this position.
    Position(usize),
    /// The keyword argument of this name.
    Keyword(String),
}

/// A solution's answer to one call, as read and checked. Only [`Answer::Returned`] and
/// [`Answer::Raised`] reach the test; every other one ends the run as the solution's failure.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// It returned `value`, and changed these arguments (lists, dicts, sets) to these values.
    Returned {
        /// The value returned.
        value: Value,
        /// The arguments it changed, with their new values.
        out: Vec<(Argument, Value)>,
    },
    /// It raised an exception of a class of [`EXCEPTIONS`] with this message.
    Raised {
        /// The exception's class name.
        class: String,
        /// The exception's message.
        message: String,
    },
    /// It returned something that is not data (what it was, in the guest's words).
    NotData(String),
    /// The solution has no such function or method.
    Missing(String),
    /// Importing the solution raised this exception (its class's name as raised, and its
    /// message).
    ImportFailed {
        /// The exception's class name.
        class: String,
        /// The exception's message.
        message: String,
    },
    /// What it sent is not an answer (why).
    Malformed(String),
    /// Its instance ended while answering (the run's verdict says how).
    Ended,
}

/// What the host tracks of one run's boundary: the objects handed out, by number, with their
/// classes.
#[derive(Clone, Debug, Default)]
pub struct Handles {
    classes: Vec<String>,
}

impl Handles {
    /// Forgets every object (a new run).
    pub fn clear(&mut self) {
        self.classes.clear();
    }

    fn class_of(&self, id: u32) -> Option<&str> {
        let i = usize::try_from(id).ok()?.checked_sub(1)?;
        self.classes.get(i).map(String::as_str)
    }
}

/// Why a test's call was refused (the test's own error: it sees a `TypeError`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The call is not a well-formed call message (why).
    #[error("malformed call: {0}")]
    Malformed(String),
    /// The function, class or method is not in the interface.
    #[error("the interface of `solution` has no `{0}`")]
    NotInInterface(String),
    /// An argument is not data that can cross the boundary.
    #[error("only data can be passed to the solution: {0}")]
    Value(#[from] ValueError),
    /// The call is on an object number this run never handed out.
    #[error("no object {0} of the solution's was handed out in this run")]
    UnknownHandle(u32),
}

fn malformed(what: &str) -> CallError {
    CallError::Malformed(what.to_string())
}

/// Reads a test's call: a function or class of `interface`, or a declared method of an object
/// in `handles`, with data arguments (any handle among them one of `handles`, of its class).
pub fn read_call(
    bytes: &[u8],
    interface: &Interface,
    handles: &Handles,
) -> Result<Call, CallError> {
    let j: Json = serde_json::from_slice(bytes).map_err(|_| malformed("not JSON"))?;
    let o = j.as_object().ok_or_else(|| malformed("not an object"))?;
    let name = |key: &str| -> Result<String, CallError> {
        o.get(key)
            .and_then(Json::as_str)
            .map(str::to_string)
            .ok_or_else(|| malformed("no name"))
    };
    let callee = if o.contains_key("call") {
        let n = name("call")?;
        if !interface.has(&n) {
            return Err(CallError::NotInInterface(cut(&n, 100)));
        }
        Callee::Function(n)
    } else if o.contains_key("method") {
        let n = name("method")?;
        let on = o
            .get("on")
            .and_then(Json::as_u64)
            .and_then(|i| u32::try_from(i).ok())
            .ok_or_else(|| malformed("no object"))?;
        let class = handles
            .class_of(on)
            .ok_or(CallError::UnknownHandle(on))?
            .to_string();
        if !interface.calls(&class, &n) {
            return Err(CallError::NotInInterface(format!(
                "{class}.{}",
                cut(&n, 100)
            )));
        }
        Callee::Method { on, class, name: n }
    } else {
        return Err(malformed("neither a call nor a method"));
    };
    for key in o.keys() {
        if !matches!(key.as_str(), "call" | "method" | "on" | "args" | "kwargs") {
            return Err(malformed("an unknown field"));
        }
    }
    let bounds = Bounds::MESSAGE;
    let args = match o.get("args") {
        None => Vec::new(),
        Some(a) => a
            .as_array()
            .ok_or_else(|| malformed("args is not a list"))?
            .iter()
            .map(|x| Value::read(x, &bounds).map(Value::canonical))
            .collect::<Result<_, _>>()?,
    };
    let mut kwargs = Vec::new();
    if let Some(k) = o.get("kwargs") {
        for kv in k
            .as_array()
            .ok_or_else(|| malformed("kwargs is not a list"))?
        {
            let pair = kv
                .as_array()
                .filter(|p| p.len() == 2)
                .ok_or_else(|| malformed("a keyword argument is not [name, value]"))?;
            let key = pair[0]
                .as_str()
                .filter(|k| k.len() <= 100)
                .ok_or_else(|| malformed("a keyword is not a name"))?;
            if kwargs.iter().any(|(k, _): &(String, Value)| k == key) {
                return Err(malformed("a keyword given twice"));
            }
            kwargs.push((key.to_string(), Value::read(&pair[1], &bounds)?.canonical()));
        }
    }
    let call = Call {
        callee,
        args: args.into_iter().map(Value::objects_as_handles).collect(),
        kwargs: kwargs
            .into_iter()
            .map(|(k, v)| (k, v.objects_as_handles()))
            .collect(),
    };
    let values = call.args.iter().chain(call.kwargs.iter().map(|(_, v)| v));
    for v in values {
        if let Some(bad) = v.unhashable_member(&|c| interface.hashes(c)) {
            return Err(CallError::Value(ValueError::Malformed(format!(
                "{} as a dict key or set element (Python cannot hash it)",
                bad.repr(60)
            ))));
        }
    }
    for (id, class) in call.handles() {
        if handles.class_of(id) != Some(class.as_str()) {
            return Err(CallError::UnknownHandle(id));
        }
    }
    Ok(call)
}

impl Call {
    /// The canonical bytes the solution's side reads.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut o = serde_json::Map::new();
        match &self.callee {
            Callee::Function(n) => {
                o.insert("call".into(), json!(n));
            }
            Callee::Method { on, name, .. } => {
                o.insert("method".into(), json!(name));
                o.insert("on".into(), json!(on));
            }
        }
        o.insert(
            "args".into(),
            Json::Array(self.args.iter().map(Value::to_json).collect()),
        );
        if !self.kwargs.is_empty() {
            o.insert(
                "kwargs".into(),
                Json::Array(
                    self.kwargs
                        .iter()
                        .map(|(k, v)| json!([k, v.to_json()]))
                        .collect(),
                ),
            );
        }
        serde_json::to_vec(&Json::Object(o)).unwrap_or_default()
    }

    /// The handles among the arguments.
    pub fn handles(&self) -> Vec<(u32, String)> {
        let mut out = Vec::new();
        self.args.iter().for_each(|a| a.handles(&mut out));
        self.kwargs.iter().for_each(|(_, a)| a.handles(&mut out));
        out
    }

    /// The argument `which` refers to, when the call has it.
    fn argument(&self, which: &Argument) -> Option<&Value> {
        match which {
            Argument::Position(i) => self.args.get(*i),
            Argument::Keyword(k) => self.kwargs.iter().find(|(n, _)| n == k).map(|(_, v)| v),
        }
    }
}

/// Reads a solution's answer to `call`: a data value (any handle in it the next one of a class
/// the interface declares, which `handles` then records), a raised exception of a class of
/// [`EXCEPTIONS`], or one of the answers that end the run. What does not read as any of these is
/// [`Answer::Malformed`].
pub fn read_answer(
    bytes: &[u8],
    call: &Call,
    interface: &Interface,
    handles: &mut Handles,
) -> Answer {
    match answer(bytes, call, interface, handles) {
        Ok(a) => a,
        Err(Malformed(why)) => Answer::Malformed(why),
    }
}

/// Why an answer does not read as one: what [`Answer::Malformed`] says.
#[derive(Debug)]
struct Malformed(String);

impl From<&str> for Malformed {
    fn from(why: &str) -> Self {
        Malformed(why.to_string())
    }
}

fn answer(
    bytes: &[u8],
    call: &Call,
    interface: &Interface,
    handles: &mut Handles,
) -> Result<Answer, Malformed> {
    let j: Json =
        serde_json::from_slice(bytes).map_err(|e| Malformed(format!("not JSON ({e})")))?;
    let o = j.as_object().ok_or("not an object")?;
    let text = |v: &Json, max: usize| -> Result<String, Malformed> {
        let s = v.as_str().ok_or("a text that is not a string")?;
        Ok(cut(s, max))
    };
    let exception = |v: &Json| -> Result<(String, String), Malformed> {
        let pair = v
            .as_array()
            .filter(|p| p.len() == 2)
            .ok_or("an exception that is not [class, message]")?;
        let class = pair[0]
            .as_str()
            .ok_or("an exception class that is not a name")?;
        // One built-in class, or several (`KeyError+TypeError`, an exception of both), each
        // once.
        let parts: Vec<&str> = class.split('+').collect();
        let distinct = parts
            .iter()
            .enumerate()
            .all(|(k, p)| !parts[..k].contains(p));
        if parts.len() > MAX_EXCEPTION_BASES
            || !distinct
            || !parts.iter().all(|p| EXCEPTIONS.contains(p))
        {
            return Err(Malformed(format!(
                "an exception class that does not cross ({})",
                cut(class, 100)
            )));
        }
        Ok((class.to_string(), text(&pair[1], MAX_EXCEPTION_MESSAGE)?))
    };
    if o.len() != 1 && !(o.len() == 2 && o.contains_key("value") && o.contains_key("out")) {
        return Err("not one answer".into());
    }
    if let Some(v) = o.get("raise") {
        let (class, message) = exception(v)?;
        return Ok(Answer::Raised { class, message });
    }
    if let Some(v) = o.get("failed") {
        // Never passed on: the class as raised, for the verdict's message.
        let pair = v
            .as_array()
            .filter(|p| p.len() == 2)
            .ok_or("a failed import that is not [class, message]")?;
        return Ok(Answer::ImportFailed {
            class: printable(&text(&pair[0], 100)?),
            message: text(&pair[1], MAX_EXCEPTION_MESSAGE)?,
        });
    }
    if let Some(v) = o.get("not_data") {
        return Ok(Answer::NotData(printable(&text(v, 200)?)));
    }
    if let Some(v) = o.get("missing") {
        return Ok(Answer::Missing(printable(&text(v, 200)?)));
    }
    let v = o.get("value").ok_or("no value")?;
    let bounds = Bounds::MESSAGE;
    let value = Value::read(v, &bounds)
        .map_err(|e| Malformed(format!("a value that is not data: {e}")))?
        .canonical();
    let mut out = Vec::new();
    if let Some(list) = o.get("out") {
        for entry in list.as_array().ok_or("`out` is not a list")? {
            let pair = entry
                .as_array()
                .filter(|p| p.len() == 2)
                .ok_or("an `out` entry that is not [argument, value]")?;
            let which = match &pair[0] {
                Json::Number(n) => Argument::Position(
                    n.as_u64()
                        .and_then(|i| usize::try_from(i).ok())
                        .ok_or("an argument that is not a position")?,
                ),
                Json::String(k) => Argument::Keyword(k.clone()),
                _ => return Err("an argument that is neither a position nor a keyword".into()),
            };
            let before = call
                .argument(&which)
                .ok_or("a changed argument the call does not have")?;
            let after = Value::read(&pair[1], &bounds)
                .map_err(|e| Malformed(format!("a changed argument that is not data: {e}")))?
                .canonical();
            let same_kind = matches!(
                (before, &after),
                (Value::List(_), Value::List(_))
                    | (Value::Dict(_), Value::Dict(_))
                    | (
                        Value::Set { frozen: false, .. },
                        Value::Set { frozen: false, .. }
                    )
            );
            if !same_kind {
                return Err("a changed argument of another kind".into());
            }
            out.push((which, after));
        }
    }
    // Every dict key and set element is one Python can hash: anything else the solution's side
    // forged, and the test must never be the one to find out.
    for v in std::iter::once(&value).chain(out.iter().map(|(_, v)| v)) {
        if let Some(bad) = v.unhashable_member(&|c| interface.hashes(c)) {
            return Err(Malformed(format!(
                "{} as a dict key or set element (Python cannot hash it)",
                bad.repr(60)
            )));
        }
        check_objects(v, interface)?;
    }
    // Handles: each new one numbered after the last, of a class the interface declares. A handle
    // the test passed in may come back only as itself.
    let passed = call.handles();
    let mut found = Vec::new();
    value.handles(&mut found);
    out.iter().for_each(|(_, v)| v.handles(&mut found));
    let mut next = handles.classes.len() as u32 + 1;
    let mut new = Vec::new();
    for (id, class) in found {
        if passed.iter().any(|(p, c)| *p == id && *c == class)
            || new
                .iter()
                .any(|(n, c): &(u32, String)| *n == id && *c == class)
        {
            continue;
        }
        if id != next || interface.methods(&class).is_none() {
            return Err("an object handle out of order or of an undeclared class".into());
        }
        new.push((id, class));
        next += 1;
    }
    handles.classes.extend(new.into_iter().map(|(_, c)| c));
    Ok(Answer::Returned { value, out })
}

/// Every object in an answer crosses as its declared class does: a value class's as its
/// stated fields, in order, any other's as a bare handle.
fn check_objects(v: &Value, interface: &Interface) -> Result<(), Malformed> {
    let mut bad = None;
    v.visit(&mut |x| match x {
        Value::Handle { class, .. } if interface.is_value_class(class) => {
            bad = Some(format!(
                "an object of value class {class} without its fields"
            ));
        }
        Value::Object { class, fields, .. } => {
            let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
            if !interface.is_value_class(class) || names != interface.fields(class) {
                bad = Some(format!(
                    "an object of {} with fields other than the interface states",
                    cut(class, 100)
                ));
            }
        }
        _ => {}
    });
    bad.map_or(Ok(()), |why| Err(Malformed(why)))
}

impl Answer {
    /// The canonical bytes the test's side reads, for the two answers it receives.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let j = match self {
            Answer::Returned { value, out } => {
                let mut o = serde_json::Map::new();
                o.insert("value".into(), value.to_json());
                if !out.is_empty() {
                    o.insert(
                        "out".into(),
                        Json::Array(
                            out.iter()
                                .map(|(a, v)| match a {
                                    Argument::Position(i) => json!([i, v.to_json()]),
                                    Argument::Keyword(k) => json!([k, v.to_json()]),
                                })
                                .collect(),
                        ),
                    );
                }
                Json::Object(o)
            }
            Answer::Raised { class, message } => json!({ "raise": [class, message] }),
            _ => return None,
        };
        serde_json::to_vec(&j).ok()
    }

    /// What ends the run, for an answer that does not reach the test: the runtime error's
    /// message, naming the call.
    pub fn failure(&self, callee: &Callee) -> Option<String> {
        Some(match self {
            Answer::NotData(what) => format!(
                "the solution's `{callee}` returned {what}, which is not data (only None, bool, \
                 int, float, str, bytes, complex and lists, tuples, dicts and sets of them cross \
                 to the test)"
            ),
            Answer::Missing(name) => format!(
                "the solution has no `{name}`, which the interface names and the test called"
            ),
            Answer::ImportFailed { class, message } => format!(
                "importing the solution raised {class}: {}",
                printable(&cut(message, 300))
            ),
            Answer::Malformed(why) => format!(
                "the solution's instance answered `{callee}` with something that is not an \
                 answer: {why}"
            ),
            Answer::Returned { .. } | Answer::Raised { .. } | Answer::Ended => return None,
        })
    }
}

/// What the test sees when its call is refused, or when there is no solution: an exception.
pub fn raise(class: &str, message: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({ "raise": [class, message] })).unwrap_or_default()
}

fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut k = max;
    while !s.is_char_boundary(k) {
        k -= 1;
    }
    s[..k].to_string()
}

/// Guest text for a message of the host's: control characters replaced.
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iface() -> Interface {
        Interface::parse(&["f", "Stack: push, __len__"]).unwrap()
    }

    fn call(j: Json, handles: &Handles) -> Result<Call, CallError> {
        read_call(j.to_string().as_bytes(), &iface(), handles)
    }

    #[test]
    fn calls_outside_the_interface_or_with_objects_are_refused() {
        let h = Handles::default();
        assert!(call(json!({"call": "f", "args": [{"int": "1"}]}), &h).is_ok());
        assert_eq!(
            call(json!({"call": "helper"}), &h),
            Err(CallError::NotInInterface("helper".into()))
        );
        assert_eq!(
            call(json!({"op": "vars"}), &h),
            Err(malformed("neither a call nor a method"))
        );
        assert_eq!(
            call(json!({"call": "f", "h": 0}), &h),
            Err(malformed("an unknown field"))
        );
        assert!(matches!(
            call(json!({"call": "f", "args": [{"module": "os"}]}), &h),
            Err(CallError::Value(_))
        ));
        assert_eq!(
            call(json!({"method": "push", "on": 1}), &h),
            Err(CallError::UnknownHandle(1))
        );
        assert_eq!(
            call(json!({"call": "f", "args": [{"handle": [1, "Stack"]}]}), &h),
            Err(CallError::UnknownHandle(1))
        );
    }

    #[test]
    fn value_objects_cross_with_their_stated_fields_and_keys_are_hashable() {
        let i = Interface::parse(&["f", "Money: cents, __eq__, __hash__", "Box: __eq__"]).unwrap();
        let mut h = Handles::default();
        let c = read_call(br#"{"call": "f"}"#, &i, &h).unwrap();
        let mut a = |j: Json| read_answer(j.to_string().as_bytes(), &c, &i, &mut h);
        let money =
            |id: u32, cents: &str| json!({"object": [id, "Money", [["cents", {"int": cents}]]]});
        // A Money as a dict key (it states `__hash__`), in a set, with its fields.
        let ok = a(json!({"value": {"dict": [[money(1, "350"), null]]}}));
        assert!(matches!(ok, Answer::Returned { .. }), "{ok:?}");
        for bad in [
            // a value class's object as a bare handle, or with fields other than stated
            json!({"value": {"handle": [2, "Money"]}}),
            json!({"value": {"object": [2, "Money", [["secret", {"int": "1"}]]]}}),
            json!({"value": {"object": [2, "Money", []]}}),
            json!({"value": {"object": [2, "Money", [["cents", null], ["cents", null]]]}}),
            // a plain class's object with fields
            json!({"value": {"object": [2, "Stack", []]}}),
            // what Python cannot hash as a key or element, however deep
            json!({"value": {"dict": [[[], null]]}}),
            json!({"value": [{"set": [{"tuple": [{"dict": []}]}]}]}),
            json!({"value": {"frozenset": [{"set": []}]}}),
            json!({"value": {"set": [{"object": [2, "Box", []]}]}}),
            json!({"value": {"set": [{"object": [2, "Money", [["cents", []]]]}]}}),
        ] {
            assert!(matches!(a(bad.clone()), Answer::Malformed(_)), "{bad}");
        }
        // Two Moneys of equal fields are equal values whatever their numbers.
        assert_eq!(
            Value::from_json(&money(1, "5")).unwrap().key(),
            Value::from_json(&money(9, "5")).unwrap().key()
        );
        assert_eq!(
            Value::from_json(&money(1, "5")).unwrap().repr(80),
            "Money(cents=5)"
        );
        // A test passes a value back as its handle; the fields it claims are dropped, and a
        // value operator or a field is never a call of the solution's.
        let back = read_call(
            json!({"call": "f", "args": [{"object": [1, "Money", [["cents", {"int": "9"}]]]}]})
                .to_string()
                .as_bytes(),
            &i,
            &h,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(back.to_bytes()).unwrap(),
            r#"{"args":[{"handle":[1,"Money"]}],"call":"f"}"#
        );
        for m in ["__eq__", "__hash__", "cents"] {
            let j = json!({"method": m, "on": 1}).to_string();
            assert!(
                matches!(
                    read_call(j.as_bytes(), &i, &h),
                    Err(CallError::NotInInterface(_))
                ),
                "{m}"
            );
        }
        let j = json!({"call": "f", "args": [{"set": [[]]}]}).to_string();
        assert!(matches!(
            read_call(j.as_bytes(), &i, &h),
            Err(CallError::Value(_))
        ));
    }

    #[test]
    fn answers_are_checked_and_re_encoded() {
        let mut h = Handles::default();
        let c = call(json!({"call": "f", "args": [[{"int": "1"}]]}), &h).unwrap();
        let a = |j: Json, h: &mut Handles| read_answer(j.to_string().as_bytes(), &c, &iface(), h);
        // A value in the grammar crosses, canonical.
        let ok = a(
            json!({"value": {"set": [{"int": "02"}, {"int": "1"}]}}),
            &mut h,
        );
        assert_eq!(
            String::from_utf8(ok.to_bytes().unwrap()).unwrap(),
            r#"{"value":{"set":[{"int":"1"},{"int":"2"}]}}"#
        );
        // Names of the test's side, proxies and unknown exception classes never cross.
        for bad in [
            json!({"value": {"import": ["__main__", "expected"]}}),
            json!({"value": {"handle": [7, "Stack"]}}),
            json!({"value": {"handle": [1, "Secret"]}}),
            json!({"raise": ["StopIteration", ""]}),
            json!({"raise": {"mro": ["ValueError"], "args": []}}),
            json!({"raise": ["KeyError+KeyError", ""]}),
            json!({"raise": ["KeyError+Secret", ""]}),
            json!({"raise": ["KeyError+", ""]}),
            json!({"value": null, "raise": ["ValueError", ""]}),
            json!({"value": null, "out": [[0, {"int": "1"}]]}),
            json!({"value": null, "out": [[3, []]]}),
        ] {
            assert!(
                matches!(a(bad.clone(), &mut h), Answer::Malformed(_)),
                "{bad}"
            );
        }
        assert_eq!(
            a(json!({"raise": ["ValueError", "bad"]}), &mut h),
            Answer::Raised {
                class: "ValueError".into(),
                message: "bad".into()
            }
        );
        assert_eq!(
            a(json!({"raise": ["KeyError+TypeError", "k"]}), &mut h),
            Answer::Raised {
                class: "KeyError+TypeError".into(),
                message: "k".into()
            }
        );
        // The first object handed out is number 1, of a declared class.
        let first = a(json!({"value": {"handle": [1, "Stack"]}}), &mut h);
        assert!(matches!(first, Answer::Returned { .. }));
        let m = call(json!({"method": "__len__", "on": 1}), &h).unwrap();
        assert_eq!(m.callee.to_string(), "Stack.__len__");
        assert_eq!(
            call(json!({"method": "pop", "on": 1}), &h),
            Err(CallError::NotInInterface("Stack.pop".into()))
        );
        // Answers that end the run never reach the test, and say why.
        let nd = a(json!({"not_data": "a generator"}), &mut h);
        assert!(nd.to_bytes().is_none());
        assert!(nd
            .failure(&c.callee)
            .unwrap()
            .contains("`f` returned a generator, which is not data"));
    }
}
