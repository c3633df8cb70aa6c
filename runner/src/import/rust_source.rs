//! Rust source read by Rust's own grammar (`syn`): the top-level functions of a HumanEval-X
//! declaration, reference or sample, each with the interface item its signature makes and where
//! its signature starts. Comments, attributes, generics, `where` clauses and spacing are the
//! parser's business, not ours.

use proc_macro2::Span;
use syn::{FnArg, GenericParam, Item, ReturnType, Visibility};

use super::Refusal;

/// A top-level function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RustFn {
    /// Its name.
    pub name: String,
    /// Whether it is already `pub` (or restricted-public).
    pub public: bool,
    /// The byte offset where its signature starts (its first qualifier or `fn`).
    pub start: usize,
    /// `name: fn(TYPES) -> RESULT` as the interface carries it, or why it cannot be carried.
    pub item: Result<String, Refusal>,
}

/// The top-level functions of a whole source file, in order.
pub(super) fn functions(source: &str) -> Result<Vec<RustFn>, Refusal> {
    let file = syn::parse_file(source).map_err(|e| {
        let at = e.span().start();
        Refusal::Syntax {
            line: at.line,
            column: at.column + 1,
            error: e.to_string(),
        }
    })?;
    let lines = LineStarts::new(source);
    Ok(file
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Fn(f) => Some(function(f, &lines)),
            _ => None,
        })
        .collect())
}

/// The functions of a declaration that leaves its last one open (`fn f(x: T) -> R {`): read
/// with that body closed; the entry point is the last.
pub(super) fn open_declaration(declaration: &str) -> Result<Vec<RustFn>, Refusal> {
    let closed = format!("{declaration}\n}}");
    let parsed = syn::parse_file(&closed).map_err(|e| {
        let at = e.span().start();
        Refusal::DeclarationSyntax {
            line: at.line,
            column: at.column + 1,
            error: e.to_string(),
        }
    })?;
    match parsed.items.last() {
        Some(Item::Fn(_)) => functions(&closed),
        _ => Err(Refusal::NotOpen),
    }
}

/// `source` with each top-level function that is not public made `pub` (the interface
/// re-exports public items only). Source that does not parse is returned as it is: its build
/// fails with the compiler's own words.
pub(super) fn publish(source: &str) -> String {
    let Ok(fns) = functions(source) else {
        return source.to_string();
    };
    let mut out = String::with_capacity(source.len() + 32);
    let mut from = 0;
    for f in fns.iter().filter(|f| !f.public) {
        out.push_str(&source[from..f.start]);
        out.push_str("pub ");
        from = f.start;
    }
    out.push_str(&source[from..]);
    out
}

fn function(f: &syn::ItemFn, lines: &LineStarts) -> RustFn {
    let sig = &f.sig;
    let first: Span = sig
        .constness
        .map(|t| t.span)
        .or(sig.asyncness.map(|t| t.span))
        .or(sig.unsafety.map(|t| t.span))
        .or(sig.abi.as_ref().map(|a| a.extern_token.span))
        .unwrap_or(sig.fn_token.span);
    RustFn {
        name: sig.ident.to_string(),
        public: !matches!(f.vis, Visibility::Inherited),
        start: lines.offset(first),
        item: interface_item(sig),
    }
}

/// `name: [for<'a>] fn(T, ...) -> R`, each type as written (whitespace collapsed).
fn interface_item(sig: &syn::Signature) -> Result<String, Refusal> {
    let name = sig.ident.to_string();
    let mut lifetimes = Vec::new();
    for p in &sig.generics.params {
        match p {
            GenericParam::Lifetime(l) => lifetimes.push(text(l.lifetime.span())?),
            _ => {
                return Err(Refusal::Generic {
                    generics: source_of(&sig.generics).unwrap_or_default(),
                    name,
                })
            }
        }
    }
    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Typed(t) => params.push(source_of(&*t.ty).ok_or(Refusal::NoSource("type"))?),
            FnArg::Receiver(_) => return Err(Refusal::TakesSelf(name)),
        }
    }
    let ret = match &sig.output {
        ReturnType::Default => String::new(),
        ReturnType::Type(_, ty) => {
            format!(" -> {}", source_of(&**ty).ok_or(Refusal::NoSource("type"))?)
        }
    };
    let for_ = if lifetimes.is_empty() {
        String::new()
    } else {
        format!("for<{}> ", lifetimes.join(", "))
    };
    let item = format!("{name}: {for_}fn({}){ret}", params.join(", "));
    crate::toolchain::InterfaceItem::parse(&item).map_err(|e| Refusal::NotCarried {
        name: name.clone(),
        error: e.to_string(),
    })?;
    Ok(item)
}

/// The source text of a syntax node, whitespace (and comments) collapsed to single spaces.
fn source_of(node: &impl syn::spanned::Spanned) -> Option<String> {
    let raw = node.span().source_text()?;
    Some(collapse(&raw))
}

fn text(span: Span) -> Result<String, Refusal> {
    span.source_text()
        .map(|t| collapse(&t))
        .ok_or(Refusal::NoSource("piece"))
}

/// Comments dropped and whitespace runs made one space (a type written over lines).
fn collapse(raw: &str) -> String {
    let mut out = String::new();
    for line in raw.lines() {
        let code = line.split("//").next().unwrap_or("");
        out.push_str(code);
        out.push(' ');
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Byte offsets of line starts, to turn a span's line and column (in characters) into a byte
/// offset.
struct LineStarts<'a> {
    source: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineStarts<'a> {
    fn new(source: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(k, _)| k + 1));
        LineStarts { source, starts }
    }

    fn offset(&self, span: Span) -> usize {
        let at = span.start();
        let line = self
            .starts
            .get(at.line.saturating_sub(1))
            .copied()
            .unwrap_or(0);
        self.source[line..]
            .char_indices()
            .nth(at.column)
            .map_or(self.source.len(), |(k, _)| line + k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_read_whatever_their_spacing_comments_and_attributes() {
        let decl = "use std::collections::HashMap;\n// fn old(x: i32) -> i32 {\n/* fn g() { */\n\
                    #[allow(dead_code)]\nfn helper<'a>(x: &'a [i32]) -> Vec<i32> where i32: Copy { x.to_vec() }\n\
                    fn f(\n    x: Vec<i32>, // the input\n    m: HashMap<String,\n i64>,\n) -> Vec<i32>{\n";
        let fns = open_declaration(decl).unwrap();
        let names: Vec<&str> = fns.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["helper", "f"]);
        assert_eq!(
            fns[0].item.as_deref(),
            Ok("helper: for<'a> fn(&'a [i32]) -> Vec<i32>")
        );
        assert_eq!(
            fns[1].item.as_deref(),
            Ok("f: fn(Vec<i32>, HashMap<String, i64>) -> Vec<i32>")
        );
    }

    #[test]
    fn what_is_not_an_open_declaration_is_refused() {
        assert!(open_declaration("fn f() -> i32 { 1 }\n").is_err());
        assert!(open_declaration("fn f(x: i32 -> i32 {\n").is_err());
        let generic = open_declaration("fn g<T: Clone>(x: T) -> T { x }\nfn f() {\n").unwrap();
        assert!(generic[0]
            .item
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("generic"));
    }

    #[test]
    fn publish_makes_private_functions_public_only() {
        let src = "/* fn not_code() {} */\nconst fn a() -> i32 { 1 }\npub fn b() {}\n#[inline]\nfn c() { fn inner() {} }\n";
        assert_eq!(
            publish(src),
            "/* fn not_code() {} */\npub const fn a() -> i32 { 1 }\npub fn b() {}\n#[inline]\npub fn c() { fn inner() {} }\n"
        );
        assert_eq!(publish("fn broken( {"), "fn broken( {");
    }
}
