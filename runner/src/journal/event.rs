//! The events of a run. Each line of `journal.jsonl` is one [`Record`]: a lane (the agent the
//! event concerns, or `run`), the lane's sequence number, a timestamp, and the event.
//!
//! Agents act concurrently, so lines of different lanes interleave in whatever order they
//! happened; within a lane the order is deterministic. Replay compares lane by lane.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::agents::{FileWrite, Usage};
use crate::classify::{Class, PairVerdict};
use crate::config::ProtocolName;
use crate::evidence::Evidence;
use crate::sandbox::{CompileSide, VerdictKind};

/// The current journal format. A reader refuses a newer major version. 1.1: the header names the
/// protocol; protocols write events and stops of their own ([`Open`]). 1.2: the `finished` stop.
/// 1.3: a person's decisions (the `decision` event on the person's lane, the `accepted` stop)
/// and the shared `interrupted` stop. 1.4: a failing cell's `evidence` ([`CellRecord`]). 1.5: a
/// person wakes a hibernated tester or discards its tests (choices `wake`, `discard`; the
/// `forgotten` event). 1.6: a test that fails every solution exactly as it fails with none is
/// INVALID, not TOO_HARD ([`DETACHED_SINCE_MINOR`]). 1.7: a decision policy's decisions (a
/// `decision` with its [`PolicyNote`]), the project's folder in the header's snapshot, a fork's
/// origin, and the implementation a run ships by evidence (`shipped`, [`SHIPPED_SINCE_MINOR`]).
/// 1.8: a Python test runs with the interface's names bound ([`NAMES_BOUND_SINCE_MINOR`]).
pub const FORMAT_MAJOR: u32 = 1;
/// The journal format's minor version (what each one added: see `FORMAT_MAJOR`).
pub const FORMAT_MINOR: u32 = 8;

/// The first minor version whose runs classify a test that fails every solution exactly as it
/// fails with no solution as INVALID (it does not exercise the implementation): a run recorded
/// before it is resumed and replayed under its own rule.
pub const DETACHED_SINCE_MINOR: u32 = 6;

/// The first minor version whose runs choose the implementation they ship by evidence (the
/// `shipped` event before the final stop): a run recorded before it is resumed and replayed
/// without.
pub const SHIPPED_SINCE_MINOR: u32 = 7;

/// The first minor version whose Python tests run with the interface's names already bound in
/// their namespace (a test that forgot `from solution import f` still reaches the code): a run
/// recorded before it is resumed and replayed with its tests as they ran.
pub const NAMES_BOUND_SINCE_MINOR: u32 = 8;

/// The first minor version of format 1 whose cells carry `evidence`: a journal before it is
/// resumed and replayed without (see `writer.rs`).
pub(super) const EVIDENCE_SINCE_MINOR: u32 = 4;

/// The lane of run-level events.
pub const RUN_LANE: &str = "run";

/// The lane of the `shipped` events: apart from the run's, so that a shipping a resumed run
/// supersedes (the run went on from the stop it preceded) leaves the run lane's numbering
/// whole.
pub const SHIP_LANE: &str = "ship";

/// The lane of a person's decisions (`dixit decide`): written by the person's command, read by
/// the resumed run, never emitted by a protocol.
pub const PERSON_LANE: &str = "person";

/// What a person chose at a stop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "choice", rename_all = "snake_case")]
pub enum Choice {
    /// The test is wrong: it leaves the suite (its number is not reused) and the coders are
    /// judged again without it.
    DropTest {
        /// The test's number in the suite.
        test: usize,
    },
    /// The coder is wrong: it takes no further part; its last implementation stays in the
    /// record and the report.
    LeaveBehind {
        /// The coder's name.
        coder: String,
    },
    /// More room: `key` (`table.key` of `dixit.toml`, e.g. `dixit.max_rounds`) becomes `value`
    /// for the rest of the run.
    Raise {
        /// The setting, as `table.key`.
        key: String,
        /// Its new value.
        value: i64,
    },
    /// A hibernated tester's too-hard tests were right after all: they join the suite (the
    /// coders must pass them), and the tester proposes again.
    Wake {
        /// The hibernated tester.
        tester: String,
    },
    /// A hibernated tester's too-hard tests are wrong: they are forgotten, the tester is taken
    /// back to before it wrote them and proposes afresh.
    Discard {
        /// The hibernated tester.
        tester: String,
    },
    /// The person accepts the implementations as they are; the run ends.
    Accept,
}

/// How a run chose the implementation it ships ([`Event::Shipped`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shipping {
    /// The coder shipped: the first (in coder order) of the strategy's pick.
    pub coder: String,
    /// The strategy's name (`crate::selection::Strategy`), as it ran (see `fallback`).
    pub strategy: String,
    /// The strategy named in config, when it could not run (it compares answers and the run has
    /// none) and `strategy` ran instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_from: Option<String>,
    /// Every coder the strategy picked (tied), in coder order.
    pub tied: Vec<String>,
    /// The coders it chose among (final implementations, none left behind).
    pub among: Vec<String>,
    /// The tests it read, and the distinct calls they made.
    pub tests: usize,
    /// The distinct calls those tests made.
    pub calls: usize,
    /// Per coder (in `among`'s order), the tests it passes.
    pub passes: Vec<usize>,
}

/// Where a run was forked from: the run, and the decision (1-based, in the order the run met
/// them) a person made again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fork {
    /// The id of the run forked from.
    pub run: String,
    /// The decision made again (1-based, in the order the run met them).
    pub decision: usize,
}

/// How a decision policy decided at a stop: its name, the rule it applied and the evidence the
/// stop showed that the rule read (never the hidden tests).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyNote {
    /// The policy's name.
    pub name: String,
    /// The rule it applied.
    pub rule: String,
    /// The evidence the stop showed that the rule read.
    pub evidence: Vec<String>,
}

impl Choice {
    /// The choice as the command line that makes it (after `dixit decide RUN_DIR`).
    pub fn command(&self) -> String {
        match self {
            Choice::DropTest { test } => format!("drop-test {test}"),
            Choice::LeaveBehind { coder } => format!("leave-behind {coder}"),
            Choice::Raise { key, value } => format!("raise {key}={value}"),
            Choice::Wake { tester } => format!("wake {tester}"),
            Choice::Discard { tester } => format!("discard {tester}"),
            Choice::Accept => "accept".into(),
        }
    }
}

/// One line of the journal.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    /// Whose event it is: an agent's name, or a shared lane (`run`, `person`, `ship`, `resume`).
    pub lane: String,
    /// The event's number in its lane.
    pub seq: u64,
    /// Milliseconds since the Unix epoch (not compared by replay).
    pub t: u64,
    /// The event itself.
    #[serde(flatten)]
    pub event: Event,
}

/// Everything a replay needs to re-run the project with nothing but the run directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProjectSnapshot {
    /// `dixit.toml` as it was.
    pub config: String,
    /// The spec as it was.
    pub spec: String,
    /// The prompt templates in effect (after project overrides), by name.
    pub prompts: BTreeMap<String, String>,
    /// Hidden tests (file name → contents), run against the final implementations.
    #[serde(default)]
    pub hidden: BTreeMap<String, String>,
    /// The acceptance suite (if the protocol has one), file name → contents.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub acceptance: BTreeMap<String, String>,
    /// The interface headers C/C++ tests compile against (`[project] interface`), file name →
    /// contents.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub interface: BTreeMap<String, String>,
    /// The project's folder when the run started (absolute), so that the command that goes on
    /// with the run can name it (journals before 1.7 have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<std::path::PathBuf>,
}

/// A compact, deterministic record of a matrix cell (no wall time; of the output, only a failing
/// run's capped [`Evidence`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellRecord {
    /// The deciding run's verdict kind.
    pub v: VerdictKind,
    /// For a compile error: which side failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<CompileSide>,
    /// The deciding run's seed.
    pub seed: u64,
    /// Fuel the deciding run spent.
    pub fuel: u64,
    /// The deciding run's exit code, when it exited or returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    /// Runs performed.
    pub runs: u32,
    /// Reruns skipped because the run read neither entropy nor a clock.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skipped: u32,
    /// Why the run failed (format 1.4; none for a pass, and in older journals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl From<&PairVerdict> for CellRecord {
    fn from(c: &PairVerdict) -> Self {
        CellRecord {
            v: c.verdict.verdict,
            side: c.verdict.side,
            seed: c.verdict.seed,
            fuel: c.verdict.fuel,
            exit: c.verdict.exit_code,
            runs: c.runs,
            skipped: c.skipped,
            evidence: Evidence::of(&c.verdict),
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
    /// The test's source.
    pub source: String,
}

/// A coder's standing at the end of a run: tests passed of those run, and which attempt (or
/// epoch) it stands on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    /// The coder's name.
    pub coder: String,
    /// Tests passed.
    pub passed: usize,
    /// Tests run.
    pub total: usize,
}

/// Why a run stopped: a decision of the protocol (its own stop, in the open shape), or one of
/// the stops every protocol shares, which a person can resume from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", tag = "reason", rename_all = "snake_case")]
pub enum StopReason {
    /// The protocol decided to stop; what it decided is its own ([`Open`], named by `reason`).
    #[serde(skip)]
    Decided(Open),
    /// The protocol's round (or epoch) limit was reached.
    RoundCap {
        /// The limit reached.
        rounds: u32,
    },
    /// A budget cap would be exceeded by the next call.
    Budget {
        /// The agent whose call was refused.
        agent: String,
        /// The cap the call would have passed.
        cap: String,
    },
    /// A person accepted the implementations as they were (`dixit decide … accept`).
    Accepted {
        /// Who accepted.
        by: String,
    },
    /// A backend failed after its retries (network, API, command).
    Error {
        /// The agent whose call failed.
        agent: String,
        /// The backend's error.
        message: String,
    },
    /// The run was interrupted from outside (SIGINT, SIGTERM): calls in flight were abandoned.
    Interrupted,
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
    /// Someone stopped the run (a signal); it can be resumed.
    Interrupted,
}

impl StopReason {
    /// Whether `--resume` can continue the run (a cap, an error or an interrupt, not a
    /// decision).
    pub fn resumable(&self) -> bool {
        matches!(
            self,
            StopReason::RoundCap { .. }
                | StopReason::Budget { .. }
                | StopReason::Error { .. }
                | StopReason::Interrupted
        )
    }

    /// Whether the protocol decided this stop (hidden tests run after it), as opposed to a
    /// budget cap, a failure or an interrupt cutting it short.
    pub fn is_decision(&self) -> bool {
        !matches!(
            self,
            StopReason::Budget { .. }
                | StopReason::Error { .. }
                | StopReason::Accepted { .. }
                | StopReason::Interrupted
        )
    }

    /// The exit class of a shared stop; of a decision, `None`: the protocol that decided says.
    pub fn shared_exit_class(&self) -> Option<ExitClass> {
        match self {
            StopReason::Decided(_) => None,
            StopReason::RoundCap { .. } | StopReason::Budget { .. } => Some(ExitClass::Capped),
            StopReason::Error { .. } => Some(ExitClass::Failed),
            StopReason::Accepted { .. } => Some(ExitClass::Done),
            StopReason::Interrupted => Some(ExitClass::Interrupted),
        }
    }

    /// A protocol's own stop `value`.
    pub fn own<T: Named>(value: &T) -> StopReason {
        StopReason::Decided(Open::of(value))
    }

    /// The protocol's decision, if this stop is one.
    pub fn decided(&self) -> Option<&Open> {
        match self {
            StopReason::Decided(o) => Some(o),
            _ => None,
        }
    }
}

impl Serialize for StopReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            StopReason::Decided(o) => o.serialize_tagged("reason", s),
            _ => StopReason::serialize(self, s),
        }
    }
}

impl<'de> Deserialize<'de> for StopReason {
    /// A shared stop by its `reason`; any other reason is the protocol's own.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        match Open::untag("reason", v, SHARED_STOPS).map_err(serde::de::Error::custom)? {
            Ok(open) => Ok(StopReason::Decided(open)),
            Err(v) => StopReason::deserialize(v).map_err(serde::de::Error::custom),
        }
    }
}

/// The stops every protocol shares (the others are a protocol's own).
const SHARED_STOPS: &[&str] = &["round_cap", "budget", "error", "accepted", "interrupted"];

/// An event or a stop of a protocol's own vocabulary, as the journal keeps it: its name and its
/// fields. The journal names no protocol: the protocol that wrote it reads it back typed
/// ([`Open::read`]), and a reader that does not know the name passes it by.
#[derive(Clone, Debug, PartialEq)]
pub struct Open {
    /// The event's (or stop's) name.
    pub name: String,
    /// Its fields.
    pub fields: serde_json::Map<String, serde_json::Value>,
}

/// A protocol's typed event or stop, and the name it goes by in the journal.
pub trait Named: Serialize + serde::de::DeserializeOwned {
    /// The name the event or stop goes by in the journal.
    const NAME: &'static str;
}

impl Open {
    /// `value` in the open shape.
    pub fn of<T: Named>(value: &T) -> Open {
        let fields = match serde_json::to_value(value) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => serde_json::Map::new(),
        };
        Open {
            name: T::NAME.to_string(),
            fields,
        }
    }

    /// The typed value, if this is a `T` (and reads as one).
    pub fn read<T: Named>(&self) -> Option<T> {
        (self.name == T::NAME)
            .then(|| serde_json::from_value(serde_json::Value::Object(self.fields.clone())).ok())
            .flatten()
    }

    fn serialize_tagged<S: serde::Serializer>(&self, tag: &str, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.fields.len() + 1))?;
        m.serialize_entry(tag, &self.name)?;
        for (k, v) in &self.fields {
            if k != tag {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }

    /// Splits `v` by its `tag`: a name of `shared` gives `v` back for the shared type to read;
    /// any other name is an open entry.
    fn untag(
        tag: &str,
        v: serde_json::Value,
        shared: &[&str],
    ) -> Result<Result<Open, serde_json::Value>, String> {
        let name = match v.get(tag) {
            Some(serde_json::Value::String(n)) => n.clone(),
            Some(_) => return Err(format!("`{tag}` is not a string")),
            None => return Err(format!("missing field `{tag}`")),
        };
        if shared.contains(&name.as_str()) {
            return Ok(Err(v));
        }
        let serde_json::Value::Object(mut fields) = v else {
            return Err("not an object".into());
        };
        fields.remove(tag);
        Ok(Ok(Open { name, fields }))
    }
}

/// One event: one of the vocabulary every protocol shares, or a protocol's own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// First line: format, versions, the protocol, and the project as it was.
    Header {
        /// The journal format, `dixit-journal/MAJOR.MINOR`.
        format: String,
        /// The version of dixit that wrote the journal.
        dixit: String,
        /// The version of wasmtime it ran with.
        wasmtime: String,
        /// The run's id.
        run_id: String,
        /// The protocol that ran (journals before format 1.1 name none: see
        /// [`crate::journal::FORMAT_1_0_PROTOCOL`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        protocol: Option<ProtocolName>,
        /// The project as it was.
        project: ProjectSnapshot,
        /// Content digests of the guest runtimes used (`python`): fuel is comparable between
        /// runs only on identical runtimes.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        runtimes: BTreeMap<String, String>,
        /// The run this one was forked from, and at which of its decisions (a person deciding
        /// again at a stop a run went on from: `dixit decide RUN --at N`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        forked_from: Option<Fork>,
    },
    /// The agents of the run.
    Started {
        /// The coders' names.
        coders: Vec<String>,
        /// The testers' names.
        testers: Vec<String>,
        /// The reviewers' names (protocols with reviewers).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        reviewers: Vec<String>,
        /// The run's seed.
        seed: u64,
    },
    /// A round of the main loop begins.
    Round {
        /// The round's number.
        round: u32,
        /// The suite's size when the round begins.
        suite: usize,
    },
    /// An agent's turn: what it was sent and what it answered.
    Reply {
        /// The agent's call number (its calls so far).
        call: u64,
        /// Why the protocol made the call (e.g. `propose`, `retry`).
        purpose: String,
        /// The prompt sent.
        prompt: String,
        /// The reply's text.
        text: String,
        /// The files the reply wrote into the agent's workspace.
        files: Vec<FileWrite>,
        /// Tokens the call used.
        usage: Usage,
        /// The call's cost in US dollars.
        cost_usd: f64,
        /// The model that answered.
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
        /// The agent's call number (its calls so far).
        call: u64,
        /// The cap the call would have passed.
        cap: String,
    },
    /// A call failed after the backend's retries (network, API, command); the run stops.
    Failed {
        /// The agent's call number (its calls so far).
        call: u64,
        /// The backend's error.
        message: String,
    },
    /// Hidden tests (never shown to any agent) run against a coder's final code.
    Hidden {
        /// Hidden tests passed.
        passed: usize,
        /// Hidden tests run.
        total: usize,
        /// One cell per hidden test.
        cells: Vec<CellRecord>,
    },
    /// A coder's solution checked against the suite (an empty suite still needs a build).
    Judged {
        /// Pass/fail per suite test, in suite order.
        vector: Vec<bool>,
        /// The solution's build error, when it did not build.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        build_error: Option<String>,
        /// One cell per suite test, in suite order.
        cells: Vec<CellRecord>,
    },
    /// A tester's test classified against the coders' current solutions.
    Classified {
        /// The test's id.
        test: String,
        /// Its class: IDEAL, TOO_EASY, TOO_HARD or INVALID.
        class: Class,
        /// Solutions that failed the test.
        failures: usize,
        /// Solutions it was run against.
        pool: usize,
        /// Why it is INVALID, when it is (a build error, or a failure it shows with no solution
        /// too).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        build_error: Option<String>,
        /// One cell per solution, in the order run.
        cells: Vec<CellRecord>,
    },
    /// An agent's state was saved.
    Checkpoint {
        /// The checkpoint's number.
        id: u64,
    },
    /// An agent's state went back to a checkpoint.
    Rollback {
        /// The checkpoint's number.
        to: u64,
        /// Why it went back.
        why: String,
    },
    /// An agent was thanked (a message sent along with its next request).
    Thanks,
    /// Two TOO_HARD tests in a row: the tester sleeps with them until coders catch up.
    Hibernated {
        /// The TOO_HARD tests it sleeps with.
        tests: Vec<String>,
    },
    /// A hibernated tester woke: a test it sleeps with is no longer TOO_HARD.
    Revived,
    /// A person judged a hibernated tester's tests wrong: they are forgotten (never classified
    /// again, never in the suite).
    Forgotten {
        /// The tests forgotten.
        tests: Vec<String>,
    },
    /// A tester's test will join the suite at the end of the round.
    Accepted {
        /// The test's id.
        test: String,
    },
    /// Tests joined the suite.
    SuiteChanged {
        /// The tests that joined.
        added: Vec<SuiteEntry>,
        /// Numbers of tests that left the suite (a person dropped them); numbers are never
        /// reused.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        removed: Vec<usize>,
        /// The suite's size after the change.
        size: usize,
    },
    /// The run stopped.
    Stop {
        /// Why it stopped.
        #[serde(flatten)]
        reason: StopReason,
        /// The round (or epoch) it stopped in.
        round: u32,
    },
    /// A later process continued the run from here (`--resume`); earlier stops and refusals
    /// are superseded (but a protocol's stop a person answered happened, and happens again).
    Resumed,
    /// A decision at the last stop (on the person's lane): what, and why in the words of who
    /// decided; when is the record's time. A person's (`dixit decide`), or the run's decision
    /// policy's, with the rule and the evidence it used.
    Decision {
        /// What was chosen.
        #[serde(flatten)]
        choice: Choice,
        /// Why, in the words of who decided.
        why: String,
        /// Who decided.
        by: String,
        /// For a decision policy's decision: its name, rule and evidence.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        policy: Option<PolicyNote>,
    },
    /// The implementation the run ships, chosen by a selection strategy from all the evidence
    /// the run has (every test its agents wrote or were given against every final
    /// implementation, and their answers to the calls those tests made; never the hidden tests).
    Shipped(Shipping),
    /// An epoch begins (a round by another name), with the suite so far.
    Epoch {
        /// The epoch's number.
        epoch: u32,
        /// The suite's size when the epoch begins.
        suite: usize,
    },
    /// One attempt of a coder against a fixed suite, and what the high-water mark did with it.
    Attempt {
        /// The attempt's number.
        attempt: u32,
        /// Suite tests passed.
        passed: usize,
        /// Suite tests failed with a wrong answer.
        failed: usize,
        /// Suite tests failed otherwise (a crash, a limit, a build error).
        errors: usize,
        /// Suite tests run.
        total: usize,
        /// `first`, `kept` (the new best) or `reverted` (worse: the best went back to disk).
        outcome: String,
    },
    /// A protocol's own event ([`Open`], named by `event`).
    #[serde(skip)]
    Protocol(Open),
}

impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Event::Protocol(o) => o.serialize_tagged("event", s),
            _ => Event::serialize(self, s),
        }
    }
}

impl<'de> Deserialize<'de> for Event {
    /// A shared event by its name; any other name is a protocol's own.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        match Open::untag("event", v, Event::NAMES).map_err(serde::de::Error::custom)? {
            Ok(open) => Ok(Event::Protocol(open)),
            Err(v) => Event::deserialize(v).map_err(serde::de::Error::custom),
        }
    }
}

impl Event {
    /// A protocol's own event `value`.
    pub fn own<T: Named>(value: &T) -> Event {
        Event::Protocol(Open::of(value))
    }

    /// The protocol event `T`, if this is one.
    pub fn read<T: Named>(&self) -> Option<T> {
        match self {
            Event::Protocol(o) => o.read(),
            _ => None,
        }
    }

    /// A short name for messages.
    pub fn name(&self) -> &str {
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
            Event::Forgotten { .. } => "forgotten",
            Event::Accepted { .. } => "accepted",
            Event::SuiteChanged { .. } => "suite_changed",
            Event::Stop { .. } => "stop",
            Event::Resumed => "resumed",
            Event::Decision { .. } => "decision",
            Event::Shipped(_) => "shipped",
            Event::Epoch { .. } => "epoch",
            Event::Attempt { .. } => "attempt",
            Event::Protocol(o) => &o.name,
        }
    }

    /// The names of the shared events (any other name is a protocol's own).
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
        "decision",
        "shipped",
        "epoch",
        "attempt",
    ];
}
