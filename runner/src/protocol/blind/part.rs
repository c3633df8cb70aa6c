//! What a blind run produced: its part of the summary (each coder's self-tests and what the
//! hidden suite told it), its stop in words and the room a person may give it, and its
//! self-tests for the disagreement finder.

use std::collections::BTreeMap;

use serde::Serialize;

use super::events::{BlindChecked, SelfTests, Verified};
use super::{settings, Blind, Settings};
use crate::config::Config;
use crate::consensus::NamedTest;
use crate::journal::{Choice, Event, ExitClass, Open};
use crate::outcome::{CoderStats, Metric, Part, ProtocolData, Room, Summary};

/// One coder.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BlindCoder {
    /// Self-tests written, per category.
    pub categories: BTreeMap<String, u32>,
    /// Self-tests written.
    pub self_tests: u32,
    /// Its own tests passed, the last time it ran them.
    pub self_passed: (usize, usize),
    /// The hidden suite's answers, in order (what the coder was told: pass or fail).
    pub blind: Vec<bool>,
}

/// blind's part of a summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BlindPart {
    /// Each coder's history, by name.
    pub coders: BTreeMap<String, BlindCoder>,
}

impl ProtocolData for Blind {
    fn name(&self) -> &'static str {
        super::NAME
    }

    fn part(&self) -> Option<Box<dyn Part>> {
        Some(Box::new(BlindPart::default()))
    }

    fn describe(&self, stop: &Open) -> String {
        let Some(Verified { passed, failed }) = stop.read() else {
            return format!("stopped: {}", stop.name);
        };
        if failed.is_empty() {
            format!(
                "verified: the hidden suite passes for {}",
                passed.join(", ")
            )
        } else {
            format!(
                "human judgement needed: the hidden suite fails for {}{}",
                failed.join(", "),
                if passed.is_empty() {
                    String::new()
                } else {
                    format!(" (passes for {})", passed.join(", "))
                }
            )
        }
    }

    /// When the hidden suite fails: accept the implementations, or give more attempts.
    fn choices(&self, stop: &Open) -> Vec<Choice> {
        match stop.read::<Verified>() {
            Some(v) if v.failed.is_empty() => Vec::new(),
            _ => vec![Choice::Accept],
        }
    }

    fn room(&self, stop: &Open, config: &Config) -> Vec<Room> {
        match (
            stop.read::<Verified>(),
            config.section::<Settings>(settings::TABLE),
        ) {
            (Some(v), Ok(s)) if !v.failed.is_empty() => vec![Room::new(
                &format!("{}.max_blind_attempts", settings::TABLE),
                s.max_blind_attempts,
            )],
            _ => Vec::new(),
        }
    }

    fn exit_class(&self, stop: &Open) -> ExitClass {
        match stop.read::<Verified>() {
            Some(v) if v.failed.is_empty() => ExitClass::Done,
            _ => ExitClass::HumanNeeded,
        }
    }

    fn named_tests(&self, event: &Open) -> Vec<NamedTest> {
        let Some(SelfTests { tests }) = event.read() else {
            return Vec::new();
        };
        tests
            .into_iter()
            .filter_map(|t| {
                let nth = t.id.rsplit_once('.')?.1.parse::<usize>().ok()?;
                Some(NamedTest {
                    label: format!("{} (self-test)", t.id),
                    reply: t.id,
                    block: Some(nth),
                })
            })
            .collect()
    }

    fn suite_reason(&self) -> Option<&'static str> {
        None
    }

    fn shipped_rule(&self) -> &'static str {
        "the first coder whose final implementation passes the most of its own tests"
    }
}

impl Part for BlindPart {
    /// HillClimber's measures, over the coders: their own tests all pass; they pass the hidden
    /// tests; how well the first predicts the second (of the coders whose own tests pass, those
    /// that pass the hidden tests; and how often the two verdicts agree); and the overlap of the
    /// own tests with the hidden ones (the share of the distinct calls the hidden tests make
    /// that the run's own tests make too, as the disagreement finder observed them).
    fn metrics(&self, s: &Summary) -> Vec<Metric> {
        let (mut own, mut hidden, mut both, mut agree, mut n) = (0, 0, 0, 0, 0);
        for (name, c) in &self.coders {
            let Some((p, t)) = s.coders.get(name).and_then(|x| x.hidden) else {
                continue;
            };
            let o = c.self_passed.1 > 0 && c.self_passed.0 == c.self_passed.1;
            let h = t > 0 && p == t;
            n += 1;
            own += u64::from(o);
            hidden += u64::from(h);
            both += u64::from(o && h);
            agree += u64::from(o == h);
        }
        let mut m = vec![
            Metric::ratio("own tests all pass", own, n),
            Metric::ratio("hidden tests all pass", hidden, n),
            Metric::ratio("hidden tests pass when own tests pass", both, own),
            Metric::ratio("own verdict agrees with the hidden one", agree, n),
        ];
        if let Some(o) = s.disagreements.as_ref().and_then(|d| d.overlap.as_ref()) {
            m.push(Metric::ratio(
                "hidden calls the own tests also make",
                o.shared as u64,
                o.hidden as u64,
            ));
        }
        m
    }

    fn add(&mut self, lane: &str, e: &Event, _coders: &BTreeMap<String, CoderStats>) {
        match e {
            Event::Started { coders, .. } => {
                for c in coders {
                    self.coders.entry(c.clone()).or_default();
                }
            }
            Event::Judged { vector, .. } => {
                if let Some(c) = self.coders.get_mut(lane) {
                    c.self_passed = (vector.iter().filter(|p| **p).count(), vector.len());
                }
            }
            Event::Protocol(o) => {
                if let Some(SelfTests { tests }) = o.read() {
                    let c = self.coders.entry(lane.to_string()).or_default();
                    for t in tests {
                        c.self_tests += 1;
                        *c.categories.entry(t.category).or_default() += 1;
                    }
                } else if let Some(BlindChecked { passed, .. }) = o.read() {
                    self.coders
                        .entry(lane.to_string())
                        .or_default()
                        .blind
                        .push(passed);
                }
            }
            _ => {}
        }
    }

    /// A coder whose own tests fail, whatever the hidden suite said.
    fn doubts(&self) -> Vec<String> {
        self.coders
            .iter()
            .filter(|(_, c)| c.self_passed.0 < c.self_passed.1)
            .map(|(name, c)| {
                format!(
                    "{name}'s own tests fail ({}/{} pass)",
                    c.self_passed.0, c.self_passed.1
                )
            })
            .collect()
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    fn boxed(&self) -> Box<dyn Part> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
