//! What a repair run produced: its part of the summary (every attempt of every coder, the
//! review), its stop in words and the room a person may give it, its acceptance suite.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::events::{Repaired, Reviewed};
use super::{settings, Repair, Settings};
use crate::config::{Config, ConfigError};
use crate::journal::{Choice, Event, ExitClass, Open};
use crate::outcome::{CoderStats, Metric, Part, ProtocolData, Room, Summary};

/// One attempt.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AttemptStats {
    /// The attempt's number.
    pub attempt: u32,
    /// Suite tests passed.
    pub passed: usize,
    /// Suite tests failed with a wrong answer.
    pub failed: usize,
    /// Suite tests failed otherwise (a crash, a limit, a build error).
    pub errors: usize,
    /// Suite tests run.
    pub total: usize,
    /// `first`, `kept` or `reverted` (a regression the high-water mark undid).
    pub outcome: String,
}

/// One coder.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RepairCoder {
    /// Its attempts, in order.
    pub attempts: Vec<AttemptStats>,
    /// The attempt that shipped (the high-water mark).
    pub shipped: Option<u32>,
    /// The review of its first attempt: `clean`, `findings`, or none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
}

/// repair's part of a summary: every attempt of every coder.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RepairPart {
    /// Each coder's attempts, by name.
    pub coders: BTreeMap<String, RepairCoder>,
}

impl RepairCoder {
    /// Every test errored in every attempt it made.
    pub fn never_ran(&self) -> bool {
        !self.attempts.is_empty()
            && self
                .attempts
                .iter()
                .all(|a| a.total > 0 && a.errors == a.total)
    }
}

/// The coders whose best attempts still fail acceptance tests at a stop of repair (none: not
/// its stop).
pub fn failing(stop: &Open) -> Option<Vec<String>> {
    let r: Repaired = stop.read()?;
    Some(
        r.standings
            .iter()
            .filter(|s| s.passed < s.total)
            .map(|s| s.coder.clone())
            .collect(),
    )
}

impl ProtocolData for Repair {
    fn name(&self) -> &'static str {
        super::NAME
    }

    fn part(&self) -> Option<Box<dyn Part>> {
        Some(Box::new(RepairPart::default()))
    }

    fn describe(&self, stop: &Open) -> String {
        let Some(Repaired { standings }) = stop.read() else {
            return format!("stopped: {}", stop.name);
        };
        let table: Vec<String> = standings
            .iter()
            .map(|s| format!("{} {}/{}", s.coder, s.passed, s.total))
            .collect();
        let all = standings.iter().all(|s| s.passed == s.total);
        format!(
            "{}: best attempts shipped ({})",
            if all {
                "repaired, every acceptance test passes"
            } else {
                "human judgement needed: acceptance tests still fail"
            },
            table.join(", ")
        )
    }

    /// When acceptance tests still fail: accept the best attempts, or give more attempts.
    fn choices(&self, stop: &Open) -> Vec<Choice> {
        match failing(stop) {
            Some(f) if f.is_empty() => Vec::new(),
            _ => vec![Choice::Accept],
        }
    }

    fn room(&self, stop: &Open, config: &Config) -> Vec<Room> {
        match (failing(stop), config.section::<Settings>(settings::TABLE)) {
            (Some(f), Ok(s)) if !f.is_empty() => vec![Room::new(
                &format!("{}.max_attempts", settings::TABLE),
                s.max_attempts,
            )],
            _ => Vec::new(),
        }
    }

    fn exit_class(&self, stop: &Open) -> ExitClass {
        match failing(stop) {
            Some(f) if f.is_empty() => ExitClass::Done,
            _ => ExitClass::HumanNeeded,
        }
    }

    fn suite_reason(&self) -> Option<&'static str> {
        Some("it is the project's acceptance suite")
    }

    fn shipped_rule(&self) -> &'static str {
        "the first coder whose shipped attempt (its best, the high-water mark) passes the most acceptance tests"
    }

    fn acceptance(&self, config: &Config) -> Result<Option<PathBuf>, ConfigError> {
        Ok(Some(config.section::<Settings>(settings::TABLE)?.tests))
    }
}

impl Part for RepairPart {
    /// The repair blog's measure: whether a coder's last attempt passed fewer acceptance tests
    /// than its best (what would have shipped without the high-water mark), and how often the
    /// mark reverted an attempt.
    fn metrics(&self, _: &Summary) -> Vec<Metric> {
        let worse = self.coders.values().any(|c| {
            let best = c.attempts.iter().map(|a| a.passed).max();
            matches!((c.attempts.last(), best), (Some(l), Some(b)) if l.passed < b)
        });
        let reverts = self
            .coders
            .values()
            .flat_map(|c| &c.attempts)
            .filter(|a| a.outcome == "reverted")
            .count();
        vec![
            Metric::flag("last attempt worse than the best", worse),
            Metric::flag("the mark reverted an attempt", reverts > 0),
            Metric::count("reverts", reverts as f64),
        ]
    }

    fn add(&mut self, lane: &str, e: &Event, _coders: &BTreeMap<String, CoderStats>) {
        match e {
            Event::Started { coders, .. } => {
                for c in coders {
                    self.coders.entry(c.clone()).or_default();
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
                let c = self.coders.entry(lane.to_string()).or_default();
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
            Event::Protocol(o) => {
                if let Some(Reviewed { coder, clean }) = o.read() {
                    self.coders.entry(coder).or_default().review =
                        Some(if clean { "clean" } else { "findings" }.to_string());
                }
            }
            _ => {}
        }
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// A coder none of whose attempts ran (every acceptance test errors in each: a syntax or
    /// import error), whatever its review said.
    fn doubts(&self) -> Vec<String> {
        self.coders
            .iter()
            .filter(|(_, c)| c.never_ran())
            .map(|(name, c)| {
                format!(
                    "no attempt of {name}'s ran: every acceptance test errors in {}{}",
                    if c.attempts.len() == 1 {
                        "its one attempt".to_string()
                    } else {
                        format!(
                            "all {} attempts (a syntax or import error?)",
                            c.attempts.len()
                        )
                    },
                    if c.review.as_deref() == Some("clean") {
                        ", though its review called the first clean"
                    } else {
                        ""
                    }
                )
            })
            .collect()
    }

    fn boxed(&self) -> Box<dyn Part> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
