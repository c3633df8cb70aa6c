//! repair in the report: its part of the summary (every attempt of every coder, the review),
//! its stop in words and on the page, its acceptance suite.

use std::collections::BTreeMap;
use std::path::PathBuf;

use maud::{html, Markup};
use serde::Serialize;

use super::events::{Repaired, Reviewed};
use super::{settings, Repair, Settings};
use crate::config::{Config, ConfigError};
use crate::english::and_list;
use crate::journal::{Choice, Event, ExitClass, Open};
use crate::report::html::{dot_chart, Cell, Column, DotChart, Section, Series, Table};
use crate::report::metric::Metric;
use crate::report::run_report::{coder_link, RunView};
use crate::report::{CoderStats, Part, ProtocolReport, Room, Summary};

/// One attempt.
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

/// One coder.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RepairCoder {
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

/// Attempts as `2/5 → 1/5 (reverted) → 4/5`.
pub fn attempts_line(attempts: &[AttemptStats]) -> String {
    attempts
        .iter()
        .map(|a| {
            format!(
                "{}/{}{}",
                a.passed,
                a.total,
                if a.outcome == "reverted" {
                    " (reverted)"
                } else {
                    ""
                }
            )
        })
        .collect::<Vec<_>>()
        .join(" → ")
}

fn failing(stop: &Open) -> Option<Vec<String>> {
    let r: Repaired = stop.read()?;
    Some(
        r.standings
            .iter()
            .filter(|s| s.passed < s.total)
            .map(|s| s.coder.clone())
            .collect(),
    )
}

impl ProtocolReport for Repair {
    fn name(&self) -> &'static str {
        "repair"
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

    fn explain(&self, stop: &Open, v: &RunView) -> Markup {
        let failing = failing(stop).unwrap_or_default();
        let never_ran: Vec<String> = v
            .summary
            .part
            .typed::<RepairPart>()
            .map(|p| {
                p.coders
                    .iter()
                    .filter(|(_, c)| c.never_ran())
                    .map(|(n, _)| n.clone())
                    .collect()
            })
            .unwrap_or_default();
        html! {
            @if !never_ran.is_empty() {
                p { "No attempt of " (and_list(&never_ran)) " ran at all: every acceptance test errors, which is what a syntax or import error does. Read the code below (the whole file is shown) before the failing tests." }
            }
            @if failing.is_empty() {
                p { "Every coder's best attempt passes the whole acceptance suite." }
            } @else {
                p { "Acceptance tests still fail for " (and_list(&failing)) ": read the failing tests and the shipped attempts below." }
            }
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

    fn section(&self, v: &RunView) -> Option<Section> {
        let part = v.summary.part.typed::<RepairPart>()?;
        let mut t = Table::new(
            "dx-repair",
            vec![
                Column::text("coder"),
                Column::text("review of the first attempt"),
                Column::text("attempts (passed / total)"),
                Column::num("shipped"),
            ],
        );
        for (name, c) in &part.coders {
            t.row(vec![
                Cell::markup(coder_link(v, name), name.clone()),
                Cell::text(c.review.clone().unwrap_or_else(|| "–".into())),
                Cell::text(attempts_line(&c.attempts)),
                Cell::text(c.shipped.map_or("–".into(), |s| format!("attempt {s}"))),
            ]);
        }
        let cats: Vec<String> = part.coders.keys().map(|k| k.to_string()).collect();
        let most = part
            .coders
            .values()
            .map(|c| c.attempts.len())
            .max()
            .unwrap_or(0);
        let bins: Vec<String> = (1..=most).map(|k| format!("attempt {k}")).collect();
        let series: Vec<Series> = part
            .coders
            .iter()
            .map(|(name, c)| Series {
                name: name.clone(),
                values: (0..most)
                    .map(|k| c.attempts.get(k).map(|a| a.passed as f64))
                    .collect(),
            })
            .collect();
        let total = part
            .coders
            .values()
            .flat_map(|c| c.attempts.iter().map(|a| a.total))
            .max()
            .unwrap_or(1)
            .max(1);
        Some(Section {
            id: "protocol".into(),
            title: "Repair".into(),
            body: html! {
                p { "Each coder works against the acceptance suite (" (and_list(&cats)) "): a reviewer reads the first attempt, then focused fixes, each kept only if it passes more tests (a regression is reverted); the best attempt ships." }
                (t.render())
                (dot_chart(&DotChart {
                    caption: "Acceptance tests passed per attempt",
                    categories: &bins,
                    series: &series,
                    y_max: total as f64,
                    y_label: "tests passed",
                    counts: true,
                    x_label: "attempt",
                    numbered: true,
                }))
            },
        })
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

    fn text(&self, _s: &Summary) -> String {
        let mut o = String::new();
        for (name, c) in &self.coders {
            o.push_str(&format!(
                "  {name:10} attempts: {}; shipped attempt {}{}\n",
                attempts_line(&c.attempts),
                c.shipped.map(|a| a.to_string()).unwrap_or("-".into()),
                c.review
                    .as_ref()
                    .map(|r| format!("; review: {r}"))
                    .unwrap_or_default()
            ));
        }
        o
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_read_as_a_line() {
        let a = |passed, outcome: &str| AttemptStats {
            passed,
            total: 5,
            outcome: outcome.into(),
            ..Default::default()
        };
        let attempts = [a(2, "first"), a(1, "reverted"), a(4, "kept")];
        assert_eq!(attempts_line(&attempts), "2/5 → 1/5 (reverted) → 4/5");
    }
}
