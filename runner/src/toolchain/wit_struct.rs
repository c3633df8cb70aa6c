//! The plain structs a C or C++ interface header defines, read as records (`wit.rs` and
//! `wit_cpp.rs` map their fields' types). A struct crosses by value, field by field: WIT's
//! `record r{k} { m0: …, m1: … }`, each field copied as its own type.
//!
//! Only data fields are read. Methods, constructors, `static` members, `using`, `typedef` and
//! `friend` lines of a C++ struct are code or names each side compiles for itself and are left
//! out; a field of a type that cannot be copied, an array or bit-field, a function pointer, or a
//! field that is not public is refused when a function of the interface uses the struct, with the
//! field named.

/// A struct defined at the top level of a header (or in an `extern "C"` block).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RawStruct {
    /// The tag (`struct point` has `point`), if it has one.
    pub tag: Option<String>,
    /// Names a `typedef` gives it.
    pub aliases: Vec<String>,
    /// Each data field: its type's tokens and its name.
    pub fields: Vec<(Vec<String>, String)>,
    /// Why the struct cannot cross, if a member was not a plain public data field.
    pub refused: Option<String>,
}

impl RawStruct {
    /// How C names it: `struct TAG`, else its first alias.
    pub(super) fn c_spelling(&self) -> String {
        match (&self.tag, self.aliases.first()) {
            (Some(t), _) => format!("struct {t}"),
            (None, Some(a)) => a.clone(),
            (None, None) => "struct".into(),
        }
    }

    /// How C++ names it: its tag, else its first alias.
    pub(super) fn cpp_spelling(&self) -> String {
        self.tag
            .clone()
            .or_else(|| self.aliases.first().cloned())
            .unwrap_or_default()
    }

    /// Whether a type's words (qualifiers gone) name this struct: `struct TAG`, or (`bare`,
    /// as C++ allows) `TAG`, or an alias.
    pub(super) fn named_by(&self, words: &[&str], bare: bool) -> bool {
        match words {
            ["struct", t] => self.tag.as_deref() == Some(*t),
            [t] => (bare && self.tag.as_deref() == Some(*t)) || self.aliases.iter().any(|a| a == t),
            _ => false,
        }
    }
}

/// The structs a header's tokens define, in order. `typedef struct T A;` adds the alias `A` to
/// `T`'s names.
pub(crate) fn struct_definitions(tokens: &[String]) -> Vec<RawStruct> {
    let mut out: Vec<RawStruct> = Vec::new();
    // Open scopes: `true` for a block whose declarations are top-level ones (`extern "C" {`).
    let mut scopes: Vec<bool> = Vec::new();
    let top = |scopes: &Vec<bool>| scopes.iter().all(|s| *s);
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        let next = |k: usize| tokens.get(i + k).map(String::as_str);
        match t {
            "extern" if next(1).is_some_and(|n| n.starts_with('"')) && next(2) == Some("{") => {
                scopes.push(true);
                i += 3;
                continue;
            }
            "namespace" => {
                // A struct in a namespace is not read: its name would need the namespace.
                while i < tokens.len() && tokens[i] != "{" && tokens[i] != ";" {
                    i += 1;
                }
                if tokens.get(i).map(String::as_str) == Some("{") {
                    scopes.push(false);
                }
                i += 1;
                continue;
            }
            "}" => {
                scopes.pop();
                i += 1;
                continue;
            }
            "{" => {
                // A function's body (or an initializer): skipped whole.
                i = matching(tokens, i) + 1;
                continue;
            }
            _ => {}
        }
        let typedef = t == "typedef";
        let kw_at = if typedef { i + 1 } else { i };
        let kw = tokens.get(kw_at).map(String::as_str);
        if !matches!(kw, Some("struct" | "class")) || !top(&scopes) {
            i += 1;
            continue;
        }
        let is_class = kw == Some("class");
        let mut j = kw_at + 1;
        let tag = tokens
            .get(j)
            .filter(|n| is_ident(n) && tokens.get(j + 1).map(String::as_str) != Some("("))
            .cloned();
        if tag.is_some() {
            j += 1;
        }
        // `final` and base classes are not plain data.
        let mut refused = None;
        while j < tokens.len() && !matches!(tokens[j].as_str(), "{" | ";" | "(") {
            if tokens[j] == ":" || tokens[j] == "final" {
                refused = Some("a struct with a base class is not plain data".to_string());
            }
            j += 1;
        }
        if tokens.get(j).map(String::as_str) != Some("{") {
            // `typedef struct T A;` (an alias) or a forward declaration.
            if typedef {
                if let (Some(t), Some(alias)) = (&tag, tokens.get(j.saturating_sub(1))) {
                    if let Some(s) = out.iter_mut().find(|s| s.tag.as_ref() == Some(t)) {
                        if alias != t && is_ident(alias) {
                            s.aliases.push(alias.clone());
                        }
                    }
                }
            }
            i = j + 1;
            continue;
        }
        let close = matching(tokens, j);
        let (fields, why) = members(&tokens[j + 1..close.min(tokens.len())], is_class);
        refused = refused.or(why);
        // The names after the body: a typedef's aliases (otherwise variables, left alone).
        let mut aliases = Vec::new();
        let mut k = close + 1;
        while k < tokens.len() && tokens[k] != ";" {
            if typedef && is_ident(&tokens[k]) {
                aliases.push(tokens[k].clone());
            }
            k += 1;
        }
        out.push(RawStruct {
            tag,
            aliases,
            fields,
            refused,
        });
        i = k + 1;
    }
    out
}

/// The index of the `}` closing the `{` at `open` (or the end).
fn matching(tokens: &[String], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        match t.as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// A struct body's data fields, and why it is refused if a member is not a plain public data
/// field.
fn members(body: &[String], is_class: bool) -> (Vec<(Vec<String>, String)>, Option<String>) {
    let mut fields = Vec::new();
    let mut refused: Option<String> = None;
    let mut public = !is_class;
    let mut refuse = |why: String| {
        if refused.is_none() {
            refused = Some(why);
        }
    };
    let mut member: Vec<String> = Vec::new();
    let mut k = 0;
    while k <= body.len() {
        let t = body.get(k).map(String::as_str);
        match t {
            Some("{") => {
                // A method's body, or a brace initializer (`int x{0};`).
                k = matching(body, k) + 1;
                if member.iter().any(|m| m == "(") {
                    member.clear();
                }
                continue;
            }
            Some(access @ ("public" | "private" | "protected"))
                if member.is_empty() && body.get(k + 1).map(String::as_str) == Some(":") =>
            {
                public = access == "public";
                k += 2;
                continue;
            }
            Some(";") | None => {
                let m = std::mem::take(&mut member);
                k += 1;
                if m.is_empty() {
                    continue;
                }
                let first = m[0].as_str();
                if matches!(
                    first,
                    "static" | "using" | "typedef" | "friend" | "template" | "enum"
                ) {
                    continue;
                }
                let text = m.join(" ");
                if m.windows(2).any(|w| w[0] == "(" && w[1] == "*") {
                    refuse(format!(
                        "its field `{text}` is a function pointer, which cannot be copied"
                    ));
                    continue;
                }
                if m.iter().any(|x| x == "(") {
                    continue; // a method or constructor declared
                }
                if !public {
                    refuse(format!(
                        "its field `{text}` is not public (dixit's glue sets each field)"
                    ));
                    continue;
                }
                field_declarators(&m, &mut fields, &mut refuse);
                continue;
            }
            Some(other) => member.push(other.to_string()),
        }
        k += 1;
    }
    (fields, refused)
}

/// `int x, y = 2` as the fields `x` and `y` of type `int`.
fn field_declarators(
    m: &[String],
    fields: &mut Vec<(Vec<String>, String)>,
    refuse: &mut impl FnMut(String),
) {
    let mut parts: Vec<Vec<String>> = vec![Vec::new()];
    let mut depth = 0usize;
    let mut init = false;
    for t in m {
        match t.as_str() {
            "<" | "(" | "[" => depth += 1,
            ">" | ")" | "]" => depth = depth.saturating_sub(1),
            "," if depth == 0 => {
                parts.push(Vec::new());
                init = false;
                continue;
            }
            "=" if depth == 0 => init = true,
            _ => {}
        }
        if !init {
            if let Some(p) = parts.last_mut() {
                p.push(t.clone());
            }
        }
    }
    let text = m.join(" ");
    let mut ty: Vec<String> = Vec::new();
    for (n, part) in parts.iter().enumerate() {
        if part.iter().any(|t| t == "[") {
            refuse(format!(
                "its field `{text}` is an array; a fixed-size array is not copied (use separate \
                 fields, or a `vector` in C++)"
            ));
            return;
        }
        if part.iter().any(|t| t == ":") && !part.windows(2).any(|w| w[0] == ":" && w[1] == ":") {
            refuse(format!("its field `{text}` is a bit-field"));
            return;
        }
        let Some((name, rest)) = part.split_last() else {
            refuse(format!("its field `{text}` cannot be read"));
            return;
        };
        if !is_ident(name) {
            refuse(format!("its field `{text}` cannot be read"));
            return;
        }
        if n == 0 {
            ty = rest.to_vec();
        } else if !rest.is_empty() {
            // `int x, *p`: a declarator of its own kind.
            refuse(format!(
                "its field `{text}` declares a pointer; only plain values cross"
            ));
            return;
        }
        if ty.is_empty() {
            refuse(format!("its field `{text}` has no type"));
            return;
        }
        fields.push((ty.clone(), name.clone()));
    }
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && t.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Why a struct a function uses cannot cross (said after the struct's name, as the reason).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StructError {
    /// Its definition is not plain public data (a base class, a member function, a bit-field):
    /// why, as reading the header found it.
    #[error("{0}")]
    Definition(String),
    /// It has no fields.
    #[error("a struct with no fields carries nothing")]
    NoFields,
    /// One of its fields cannot cross.
    #[error("its field `{name}` (`{ty}`): {why}")]
    Field {
        name: String,
        ty: String,
        why: Box<StructError>,
    },
    /// A C struct's pointer field.
    #[error(
        "a pointer field cannot be copied: a struct crosses with numbers, \
         `bool` and structs of those as its fields"
    )]
    CPointer,
    /// A C struct's field of any other type that does not cross.
    #[error(
        "only numbers, `bool` and structs defined before this one cross as \
         a struct's fields"
    )]
    CField,
    /// A C++ struct's pointer or reference field.
    #[error("a pointer or reference field cannot be copied; hold the value")]
    CppPointer,
    /// A C++ struct's field of any other type that does not cross.
    #[error(
        "only numbers, `bool`, `string`, `vector`, `pair`, `map`, `optional` and structs \
         defined before this one cross as a struct's fields"
    )]
    CppField,
}

/// How a language reads a struct field's type (C: numbers and structs; C++: any type that
/// crosses). `recs` resolves a struct the field names; `before` is the struct being read (a
/// field may only name a struct defined before it, so no record contains itself).
pub(crate) trait FieldReader {
    type Field;
    fn field(
        &self,
        recs: &mut Records<'_, Self::Field>,
        before: usize,
        ty: &[String],
    ) -> Result<Self::Field, StructError>;
}

/// The records an interface's functions use, resolved from the header's structs on first use
/// (a struct no function uses is never refused).
pub(crate) struct Records<'a, F> {
    raw: &'a [RawStruct],
    /// Index into `raw` → index of the record, once resolved.
    resolved: Vec<Option<usize>>,
    /// Resolved records in WIT order (a record's fields refer only to earlier ones): the
    /// struct's index in `raw` and its fields (name, type).
    records: Vec<(usize, Vec<(String, F)>)>,
}

impl<'a, F> Records<'a, F> {
    pub(super) fn new(raw: &'a [RawStruct]) -> Records<'a, F> {
        Records {
            raw,
            resolved: vec![None; raw.len()],
            records: Vec::new(),
        }
    }

    /// The struct among the first `limit` that `words` names, as a record index, its fields
    /// read by `reader`. `Ok(None)`: no struct of that name.
    pub(super) fn resolve<R: FieldReader<Field = F>>(
        &mut self,
        words: &[&str],
        bare: bool,
        reader: &R,
        limit: usize,
    ) -> Result<Option<usize>, StructError> {
        let raw = self.raw;
        let limit = limit.min(raw.len());
        let Some(at) = raw[..limit].iter().position(|s| s.named_by(words, bare)) else {
            return Ok(None);
        };
        if let Some(r) = self.resolved[at] {
            return Ok(Some(r));
        }
        let s = &raw[at];
        if let Some(why) = &s.refused {
            return Err(StructError::Definition(why.clone()));
        }
        if s.fields.is_empty() {
            return Err(StructError::NoFields);
        }
        let mut fields = Vec::new();
        for (ty, name) in &s.fields {
            let f = reader.field(self, at, ty).map_err(|e| StructError::Field {
                name: name.clone(),
                ty: ty.join(" "),
                why: Box::new(e),
            })?;
            fields.push((name.clone(), f));
        }
        self.records.push((at, fields));
        let r = self.records.len() - 1;
        self.resolved[at] = Some(r);
        Ok(Some(r))
    }

    /// All the header's structs (for `limit`).
    pub(super) fn struct_count(&self) -> usize {
        self.raw.len()
    }

    /// The resolved records in WIT order, each made by `make` from its struct and fields.
    pub(super) fn finish<R>(self, make: impl Fn(&RawStruct, Vec<(String, F)>) -> R) -> Vec<R> {
        let raw = self.raw;
        self.records
            .into_iter()
            .map(|(at, fields)| make(&raw[at], fields))
            .collect()
    }
}
