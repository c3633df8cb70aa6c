//! Judge-style verdicts: the one place a [`RunOutcome`] becomes a [`Verdict`].

use serde::{Deserialize, Serialize};

use super::{RunEnd, RunOutcome, TrapKind};

/// The kind of a verdict, exactly DESIGN's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    /// The run returned 0 (or exited 0 where that counts as a finish).
    Pass,
    /// An assertion failed, a checker rejected the output, or the program exited with 1.
    WrongAnswer,
    /// A trap, another non-zero exit, an uncaught exception.
    RuntimeError,
    /// Fuel ran out (deterministic).
    TimeLimit,
    /// The wall-clock safety net fired (not deterministic: flagged).
    WallTimeLimit,
    /// A memory growth was refused by the memory limit.
    MemoryLimit,
    /// The program wrote more than the output limit.
    OutputLimit,
    /// The solution, the test, or the pair (linking them) did not build.
    CompileError,
    /// dixit itself failed; says nothing about the guest.
    InternalError,
}

impl VerdictKind {
    /// The verdict's name as printed and journaled (`wrong_answer`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictKind::Pass => "pass",
            VerdictKind::WrongAnswer => "wrong_answer",
            VerdictKind::RuntimeError => "runtime_error",
            VerdictKind::TimeLimit => "time_limit",
            VerdictKind::WallTimeLimit => "wall_time_limit",
            VerdictKind::MemoryLimit => "memory_limit",
            VerdictKind::OutputLimit => "output_limit",
            VerdictKind::CompileError => "compile_error",
            VerdictKind::InternalError => "internal_error",
        }
    }
}

impl std::fmt::Display for VerdictKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which side of a pair failed to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompileSide {
    /// The solution did not build.
    Solution,
    /// The test did not build.
    Test,
    /// Each side builds alone but they do not build together (e.g. a symbol the test calls is
    /// missing from the solution).
    Link,
}

/// What counts as a pass: the evidence a run must give.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Completion {
    /// A program (an I/O solution, a checker): exiting with 0, by returning from its entry or
    /// by `exit(0)`. What it printed is judged separately.
    ExitZero,
    /// A unit test, which shares its process with the solution: the entry returned 0, so the
    /// test's own code ran to its end (a C/C++/Rust `main` that returned 0, or dixit's Python
    /// runner reporting a finished test). An exit of any code before that (`exit(0)`, `_exit`,
    /// `proc_exit`, a panic hook or an atexit handler that exits) is never a pass.
    Returned,
}

/// What dixit's Python runner returns when the program exited (a SystemExit other than 1,
/// KeyboardInterrupt) before the test finished (see `guest-sdk/python/dixit_runtime.py`).
pub const RUNNER_EXITED: i32 = 3;

/// The result of one run of (solution, test, seed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The verdict's kind.
    pub verdict: VerdictKind,
    /// For `compile_error`: which side failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<CompileSide>,
    /// A one-line explanation (exit code, trap, checker message, first build error line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The code the program exited or returned with, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Fuel the run spent.
    pub fuel: u64,
    /// The peak memory of the run, in bytes.
    pub peak_memory: u64,
    /// Wall-clock time of the run, in microseconds (not deterministic).
    pub wall_us: u64,
    /// The seed the run used.
    pub seed: u64,
    /// Captured output (lossy UTF-8), capped at the output limit.
    pub stdout: String,
    /// Captured stderr (lossy UTF-8), capped at the output limit.
    pub stderr: String,
    /// The run read entropy (another seed could change it).
    pub read_entropy: bool,
    /// The run read a clock (another seed could change it).
    pub read_clock: bool,
    /// How the test said it failed, when its runtime says so (dixit's Python runner does):
    /// its report through the bridge, see [`Verdict::note_failure`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<GuestFailure>,
}

/// What dixit's Python runner reports of a failing unit test through the bridge's `failure`
/// import of the test's own instance (see `guest-sdk/python/dixit_runtime.py`): guest text,
/// neither capped nor escaped yet (`crate::evidence` does both).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuestFailure {
    /// The exception's type name (`AssertionError`).
    #[serde(rename = "type", default)]
    pub kind: String,
    /// Its message (`str(exc)`).
    #[serde(default)]
    pub message: String,
    /// The test file's name, when the test's code was on the stack.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The line of the last frame in the test file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// That line's source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

impl Verdict {
    /// Keeps the test's failure report (its instance's, never the solution's: see
    /// `sandbox/bridge.rs`) as [`Verdict::failure`]. Call it only for a unit test whose runner
    /// returned a failure; a report that does not parse is ignored.
    pub fn note_failure(&mut self, report: Option<&str>) {
        if let Some(f) = report.and_then(|r| serde_json::from_str::<GuestFailure>(r).ok()) {
            self.failure = Some(f);
        }
    }

    /// Whether two runs ended the same way: same verdict, build side, detail, exit code, output
    /// and failure (fuel, memory and time aside). Two runs of one test against two
    /// implementations that end the same way, byte for byte, did not tell them apart.
    pub fn same_outcome(&self, other: &Verdict) -> bool {
        (
            self.verdict,
            self.side,
            &self.detail,
            self.exit_code,
            &self.stdout,
            &self.stderr,
            &self.failure,
        ) == (
            other.verdict,
            other.side,
            &other.detail,
            other.exit_code,
            &other.stdout,
            &other.stderr,
            &other.failure,
        )
    }

    /// How the run failed, in one line of at most 300 characters: the test's exception and
    /// message when the runtime reported them, else the detail, else the last line of stderr.
    pub fn failure_line(&self) -> String {
        let line = match (&self.failure, &self.detail) {
            (Some(f), _) if !f.kind.is_empty() => format!("{}: {}", f.kind, f.message),
            (_, Some(d)) => d.clone(),
            _ => self.stderr.lines().last().unwrap_or("").to_string(),
        };
        let line = line.lines().next().unwrap_or("").trim().to_string();
        match line.char_indices().nth(300) {
            Some((i, _)) => format!("{}…", &line[..i]),
            None if line.is_empty() => self.verdict.as_str().to_string(),
            None => line,
        }
    }

    /// Whether the run passed.
    pub fn passed(&self) -> bool {
        self.verdict == VerdictKind::Pass
    }

    /// Whether rerunning with another seed could change this verdict (the run read entropy or a
    /// clock, or was stopped by the wall clock).
    pub fn seed_dependent(&self) -> bool {
        self.read_entropy || self.read_clock || self.verdict == VerdictKind::WallTimeLimit
    }

    /// A verdict for something that never ran (a build failure or a dixit failure).
    pub fn not_run(
        kind: VerdictKind,
        side: Option<CompileSide>,
        detail: impl Into<String>,
        seed: u64,
    ) -> Self {
        Verdict {
            verdict: kind,
            side,
            detail: Some(detail.into()),
            exit_code: None,
            fuel: 0,
            peak_memory: 0,
            wall_us: 0,
            seed,
            stdout: String::new(),
            stderr: String::new(),
            read_entropy: false,
            read_clock: false,
            failure: None,
        }
    }

    /// Judges a run: a pass needs the evidence `completion` asks for; exit code (or returned
    /// status) 1 is a wrong answer (a failed assertion), any other failure a runtime error,
    /// unless a limit explains it.
    pub fn from_outcome(o: &RunOutcome, seed: u64, completion: Completion) -> Self {
        let (verdict, detail) = judge(o, completion);
        Verdict {
            verdict,
            side: None,
            detail,
            exit_code: match o.end {
                RunEnd::Exit { code } | RunEnd::Returned { code } => Some(code),
                _ => None,
            },
            fuel: o.fuel_used,
            peak_memory: o.peak_memory,
            wall_us: o.wall.as_micros() as u64,
            seed,
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            read_entropy: o.read_entropy,
            read_clock: o.read_clock,
            failure: None,
        }
    }
}

fn judge(o: &RunOutcome, completion: Completion) -> (VerdictKind, Option<String>) {
    use VerdictKind::*;
    match &o.end {
        RunEnd::HostError { message } => return (InternalError, Some(message.clone())),
        RunEnd::Trap {
            kind: TrapKind::OutOfFuel,
            ..
        } => {
            return (
                TimeLimit,
                Some(format!("fuel exhausted after {} units", o.fuel_used)),
            )
        }
        RunEnd::Trap {
            kind: TrapKind::Interrupt,
            ..
        } => {
            return (
                WallTimeLimit,
                Some("wall-clock safety net fired (not deterministic)".into()),
            )
        }
        _ => {}
    }
    if o.output_overflow {
        return (OutputLimit, Some("wrote more than the output limit".into()));
    }
    let exited_early = |code: i32| {
        format!("the program exited (exit code {code}) before the test finished: not a pass")
    };
    match (&o.end, completion) {
        (RunEnd::Returned { code: 0 }, _) | (RunEnd::Exit { code: 0 }, Completion::ExitZero) => {
            (Pass, None)
        }
        _ if o.memory_denied => (
            MemoryLimit,
            Some(format!(
                "memory growth refused at {} bytes in use",
                o.peak_memory
            )),
        ),
        (RunEnd::Returned { code: 1 } | RunEnd::Exit { code: 1 }, _) => {
            (WrongAnswer, Some("exit code 1".into()))
        }
        (
            RunEnd::Returned {
                code: RUNNER_EXITED,
            },
            Completion::Returned,
        ) => (
            RuntimeError,
            Some("the program exited before the test finished: not a pass".into()),
        ),
        (RunEnd::Exit { code: 0 }, Completion::Returned) => (RuntimeError, Some(exited_early(0))),
        (RunEnd::Exit { code }, Completion::Returned) => (RuntimeError, Some(exited_early(*code))),
        (RunEnd::Returned { code } | RunEnd::Exit { code }, _) => {
            (RuntimeError, Some(format!("exit code {code}")))
        }
        (
            RunEnd::Trap {
                kind: TrapKind::StackOverflow,
                ..
            },
            _,
        ) => (
            RuntimeError,
            Some("stack overflow (call stack exhausted)".into()),
        ),
        (
            RunEnd::Trap {
                kind: TrapKind::Boundary,
                message,
            },
            _,
        ) => (RuntimeError, Some(message.clone())),
        (RunEnd::Trap { message, .. }, _) => (RuntimeError, Some(format!("trap: {message}"))),
        (RunEnd::HostError { .. }, _) => unreachable!("handled above"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn outcome(end: RunEnd) -> RunOutcome {
        RunOutcome {
            end,
            stdout: b"out".to_vec(),
            stderr: Vec::new(),
            output_overflow: false,
            fuel_used: 10,
            peak_memory: 1 << 20,
            memory_denied: false,
            wall: Duration::from_micros(5),
            read_entropy: false,
            read_clock: false,
            exchanges: Vec::new(),
            failure_report: None,
        }
    }

    fn exit(code: i32) -> RunOutcome {
        outcome(RunEnd::Exit { code })
    }

    fn trap(kind: TrapKind) -> RunOutcome {
        outcome(RunEnd::Trap {
            kind,
            message: "x".into(),
        })
    }

    fn returned(code: i32) -> RunOutcome {
        outcome(RunEnd::Returned { code })
    }

    /// The verdict of a program (I/O solution, checker).
    fn kind(o: &RunOutcome) -> VerdictKind {
        Verdict::from_outcome(o, 7, Completion::ExitZero).verdict
    }

    /// The verdict of a unit test.
    fn unit(o: &RunOutcome) -> VerdictKind {
        Verdict::from_outcome(o, 7, Completion::Returned).verdict
    }

    #[test]
    fn exit_codes() {
        assert_eq!(kind(&exit(0)), VerdictKind::Pass);
        assert_eq!(kind(&returned(0)), VerdictKind::Pass);
        assert_eq!(kind(&exit(1)), VerdictKind::WrongAnswer);
        for code in [2, 3, 126, 255, -1] {
            assert_eq!(kind(&exit(code)), VerdictKind::RuntimeError, "exit {code}");
        }
        let v = Verdict::from_outcome(&exit(255), 7, Completion::ExitZero);
        assert_eq!(v.exit_code, Some(255));
        assert_eq!(v.detail.as_deref(), Some("exit code 255"));
        assert_eq!(v.seed, 7);
        assert_eq!(v.stdout, "out");
    }

    /// Issue 9: in a unit test only a returned entry is a pass; an exit with code 0 (the
    /// solution's `exit(0)`, `os._exit(0)`, an atexit handler) is not.
    #[test]
    fn a_unit_test_passes_only_when_its_entry_returns() {
        assert_eq!(unit(&returned(0)), VerdictKind::Pass);
        assert_eq!(unit(&exit(0)), VerdictKind::RuntimeError);
        let v = Verdict::from_outcome(&exit(0), 7, Completion::Returned);
        assert!(
            v.detail
                .as_deref()
                .unwrap_or("")
                .contains("before the test finished"),
            "{v:?}"
        );
        assert_eq!(unit(&exit(1)), VerdictKind::WrongAnswer, "a failed check");
        assert_eq!(unit(&returned(1)), VerdictKind::WrongAnswer);
        assert_eq!(unit(&returned(2)), VerdictKind::RuntimeError);
        let v = Verdict::from_outcome(&returned(RUNNER_EXITED), 7, Completion::Returned);
        assert_eq!(v.verdict, VerdictKind::RuntimeError);
        assert!(v
            .detail
            .as_deref()
            .unwrap_or("")
            .contains("exited before the test finished"));
        assert_eq!(unit(&exit(255)), VerdictKind::RuntimeError);
    }

    #[test]
    fn traps() {
        assert_eq!(kind(&trap(TrapKind::OutOfFuel)), VerdictKind::TimeLimit);
        assert_eq!(kind(&trap(TrapKind::Interrupt)), VerdictKind::WallTimeLimit);
        assert_eq!(
            kind(&trap(TrapKind::StackOverflow)),
            VerdictKind::RuntimeError
        );
        assert_eq!(kind(&trap(TrapKind::Other)), VerdictKind::RuntimeError);
        let host = outcome(RunEnd::HostError {
            message: "pool exhausted".into(),
        });
        assert_eq!(kind(&host), VerdictKind::InternalError);
    }

    #[test]
    fn limits_explain_failures_but_not_passes() {
        let mut o = exit(2);
        o.memory_denied = true;
        assert_eq!(
            kind(&o),
            VerdictKind::MemoryLimit,
            "a crash after a refused growth"
        );
        let mut o = exit(0);
        o.memory_denied = true;
        assert_eq!(
            kind(&o),
            VerdictKind::Pass,
            "a program that coped with a refusal"
        );
        let mut o = trap(TrapKind::Other);
        o.output_overflow = true;
        o.memory_denied = true;
        assert_eq!(
            kind(&o),
            VerdictKind::OutputLimit,
            "the refused write ended the run"
        );
        let mut o = trap(TrapKind::OutOfFuel);
        o.output_overflow = true;
        assert_eq!(kind(&o), VerdictKind::TimeLimit, "fuel is checked first");
    }

    #[test]
    fn seed_dependence() {
        let mut v = Verdict::from_outcome(&exit(0), 1, Completion::ExitZero);
        assert!(!v.seed_dependent());
        v.read_clock = true;
        assert!(v.seed_dependent());
        let w = Verdict::from_outcome(&trap(TrapKind::Interrupt), 1, Completion::ExitZero);
        assert!(w.seed_dependent(), "a wall-clock stop may not repeat");
    }
}
