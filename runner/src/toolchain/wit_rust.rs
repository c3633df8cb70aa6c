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
//!
//! Anything else (`&mut T`, a raw pointer, a trait object, a closure or function, a type of the
//! solution's own) is refused with the item and parameter named: nothing falls back to shared
//! memory. The solution's side checks each function against its stated type (a solution with
//! another signature fails to build), converts with dixit's `Wire` trait
//! (`guest-sdk/rust/pair.rs`) and calls it; the test's side is the crate `solution` a test
//! uses, whose functions have the stated types and call the import.

use std::fmt::Write as _;

/// A Rust type as the interface carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A WIT scalar (`s32`, `f64`, `bool`, `char`, …).
    Scalar(&'static str),
    /// `String` or `&str`.
    String,
    /// `Vec<T>`, `&[T]`, a set, or a map (a list of pairs).
    List(Box<Ty>),
    Option(Box<Ty>),
    Result(Box<Ty>, Box<Ty>),
    Tuple(Vec<Ty>),
}

impl Ty {
    /// The WIT spelling.
    pub fn wit(&self) -> String {
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
        }
    }
}

/// One function of the interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RustSignature {
    pub name: String,
    /// `for<'a, …>` lifetimes, spelled as generics of the test's function.
    pub lifetimes: Vec<String>,
    /// (Rust spelling, carried type) of each parameter.
    pub params: Vec<(String, Ty)>,
    /// The result, if not `()`.
    pub ret: Option<(String, Ty)>,
}

impl RustSignature {
    /// Reads `fn(ARGS) -> RESULT` (optionally `for<'a> fn …`), the type of item `name`.
    pub fn parse(name: &str, ty: &str) -> Result<RustSignature, String> {
        let toks = tokens(ty)?;
        let mut p = Parser { toks, at: 0 };
        let mut lifetimes = Vec::new();
        if p.eat("for") {
            p.expect("<")?;
            while !p.eat(">") {
                let t = p.next().ok_or("an unclosed `for<`")?;
                if t.starts_with('\'') {
                    lifetimes.push(t);
                } else if t != "," {
                    return Err(format!("unexpected `{t}` in `for<…>`"));
                }
            }
        }
        if !p.eat("fn") {
            return Err(
                "only functions can be called across two components: state its type as \
                 `fn(ARGS) -> RESULT`"
                    .into(),
            );
        }
        p.expect("(")?;
        let mut params = Vec::new();
        while !p.eat(")") {
            // A parameter may be named in a function pointer type (`fn(x: i32)`).
            if p.peek_at(1) == Some(":") && p.peek().is_some_and(is_ident) {
                p.at += 2;
            }
            let start = p.at;
            let t = p.ty().map_err(|e| {
                format!(
                    "parameter {} (`{}`): {e}",
                    params.len() + 1,
                    p.spelled(start, p.param_end(start))
                )
            })?;
            params.push((p.spelled(start, p.at), t));
            if !p.eat(",") && p.peek() != Some(")") {
                return Err(format!(
                    "expected `,` or `)` after parameter {}",
                    params.len()
                ));
            }
        }
        let ret = if p.eat("->") {
            let start = p.at;
            if p.peek() == Some("(") && p.peek_at(1) == Some(")") {
                p.at += 2;
                None
            } else {
                let t = p.ty().map_err(|e| {
                    format!(
                        "the result (`{}`): {e}",
                        p.spelled(start, p.param_end(start))
                    )
                })?;
                Some((p.spelled(start, p.at), t))
            }
        } else {
            None
        };
        if let Some(t) = p.peek() {
            return Err(format!("unexpected `{t}` after the function type"));
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

/// The WIT world of `sigs`: function `i` is `f{i}` of `dixit:unit/api`.
pub fn rust_world(sigs: &[RustSignature]) -> String {
    super::wit::api_world(sigs.iter().map(|sig| {
        let params = sig.params.iter().map(|(_, t)| t.wit()).collect();
        (
            sig.name.as_str(),
            params,
            sig.ret.as_ref().map(|(_, t)| t.wit()),
        )
    }))
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
pub fn solution_glue(sigs: &[RustSignature], real: &str, bindings: &str) -> String {
    let mut s = header(&format!("extern crate {real};\n"), bindings);
    s.push_str(
        "struct DixitSolution;\n\nimpl exports::dixit::unit::api::Guest for DixitSolution {\n",
    );
    for (i, sig) in sigs.iter().enumerate() {
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
pub fn test_facade(sigs: &[RustSignature], bindings: &str) -> String {
    let mut s = header("", bindings);
    for (i, sig) in sigs.iter().enumerate() {
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

fn tokens(ty: &str) -> Result<Vec<String>, String> {
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
            return Err(format!("unexpected `{c}` in the type"));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<String>,
    at: usize,
}

impl Parser {
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
    fn expect(&mut self, t: &str) -> Result<(), String> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(format!(
                "expected `{t}`, found {}",
                self.peek().map_or("the end".into(), |p| format!("`{p}`"))
            ))
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

    fn ty(&mut self) -> Result<Ty, String> {
        let t = self.next().ok_or("a type is missing")?;
        match t.as_str() {
            "&" => {
                if self.peek().is_some_and(|p| p.starts_with('\'')) {
                    self.at += 1;
                }
                if self.eat("mut") {
                    return Err(
                        "a mutable reference cannot be copied between the test's memory \
                                and the solution's: take the value and return the new one"
                            .into(),
                    );
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
            "*" => Err("a raw pointer cannot be copied: state the values it points to".into()),
            "dyn" | "impl" => Err(
                "a trait object or `impl Trait` has no value to copy: state a concrete type".into(),
            ),
            "fn" | "Fn" | "FnMut" | "FnOnce" => Err(
                "a function or closure cannot cross between two components: state the values \
                 instead"
                    .into(),
            ),
            "(" => {
                let mut ts = Vec::new();
                while !self.eat(")") {
                    ts.push(self.ty()?);
                    if !self.eat(",") && self.peek() != Some(")") {
                        return Err("expected `,` or `)` in a tuple".into());
                    }
                }
                if ts.is_empty() {
                    return Err("`()` carries nothing".into());
                }
                Ok(Ty::Tuple(ts))
            }
            "[" => {
                Err("an array cannot be copied by its type alone: use `Vec<T>` or `&[T]`".into())
            }
            _ if is_ident(&t) => {
                // A path: `std::collections::HashMap<K, V>` is read by its last segment.
                let mut last = t;
                while self.eat("::") {
                    last = self.next().ok_or("a path ends in `::`")?;
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
                            return Err("expected `,` or `>` in generic arguments".into());
                        }
                    }
                }
                named(&last, args)
            }
            other => Err(format!("unexpected `{other}`")),
        }
    }
}

fn named(name: &str, mut args: Vec<Ty>) -> Result<Ty, String> {
    let scalar = |w: &'static str| Ok(Ty::Scalar(w));
    let arity = |n: usize, args: &Vec<Ty>| {
        if args.len() == n {
            Ok(())
        } else {
            Err(format!("`{name}` takes {n} type argument(s)"))
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
        other => Err(format!(
            "`{other}` is not a type dixit copies between the test's memory and the \
             solution's (numbers, bool, char, String and &str, Vec and &[T], tuples, Option, \
             Result, HashMap, BTreeMap, HashSet, BTreeSet)"
        )),
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
            rust_world(&[s]).lines().nth(4).unwrap().trim(),
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
            let e = RustSignature::parse("f", ty).unwrap_err();
            assert!(e.contains(needle), "{ty}: {e}");
        }
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
