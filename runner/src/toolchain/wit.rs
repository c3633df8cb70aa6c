//! A C interface header as a WIT world, and the C glue that carries its calls by value.
//!
//! A compiled unit test and its solution are two components with their own memories (see
//! `component.rs`); they meet at the interface `dixit:unit/api`, which the solution's component
//! exports and the test's imports. This module reads the function prototypes of the project's
//! header ([`Signature::parse_header`]) and writes that interface in WIT ([`world`]), then the
//! glue each side compiles with the bindings generator's output ([`c_glue`]): on the test's side
//! the header's functions, each calling the import; on the solution's side each export, calling
//! the solution's function of the header. Only what can be copied is accepted:
//!
//! | C | WIT | how it crosses |
//! |---|---|---|
//! | `int`, `long`, `short`, `char`, their `unsigned` forms, `<stdint.h>` types, `size_t` | `s32`, `u32`, … | by value |
//! | `bool`, `float`, `double` | `bool`, `f32`, `f64` | by value |
//! | `const char *` (parameter) | `option<string>` | copied in, NUL-terminated on the far side; `NULL` stays `NULL` |
//! | `char *` or `const char *` (result) | `option<string>` | copied out into the caller's `malloc`ed memory |
//! | `const T *p, INT n` (`T` a number type) | `list<T>` | the `n` elements at `p`, copied in |
//! | `struct S` (or its `typedef` name), parameter or result | `record r{k} { m0: …, … }` | field by field (numbers, `bool`, structs) |
//! | `const struct S *p, INT n` | `list<r{k}>` | the `n` structs at `p`, copied in |
//!
//! Anything else (a pointer of unknown extent, `char *` that the callee may write, `void *`, a
//! struct with a pointer or array field, an array, a callback, `...`, a global variable) is
//! refused with the parameter named and what to state instead ([`WitError`]): nothing falls back
//! to shared memory.

use std::fmt::Write as _;

use super::wit_struct::{struct_definitions, FieldReader, Records, StructError};

/// Why a header's declaration cannot cross between two components.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum WitError {
    /// A declaration that is not a function prototype dixit can read.
    #[error("{0}")]
    Declaration(String),
    /// A parameter or result that cannot be copied between two memories.
    #[error("`{function}`: {what} `{ty}` cannot be copied between the test's memory and the solution's: {instead}")]
    Type {
        function: String,
        what: String,
        ty: String,
        instead: String,
    },
}

/// A scalar that crosses by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    S8,
    U8,
    S16,
    U16,
    S32,
    U32,
    S64,
    U64,
    F32,
    F64,
    Bool,
}

impl Scalar {
    pub(crate) fn wit(self) -> &'static str {
        match self {
            Scalar::S8 => "s8",
            Scalar::U8 => "u8",
            Scalar::S16 => "s16",
            Scalar::U16 => "u16",
            Scalar::S32 => "s32",
            Scalar::U32 => "u32",
            Scalar::S64 => "s64",
            Scalar::U64 => "u64",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::Bool => "bool",
        }
    }

    /// The C type the bindings generator uses for it.
    fn binding_c(self) -> &'static str {
        match self {
            Scalar::S8 => "int8_t",
            Scalar::U8 => "uint8_t",
            Scalar::S16 => "int16_t",
            Scalar::U16 => "uint16_t",
            Scalar::S32 => "int32_t",
            Scalar::U32 => "uint32_t",
            Scalar::S64 => "int64_t",
            Scalar::U64 => "uint64_t",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
            Scalar::Bool => "bool",
        }
    }

    fn is_integer(self) -> bool {
        !matches!(self, Scalar::F32 | Scalar::F64 | Scalar::Bool)
    }

    /// The scalar a C type's words name (`const` and `volatile` already gone).
    pub(crate) fn of_words(words: &[&str]) -> Option<Scalar> {
        let mut w: Vec<&str> = words.to_vec();
        w.sort_unstable();
        let joined = w.join(" ");
        Some(match joined.as_str() {
            "char" | "char signed" | "int8_t" => Scalar::S8,
            "char unsigned" | "uint8_t" => Scalar::U8,
            "short" | "int short" | "short signed" | "int short signed" | "int16_t" => Scalar::S16,
            "short unsigned" | "int short unsigned" | "uint16_t" => Scalar::U16,
            "int" | "signed" | "int signed" | "long" | "int long" | "long signed"
            | "int long signed" | "int32_t" | "ssize_t" | "ptrdiff_t" => Scalar::S32,
            "unsigned" | "int unsigned" | "long unsigned" | "int long unsigned" | "uint32_t"
            | "size_t" => Scalar::U32,
            "long long"
            | "int long long"
            | "long long signed"
            | "int long long signed"
            | "int64_t" => Scalar::S64,
            "long long unsigned" | "int long long unsigned" | "uint64_t" => Scalar::U64,
            "float" => Scalar::F32,
            "double" => Scalar::F64,
            "_Bool" | "bool" => Scalar::Bool,
            _ => return None,
        })
    }
}

/// How one C parameter (or two: a pointer and its length) crosses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Param {
    /// A scalar, with the C type as the header spells it.
    Scalar { c: String, scalar: Scalar },
    /// `const char *`: a NUL-terminated string, copied in.
    String,
    /// `const T *p, INT n`: `n` elements, copied in (`c` spells `T`, `len_c` the length's type).
    List {
        c: String,
        scalar: Scalar,
        len_c: String,
    },
    /// A struct by value (`c` spells its type), record `rec` of the interface.
    Record { c: String, rec: usize },
    /// `const S *p, INT n`: `n` structs, copied in.
    RecordList {
        c: String,
        rec: usize,
        len_c: String,
    },
}

/// What a function returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ret {
    Void,
    Scalar {
        c: String,
        scalar: Scalar,
    },
    /// `char *` or `const char *`: copied out.
    String {
        c: String,
    },
    /// A struct by value, record `rec`.
    Record {
        c: String,
        rec: usize,
    },
}

/// A C struct as a record: how C spells it and its fields (name, how it crosses).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CRecord {
    pub c: String,
    pub fields: Vec<(String, CField)>,
}

/// A struct field that crosses: a number or `bool`, or another struct (record index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CField {
    Scalar { c: String, scalar: Scalar },
    Record(usize),
}

/// What a C header gives a test: its structs that functions use, as records, and its functions.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct CInterface {
    pub records: Vec<CRecord>,
    pub functions: Vec<Signature>,
}

/// C reads a struct field as a number or an earlier struct.
struct CFields;

impl FieldReader for CFields {
    type Field = CField;
    fn field(
        &self,
        recs: &mut Records<'_, CField>,
        before: usize,
        ty: &[String],
    ) -> Result<CField, StructError> {
        let words: Vec<&str> = ty
            .iter()
            .map(String::as_str)
            .filter(|t| !QUALIFIERS.contains(t))
            .collect();
        if words.contains(&"*") {
            return Err(StructError::CPointer);
        }
        if let Some(scalar) = Scalar::of_words(&words) {
            return Ok(CField::Scalar {
                c: words.join(" "),
                scalar,
            });
        }
        match recs.resolve(&words, false, self, before)? {
            Some(r) => Ok(CField::Record(r)),
            None => Err(StructError::CField),
        }
    }
}

/// One function of the interface: its C name, how its arguments cross, its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Signature {
    pub name: String,
    pub params: Vec<Param>,
    pub ret: Ret,
}

impl Signature {
    /// The functions a C header declares, in order. Comments, preprocessor lines, `extern
    /// "C"` and definitions with a body (inline functions, struct definitions: each side
    /// compiles its own copy) are skipped; every other declaration must be a prototype whose
    /// types cross by value.
    pub(crate) fn parse_header(text: &str) -> Result<CInterface, WitError> {
        let raw = struct_definitions(&tokenize_header(text));
        let mut recs = Records::new(&raw);
        let mut out: Vec<Signature> = Vec::new();
        for decl in declarations(text) {
            if let Some(sig) = declaration(&decl, &mut recs)? {
                if out.iter().any(|s| s.name == sig.name) {
                    return Err(WitError::Declaration(format!(
                        "`{}` is declared twice",
                        sig.name
                    )));
                }
                out.push(sig);
            }
        }
        let records = recs.finish(|raw, fields| CRecord {
            c: raw.c_spelling(),
            fields,
        });
        Ok(CInterface {
            records,
            functions: out,
        })
    }

    /// The WIT function's name: `f` and its position (C names need not be WIT identifiers).
    fn wit_name(index: usize) -> String {
        format!("f{index}")
    }
}

/// The interface `dixit:unit/api` holding `c`'s records and functions, and the worlds
/// `dixit-solution` (exports it) and `dixit-test` (imports it).
pub(super) fn world(c: &CInterface) -> String {
    let records = c.records.iter().map(|r| {
        let fields = r
            .fields
            .iter()
            .map(|(name, f)| {
                let ty = match f {
                    CField::Scalar { scalar, .. } => scalar.wit().to_string(),
                    CField::Record(k) => record_name(*k),
                };
                (name.as_str(), ty)
            })
            .collect();
        (r.c.as_str(), fields)
    });
    api_world(
        records,
        c.functions.iter().map(|sig| {
            let params = sig
                .params
                .iter()
                .map(|p| match p {
                    Param::Scalar { scalar, .. } => scalar.wit().to_string(),
                    Param::String => "option<string>".into(),
                    Param::List { scalar, .. } => format!("list<{}>", scalar.wit()),
                    Param::Record { rec, .. } => record_name(*rec),
                    Param::RecordList { rec, .. } => format!("list<{}>", record_name(*rec)),
                })
                .collect();
            let ret = match &sig.ret {
                Ret::Void => None,
                Ret::Scalar { scalar, .. } => Some(scalar.wit().to_string()),
                Ret::String { .. } => Some("option<string>".into()),
                Ret::Record { rec, .. } => Some(record_name(*rec)),
            };
            (sig.name.as_str(), params, ret)
        }),
    )
}

/// Record `k`'s name in WIT (`r{k}`; field `j` is `m{j}`): C, C++ and Rust names need not be
/// WIT identifiers.
pub(super) fn record_name(k: usize) -> String {
    format!("r{k}")
}

/// The WIT of an interface: its records, each `(the type as the source names it, its fields'
/// (name, WIT type))`, record `k` being `r{k}` with fields `m0`, `m1`, …; and its functions,
/// each `(name, parameter types, result type)` in WIT, function `i` being `f{i}` of
/// `dixit:unit/api` and parameter `j` `p{j}`; the worlds `dixit-solution` (exports it) and
/// `dixit-test` (imports it). C, C++ and Rust share it.
pub(super) fn api_world<'a, 'b>(
    records: impl Iterator<Item = (&'b str, Vec<(&'b str, String)>)>,
    functions: impl Iterator<Item = (&'a str, Vec<String>, Option<String>)>,
) -> String {
    let mut s = String::from("package dixit:unit;\n\ninterface api {\n");
    for (k, (name, fields)) in records.enumerate() {
        let fields: Vec<String> = fields
            .iter()
            .enumerate()
            .map(|(j, (field, t))| format!("    /// `{field}`\n    m{j}: {t},\n"))
            .collect();
        let _ = write!(
            s,
            "  /// `{name}`\n  record {} {{\n{}  }}\n",
            record_name(k),
            fields.concat()
        );
    }
    for (i, (name, params, ret)) in functions.enumerate() {
        let params: Vec<String> = params
            .iter()
            .enumerate()
            .map(|(j, t)| format!("p{j}: {t}"))
            .collect();
        let _ = write!(
            s,
            "  /// `{name}`\n  {}: func({})",
            Signature::wit_name(i),
            params.join(", ")
        );
        if let Some(t) = ret {
            let _ = write!(s, " -> {t}");
        }
        s.push_str(";\n");
    }
    s.push_str(
        "}\n\nworld dixit-solution {\n  export api;\n}\n\nworld dixit-test {\n  import api;\n}\n",
    );
    s
}

/// Which side a piece of glue is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// Defines the header's functions, each calling the import.
    Test,
    /// Defines the exports, each calling the solution's function.
    Solution,
}

impl Side {
    /// The name of this side's world in WIT.
    pub(crate) fn world(self) -> &'static str {
        match self {
            Side::Test => "dixit-test",
            Side::Solution => "dixit-solution",
        }
    }

    /// The prefix of the C bindings' names for the interface's own types on this side
    /// (`dixit_unit_api_r0_t` where imported, `exports_dixit_unit_api_r0_t` where exported).
    pub(crate) fn api_prefix(self) -> &'static str {
        match self {
            Side::Test => "dixit_unit_api",
            Side::Solution => "exports_dixit_unit_api",
        }
    }

    /// The prefix of the C bindings of this side's world (`dixit_test.h`, `dixit_test_…`).
    pub(crate) fn c_prefix(self) -> &'static str {
        match self {
            Side::Test => "dixit_test",
            Side::Solution => "dixit_solution",
        }
    }
}

/// The C glue of `side` for `sigs`: compiled with the bindings of that side's world
/// (`dixit_solution.h` / `dixit_test.h`) and the interface headers (`headers`, included by name).
pub(super) fn c_glue(c: &CInterface, side: Side, headers: &[String]) -> String {
    let world = side.c_prefix();
    let mut s = String::from(
        "// Generated by dixit: the interface's calls, carried by value between two components.\n\
         #include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <stdbool.h>\n#include <stdint.h>\n",
    );
    for h in headers {
        let _ = writeln!(s, "#include \"{h}\"");
    }
    let _ = writeln!(s, "#include \"{world}.h\"\n");
    // The bindings ask for their world's type object; the world is embedded after linking.
    let _ = writeln!(
        s,
        "void __component_type_object_force_link_{world}(void) {{}}\n"
    );
    // A copy of `len` bytes at `p`, NUL-terminated, in this side's memory.
    let _ = writeln!(
        s,
        "static char *dixit_cstr(const uint8_t *p, size_t len) {{\n  \
         char *c = (char *)malloc(len + 1);\n  if (!c) abort();\n  \
         if (len) memcpy(c, p, len);\n  c[len] = 0;\n  return c;\n}}\n"
    );
    s.push_str(EXIT);
    match side {
        Side::Test => s.push_str(TEST_ENTRY),
        Side::Solution => s.push_str(FLUSH),
    }
    record_conversions(&mut s, &c.records, side);
    for (i, sig) in c.functions.iter().enumerate() {
        match side {
            Side::Test => test_function(&mut s, i, sig),
            Side::Solution => solution_export(&mut s, i, sig),
        }
    }
    s
}

/// Each record's two conversions on `side`: `dixit_lower_r{k}` (the C struct into the bindings'
/// record) and `dixit_lift_r{k}` (back), field by field. A record's fields use only earlier
/// records, so each function is defined before it is called.
fn record_conversions(s: &mut String, records: &[CRecord], side: Side) {
    let p = side.api_prefix();
    for (k, r) in records.iter().enumerate() {
        let b = format!("{p}_{}_t", record_name(k));
        let mut lower = String::new();
        let mut lift = String::new();
        for (j, (name, f)) in r.fields.iter().enumerate() {
            match f {
                CField::Scalar { c, scalar } => {
                    let _ = writeln!(lower, "  o.m{j} = ({}) v->{name};", scalar.binding_c());
                    let _ = writeln!(lift, "  v.{name} = ({c}) i->m{j};");
                }
                CField::Record(n) => {
                    let _ = writeln!(lower, "  o.m{j} = dixit_lower_r{n}(&v->{name});");
                    let _ = writeln!(lift, "  v.{name} = dixit_lift_r{n}(&i->m{j});");
                }
            }
        }
        let c = &r.c;
        let _ = writeln!(
            s,
            "static {b} dixit_lower_r{k}(const {c} *v) {{\n  {b} o;\n  memset(&o, 0, sizeof o);\n\
             {lower}  return o;\n}}\n\n\
             static {c} dixit_lift_r{k}(const {b} *i) {{\n  {c} v;\n  memset(&v, 0, sizeof v);\n\
             {lift}  return v;\n}}\n"
        );
    }
}

/// The test's entry, in the test's glue (C and C++). The test is linked as a reactor, so its
/// constructors run once when its component is instantiated; `_start` (what the command
/// adapter's `wasi:cli/run` calls) runs `main` and the destructors, as a command's start does.
/// Linked as a command, every other export (`cabi_realloc`) would run the constructors and
/// destructors again around each call: `std::cout` was destroyed by the first string copied.
/// The solution's output flushed when each call returns (C): its component is never ended, so
/// what its standard I/O buffered would otherwise be lost.
const FLUSH: &str =
    "static void dixit_flush(int *unused) {\n  (void) unused;\n  fflush(NULL);\n}\n\n";
const FLUSH_GUARD: &str = "  int dixit_flush_guard __attribute__((cleanup(dixit_flush))) = 0;\n";

/// Each side's `_Exit` (linked with `--wrap=_Exit`): WASI preview 2's exit carries only success
/// or failure, so an exit code other than 0 and 1 would reach the host as 1 (a failed check);
/// as in one module, it is a crash: the code on stderr, then a trap.
pub(super) const EXIT: &str = "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\
void __real__Exit(int);\n\
void __wrap__Exit(int code) {\n  \
if (code != 0 && code != 1) {\n    fprintf(stderr, \"exit code %d\\n\", code);\n    \
__builtin_trap();\n  }\n  __real__Exit(code);\n  __builtin_trap();\n}\n\
#ifdef __cplusplus\n}\n#endif\n\n";

pub(super) const TEST_ENTRY: &str = "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\
int __main_void(void);\nvoid __wasm_call_dtors(void);\n\
__attribute__((export_name(\"_start\"))) void dixit_test_start(void) {\n  \
int r = __main_void();\n  __wasm_call_dtors();\n  if (r != 0) exit(r);\n}\n\
#ifdef __cplusplus\n}\n#endif\n\n";

/// The header's function on the test's side: arguments into the bindings' types, the import
/// called, the result back into the header's type.
fn test_function(s: &mut String, i: usize, sig: &Signature) {
    let import = format!("dixit_unit_api_{}", Signature::wit_name(i));
    let mut params = Vec::new();
    let mut setup = String::new();
    let mut cleanup = String::new();
    let mut args = Vec::new();
    for (j, p) in sig.params.iter().enumerate() {
        match p {
            Param::Scalar { c, scalar } => {
                params.push(format!("{c} a{j}"));
                args.push(format!("({}) a{j}", scalar.binding_c()));
            }
            Param::String => {
                params.push(format!("const char *a{j}"));
                let _ = writeln!(
                    setup,
                    "  dixit_test_string_t v{j};\n  if (a{j}) {{ v{j}.ptr = (uint8_t *) a{j}; v{j}.len = strlen(a{j}); }}"
                );
                args.push(format!("a{j} ? &v{j} : NULL"));
            }
            Param::List { c, scalar, len_c } => {
                params.push(format!("const {c} *a{j}, {len_c} n{j}"));
                let list = list_type("dixit_test", *scalar);
                let _ = writeln!(
                    setup,
                    "  {list} v{j};\n  v{j}.ptr = ({} *) a{j};\n  v{j}.len = n{j} > 0 ? (size_t) n{j} : 0;",
                    scalar.binding_c()
                );
                args.push(format!("&v{j}"));
            }
            Param::Record { c, rec } => {
                params.push(format!("{c} a{j}"));
                let _ = writeln!(
                    setup,
                    "  {p}_{r}_t v{j} = dixit_lower_{r}(&a{j});",
                    p = Side::Test.api_prefix(),
                    r = record_name(*rec)
                );
                args.push(format!("&v{j}"));
            }
            Param::RecordList { c, rec, len_c } => {
                params.push(format!("const {c} *a{j}, {len_c} n{j}"));
                let (p, r) = (Side::Test.api_prefix(), record_name(*rec));
                let _ = writeln!(
                    setup,
                    "  size_t k{j} = n{j} > 0 ? (size_t) n{j} : 0;\n  \
                     {p}_{r}_t *e{j} = ({p}_{r}_t *) malloc(sizeof({p}_{r}_t) * (k{j} ? k{j} : 1));\n  \
                     if (!e{j}) abort();\n  \
                     for (size_t k = 0; k < k{j}; k++) e{j}[k] = dixit_lower_{r}(&a{j}[k]);\n  \
                     {p}_list_{r}_t v{j};\n  v{j}.ptr = e{j};\n  v{j}.len = k{j};"
                );
                args.push(format!("&v{j}"));
                let _ = writeln!(cleanup, "  free(e{j});");
            }
        }
    }
    let params = if params.is_empty() {
        "void".to_string()
    } else {
        params.join(", ")
    };
    let name = &sig.name;
    match &sig.ret {
        Ret::Void => {
            let _ = writeln!(
                s,
                "void {name}({params}) {{\n{setup}  {import}({});\n{cleanup}}}\n",
                args.join(", ")
            );
        }
        Ret::Scalar { c, .. } => {
            let _ = writeln!(
                s,
                "{c} {name}({params}) {{\n{setup}  {c} out = ({c}) {import}({});\n{cleanup}  \
                 return out;\n}}\n",
                args.join(", ")
            );
        }
        Ret::String { c } => {
            args.push("&r".into());
            let _ = writeln!(
                s,
                "{c} {name}({params}) {{\n{setup}  dixit_test_string_t r;\n  \
                 bool some = {import}({});\n{cleanup}  if (!some) return NULL;\n  \
                 char *c = dixit_cstr(r.ptr, r.len);\n  dixit_test_string_free(&r);\n  return c;\n}}\n",
                args.join(", ")
            );
        }
        Ret::Record { c, rec } => {
            args.push("&r".into());
            let (p, r) = (Side::Test.api_prefix(), record_name(*rec));
            let _ = writeln!(
                s,
                "{c} {name}({params}) {{\n{setup}  {p}_{r}_t r;\n  {import}({});\n{cleanup}  \
                 return dixit_lift_{r}(&r);\n}}\n",
                args.join(", ")
            );
        }
    }
}

/// The export on the solution's side: the bindings' arguments into the header's types, the
/// solution's function called, its result copied for the caller.
fn solution_export(s: &mut String, i: usize, sig: &Signature) {
    let export = format!("exports_dixit_unit_api_{}", Signature::wit_name(i));
    let mut params = Vec::new();
    let mut setup = String::from(FLUSH_GUARD);
    let mut cleanup = String::new();
    let mut args = Vec::new();
    for (j, p) in sig.params.iter().enumerate() {
        match p {
            Param::Scalar { c, scalar } => {
                params.push(format!("{} a{j}", scalar.binding_c()));
                args.push(format!("({c}) a{j}"));
            }
            Param::String => {
                params.push(format!("dixit_solution_string_t *a{j}"));
                let _ = writeln!(
                    setup,
                    "  char *c{j} = a{j} ? dixit_cstr(a{j}->ptr, a{j}->len) : NULL;\n  \
                     if (a{j}) dixit_solution_string_free(a{j});"
                );
                args.push(format!("c{j}"));
                let _ = writeln!(cleanup, "  free(c{j});");
            }
            Param::List { c, scalar, len_c } => {
                params.push(format!("{} *a{j}", list_type("dixit_solution", *scalar)));
                args.push(format!("(const {c} *) a{j}->ptr, ({len_c}) a{j}->len"));
                let _ = writeln!(
                    cleanup,
                    "  {}_free(a{j});",
                    list_type("dixit_solution", *scalar).trim_end_matches("_t")
                );
            }
            Param::Record { rec, .. } => {
                let (p, r) = (Side::Solution.api_prefix(), record_name(*rec));
                params.push(format!("{p}_{r}_t *a{j}"));
                args.push(format!("dixit_lift_{r}(a{j})"));
            }
            Param::RecordList { c, rec, len_c } => {
                let (p, r) = (Side::Solution.api_prefix(), record_name(*rec));
                params.push(format!("{p}_list_{r}_t *a{j}"));
                let _ = writeln!(
                    setup,
                    "  {c} *c{j} = ({c} *) malloc(sizeof({c}) * (a{j}->len ? a{j}->len : 1));\n  \
                     if (!c{j}) abort();\n  \
                     for (size_t k = 0; k < a{j}->len; k++) c{j}[k] = dixit_lift_{r}(&a{j}->ptr[k]);"
                );
                args.push(format!("c{j}, ({len_c}) a{j}->len"));
                let _ = writeln!(cleanup, "  free(c{j});\n  {p}_list_{r}_free(a{j});");
            }
        }
    }
    let call = format!("{}({})", sig.name, args.join(", "));
    match &sig.ret {
        Ret::Void => {
            let _ = writeln!(
                s,
                "void {export}({}) {{\n{setup}  {call};\n{cleanup}}}\n",
                params.join(", ")
            );
        }
        Ret::Scalar { scalar, .. } => {
            let _ = writeln!(
                s,
                "{} {export}({}) {{\n{setup}  {} r = ({}) {call};\n{cleanup}  return r;\n}}\n",
                scalar.binding_c(),
                params.join(", "),
                scalar.binding_c(),
                scalar.binding_c(),
            );
        }
        Ret::String { c } => {
            params.push("dixit_solution_string_t *ret".into());
            let _ = writeln!(
                s,
                "bool {export}({}) {{\n{setup}  {c} r = {call};\n  \
                 char *copy = r ? dixit_cstr((const uint8_t *) r, strlen(r)) : NULL;\n{cleanup}  \
                 if (!copy) return false;\n  \
                 ret->ptr = (uint8_t *) copy;\n  ret->len = strlen(copy);\n  return true;\n}}\n",
                params.join(", ")
            );
        }
        Ret::Record { c, rec } => {
            let (p, r) = (Side::Solution.api_prefix(), record_name(*rec));
            params.push(format!("{p}_{r}_t *ret"));
            let _ = writeln!(
                s,
                "void {export}({}) {{\n{setup}  {c} r = {call};\n{cleanup}  \
                 *ret = dixit_lower_{r}(&r);\n}}\n",
                params.join(", ")
            );
        }
    }
}

/// The bindings generator's name for `list<scalar>` in `world`.
fn list_type(world: &str, scalar: Scalar) -> String {
    format!("{world}_list_{}_t", scalar.wit())
}

/// The top-level declarations of a header (each one's tokens, without its `;`). Comments,
/// preprocessor lines, `extern "C" {`, `namespace N {` and definitions with a body (inline
/// functions, struct definitions: each side compiles its own copy) are left out.
pub(crate) fn declarations(text: &str) -> Vec<Vec<String>> {
    let tokens = tokenize(&strip(text));
    let mut out = Vec::new();
    let mut decl: Vec<String> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        match t.as_str() {
            ";" => {
                if !decl.is_empty() {
                    out.push(std::mem::take(&mut decl));
                }
            }
            "{" if (decl.len() == 2 && decl[0] == "extern" && decl[1].starts_with('"'))
                || (decl.len() == 2 && decl[0] == "namespace") =>
            {
                // `extern "C" {` and `namespace N {`: their declarations are ordinary ones.
                decl.clear();
            }
            "}" if decl.is_empty() => {}
            "{" => {
                // A body: a definition each side compiles for itself.
                let mut depth = 0usize;
                while i < tokens.len() {
                    match tokens[i].as_str() {
                        "{" => depth += 1,
                        "}" => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                decl.clear();
                // `struct s { ... } ;` and `typedef struct { ... } t;`
                while i + 1 < tokens.len() && tokens[i + 1] != ";" && tokens[i + 1] != "{" {
                    i += 1;
                    if tokens[i] == "(" {
                        break;
                    }
                }
                if i + 1 < tokens.len() && tokens[i + 1] == ";" {
                    i += 1;
                }
            }
            _ => decl.push(t.clone()),
        }
        i += 1;
    }
    out
}

/// A header's tokens, without comments and preprocessor lines.
pub(crate) fn tokenize_header(text: &str) -> Vec<String> {
    tokenize(&strip(text))
}

/// The header's text without comments and preprocessor lines.
fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i += 2;
            out.push(' ');
            continue;
        }
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if line_start && b[i] == b'#' {
            // A preprocessor line, with its continuations.
            while i < b.len() && b[i] != b'\n' {
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                i += 1;
            }
            continue;
        }
        if b[i] == b'\n' {
            line_start = true;
        } else if !b[i].is_ascii_whitespace() {
            line_start = false;
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

/// Identifiers, string literals, `...` and single punctuation characters.
fn tokenize(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '_' || c.is_ascii_alphanumeric() {
            let start = i;
            while i < chars.len() && (chars[i] == '_' || chars[i].is_ascii_alphanumeric()) {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == '"' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += 1;
            }
            i += 1;
            out.push(chars[start..i.min(chars.len())].iter().collect());
        } else if c == '.' && chars.get(i + 1) == Some(&'.') && chars.get(i + 2) == Some(&'.') {
            out.push("...".into());
            i += 3;
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

/// Words that qualify a declaration or a type without changing what crosses.
const QUALIFIERS: [&str; 7] = [
    "const",
    "volatile",
    "restrict",
    "__restrict",
    "extern",
    "static",
    "inline",
];

/// A declaration's tokens (without its `;`): a function's signature, `None` for what declares
/// nothing a test calls (a typedef, a struct's forward declaration), or why it cannot cross.
fn declaration(
    tokens: &[String],
    recs: &mut Records<'_, CField>,
) -> Result<Option<Signature>, WitError> {
    let first = tokens[0].as_str();
    if matches!(first, "typedef" | "using")
        || (matches!(first, "struct" | "union" | "enum") && tokens.len() <= 2)
    {
        return Ok(None);
    }
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
            "`{text}`: not a function prototype dixit can read (a callback or a function \
             pointer cannot cross between the test and the solution)"
        )));
    }
    let name = tokens[open - 1].clone();
    if !is_ident(&name) {
        return Err(WitError::Declaration(format!(
            "`{text}`: not a function prototype dixit can read"
        )));
    }
    let ret_tokens = &tokens[..open - 1];
    let inner = &tokens[open + 1..tokens.len() - 1];
    let mut raw: Vec<Vec<String>> = Vec::new();
    let mut depth = 0usize;
    let mut cur = Vec::new();
    for t in inner {
        match t.as_str() {
            "(" | "[" | "<" => {
                depth += 1;
                cur.push(t.clone());
            }
            ")" | "]" | ">" => {
                depth = depth.saturating_sub(1);
                cur.push(t.clone());
            }
            "," if depth == 0 => raw.push(std::mem::take(&mut cur)),
            _ => cur.push(t.clone()),
        }
    }
    if !cur.is_empty() {
        raw.push(cur);
    }
    if raw.len() == 1 && raw[0] == ["void"] {
        raw.clear();
    }
    let ret = ret_type(&name, ret_tokens, recs)?;
    let mut params = Vec::new();
    let mut k = 0;
    while k < raw.len() {
        let (ty, pname) = split_param(&raw[k]);
        let what = match &pname {
            Some(p) => format!("parameter `{p}`"),
            None => format!("parameter {}", k + 1),
        };
        let bad = |instead: &str| WitError::Type {
            function: name.clone(),
            what: what.clone(),
            ty: ty.join(" "),
            instead: instead.to_string(),
        };
        if ty.iter().any(|t| t == "(" || t == "...") {
            return Err(bad(
                "a callback or a variable argument list has no value to copy; pass the values \
                 themselves",
            ));
        }
        if ty.iter().any(|t| t == "[") {
            return Err(bad(
                "an array parameter is a pointer of unknown extent; declare it `const T *p` \
                 followed by its length (`int n`), which crosses as a list",
            ));
        }
        let stars = ty.iter().filter(|t| *t == "*").count();
        let is_const = ty.iter().any(|t| t == "const");
        let words: Vec<&str> = ty
            .iter()
            .map(String::as_str)
            .filter(|t| *t != "*" && !QUALIFIERS.contains(t))
            .collect();
        let base = words.join(" ");
        let record = recs
            .resolve(&words, false, &CFields, recs.struct_count())
            .map_err(|why| bad(&why.to_string()))?;
        if let Some(rec) = record {
            let len = raw.get(k + 1).and_then(|n| length_type(&split_param(n).0));
            match (stars, is_const, len) {
                (0, _, _) => params.push(Param::Record { c: base, rec }),
                (1, true, Some(len_c)) => {
                    params.push(Param::RecordList {
                        c: base,
                        rec,
                        len_c,
                    });
                    k += 1;
                }
                (1, false, _) => {
                    return Err(bad(
                        "a pointer the solution may write through cannot reach the test's \
                         memory; pass the struct by value (copied in) and return the changed one",
                    ))
                }
                _ => {
                    return Err(bad(
                        "a pointer of unknown extent; pass the struct by value, or follow a \
                         `const` pointer with its length (`const struct s *p, int n`), which \
                         crosses as a list",
                    ))
                }
            }
            k += 1;
            continue;
        }
        match (stars, Scalar::of_words(&words)) {
            (0, Some(scalar)) => params.push(Param::Scalar { c: base, scalar }),
            (1, Some(Scalar::S8)) if words == ["char"] => {
                if !is_const {
                    return Err(bad(
                        "a `char *` parameter the solution may write cannot be written back into \
                         the test's memory; declare it `const char *` (copied in) and return \
                         the changed string",
                    ));
                }
                params.push(Param::String);
            }
            (1, Some(scalar)) => {
                let len = raw.get(k + 1).and_then(|n| length_type(&split_param(n).0));
                match (is_const, len) {
                    (true, Some(len_c)) => {
                        params.push(Param::List {
                            c: base,
                            scalar,
                            len_c,
                        });
                        k += 1;
                    }
                    (false, _) => {
                        return Err(bad(
                            "a pointer the solution may write through cannot reach the test's \
                             memory; declare it `const` (copied in) and return results instead",
                        ))
                    }
                    (true, None) => {
                        return Err(bad(
                            "a pointer of unknown extent; follow it with its length (`const T \
                             *p, int n`), which crosses as a list",
                        ))
                    }
                }
            }
            _ => {
                return Err(bad(
                    "only numbers, `bool`, structs the header defines, `const char *` strings \
                     and `const T *p, int n` arrays cross; pass those",
                ))
            }
        }
        k += 1;
    }
    Ok(Some(Signature { name, params, ret }))
}

/// The C spelling of a parameter's type if it is an integer (a list's length).
fn length_type(ty: &[String]) -> Option<String> {
    let w: Vec<&str> = ty
        .iter()
        .map(String::as_str)
        .filter(|t| !QUALIFIERS.contains(t))
        .collect();
    Scalar::of_words(&w)
        .filter(|s| s.is_integer())
        .map(|_| w.join(" "))
}

/// A function's result type.
fn ret_type(
    function: &str,
    tokens: &[String],
    recs: &mut Records<'_, CField>,
) -> Result<Ret, WitError> {
    let stars = tokens.iter().filter(|t| *t == "*").count();
    let words: Vec<&str> = tokens
        .iter()
        .map(String::as_str)
        .filter(|t| *t != "*" && !QUALIFIERS.contains(t))
        .collect();
    let spelled: Vec<&str> = tokens
        .iter()
        .map(String::as_str)
        .filter(|t| !matches!(*t, "extern" | "static" | "inline"))
        .collect();
    let refused = |instead: String| WitError::Type {
        function: function.to_string(),
        what: "the result".into(),
        ty: tokens.join(" "),
        instead,
    };
    if stars == 0 {
        if let Some(rec) = recs
            .resolve(&words, false, &CFields, recs.struct_count())
            .map_err(|e| refused(e.to_string()))?
        {
            return Ok(Ret::Record {
                c: words.join(" "),
                rec,
            });
        }
    }
    match (stars, words.as_slice()) {
        (0, ["void"]) => Ok(Ret::Void),
        (1, ["char"]) => Ok(Ret::String {
            c: spelled.join(" "),
        }),
        (0, w) if Scalar::of_words(w).is_some() => Ok(Ret::Scalar {
            c: w.join(" "),
            scalar: Scalar::of_words(w).unwrap_or(Scalar::S32),
        }),
        _ => Err(refused(
            "a result is a number, `bool`, a struct the header defines, or a string (`char *`, \
             copied out); return one of those"
                .into(),
        )),
    }
}

/// A parameter's type tokens and its name, when it has one.
fn split_param(tokens: &[String]) -> (Vec<String>, Option<String>) {
    let type_word = |t: &str| {
        QUALIFIERS.contains(&t)
            || Scalar::of_words(&[t]).is_some()
            || matches!(
                t,
                "void" | "unsigned" | "signed" | "long" | "short" | "struct" | "union" | "enum"
            )
    };
    match tokens.split_last() {
        Some((last, rest))
            if !rest.is_empty()
                && is_ident(last)
                && !type_word(last)
                && !matches!(
                    rest.last().map(String::as_str),
                    Some("struct" | "union" | "enum")
                ) =>
        {
            (rest.to_vec(), Some(last.clone()))
        }
        _ => (tokens.to_vec(), None),
    }
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && t.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prototypes_become_a_world() {
        let sigs = Signature::parse_header(
            "/* c */\n#ifndef X\n#define X\n#include <stdbool.h>\nint answer(void);\n\
             int has_close_elements(const double *numbers, int n, double threshold);\n\
             char *upper(const char *s);\nbool is_leap(long long year);\n\
             static inline int twice(int x) { return 2 * x; }\nstruct p { int x; };\n#endif\n",
        )
        .unwrap();
        let names: Vec<&str> = sigs.functions.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["answer", "has_close_elements", "upper", "is_leap"]);
        let w = world(&sigs);
        assert!(
            w.contains("f0: func();") || w.contains("f0: func() -> s32;"),
            "{w}"
        );
        assert!(
            w.contains("f1: func(p0: list<f64>, p1: f64) -> s32;"),
            "{w}"
        );
        assert!(
            w.contains("f2: func(p0: option<string>) -> option<string>;"),
            "{w}"
        );
        assert!(w.contains("f3: func(p0: s64) -> bool;"), "{w}");
    }

    #[test]
    fn structs_become_records() {
        let c = Signature::parse_header(
            "#include <stdbool.h>\nstruct point { int x, y; };\n\
             typedef struct { struct point from; struct point to; bool open; } segment;\n\
             typedef struct point point_t;\nstruct unused { char *s; };\n\
             double length(segment s);\npoint_t mid(const segment *s, int n);\n\
             struct point origin(void);\n",
        )
        .unwrap();
        assert_eq!(c.records.len(), 2);
        assert_eq!(c.records[0].c, "struct point");
        assert_eq!(c.records[1].c, "segment");
        assert_eq!(
            c.functions[1].params[0],
            Param::RecordList {
                c: "segment".into(),
                rec: 1,
                len_c: "int".into()
            }
        );
        let w = world(&c);
        assert!(w.contains("record r1 {"), "{w}");
        assert!(w.contains("m1: r0,"), "{w}");
        assert!(w.contains("m2: bool,"), "{w}");
        assert!(w.contains("f0: func(p0: r1) -> f64;"), "{w}");
        assert!(w.contains("f1: func(p0: list<r1>) -> r0;"), "{w}");
        assert!(w.contains("f2: func() -> r0;"), "{w}");
        let glue = c_glue(&c, Side::Test, &["solution.h".into()]);
        assert!(
            glue.contains("static dixit_unit_api_r1_t dixit_lower_r1(const segment *v)"),
            "{glue}"
        );
    }

    #[test]
    fn what_cannot_be_copied_is_refused_by_name() {
        for (header, named) in [
            ("int sum(const int *a);", "parameter `a`"),
            ("void fill(int *out, int n);", "parameter `out`"),
            ("void trim(char *s);", "parameter `s`"),
            ("int f(void *p, int n);", "parameter `p`"),
            ("int apply(int (*cb)(int), int x);", "callback"),
            ("int printf2(const char *f, ...);", "parameter 2"),
            ("extern int expected;", "`expected`"),
            ("struct s make(void);", "the result"),
            (
                "struct s { char *name; };\nint f(struct s v);",
                "its field `name` (`char *`)",
            ),
            ("struct s { int x; };\nint f(struct s *v);", "parameter `v`"),
            (
                "struct s { int x; };\nint f(const struct s *v);",
                "follow a `const` pointer with its length",
            ),
            ("struct s { int v[2]; };\nstruct s f(void);", "an array"),
            (
                "struct s { int (*cb)(int); };\nint f(struct s v);",
                "function pointer",
            ),
        ] {
            let e = Signature::parse_header(header).unwrap_err().to_string();
            assert!(e.contains(named), "{header}: {e}");
        }
    }
}
