//! The library interposition guard for C and C++ solutions.
//!
//! A solution is linked into one program with its test and the C runtime. In a static link, a
//! definition in an object file wins over the library's: a solution that defines `strcmp` (or
//! `_Exit`, `exit`, `__main_void`, ...) replaces it for the test too, and could make a failing
//! test look like a pass. So a solution may not define any symbol the C runtime defines (crt1,
//! the C library, compiler-rt), nor one the C++ libraries define strongly (their weak
//! definitions are template instantiations any C++ object repeats, and the replaceable
//! `operator new`), nor a name the linker reserves.
//!
//! The symbols come from the `linking` custom section of the wasm relocatable objects (the
//! solution's, and every member of the system archives), read with wasmparser.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use wasmparser::{KnownCustom, Linking, Parser, Payload, SymbolFlags, SymbolInfo};

/// A symbol an object defines (globally or weakly; local symbols are private to the object).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Defined {
    pub name: String,
    pub weak: bool,
}

/// The symbols the system libraries of one compiler define.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct SystemSymbols {
    names: HashSet<String>,
}

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
    pub fn load(c_runtime: &[PathBuf], cxx_runtime: &[PathBuf]) -> Result<SystemSymbols, String> {
        let mut names = HashSet::new();
        for (paths, weak_too) in [(c_runtime, true), (cxx_runtime, false)] {
            for p in paths {
                let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
                for member in objects_of(&bytes).map_err(|e| format!("{}: {e}", p.display()))? {
                    // A member that is not a wasm object (an archive index, say) defines nothing.
                    for d in defined_symbols(member).unwrap_or_default() {
                        if weak_too || !d.weak {
                            names.insert(d.name);
                        }
                    }
                }
            }
        }
        if names.is_empty() {
            return Err("no symbols found in the system libraries".into());
        }
        Ok(SystemSymbols { names })
    }

    /// The symbols `object` defines that it may not: library symbols and linker names, sorted.
    pub fn interposed(&self, object: &[u8]) -> Result<Vec<String>, String> {
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

/// The refusal of a solution whose object `file` defines `names`.
pub(crate) fn interposition_error(file: &Path, names: &[String]) -> String {
    let shown: Vec<String> = names.iter().take(5).map(|n| format!("`{n}`")).collect();
    let more = names.len().saturating_sub(shown.len());
    format!(
        "{}: defines {}{}, which the C runtime provides: a solution may not replace library \
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
pub(crate) fn defined_symbols(object: &[u8]) -> Result<Vec<Defined>, String> {
    let mut out = Vec::new();
    for payload in Parser::new(0).parse_all(object) {
        let payload = payload.map_err(|e| format!("not a wasm object: {e}"))?;
        let Payload::CustomSection(c) = payload else {
            continue;
        };
        let KnownCustom::Linking(reader) = c.as_known() else {
            continue;
        };
        for sub in reader.subsections() {
            let Linking::SymbolTable(table) = sub.map_err(|e| e.to_string())? else {
                continue;
            };
            for sym in table {
                let (flags, name) = match sym.map_err(|e| e.to_string())? {
                    SymbolInfo::Func { flags, name, .. }
                    | SymbolInfo::Global { flags, name, .. }
                    | SymbolInfo::Event { flags, name, .. }
                    | SymbolInfo::Table { flags, name, .. } => (flags, name),
                    SymbolInfo::Data { flags, name, .. } => (flags, Some(name)),
                    SymbolInfo::Section { .. } => continue,
                };
                if flags.intersects(SymbolFlags::UNDEFINED | SymbolFlags::BINDING_LOCAL) {
                    continue;
                }
                if let Some(name) = name {
                    out.push(Defined {
                        name: name.to_string(),
                        weak: flags.contains(SymbolFlags::BINDING_WEAK),
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The wasm objects in a file: the file itself, or the members of an `ar` archive.
fn objects_of(bytes: &[u8]) -> Result<Vec<&[u8]>, String> {
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
            .ok_or("a corrupt archive member header")?;
        let start = at + 60;
        let end = start.checked_add(size).filter(|e| *e <= bytes.len());
        let end = end.ok_or("an archive member runs past the end")?;
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
