//! blind on the page and in the terminal: each coder's self-tests and what the hidden suite told
//! it.

use maud::{html, Markup};

use super::ProtocolRenderer;
use crate::english::and_list;
use crate::journal::Open;
use crate::outcome::Summary;
use crate::protocol::blind::events::Verified;
use crate::protocol::blind::part::BlindPart;
use crate::report::html::{Column, Section, Table, TableCell};
use crate::report::run_report::{coder_link, RunView};

/// blind's renderer.
pub(super) struct Renderer;

impl ProtocolRenderer for Renderer {
    fn text(&self, s: &Summary) -> String {
        let Some(part) = s.part.typed::<BlindPart>() else {
            return String::new();
        };
        let mut o = String::new();
        for (name, c) in &part.coders {
            let cats: Vec<String> = c
                .categories
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            let blind: Vec<&str> = c
                .blind
                .iter()
                .map(|p| if *p { "pass" } else { "fail" })
                .collect();
            o.push_str(&format!(
                "  {name:10} self-tests {} ({}), passing {}/{}; hidden suite: {}\n",
                c.self_tests,
                cats.join(", "),
                c.self_passed.0,
                c.self_passed.1,
                if blind.is_empty() {
                    "not run".to_string()
                } else {
                    blind.join(" → ")
                }
            ));
        }
        o
    }

    fn explain(&self, stop: &Open, _v: &RunView) -> Markup {
        let failed = stop
            .read::<Verified>()
            .map(|v| v.failed)
            .unwrap_or_default();
        html! {
            @if failed.is_empty() { p { "Every coder's code passes the hidden suite." } }
            @else { p { "The hidden suite fails for " (and_list(&failed)) ": see " a href="#hidden" { "the hidden tests" } "." } }
        }
    }

    fn section(&self, v: &RunView) -> Option<Section> {
        let part = v.summary.part.typed::<BlindPart>()?;
        let mut t = Table::new(
            "dx-blind",
            vec![
                Column::text("coder"),
                Column::num("self-tests"),
                Column::text("by category"),
                Column::text("own tests passed"),
                Column::text("hidden suite said"),
            ],
        );
        for (name, c) in &part.coders {
            t.row(vec![
                TableCell::markup(coder_link(v, name), name.clone()),
                TableCell::num(f64::from(c.self_tests), c.self_tests.to_string()),
                TableCell::text(
                    c.categories
                        .iter()
                        .map(|(k, n)| format!("{k} {n}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                TableCell::text(format!("{} / {}", c.self_passed.0, c.self_passed.1)),
                TableCell::text(
                    c.blind
                        .iter()
                        .map(|p| if *p { "✓ pass" } else { "✗ fail" })
                        .collect::<Vec<_>>()
                        .join(" → "),
                ),
            ]);
        }
        Some(Section {
            id: "protocol".into(),
            title: "Blind verification".into(),
            body: html! {
                p { "Each coder writes its own tests from the spec and sees everything about them; the hidden suite answers pass or fail only, never which test or why." }
                (t.render())
            },
        })
    }
}
