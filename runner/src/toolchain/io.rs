//! I/O tests: the solution is a program; a test is a TOML file giving stdin (and args) and either
//! the expected stdout with a comparison mode, or a checker program with testlib exit codes.
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

use super::error::{BuildError, BuildFailure};
use super::files::{read_beneath, read_capped};
use super::snapshot;
use super::toolchains::{once, sandbox_message, Runnable, Solution, Test, Toolchain, Toolchains};
use super::Language;
use crate::sandbox::{
    CompileSide, Completion, Entry, Limits, Preopen, ProgramKind, Verdict, VerdictKind,
};

/// The toolchain of I/O tests, and of prebuilt programs (`main.wasm`), which take only those: a
/// test runs the solution's program (built by its language's toolchain) and judges its output,
/// by comparison or with a checker program.
pub(super) struct IoToolchain;

impl IoToolchain {
    /// A checker program for an I/O test, built from its one source file.
    fn checker<'t>(
        &self,
        tc: &Toolchains,
        t: &'t Test,
        c: &Checker,
    ) -> Result<&'t Runnable, BuildError> {
        once(&t.checker, || {
            let side = CompileSide::Test;
            let name = &c.name;
            let snap = snapshot::snapshot_bytes(
                tc.sandbox().cache(),
                vec![(PathBuf::from(name), c.source.clone())],
            )
            .map_err(|e| BuildError::new(side, BuildFailure::Host, e))?;
            let lang =
                Language::detect(std::slice::from_ref(&PathBuf::from(name))).ok_or_else(|| {
                    let log = format!("checker {name}: unknown language");
                    BuildError::new(side, BuildFailure::Sources, log)
                })?;
            let checker = Solution::new(t.path.clone(), snap, lang);
            let mut r = tc
                .solution_program(&checker)
                .map_err(|e| BuildError::new(side, e.failure, format!("checker: {}", e.message)))?
                .clone();
            if let Entry::Call { target, .. } = &mut r.entry {
                *target = format!("/checker/{name}");
            }
            for p in r.preopens.iter_mut().filter(|p| p.guest == "/solution") {
                p.guest = "/checker".into();
            }
            Ok(r)
        })
    }

    /// Runs the checker on the case's input, the solution's `output` and the expected answer;
    /// `Err` is the verdict it gives and why. Also returns the checker's own run, if it ran.
    fn run_checker(
        tc: &Toolchains,
        checker: &Runnable,
        case: &IoCase,
        output: &[u8],
        seed: u64,
        limits: &Limits,
    ) -> (Result<(), (VerdictKind, String)>, Option<Verdict>) {
        let files = match tempfile::tempdir() {
            Ok(f) => f,
            Err(e) => return (Err((VerdictKind::InternalError, e.to_string())), None),
        };
        for (name, bytes) in [
            ("input.txt", &case.stdin[..]),
            ("output.txt", output),
            ("answer.txt", case.expected.as_deref().unwrap_or_default()),
        ] {
            if let Err(e) = std::fs::write(files.path().join(name), bytes) {
                return (Err((VerdictKind::InternalError, e.to_string())), None);
            }
        }
        let mut r = checker.with_args(&[
            "/io/input.txt".into(),
            "/io/output.txt".into(),
            "/io/answer.txt".into(),
        ]);
        r.preopens.push(Preopen {
            host: files.path().to_path_buf(),
            guest: "/io".into(),
        });
        let v = tc.run_runnable(&r, Vec::new(), seed, limits);
        let msg = || {
            let s = v.stderr.trim();
            if s.is_empty() {
                v.stdout.trim().chars().take(300).collect()
            } else {
                s.chars().take(300).collect::<String>()
            }
        };
        let judged = match (v.verdict, v.exit_code) {
            (VerdictKind::Pass, _) => Ok(()),
            (_, Some(1)) => Err((
                VerdictKind::WrongAnswer,
                format!("checker: wrong answer: {}", msg()),
            )),
            (_, Some(2)) => Err((
                VerdictKind::WrongAnswer,
                format!("checker: presentation error: {}", msg()),
            )),
            (_, Some(3)) => Err((
                VerdictKind::RuntimeError,
                format!("checker failure: {}", msg()),
            )),
            (kind, _) => Err((
                VerdictKind::RuntimeError,
                format!(
                    "checker crashed ({kind}): {}",
                    v.detail.clone().unwrap_or_default()
                ),
            )),
        };
        (judged, Some(v))
    }
}

impl Toolchain for IoToolchain {
    fn prepare_solution(&self, _tc: &Toolchains, _s: &Solution) -> Result<(), BuildError> {
        Err(BuildError::new(
            CompileSide::Solution,
            BuildFailure::Sources,
            "a prebuilt .wasm solution can only take I/O tests",
        ))
    }

    fn prepare_test(&self, tc: &Toolchains, t: &Test) -> Result<(), BuildError> {
        match t.io.as_ref().and_then(|c| c.checker.as_ref()) {
            Some(c) => self.checker(tc, t, c).map(|_| ()),
            None => Ok(()),
        }
    }

    fn unit_test(&self, _: &Toolchains, _: &Solution, _: &Test) -> Result<Runnable, BuildError> {
        Err(BuildError::new(
            CompileSide::Test,
            BuildFailure::Sources,
            "an I/O test is not a unit test",
        ))
    }

    /// A prebuilt program: a command module's `_start`, or a component's `run` in mode `main`.
    fn program(&self, tc: &Toolchains, s: &Solution) -> Result<Runnable, BuildError> {
        let side = CompileSide::Solution;
        let f = s
            .snapshot
            .files
            .iter()
            .find(|f| f.extension().is_some_and(|e| e == "wasm"))
            .ok_or_else(|| BuildError::new(side, BuildFailure::Sources, "no .wasm file"))?;
        let program = tc
            .sandbox()
            .load_file(&s.snapshot.dir.join(f))
            .map_err(|e| BuildError::new(side, BuildFailure::Link, sandbox_message(e)))?;
        let entry = match program.kind() {
            ProgramKind::Module => Entry::Start {
                argv: vec!["main".into()],
            },
            ProgramKind::Component => Entry::Call {
                mode: "main".into(),
                target: String::new(),
                args: vec![],
            },
        };
        Ok(Runnable {
            program,
            entry,
            preopens: vec![],
            completion: Completion::ExitZero,
            server: None,
        })
    }

    /// Runs the solution's program on the case's input and judges its output.
    fn run(
        &self,
        tc: &Toolchains,
        s: &Solution,
        t: &Test,
        seed: u64,
        limits: &Limits,
    ) -> Result<Verdict, BuildError> {
        let Some(case) = t.io.as_ref() else {
            return Ok(Verdict::not_run(
                VerdictKind::InternalError,
                None,
                "I/O test without a case",
                seed,
            ));
        };
        let prog = tc.solution_program(s)?.with_args(&case.args);
        let checker = match &case.checker {
            Some(c) => Some(self.checker(tc, t, c)?),
            None => None,
        };
        let mut v = tc.run_runnable(&prog, case.stdin.clone(), seed, limits);
        if v.verdict != VerdictKind::Pass {
            return Ok(v);
        }
        let judged = match checker {
            None => case
                .compare(v.stdout.as_bytes())
                .map_err(|d| (VerdictKind::WrongAnswer, d)),
            Some(c) => {
                let (judged, checker) =
                    Self::run_checker(tc, c, case, v.stdout.as_bytes(), seed, limits);
                // The checker's use of entropy or a clock makes the pair's verdict seed-dependent
                // too: without this, `reruns = auto` would skip the reruns of a random checker.
                if let Some(c) = checker {
                    v.read_entropy |= c.read_entropy;
                    v.read_clock |= c.read_clock;
                }
                judged
            }
        };
        if let Err((kind, detail)) = judged {
            v.verdict = kind;
            v.detail = Some(detail);
        }
        Ok(v)
    }
}

/// The largest I/O test file (the TOML itself).
pub const MAX_CASE_BYTES: u64 = 1 << 20;
/// The largest `stdin_file` or `expected_file`.
pub const MAX_DATA_BYTES: u64 = 64 << 20;
/// The largest checker source.
pub const MAX_CHECKER_BYTES: u64 = 1 << 20;

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
    pub name: String,
    pub source: Vec<u8>,
}

/// A parsed I/O test.
#[derive(Clone, Debug)]
pub struct IoCase {
    pub stdin: Vec<u8>,
    pub args: Vec<String>,
    /// Expected stdout (the answer file for a checker).
    pub expected: Option<Vec<u8>>,
    pub compare: Compare,
    pub tolerance: f64,
    pub checker: Option<Checker>,
}

impl IoCase {
    /// Parses an I/O test file; errors name the file, the key and the problem.
    pub fn parse(path: &Path) -> Result<IoCase, String> {
        let shown = path.display();
        let bytes = read_capped(path, MAX_CASE_BYTES).map_err(|e| format!("{shown}: {e}"))?;
        let text = String::from_utf8(bytes).map_err(|_| format!("{shown}: not UTF-8 text"))?;
        let raw: RawCase = toml::from_str(&text).map_err(|e| format!("{shown}: {e}"))?;
        let base = path.parent().unwrap_or(Path::new("."));
        let base = if base.as_os_str().is_empty() {
            Path::new(".")
        } else {
            base
        };
        let read = |key: &str, p: &Path, cap: u64| {
            read_beneath(base, p, cap).map_err(|e| format!("{shown}: `{key}`: {e}"))
        };
        let stdin = match (raw.stdin, raw.stdin_file) {
            (Some(s), None) => s.into_bytes(),
            (None, Some(f)) => read("stdin_file", &f, MAX_DATA_BYTES)?,
            (None, None) => Vec::new(),
            (Some(_), Some(_)) => {
                return Err(format!("{shown}: give `stdin` or `stdin_file`, not both"))
            }
        };
        let expected = match (raw.expected, raw.expected_file) {
            (Some(s), None) => Some(s.into_bytes()),
            (None, Some(f)) => Some(read("expected_file", &f, MAX_DATA_BYTES)?),
            (None, None) => None,
            (Some(_), Some(_)) => {
                return Err(format!(
                    "{shown}: give `expected` or `expected_file`, not both"
                ))
            }
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
            return Err(format!(
                "{shown}: an I/O test needs `expected` (or `expected_file`) or a `checker`"
            ));
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
    pub fn compare(&self, actual: &[u8]) -> Result<(), String> {
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
                    Err(format!("output differs at byte {at}"))
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
                            return Err(format!(
                                "token {i}: expected {:?}, got {:?}",
                                clip(y),
                                clip(x)
                            ))
                        }
                        (None, Some(y)) => {
                            return Err(format!(
                                "token {i}: expected {:?}, got end of output",
                                clip(y)
                            ))
                        }
                        (Some(x), None) => {
                            return Err(format!(
                                "token {i}: expected end of output, got {:?}",
                                clip(x)
                            ))
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
            c.compare(b"1 2").unwrap_err(),
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
