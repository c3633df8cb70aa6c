//! A C++ interface header as a WIT world, and the C++ glue that carries its calls by value (the
//! C++ counterpart of `wit.rs`, whose world and worlds' names it shares).
//!
//! | C++ | WIT |
//! |---|---|
//! | `int`, `long long`, `char`, `float`, `double`, `bool`, … | `s32`, `s64`, `s8`, `f32`, `f64`, `bool`, … |
//! | `string` | `string` |
//! | `vector<T>` | `list<T>` |
//! | `pair<A, B>` | `tuple<A, B>` |
//! | `map<K, V>` | `list<tuple<K, V>>` |
//! | `optional<T>` | `option<T>` |
//! | a `struct` the header defines (public data fields of these types) | `record r{k} { m0: …, … }` |
//!
//! Types may be written with `std::`, `const` and `&`; every value is copied (a `vector<int>&`
//! the callee changes is not changed for the caller). A raw pointer, `void *`, a callback, a
//! class with private fields or a base, `boost::any` or any other type is refused with the
//! parameter named.
//!
//! The glue names none of the bindings' C types: it takes them from the bindings' function
//! declarations (`decltype`), and converts with overloads on the C++ side's types.

use std::fmt::Write as _;

use super::wit::{declarations, record_name, tokenize_header, Scalar, Side, WitError};
use super::wit_struct::{struct_definitions, FieldReader, Records, StructError};

/// A C++ type that crosses by value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CppType {
    Scalar(Scalar),
    String,
    List(Box<CppType>),
    Pair(Box<CppType>, Box<CppType>),
    Map(Box<CppType>, Box<CppType>),
    /// `std::optional<T>`: WIT's `option<T>`. At the top of a parameter or result the C
    /// bindings carry it as a nullable pointer or a `bool` result; nested, as `{is_some, val}`.
    Optional(Box<CppType>),
    /// A struct the header defines: record `k` of the interface.
    Record(usize),
}

impl CppType {
    fn wit(&self) -> String {
        match self {
            CppType::Scalar(s) => s.wit().to_string(),
            CppType::String => "string".into(),
            CppType::List(t) => format!("list<{}>", t.wit()),
            CppType::Pair(a, b) => format!("tuple<{}, {}>", a.wit(), b.wit()),
            CppType::Map(k, v) => format!("list<tuple<{}, {}>>", k.wit(), v.wit()),
            CppType::Optional(t) => format!("option<{}>", t.wit()),
            CppType::Record(k) => record_name(*k),
        }
    }

    fn is_scalar(&self) -> bool {
        matches!(self, CppType::Scalar(_))
    }
}

/// One function of a C++ interface: its name, each parameter's type as the header spells it
/// and as it crosses, and its result (`None`: `void`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CppSignature {
    pub name: String,
    pub params: Vec<(String, CppType)>,
    pub ret: Option<(String, CppType)>,
}

/// A struct of the header as a record: its C++ name and its fields (name, type).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CppRecord {
    pub name: String,
    pub fields: Vec<(String, CppType)>,
}

/// What a C++ header gives a test: the structs its functions use, and its functions.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct CppInterface {
    pub records: Vec<CppRecord>,
    pub functions: Vec<CppSignature>,
}

/// C++ reads a struct field as any type that crosses (a struct defined before this one too).
struct CppFields;

impl FieldReader for CppFields {
    type Field = CppType;
    fn field(
        &self,
        recs: &mut Records<'_, CppType>,
        before: usize,
        ty: &[String],
    ) -> Result<CppType, StructError> {
        let toks: Vec<&str> = ty.iter().map(String::as_str).collect();
        if toks.contains(&"*") || toks.contains(&"&") {
            return Err(StructError::CppPointer);
        }
        parse_type(&toks, recs, before)?.ok_or(StructError::CppField)
    }
}

/// The functions a C++ header declares, in order, and the structs they use; what cannot cross
/// is refused by name.
pub(super) fn parse_cpp_header(text: &str) -> Result<CppInterface, WitError> {
    let raw = struct_definitions(&tokenize_header(text));
    let mut recs = Records::new(&raw);
    let mut out: Vec<CppSignature> = Vec::new();
    for decl in declarations(text) {
        let decl = plain_declaration(decl);
        let Some(first) = decl.first().map(String::as_str) else {
            continue;
        };
        if matches!(
            first,
            "typedef" | "using" | "template" | "class" | "struct" | "enum"
        ) {
            continue;
        }
        let sig = cpp_declaration(&decl, &mut recs)?;
        if out.iter().any(|s| s.name == sig.name) {
            return Err(WitError::Declaration(format!(
                "`{}` is declared twice (an overloaded function cannot cross: give each its own \
                 name)",
                sig.name
            )));
        }
        out.push(sig);
    }
    let records = recs.finish(|raw, fields| CppRecord {
        name: raw.cpp_spelling(),
        fields,
    });
    Ok(CppInterface {
        records,
        functions: out,
    })
}

/// A declaration without what does not change how its values cross: attribute specifiers
/// (`[[nodiscard]]`, anywhere) and a trailing `noexcept`.
fn plain_declaration(tokens: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut k = 0;
    while k < tokens.len() {
        if tokens[k] == "[" && tokens.get(k + 1).map(String::as_str) == Some("[") {
            // Skip to the `]` `]` that closes it.
            let mut depth = 0i32;
            while k < tokens.len() {
                match tokens[k].as_str() {
                    "[" => depth += 1,
                    "]" => depth -= 1,
                    _ => {}
                }
                k += 1;
                if depth == 0 {
                    break;
                }
            }
            continue;
        }
        out.push(tokens[k].clone());
        k += 1;
    }
    if out.last().map(String::as_str) == Some("noexcept") {
        out.pop();
    }
    out
}

fn cpp_declaration(
    tokens: &[String],
    recs: &mut Records<'_, CppType>,
) -> Result<CppSignature, WitError> {
    let text = tokens.join(" ");
    let Some(open) = tokens.iter().position(|t| t == "(") else {
        let name = tokens.last().cloned().unwrap_or_default();
        return Err(WitError::Declaration(format!(
            "`{name}`: a variable cannot be shared between the test and the solution (each has \
             its own memory); declare a function that returns it instead"
        )));
    };
    if open == 0 || tokens.last().map(String::as_str) != Some(")") {
        return Err(WitError::Declaration(format!(
            "`{text}`: not a function prototype dixit can read"
        )));
    }
    let name = tokens[open - 1].clone();
    let ret_tokens: Vec<&str> = tokens[..open - 1]
        .iter()
        .map(String::as_str)
        .filter(|t| !matches!(*t, "extern" | "static" | "inline"))
        .collect();
    let ret = if ret_tokens == ["void"] {
        None
    } else {
        let refused = |instead: String| WitError::Type {
            function: name.clone(),
            what: "the result".into(),
            ty: spell(&ret_tokens),
            instead,
        };
        let ty = parse_type(&ret_tokens, recs, recs.struct_count())
            .map_err(|e| refused(e.to_string()))?
            .ok_or_else(|| {
                refused(
                    "return a number, `bool`, `string`, a struct the header defines, or a \
                     `vector`, `pair`, `map` or `optional` of those"
                        .into(),
                )
            })?;
        Some((spell(&ret_tokens), ty))
    };
    let mut params = Vec::new();
    let inner = &tokens[open + 1..tokens.len() - 1];
    let mut depth = 0usize;
    let mut cur: Vec<&str> = Vec::new();
    let mut raw: Vec<Vec<&str>> = Vec::new();
    for t in inner {
        match t.as_str() {
            "(" | "[" | "<" => depth += 1,
            ")" | "]" | ">" => depth = depth.saturating_sub(1),
            "," if depth == 0 => {
                raw.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(t);
    }
    if !cur.is_empty() {
        raw.push(cur);
    }
    if raw.len() == 1 && raw[0] == ["void"] {
        raw.clear();
    }
    for (k, p) in raw.iter().enumerate() {
        let (ty_tokens, pname) = match p.split_last() {
            Some((last, rest))
                if !rest.is_empty()
                    && is_ident(last)
                    && !matches!(
                        *last,
                        "int"
                            | "long"
                            | "short"
                            | "char"
                            | "float"
                            | "double"
                            | "bool"
                            | "string"
                            | "unsigned"
                            | "signed"
                    ) =>
            {
                (rest.to_vec(), Some(*last))
            }
            _ => (p.clone(), None),
        };
        let refused = |instead: String| WitError::Type {
            function: name.clone(),
            what: match pname {
                Some(n) => format!("parameter `{n}`"),
                None => format!("parameter {}", k + 1),
            },
            ty: spell(&ty_tokens),
            instead,
        };
        let ty = if ty_tokens.contains(&"*") {
            None
        } else {
            parse_type(&ty_tokens, recs, recs.struct_count()).map_err(|e| refused(e.to_string()))?
        };
        let ty = ty.ok_or_else(|| {
            refused(if ty_tokens.contains(&"*") {
                "a raw pointer has no extent the host can copy; pass a `vector<T>`, a `string` \
                 or a struct by value"
                    .into()
            } else {
                "only numbers, `bool`, `string`, structs the header defines, and `vector`, \
                 `pair`, `map` and `optional` of those cross; pass those"
                    .into()
            })
        })?;
        params.push((spell(&ty_tokens), ty));
    }
    Ok(CppSignature { name, params, ret })
}

/// A type from its tokens (`const`, `&`, `std::`, `struct` allowed): `Ok(None)` when it
/// cannot cross, `Err` when it names one of the first `limit` structs that cannot (why).
fn parse_type(
    tokens: &[&str],
    recs: &mut Records<'_, CppType>,
    limit: usize,
) -> Result<Option<CppType>, StructError> {
    let toks: Vec<&str> = tokens
        .iter()
        .copied()
        .filter(|t| !matches!(*t, "const" | "&" | "std" | ":" | "volatile" | "struct"))
        .collect();
    let mut pos = 0;
    let ty = parse_at(&toks, &mut pos, recs, limit)?;
    Ok(ty.filter(|_| pos == toks.len()))
}

fn parse_at(
    toks: &[&str],
    pos: &mut usize,
    recs: &mut Records<'_, CppType>,
    limit: usize,
) -> Result<Option<CppType>, StructError> {
    let Some(head) = toks.get(*pos).copied() else {
        return Ok(None);
    };
    Ok(match head {
        "string" => {
            *pos += 1;
            Some(CppType::String)
        }
        "vector" => {
            *pos += 1;
            let Some(mut a) = type_args(toks, pos, 1, recs, limit)? else {
                return Ok(None);
            };
            Some(CppType::List(Box::new(a.remove(0))))
        }
        "pair" => {
            *pos += 1;
            let Some(mut a) = type_args(toks, pos, 2, recs, limit)? else {
                return Ok(None);
            };
            let b = a.remove(1);
            Some(CppType::Pair(Box::new(a.remove(0)), Box::new(b)))
        }
        "map" => {
            *pos += 1;
            let Some(mut a) = type_args(toks, pos, 2, recs, limit)? else {
                return Ok(None);
            };
            let v = a.remove(1);
            Some(CppType::Map(Box::new(a.remove(0)), Box::new(v)))
        }
        "optional" => {
            *pos += 1;
            let Some(mut a) = type_args(toks, pos, 1, recs, limit)? else {
                return Ok(None);
            };
            Some(CppType::Optional(Box::new(a.remove(0))))
        }
        name if recs.struct_count() > 0
            && is_ident(name)
            && Scalar::of_words(&[name]).is_none() =>
        {
            match recs.resolve(&[name], true, &CppFields, limit)? {
                Some(r) => {
                    *pos += 1;
                    Some(CppType::Record(r))
                }
                None => None,
            }
        }
        _ => {
            let start = *pos;
            while toks.get(*pos).is_some_and(|t| {
                matches!(
                    *t,
                    "unsigned"
                        | "signed"
                        | "long"
                        | "short"
                        | "int"
                        | "char"
                        | "float"
                        | "double"
                        | "bool"
                        | "size_t"
                        | "int8_t"
                        | "uint8_t"
                        | "int16_t"
                        | "uint16_t"
                        | "int32_t"
                        | "uint32_t"
                        | "int64_t"
                        | "uint64_t"
                )
            }) {
                *pos += 1;
            }
            Scalar::of_words(&toks[start..*pos]).map(CppType::Scalar)
        }
    })
}

/// `<A, B>` at `pos`: `n` type arguments.
fn type_args(
    toks: &[&str],
    pos: &mut usize,
    n: usize,
    recs: &mut Records<'_, CppType>,
    limit: usize,
) -> Result<Option<Vec<CppType>>, StructError> {
    if toks.get(*pos) != Some(&"<") {
        return Ok(None);
    }
    *pos += 1;
    let mut out = Vec::new();
    for i in 0..n {
        if i > 0 {
            if toks.get(*pos) != Some(&",") {
                return Ok(None);
            }
            *pos += 1;
        }
        match parse_at(toks, pos, recs, limit)? {
            Some(t) => out.push(t),
            None => return Ok(None),
        }
    }
    if toks.get(*pos) != Some(&">") {
        return Ok(None);
    }
    *pos += 1;
    Ok(Some(out))
}

/// Type tokens as C++ source again (`std : : string` is `std::string`).
fn spell(tokens: &[&str]) -> String {
    tokens
        .join(" ")
        .replace(" : : ", "::")
        .replace(": : ", "::")
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && t.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// The interface `dixit:unit/api` holding `cpp`'s records and functions, with the worlds of
/// `wit::world`.
pub(super) fn cpp_world(cpp: &CppInterface) -> String {
    super::wit::api_world(
        cpp.records.iter().map(|r| {
            let fields = r
                .fields
                .iter()
                .map(|(n, t)| (n.as_str(), t.wit()))
                .collect();
            (r.name.as_str(), fields)
        }),
        cpp.functions.iter().map(|sig| {
            let params = sig.params.iter().map(|(_, t)| t.wit()).collect();
            (
                sig.name.as_str(),
                params,
                sig.ret.as_ref().map(|(_, t)| t.wit()),
            )
        }),
    )
}

/// Conversions between the C++ types and the bindings' C types, shared by both sides: first
/// declared (the records' conversions are declared after these), then defined.
const HELPER_DECLARATIONS: &str = r#"
namespace dixit_glue {
// The solution's output flushed when each call returns: its component is never ended, so what
// its standard I/O buffered would otherwise be lost.
struct flush_after { ~flush_after() { std::fflush(nullptr); } };
template <class F> struct sig;
template <class R, class... A> struct sig<R (*)(A...)> {
  using ret = R;
  template <std::size_t I> using raw = std::tuple_element_t<I, std::tuple<A...>>;
  template <std::size_t I> using arg = std::remove_pointer_t<raw<I>>;
};
// Every overload declared before any is defined: they call one another for nested types, and
// argument-dependent lookup does not find them from the bindings' types.
template <class O, class T, std::enable_if_t<std::is_arithmetic<T>::value, int> = 0>
void lower(O &o, T v);
template <class O> void lower(O &o, const std::string &s);
template <class O, class T> void lower(O &o, const std::vector<T> &v);
template <class O, class A, class B> void lower(O &o, const std::pair<A, B> &p);
template <class O, class K, class V> void lower(O &o, const std::map<K, V> &m);
template <class O, class T> void lower(O &o, const std::optional<T> &v);
template <class I, class T, std::enable_if_t<std::is_arithmetic<T>::value, int> = 0>
void lift(const I &i, T &out);
template <class I> void lift(const I &i, std::string &out);
template <class I, class T> void lift(const I &i, std::vector<T> &out);
template <class I, class A, class B> void lift(const I &i, std::pair<A, B> &out);
template <class I, class K, class V> void lift(const I &i, std::map<K, V> &out);
template <class I, class T> void lift(const I &i, std::optional<T> &out);
template <class T, std::enable_if_t<std::is_arithmetic<T>::value, int> = 0> void release(T &);
template <class I> auto release(I &i) -> decltype(i.len, void());
template <class I> auto release(I &i) -> decltype(i.f0, i.f1, void());
template <class I> auto release(I &i) -> decltype(i.is_some, i.val, void());
}  // namespace dixit_glue
"#;

const HELPER_DEFINITIONS: &str = r#"
namespace dixit_glue {
template <class O, class T, std::enable_if_t<std::is_arithmetic<T>::value, int>>
void lower(O &o, T v) { o = (O) v; }
template <class O> void lower(O &o, const std::string &s) {
  o.ptr = (uint8_t *) std::malloc(s.size() ? s.size() : 1);
  if (!o.ptr) std::abort();
  if (s.size()) std::memcpy(o.ptr, s.data(), s.size());
  o.len = s.size();
}
template <class O, class T> void lower(O &o, const std::vector<T> &v) {
  using E = std::remove_pointer_t<decltype(o.ptr)>;
  o.ptr = (E *) std::malloc(sizeof(E) * (v.size() ? v.size() : 1));
  if (!o.ptr) std::abort();
  o.len = v.size();
  for (std::size_t k = 0; k < v.size(); k++) { T e = v[k]; lower(o.ptr[k], e); }
}
template <class O, class A, class B> void lower(O &o, const std::pair<A, B> &p) {
  lower(o.f0, p.first);
  lower(o.f1, p.second);
}
template <class O, class K, class V> void lower(O &o, const std::map<K, V> &m) {
  using E = std::remove_pointer_t<decltype(o.ptr)>;
  o.ptr = (E *) std::malloc(sizeof(E) * (m.size() ? m.size() : 1));
  if (!o.ptr) std::abort();
  o.len = m.size();
  std::size_t k = 0;
  for (const auto &kv : m) { lower(o.ptr[k].f0, kv.first); lower(o.ptr[k].f1, kv.second); k++; }
}
template <class I, class T, std::enable_if_t<std::is_arithmetic<T>::value, int>>
void lift(const I &i, T &out) { out = (T) i; }
template <class I> void lift(const I &i, std::string &out) {
  out.assign((const char *) i.ptr, i.len);
}
template <class I, class T> void lift(const I &i, std::vector<T> &out) {
  out.clear();
  out.reserve(i.len);
  for (std::size_t k = 0; k < i.len; k++) { T e; lift(i.ptr[k], e); out.push_back(e); }
}
template <class I, class A, class B> void lift(const I &i, std::pair<A, B> &out) {
  lift(i.f0, out.first);
  lift(i.f1, out.second);
}
template <class I, class K, class V> void lift(const I &i, std::map<K, V> &out) {
  out.clear();
  for (std::size_t k = 0; k < i.len; k++) {
    K key; V val;
    lift(i.ptr[k].f0, key);
    lift(i.ptr[k].f1, val);
    out[key] = val;
  }
}
template <class T, std::enable_if_t<std::is_arithmetic<T>::value, int>> void release(T &) {}
template <class I> auto release(I &i) -> decltype(i.len, void()) {
  for (std::size_t k = 0; k < i.len; k++) release(i.ptr[k]);
  if (i.len) std::free(i.ptr);
  i.ptr = nullptr;
  i.len = 0;
}
template <class I> auto release(I &i) -> decltype(i.f0, i.f1, void()) {
  release(i.f0);
  release(i.f1);
}
template <class O, class T> void lower(O &o, const std::optional<T> &v) {
  o.is_some = v.has_value();
  if (v) lower(o.val, *v);
}
template <class I, class T> void lift(const I &i, std::optional<T> &out) {
  out.reset();
  if (i.is_some) { T e; lift(i.val, e); out = std::move(e); }
}
template <class I> auto release(I &i) -> decltype(i.is_some, i.val, void()) {
  if (i.is_some) release(i.val);
  i.is_some = false;
}
}  // namespace dixit_glue
"#;

/// The C++ glue of `side` for `sigs` (see `wit::c_glue`).
pub(super) fn cpp_glue(cpp: &CppInterface, side: Side, headers: &[String]) -> String {
    let world = side.c_prefix();
    let mut s = String::from(
        "// Generated by dixit: the interface's calls, carried by value between two components.\n\
         #include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <map>\n#include <optional>\n\
         #include <string>\n#include <tuple>\n#include <type_traits>\n#include <utility>\n\
         #include <vector>\n",
    );
    for h in headers {
        let _ = writeln!(s, "#include \"{h}\"");
    }
    let _ = writeln!(s, "#include \"{world}.h\"");
    s.push_str(HELPER_DECLARATIONS);
    record_conversions(&mut s, &cpp.records, side);
    s.push_str(HELPER_DEFINITIONS);
    let _ = writeln!(
        s,
        "extern \"C\" void __component_type_object_force_link_{world}(void) {{}}\n"
    );
    s.push_str(super::wit::EXIT);
    if side == Side::Test {
        s.push_str(super::wit::TEST_ENTRY);
    }
    for (i, sig) in cpp.functions.iter().enumerate() {
        match side {
            Side::Test => test_function(&mut s, i, sig),
            Side::Solution => solution_export(&mut s, i, sig),
        }
    }
    s
}

/// Each record's conversions on `side` (in `dixit_glue`, between the helpers' declarations and
/// their definitions, as overloads on the bindings' record type): field by field.
fn record_conversions(s: &mut String, records: &[CppRecord], side: Side) {
    let p = side.api_prefix();
    for (k, r) in records.iter().enumerate() {
        let b = format!("{p}_{}_t", record_name(k));
        let name = &r.name;
        let mut lower = String::new();
        let mut lift = String::new();
        let mut release = String::new();
        for (j, (field, _)) in r.fields.iter().enumerate() {
            let _ = write!(lower, " lower(o.m{j}, v.{field});");
            let _ = write!(lift, " lift(i.m{j}, out.{field});");
            let _ = write!(release, " release(i.m{j});");
        }
        let _ = writeln!(
            s,
            "namespace dixit_glue {{\n\
             void lower({b} &o, const {name} &v);\n\
             void lift(const {b} &i, {name} &out);\n\
             void release({b} &i);\n\
             }}  // namespace dixit_glue"
        );
        let _ = writeln!(
            s,
            "namespace dixit_glue {{\n\
             void lower({b} &o, const {name} &v) {{{lower} }}\n\
             void lift(const {b} &i, {name} &out) {{{lift} }}\n\
             void release({b} &i) {{{release} }}\n\
             }}  // namespace dixit_glue\n"
        );
    }
}

fn test_function(s: &mut String, i: usize, sig: &CppSignature) {
    let import = format!("dixit_unit_api_f{i}");
    let params: Vec<String> = sig
        .params
        .iter()
        .enumerate()
        .map(|(j, (spelled, _))| format!("{spelled} a{j}"))
        .collect();
    let ret = sig
        .ret
        .as_ref()
        .map_or("void".to_string(), |(r, _)| r.clone());
    let _ = writeln!(
        s,
        "{ret} {}({}) {{\n  using S = dixit_glue::sig<decltype(&{import})>;",
        sig.name,
        params.join(", ")
    );
    let mut args = Vec::new();
    let mut release = String::new();
    for (j, (_, t)) in sig.params.iter().enumerate() {
        if t.is_scalar() {
            let _ = writeln!(s, "  S::raw<{j}> v{j}; dixit_glue::lower(v{j}, a{j});");
            args.push(format!("v{j}"));
        } else if matches!(t, CppType::Optional(_)) {
            // A nullable pointer to the value.
            let _ = writeln!(
                s,
                "  S::arg<{j}> v{j}; bool s{j} = a{j}.has_value();\n  \
                 if (s{j}) dixit_glue::lower(v{j}, *a{j});"
            );
            args.push(format!("s{j} ? &v{j} : nullptr"));
            let _ = writeln!(release, "  if (s{j}) dixit_glue::release(v{j});");
        } else {
            let _ = writeln!(s, "  S::arg<{j}> v{j}; dixit_glue::lower(v{j}, a{j});");
            args.push(format!("&v{j}"));
            let _ = writeln!(release, "  dixit_glue::release(v{j});");
        }
    }
    let n = sig.params.len();
    match &sig.ret {
        None => {
            let _ = writeln!(s, "  {import}({});\n{release}}}\n", args.join(", "));
        }
        Some((_, t)) if t.is_scalar() => {
            let _ = writeln!(
                s,
                "  auto r = {import}({});\n{release}  {ret} out; dixit_glue::lift(r, out);\n  \
                 return out;\n}}\n",
                args.join(", ")
            );
        }
        Some((_, CppType::Optional(_))) => {
            // `bool` says whether the value was written to `r`.
            args.push("&r".into());
            let _ = writeln!(
                s,
                "  S::arg<{n}> r;\n  bool some = {import}({});\n{release}  \
                 std::remove_cv_t<std::remove_reference_t<{ret}>> out;\n  \
                 if (some) {{\n    typename decltype(out)::value_type e;\n    \
                 dixit_glue::lift(r, e);\n    dixit_glue::release(r);\n    out = std::move(e);\n  }}\n  \
                 return out;\n}}\n",
                args.join(", ")
            );
        }
        Some(_) => {
            args.push("&r".into());
            let _ = writeln!(
                s,
                "  S::arg<{n}> r;\n  {import}({});\n{release}  \
                 std::remove_cv_t<std::remove_reference_t<{ret}>> out;\n  \
                 dixit_glue::lift(r, out);\n  dixit_glue::release(r);\n  return out;\n}}\n",
                args.join(", ")
            );
        }
    }
}

fn solution_export(s: &mut String, i: usize, sig: &CppSignature) {
    let export = format!("exports_dixit_unit_api_f{i}");
    let n = sig.params.len();
    let mut params: Vec<String> = (0..n).map(|j| format!("S{i}::raw<{j}> a{j}")).collect();
    let has_out = sig.ret.as_ref().is_some_and(|(_, t)| !t.is_scalar());
    if has_out {
        params.push(format!("S{i}::raw<{n}> ret"));
    }
    let ret_c = match &sig.ret {
        Some((_, t)) if t.is_scalar() => format!("S{i}::ret"),
        Some((_, CppType::Optional(_))) => "bool".into(),
        _ => "void".into(),
    };
    let _ = writeln!(
        s,
        "using S{i} = dixit_glue::sig<decltype(&{export})>;\nextern \"C\" {ret_c} {export}({}) {{\n  \
         dixit_glue::flush_after flush;",
        params.join(", ")
    );
    let mut args = Vec::new();
    for (j, (spelled, t)) in sig.params.iter().enumerate() {
        let _ = writeln!(
            s,
            "  std::remove_cv_t<std::remove_reference_t<{spelled}>> c{j};"
        );
        if t.is_scalar() {
            let _ = writeln!(s, "  dixit_glue::lift(a{j}, c{j});");
        } else if matches!(t, CppType::Optional(_)) {
            // A nullable pointer to the value.
            let _ = writeln!(
                s,
                "  if (a{j}) {{\n    typename decltype(c{j})::value_type e;\n    \
                 dixit_glue::lift(*a{j}, e);\n    dixit_glue::release(*a{j});\n    \
                 c{j} = std::move(e);\n  }}"
            );
        } else {
            let _ = writeln!(
                s,
                "  dixit_glue::lift(*a{j}, c{j});\n  dixit_glue::release(*a{j});"
            );
        }
        args.push(format!("c{j}"));
    }
    let call = format!("{}({})", sig.name, args.join(", "));
    match &sig.ret {
        None => {
            let _ = writeln!(s, "  {call};\n}}\n");
        }
        Some((_, t)) if t.is_scalar() => {
            let _ = writeln!(
                s,
                "  {ret_c} r; dixit_glue::lower(r, {call});\n  return r;\n}}\n"
            );
        }
        Some((_, CppType::Optional(_))) => {
            let _ = writeln!(
                s,
                "  auto r = {call};\n  if (!r) return false;\n  \
                 dixit_glue::lower(*ret, *r);\n  return true;\n}}\n"
            );
        }
        Some(_) => {
            let _ = writeln!(s, "  dixit_glue::lower(*ret, {call});\n}}\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_and_noexcept_do_not_change_a_signature() {
        let plain = parse_cpp_header("#include<vector>\nstd::vector<int> f(std::vector<int> x);\n")
            .unwrap();
        let marked = parse_cpp_header(
            "#include<vector>\n[[nodiscard]] std::vector<int> f([[maybe_unused]] std::vector<int> x) noexcept;\n",
        )
        .unwrap();
        assert_eq!(cpp_world(&plain), cpp_world(&marked));
        assert_eq!(marked.functions[0].name, "f");
    }

    #[test]
    fn humaneval_x_shapes_become_a_world() {
        let sigs = parse_cpp_header(
            "#pragma once\n#include<vector>\nusing namespace std;\n\
             bool has_close_elements(vector<float> numbers, float threshold);\n\
             map<char,int> histogram(string test);\n\
             int max_fill(vector<vector<int>> grid,int capacity);\n\
             long long special(const std::vector<long long>& v);\n\
             pair<int, string> both(void);\n\
             std::optional<string> maybe(optional<int> id, vector<optional<long>> v);\n",
        )
        .unwrap();
        let w = cpp_world(&sigs);
        assert!(
            w.contains("f0: func(p0: list<f32>, p1: f32) -> bool;"),
            "{w}"
        );
        assert!(
            w.contains("f1: func(p0: string) -> list<tuple<s8, s32>>;"),
            "{w}"
        );
        assert!(
            w.contains("f2: func(p0: list<list<s32>>, p1: s32) -> s32;"),
            "{w}"
        );
        assert!(w.contains("f3: func(p0: list<s64>) -> s64;"), "{w}");
        assert!(w.contains("f4: func() -> tuple<s32, string>;"), "{w}");
        assert!(
            w.contains("f5: func(p0: option<s32>, p1: list<option<s32>>) -> option<string>;"),
            "{w}"
        );
        assert_eq!(
            sigs.functions[3].params[0].0,
            "const std::vector < long long > &"
        );
    }

    #[test]
    fn structs_become_records_field_by_field() {
        let cpp = parse_cpp_header(
            "#include <string>\nstruct Point { int x, y; };\n\
             struct Named {\n  std::string name;\n  Point at;\n  std::vector<Point> path;\n  \
             static const int N = 3;\n  Named() = default;\n  \
             int size() const { return (int) path.size(); }\n};\n\
             struct Unused { int *p; };\n\
             Named walk(const Named &n, vector<Point> steps, optional<Point> last);\n",
        )
        .unwrap();
        assert_eq!(cpp.records.len(), 2);
        assert_eq!(cpp.records[0].name, "Point");
        let w = cpp_world(&cpp);
        assert!(w.contains("record r0 {"), "{w}");
        assert!(w.contains("m1: s32,"), "{w}");
        assert!(w.contains("m0: string,"), "{w}");
        assert!(w.contains("m1: r0,"), "{w}");
        assert!(w.contains("m2: list<r0>,"), "{w}");
        assert!(
            w.contains("f0: func(p0: r1, p1: list<r0>, p2: option<r0>) -> r1;"),
            "{w}"
        );
        let glue = cpp_glue(&cpp, Side::Solution, &["solution.hpp".into()]);
        assert!(
            glue.contains("void lower(exports_dixit_unit_api_r1_t &o, const Named &v)"),
            "{glue}"
        );
    }

    #[test]
    fn what_cannot_be_copied_is_refused_by_name() {
        for (header, named) in [
            ("int sum(const int *a, int n);", "parameter `a`"),
            ("boost::any pick(vector<boost::any> v);", "the result"),
            ("int f(vector<boost::any> values);", "parameter `values`"),
            ("int f(void *p);", "parameter `p`"),
            ("int f(int x);\nint f(double x);", "declared twice"),
            ("extern int expected;", "`expected`"),
            (
                "struct P { int *p; };\nint f(P p);",
                "parameter `p` `P` cannot be copied between the test's memory and the \
                 solution's: its field `p` (`int *`)",
            ),
            (
                "class P { int x; };\nint f(P p);",
                "its field `int x` is not public",
            ),
            ("struct P { int a[3]; };\nP f();", "an array"),
            ("struct P : Base { int x; };\nint f(P p);", "base class"),
            ("struct E {};\nint f(E e);", "no fields"),
            (
                "struct L { std::vector<L> next; };\nint f(L l);",
                "its field `next`",
            ),
        ] {
            let e = parse_cpp_header(header).unwrap_err().to_string();
            assert!(e.contains(named), "{header}: {e}");
        }
    }
}
