//! codet on the page and in the terminal: each tester's test cases, the groups of coders that
//! pass the same ones (dual agreement), and the coder shipped.

use maud::{html, Markup};

use super::ProtocolRenderer;
use crate::english::{and_list, plural};
use crate::journal::Open;
use crate::outcome::Summary;
use crate::protocol::codet::events::{Pick, Shipped};
use crate::protocol::codet::part::{why, CodetPart};
use crate::report::html::{Column, Section, Table, TableCell};
use crate::report::run_report::{coder_link, RunView};

/// codet's renderer.
pub(super) struct Renderer;

impl ProtocolRenderer for Renderer {
    fn text(&self, s: &Summary) -> String {
        let Some(part) = s.part.typed::<CodetPart>() else {
            return String::new();
        };
        let cases: usize = part.testers.values().map(|t| t.cases.len()).sum();
        let per: Vec<String> = part
            .testers
            .iter()
            .map(|(name, t)| {
                let beyond = if t.beyond_limit > 0 {
                    format!(" and {} beyond the limit", t.beyond_limit)
                } else {
                    String::new()
                };
                format!("{name}: {}{beyond}", t.cases.len())
            })
            .collect();
        let mut o = format!(
            "  tests: {} ({})\n",
            plural(cases, "test case", "test cases"),
            per.join(", ")
        );
        if let Some(s) = part.shipped.as_ref().filter(|s| !s.groups.is_empty()) {
            o.push_str(
                "  groups of coders that pass the same test cases (score: tests × √coders):\n",
            );
            for (k, g) in s.groups.iter().enumerate() {
                let mark = if k == 0 && s.pick == Pick::Agreement {
                    "  shipped"
                } else if k < s.top {
                    "  tied"
                } else {
                    ""
                };
                o.push_str(&format!(
                    "    {:20} {}/{}  score {:.2}{mark}\n",
                    g.coders.join(", "),
                    g.tests.len(),
                    s.tests,
                    g.score()
                ));
            }
        }
        o
    }

    fn facts(&self, s: &Summary) -> Vec<(&'static str, String)> {
        let Some(part) = s.part.typed::<CodetPart>() else {
            return Vec::new();
        };
        let Some(s) = &part.shipped else {
            return Vec::new();
        };
        vec![
            ("shipped", s.coder.clone()),
            ("test cases", s.tests.to_string()),
            ("groups", s.groups.len().to_string()),
        ]
    }

    fn explain(&self, stop: &Open, v: &RunView) -> Markup {
        let Some(s) = stop.read::<Shipped>() else {
            return html! {};
        };
        html! {
            p {
                "Each coder answered the spec once and each tester wrote tests from the spec once; every implementation ran against every test case ("
                a href="#matrix" { "the matrix" } "). Implementations that pass exactly the same tests form a group, scored by the tests they pass times the square root of its size (CodeT's dual agreement): "
                a href="#protocol" { "the groups" } "."
            }
            p {
                "The run ships " (coder_link(v, &s.coder)) "'s implementation; the others are kept for the record."
                @if !v.hidden_tests.is_empty() {
                    " " a href="#hidden" { "The hidden tests" } " say how it fares (they ran against every implementation, but only the shipped one counts)."
                }
            }
        }
    }

    fn section(&self, v: &RunView) -> Option<Section> {
        let part = v.summary.part.typed::<CodetPart>()?;
        let mut testers = Table::new(
            "dx-codet-testers",
            vec![
                Column::text("tester"),
                Column::num("code blocks"),
                Column::num("test cases"),
                Column::text("suite tests"),
                Column::num("beyond the limit"),
            ],
        );
        for (name, t) in &part.testers {
            testers.row(vec![
                TableCell::text(name),
                TableCell::num(t.blocks as f64, t.blocks.to_string()),
                TableCell::num(t.cases.len() as f64, t.cases.len().to_string()),
                TableCell::text(numbers(&t.cases)),
                TableCell::num(t.beyond_limit as f64, t.beyond_limit.to_string()),
            ]);
        }
        let groups = part.shipped.as_ref().map(|s| {
            let mut t = Table::new(
                "dx-codet-groups",
                vec![
                    Column::num("rank"),
                    Column::text("coders"),
                    Column::num("size"),
                    Column::num("tests passed"),
                    Column::text("which"),
                    Column::num("score").title("tests passed × √size"),
                    Column::text(""),
                ],
            );
            for (k, g) in s.groups.iter().enumerate() {
                let mark = if k == 0 && s.pick == Pick::Agreement {
                    format!("shipped: {}", s.coder)
                } else if k < s.top {
                    "tied with the first".into()
                } else {
                    String::new()
                };
                t.row(vec![
                    TableCell::num((k + 1) as f64, (k + 1).to_string()),
                    TableCell::markup(
                        html! { @for (i, c) in g.coders.iter().enumerate() { @if i > 0 { ", " } (coder_link(v, c)) } },
                        g.coders.join(", "),
                    ),
                    TableCell::num(g.coders.len() as f64, g.coders.len().to_string()),
                    TableCell::num(g.tests.len() as f64, g.tests.len().to_string()),
                    TableCell::text(numbers(&g.tests)),
                    TableCell::num(g.score(), format!("{:.2}", g.score())),
                    TableCell::text(mark),
                ]);
            }
            (s, t)
        });
        let outside: Vec<&String> = part
            .shipped
            .as_ref()
            .map(|s| {
                v.coders
                    .iter()
                    .filter(|c| !s.groups.iter().any(|g| g.coders.contains(c)))
                    .collect()
            })
            .unwrap_or_default();
        Some(Section {
            id: "protocol".into(),
            title: "Dual agreement".into(),
            body: html! {
                p { "Each tester's reply: every code block of the test kind is a test; a Python block with several top-level asserts is one test case per assert (the block with its other asserts removed), as CodeT counts them. The first ones up to the limit count." }
                (testers.render())
                @match groups {
                    Some((s, t)) => {
                        @if s.groups.is_empty() {
                            p { "No group: " (why(s)) "." }
                        } @else {
                            p { "Coders grouped by the exact set of test cases they pass, best first. A group's score is the tests it passes times the square root of its size; groups with the top score are pooled, and the first coder among them (in agent order) is shipped." }
                            (t.render())
                            @if !outside.is_empty() {
                                p.dx-muted { (and_list(&outside)) " " (if outside.len() == 1 { "passes" } else { "pass" }) " no test case and belong" (if outside.len() == 1 { "s" } else { "" }) " to no group." }
                            }
                        }
                    }
                    None => { p.dx-muted { "The run stopped before it picked an implementation." } }
                }
            },
        })
    }
}

/// Suite numbers as ranges: `1–3, 5`.
fn numbers(ns: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut k = 0;
    while k < ns.len() {
        let mut end = k;
        while end + 1 < ns.len() && ns[end + 1] == ns[end] + 1 {
            end += 1;
        }
        out.push(match end - k {
            0 => ns[k].to_string(),
            1 => format!("{}, {}", ns[k], ns[end]),
            _ => format!("{}–{}", ns[k], ns[end]),
        });
        k = end + 1;
    }
    if out.is_empty() {
        "–".into()
    } else {
        out.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_ranges() {
        assert_eq!(numbers(&[1, 2, 3, 5, 7, 8]), "1–3, 5, 7, 8");
        assert_eq!(numbers(&[]), "–");
    }
}
