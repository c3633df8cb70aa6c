//! The events of a run. Each line of `journal.jsonl` is one [`Record`]: a lane (the agent the
//! event concerns, or `run`), the lane's sequence number, a timestamp, and the event.
//!
//! Agents act concurrently, so lines of different lanes interleave in whatever order they
//! happened; within a lane the order is deterministic. Replay compares lane by lane.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::agents::{FileWrite, Usage};
use crate::classify::{Cell, Class};
use crate::sandbox::{CompileSide, VerdictKind};

/// The current journal format. A reader refuses a newer major version.
pub const FORMAT_MAJOR: u32 = 1;
pub const FORMAT_MINOR: u32 = 0;

/// The lane of run-level events.
pub const RUN_LANE: &str = "run";

/// One line of the journal.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    pub lane: String,
    pub seq: u64,
    /// Milliseconds since the Unix epoch (not compared by replay).
    pub t: u64,
    #[serde(flatten)]
    pub event: Event,
}

/// Everything a replay needs to re-run the project with nothing but the run directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProjectSnapshot {
    /// `dixit.toml` as it was.
    pub config: String,
    pub spec: String,
    /// The prompt templates in effect (after project overrides), by name.
    pub prompts: BTreeMap<String, String>,
    /// Hidden tests (file name → contents), run against the final implementations.
    #[serde(default)]
    pub hidden: BTreeMap<String, String>,
}

/// A compact, deterministic record of a matrix cell (no wall time, no output).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellRecord {
    pub v: VerdictKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<CompileSide>,
    pub seed: u64,
    pub fuel: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    pub runs: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skipped: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl From<&Cell> for CellRecord {
    fn from(c: &Cell) -> Self {
        CellRecord {
            v: c.verdict.verdict,
            side: c.verdict.side,
            seed: c.verdict.seed,
            fuel: c.verdict.fuel,
            exit: c.verdict.exit_code,
            runs: c.runs,
            skipped: c.skipped,
        }
    }
}

/// A test in the suite.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteEntry {
    /// 1-based number coders see.
    pub number: usize,
    /// The tester that wrote it.
    pub author: String,
    /// The test's file name in `suite/`.
    pub file: String,
    pub source: String,
}

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum StopReason {
    /// A round added no test: every tester's proposals were too easy (or none fit).
    Converged,
    /// A coder could not pass the suite after its retries: a person should look at these tests.
    HumanNeeded { coder: String, failing: Vec<usize> },
    /// `protocol.max_rounds` reached.
    RoundCap { rounds: u32 },
    /// A budget cap would be exceeded by the next call.
    Budget { agent: String, cap: String },
    /// A backend failed after its retries (network, API, command).
    Error { agent: String, message: String },
}

impl StopReason {
    /// Whether `--resume` can continue the run (a cap or an error, not a decision).
    pub fn resumable(&self) -> bool {
        matches!(
            self,
            StopReason::RoundCap { .. } | StopReason::Budget { .. } | StopReason::Error { .. }
        )
    }
}

/// One event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// First line: format, versions, and the project as it was.
    Header {
        format: String,
        dixit: String,
        wasmtime: String,
        run_id: String,
        project: ProjectSnapshot,
        /// Content digests of the guest runtimes used (`python`): fuel is comparable between
        /// runs only on identical runtimes.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        runtimes: BTreeMap<String, String>,
    },
    /// The agents of the run.
    Started {
        coders: Vec<String>,
        testers: Vec<String>,
        seed: u64,
    },
    /// A round of the main loop begins.
    Round {
        round: u32,
        suite: usize,
    },
    /// An agent's turn: what it was sent and what it answered.
    Reply {
        call: u64,
        purpose: String,
        prompt: String,
        text: String,
        files: Vec<FileWrite>,
        usage: Usage,
        cost_usd: f64,
        model: String,
        /// Guardrail violations the host undid or refused during the turn.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        violations: Vec<String>,
        /// The reply was cut off at the length limit.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        truncated: bool,
    },
    /// A call was not made: it would have passed a budget cap.
    Refused {
        call: u64,
        cap: String,
    },
    /// A call failed after the backend's retries (network, API, command); the run stops.
    Failed {
        call: u64,
        message: String,
    },
    /// Hidden tests (never shown to any agent) run against a coder's final code.
    Hidden {
        passed: usize,
        total: usize,
        cells: Vec<CellRecord>,
    },
    /// A coder's solution checked against the suite (an empty suite still needs a build).
    Judged {
        /// Pass/fail per suite test, in suite order.
        vector: Vec<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        build_error: Option<String>,
        cells: Vec<CellRecord>,
    },
    /// A tester's test classified against the coders' current solutions.
    Classified {
        test: String,
        class: Class,
        failures: usize,
        pool: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        build_error: Option<String>,
        cells: Vec<CellRecord>,
    },
    Checkpoint {
        id: u64,
    },
    Rollback {
        to: u64,
        why: String,
    },
    Thanks,
    /// Two TOO_HARD tests in a row: the tester sleeps with them until coders catch up.
    Hibernated {
        tests: Vec<String>,
    },
    Revived,
    /// A tester's test will join the suite at the end of the round.
    Accepted {
        test: String,
    },
    /// Tests joined the suite.
    SuiteChanged {
        added: Vec<SuiteEntry>,
        size: usize,
    },
    /// The run stopped.
    Stop {
        #[serde(flatten)]
        reason: StopReason,
        round: u32,
    },
    /// A later process continued the run from here (`--resume`); earlier stops and refusals
    /// are superseded.
    Resumed,
}

impl Event {
    /// A short name for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Event::Header { .. } => "header",
            Event::Started { .. } => "started",
            Event::Round { .. } => "round",
            Event::Reply { .. } => "reply",
            Event::Refused { .. } => "refused",
            Event::Failed { .. } => "failed",
            Event::Hidden { .. } => "hidden",
            Event::Judged { .. } => "judged",
            Event::Classified { .. } => "classified",
            Event::Checkpoint { .. } => "checkpoint",
            Event::Rollback { .. } => "rollback",
            Event::Thanks => "thanks",
            Event::Hibernated { .. } => "hibernated",
            Event::Revived => "revived",
            Event::Accepted { .. } => "accepted",
            Event::SuiteChanged { .. } => "suite_changed",
            Event::Stop { .. } => "stop",
            Event::Resumed => "resumed",
        }
    }
}
