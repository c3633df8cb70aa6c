//! The events of a run. Each line of `journal.jsonl` is one [`Record`]: a lane (the agent the
//! event concerns, or `run`), the lane's sequence number, a timestamp, and the event.
//!
//! Agents act concurrently, so lines of different lanes interleave in whatever order they
//! happened; within a lane the order is deterministic. Replay compares lane by lane.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::agents::{FileWrite, Usage};
use crate::classify::{Cell, Class};
use crate::config::ProtocolName;
use crate::sandbox::{CompileSide, VerdictKind};

/// The current journal format. A reader refuses a newer major version; of a newer minor
/// version it skips the events it does not know. 1.1: the header names the protocol; events of
/// the debate, repair and blind protocols. 1.2: the `finished` stop.
pub const FORMAT_MAJOR: u32 = 1;
pub const FORMAT_MINOR: u32 = 2;

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
    /// The acceptance suite (`repair`), file name → contents.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub acceptance: BTreeMap<String, String>,
    /// The interface headers C/C++ tests compile against (`[project] interface`), file name →
    /// contents.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub interface: BTreeMap<String, String>,
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

/// A coder that could not pass the suite, and the tests (1-based) it fails at its best.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CannotPass {
    pub coder: String,
    pub failing: Vec<usize>,
}

/// A coder's standing at the end of a run: tests passed of those run, and which attempt (or
/// epoch) it stands on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub coder: String,
    pub passed: usize,
    pub total: usize,
}

/// Why a run stopped. Each protocol ends with its own decision stops; caps and errors are
/// common, and resumable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", tag = "reason", rename_all = "snake_case")]
pub enum StopReason {
    /// dixit: a round added no test because every proposal was too easy: the coders agree on
    /// everything asked.
    Converged,
    /// dixit: a round added no test because the proposals were too hard (or did not build) or a
    /// tester hibernates: either the tests or the coders are wrong.
    Stalled {
        /// Tests classified TOO_HARD in the last round.
        too_hard: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        invalid: Vec<String>,
        /// Testers asleep with their too-hard tests.
        hibernated: Vec<String>,
    },
    /// dixit: coders could not pass the suite after their retries: a person should look at
    /// these tests (perhaps they are wrong).
    HumanNeeded { cannot_pass: Vec<CannotPass> },
    /// `dixit.max_rounds` reached.
    RoundCap { rounds: u32 },
    /// debate: the debate ended (`why`) and `winner` passes the most tests (`standings`, best
    /// first; ties broken by fewer errors, then agent order, as `tie_break` says).
    Debated {
        winner: String,
        why: String,
        standings: Vec<Standing>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tie_break: Option<String>,
    },
    /// repair: every coder shipped its best attempt; `standings` against the acceptance suite.
    Repaired { standings: Vec<Standing> },
    /// blind: the hidden suite answered for every coder (pass or fail only).
    Verified {
        passed: Vec<String>,
        failed: Vec<String>,
    },
    /// The protocol ran its course with no decision of its own to report: what each coder
    /// last wrote is what the run ships, and the hidden tests (if any) judge it.
    Finished,
    /// A budget cap would be exceeded by the next call.
    Budget { agent: String, cap: String },
    /// A backend failed after its retries (network, API, command).
    Error { agent: String, message: String },
}

/// What a stop asks of the person and how the CLI exits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitClass {
    /// A result to look at, nothing to decide first.
    Done,
    /// A person must judge (tests or coders are wrong, or nothing passed).
    HumanNeeded,
    /// A cap stopped the run; it can be resumed.
    Capped,
    /// Something outside dixit failed (a backend); fix it, then resume.
    Failed,
}

impl StopReason {
    /// Whether `--resume` can continue the run (a cap or an error, not a decision).
    pub fn resumable(&self) -> bool {
        matches!(
            self,
            StopReason::RoundCap { .. } | StopReason::Budget { .. } | StopReason::Error { .. }
        )
    }

    /// Whether the protocol decided this stop (hidden tests run after it), as opposed to a
    /// budget cap or a failure cutting it short.
    pub fn is_decision(&self) -> bool {
        !matches!(self, StopReason::Budget { .. } | StopReason::Error { .. })
    }

    /// The stop's exit class.
    pub fn exit_class(&self) -> ExitClass {
        match self {
            StopReason::Converged | StopReason::Debated { .. } | StopReason::Finished => {
                ExitClass::Done
            }
            StopReason::Repaired { standings } => {
                if standings.iter().all(|s| s.passed == s.total) {
                    ExitClass::Done
                } else {
                    ExitClass::HumanNeeded
                }
            }
            StopReason::Verified { failed, .. } => {
                if failed.is_empty() {
                    ExitClass::Done
                } else {
                    ExitClass::HumanNeeded
                }
            }
            StopReason::Stalled { .. } | StopReason::HumanNeeded { .. } => ExitClass::HumanNeeded,
            StopReason::RoundCap { .. } | StopReason::Budget { .. } => ExitClass::Capped,
            StopReason::Error { .. } => ExitClass::Failed,
        }
    }
}

impl Serialize for StopReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        StopReason::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for StopReason {
    /// Also reads journals of format 1.0, whose human-judgement stop named one coder:
    /// `{"reason": "human_needed", "coder": …, "failing": […]}`.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut v = serde_json::Value::deserialize(d)?;
        if let Some(o) = v.as_object_mut() {
            if o.get("reason").and_then(|r| r.as_str()) == Some("human_needed")
                && o.contains_key("coder")
            {
                let one = serde_json::json!({
                    "coder": o.remove("coder"),
                    "failing": o.remove("failing"),
                });
                o.insert("cannot_pass".into(), serde_json::Value::Array(vec![one]));
            }
        }
        StopReason::deserialize(v).map_err(serde::de::Error::custom)
    }
}

/// One event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// First line: format, versions, the protocol, and the project as it was.
    Header {
        format: String,
        dixit: String,
        wasmtime: String,
        run_id: String,
        /// The protocol that ran (journals before format 1.1 name none: see
        /// [`crate::journal::FORMAT_1_0_PROTOCOL`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        protocol: Option<ProtocolName>,
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
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        reviewers: Vec<String>,
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
    /// debate: an epoch begins, with the suite of discriminating tests so far.
    Epoch {
        epoch: u32,
        suite: usize,
    },
    /// debate: a coder's test meant to break the others, run against every solution.
    DebateTest {
        test: String,
        /// Coders whose solutions fail it (all of them: it may be wrong; none: it breaks nothing).
        failed_by: Vec<String>,
        /// Whether it discriminated (some pass, some fail) and joins the suite.
        kept: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        build_error: Option<String>,
        cells: Vec<CellRecord>,
    },
    /// repair: a reviewer's verdict on a coder's first attempt.
    Reviewed {
        coder: String,
        clean: bool,
    },
    /// repair: one attempt of a coder against the acceptance suite, and what the high-water
    /// mark did with it.
    Attempt {
        attempt: u32,
        passed: usize,
        failed: usize,
        errors: usize,
        total: usize,
        /// `first`, `kept` (the new best) or `reverted` (worse: the best went back to disk).
        outcome: String,
    },
    /// blind: the tests a coder wrote for itself from the spec.
    SelfTests {
        tests: Vec<SelfTest>,
    },
    /// blind: the hidden suite's answer to a coder, pass or fail only (what it was told).
    BlindChecked {
        attempt: u32,
        passed: bool,
    },
}

/// A test a blind coder wrote for itself: its id, its category and stated confidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelfTest {
    pub id: String,
    pub category: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
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
            Event::Epoch { .. } => "epoch",
            Event::DebateTest { .. } => "debate_test",
            Event::Reviewed { .. } => "reviewed",
            Event::Attempt { .. } => "attempt",
            Event::SelfTests { .. } => "self_tests",
            Event::BlindChecked { .. } => "blind_checked",
        }
    }

    /// Every event name this dixit reads (what a reader of a newer minor format does not skip).
    pub const NAMES: &'static [&'static str] = &[
        "header",
        "started",
        "round",
        "reply",
        "refused",
        "failed",
        "hidden",
        "judged",
        "classified",
        "checkpoint",
        "rollback",
        "thanks",
        "hibernated",
        "revived",
        "accepted",
        "suite_changed",
        "stop",
        "resumed",
        "epoch",
        "debate_test",
        "reviewed",
        "attempt",
        "self_tests",
        "blind_checked",
    ];
}
