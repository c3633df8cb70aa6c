//! The run at a glance (`summary.json`): common fields every protocol has (the stop, usage, each
//! coder's replies, fixes, rollbacks, last judgement and hidden results, the final suite), plus
//! the protocol's own part ([`Part`], which the protocol folds). Folded from the run's events,
//! one at a time.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::classify::Class;
use crate::config::ProtocolName;
use crate::journal::{Choice, Event, JournalFile, StopReason, RUN_LANE};

/// Counts per class.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClassCounts {
    /// Tests classified TOO_EASY.
    pub too_easy: u32,
    /// Tests classified IDEAL.
    pub ideal: u32,
    /// Tests classified TOO_HARD.
    pub too_hard: u32,
    /// Tests classified INVALID.
    pub invalid: u32,
}

/// One coder's history.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CoderStats {
    /// Replies it gave.
    pub replies: u32,
    /// Replies that fixed, refined or rewrote its code.
    pub fixes: u32,
    /// Times it went back to a checkpoint.
    pub rollbacks: u32,
    /// Its verdicts on the suite the last time it was checked (or, after a rollback, those of
    /// the code it went back to: what is on disk).
    pub last_vector: Vec<bool>,
    /// Whether its code did not build the last time it was checked (or, after a rollback, the
    /// code it went back to).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub does_not_build: bool,
    /// The verdicts and the build in effect at each of its checkpoints, to restore on a
    /// rollback.
    #[serde(skip)]
    pub saved: BTreeMap<u64, (Vec<bool>, bool)>,
    /// (passed, total) on the hidden tests, if the project has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<(usize, usize)>,
}

/// Tokens and money.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UsageTotals {
    /// Agent calls answered.
    pub calls: u64,
    /// Tokens in the prompts sent.
    pub prompt_tokens: u64,
    /// Tokens in the replies.
    pub completion_tokens: u64,
    /// Cost in US dollars.
    pub usd: f64,
}

/// A suite test.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SuiteItem {
    /// Its number in the suite.
    pub number: usize,
    /// The tester that wrote it.
    pub author: String,
    /// Its file name in `suite/`.
    pub file: String,
}

/// A protocol's own part of a summary, folded from the run's events one at a time.
pub trait Part: Send + Sync + std::any::Any {
    /// Folds one event in (after the shared fields took it: `coders` is up to date).
    fn add(&mut self, lane: &str, event: &Event, coders: &BTreeMap<String, CoderStats>);

    /// The part in `summary.json`, under the protocol's name.
    fn to_json(&self) -> serde_json::Value;

    /// Facts of its own that contradict a good ending (e.g. a coder's own tests failing), so a
    /// headline is never green while something known disagrees.
    fn doubts(&self) -> Vec<String> {
        Vec::new()
    }

    /// Balance lines of its own for the person at a stop (after the shared ones), e.g. who
    /// fails a hibernating tester's tests.
    fn balance(&self, summary: &Summary) -> Vec<String> {
        let _ = summary;
        Vec::new()
    }

    /// The coders whose implementations the run ships, when it ships fewer than all of them
    /// (`codet`'s pick, debate's winner): the shared doubts and `dixit compare` count only
    /// these. None: every coder's.
    fn shipped(&self) -> Option<Vec<String>> {
        None
    }

    /// What the pick of a protocol that picks by a rule of its own rests on (`codet`'s dual
    /// agreement); none: the shared rules apply (a shipping event, or every coder's).
    fn decision(&self, summary: &Summary) -> Option<super::Decision> {
        let _ = summary;
        None
    }

    /// The seeds' own measures of the run (see `super::metric`): what `dixit compare` totals
    /// per protocol. `summary` holds the shared fields (hidden results, the suite, the
    /// disagreements when computed).
    fn metrics(&self, summary: &Summary) -> Vec<super::metric::Metric> {
        let _ = summary;
        Vec::new()
    }

    /// Whether the protocol grows the suite it judges by (then an empty one is a doubt: nothing
    /// checked the implementations).
    fn grows_suite(&self) -> bool {
        false
    }

    /// A copy (a summary is cloned).
    fn boxed(&self) -> Box<dyn Part>;

    /// The part as itself, for the protocol that made it (its page section reads it typed).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// The protocol's own part of a summary (`"dixit": {…}` in `summary.json`), if it has one.
pub struct ProtocolPart {
    name: String,
    part: Option<Box<dyn Part>>,
}

impl ProtocolPart {
    /// The part itself.
    pub fn get(&self) -> Option<&dyn Part> {
        self.part.as_deref()
    }

    /// The part as the protocol that made it knows it.
    pub fn typed<T: Part>(&self) -> Option<&T> {
        self.part.as_deref()?.as_any().downcast_ref()
    }
}

impl Clone for ProtocolPart {
    fn clone(&self) -> Self {
        ProtocolPart {
            name: self.name.clone(),
            part: self.part.as_ref().map(|p| p.boxed()),
        }
    }
}

impl PartialEq for ProtocolPart {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.part.as_ref().map(|p| p.to_json()) == other.part.as_ref().map(|p| p.to_json())
    }
}

impl std::fmt::Debug for ProtocolPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProtocolPart")
            .field("name", &self.name)
            .field("part", &self.part.as_ref().map(|p| p.to_json()))
            .finish()
    }
}

impl Serialize for ProtocolPart {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        if let Some(p) = &self.part {
            m.serialize_entry(&self.name, &p.to_json())?;
        }
        m.end()
    }
}

/// The run at a glance (`summary.json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// The run's id.
    pub run_id: String,
    /// The protocol that ran.
    pub protocol: ProtocolName,
    /// Why the run stopped, if it has.
    pub stop: Option<StopReason>,
    /// Rounds (or epochs) begun.
    pub rounds: u32,
    /// The suite the run ended with (the tests the protocol admitted).
    pub suite: Vec<SuiteItem>,
    /// Each coder's history, by name.
    pub coders: BTreeMap<String, CoderStats>,
    /// Coders a person left behind (`dixit decide … leave-behind`), in order: they took no
    /// further part, and the band counts the others.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_behind: Vec<String>,
    /// Usage of the whole run.
    pub usage: UsageTotals,
    /// Usage per agent, by name.
    pub usage_per_agent: BTreeMap<String, UsageTotals>,
    /// The protocol's own part.
    #[serde(flatten)]
    pub part: ProtocolPart,
    /// Where the final implementations disagree on the calls the tests made (Python unit
    /// tests; computed after the run, never shown to an agent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disagreements: Option<crate::consensus::Disagreements>,
    /// Each classified test's failures and pool, the last time it was classified (the
    /// evidence a decision policy reads).
    #[serde(skip)]
    pub classified: BTreeMap<String, (usize, usize)>,
    /// Testers asleep with their too-hard tests.
    #[serde(skip)]
    pub hibernating: BTreeMap<String, Vec<String>>,
    /// The implementation the run ships by evidence, and how it was chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shipping: Option<crate::journal::Shipping>,
}

/// Counts one classification.
pub fn bump(c: &mut ClassCounts, class: Class) {
    match class {
        Class::TooEasy => c.too_easy += 1,
        Class::Ideal => c.ideal += 1,
        Class::TooHard => c.too_hard += 1,
        Class::Invalid => c.invalid += 1,
    }
}

impl Summary {
    /// An empty summary of a run of `protocol`, with its own `part` (see
    /// [`super::ProtocolData::summary`]).
    pub fn new(protocol: &str, part: Option<Box<dyn Part>>) -> Summary {
        Summary {
            run_id: String::new(),
            protocol: ProtocolName::new(protocol),
            stop: None,
            rounds: 0,
            suite: Vec::new(),
            coders: BTreeMap::new(),
            left_behind: Vec::new(),
            usage: UsageTotals::default(),
            usage_per_agent: BTreeMap::new(),
            part: ProtocolPart {
                name: protocol.to_string(),
                part,
            },
            disagreements: None,
            classified: BTreeMap::new(),
            hibernating: BTreeMap::new(),
            shipping: None,
        }
    }

    /// Folds one event in.
    pub fn add(&mut self, lane: &str, e: &Event) {
        self.add_common(lane, e);
        if let Some(p) = &mut self.part.part {
            p.add(lane, e, &self.coders);
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
            Event::Judged {
                vector,
                build_error,
                ..
            } => {
                if let Some(c) = self.coders.get_mut(lane) {
                    c.last_vector = vector.clone();
                    c.does_not_build = build_error.is_some();
                }
            }
            Event::Checkpoint { id } => {
                if let Some(c) = self.coders.get_mut(lane) {
                    c.saved
                        .insert(*id, (c.last_vector.clone(), c.does_not_build));
                }
            }
            Event::Rollback { to, .. } => {
                if let Some(c) = self.coders.get_mut(lane) {
                    c.rollbacks += 1;
                    if let Some((v, broken)) = c.saved.get(to) {
                        c.last_vector = v.clone();
                        c.does_not_build = *broken;
                    }
                }
            }
            Event::SuiteChanged { added, removed, .. } => {
                self.suite.retain(|t| !removed.contains(&t.number));
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
            Event::Decision { choice, .. } => self.decided(choice),
            Event::Classified {
                test,
                failures,
                pool,
                ..
            } => {
                self.classified.insert(test.clone(), (*failures, *pool));
            }
            Event::Hibernated { tests } => {
                self.hibernating.insert(lane.to_string(), tests.clone());
            }
            Event::Revived | Event::Forgotten { .. } => {
                self.hibernating.remove(lane);
            }
            Event::Shipped(s) => self.shipping = Some(s.clone()),
            Event::Stop { reason, round } if lane == RUN_LANE => {
                self.stop = Some(reason.clone());
                self.rounds = *round;
            }
            _ => {}
        }
    }

    /// Folds in a person's decision (journaled on the person lane; a resume meets it again
    /// without re-journaling it).
    pub fn decided(&mut self, choice: &Choice) {
        if let Choice::LeaveBehind { coder } = choice {
            if !self.left_behind.contains(coder) {
                self.left_behind.push(coder.clone());
            }
        }
    }

    /// The coders whose implementations the run ships: the one chosen by evidence, else the
    /// protocol part's pick (`codet`'s choice, debate's winner), else every coder not left
    /// behind.
    pub fn shipped(&self) -> Vec<&String> {
        if let Some(s) = &self.shipping {
            return self.coders.keys().filter(|c| **c == s.coder).collect();
        }
        match self.part.get().and_then(|p| p.shipped()) {
            Some(picked) => self.coders.keys().filter(|c| picked.contains(c)).collect(),
            None => self
                .coders
                .keys()
                .filter(|c| !self.left_behind.contains(c))
                .collect(),
        }
    }

    /// The one implementation a problem is judged by when protocols are compared: the one
    /// chosen by evidence, or the protocol's pick, else the first shipped coder whose final
    /// implementation passes the most of the tests it was last checked against (the suite, the
    /// acceptance tests, its own tests).
    pub fn shipped_one(&self) -> Option<String> {
        let mut best: Option<(&String, usize)> = None;
        for name in self.shipped() {
            let passed = self.coders[name].last_vector.iter().filter(|p| **p).count();
            if best.is_none_or(|(_, b)| passed > b) {
                best = Some((name, passed));
            }
        }
        best.map(|(n, _)| n.clone())
    }

    /// Whether [`Summary::shipped_one`] passes every hidden test (`None`: no hidden tests, or
    /// nothing shipped).
    pub fn shipped_passes_hidden(&self) -> Option<bool> {
        let (p, t) = self.coders.get(&self.shipped_one()?)?.hidden?;
        (t > 0).then_some(p == t)
    }

    /// What is known that disagrees with a good ending: shipped coders failing hidden tests, an
    /// empty suite at a protocol that grows one, and the protocol part's own doubts.
    pub fn doubts(&self) -> Vec<String> {
        let shipped = self.shipped();
        let mut out: Vec<String> = self
            .coders
            .iter()
            .filter(|(name, _)| shipped.contains(name) && !self.left_behind.contains(name))
            .filter_map(|(name, c)| {
                let (p, t) = c.hidden?;
                (p < t).then(|| format!("{name} fails hidden tests ({p}/{t} pass)"))
            })
            .collect();
        if let Some(p) = self.part.get() {
            if p.grows_suite() && self.suite.is_empty() && self.stop.is_some() {
                out.push("the suite is empty: no test checked the implementations".into());
            }
            out.extend(p.doubts());
        }
        out
    }

    /// Folds every event of a recorded run in.
    pub fn fold(mut self, j: &JournalFile) -> Summary {
        self.run_id = j.run_id.clone();
        for r in j.effective() {
            self.add(&r.lane, &r.event);
        }
        self
    }
}
