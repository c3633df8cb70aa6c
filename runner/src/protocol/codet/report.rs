//! codet in the report: its part of the summary (each tester's test cases, the groups and the
//! coder shipped), its stop in words and on the page.

use std::collections::BTreeMap;

use maud::{html, Markup};
use serde::Serialize;

use super::events::{Group, Pick, Shipped, TestCases};
use super::Codet;
use crate::english::and_list;
use crate::english::plural;
use crate::journal::{Choice, Event, ExitClass, Open};
use crate::report::html::{Cell, Column, Section, Table};
use crate::report::run_report::{coder_link, RunView};
use crate::report::{CoderStats, Part, ProtocolReport, Summary};

/// What one tester's reply held.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TesterCases {
    /// Code blocks of the run's test kind.
    pub blocks: usize,
    /// Test cases that count (suite numbers).
    pub cases: Vec<usize>,
    /// Test cases past the limit, not run.
    pub beyond_limit: usize,
}

/// codet's part of a summary.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CodetPart {
    pub testers: BTreeMap<String, TesterCases>,
    /// The pick, once the run stopped on it.
    pub shipped: Option<Shipped>,
}

impl ProtocolReport for Codet {
    fn name(&self) -> &'static str {
        "codet"
    }

    fn part(&self) -> Option<Box<dyn Part>> {
        Some(Box::new(CodetPart::default()))
    }

    fn describe(&self, stop: &Open) -> String {
        let Some(s) = stop.read::<Shipped>() else {
            return format!("stopped: {}", stop.name);
        };
        format!("{} shipped: {}", s.coder, why(&s))
    }

    fn exit_class(&self, _stop: &Open) -> ExitClass {
        ExitClass::Done
    }

    /// Every answer was asked for once and the pick follows from the tests: nothing to decide
    /// (the hidden tests, if any, say how the shipped answer fares).
    fn choices(&self, _stop: &Open) -> Vec<Choice> {
        Vec::new()
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

    fn suite_reason(&self) -> Option<&'static str> {
        Some("a tester wrote it from the spec, and CodeT keeps every test case: every implementation ran against it")
    }

    fn shipped_rule(&self) -> &'static str {
        "CodeT's pick: the first coder of the top-scoring dual-agreement group (with no group, the first coder whose code builds)"
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
                Cell::text(name),
                Cell::num(t.blocks as f64, t.blocks.to_string()),
                Cell::num(t.cases.len() as f64, t.cases.len().to_string()),
                Cell::text(numbers(&t.cases)),
                Cell::num(t.beyond_limit as f64, t.beyond_limit.to_string()),
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
                    Cell::num((k + 1) as f64, (k + 1).to_string()),
                    Cell::markup(
                        html! { @for (i, c) in g.coders.iter().enumerate() { @if i > 0 { ", " } (coder_link(v, c)) } },
                        g.coders.join(", "),
                    ),
                    Cell::num(g.coders.len() as f64, g.coders.len().to_string()),
                    Cell::num(g.tests.len() as f64, g.tests.len().to_string()),
                    Cell::text(numbers(&g.tests)),
                    Cell::num(g.score(), format!("{:.2}", g.score())),
                    Cell::text(mark),
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

/// Why `s.coder` was shipped, in words.
fn why(s: &Shipped) -> String {
    match s.pick {
        Pick::Agreement => {
            let Some(best) = s.groups.first() else {
                return "dual agreement".into();
            };
            let mut out = format!(
                "dual agreement ({} {} {} of {}: {}",
                and_list(&best.coders),
                if best.coders.len() == 1 {
                    "passes"
                } else {
                    "pass"
                },
                best.tests.len(),
                plural(s.tests, "test case", "test cases"),
                score(best)
            );
            if s.top > 1 {
                let tied: Vec<String> = s.groups[1..s.top]
                    .iter()
                    .map(|g| format!("{} ({})", and_list(&g.coders), score(g)))
                    .collect();
                out.push_str(&format!(
                    "; tied with {}, broken by agent order",
                    and_list(&tied)
                ));
            } else if let Some(next) = s.groups.get(1) {
                out.push_str(&format!(
                    "; next, {}: {}",
                    and_list(&next.coders),
                    score(next)
                ));
            }
            out.push(')');
            out
        }
        Pick::FirstThatBuilds if s.tests == 0 => {
            "no test case to agree on, so the first coder whose code builds".into()
        }
        Pick::FirstThatBuilds => format!(
            "no implementation passes any of the {}, so the first coder whose code builds",
            plural(s.tests, "test case", "test cases")
        ),
        Pick::First => "no implementation builds, so the first coder".into(),
    }
}

/// A group's score as a sum: `score 4 × √2 = 5.66`.
fn score(g: &Group) -> String {
    format!(
        "score {} × √{} = {:.2}",
        g.tests.len(),
        g.coders.len(),
        g.score()
    )
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

impl Part for CodetPart {
    fn add(&mut self, lane: &str, e: &Event, _coders: &BTreeMap<String, CoderStats>) {
        match e {
            Event::Protocol(o) => {
                if let Some(t) = o.read::<TestCases>() {
                    self.testers.insert(
                        lane.to_string(),
                        TesterCases {
                            blocks: t.blocks,
                            cases: t.cases.iter().map(|c| c.number).collect(),
                            beyond_limit: t.beyond_limit,
                        },
                    );
                }
            }
            Event::Stop { reason, .. } => {
                if let Some(s) = reason.decided().and_then(|o| o.read::<Shipped>()) {
                    self.shipped = Some(s);
                }
            }
            _ => {}
        }
    }

    fn to_json(&self) -> serde_json::Value {
        let groups: Vec<serde_json::Value> = self
            .shipped
            .iter()
            .flat_map(|s| &s.groups)
            .map(
                |g| serde_json::json!({ "coders": g.coders, "tests": g.tests, "score": g.score() }),
            )
            .collect();
        serde_json::json!({
            "testers": self.testers,
            "shipped": self.shipped.as_ref().map(|s| &s.coder),
            "pick": self.shipped.as_ref().map(|s| s.pick),
            "tests": self.shipped.as_ref().map(|s| s.tests),
            "groups": groups,
            "top": self.shipped.as_ref().map(|s| s.top),
        })
    }

    fn text(&self, _s: &Summary) -> String {
        let cases: usize = self.testers.values().map(|t| t.cases.len()).sum();
        let per: Vec<String> = self
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
        if let Some(s) = self.shipped.as_ref().filter(|s| !s.groups.is_empty()) {
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

    fn facts(&self) -> Vec<(&'static str, String)> {
        let Some(s) = &self.shipped else {
            return Vec::new();
        };
        vec![
            ("shipped", s.coder.clone()),
            ("test cases", s.tests.to_string()),
            ("groups", s.groups.len().to_string()),
        ]
    }

    /// A pick that dual agreement did not make (the empty suite is the shared doubt).
    fn doubts(&self) -> Vec<String> {
        match &self.shipped {
            Some(s) if s.pick == Pick::First => {
                vec!["no implementation builds".into()]
            }
            Some(s) if s.pick == Pick::FirstThatBuilds && s.tests > 0 => {
                vec!["no implementation passes any test case".into()]
            }
            _ => Vec::new(),
        }
    }

    fn shipped(&self) -> Option<Vec<String>> {
        self.shipped.as_ref().map(|s| vec![s.coder.clone()])
    }

    fn grows_suite(&self) -> bool {
        true
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

    fn shipped(pick: Pick, tests: usize, groups: &[(&[&str], &[usize])], top: usize) -> Shipped {
        Shipped {
            coder: groups.first().map_or("coder-1", |g| g.0[0]).to_string(),
            pick,
            tests,
            groups: groups
                .iter()
                .map(|(c, t)| Group {
                    coders: c.iter().map(|s| s.to_string()).collect(),
                    tests: t.to_vec(),
                })
                .collect(),
            top,
        }
    }

    #[test]
    fn the_stop_says_who_was_shipped_and_why() {
        let s = shipped(
            Pick::Agreement,
            5,
            &[
                (&["coder-3"], &[1, 2, 3, 4, 5]),
                (&["coder-1", "coder-2"], &[1, 2, 5]),
            ],
            1,
        );
        assert_eq!(
            Codet.describe(&Open::of(&s)),
            "coder-3 shipped: dual agreement (coder-3 passes 5 of 5 test cases: score 5 × √1 = \
             5.00; next, coder-1 and coder-2: score 3 × √2 = 4.24)"
        );
        let s = shipped(
            Pick::Agreement,
            2,
            &[
                (&["coder-1", "coder-3", "coder-4", "coder-5"], &[1]),
                (&["coder-2"], &[1, 2]),
            ],
            2,
        );
        assert_eq!(
            Codet.describe(&Open::of(&s)),
            "coder-1 shipped: dual agreement (coder-1, coder-3, coder-4 and coder-5 pass 1 of 2 \
             test cases: score 1 × √4 = 2.00; tied with coder-2 (score 2 × √1 = 2.00), broken by \
             agent order)"
        );
        let s = shipped(Pick::FirstThatBuilds, 0, &[], 0);
        assert_eq!(
            Codet.describe(&Open::of(&s)),
            "coder-1 shipped: no test case to agree on, so the first coder whose code builds"
        );
    }

    #[test]
    fn only_the_shipped_coder_counts() {
        let mut part = CodetPart::default();
        assert_eq!(part.shipped(), None);
        part.shipped = Some(shipped(Pick::Agreement, 1, &[(&["coder-2"], &[1])], 1));
        assert_eq!(part.shipped(), Some(vec!["coder-2".to_string()]));
        assert!(part.doubts().is_empty());
        part.shipped = Some(shipped(Pick::FirstThatBuilds, 3, &[], 0));
        assert_eq!(part.doubts(), ["no implementation passes any test case"]);
    }

    #[test]
    fn numbers_read_as_ranges() {
        assert_eq!(numbers(&[1, 2, 3, 5, 7, 8]), "1–3, 5, 7, 8");
        assert_eq!(numbers(&[]), "–");
    }
}
