//! The languages solutions are written in and the kinds of tests, as files name them.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A language coders write solutions in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    /// Python.
    Python,
    /// C.
    C,
    /// C++.
    Cpp,
    /// Rust.
    Rust,
    /// A prebuilt WebAssembly command module (`main.wasm`): I/O tests only.
    Wasm,
}

impl Language {
    /// The name used in config files and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Rust => "rust",
            Language::Wasm => "wasm",
        }
    }

    /// Guesses the language of a solution folder from its files.
    pub fn detect(files: &[PathBuf]) -> Option<Language> {
        let has = |exts: &[&str]| {
            files.iter().any(|f| {
                f.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| exts.contains(&e))
            })
        };
        if has(&["py"]) {
            Some(Language::Python)
        } else if has(&["rs"]) {
            Some(Language::Rust)
        } else if has(&["cpp", "cc", "cxx"]) {
            Some(Language::Cpp)
        } else if has(&["c"]) {
            Some(Language::C)
        } else if has(&["wasm"]) {
            Some(Language::Wasm)
        } else {
            None
        }
    }
}

/// A language name dixit does not know (as `--language` takes it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown language `{name}` (expected python, c, cpp, rust or wasm)")]
pub struct UnknownLanguage {
    /// The name as given.
    pub name: String,
}

impl std::str::FromStr for Language {
    type Err = UnknownLanguage;
    fn from_str(s: &str) -> Result<Self, UnknownLanguage> {
        match s {
            "python" => Ok(Language::Python),
            "c" => Ok(Language::C),
            "cpp" | "c++" => Ok(Language::Cpp),
            "rust" => Ok(Language::Rust),
            "wasm" => Ok(Language::Wasm),
            _ => Err(UnknownLanguage {
                name: s.to_string(),
            }),
        }
    }
}

/// What kind of test a file is, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestKind {
    /// A Python test script (`.py`).
    Python,
    /// A C test program (`.c`).
    C,
    /// A C++ test program (`.cpp`, `.cc`, `.cxx`).
    Cpp,
    /// A Rust test program (`.rs`).
    Rust,
    /// An I/O test: stdin and the expected stdout (`.toml`).
    Io,
}

impl TestKind {
    /// The kind of a test file, by extension.
    pub fn from_path(p: &Path) -> Option<TestKind> {
        match p.extension().and_then(|e| e.to_str())? {
            "py" => Some(TestKind::Python),
            "c" => Some(TestKind::C),
            "cpp" | "cc" | "cxx" => Some(TestKind::Cpp),
            "rs" => Some(TestKind::Rust),
            "toml" => Some(TestKind::Io),
            _ => None,
        }
    }

    /// The language a solution needs for this test kind (`None` for I/O: any).
    pub fn language(self) -> Option<Language> {
        match self {
            TestKind::Python => Some(Language::Python),
            TestKind::C => Some(Language::C),
            TestKind::Cpp => Some(Language::Cpp),
            TestKind::Rust => Some(Language::Rust),
            TestKind::Io => None,
        }
    }

    /// Whether a solution in `language` can take tests of this kind: a solution in the test's
    /// language (C and C++ mix), or any program for an I/O test.
    pub fn accepts(self, language: Language) -> bool {
        let c_family = |l| matches!(l, Language::C | Language::Cpp);
        match self.language() {
            None => true,
            Some(needed) => needed == language || (c_family(needed) && c_family(language)),
        }
    }

    /// The file extension tests of this kind use.
    pub fn extension(self) -> &'static str {
        match self {
            TestKind::Python => "py",
            TestKind::C => "c",
            TestKind::Cpp => "cpp",
            TestKind::Rust => "rs",
            TestKind::Io => "toml",
        }
    }
}

/// The file an implementation of `lang` for tests of `kind` lives in (where a coder's unnamed
/// code block goes), and the extensions it may write.
pub fn solution_files(lang: Language, kind: TestKind) -> (&'static str, &'static [&'static str]) {
    match (lang, kind) {
        (Language::Python, TestKind::Io) => ("main.py", &["py"]),
        (Language::Python, _) => ("solution.py", &["py"]),
        (Language::C, TestKind::Io) => ("main.c", &["c", "h"]),
        (Language::C, _) => ("solution.c", &["c", "h"]),
        (Language::Cpp, TestKind::Io) => ("main.cpp", &["cpp", "h", "hpp"]),
        (Language::Cpp, _) => ("solution.cpp", &["cpp", "h", "hpp"]),
        (Language::Rust, TestKind::Io) => ("main.rs", &["rs"]),
        (Language::Rust, _) => ("lib.rs", &["rs"]),
        (Language::Wasm, _) => ("main.wasm", &[]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_kinds_by_extension() {
        let kind = |p: &str| TestKind::from_path(Path::new(p));
        assert_eq!(kind("t.py"), Some(TestKind::Python));
        assert_eq!(kind("dir/t.c"), Some(TestKind::C));
        assert_eq!(kind("t.cc"), Some(TestKind::Cpp));
        assert_eq!(kind("t.rs"), Some(TestKind::Rust));
        assert_eq!(kind("t.toml"), Some(TestKind::Io));
        assert_eq!(kind("t.txt"), None);
        assert_eq!(kind("Makefile"), None);
    }

    #[test]
    fn solution_languages_by_files() {
        let detect =
            |files: &[&str]| Language::detect(&files.iter().map(PathBuf::from).collect::<Vec<_>>());
        assert_eq!(detect(&["solution.py"]), Some(Language::Python));
        assert_eq!(detect(&["solution.c", "solution.h"]), Some(Language::C));
        assert_eq!(detect(&["a.c", "b.cpp"]), Some(Language::Cpp));
        assert_eq!(detect(&["src/lib.rs"]), Some(Language::Rust));
        assert_eq!(detect(&["main.wasm"]), Some(Language::Wasm));
        assert_eq!(detect(&["notes.txt"]), None);
        assert_eq!("c++".parse::<Language>(), Ok(Language::Cpp));
        assert!("cobol".parse::<Language>().is_err());
    }
}
