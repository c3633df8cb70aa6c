//! debate on the page and in the terminal: the epochs, what each coder passed after them, and
//! the standings.

use maud::{html, Markup};

use super::ProtocolRenderer;
use crate::english::{and_list, plural};
use crate::journal::Open;
use crate::outcome::Summary;
use crate::protocol::debate::events::Debated;
use crate::protocol::debate::part::DebatePart;
use crate::report::html::{Column, Section, Table, TableCell};
use crate::report::run_report::{coder_link, RunView};

/// debate's renderer.
pub(super) struct Renderer;

impl ProtocolRenderer for Renderer {
    fn text(&self, s: &Summary) -> String {
        let Some(part) = s.part.typed::<DebatePart>() else {
            return String::new();
        };
        let mut o = format!(
            "  epochs: {}   suite: {} that discriminated\n",
            s.rounds,
            plural(s.suite.len(), "test", "tests")
        );
        for e in &part.epochs {
            let passed: Vec<String> = e
                .passed
                .iter()
                .map(|(c, (p, t))| format!("{c} {p}/{t}"))
                .collect();
            let best = e.passed.values().map(|(p, _)| *p).max().unwrap_or(0);
            let leaders: Vec<&str> = e
                .passed
                .iter()
                .filter(|(_, (p, _))| *p == best)
                .map(|(c, _)| c.as_str())
                .collect();
            o.push_str(&format!(
                "  epoch {}: {}, {} broke some solution; {}; leading: {}\n",
                e.epoch,
                plural(e.tests as usize, "test", "tests"),
                e.breaking,
                passed.join(", "),
                and_list(&leaders)
            ));
        }
        o
    }

    fn explain(&self, stop: &Open, v: &RunView) -> Markup {
        match stop.read::<Debated>() {
            Some(Debated { winner, why, .. }) => html! {
                p { "The debate ended (" (why) "): " (coder_link(v, &winner)) " passes the most tests of the final suite. Its code, and how the others differ from it, are below." }
            },
            None => html! {},
        }
    }

    fn section(&self, v: &RunView) -> Option<Section> {
        let part = v.summary.part.typed::<DebatePart>()?;
        let mut t = Table::new(
            "dx-epochs",
            vec![
                Column::num("epoch"),
                Column::num("tests written"),
                Column::num("kept"),
                Column::text("passed after the epoch's refinements"),
            ],
        );
        for e in &part.epochs {
            t.row(vec![
                TableCell::num(f64::from(e.epoch), e.epoch.to_string()),
                TableCell::num(f64::from(e.tests), e.tests.to_string()),
                TableCell::num(f64::from(e.breaking), e.breaking.to_string()),
                TableCell::text(
                    e.passed
                        .iter()
                        .map(|(c, (p, n))| format!("{c} {p}/{n}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
            ]);
        }
        let standings = match &part.standings {
            Some(Debated {
                standings,
                tie_break,
                ..
            }) => html! {
                ol {
                    @for s in standings { li { (coder_link(v, &s.coder)) ": " (s.passed) " of " (s.total) " tests" } }
                }
                @if let Some(t) = tie_break { p { "Tie broken by " (t) "." } }
            },
            None => html! {},
        };
        Some(Section {
            id: "protocol".into(),
            title: "Debate".into(),
            body: html! {
                p { "Each epoch every coder writes a test meant to break the others' code; a test that discriminates (some pass, some fail) joins the suite, and every coder may refine once (a refinement that passes fewer tests is undone)." }
                (t.render())
                @if part.winner.is_some() { h3 { "Standings" } (standings) }
            },
        })
    }
}
