//! I/O tests: the solution is a program, run on the input of a case ([`IoCase`], parsed in
//! `io_case.rs`), and its output is judged by comparison or by a checker program with testlib
//! exit codes.

use std::path::PathBuf;

use super::builds::{Builds, Toolchain};
use super::error::{sandbox_message, BuildError, BuildFailure};
use super::io_case::{Checker, IoCase};
use super::runnable::{once, Runnable, Solution, Test};
use super::snapshot;
use super::Language;
use crate::sandbox::{
    CompileSide, Completion, Entry, Limits, Preopen, ProgramKind, RuntimeMode, Verdict, VerdictKind,
};

/// The toolchain of I/O tests, and of prebuilt programs (`main.wasm`), which take only those: a
/// test runs the solution's program (built by its language's toolchain) and judges its output,
/// by comparison or with a checker program.
pub(super) struct IoToolchain;

impl IoToolchain {
    /// A checker program for an I/O test, built from its one source file.
    fn checker<'t>(
        &self,
        tc: &dyn Builds,
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
            .map_err(|e| BuildError::new(side, BuildFailure::Host, e.to_string()))?;
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
        tc: &dyn Builds,
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
    fn prepare_solution(&self, _tc: &dyn Builds, _s: &Solution) -> Result<(), BuildError> {
        Err(BuildError::new(
            CompileSide::Solution,
            BuildFailure::Sources,
            "a prebuilt .wasm solution can only take I/O tests",
        ))
    }

    fn prepare_test(&self, tc: &dyn Builds, t: &Test) -> Result<(), BuildError> {
        match t.io.as_ref().and_then(|c| c.checker.as_ref()) {
            Some(c) => self.checker(tc, t, c).map(|_| ()),
            None => Ok(()),
        }
    }

    fn unit_test(&self, _: &dyn Builds, _: &Solution, _: &Test) -> Result<Runnable, BuildError> {
        Err(BuildError::new(
            CompileSide::Test,
            BuildFailure::Sources,
            "an I/O test is not a unit test",
        ))
    }

    /// A prebuilt program: a command module's `_start`, or a component's `run` in mode `main`.
    fn program(&self, tc: &dyn Builds, s: &Solution) -> Result<Runnable, BuildError> {
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
            ProgramKind::Module | ProgramKind::Pair => Entry::Start {
                argv: vec!["main".into()],
            },
            ProgramKind::Component => Entry::Call {
                mode: RuntimeMode::Main,
                target: String::new(),
                args: vec![],
                code: std::sync::Arc::from(Vec::new()),
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
        tc: &dyn Builds,
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
                .map_err(|d| (VerdictKind::WrongAnswer, d.to_string())),
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
