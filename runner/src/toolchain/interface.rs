//! The interface a project states: what a test may use of a solution.
//!
//! A test is compiled against this, never against anything a coder wrote: no solution-authored
//! text (a header, a macro, a type named like a primitive) is compiled into the test.
//!
//! - **Python**: the functions and classes a test may call (`[project] interface = ["to_roman",
//!   "Stack: push, pop"]`, see [`crate::sandbox::boundary::Interface`]). The test's module
//!   `solution` is made from these names alone, and the host refuses every other call.
//! - **C and C++**: header files the project provides (`[project] interface =
//!   "interface/solution.h"`). Tests include them by file name (`#include "solution.h"`); the
//!   test's include path holds dixit's SDK and these headers only. A solution is compiled with
//!   its own folder and then these headers on its include path.
//! - **Rust**: the functions of the solution crate tests may call, with their types
//!   (`[project] interface = ["add: fn(i32, i32) -> i32", "parse: fn(&str) -> Option<i32>"]`),
//!   and the structs they pass (`"struct Point { x: i32, y: i32 }"`).
//!   They become a WIT world (`wit_rust.rs`): the test uses a generated crate `solution` whose
//!   functions copy each value into the solution's component and back.

use std::path::{Path, PathBuf};

use std::sync::Arc;

use super::files::read_capped;
use super::snapshot::{snapshot_bytes, Snapshot, MAX_TEST_BYTES};
use super::TestKind;
use crate::sandbox::boundary::{EntryError, Interface as Names};
use crate::sandbox::{hash_parts, ArtifactCache};

/// Why a stated interface cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterfaceError {
    /// A header file could not be read (missing, too large, not a regular file).
    #[error("{path}: {message}")]
    Header {
        /// The header.
        path: PathBuf,
        /// Why it could not be read.
        message: String,
    },
    /// A header that is not a C/C++ header by its extension, or two with one file name.
    #[error("{0}")]
    HeaderName(String),
    /// A Rust item that is not `NAME` or `NAME: TYPE`.
    #[error("`{item}`: {message}")]
    Item {
        /// The item as written.
        item: String,
        /// What is wrong with it.
        message: String,
    },
    /// A Python entry that is not `NAME` or `NAME: METHOD, ...`.
    #[error(transparent)]
    Python(#[from] EntryError),
}

/// One item of a Rust interface: a function the solution crate defines and the type it must
/// have (`fn(i32, i32) -> i32`), or a struct both sides define (`struct Point { x: i32, y: i32
/// }`), which say how each value is copied between the test's component and the solution's
/// (`wit_rust.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// The function's or struct's name.
    pub name: String,
    /// A function's type, or a struct's fields (`x: i32, y: i32`).
    pub ty: String,
    /// Whether the item is a struct.
    pub is_struct: bool,
}

impl Item {
    /// Parses `NAME: TYPE` or `struct NAME { FIELDS }` (`pub` allowed before `struct` and each
    /// field). `NAME` is a Rust identifier; `TYPE` and `FIELDS` are one line of Rust type syntax
    /// without `;`, other braces or comments (they are spliced into generated code), a function
    /// type whose parameters and result can be copied, fields of such types. A struct another
    /// item names is read in [`Item::parse_all`].
    pub fn parse(text: &str) -> Result<Item, InterfaceError> {
        let item = Self::syntax(text)?;
        let one = [item];
        Self::check(&one, |_| text.to_string())?;
        let [item] = one;
        Ok(item)
    }

    /// Parses each of `texts` (see [`Item::parse`]) and checks them together: a struct must be
    /// stated before the items that use it, and no name twice.
    pub fn parse_all(texts: &[String]) -> Result<Vec<Item>, InterfaceError> {
        let items = texts
            .iter()
            .map(|t| Self::syntax(t))
            .collect::<Result<Vec<_>, _>>()?;
        Self::check(&items, |k| texts[k].clone())?;
        Ok(items)
    }

    /// The interface `items` state, read together.
    pub(crate) fn interface(
        items: &[Item],
    ) -> Result<super::wit_rust::RustInterface, (usize, super::wit_rust::RustItemError)> {
        super::wit_rust::RustInterface::parse(items.iter().map(|i| {
            (
                i.name.as_str(),
                i.is_struct.then_some(i.ty.as_str()),
                i.ty.as_str(),
            )
        }))
    }

    fn check(items: &[Item], text: impl Fn(usize) -> String) -> Result<(), InterfaceError> {
        Self::interface(items)
            .map(|_| ())
            .map_err(|(k, e)| InterfaceError::Item {
                item: text(k),
                message: e.to_string(),
            })
    }

    /// One item's syntax.
    fn syntax(text: &str) -> Result<Item, InterfaceError> {
        let bad = |message: &str| InterfaceError::Item {
            item: text.to_string(),
            message: message.to_string(),
        };
        if text.contains([';', '\n', '\r']) || text.contains("//") || text.contains("/*") {
            return Err(bad("an item may not contain `;`, newlines or comments"));
        }
        let t = text.trim();
        let t = t.strip_prefix("pub ").map(str::trim_start).unwrap_or(t);
        if let Some(rest) = t.strip_prefix("struct ") {
            let Some((name, body)) = rest.split_once('{') else {
                return Err(bad(
                    "a struct is stated as `struct NAME { field: Type, ... }`",
                ));
            };
            let name = name.trim();
            let Some(fields) = body.trim_end().strip_suffix('}') else {
                return Err(bad("a struct's fields end with `}`"));
            };
            if fields.contains(['{', '}']) {
                return Err(bad("a struct's fields may not contain braces"));
            }
            if !is_ident(name) || name == "_" {
                return Err(bad(
                    "not a Rust identifier (a struct is stated as `struct NAME { field: Type, ... }`, without generics)",
                ));
            }
            return Ok(Item {
                name: name.to_string(),
                ty: fields.trim().to_string(),
                is_struct: true,
            });
        }
        let (name, ty) = match text.split_once(':') {
            Some((n, t)) => (n.trim(), Some(t.trim())),
            None => (text.trim(), None),
        };
        if !is_ident(name) || name == "_" {
            return Err(bad("not a Rust identifier (expected NAME or NAME: TYPE)"));
        }
        let Some(t) = ty else {
            return Err(bad(
                "state its type (`NAME: fn(ARGS) -> RESULT`): a Rust test calls the solution \
                 in another component, through a copy of each value, so dixit needs the types",
            ));
        };
        if t.is_empty() {
            return Err(bad("no type after `:`"));
        }
        if t.contains(['{', '}']) {
            return Err(bad("a type may not contain braces"));
        }
        Ok(Item {
            name: name.to_string(),
            ty: t.to_string(),
            is_struct: false,
        })
    }
}

fn is_ident(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

impl std::fmt::Display for Item {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_struct {
            write!(f, "pub struct {} {{ {} }}", self.name, self.ty)
        } else {
            write!(f, "{}: {}", self.name, self.ty)
        }
    }
}

/// What a project states about its interface, before the headers are read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum StatedInterface {
    /// Nothing stated: a C/C++ test sees dixit's SDK only, a Rust test an empty `solution` crate.
    #[default]
    None,
    /// C/C++ header files (host paths).
    Headers(Vec<PathBuf>),
    /// Rust items, as written (`NAME` or `NAME: TYPE`).
    Items(Vec<String>),
    /// Python functions and classes, as written (`NAME` or `NAME: METHOD, ...`).
    Names(Vec<String>),
}

#[derive(Clone, Debug, Default)]
enum Kind {
    #[default]
    None,
    Headers(Snapshot),
    Items(Vec<Item>),
    Names(Arc<Names>),
}

/// A stated interface, ready to compile against: headers snapshotted (read-only, private) or
/// items parsed. Part of the cache key of everything built against it.
#[derive(Clone, Debug, Default)]
pub struct LoadedInterface {
    kind: Kind,
    key: String,
}

impl LoadedInterface {
    /// No interface.
    pub fn none() -> LoadedInterface {
        LoadedInterface::default()
    }

    /// Snapshots the headers or parses the items of `stated`. Headers are read with the size
    /// cap of a test file, as regular files, and copied under their file names.
    pub fn load(
        cache: &ArtifactCache,
        stated: &StatedInterface,
    ) -> Result<LoadedInterface, InterfaceError> {
        match stated {
            StatedInterface::None => Ok(LoadedInterface::none()),
            StatedInterface::Headers(paths) => {
                let mut entries: Vec<(PathBuf, Vec<u8>)> = Vec::new();
                for p in paths {
                    let name = header_name(p)?;
                    if entries.iter().any(|(n, _)| n == Path::new(&name)) {
                        return Err(InterfaceError::HeaderName(format!(
                            "two interface headers are named `{name}` (tests include them by \
                             file name)"
                        )));
                    }
                    let bytes =
                        read_capped(p, MAX_TEST_BYTES).map_err(|e| InterfaceError::Header {
                            path: p.clone(),
                            message: e.to_string(),
                        })?;
                    entries.push((PathBuf::from(name), bytes));
                }
                let snap = snapshot_bytes(cache, entries).map_err(|e| InterfaceError::Header {
                    path: paths.first().cloned().unwrap_or_default(),
                    message: e.to_string(),
                })?;
                let key = hash_parts([b"interface-headers-v1".as_slice(), snap.hash.as_bytes()]);
                Ok(LoadedInterface {
                    kind: Kind::Headers(snap),
                    key,
                })
            }
            StatedInterface::Items(texts) => {
                let items = Item::parse_all(texts)?;
                let shown: Vec<String> = items.iter().map(Item::to_string).collect();
                let key = hash_parts(
                    [b"interface-items-v1".as_slice()]
                        .into_iter()
                        .chain(shown.iter().map(|s| s.as_bytes())),
                );
                Ok(LoadedInterface {
                    kind: Kind::Items(items),
                    key,
                })
            }
            StatedInterface::Names(texts) => Ok(LoadedInterface::names(Names::parse(texts)?)),
        }
    }

    /// A Python interface.
    pub fn names(names: Names) -> LoadedInterface {
        let key = hash_parts([
            b"interface-python-v1".as_slice(),
            names.to_json().as_bytes(),
        ]);
        LoadedInterface {
            kind: Kind::Names(Arc::new(names)),
            key,
        }
    }

    /// Whether nothing is stated.
    pub fn is_none(&self) -> bool {
        matches!(self.kind, Kind::None)
    }

    /// A hash of what is stated (empty for none): part of every cache key built against it.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The folder holding the headers (C/C++), for include paths.
    pub fn header_dir(&self) -> Option<&Path> {
        match &self.kind {
            Kind::Headers(s) => Some(&s.dir),
            _ => None,
        }
    }

    /// The headers by file name with their text (C/C++), e.g. to journal them.
    pub fn header_files(&self) -> Vec<(String, String)> {
        match &self.kind {
            Kind::Headers(s) => s
                .files
                .iter()
                .map(|f| {
                    let text = std::fs::read_to_string(s.dir.join(f)).unwrap_or_default();
                    (f.display().to_string(), text)
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Every identifier written in the headers (C/C++), declared or not: a superset of the
    /// names the interface gives a test.
    pub fn header_identifiers(&self) -> std::collections::HashSet<String> {
        let mut out = std::collections::HashSet::new();
        for (_, text) in self.header_files() {
            let mut word = String::new();
            for c in text.chars().chain([' ']) {
                if c == '_' || c.is_ascii_alphanumeric() {
                    word.push(c);
                } else if !word.is_empty() {
                    if !word.starts_with(|c: char| c.is_ascii_digit()) {
                        out.insert(std::mem::take(&mut word));
                    }
                    word.clear();
                }
            }
        }
        out
    }

    /// The functions the headers declare, read as C or (`cxx`) C++, each with how its
    /// arguments and result cross between the test's component and the solution's; an error
    /// names what cannot cross. No interface declares none.
    pub(crate) fn signatures(
        &self,
        cxx: bool,
    ) -> Result<super::signatures::Signatures, super::wit::WitError> {
        let mut text = String::new();
        for (_, t) in self.header_files() {
            text.push_str(&t);
            text.push('\n');
        }
        Ok(if cxx {
            super::signatures::Signatures::Cpp(super::wit_cpp::parse_cpp_header(&text)?)
        } else {
            super::signatures::Signatures::C(super::wit::Signature::parse_header(&text)?)
        })
    }

    /// The Python functions and classes (empty for none).
    pub fn python(&self) -> Arc<Names> {
        match &self.kind {
            Kind::Names(n) => n.clone(),
            _ => Arc::default(),
        }
    }

    /// The Rust items.
    pub fn items(&self) -> &[Item] {
        match &self.kind {
            Kind::Items(i) => i,
            _ => &[],
        }
    }

    /// One line saying what is stated, for messages.
    pub fn describe(&self) -> String {
        match &self.kind {
            Kind::None => "none".into(),
            Kind::Headers(s) => s
                .files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            Kind::Items(i) => i.iter().map(Item::to_string).collect::<Vec<_>>().join(", "),
            Kind::Names(n) => n.entries().join("; "),
        }
    }

    /// A test's build `log` with a note when no interface is stated and the test looked for
    /// one: tests compile against the project's interface, never against a solution's files.
    pub(crate) fn hint_unstated(&self, log: String, kind: TestKind) -> String {
        let looked = match kind {
            TestKind::C | TestKind::Cpp => log.contains("file not found"),
            TestKind::Rust => log.contains("solution"),
            _ => false,
        };
        if !self.is_none() || !looked {
            return log;
        }
        let how = match kind {
            TestKind::Rust => {
                "the items tests may use: `[project] interface = [\"NAME\", ...]` in dixit.toml, \
                 or `--interface NAME` for dixit exec and classify"
            }
            _ => {
                "the header tests include: `[project] interface = \"interface/solution.h\"` in \
                 dixit.toml, or `--interface FILE` for dixit exec and classify"
            }
        };
        format!(
            "no interface is stated ({how}); a test never compiles against a solution's own \
             files\n{log}"
        )
    }
}

/// The file name tests include a header by; it must be a C/C++ header by extension.
fn header_name(p: &Path) -> Result<String, InterfaceError> {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = Path::new(&name).extension().and_then(|e| e.to_str());
    if !matches!(ext, Some("h" | "hh" | "hpp" | "hxx")) {
        return Err(InterfaceError::HeaderName(format!(
            "{}: an interface header ends in .h, .hh, .hpp or .hxx",
            p.display()
        )));
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_parse_names_and_types() {
        assert_eq!(
            Item::parse("add: fn(i32, i32) -> i32").unwrap(),
            Item {
                name: "add".into(),
                ty: "fn(i32, i32) -> i32".into(),
                is_struct: false,
            }
        );
        let items = Item::parse_all(&[
            "pub struct Point { pub x: i32, y: i32 }".into(),
            "dist: fn(&Point, Point) -> f64".into(),
        ])
        .unwrap();
        assert!(items[0].is_struct);
        assert_eq!(
            items[0].to_string(),
            "pub struct Point { pub x: i32, y: i32 }"
        );
        for (bad, says) in [
            (
                vec!["dist: fn(&Point) -> f64", "struct Point { x: i32 }"],
                "`Point` is not a type",
            ),
            (
                vec!["struct P { x: i32 }", "struct P { y: i32 }"],
                "stated twice",
            ),
            (vec!["struct P { x: &str }"], "cannot borrow"),
            (vec!["struct P { next: Vec<P> }"], "`P` is not a type"),
            (vec!["struct P {}"], "no fields"),
            (vec!["struct P<T> { x: T }"], "not a Rust identifier"),
            (vec!["struct String { x: i32 }"], "already carries"),
            (vec!["struct P { x: i32 } fn evil() {}"], "braces"),
        ] {
            let texts: Vec<String> = bad.iter().map(|s| s.to_string()).collect();
            let e = Item::parse_all(&texts).unwrap_err().to_string();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
        assert_eq!(
            Item::parse(" answer : fn() -> i32 ").unwrap().name,
            "answer"
        );
        for bad in [
            "Stack",
            "f: i32",
            "f: fn(&mut Vec<i32>)",
            "",
            "1x",
            "a-b",
            "_",
            "f: ",
            "f: i32; fn evil() {}",
            "f: i32 // x",
        ] {
            assert!(Item::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn headers_need_a_header_extension() {
        assert!(header_name(Path::new("interface/solution.h")).is_ok());
        assert!(header_name(Path::new("interface/solution.c")).is_err());
    }
}
