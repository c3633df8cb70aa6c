//! I/O tests: the solution is a program, run on the input of a case ([`IoCase`], parsed in
//! `io_case.rs`), and its output is judged by comparison or by a checker program with testlib
//! exit codes.

use std::path::PathBuf;

use super::builds::{Builds, Plan, Toolchain};
use super::error::{sandbox_message, BuildError, BuildFailure};
use super::io_case::{Checker, IoCase};
use super::runnable::{once, Runnable, Solution, Test};
use super::snapshot;
use super::Language;
use crate::sandbox::{
    CompileSide, Completion, Entry, Preopen, ProgramKind, RuntimeMode, Verdict, VerdictKind,
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
}

/// The checker's run on the case's input, the solution's `output` and the expected answer, as
/// files it reads from `/io` (testlib's `input output answer` arguments). The directory holding
/// them lives as long as the returned guard.
pub(super) fn checker_run(
    checker: &Runnable,
    case: &IoCase,
    output: &[u8],
) -> Result<(Runnable, tempfile::TempDir), String> {
    let files = tempfile::tempdir().map_err(|e| e.to_string())?;
    for (name, bytes) in [
        ("input.txt", &case.stdin[..]),
        ("output.txt", output),
        ("answer.txt", case.expected.as_deref().unwrap_or_default()),
    ] {
        std::fs::write(files.path().join(name), bytes).map_err(|e| e.to_string())?;
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
    Ok((r, files))
}

/// What the checker's run `v` says of the solution's output, by testlib's exit codes: `Err` is
/// the verdict it gives and why.
pub(super) fn checker_verdict(v: &Verdict) -> Result<(), (VerdictKind, String)> {
    let msg = || {
        let s = v.stderr.trim();
        if s.is_empty() {
            v.stdout.trim().chars().take(300).collect()
        } else {
            s.chars().take(300).collect::<String>()
        }
    };
    match (v.verdict, v.exit_code) {
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

    /// The solution's program on the case's input, judged by comparison or by the checker.
    fn plan<'t>(
        &self,
        tc: &'t dyn Builds,
        s: &'t Solution,
        t: &'t Test,
    ) -> Result<Plan<'t>, BuildError> {
        let Some(case) = t.io.as_ref() else {
            return Ok(Plan::Broken("I/O test without a case"));
        };
        let program = tc.solution_program(s)?.with_args(&case.args);
        let checker = match &case.checker {
            Some(c) => Some(self.checker(tc, t, c)?),
            None => None,
        };
        Ok(Plan::Io {
            program,
            case,
            checker,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(kind: VerdictKind, exit: Option<i32>, stderr: &str) -> Verdict {
        Verdict {
            exit_code: exit,
            stderr: stderr.into(),
            ..Verdict::not_run(kind, None, "the checker's own detail", 0)
        }
    }

    /// testlib's exit codes: 0 accepts, 1 and 2 (wrong answer, presentation error) reject the
    /// output, 3 is the checker's own failure, and a checker that crashed says how.
    #[test]
    fn the_checker_judges_by_testlib_exit_codes() {
        assert_eq!(
            checker_verdict(&ran(VerdictKind::Pass, Some(0), "")),
            Ok(())
        );
        let judged = |exit, stderr| checker_verdict(&ran(VerdictKind::WrongAnswer, exit, stderr));
        assert_eq!(
            judged(Some(1), "expected 3, got 4"),
            Err((
                VerdictKind::WrongAnswer,
                "checker: wrong answer: expected 3, got 4".into()
            ))
        );
        assert_eq!(
            judged(Some(2), "trailing text"),
            Err((
                VerdictKind::WrongAnswer,
                "checker: presentation error: trailing text".into()
            ))
        );
        assert_eq!(
            judged(Some(3), ""),
            Err((VerdictKind::RuntimeError, "checker failure: ".into()))
        );
        assert_eq!(
            checker_verdict(&ran(VerdictKind::TimeLimit, None, "")),
            Err((
                VerdictKind::RuntimeError,
                "checker crashed (time_limit): the checker's own detail".into()
            ))
        );
    }
}
