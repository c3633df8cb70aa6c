//! repair on the page and in the terminal: every attempt of every coder against the acceptance
//! suite, the review, and the attempt shipped.

use maud::{html, Markup};

use super::ProtocolRenderer;
use crate::english::and_list;
use crate::journal::Open;
use crate::outcome::Summary;
use crate::protocol::repair::part::{self, AttemptStats, RepairPart};
use crate::report::html::{dot_chart, Column, DotChart, Section, Series, Table, TableCell};
use crate::report::run_report::{coder_link, RunView};

/// repair's renderer.
pub(super) struct Renderer;

impl ProtocolRenderer for Renderer {
    fn text(&self, s: &Summary) -> String {
        let Some(part) = s.part.typed::<RepairPart>() else {
            return String::new();
        };
        let mut o = String::new();
        for (name, c) in &part.coders {
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

    fn explain(&self, stop: &Open, v: &RunView) -> Markup {
        let failing = part::failing(stop).unwrap_or_default();
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
                TableCell::markup(coder_link(v, name), name.clone()),
                TableCell::text(c.review.clone().unwrap_or_else(|| "–".into())),
                TableCell::text(attempts_line(&c.attempts)),
                TableCell::text(c.shipped.map_or("–".into(), |s| format!("attempt {s}"))),
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

/// Attempts as `2/5 → 1/5 (reverted) → 4/5`.
pub(super) fn attempts_line(attempts: &[AttemptStats]) -> String {
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
