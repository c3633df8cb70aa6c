//! The values that cross between a test and a solution: plain data in one small grammar, read
//! from a guest's JSON within fixed bounds (untrusted: every read is checked), written back in
//! one canonical form, compared the way Python's `==` compares them, and shown as Python source.
//!
//! The grammar (`guest-sdk/python/dixit_bridge.py` writes it): `null`, `true`/`false`, a string,
//! a list, or one of `{"int": "12"}`, `{"float": "0.5"}` (Python's `repr`: `nan`, `inf`,
//! `-0.0` kept), `{"complex": ["1.0", "2.0"]}`, `{"bytes": "00ff"}`, `{"tuple": [...]}`,
//! `{"dict": [[k, v], ...]}`, `{"set": [...]}`, `{"frozenset": [...]}`, and
//! `{"handle": [id, "Class"]}` for an object of a class the interface declares, and
//! `{"object": [id, "Class", [["field", value], ...]]}` for one of a value class (its fields'
//! values). Anything else is refused.

use std::fmt::Write as _;

use serde_json::Value as Json;

/// How large a value read from a guest may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Containers nested in one another.
    pub depth: usize,
    /// Nodes (scalars and containers) in one value.
    pub nodes: usize,
    /// Characters of one string (or bytes of one `bytes`), and digits of one integer.
    pub scalar: usize,
}

impl Bounds {
    /// What crosses the boundary: the guest's own limit on nesting (100), and as many nodes
    /// and as long a scalar as a message may hold.
    pub const MESSAGE: Bounds = Bounds {
        depth: 100,
        nodes: 4 << 20,
        scalar: 16 << 20,
    };
    /// What the disagreement finder and `dixit eval`'s answers compare and show.
    pub const COMPARED: Bounds = Bounds {
        depth: 32,
        nodes: 10_000,
        scalar: 100_000,
    };
}

/// A Python value that is plain data.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `None`.
    None,
    /// `True` or `False`.
    Bool(bool),
    /// An integer of any size, as its decimal digits (with an optional `-`).
    Int(String),
    /// A float (the guest's `repr`, parsed).
    Float(f64),
    /// A complex number: real and imaginary parts.
    Complex(f64, f64),
    /// A `str`.
    Str(String),
    /// `bytes` (and `bytearray`).
    Bytes(Vec<u8>),
    /// A `list`.
    List(Vec<Value>),
    /// A `tuple`.
    Tuple(Vec<Value>),
    /// Entries in the order the guest gave them.
    Dict(Vec<(Value, Value)>),
    /// `set` and `frozenset` (equal in Python when their elements are).
    Set {
        /// Whether it is a `frozenset`.
        frozen: bool,
        /// The elements, in the order the guest gave them.
        items: Vec<Value>,
    },
    /// An object of a class the interface declares, by the number the run gave it (a new one
    /// each time an object crosses) and its class.
    Handle {
        /// The number the run gave the object.
        id: u32,
        /// The object's class.
        class: String,
    },
    /// An object of a value class the interface declares: its number (as a handle's) and its
    /// fields' values, by name in the order stated. Equal to another when the class and the
    /// fields are (its number aside).
    Object {
        /// The number the run gave the object.
        id: u32,
        /// The object's class.
        class: String,
        /// The fields' values, by name in the order stated.
        fields: Vec<(String, Value)>,
    },
}

/// Why a guest's encoding was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// Containers nested deeper than the bounds allow.
    #[error("nested deeper than {0} levels")]
    TooDeep(usize),
    /// More parts in all than the bounds allow.
    #[error("more than {0} parts")]
    TooLarge(usize),
    /// A string, bytes or integer longer than the bounds allow.
    #[error("a scalar longer than {0} characters")]
    TooLong(usize),
    /// Not the guest's encoding (what was wrong).
    #[error("not an encoded value: {0}")]
    Malformed(String),
}

impl Value {
    /// Reads a guest's encoding within `bounds`.
    pub fn read(j: &Json, bounds: &Bounds) -> Result<Value, ValueError> {
        let mut nodes = 0;
        decode(j, 0, &mut nodes, bounds)
    }

    /// Reads a guest's encoding within [`Bounds::COMPARED`].
    pub fn from_json(j: &Json) -> Result<Value, ValueError> {
        Value::read(j, &Bounds::COMPARED)
    }

    /// Whether the value is within `bounds` (a value read within wider ones).
    pub fn within(&self, bounds: &Bounds) -> bool {
        fn walk(v: &Value, depth: usize, nodes: &mut usize, b: &Bounds) -> bool {
            *nodes += 1;
            if *nodes > b.nodes || depth > b.depth {
                return false;
            }
            let all = |items: &[Value], nodes: &mut usize| {
                items.iter().all(|x| walk(x, depth + 1, nodes, b))
            };
            match v {
                Value::Int(s) | Value::Str(s) => s.len() <= b.scalar,
                Value::Bytes(x) => x.len() <= b.scalar,
                Value::List(items) | Value::Tuple(items) | Value::Set { items, .. } => {
                    all(items, nodes)
                }
                Value::Dict(entries) => entries
                    .iter()
                    .all(|(k, x)| walk(k, depth + 1, nodes, b) && walk(x, depth + 1, nodes, b)),
                Value::Object { fields, .. } => {
                    fields.iter().all(|(_, x)| walk(x, depth + 1, nodes, b))
                }
                _ => true,
            }
        }
        walk(self, 0, &mut 0, bounds)
    }

    /// The one form the host passes on: ints without leading zeros, floats as Python's
    /// `repr`, sets in the order of their elements' keys (so that two equal sets, however a
    /// solution built them, reach a test as the same bytes and iterate in the same order).
    pub fn canonical(self) -> Value {
        match self {
            Value::Int(s) => Value::Int(normal_int(&s)),
            Value::List(v) => Value::List(v.into_iter().map(Value::canonical).collect()),
            Value::Tuple(v) => Value::Tuple(v.into_iter().map(Value::canonical).collect()),
            Value::Object { id, class, fields } => Value::Object {
                id,
                class,
                fields: fields
                    .into_iter()
                    .map(|(n, x)| (n, x.canonical()))
                    .collect(),
            },
            Value::Dict(e) => Value::Dict(
                e.into_iter()
                    .map(|(k, v)| (k.canonical(), v.canonical()))
                    .collect(),
            ),
            Value::Set { frozen, items } => {
                let mut keyed: Vec<(String, String, Value)> = items
                    .into_iter()
                    .map(|x| {
                        let x = x.canonical();
                        (x.key(), x.to_json().to_string(), x)
                    })
                    .collect();
                keyed.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
                Value::Set {
                    frozen,
                    items: keyed.into_iter().map(|(_, _, x)| x).collect(),
                }
            }
            other => other,
        }
    }

    /// The handles in the value, in order.
    pub fn handles(&self, out: &mut Vec<(u32, String)>) {
        match self {
            Value::Handle { id, class } => out.push((*id, class.clone())),
            Value::Object { id, class, fields } => {
                out.push((*id, class.clone()));
                fields.iter().for_each(|(_, x)| x.handles(out));
            }
            Value::List(v) | Value::Tuple(v) | Value::Set { items: v, .. } => {
                v.iter().for_each(|x| x.handles(out))
            }
            Value::Dict(e) => e.iter().for_each(|(k, x)| {
                k.handles(out);
                x.handles(out);
            }),
            _ => {}
        }
    }

    /// The first dict key or set element in the value that Python could not hash (a list, a
    /// dict, a set, or a tuple or object holding one, or an object of a class `hashable` says
    /// has no hash): such a value cannot exist in Python, so a side that sends one is at fault.
    pub fn unhashable_member(&self, hashable: &impl Fn(&str) -> bool) -> Option<&Value> {
        fn can_hash(v: &Value, hashable: &impl Fn(&str) -> bool) -> bool {
            match v {
                Value::List(_) | Value::Dict(_) | Value::Set { frozen: false, .. } => false,
                Value::Tuple(items) | Value::Set { items, .. } => {
                    items.iter().all(|x| can_hash(x, hashable))
                }
                Value::Object { class, fields, .. } => {
                    hashable(class) && fields.iter().all(|(_, x)| can_hash(x, hashable))
                }
                _ => true,
            }
        }
        match self {
            Value::List(v) | Value::Tuple(v) => {
                v.iter().find_map(|x| x.unhashable_member(hashable))
            }
            Value::Set { items, .. } => items
                .iter()
                .find(|x| !can_hash(x, hashable))
                .or_else(|| items.iter().find_map(|x| x.unhashable_member(hashable))),
            Value::Dict(e) => e
                .iter()
                .find(|(k, _)| !can_hash(k, hashable))
                .map(|(k, _)| k)
                .or_else(|| {
                    e.iter().find_map(|(k, x)| {
                        k.unhashable_member(hashable)
                            .or_else(|| x.unhashable_member(hashable))
                    })
                }),
            Value::Object { fields, .. } => fields
                .iter()
                .find_map(|(_, x)| x.unhashable_member(hashable)),
            _ => None,
        }
    }

    /// Calls `f` on the value and on every value inside it.
    pub fn visit(&self, f: &mut impl FnMut(&Value)) {
        f(self);
        match self {
            Value::List(v) | Value::Tuple(v) | Value::Set { items: v, .. } => {
                v.iter().for_each(|x| x.visit(f))
            }
            Value::Dict(e) => e.iter().for_each(|(k, x)| {
                k.visit(f);
                x.visit(f);
            }),
            Value::Object { fields, .. } => fields.iter().for_each(|(_, x)| x.visit(f)),
            _ => {}
        }
    }

    /// The value with every value object as its bare handle: what a test passes back is the
    /// solution's own object, whatever fields a test might claim for it.
    pub fn objects_as_handles(self) -> Value {
        let all = |v: Vec<Value>| v.into_iter().map(Value::objects_as_handles).collect();
        match self {
            Value::Object { id, class, .. } => Value::Handle { id, class },
            Value::List(v) => Value::List(all(v)),
            Value::Tuple(v) => Value::Tuple(all(v)),
            Value::Set { frozen, items } => Value::Set {
                frozen,
                items: all(items),
            },
            Value::Dict(e) => Value::Dict(
                e.into_iter()
                    .map(|(k, x)| (k.objects_as_handles(), x.objects_as_handles()))
                    .collect(),
            ),
            other => other,
        }
    }

    /// The encoding the guest reads back.
    pub fn to_json(&self) -> Json {
        use serde_json::json;
        let seq = |v: &[Value]| Json::Array(v.iter().map(Value::to_json).collect());
        match self {
            Value::None => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(s) => json!({ "int": s }),
            Value::Float(f) => json!({ "float": py_float(*f) }),
            Value::Complex(r, i) => json!({ "complex": [py_float(*r), py_float(*i)] }),
            Value::Str(s) => Json::String(s.clone()),
            Value::Bytes(b) => json!({ "bytes": hex::encode(b) }),
            Value::List(v) => seq(v),
            Value::Tuple(v) => json!({ "tuple": seq(v) }),
            Value::Dict(e) => json!({
                "dict": e.iter().map(|(k, v)| json!([k.to_json(), v.to_json()])).collect::<Vec<_>>()
            }),
            Value::Set { frozen, items } => {
                json!({ if *frozen { "frozenset" } else { "set" }: seq(items) })
            }
            Value::Handle { id, class } => json!({ "handle": [id, class] }),
            Value::Object { id, class, fields } => json!({
                "object": [id, class, fields.iter().map(|(n, x)| json!([n, x.to_json()])).collect::<Vec<_>>()]
            }),
        }
    }

    /// A key equal for two values exactly when Python's `==` says they are equal: numbers
    /// compare by value across `bool`, `int`, `float` and `complex` (`1 == 1.0 == True`),
    /// dicts and sets ignore order, lists and tuples differ. One deviation: NaN equals NaN
    /// here (two implementations that both answer NaN agree).
    pub fn key(&self) -> String {
        let mut out = String::new();
        self.write_key(&mut out);
        out
    }

    fn write_key(&self, out: &mut String) {
        match self {
            Value::None => out.push('N'),
            Value::Bool(b) => out.push_str(if *b { "n1" } else { "n0" }),
            Value::Int(s) => {
                out.push('n');
                out.push_str(&normal_int(s));
            }
            Value::Float(f) => out.push_str(&number_key(*f)),
            Value::Complex(r, i) => {
                if *i == 0.0 {
                    out.push_str(&number_key(*r));
                } else {
                    let _ = write!(out, "c{}|{}", number_key(*r), number_key(*i));
                }
            }
            Value::Str(s) => {
                let _ = write!(out, "s{}:{s}", s.len());
            }
            Value::Bytes(b) => {
                let _ = write!(out, "b{}", hex::encode(b));
            }
            Value::List(v) | Value::Tuple(v) => {
                out.push_str(if matches!(self, Value::List(_)) {
                    "L["
                } else {
                    "T["
                });
                for x in v {
                    x.write_key(out);
                    out.push(',');
                }
                out.push(']');
            }
            Value::Dict(e) => {
                // Later entries win for equal keys, as in a Python dict literal.
                let mut m = std::collections::BTreeMap::new();
                for (k, v) in e {
                    m.insert(k.key(), v.key());
                }
                out.push_str("D{");
                for (k, v) in m {
                    let _ = write!(out, "{}:{k}={v},", k.len());
                }
                out.push('}');
            }
            Value::Set { items, .. } => {
                let keys: std::collections::BTreeSet<String> =
                    items.iter().map(Value::key).collect();
                out.push_str("S{");
                for k in keys {
                    let _ = write!(out, "{}:{k},", k.len());
                }
                out.push('}');
            }
            Value::Handle { id, class } => {
                let _ = write!(out, "h{id}:{class}");
            }
            Value::Object { class, fields, .. } => {
                let _ = write!(out, "o{}:{class}[", class.len());
                for (_, x) in fields {
                    x.write_key(out);
                    out.push(',');
                }
                out.push(']');
            }
        }
    }

    /// The value as Python source (its `repr`), cut to about `max` characters with `…`.
    pub fn repr(&self, max: usize) -> String {
        let mut out = String::new();
        self.write_repr(&mut out, max);
        if out.len() > max {
            let mut cut = max;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push('…');
        }
        out
    }

    fn write_repr(&self, out: &mut String, max: usize) {
        if out.len() > max {
            return;
        }
        let seq = |out: &mut String, v: &[Value], open: &str, close: &str| {
            out.push_str(open);
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                x.write_repr(out, max);
                if out.len() > max {
                    return;
                }
            }
            out.push_str(close);
        };
        match self {
            Value::None => out.push_str("None"),
            Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
            Value::Int(s) => out.push_str(s),
            Value::Float(f) => out.push_str(&py_float(*f)),
            Value::Complex(r, i) => {
                let im = py_float(*i);
                let _ = write!(
                    out,
                    "({}{}{im}j)",
                    py_float(*r),
                    if im.starts_with('-') { "" } else { "+" }
                );
            }
            Value::Str(s) => out.push_str(&py_str(s)),
            Value::Bytes(b) => out.push_str(&py_bytes(b)),
            Value::List(v) => seq(out, v, "[", "]"),
            Value::Tuple(v) if v.len() == 1 => seq(out, v, "(", ",)"),
            Value::Tuple(v) => seq(out, v, "(", ")"),
            Value::Dict(e) => {
                out.push('{');
                for (i, (k, v)) in e.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write_repr(out, max);
                    out.push_str(": ");
                    v.write_repr(out, max);
                    if out.len() > max {
                        return;
                    }
                }
                out.push('}');
            }
            Value::Set { frozen, items } if items.is_empty() => {
                out.push_str(if *frozen { "frozenset()" } else { "set()" })
            }
            Value::Set {
                frozen: true,
                items,
            } => seq(out, items, "frozenset({", "})"),
            Value::Set {
                frozen: false,
                items,
            } => seq(out, items, "{", "}"),
            Value::Handle { id, class } => {
                let _ = write!(out, "<solution.{class} #{id}>");
            }
            Value::Object { class, fields, .. } => {
                let _ = write!(out, "{class}(");
                for (i, (n, x)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{n}=");
                    x.write_repr(out, max);
                    if out.len() > max {
                        return;
                    }
                }
                out.push(')');
            }
        }
    }
}

fn decode(j: &Json, depth: usize, nodes: &mut usize, b: &Bounds) -> Result<Value, ValueError> {
    *nodes += 1;
    if *nodes > b.nodes {
        return Err(ValueError::TooLarge(b.nodes));
    }
    if depth > b.depth {
        return Err(ValueError::TooDeep(b.depth));
    }
    let bad = |what: &str| ValueError::Malformed(what.to_string());
    let seq = |v: &Json, nodes: &mut usize| -> Result<Vec<Value>, ValueError> {
        v.as_array()
            .ok_or_else(|| bad("a sequence that is not a list"))?
            .iter()
            .map(|x| decode(x, depth + 1, nodes, b))
            .collect()
    };
    let scalar = |v: &Json| -> Result<String, ValueError> {
        let s = v
            .as_str()
            .ok_or_else(|| bad("a scalar that is not a string"))?;
        if s.len() > b.scalar {
            return Err(ValueError::TooLong(b.scalar));
        }
        Ok(s.to_string())
    };
    Ok(match j {
        Json::Null => Value::None,
        Json::Bool(b) => Value::Bool(*b),
        Json::String(s) if s.len() > b.scalar => return Err(ValueError::TooLong(b.scalar)),
        Json::String(s) => Value::Str(s.clone()),
        Json::Array(_) => Value::List(seq(j, nodes)?),
        Json::Number(_) => return Err(bad("a bare number")),
        Json::Object(o) => {
            let mut it = o.iter();
            let (Some((tag, v)), None) = (it.next(), it.next()) else {
                return Err(bad("an object without exactly one tag"));
            };
            match tag.as_str() {
                "int" => {
                    let s = scalar(v)?;
                    let digits = s.strip_prefix('-').unwrap_or(&s);
                    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(bad("an int that is not decimal digits"));
                    }
                    Value::Int(s)
                }
                "float" => Value::Float(parse_float(&scalar(v)?)?),
                "complex" => {
                    let parts = v
                        .as_array()
                        .filter(|a| a.len() == 2)
                        .ok_or_else(|| bad("a complex that is not two parts"))?;
                    Value::Complex(
                        parse_float(&scalar(&parts[0])?)?,
                        parse_float(&scalar(&parts[1])?)?,
                    )
                }
                "bytes" => Value::Bytes(
                    hex::decode(scalar(v)?).map_err(|_| bad("bytes that are not hex"))?,
                ),
                "tuple" => Value::Tuple(seq(v, nodes)?),
                "set" | "frozenset" => Value::Set {
                    frozen: tag == "frozenset",
                    items: seq(v, nodes)?,
                },
                "dict" => {
                    let entries = v
                        .as_array()
                        .ok_or_else(|| bad("a dict that is not a list"))?;
                    let mut out = Vec::with_capacity(entries.len());
                    for e in entries {
                        let pair = e
                            .as_array()
                            .filter(|p| p.len() == 2)
                            .ok_or_else(|| bad("a dict entry that is not a pair"))?;
                        out.push((
                            decode(&pair[0], depth + 1, nodes, b)?,
                            decode(&pair[1], depth + 1, nodes, b)?,
                        ));
                    }
                    Value::Dict(out)
                }
                "handle" => {
                    let pair = v
                        .as_array()
                        .filter(|p| p.len() == 2)
                        .ok_or_else(|| bad("a handle that is not [id, class]"))?;
                    let id = pair[0]
                        .as_u64()
                        .and_then(|i| u32::try_from(i).ok())
                        .ok_or_else(|| bad("a handle whose id is not a number"))?;
                    let class = pair[1]
                        .as_str()
                        .filter(|c| c.len() <= 100)
                        .ok_or_else(|| bad("a handle whose class is not a name"))?;
                    Value::Handle {
                        id,
                        class: class.to_string(),
                    }
                }
                "object" => {
                    let parts = v
                        .as_array()
                        .filter(|p| p.len() == 3)
                        .ok_or_else(|| bad("an object that is not [id, class, fields]"))?;
                    let id = parts[0]
                        .as_u64()
                        .and_then(|i| u32::try_from(i).ok())
                        .ok_or_else(|| bad("an object whose id is not a number"))?;
                    let class = parts[1]
                        .as_str()
                        .filter(|c| c.len() <= 100)
                        .ok_or_else(|| bad("an object whose class is not a name"))?;
                    let mut fields = Vec::new();
                    for f in parts[2]
                        .as_array()
                        .ok_or_else(|| bad("an object's fields that are not a list"))?
                    {
                        let pair = f
                            .as_array()
                            .filter(|p| p.len() == 2)
                            .ok_or_else(|| bad("a field that is not [name, value]"))?;
                        let name = pair[0]
                            .as_str()
                            .filter(|n| n.len() <= 100)
                            .ok_or_else(|| bad("a field whose name is not a name"))?;
                        fields.push((name.to_string(), decode(&pair[1], depth + 1, nodes, b)?));
                    }
                    Value::Object {
                        id,
                        class: class.to_string(),
                        fields,
                    }
                }
                other => return Err(ValueError::Malformed(format!("unknown tag {other:?}"))),
            }
        }
    })
}

fn parse_float(s: &str) -> Result<f64, ValueError> {
    match s {
        "nan" | "-nan" => Ok(f64::NAN),
        "inf" => Ok(f64::INFINITY),
        "-inf" => Ok(f64::NEG_INFINITY),
        _ if s.len() <= 64 && s.bytes().all(|b| b"0123456789.eE+-".contains(&b)) => s
            .parse()
            .map_err(|_| ValueError::Malformed(format!("float {s:?}"))),
        _ => Err(ValueError::Malformed(format!("float {s:?}"))),
    }
}

/// `-0`, `007` → `0`, `7`.
fn normal_int(s: &str) -> String {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let d = digits.trim_start_matches('0');
    if d.is_empty() {
        "0".into()
    } else if neg {
        format!("-{d}")
    } else {
        d.to_string()
    }
}

/// The key of a real number: an integral float is the integer it equals (as Python compares
/// `2.0 == 2`); NaN is one key.
fn number_key(f: f64) -> String {
    if f.is_nan() {
        "nNaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "ninf" } else { "n-inf" }.into()
    } else if f == f.trunc() {
        // Exact: `{:.0}` prints every digit of an integral f64.
        format!("n{}", normal_int(&format!("{f:.0}")))
    } else {
        format!("n{f:e}")
    }
}

/// Python's `repr` of a float.
pub fn py_float(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let a = f.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        // Shortest digits in exponent form, written as Python does (`1e+16`, `1.5e-05`).
        let s = format!("{f:e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let s = format!("{f}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// Python's `repr` of a str.
pub fn py_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

fn py_bytes(b: &[u8]) -> String {
    let mut out = String::from("b'");
    for &x in b {
        match x {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(x as char),
            _ => {
                let _ = write!(out, "\\x{x:02x}");
            }
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(j: Json) -> Value {
        Value::from_json(&j).unwrap()
    }

    #[test]
    fn python_equality_of_numbers_and_containers() {
        let one = [
            json!({"int": "1"}),
            json!({"float": "1.0"}),
            json!(true),
            json!({"complex": ["1.0", "0.0"]}),
            json!({"int": "001"}),
        ];
        let keys: Vec<String> = one.iter().map(|j| v(j.clone()).key()).collect();
        assert!(keys.windows(2).all(|w| w[0] == w[1]), "{keys:?}");
        assert_ne!(
            v(json!({"float": "1.5"})).key(),
            v(json!({"int": "1"})).key()
        );
        assert_eq!(
            v(json!({"float": "-0.0"})).key(),
            v(json!({"int": "0"})).key()
        );
        // Exact: 2**53 + 1 is not the float 2**53.
        assert_ne!(
            v(json!({"int": "9007199254740993"})).key(),
            v(json!({"float": "9007199254740992.0"})).key()
        );
        assert_eq!(
            v(json!({"int": "9007199254740992"})).key(),
            v(json!({"float": "9007199254740992.0"})).key()
        );
        assert_ne!(
            v(json!([{"int": "1"}])).key(),
            v(json!({"tuple": [{"int": "1"}]})).key()
        );
        assert_eq!(
            v(json!({"dict": [["a", {"int": "1"}], ["b", null]]})).key(),
            v(json!({"dict": [["b", null], ["a", {"float": "1.0"}]]})).key()
        );
        assert_eq!(
            v(json!({"set": [{"int": "2"}, {"int": "1"}]})).key(),
            v(json!({"frozenset": [{"int": "1"}, {"int": "2"}, {"float": "2.0"}]})).key()
        );
        assert_ne!(v(json!("1")).key(), v(json!({"int": "1"})).key());
        assert_ne!(v(json!("ab")).key(), v(json!({"bytes": "6162"})).key());
        assert_eq!(
            v(json!({"float": "nan"})).key(),
            v(json!({"float": "nan"})).key()
        );
        // Length-prefixed strings: no two different lists share a key.
        assert_ne!(v(json!(["a,", "b"])).key(), v(json!(["a", ",b"])).key());
    }

    #[test]
    fn reprs_read_like_python() {
        let r = |j: Json| v(j).repr(200);
        assert_eq!(
            r(json!([{"int": "1"}, "it's", null, true])),
            "[1, \"it's\", None, True]"
        );
        assert_eq!(r(json!({"tuple": [{"float": "2.5"}]})), "(2.5,)");
        assert_eq!(r(json!({"float": "1.0"})), "1.0");
        assert_eq!(r(json!({"float": "1e+16"})), "1e+16");
        assert_eq!(r(json!({"float": "1.5e-05"})), "1.5e-05");
        assert_eq!(r(json!({"float": "0.1"})), "0.1");
        assert_eq!(r(json!({"set": []})), "set()");
        assert_eq!(
            r(json!({"dict": [["k", {"bytes": "00"}]]})),
            "{'k': b'\\x00'}"
        );
        assert_eq!(r(json!("a\nb'\"")), "'a\\nb\\'\"'");
        assert_eq!(r(json!({"complex": ["1.0", "-2.0"]})), "(1.0-2.0j)");
        assert_eq!(v(json!(["x".repeat(50)])).repr(10), "['xxxxxxxx…");
    }

    #[test]
    fn hostile_encodings_are_refused_and_bounded() {
        for bad in [
            json!(1),
            json!({"int": "1e5"}),
            json!({"int": ""}),
            json!({"float": "1; rm"}),
            json!({"int": "1", "float": "2"}),
            json!({"object": "x"}),
            json!({"dict": [["a"]]}),
            json!({"bytes": "zz"}),
        ] {
            assert!(Value::from_json(&bad).is_err(), "{bad}");
        }
        let b = Bounds::COMPARED;
        let mut deep = json!(null);
        for _ in 0..(b.depth + 2) {
            deep = json!([deep]);
        }
        assert_eq!(Value::from_json(&deep), Err(ValueError::TooDeep(b.depth)));
        let wide = Json::Array(vec![json!(null); b.nodes + 1]);
        assert_eq!(Value::from_json(&wide), Err(ValueError::TooLarge(b.nodes)));
        let long = json!("x".repeat(b.scalar + 1));
        assert_eq!(Value::from_json(&long), Err(ValueError::TooLong(b.scalar)));
        // Read within the message's bounds, the same value is too large to compare.
        let wide = Value::read(&wide, &Bounds::MESSAGE).unwrap();
        assert!(!wide.within(&b) && wide.within(&Bounds::MESSAGE));
    }

    #[test]
    fn encodings_round_trip() {
        let j = json!([
            {"int": "-12"}, {"float": "0.25"}, {"complex": ["1.0", "2.0"]}, "s", {"bytes": "ff"},
            {"tuple": []}, {"dict": [[{"int": "1"}, null]]}, {"frozenset": [true]}
        ]);
        let once = v(j);
        assert_eq!(Value::from_json(&once.to_json()).unwrap(), once);
    }

    /// Equal sets, however built, and ints however written, reach the other side as the same
    /// bytes; -0.0, NaN and the infinities keep what they are.
    #[test]
    fn the_canonical_form_hides_how_a_value_was_built() {
        let c = |j: Json| v(j).canonical().to_json().to_string();
        assert_eq!(
            c(json!({"set": [{"int": "3"}, "a", {"int": "1"}]})),
            c(json!({"set": [{"int": "1"}, {"int": "3"}, "a"]}))
        );
        assert_eq!(c(json!({"int": "-007"})), c(json!({"int": "-7"})));
        assert_eq!(c(json!({"int": "-0"})), c(json!({"int": "0"})));
        for f in ["-0.0", "nan", "inf", "-inf", "1e+16", "5e-324", "0.1"] {
            assert_eq!(
                c(json!({"float": f})),
                json!({"float": f}).to_string(),
                "{f}"
            );
        }
        // Dicts keep their order: it is part of a dict's value in Python.
        assert_ne!(
            c(json!({"dict": [["a", null], ["b", null]]})),
            c(json!({"dict": [["b", null], ["a", null]]}))
        );
    }
}
