//! The run at a glance (`summary.json`): common fields every protocol has (the stop, usage, each
//! coder's replies, fixes, rollbacks, last judgement and hidden results, the final suite), plus
//! the protocol's own part. Folded from the run's events, one at a time.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::classify::Class;
use crate::config::ProtocolName;
use crate::journal::{Event, JournalFile, StopReason, RUN_LANE};

/// Counts per class.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClassCounts {
    pub too_easy: u32,
    pub ideal: u32,
    pub too_hard: u32,
    pub invalid: u32,
}

/// One tester's history (dixit).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TesterStats {
    /// Tests it wrote.
    pub proposed: u32,
    pub accepted: u32,
    /// Classifications of its tests (a hibernated test is classified again each round).
    pub classes: ClassCounts,
    pub hibernations: u32,
    pub revivals: u32,
    pub rollbacks: u32,
}

/// One coder's history.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CoderStats {
    pub replies: u32,
    pub fixes: u32,
    pub rollbacks: u32,
    /// Its verdicts on the suite the last time it was checked.
    pub last_vector: Vec<bool>,
    /// (passed, total) on the hidden tests, if the project has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<(usize, usize)>,
}

/// Tokens and money.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UsageTotals {
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub usd: f64,
}

/// A suite test.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SuiteItem {
    pub number: usize,
    pub author: String,
    pub file: String,
}

/// dixit's part: how the suite grew and how tests were classified.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DixitSummary {
    /// Suite size at the start of each round.
    pub suite_growth: Vec<usize>,
    pub classes: ClassCounts,
    pub testers: BTreeMap<String, TesterStats>,
}

/// One debate epoch.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DebateEpoch {
    pub epoch: u32,
    /// Tests written this epoch, and how many of them discriminated (joined the suite).
    pub tests: u32,
    pub breaking: u32,
    /// Each coder's tests passed (of the suite) after the epoch's refinements.
    pub passed: BTreeMap<String, (usize, usize)>,
}

/// debate's part: the epochs and the winner.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DebateSummary {
    pub epochs: Vec<DebateEpoch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tie_break: Option<String>,
}

/// One repair attempt.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AttemptStats {
    pub attempt: u32,
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    pub total: usize,
    /// `first`, `kept` or `reverted` (a regression the high-water mark undid).
    pub outcome: String,
}

/// One repair coder.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RepairCoder {
    pub attempts: Vec<AttemptStats>,
    /// The attempt that shipped (the high-water mark).
    pub shipped: Option<u32>,
    /// The review of its first attempt: `clean`, `findings`, or none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
}

/// repair's part: every attempt of every coder.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RepairSummary {
    pub coders: BTreeMap<String, RepairCoder>,
}

/// One blind coder.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BlindCoder {
    /// Self-tests written, per category.
    pub categories: BTreeMap<String, u32>,
    pub self_tests: u32,
    /// Its own tests passed, the last time it ran them.
    pub self_passed: (usize, usize),
    /// The hidden suite's answers, in order (what the coder was told: pass or fail).
    pub blind: Vec<bool>,
}

/// blind's part.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BlindSummary {
    pub coders: BTreeMap<String, BlindCoder>,
}

/// The protocol's own part of a summary (`"dixit": {…}` in `summary.json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProtocolPart {
    Dixit(DixitSummary),
    Debate(DebateSummary),
    Repair(RepairSummary),
    Blind(BlindSummary),
    /// A protocol with no part of its own (its events are the common ones).
    #[serde(skip)]
    None,
}

impl ProtocolPart {
    fn new(p: &ProtocolName) -> ProtocolPart {
        match p.as_str() {
            "dixit" => ProtocolPart::Dixit(Default::default()),
            "debate" => ProtocolPart::Debate(Default::default()),
            "repair" => ProtocolPart::Repair(Default::default()),
            "blind" => ProtocolPart::Blind(Default::default()),
            _ => ProtocolPart::None,
        }
    }
}

/// The run at a glance (`summary.json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub run_id: String,
    pub protocol: ProtocolName,
    pub stop: Option<StopReason>,
    /// Rounds (dixit) or epochs (debate) begun.
    pub rounds: u32,
    /// The suite the run ended with (dixit: IDEAL tests; debate: tests that discriminated).
    pub suite: Vec<SuiteItem>,
    pub coders: BTreeMap<String, CoderStats>,
    pub usage: UsageTotals,
    pub usage_per_agent: BTreeMap<String, UsageTotals>,
    #[serde(flatten)]
    pub part: ProtocolPart,
    /// Where the final implementations disagree on the calls the tests made (Python unit
    /// tests; computed after the run, never shown to an agent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disagreements: Option<crate::consensus::Disagreements>,
}

impl Default for Summary {
    fn default() -> Self {
        Summary::new(ProtocolName::new(crate::journal::FORMAT_1_0_PROTOCOL))
    }
}

/// Counts one classification.
pub(crate) fn bump(c: &mut ClassCounts, class: Class) {
    match class {
        Class::TooEasy => c.too_easy += 1,
        Class::Ideal => c.ideal += 1,
        Class::TooHard => c.too_hard += 1,
        Class::Invalid => c.invalid += 1,
    }
}

impl Summary {
    /// An empty summary of a run of `protocol`.
    pub fn new(protocol: ProtocolName) -> Summary {
        Summary {
            run_id: String::new(),
            protocol: protocol.clone(),
            stop: None,
            rounds: 0,
            suite: Vec::new(),
            coders: BTreeMap::new(),
            usage: UsageTotals::default(),
            usage_per_agent: BTreeMap::new(),
            part: ProtocolPart::new(&protocol),
            disagreements: None,
        }
    }

    /// Folds one event in.
    pub fn add(&mut self, lane: &str, e: &Event) {
        self.add_common(lane, e);
        match &mut self.part {
            ProtocolPart::Dixit(d) => add_dixit(d, lane, e),
            ProtocolPart::Debate(d) => add_debate(d, &self.coders, lane, e),
            ProtocolPart::Repair(r) => add_repair(r, lane, e),
            ProtocolPart::Blind(b) => add_blind(b, lane, e),
            ProtocolPart::None => {}
        }
    }

    fn add_common(&mut self, lane: &str, e: &Event) {
        match e {
            Event::Header { run_id, .. } => self.run_id = run_id.clone(),
            Event::Started { coders, .. } => {
                for c in coders {
                    self.coders.entry(c.clone()).or_default();
                }
            }
            Event::Round { round, .. } => self.rounds = *round,
            Event::Epoch { epoch, .. } => self.rounds = *epoch,
            Event::Reply {
                purpose,
                usage,
                cost_usd,
                ..
            } => {
                for u in [
                    &mut self.usage,
                    self.usage_per_agent.entry(lane.to_string()).or_default(),
                ] {
                    u.calls += 1;
                    u.prompt_tokens += usage.prompt_tokens;
                    u.completion_tokens += usage.completion_tokens;
                    u.usd += cost_usd;
                }
                if let Some(c) = self.coders.get_mut(lane) {
                    c.replies += 1;
                    if matches!(purpose.as_str(), "fix" | "refine" | "rewrite") {
                        c.fixes += 1;
                    }
                }
            }
            Event::Judged { vector, .. } => {
                if let Some(c) = self.coders.get_mut(lane) {
                    c.last_vector = vector.clone();
                }
            }
            Event::Rollback { .. } => {
                if let Some(c) = self.coders.get_mut(lane) {
                    c.rollbacks += 1;
                }
            }
            Event::SuiteChanged { added, .. } => {
                self.suite.extend(added.iter().map(|a| SuiteItem {
                    number: a.number,
                    author: a.author.clone(),
                    file: a.file.clone(),
                }))
            }
            Event::Hidden { passed, total, .. } => {
                if let Some(c) = self.coders.get_mut(lane) {
                    c.hidden = Some((*passed, *total));
                }
            }
            Event::Stop { reason, round } if lane == RUN_LANE => {
                self.stop = Some(reason.clone());
                self.rounds = *round;
            }
            _ => {}
        }
    }

    /// The summary of a recorded run.
    pub fn of_journal(j: &JournalFile) -> Summary {
        let mut s = Summary::new(j.protocol.clone());
        s.run_id = j.run_id.clone();
        for r in j.effective() {
            s.add(&r.lane, &r.event);
        }
        s
    }
}

fn add_dixit(d: &mut DixitSummary, lane: &str, e: &Event) {
    match e {
        Event::Started { testers, .. } => {
            for t in testers {
                d.testers.entry(t.clone()).or_default();
            }
        }
        Event::Round { suite, .. } => d.suite_growth.push(*suite),
        Event::Reply { .. } => {
            if let Some(t) = d.testers.get_mut(lane) {
                t.proposed += 1;
            }
        }
        Event::Classified { class, .. } => {
            bump(&mut d.classes, *class);
            if let Some(t) = d.testers.get_mut(lane) {
                bump(&mut t.classes, *class);
            }
        }
        Event::Rollback { .. } => {
            if let Some(t) = d.testers.get_mut(lane) {
                t.rollbacks += 1;
            }
        }
        Event::Hibernated { .. } => {
            if let Some(t) = d.testers.get_mut(lane) {
                t.hibernations += 1;
            }
        }
        Event::Revived => {
            if let Some(t) = d.testers.get_mut(lane) {
                t.revivals += 1;
            }
        }
        Event::Accepted { .. } => {
            if let Some(t) = d.testers.get_mut(lane) {
                t.accepted += 1;
            }
        }
        _ => {}
    }
}

fn add_debate(d: &mut DebateSummary, coders: &BTreeMap<String, CoderStats>, lane: &str, e: &Event) {
    match e {
        Event::Epoch { epoch, .. } => d.epochs.push(DebateEpoch {
            epoch: *epoch,
            ..Default::default()
        }),
        Event::DebateTest { kept, .. } => {
            if let Some(ep) = d.epochs.last_mut() {
                ep.tests += 1;
                ep.breaking += u32::from(*kept);
            }
        }
        Event::Judged { vector, .. } if coders.contains_key(lane) => {
            if let Some(ep) = d.epochs.last_mut() {
                let passed = vector.iter().filter(|p| **p).count();
                ep.passed.insert(lane.to_string(), (passed, vector.len()));
            }
        }
        Event::Stop {
            reason: StopReason::Debated {
                winner, tie_break, ..
            },
            ..
        } => {
            d.winner = Some(winner.clone());
            d.tie_break = tie_break.clone();
        }
        _ => {}
    }
}

fn add_repair(r: &mut RepairSummary, lane: &str, e: &Event) {
    match e {
        Event::Started { coders, .. } => {
            for c in coders {
                r.coders.entry(c.clone()).or_default();
            }
        }
        Event::Attempt {
            attempt,
            passed,
            failed,
            errors,
            total,
            outcome,
        } => {
            let c = r.coders.entry(lane.to_string()).or_default();
            if outcome != "reverted" {
                c.shipped = Some(*attempt);
            }
            c.attempts.push(AttemptStats {
                attempt: *attempt,
                passed: *passed,
                failed: *failed,
                errors: *errors,
                total: *total,
                outcome: outcome.clone(),
            });
        }
        Event::Reviewed { coder, clean } => {
            r.coders.entry(coder.clone()).or_default().review =
                Some(if *clean { "clean" } else { "findings" }.to_string());
        }
        _ => {}
    }
}

fn add_blind(b: &mut BlindSummary, lane: &str, e: &Event) {
    match e {
        Event::Started { coders, .. } => {
            for c in coders {
                b.coders.entry(c.clone()).or_default();
            }
        }
        Event::SelfTests { tests } => {
            let c = b.coders.entry(lane.to_string()).or_default();
            for t in tests {
                c.self_tests += 1;
                *c.categories.entry(t.category.clone()).or_default() += 1;
            }
        }
        Event::Judged { vector, .. } => {
            if let Some(c) = b.coders.get_mut(lane) {
                c.self_passed = (vector.iter().filter(|p| **p).count(), vector.len());
            }
        }
        Event::BlindChecked { passed, .. } => {
            b.coders
                .entry(lane.to_string())
                .or_default()
                .blind
                .push(*passed);
        }
        _ => {}
    }
}
