//! The library interposition guard for C and C++ solutions.
//!
//! A solution is linked into its own component with the C runtime (the test into another; see
//! `wit.rs`). In a static link, a definition in an object file wins over the library's: a
//! solution that defines `strcmp` (or `_Exit`, `exit`, `__main_void`, ...) replaces it for its
//! own component, and could slip past what dixit's glue relies on there (the `_Exit` wrapper,
//! the flush after each call). So a solution may not define any symbol the C runtime defines
//! (crt1, the C library, compiler-rt), nor one the C++ libraries define strongly (their weak
//! definitions are template instantiations any C++ object repeats, and the replaceable
//! `operator new`), nor a name the linker reserves.
//!
//! A test's object is held to the same rule (a test defining `malloc` or `strcmp` would steer
//! the runtime under its own checks), except for its own `main`, and may use only the runtime's
//! names and the interface's.
//!
//! The symbols come from the `linking` custom section of the wasm relocatable objects (the
//! solution's, the test's, and every member of the system archives), read with wasmparser.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use wasmparser::{KnownCustom, Linking, Parser, Payload, SymbolFlags, SymbolInfo, TypeRef};

/// Why the symbols of an object or a system library could not be read.
#[derive(Clone, Debug, thiserror::Error)]
pub enum SymbolsError {
    /// A system library that could not be read.
    #[error("{}: {error}", path.display())]
    Unreadable {
        /// The library.
        path: PathBuf,
        /// The I/O error.
        error: Arc<std::io::Error>,
    },
    /// A system library that is an `ar` archive this reader cannot split.
    #[error("{}: {problem}", path.display())]
    Archive {
        /// The library.
        path: PathBuf,
        /// What is wrong with it.
        problem: ArchiveProblem,
    },
    /// The system libraries define nothing: not the wasm32-wasi libraries dixit expects.
    #[error("no symbols found in the system libraries")]
    NoSystemSymbols,
    /// Bytes that do not parse as WebAssembly.
    #[error("not a wasm object: {0}")]
    NotWasm(wasmparser::BinaryReaderError),
    /// A wasm object whose imports or `linking` section do not parse.
    #[error("{0}")]
    Malformed(wasmparser::BinaryReaderError),
}

/// What is wrong with an `ar` archive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveProblem {
    /// A member's header does not give its size.
    #[error("a corrupt archive member header")]
    Header,
    /// A member's size reaches past the end of the file.
    #[error("an archive member runs past the end")]
    Truncated,
}

/// A symbol an object defines (globally or weakly; local symbols are private to the object).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Defined {
    pub name: String,
    pub weak: bool,
}

/// What one object defines and what it needs from elsewhere.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ObjectSymbols {
    /// Global and weak definitions.
    pub defined: Vec<Defined>,
    /// Names it refers to without defining them (resolved by the link).
    pub undefined: Vec<String>,
}

impl ObjectSymbols {
    /// Reads the symbol table of one wasm relocatable object.
    pub(super) fn read(object: &[u8]) -> Result<ObjectSymbols, SymbolsError> {
        symbol_table(object)
    }
}

/// The symbols the system libraries of one compiler define.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct SystemSymbols {
    /// Reserved: every C-runtime definition, the C++ libraries' strong ones.
    names: HashSet<String>,
    /// The C++ libraries' weak definitions (template instantiations): an object may repeat
    /// them, but a solution may not be the one that supplies them to a test.
    cxx_weak: HashSet<String>,
}

/// The names a test's own entry defines (clang gives `main` these aliases on wasm32-wasi), which
/// the C library also defines weakly as fallbacks.
const TEST_ENTRY_NAMES: &[&str] = &["main", "__main_void", "__main_argc_argv", "__original_main"];

/// Names the linker defines or reserves.
const LINKER_NAMES: &[&str] = &[
    "__stack_pointer",
    "__heap_base",
    "__heap_end",
    "__data_end",
    "__global_base",
    "__memory_base",
    "__table_base",
    "__dso_handle",
    "__indirect_function_table",
    "__tls_base",
    "__tls_size",
    "__tls_align",
    "__stack_low",
    "__stack_high",
    "_start",
    "_initialize",
];

impl SystemSymbols {
    /// Reads the symbols of the C runtime libraries (`c_runtime`: every definition counts) and
    /// of the C++ libraries (`cxx_runtime`: strong definitions only).
    pub(super) fn load(
        c_runtime: &[PathBuf],
        cxx_runtime: &[PathBuf],
    ) -> Result<SystemSymbols, SymbolsError> {
        let mut names = HashSet::new();
        let mut cxx_weak = HashSet::new();
        for (paths, weak_too) in [(c_runtime, true), (cxx_runtime, false)] {
            for p in paths {
                let bytes = std::fs::read(p).map_err(|e| SymbolsError::Unreadable {
                    path: p.clone(),
                    error: Arc::new(e),
                })?;
                let members = objects_of(&bytes).map_err(|problem| SymbolsError::Archive {
                    path: p.clone(),
                    problem,
                })?;
                for member in members {
                    // A member that is not a wasm object (an archive index, say) defines nothing.
                    for d in defined_symbols(member).unwrap_or_default() {
                        if weak_too || !d.weak {
                            names.insert(d.name);
                        } else {
                            cxx_weak.insert(d.name);
                        }
                    }
                }
            }
        }
        if names.is_empty() {
            return Err(SymbolsError::NoSystemSymbols);
        }
        cxx_weak.retain(|n| !names.contains(n));
        Ok(SystemSymbols { names, cxx_weak })
    }

    /// Whether a runtime library defines `name` at all (any binding).
    fn is_runtime(&self, name: &str) -> bool {
        self.names.contains(name) || self.cxx_weak.contains(name)
    }

    /// The symbols a test's object defines that it may not: what the runtime reserves, except
    /// the test's own entry (`main` and the aliases clang gives it).
    pub(super) fn interposed_by_test(&self, object: &[u8]) -> Result<Vec<String>, SymbolsError> {
        let mut bad = self.interposed(object)?;
        bad.retain(|n| !TEST_ENTRY_NAMES.contains(&n.as_str()));
        Ok(bad)
    }

    /// The names a test's object uses that neither the runtime nor the interface gives it:
    /// anything else would be found, if at all, in a solution (a global or helper of one
    /// coder's), and a test could single out the coders who have it. `declared` are the
    /// identifiers of the interface headers; a C++ name counts as declared when its mangling
    /// names one of them (`_ZN5Stack4pushEi` names `Stack`).
    pub(super) fn beyond_interface(
        &self,
        test: &ObjectSymbols,
        declared: &HashSet<String>,
    ) -> Vec<String> {
        let mut out: Vec<String> = test
            .undefined
            .iter()
            .filter(|n| {
                !(self.is_runtime(n)
                    || LINKER_NAMES.contains(&n.as_str())
                    || n.starts_with("__wasm")
                    || declared.contains(n.as_str())
                    || (n.starts_with("_Z") && names_one_of(n, declared)))
            })
            .cloned()
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The symbols `object` defines that it may not: library symbols and linker names, sorted.
    pub(super) fn interposed(&self, object: &[u8]) -> Result<Vec<String>, SymbolsError> {
        let mut bad: Vec<String> = defined_symbols(object)?
            .into_iter()
            .map(|d| d.name)
            .filter(|n| {
                self.names.contains(n)
                    || LINKER_NAMES.contains(&n.as_str())
                    || n.starts_with("__wasm")
            })
            .collect();
        bad.sort();
        bad.dedup();
        Ok(bad)
    }
}

/// Whether an Itanium-mangled name contains `<length><identifier>` for one of `names`.
fn names_one_of(mangled: &str, names: &HashSet<String>) -> bool {
    let b = mangled.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_digit()) {
            let mut j = i;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if let Ok(len) = mangled[i..j].parse::<usize>() {
                if let Some(id) = mangled.get(j..j + len) {
                    if names.contains(id) {
                        return true;
                    }
                }
            }
            i = j;
        } else {
            i += 1;
        }
    }
    false
}

/// The refusal of an object (`who`: "a solution" or "a test") whose source `file` defines
/// `names`.
pub(crate) fn interposition_error(file: &Path, names: &[String], who: &str) -> String {
    let shown: Vec<String> = names.iter().take(5).map(|n| format!("`{n}`")).collect();
    let more = names.len().saturating_sub(shown.len());
    format!(
        "{}: defines {}{}, which the C runtime provides: {who} may not replace library \
         functions (rename them)",
        file.display(),
        shown.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

/// The defined, non-local symbols of one wasm relocatable object.
pub(crate) fn defined_symbols(object: &[u8]) -> Result<Vec<Defined>, SymbolsError> {
    Ok(symbol_table(object)?.defined)
}

/// The defined (non-local) and undefined symbols of one wasm relocatable object. An undefined
/// function or global without an explicit name is named by its import.
fn symbol_table(object: &[u8]) -> Result<ObjectSymbols, SymbolsError> {
    let mut out = ObjectSymbols::default();
    let (mut funcs, mut globals, mut tags, mut tables) = (vec![], vec![], vec![], vec![]);
    for payload in Parser::new(0).parse_all(object) {
        let payload = payload.map_err(SymbolsError::NotWasm)?;
        if let Payload::ImportSection(imports) = &payload {
            for import in imports.clone().into_imports() {
                let import = import.map_err(SymbolsError::Malformed)?;
                let name = import.name.to_string();
                match import.ty {
                    TypeRef::Func(_) | TypeRef::FuncExact(_) => funcs.push(name),
                    TypeRef::Global(_) => globals.push(name),
                    TypeRef::Tag(_) => tags.push(name),
                    TypeRef::Table(_) => tables.push(name),
                    TypeRef::Memory(_) => {}
                }
            }
            continue;
        }
        let Payload::CustomSection(c) = payload else {
            continue;
        };
        let KnownCustom::Linking(reader) = c.as_known() else {
            continue;
        };
        for sub in reader.subsections() {
            let Linking::SymbolTable(table) = sub.map_err(SymbolsError::Malformed)? else {
                continue;
            };
            for sym in table {
                let imported = |names: &[String], index: u32| names.get(index as usize).cloned();
                let (flags, name) = match sym.map_err(SymbolsError::Malformed)? {
                    SymbolInfo::Func { flags, name, index } => (
                        flags,
                        name.map(str::to_string).or_else(|| imported(&funcs, index)),
                    ),
                    SymbolInfo::Global { flags, name, index } => (
                        flags,
                        name.map(str::to_string)
                            .or_else(|| imported(&globals, index)),
                    ),
                    SymbolInfo::Event { flags, name, index } => (
                        flags,
                        name.map(str::to_string).or_else(|| imported(&tags, index)),
                    ),
                    SymbolInfo::Table { flags, name, index } => (
                        flags,
                        name.map(str::to_string)
                            .or_else(|| imported(&tables, index)),
                    ),
                    SymbolInfo::Data { flags, name, .. } => (flags, Some(name.to_string())),
                    SymbolInfo::Section { .. } => continue,
                };
                if flags.contains(SymbolFlags::BINDING_LOCAL) {
                    continue;
                }
                let Some(name) = name else { continue };
                if flags.contains(SymbolFlags::UNDEFINED) {
                    out.undefined.push(name);
                } else {
                    out.defined.push(Defined {
                        name,
                        weak: flags.contains(SymbolFlags::BINDING_WEAK),
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The wasm objects in a file: the file itself, or the members of an `ar` archive.
fn objects_of(bytes: &[u8]) -> Result<Vec<&[u8]>, ArchiveProblem> {
    const MAGIC: &[u8] = b"!<arch>\n";
    if !bytes.starts_with(MAGIC) {
        return Ok(vec![bytes]);
    }
    let mut members = Vec::new();
    let mut at = MAGIC.len();
    while at + 60 <= bytes.len() {
        let header = &bytes[at..at + 60];
        let size: usize = std::str::from_utf8(&header[48..58])
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .ok_or(ArchiveProblem::Header)?;
        let start = at + 60;
        let end = start.checked_add(size).filter(|e| *e <= bytes.len());
        let end = end.ok_or(ArchiveProblem::Truncated)?;
        // GNU's symbol index (`/`) and long-name table (`//`) are not objects.
        if !header.starts_with(b"/ ") && !header.starts_with(b"// ") {
            members.push(&bytes[start..end]);
        }
        at = end + (size & 1);
    }
    Ok(members)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(defined: &[(&str, bool)], undefined: &[&str]) -> ObjectSymbols {
        ObjectSymbols {
            defined: defined
                .iter()
                .map(|(n, weak)| Defined {
                    name: n.to_string(),
                    weak: *weak,
                })
                .collect(),
            undefined: undefined.iter().map(|n| n.to_string()).collect(),
        }
    }

    #[test]
    fn a_test_uses_the_runtime_and_the_interface_only() {
        let system = SystemSymbols {
            names: ["strcmp".to_string(), "printf".to_string()].into(),
            cxx_weak: HashSet::new(),
        };
        let declared: HashSet<String> = ["answer", "Stack"].map(String::from).into();
        let test = object(
            &[("main", false)],
            &[
                "answer",
                "printf",
                "__stack_pointer",
                "_ZN5Stack4pushEi",
                "secret_counter",
                "_Z6helperv",
            ],
        );
        assert_eq!(
            system.beyond_interface(&test, &declared),
            ["_Z6helperv", "secret_counter"]
        );
        assert!(names_one_of("_ZNK2ns5Stack3topEv", &declared));
        assert!(!names_one_of("_Z10answer_oldv", &declared));
    }

    #[test]
    fn archives_split_into_members() {
        let mut ar = b"!<arch>\n".to_vec();
        for (name, data) in [("/ ", &b"idx"[..]), ("a.o/", b"\0asm"), ("b.o/", b"xy")] {
            let mut h = format!(
                "{name:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                0,
                0,
                0,
                644,
                data.len()
            );
            h.truncate(60);
            ar.extend(h.as_bytes());
            ar.extend(data);
            if data.len() % 2 == 1 {
                ar.push(b'\n');
            }
        }
        let m = objects_of(&ar).unwrap();
        assert_eq!(m, vec![&b"\0asm"[..], &b"xy"[..]]);
        assert_eq!(objects_of(b"\0asm\x01").unwrap().len(), 1);
    }
}
