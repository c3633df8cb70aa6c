//! Judge-style verdicts: the one place a [`RunOutcome`] becomes a [`Verdict`].

use serde::{Deserialize, Serialize};

use super::{RunEnd, RunOutcome, TrapKind};

/// The kind of a verdict, exactly DESIGN's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    Pass,
    /// An assertion failed, a checker rejected the output, or the program exited with 1.
    WrongAnswer,
    /// A trap, another non-zero exit, an uncaught exception.
    RuntimeError,
    /// Fuel ran out (deterministic).
    TimeLimit,
    /// The wall-clock safety net fired (not deterministic: flagged).
    WallTimeLimit,
    MemoryLimit,
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
    Solution,
    Test,
    /// Each side builds alone but they do not build together (e.g. a symbol the test calls is
    /// missing from the solution).
    Link,
}

/// The result of one run of (solution, test, seed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub verdict: VerdictKind,
    /// For `compile_error`: which side failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<CompileSide>,
    /// A one-line explanation (exit code, trap, checker message, first build error line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    pub fuel: u64,
    pub peak_memory: u64,
    pub wall_us: u64,
    pub seed: u64,
    /// Captured output (lossy UTF-8), capped at the output limit.
    pub stdout: String,
    pub stderr: String,
    pub read_entropy: bool,
    pub read_clock: bool,
}

impl Verdict {
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
        }
    }

    /// Judges a run whose success means exiting with 0: exit 1 is a wrong answer (a failed
    /// assertion), any other failure a runtime error, unless a limit explains it.
    pub fn from_outcome(o: &RunOutcome, seed: u64) -> Self {
        let (verdict, detail) = judge(o);
        Verdict {
            verdict,
            side: None,
            detail,
            exit_code: match o.end {
                RunEnd::Exit { code } => Some(code),
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
        }
    }
}

fn judge(o: &RunOutcome) -> (VerdictKind, Option<String>) {
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
    match &o.end {
        RunEnd::Exit { code: 0 } => (Pass, None),
        _ if o.memory_denied => (
            MemoryLimit,
            Some(format!(
                "memory growth refused at {} bytes in use",
                o.peak_memory
            )),
        ),
        RunEnd::Exit { code: 1 } => (WrongAnswer, Some("exit code 1".into())),
        RunEnd::Exit { code } => (RuntimeError, Some(format!("exit code {code}"))),
        RunEnd::Trap {
            kind: TrapKind::StackOverflow,
            ..
        } => (
            RuntimeError,
            Some("stack overflow (call stack exhausted)".into()),
        ),
        RunEnd::Trap { message, .. } => (RuntimeError, Some(format!("trap: {message}"))),
        RunEnd::HostError { .. } => unreachable!("handled above"),
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

    fn kind(o: &RunOutcome) -> VerdictKind {
        Verdict::from_outcome(o, 7).verdict
    }

    #[test]
    fn exit_codes() {
        assert_eq!(kind(&exit(0)), VerdictKind::Pass);
        assert_eq!(kind(&exit(1)), VerdictKind::WrongAnswer);
        for code in [2, 3, 126, 255, -1] {
            assert_eq!(kind(&exit(code)), VerdictKind::RuntimeError, "exit {code}");
        }
        let v = Verdict::from_outcome(&exit(255), 7);
        assert_eq!(v.exit_code, Some(255));
        assert_eq!(v.detail.as_deref(), Some("exit code 255"));
        assert_eq!(v.seed, 7);
        assert_eq!(v.stdout, "out");
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
        let mut v = Verdict::from_outcome(&exit(0), 1);
        assert!(!v.seed_dependent());
        v.read_clock = true;
        assert!(v.seed_dependent());
        let w = Verdict::from_outcome(&trap(TrapKind::Interrupt), 1);
        assert!(w.seed_dependent(), "a wall-clock stop may not repeat");
    }
}
