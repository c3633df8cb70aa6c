//! What a debate run produced: its part of the summary (the epochs and the winner), its stop in
//! words and the room a person may give it, and its tests as trials.

use std::collections::BTreeMap;

use serde::Serialize;

use super::events::{DebateTest, Debated};
use super::{settings, Debate, Settings, MAX_EPOCHS_REACHED};
use crate::config::Config;
use crate::journal::{Choice, Event, ExitClass, Open};
use crate::outcome::{CoderStats, Metric, Part, ProtocolData, Room, Summary, Trial};

/// One debate epoch.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DebateEpoch {
    /// The epoch's number.
    pub epoch: u32,
    /// Tests written this epoch, and how many of them discriminated (joined the suite).
    pub tests: u32,
    /// Of those, the tests that discriminated.
    pub breaking: u32,
    /// Each coder's tests passed (of the suite) after the epoch's refinements.
    pub passed: BTreeMap<String, (usize, usize)>,
}

/// debate's part of a summary: the epochs and the winner.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DebatePart {
    /// The epochs, in order.
    pub epochs: Vec<DebateEpoch>,
    /// The coder that passes the most tests, once the debate ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
    /// How a tie for first was broken, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tie_break: Option<String>,
    /// The final standings (for the page; not in `summary.json`).
    #[serde(skip)]
    pub standings: Option<Debated>,
}

impl ProtocolData for Debate {
    fn name(&self) -> &'static str {
        super::NAME
    }

    fn part(&self) -> Option<Box<dyn Part>> {
        Some(Box::new(DebatePart::default()))
    }

    fn describe(&self, stop: &Open) -> String {
        let Some(Debated {
            winner,
            why,
            standings,
            tie_break,
        }) = stop.read()
        else {
            return format!("stopped: {}", stop.name);
        };
        let table: Vec<String> = standings
            .iter()
            .map(|s| format!("{} {}/{}", s.coder, s.passed, s.total))
            .collect();
        format!(
            "debate over ({why}): {winner} passes the most tests ({}){}",
            table.join(", "),
            tie_break
                .as_ref()
                .map(|t| format!("; tie broken by {t}"))
                .unwrap_or_default()
        )
    }

    fn exit_class(&self, _stop: &Open) -> ExitClass {
        ExitClass::Done
    }

    /// When a limit ended it: accept the winner, or run more epochs. A debate that ran out
    /// of breaking tests, or whose coders all pass, has nothing to decide.
    fn choices(&self, stop: &Open) -> Vec<Choice> {
        match stop.read::<Debated>() {
            Some(d) if ended_by(&d.why).is_some() => vec![Choice::Accept],
            _ => Vec::new(),
        }
    }

    /// More epochs: the limit that ended it.
    fn room(&self, stop: &Open, config: &Config) -> Vec<Room> {
        let (Some(Debated { why, .. }), Ok(s)) = (
            stop.read::<Debated>(),
            config.section::<Settings>(settings::TABLE),
        ) else {
            return Vec::new();
        };
        let key = |k: &str| format!("{}.{k}", settings::TABLE);
        match ended_by(&why) {
            Some("max_epochs") => vec![Room::new(&key("max_epochs"), s.max_epochs)],
            Some(_) => vec![Room::new(&key("early_stop"), s.early_stop)],
            None => Vec::new(),
        }
    }

    fn trial(&self, event: &Open) -> Option<Trial> {
        let t: DebateTest = event.read()?;
        Some(Trial {
            test: t.test,
            kept: t.kept,
            failed_by: t.failed_by,
            build_error: t.build_error,
            cells: t.cells,
        })
    }

    fn suite_reason(&self) -> Option<&'static str> {
        Some("it discriminated: some implementations passed it and others failed")
    }

    fn shipped_rule(&self) -> &'static str {
        "the debate's winner; with none, the first coder whose final implementation passes the most of the tests it was last checked against"
    }

    fn round_word(&self) -> &'static str {
        "epoch"
    }
}

impl Part for DebatePart {
    /// DebateCoder's curve: whether the debate converged by epoch 1, 2, 3, … (at least three
    /// points, more if it ran more). An epoch converges when no test it wrote broke an
    /// implementation, or when after it every coder passes every test of the suite.
    fn metrics(&self, _: &Summary) -> Vec<Metric> {
        let at = self
            .epochs
            .iter()
            .position(|e| {
                e.breaking == 0
                    || (!e.passed.is_empty() && e.passed.values().all(|(p, t)| p == t && *t > 0))
            })
            .map(|i| i + 1);
        let mut m: Vec<Metric> = (1..=self.epochs.len().max(3))
            .map(|k| {
                Metric::flag(
                    &format!("converged by epoch {k}"),
                    at.is_some_and(|e| e <= k),
                )
            })
            .collect();
        m.push(Metric::count("epochs", self.epochs.len() as f64));
        m
    }

    fn add(&mut self, lane: &str, e: &Event, coders: &BTreeMap<String, CoderStats>) {
        match e {
            Event::Epoch { epoch, .. } => self.epochs.push(DebateEpoch {
                epoch: *epoch,
                ..Default::default()
            }),
            Event::Protocol(o) => {
                if let (Some(t), Some(ep)) = (o.read::<DebateTest>(), self.epochs.last_mut()) {
                    ep.tests += 1;
                    ep.breaking += u32::from(t.kept);
                }
            }
            Event::Judged { vector, .. } if coders.contains_key(lane) => {
                if let Some(ep) = self.epochs.last_mut() {
                    let passed = vector.iter().filter(|p| **p).count();
                    ep.passed.insert(lane.to_string(), (passed, vector.len()));
                }
            }
            Event::Stop { reason, .. } => {
                if let Some(d) = reason.decided().and_then(|o| o.read::<Debated>()) {
                    self.winner = Some(d.winner.clone());
                    self.tie_break = d.tie_break.clone();
                    self.standings = Some(d);
                }
            }
            _ => {}
        }
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    fn grows_suite(&self) -> bool {
        true
    }

    fn shipped(&self) -> Option<Vec<String>> {
        self.winner.clone().map(|w| vec![w])
    }

    fn boxed(&self) -> Box<dyn Part> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The limit whose end a debate's `why` names (`max_epochs`, `early_stop`), if a limit ended it.
fn ended_by(why: &str) -> Option<&'static str> {
    if why == MAX_EPOCHS_REACHED {
        Some("max_epochs")
    } else if why.ends_with("epochs without improvement") {
        Some("early_stop")
    } else {
        None
    }
}
