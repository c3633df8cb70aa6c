//! A Rust interface (items `NAME: fn(ARGS) -> RESULT`) as a WIT world, and the two glue crates
//! that carry its calls by value between a Rust test and a Rust solution, each a component with
//! its own memory (see `component.rs` and `wit.rs` for C and C++).
//!
//! | Rust | WIT |
//! |---|---|
//! | `i8` … `i64`, `u8` … `u64`, `f32`, `f64`, `bool`, `char` | `s8` … `s64`, `u8` … `u64`, `f32`, `f64`, `bool`, `char` |
//! | `usize`, `isize` | `u64`, `s64` |
//! | `String`, `&str` | `string` |
//! | `Vec<T>`, `&[T]`, `HashSet<T>`, `BTreeSet<T>` | `list<T>` |
//! | `HashMap<K, V>`, `BTreeMap<K, V>` | `list<tuple<K, V>>` |
//! | `(A, B, …)`, `Option<T>`, `Result<T, E>` | `tuple<A, B, …>`, `option<T>`, `result<T, E>` |
//! | `&T` | as `T`, copied |
//! | a struct the interface states (`struct Point { x: i32, y: i32 }`) | `record r{k} { m0: s32, m1: s32 }` |
//!
//! Anything else (`&mut T`, a raw pointer, a trait object, a closure or function, a type of the
//! solution's own the interface does not state) is refused with the item and parameter named:
//! nothing falls back to shared memory. A stated struct is defined in the test's crate
//! `solution` (with the derives its fields allow) and must be defined by the solution's crate
//! with the same public fields; each side converts its own struct field by field. The solution's side checks each function against its stated type (a solution with
//! another signature fails to build), converts with dixit's `Wire` trait
//! (`guest-sdk/rust/pair.rs`) and calls it; the test's side is the crate `solution` a test
//! uses, whose functions have the stated types and call the import.

use std::fmt::Write as _;

/// A Rust type as the interface carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    /// A WIT scalar (`s32`, `f64`, `bool`, `char`, …).
    Scalar(&'static str),
    /// `String` or `&str`.
    String,
    /// `Vec<T>`, `&[T]`, a set, or a map (a list of pairs).
    List(Box<Ty>),
    Option(Box<Ty>),
    Result(Box<Ty>, Box<Ty>),
    Tuple(Vec<Ty>),
    /// A struct the interface states: record `index`; `copy` when the bindings' record is
    /// `Copy` (all its fields are plain values), which is how they take it as a parameter.
    Record {
        index: usize,
        copy: bool,
    },
}

impl Ty {
    /// The WIT spelling.
    pub(crate) fn wit(&self) -> String {
        match self {
            Ty::Scalar(s) => s.to_string(),
            Ty::String => "string".into(),
            Ty::List(t) => format!("list<{}>", t.wit()),
            Ty::Option(t) => format!("option<{}>", t.wit()),
            Ty::Result(t, e) => format!("result<{}, {}>", t.wit(), e.wit()),
            Ty::Tuple(ts) => format!(
                "tuple<{}>",
                ts.iter().map(Ty::wit).collect::<Vec<_>>().join(", ")
            ),
            Ty::Record { index, .. } => super::wit::record_name(*index),
        }
    }

    /// Whether the bindings' type for it is `Copy` (no string or list inside).
    fn is_copy(&self) -> bool {
        match self {
            Ty::Scalar(_) => true,
            Ty::String | Ty::List(_) => false,
            Ty::Option(t) => t.is_copy(),
            Ty::Result(t, e) => t.is_copy() && e.is_copy(),
            Ty::Tuple(ts) => ts.iter().all(Ty::is_copy),
            Ty::Record { copy, .. } => *copy,
        }
    }

    fn any(&self, f: &dyn Fn(&Ty) -> bool) -> bool {
        f(self)
            || match self {
                Ty::List(t) | Ty::Option(t) => t.any(f),
                Ty::Result(t, e) => t.any(f) || e.any(f),
                Ty::Tuple(ts) => ts.iter().any(|t| t.any(f)),
                _ => false,
            }
    }

    /// The owned Rust type the bindings use for it (`Wire::W`).
    fn wire(&self) -> String {
        match self {
            Ty::Scalar(s) => match *s {
                "s8" => "i8".into(),
                "s16" => "i16".into(),
                "s32" => "i32".into(),
                "s64" => "i64".into(),
                other => other.into(),
            },
            Ty::String => "String".into(),
            Ty::List(t) => format!("Vec<{}>", t.wire()),
            Ty::Option(t) => format!("Option<{}>", t.wire()),
            Ty::Result(t, e) => format!("Result<{}, {}>", t.wire(), e.wire()),
            Ty::Tuple(ts) => format!(
                "({})",
                ts.iter().map(|t| t.wire() + ",").collect::<String>()
            ),
            Ty::Record { index, .. } => format!("exports::dixit::unit::api::R{index}"),
        }
    }

    /// An expression borrowing the owned wire value at `place` as the bindings' import
    /// parameter type (`&str`, `&[T]`, `Option<&str>`, `(&str, u8)`).
    fn borrowed(&self, place: &str) -> String {
        match self {
            Ty::Scalar(_) => place.to_string(),
            Ty::String => format!("{place}.as_str()"),
            Ty::List(_) => format!("{place}.as_slice()"),
            Ty::Option(t) => format!("{place}.as_ref().map(|x| {})", t.borrowed("(*x)")),
            Ty::Result(t, e) => format!(
                "{place}.as_ref().map(|x| {}).map_err(|x| {})",
                t.borrowed("(*x)"),
                e.borrowed("(*x)")
            ),
            Ty::Tuple(ts) => format!(
                "({})",
                ts.iter()
                    .enumerate()
                    .map(|(i, t)| t.borrowed(&format!("{place}.{i}")) + ",")
                    .collect::<String>()
            ),
            Ty::Record { copy: true, .. } => place.to_string(),
            Ty::Record { copy: false, .. } => format!("&{place}"),
        }
    }
}

/// A struct the interface states: its name, each field (name, Rust spelling, carried type),
/// and which traits its fields allow the test's copy to derive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RustRecord {
    pub name: String,
    pub fields: Vec<(String, String, Ty)>,
    /// No `f32`/`f64` inside: `Eq`.
    eq: bool,
    /// `Eq`, and no `HashMap`/`HashSet` inside: `Hash`, `PartialOrd`, `Ord`.
    ord: bool,
    /// No `HashMap`/`HashSet` inside: `PartialOrd`.
    partial_ord: bool,
    /// No `Result` inside: `Default`.
    default: bool,
}

impl RustRecord {
    /// Reads the fields of `struct NAME { FIELDS }` (`FIELDS`: `[pub] name: Type, …`), each a
    /// type the interface copies; `known` are the structs stated before it.
    pub(crate) fn parse(
        name: &str,
        fields: &str,
        known: &[RustRecord],
    ) -> Result<RustRecord, RustItemError> {
        let mut out: Vec<(String, String, Ty)> = Vec::new();
        let mut depth = 0i32;
        let mut parts = vec![String::new()];
        for c in fields.chars() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(String::new());
                    continue;
                }
                _ => {}
            }
            if let Some(p) = parts.last_mut() {
                p.push(c);
            }
        }
        for part in parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
            let part = part.strip_prefix("pub ").unwrap_or(part).trim();
            let Some((field, ty)) = part.split_once(':') else {
                return Err(RustItemError::FieldSyntax(part.to_string()));
            };
            let (field, ty) = (field.trim(), ty.trim());
            if !is_ident(field) {
                return Err(RustItemError::FieldName(field.to_string()));
            }
            if out.iter().any(|(f, _, _)| f == field) {
                return Err(RustItemError::FieldTwice(field.to_string()));
            }
            let toks = tokens(ty).map_err(|e| RustItemError::FieldText {
                field: field.to_string(),
                why: Box::new(e),
            })?;
            if toks.iter().any(|t| t == "&") {
                return Err(RustItemError::FieldBorrows {
                    field: field.to_string(),
                    ty: ty.to_string(),
                });
            }
            let mut p = Parser {
                toks,
                at: 0,
                records: known,
            };
            let t = p.ty().map_err(|e| RustItemError::FieldType {
                field: field.to_string(),
                ty: ty.to_string(),
                why: Box::new(e),
            })?;
            if let Some(t) = p.peek() {
                return Err(RustItemError::FieldTrailing {
                    field: field.to_string(),
                    token: t.to_string(),
                });
            }
            out.push((field.to_string(), p.spelled(0, p.toks.len()), t));
        }
        if out.is_empty() {
            return Err(RustItemError::NoFields);
        }
        let flag = |check: &dyn Fn(&RustRecord) -> bool, text: &dyn Fn(&Ty, &str) -> bool| {
            out.iter().all(|(_, spelled, t)| {
                !text(t, spelled)
                    && !t.any(&|u| match u {
                        Ty::Record { index, .. } => !check(&known[*index]),
                        _ => false,
                    })
            })
        };
        let hashed = |_: &Ty, s: &str| s.contains("HashMap") || s.contains("HashSet");
        let float = |t: &Ty, _: &str| t.any(&|u| matches!(u, Ty::Scalar("f32" | "f64")));
        let result = |t: &Ty, _: &str| t.any(&|u| matches!(u, Ty::Result(..)));
        let eq = flag(&|r| r.eq, &float);
        let partial_ord = flag(&|r| r.partial_ord, &hashed);
        Ok(RustRecord {
            name: name.to_string(),
            eq,
            ord: eq && partial_ord && flag(&|r| r.ord, &|_, _| false),
            partial_ord,
            default: flag(&|r| r.default, &result),
            fields: out,
        })
    }

    /// Whether the bindings' record is `Copy`.
    fn copy(&self) -> bool {
        self.fields.iter().all(|(_, _, t)| t.is_copy())
    }

    /// The traits the test's copy derives: what every field allows.
    fn derives(&self) -> String {
        let mut d = vec!["Debug", "Clone", "PartialEq"];
        if self.copy() {
            d.push("Copy");
        }
        if self.eq {
            d.push("Eq");
        }
        if self.partial_ord {
            d.push("PartialOrd");
        }
        if self.ord {
            d.extend(["Ord", "Hash"]);
        }
        if self.default {
            d.push("Default");
        }
        d.join(", ")
    }
}

/// Why a stated Rust item (a struct's fields, a function's type) cannot be read, or cannot be
/// copied between the test's component and the solution's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RustItemError {
    /// A character no Rust type has.
    #[error("unexpected `{0}` in the type")]
    Character(char),
    /// Another token, or the end, where `expected` must come.
    #[error("expected `{expected}`, found {}", found.as_ref().map_or("the end".into(), |t| format!("`{t}`")))]
    Expected {
        expected: &'static str,
        found: Option<String>,
    },
    /// A token that cannot start or continue a type.
    #[error("unexpected `{0}`")]
    Unexpected(String),
    /// The text ends where a type must come.
    #[error("a type is missing")]
    MissingType,
    /// `&mut T`.
    #[error(
        "a mutable reference cannot be copied between the test's memory \
         and the solution's: take the value and return the new one"
    )]
    MutableReference,
    /// `*const T`, `*mut T`.
    #[error("a raw pointer cannot be copied: state the values it points to")]
    RawPointer,
    /// `dyn Trait`, `impl Trait`.
    #[error("a trait object or `impl Trait` has no value to copy: state a concrete type")]
    TraitObject,
    /// `fn(..)`, `Fn(..)` and the other closure traits.
    #[error(
        "a function or closure cannot cross between two components: state the values \
         instead"
    )]
    Function,
    /// A tuple whose elements are not separated by `,`.
    #[error("expected `,` or `)` in a tuple")]
    TupleSeparator,
    /// `()` as a parameter or field.
    #[error("`()` carries nothing")]
    Unit,
    /// `[T; N]`.
    #[error("an array cannot be copied by its type alone: use `Vec<T>` or `&[T]`")]
    Array,
    /// `a::`.
    #[error("a path ends in `::`")]
    PathEnd,
    /// Generic arguments not separated by `,`.
    #[error("expected `,` or `>` in generic arguments")]
    GenericSeparator,
    /// A stated struct given type arguments.
    #[error("`{0}` takes no type arguments")]
    StructArguments(String),
    /// A built-in type with the wrong number of type arguments.
    #[error("`{name}` takes {count} type argument(s)")]
    Arity { name: String, count: usize },
    /// A type that is neither built in nor a struct stated before.
    #[error(
        "`{0}` is not a type dixit copies between the test's memory and the \
         solution's (numbers, bool, char, String and &str, Vec and &[T], tuples, Option, \
         Result, HashMap, BTreeMap, HashSet, BTreeSet, and a struct the interface states \
         before it: `struct {0} {{ field: Type, … }}`)"
    )]
    NotCopied(String),
    /// `for<` without its `>`.
    #[error("an unclosed `for<`")]
    UnclosedFor,
    /// A token in `for<…>` that is not a lifetime.
    #[error("unexpected `{0}` in `for<…>`")]
    InFor(String),
    /// An item whose type is not `fn(..)`.
    #[error(
        "only functions can be called across two components: state its type as \
         `fn(ARGS) -> RESULT`"
    )]
    NotAFunction,
    /// A parameter (`index` from 1, as written) that cannot be read or copied.
    #[error("parameter {index} (`{spelled}`): {why}")]
    Parameter {
        index: usize,
        spelled: String,
        why: Box<RustItemError>,
    },
    /// Parameters not separated by `,`.
    #[error("expected `,` or `)` after parameter {0}")]
    ParameterSeparator(usize),
    /// The result (as written) cannot be read or copied.
    #[error("the result (`{spelled}`): {why}")]
    Result {
        spelled: String,
        why: Box<RustItemError>,
    },
    /// Tokens after a complete function type.
    #[error("unexpected `{0}` after the function type")]
    AfterFunction(String),
    /// A struct field that is not `name: Type`.
    #[error("field `{0}`: expected `name: Type`")]
    FieldSyntax(String),
    /// A struct field whose name is not an identifier.
    #[error("field `{0}`: not a Rust identifier")]
    FieldName(String),
    /// A struct field stated twice.
    #[error("field `{0}` is stated twice")]
    FieldTwice(String),
    /// A struct field whose type has a character no Rust type has.
    #[error("field `{field}`: {why}")]
    FieldText {
        field: String,
        why: Box<RustItemError>,
    },
    /// A struct field that borrows.
    #[error(
        "field `{field}` (`{ty}`): a field owns its value (`String`, `Vec<T>`), it \
         cannot borrow"
    )]
    FieldBorrows { field: String, ty: String },
    /// A struct field whose type cannot be read or copied.
    #[error("field `{field}` (`{ty}`): {why}")]
    FieldType {
        field: String,
        ty: String,
        why: Box<RustItemError>,
    },
    /// Tokens after a struct field's type.
    #[error("field `{field}`: unexpected `{token}`")]
    FieldTrailing { field: String, token: String },
    /// A struct without fields.
    #[error("a struct with no fields carries nothing")]
    NoFields,
    /// Two items of one name.
    #[error("`{0}` is stated twice")]
    StatedTwice(String),
    /// A struct named as a type dixit carries or its glue uses.
    #[error("`{0}` names a type dixit already carries or uses; give the struct its own name")]
    ReservedName(String),
}

/// A Rust interface: the structs it states, then its functions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RustInterface {
    pub records: Vec<RustRecord>,
    pub functions: Vec<RustSignature>,
}

impl RustInterface {
    /// Reads `items`, each `(name, Some(fields))` for a struct or `(name, None)` with its
    /// function type; a struct must be stated before a struct or function that uses it. `Err`
    /// names the item's index and why.
    pub(crate) fn parse<'a>(
        items: impl Iterator<Item = (&'a str, Option<&'a str>, &'a str)>,
    ) -> Result<RustInterface, (usize, RustItemError)> {
        let mut out = RustInterface::default();
        for (k, (name, fields, ty)) in items.enumerate() {
            let taken = out.records.iter().any(|r| r.name == name)
                || out.functions.iter().any(|f| f.name == name);
            if taken {
                return Err((k, RustItemError::StatedTwice(name.to_string())));
            }
            if fields.is_some() && (BUILT_IN.contains(&name) || RESERVED.contains(&name)) {
                return Err((k, RustItemError::ReservedName(name.to_string())));
            }
            match fields {
                Some(fields) => {
                    let r = RustRecord::parse(name, fields, &out.records).map_err(|e| (k, e))?;
                    out.records.push(r);
                }
                None => {
                    let f =
                        RustSignature::parse_with(name, ty, &out.records).map_err(|e| (k, e))?;
                    out.functions.push(f);
                }
            }
        }
        Ok(out)
    }
}

/// One function of the interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RustSignature {
    pub name: String,
    /// `for<'a, …>` lifetimes, spelled as generics of the test's function.
    pub lifetimes: Vec<String>,
    /// (Rust spelling, carried type) of each parameter.
    pub params: Vec<(String, Ty)>,
    /// The result, if not `()`.
    pub ret: Option<(String, Ty)>,
}

impl RustSignature {
    /// Reads `fn(ARGS) -> RESULT` (optionally `for<'a> fn …`), the type of item `name`, where
    /// no struct is stated.
    #[cfg(test)]
    pub(crate) fn parse(name: &str, ty: &str) -> Result<RustSignature, RustItemError> {
        Self::parse_with(name, ty, &[])
    }

    /// [`RustSignature::parse`] where `records` are the structs the interface states.
    pub(crate) fn parse_with(
        name: &str,
        ty: &str,
        records: &[RustRecord],
    ) -> Result<RustSignature, RustItemError> {
        let toks = tokens(ty)?;
        let mut p = Parser {
            toks,
            at: 0,
            records,
        };
        let mut lifetimes = Vec::new();
        if p.eat("for") {
            p.expect("<")?;
            while !p.eat(">") {
                let t = p.next().ok_or(RustItemError::UnclosedFor)?;
                if t.starts_with('\'') {
                    lifetimes.push(t);
                } else if t != "," {
                    return Err(RustItemError::InFor(t));
                }
            }
        }
        if !p.eat("fn") {
            return Err(RustItemError::NotAFunction);
        }
        p.expect("(")?;
        let mut params = Vec::new();
        while !p.eat(")") {
            // A parameter may be named in a function pointer type (`fn(x: i32)`).
            if p.peek_at(1) == Some(":") && p.peek().is_some_and(is_ident) {
                p.at += 2;
            }
            let start = p.at;
            let t = p.ty().map_err(|e| RustItemError::Parameter {
                index: params.len() + 1,
                spelled: p.spelled(start, p.param_end(start)),
                why: Box::new(e),
            })?;
            params.push((p.spelled(start, p.at), t));
            if !p.eat(",") && p.peek() != Some(")") {
                return Err(RustItemError::ParameterSeparator(params.len()));
            }
        }
        let ret = if p.eat("->") {
            let start = p.at;
            if p.peek() == Some("(") && p.peek_at(1) == Some(")") {
                p.at += 2;
                None
            } else {
                let t = p.ty().map_err(|e| RustItemError::Result {
                    spelled: p.spelled(start, p.param_end(start)),
                    why: Box::new(e),
                })?;
                Some((p.spelled(start, p.at), t))
            }
        } else {
            None
        };
        if let Some(t) = p.peek() {
            return Err(RustItemError::AfterFunction(t.to_string()));
        }
        Ok(RustSignature {
            name: name.to_string(),
            lifetimes,
            params,
            ret,
        })
    }

    /// The item's type as written back (`fn(A, B) -> R`), for the solution's type check.
    fn fn_type(&self) -> String {
        let params: Vec<&str> = self.params.iter().map(|(s, _)| s.as_str()).collect();
        let ret = self
            .ret
            .as_ref()
            .map(|(s, _)| format!(" -> {s}"))
            .unwrap_or_default();
        let for_ = if self.lifetimes.is_empty() {
            String::new()
        } else {
            format!("for<{}> ", self.lifetimes.join(", "))
        };
        format!("{for_}fn({}){ret}", params.join(", "))
    }
}

/// The WIT world of `iface`: record `k` is `r{k}`, function `i` is `f{i}` of `dixit:unit/api`.
pub(super) fn rust_world(iface: &RustInterface) -> String {
    super::wit::api_world(
        iface.records.iter().map(|r| {
            let fields = r
                .fields
                .iter()
                .map(|(n, _, t)| (n.as_str(), t.wit()))
                .collect();
            (r.name.as_str(), fields)
        }),
        iface.functions.iter().map(|sig| {
            let params = sig.params.iter().map(|(_, t)| t.wit()).collect();
            (
                sig.name.as_str(),
                params,
                sig.ret.as_ref().map(|(_, t)| t.wit()),
            )
        }),
    )
}

/// `impl Wire` for record `k`'s struct `ty` (the test's or the solution's), whose bindings' type
/// is `wire`: field by field.
fn record_wire(s: &mut String, r: &RustRecord, ty: &str, wire: &str) {
    let to: Vec<String> = (0..r.fields.len())
        .map(|j| format!("m{j}: Wire::to_wire(self.{})", r.fields[j].0))
        .collect();
    let by_ref: Vec<String> = (0..r.fields.len())
        .map(|j| format!("m{j}: Wire::ref_to_wire(&self.{})", r.fields[j].0))
        .collect();
    let from: Vec<String> = (0..r.fields.len())
        .map(|j| format!("{}: Wire::from_wire(w.m{j})", r.fields[j].0))
        .collect();
    let _ = writeln!(
        s,
        "impl Wire for {ty} {{\n    type W = {wire};\n    \
         fn to_wire(self) -> {wire} {{\n        {wire} {{ {} }}\n    }}\n    \
         fn ref_to_wire(&self) -> {wire} {{\n        {wire} {{ {} }}\n    }}\n    \
         fn from_wire(w: {wire}) -> {ty} {{\n        {ty} {{ {} }}\n    }}\n}}\n",
        to.join(", "),
        by_ref.join(", "),
        from.join(", ")
    );
}

/// dixit's runtime for the glue crates (`dixit_rt`).
const RUNTIME: &str = include_str!("../../../guest-sdk/rust/pair.rs");

/// The start of a glue crate: `externs` (`extern crate` lines) after its attributes, the
/// bindings, the runtime, and the collections an interface may name unqualified.
fn header(externs: &str, bindings: &str) -> String {
    format!(
        "// Generated by dixit: the interface's calls, carried by value between two components.\n\
         #![allow(dead_code, unused, clippy::all)]\n{externs}{bindings}\n\
         pub mod dixit_rt {{\n{RUNTIME}\n}}\nuse dixit_rt::Wire;\n\
         use std::collections::{{BTreeMap, BTreeSet, HashMap, HashSet}};\n"
    )
}

/// The solution's glue crate (a `cdylib`): each export converts its arguments, calls the
/// solution crate's function through a pointer of the stated type (another signature does not
/// compile), and converts the result. `real` is the solution's crate name; `bindings` the
/// generator's code for the `dixit-solution` world.
pub(super) fn solution_glue(iface: &RustInterface, real: &str, bindings: &str) -> String {
    let mut s = header(&format!("extern crate {real};\n"), bindings);
    // The solution's own structs, which must have the stated public fields.
    for (k, r) in iface.records.iter().enumerate() {
        let _ = writeln!(s, "use ::{real}::{};", r.name);
        let ty = format!("::{real}::{}", r.name);
        record_wire(&mut s, r, &ty, &format!("exports::dixit::unit::api::R{k}"));
    }
    s.push_str(
        "struct DixitSolution;\n\nimpl exports::dixit::unit::api::Guest for DixitSolution {\n",
    );
    for (i, sig) in iface.functions.iter().enumerate() {
        let params: Vec<String> = sig
            .params
            .iter()
            .enumerate()
            .map(|(j, (_, t))| format!("p{j}: {}", t.wire()))
            .collect();
        let args: Vec<String> = (0..sig.params.len())
            .map(|j| format!("Wire::from_wire(p{j})"))
            .collect();
        let ret = sig
            .ret
            .as_ref()
            .map(|(_, t)| format!(" -> {}", t.wire()))
            .unwrap_or_default();
        // The solution's output flushed when the call returns: its component never ends.
        let call = format!("f({})", args.join(", "));
        let body = format!(
            "let r = {call};\n        let _ = std::io::Write::flush(&mut std::io::stdout());\n        \
             Wire::to_wire(r)"
        );
        let _ = writeln!(
            s,
            "    fn f{i}({}){ret} {{\n        let f: {} = ::{real}::{};\n        {body}\n    }}",
            params.join(", "),
            sig.fn_type(),
            sig.name,
        );
    }
    s.push_str(
        "}\n\nexport!(DixitSolution);\n\n\
         // Constructors once, when the component is instantiated: a module whose exports call\n\
         // `__wasm_call_ctors` themselves is given wrappers that run them (and the destructors)\n\
         // around every call.\n\
         unsafe extern \"C\" {\n    fn __wasm_call_ctors();\n}\n\n\
         #[unsafe(export_name = \"_initialize\")]\n\
         extern \"C\" fn dixit_initialize() {\n    unsafe { __wasm_call_ctors() }\n}\n",
    );
    s
}

/// The crate `solution` a Rust test uses: the interface's functions with their stated types,
/// each converting its arguments, calling the import (the solution's component) and converting
/// the result. `bindings` is the generator's code for the `dixit-test` world.
pub(super) fn test_facade(iface: &RustInterface, bindings: &str) -> String {
    let mut s = header("", bindings);
    // The stated structs, defined here for the test, with the derives their fields allow.
    for (k, r) in iface.records.iter().enumerate() {
        let fields: Vec<String> = r
            .fields
            .iter()
            .map(|(n, spelled, _)| format!("    pub {n}: {spelled},\n"))
            .collect();
        let _ = writeln!(
            s,
            "#[derive({})]\npub struct {} {{\n{}}}\n",
            r.derives(),
            r.name,
            fields.concat()
        );
        record_wire(&mut s, r, &r.name, &format!("dixit::unit::api::R{k}"));
    }
    for (i, sig) in iface.functions.iter().enumerate() {
        let generics = if sig.lifetimes.is_empty() {
            String::new()
        } else {
            format!("<{}>", sig.lifetimes.join(", "))
        };
        let params: Vec<String> = sig
            .params
            .iter()
            .enumerate()
            .map(|(j, (spelled, _))| format!("p{j}: {spelled}"))
            .collect();
        let ret = sig
            .ret
            .as_ref()
            .map(|(spelled, _)| format!(" -> {spelled}"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "pub fn {}{generics}({}){ret} {{",
            sig.name,
            params.join(", ")
        );
        for (j, (spelled, _)) in sig.params.iter().enumerate() {
            let _ = writeln!(s, "    let w{j} = <{spelled} as Wire>::to_wire(p{j});");
        }
        let args: Vec<String> = sig
            .params
            .iter()
            .enumerate()
            .map(|(j, (_, t))| t.borrowed(&format!("w{j}")))
            .collect();
        let call = format!("dixit::unit::api::f{i}({})", args.join(", "));
        match &sig.ret {
            Some((spelled, _)) => {
                let _ = writeln!(s, "    <{spelled} as Wire>::from_wire({call})\n}}\n");
            }
            None => {
                let _ = writeln!(s, "    {call};\n}}\n");
            }
        }
    }
    s
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && t.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
}

fn tokens(ty: &str) -> Result<Vec<String>, RustItemError> {
    let mut out = Vec::new();
    let b: Vec<char> = ty.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '_' || c.is_ascii_alphanumeric() || c == '\'' {
            let start = i;
            i += 1;
            while i < b.len() && (b[i] == '_' || b[i].is_ascii_alphanumeric()) {
                i += 1;
            }
            out.push(b[start..i].iter().collect());
        } else if (c == ':' || c == '-') && b.get(i + 1) == Some(&if c == ':' { ':' } else { '>' })
        {
            out.push(b[i..i + 2].iter().collect());
            i += 2;
        } else if "<>(),[]&*:!".contains(c) {
            out.push(c.to_string());
            i += 1;
        } else {
            return Err(RustItemError::Character(c));
        }
    }
    Ok(out)
}

struct Parser<'r> {
    toks: Vec<String>,
    at: usize,
    /// The structs stated so far.
    records: &'r [RustRecord],
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.at).map(String::as_str)
    }
    fn peek_at(&self, k: usize) -> Option<&str> {
        self.toks.get(self.at + k).map(String::as_str)
    }
    fn next(&mut self) -> Option<String> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }
    fn eat(&mut self, t: &str) -> bool {
        if self.peek() == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, t: &'static str) -> Result<(), RustItemError> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(RustItemError::Expected {
                expected: t,
                found: self.peek().map(str::to_string),
            })
        }
    }
    /// Where the parameter (or result) starting at `from` ends: the next `,` or `)` outside
    /// brackets, or the end.
    fn param_end(&self, from: usize) -> usize {
        let mut depth = 0i32;
        for (k, t) in self.toks.iter().enumerate().skip(from) {
            match t.as_str() {
                "<" | "(" | "[" => depth += 1,
                ">" | "]" => depth -= 1,
                ")" if depth == 0 => return k,
                ")" => depth -= 1,
                "," if depth == 0 => return k,
                _ => {}
            }
        }
        self.toks.len()
    }

    /// The tokens `from..to` joined as Rust spells them.
    fn spelled(&self, from: usize, to: usize) -> String {
        let mut s = String::new();
        for (k, t) in self.toks[from..to.min(self.toks.len())].iter().enumerate() {
            let prev = k.checked_sub(1).map(|p| self.toks[from + p].as_str());
            let glue = matches!(t.as_str(), "<" | ">" | "," | ")" | "]" | "::")
                || matches!(prev, Some("<" | "(" | "[" | "&" | "::" | "*") | None);
            if !glue {
                s.push(' ');
            }
            s.push_str(t);
        }
        s
    }

    fn ty(&mut self) -> Result<Ty, RustItemError> {
        let t = self.next().ok_or(RustItemError::MissingType)?;
        match t.as_str() {
            "&" => {
                if self.peek().is_some_and(|p| p.starts_with('\'')) {
                    self.at += 1;
                }
                if self.eat("mut") {
                    return Err(RustItemError::MutableReference);
                }
                if self.eat("str") {
                    return Ok(Ty::String);
                }
                if self.eat("[") {
                    let e = self.ty()?;
                    self.expect("]")?;
                    return Ok(Ty::List(Box::new(e)));
                }
                self.ty()
            }
            "*" => Err(RustItemError::RawPointer),
            "dyn" | "impl" => Err(RustItemError::TraitObject),
            "fn" | "Fn" | "FnMut" | "FnOnce" => Err(RustItemError::Function),
            "(" => {
                let mut ts = Vec::new();
                while !self.eat(")") {
                    ts.push(self.ty()?);
                    if !self.eat(",") && self.peek() != Some(")") {
                        return Err(RustItemError::TupleSeparator);
                    }
                }
                if ts.is_empty() {
                    return Err(RustItemError::Unit);
                }
                Ok(Ty::Tuple(ts))
            }
            "[" => Err(RustItemError::Array),
            _ if is_ident(&t) => {
                // A path: `std::collections::HashMap<K, V>` is read by its last segment.
                let mut last = t;
                while self.eat("::") {
                    last = self.next().ok_or(RustItemError::PathEnd)?;
                }
                let mut args = Vec::new();
                if self.eat("<") {
                    while !self.eat(">") {
                        if self.peek().is_some_and(|p| p.starts_with('\'')) {
                            self.at += 1;
                        } else {
                            args.push(self.ty()?);
                        }
                        if !self.eat(",") && self.peek() != Some(">") {
                            return Err(RustItemError::GenericSeparator);
                        }
                    }
                }
                if let Some(index) = self.records.iter().position(|r| r.name == last) {
                    if !args.is_empty() {
                        return Err(RustItemError::StructArguments(last));
                    }
                    return Ok(Ty::Record {
                        index,
                        copy: self.records[index].copy(),
                    });
                }
                named(&last, args)
            }
            other => Err(RustItemError::Unexpected(other.to_string())),
        }
    }
}

/// The type names [`named`] reads (a stated struct may not take one).
const BUILT_IN: [&str; 24] = [
    "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "f32", "f64", "bool",
    "char", "String", "str", "Vec", "HashSet", "BTreeSet", "Option", "Result", "HashMap",
    "BTreeMap", "Box",
];

/// Names the glue crates use themselves.
const RESERVED: [&str; 2] = ["Wire", "DixitSolution"];

fn named(name: &str, mut args: Vec<Ty>) -> Result<Ty, RustItemError> {
    let scalar = |w: &'static str| Ok(Ty::Scalar(w));
    let arity = |n: usize, args: &Vec<Ty>| {
        if args.len() == n {
            Ok(())
        } else {
            Err(RustItemError::Arity {
                name: name.to_string(),
                count: n,
            })
        }
    };
    match name {
        "i8" => scalar("s8"),
        "i16" => scalar("s16"),
        "i32" => scalar("s32"),
        "i64" | "isize" => scalar("s64"),
        "u8" => scalar("u8"),
        "u16" => scalar("u16"),
        "u32" => scalar("u32"),
        "u64" | "usize" => scalar("u64"),
        "f32" => scalar("f32"),
        "f64" => scalar("f64"),
        "bool" => scalar("bool"),
        "char" => scalar("char"),
        "String" | "str" => Ok(Ty::String),
        "Vec" | "HashSet" | "BTreeSet" => {
            arity(1, &args)?;
            Ok(Ty::List(Box::new(args.remove(0))))
        }
        "Option" => {
            arity(1, &args)?;
            Ok(Ty::Option(Box::new(args.remove(0))))
        }
        "Result" => {
            arity(2, &args)?;
            let e = args.remove(1);
            Ok(Ty::Result(Box::new(args.remove(0)), Box::new(e)))
        }
        "HashMap" | "BTreeMap" => {
            arity(2, &args)?;
            Ok(Ty::List(Box::new(Ty::Tuple(args))))
        }
        other => Err(RustItemError::NotCopied(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn benchmark_signatures_become_wit() {
        let s = RustSignature::parse("f", "fn(Vec<f32>, f32) -> bool").unwrap();
        assert_eq!(
            s.params[0],
            ("Vec<f32>".into(), Ty::List(Box::new(Ty::Scalar("f32"))))
        );
        let s = RustSignature::parse("h", "fn(&str) -> HashMap<char, i32>").unwrap();
        assert_eq!(
            rust_world(&RustInterface {
                records: vec![],
                functions: vec![s]
            })
            .lines()
            .nth(4)
            .unwrap()
            .trim(),
            "f0: func(p0: string) -> list<tuple<char, s32>>;"
        );
        let s = RustSignature::parse(
            "g",
            "for<'a> fn(x: &'a Vec<f64>, y: (i32, i32)) -> Option<&'a str>",
        )
        .unwrap();
        assert_eq!(s.lifetimes, vec!["'a".to_string()]);
        assert_eq!(s.params[0].0, "&'a Vec<f64>");
        assert_eq!(
            s.fn_type(),
            "for<'a> fn(&'a Vec<f64>, (i32, i32)) -> Option<&'a str>"
        );
        let s = RustSignature::parse("u", "fn(Vec<String>)").unwrap();
        assert_eq!(s.ret, None);
    }

    #[test]
    fn what_cannot_be_copied_is_refused_with_the_parameter_named() {
        for (ty, needle) in [
            (
                "fn(&mut Vec<i32>)",
                "parameter 1 (`&mut Vec<i32>`): a mutable reference",
            ),
            (
                "fn(i32, &dyn Any) -> bool",
                "parameter 2 (`&dyn Any`): a trait object",
            ),
            (
                "fn(Vec<Box<dyn Any>>) -> Vec<i32>",
                "parameter 1 (`Vec<Box<dyn Any>>`)",
            ),
            ("fn(Foo) -> i32", "`Foo` is not a type"),
            ("fn(*const u8) -> i32", "a raw pointer"),
            ("fn(fn(i32) -> i32) -> i32", "a function or closure"),
            ("fn(i32) -> RtnType<String, f64, i32>", "the result"),
            ("i32", "only functions"),
        ] {
            let e = RustSignature::parse("f", ty).unwrap_err().to_string();
            assert!(e.contains(needle), "{ty}: {e}");
        }
    }

    #[test]
    fn stated_structs_become_records_with_the_derives_their_fields_allow() {
        let items = [
            ("Point", Some("x: i32, pub y: i32"), ""),
            ("Weighted", Some("at: Point, w: f64"), ""),
            (
                "Named",
                Some("name: String, tags: HashSet<String>, at: Point"),
                "",
            ),
            ("f", None, "fn(&Named, Point) -> Option<Weighted>"),
        ];
        let i = RustInterface::parse(items.into_iter()).unwrap();
        assert_eq!(
            i.records[0].derives(),
            "Debug, Clone, PartialEq, Copy, Eq, PartialOrd, Ord, Hash, Default"
        );
        assert_eq!(
            i.records[1].derives(),
            "Debug, Clone, PartialEq, Copy, PartialOrd, Default"
        );
        assert_eq!(
            i.records[2].derives(),
            "Debug, Clone, PartialEq, Eq, Default"
        );
        let w = rust_world(&i);
        assert!(w.contains("record r2 {"), "{w}");
        assert!(w.contains("m1: list<string>,"), "{w}");
        assert!(w.contains("m2: r0,"), "{w}");
        assert!(w.contains("f0: func(p0: r2, p1: r0) -> option<r1>;"), "{w}");
        // The bindings take a `Copy` record by value and any other by reference.
        let (_, t) = &i.functions[0].params[0];
        assert_eq!(t.borrowed("w0"), "&w0");
        let (_, t) = &i.functions[0].params[1];
        assert_eq!(t.borrowed("w1"), "w1");
        let e = RustInterface::parse([("f", None, "fn(Point) -> i32")].into_iter()).unwrap_err();
        assert!(e.1.to_string().contains("`Point` is not a type"), "{e:?}");
    }

    #[test]
    fn the_test_side_borrows_as_the_bindings_take_parameters() {
        let t = Ty::Option(Box::new(Ty::Tuple(vec![Ty::String, Ty::Scalar("u8")])));
        assert_eq!(
            t.borrowed("w0"),
            "w0.as_ref().map(|x| ((*x).0.as_str(),(*x).1,))"
        );
        assert_eq!(t.wire(), "Option<(String,u8,)>");
    }
}
