//! An I/O test, parsed ([`IoCase`]): a TOML file giving stdin (and args) and either the expected
//! stdout with a comparison mode, or a checker program with testlib exit codes.
//!
//! ```toml
//! stdin = "3\n1 2 3\n"
//! args = []                 # optional
//! expected = "6\n"
//! compare = "tokens"        # exact | tokens (whitespace-insensitive, the default) | float
//! tolerance = 1e-6          # float: absolute or relative difference allowed
//! # checker = "check.py"    # instead of `expected`: run with `input output answer` paths;
//! #                         # exits 0 ok, 1 wrong answer, 2 presentation error, 3 checker failure
//! ```
//!
//! `stdin_file`, `expected_file` and `checker` name files in the test's own folder: relative, no
//! `..`, no symlinks, regular files, size-capped before reading (see `files.rs`). Anything else
//! makes the test INVALID, with a message that names the key and never echoes a file.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::files::{read_beneath, read_capped, FileError};

/// The largest I/O test file (the TOML itself).
pub(super) const MAX_CASE_BYTES: u64 = 1 << 20;
/// The largest `stdin_file` or `expected_file`.
pub(super) const MAX_DATA_BYTES: u64 = 64 << 20;
/// The largest checker source.
pub(super) const MAX_CHECKER_BYTES: u64 = 1 << 20;

/// Why an I/O test file is invalid: the file, and the problem.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct IoCaseError {
    /// The test file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub problem: IoCaseProblem,
}

/// What is wrong with an I/O test file (see [`IoCaseError`]).
#[derive(Debug, thiserror::Error)]
pub enum IoCaseProblem {
    /// The file itself was refused (missing, too large, not a regular file).
    #[error(transparent)]
    File(FileError),
    /// The file is not UTF-8.
    #[error("not UTF-8 text")]
    NotUtf8,
    /// The file is not valid TOML, or has unknown keys or wrong types.
    #[error(transparent)]
    Toml(toml::de::Error),
    /// The file that `key` names was refused.
    #[error("`{key}`: {error}")]
    Named {
        /// The key that names the file.
        key: &'static str,
        /// Why the file was refused.
        error: FileError,
    },
    /// Both `stdin` and `stdin_file`.
    #[error("give `stdin` or `stdin_file`, not both")]
    BothStdin,
    /// Both `expected` and `expected_file`.
    #[error("give `expected` or `expected_file`, not both")]
    BothExpected,
    /// Neither an expected output nor a checker.
    #[error("an I/O test needs `expected` (or `expected_file`) or a `checker`")]
    NoAnswer,
}

/// Where a program's output first differs from the expected output (a wrong answer's detail).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// Exact comparison: the first byte that differs (or where the shorter output ends).
    #[error("output differs at byte {at}")]
    Byte {
        /// The byte's offset.
        at: usize,
    },
    /// The `index`th token (from 1) differs; both shown clipped to 40 characters.
    #[error("token {index}: expected {expected:?}, got {got:?}")]
    Token {
        /// The token's number (from 1).
        index: usize,
        /// The expected token, clipped.
        expected: String,
        /// The output's token, clipped.
        got: String,
    },
    /// The output ends before the `index`th expected token.
    #[error("token {index}: expected {expected:?}, got end of output")]
    Missing {
        /// The missing token's number (from 1).
        index: usize,
        /// The expected token, clipped.
        expected: String,
    },
    /// The output goes on after the expected tokens end.
    #[error("token {index}: expected end of output, got {got:?}")]
    Extra {
        /// The first extra token's number (from 1).
        index: usize,
        /// That token, clipped.
        got: String,
    },
}

/// How output is compared with the expected output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Compare {
    /// Byte for byte.
    Exact,
    /// Whitespace-separated tokens equal.
    #[default]
    Tokens,
    /// Tokens equal, numbers within `tolerance` (absolute or relative).
    Float,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    stdin: Option<String>,
    stdin_file: Option<PathBuf>,
    #[serde(default)]
    args: Vec<String>,
    expected: Option<String>,
    expected_file: Option<PathBuf>,
    #[serde(default)]
    compare: Compare,
    tolerance: Option<f64>,
    checker: Option<PathBuf>,
}

/// A checker program named by an I/O test: its file name and source, read at parse time.
#[derive(Clone, Debug)]
pub struct Checker {
    /// Its file name.
    pub name: String,
    /// Its source.
    pub source: Vec<u8>,
}

/// A parsed I/O test.
#[derive(Clone, Debug)]
pub struct IoCase {
    /// What the program reads on stdin.
    pub stdin: Vec<u8>,
    /// The program's arguments.
    pub args: Vec<String>,
    /// Expected stdout (the answer file for a checker).
    pub expected: Option<Vec<u8>>,
    /// How output is compared with the expected output.
    pub compare: Compare,
    /// For `float`: the difference allowed, absolute or relative (default 1e-6).
    pub tolerance: f64,
    /// The checker that judges the output, when the test names one.
    pub checker: Option<Checker>,
}

impl IoCase {
    /// Parses an I/O test file; errors name the file, the key and the problem.
    pub fn parse(path: &Path) -> Result<IoCase, IoCaseError> {
        let invalid = |problem| IoCaseError {
            path: path.to_path_buf(),
            problem,
        };
        let bytes =
            read_capped(path, MAX_CASE_BYTES).map_err(|e| invalid(IoCaseProblem::File(e)))?;
        let text = String::from_utf8(bytes).map_err(|_| invalid(IoCaseProblem::NotUtf8))?;
        let raw: RawCase = toml::from_str(&text).map_err(|e| invalid(IoCaseProblem::Toml(e)))?;
        let base = path.parent().unwrap_or(Path::new("."));
        let base = if base.as_os_str().is_empty() {
            Path::new(".")
        } else {
            base
        };
        let read = |key: &'static str, p: &Path, cap: u64| {
            read_beneath(base, p, cap).map_err(|error| invalid(IoCaseProblem::Named { key, error }))
        };
        let stdin = match (raw.stdin, raw.stdin_file) {
            (Some(s), None) => s.into_bytes(),
            (None, Some(f)) => read("stdin_file", &f, MAX_DATA_BYTES)?,
            (None, None) => Vec::new(),
            (Some(_), Some(_)) => return Err(invalid(IoCaseProblem::BothStdin)),
        };
        let expected = match (raw.expected, raw.expected_file) {
            (Some(s), None) => Some(s.into_bytes()),
            (None, Some(f)) => Some(read("expected_file", &f, MAX_DATA_BYTES)?),
            (None, None) => None,
            (Some(_), Some(_)) => return Err(invalid(IoCaseProblem::BothExpected)),
        };
        let checker = match raw.checker {
            None => None,
            Some(c) => Some(Checker {
                name: c
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                source: read("checker", &c, MAX_CHECKER_BYTES)?,
            }),
        };
        if expected.is_none() && checker.is_none() {
            return Err(invalid(IoCaseProblem::NoAnswer));
        }
        Ok(IoCase {
            stdin,
            args: raw.args,
            expected,
            compare: raw.compare,
            tolerance: raw.tolerance.unwrap_or(1e-6),
            checker,
        })
    }

    /// Compares `actual` with the expected output; `Err` says where they first differ.
    pub fn compare(&self, actual: &[u8]) -> Result<(), Mismatch> {
        let expected = self.expected.as_deref().unwrap_or_default();
        match self.compare {
            Compare::Exact => {
                if actual == expected {
                    Ok(())
                } else {
                    let at = actual
                        .iter()
                        .zip(expected)
                        .position(|(a, b)| a != b)
                        .unwrap_or(actual.len().min(expected.len()));
                    Err(Mismatch::Byte { at })
                }
            }
            Compare::Tokens | Compare::Float => {
                let a = String::from_utf8_lossy(actual);
                let e = String::from_utf8_lossy(expected);
                let (mut at, mut et) = (a.split_whitespace(), e.split_whitespace());
                for i in 1.. {
                    match (at.next(), et.next()) {
                        (None, None) => return Ok(()),
                        (Some(x), Some(y)) if x == y => {}
                        (Some(x), Some(y))
                            if self.compare == Compare::Float && close(x, y, self.tolerance) => {}
                        (Some(x), Some(y)) => {
                            return Err(Mismatch::Token {
                                index: i,
                                expected: clip(y),
                                got: clip(x),
                            })
                        }
                        (None, Some(y)) => {
                            return Err(Mismatch::Missing {
                                index: i,
                                expected: clip(y),
                            })
                        }
                        (Some(x), None) => {
                            return Err(Mismatch::Extra {
                                index: i,
                                got: clip(x),
                            })
                        }
                    }
                }
                Ok(())
            }
        }
    }
}

fn close(a: &str, b: &str, tol: f64) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) if x.is_finite() && y.is_finite() => {
            let d = (x - y).abs();
            d <= tol || d <= tol * y.abs()
        }
        _ => false,
    }
}

fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(expected: &str, compare: Compare) -> IoCase {
        IoCase {
            stdin: vec![],
            args: vec![],
            expected: Some(expected.as_bytes().to_vec()),
            compare,
            tolerance: 1e-6,
            checker: None,
        }
    }

    #[test]
    fn exact_is_byte_for_byte() {
        assert!(case("6\n", Compare::Exact).compare(b"6\n").is_ok());
        assert!(case("6\n", Compare::Exact).compare(b"6").is_err());
    }

    #[test]
    fn tokens_ignore_whitespace_but_not_content() {
        let c = case("1 2\n3\n", Compare::Tokens);
        assert!(c.compare(b"1\n2 3").is_ok());
        assert_eq!(
            c.compare(b"1 2").unwrap_err().to_string(),
            "token 3: expected \"3\", got end of output"
        );
        assert!(c.compare(b"1 2 4").is_err());
    }

    #[test]
    fn float_within_tolerance() {
        let c = case("0.3333333 x", Compare::Float);
        assert!(c.compare(b"0.33333331 x").is_ok());
        assert!(c.compare(b"0.3334 x").is_err());
        assert!(c.compare(b"0.3333333 y").is_err());
        assert!(case("1e9", Compare::Float).compare(b"1000000000.5").is_ok());
    }
}
