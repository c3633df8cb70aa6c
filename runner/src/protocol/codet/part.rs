//! What a codet run produced: its part of the summary (each tester's test cases, the groups and
//! the coder shipped) and its stop in words.

use std::collections::BTreeMap;

use serde::Serialize;

use super::events::{Group, Pick, Shipped, TestCases};
use super::Codet;
use crate::english::and_list;
use crate::english::plural;
use crate::journal::{Choice, Event, ExitClass, Open};
use crate::outcome::{Basis, CoderStats, Decision, Part, ProtocolData, Summary};

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
    /// Each tester's test cases, by name.
    pub testers: BTreeMap<String, TesterCases>,
    /// The pick, once the run stopped on it.
    pub shipped: Option<Shipped>,
}

impl ProtocolData for Codet {
    fn name(&self) -> &'static str {
        super::NAME
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

    fn suite_reason(&self) -> Option<&'static str> {
        Some("a tester wrote it from the spec, and CodeT keeps every test case: every implementation ran against it")
    }

    fn shipped_rule(&self) -> &'static str {
        "CodeT's pick: the first coder of the top-scoring dual-agreement group (with no group, the first coder whose code builds)"
    }
}

/// Why `s.coder` was shipped, in words (its stop; the page's groups say it too).
pub fn why(s: &Shipped) -> String {
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

    fn decision(&self, summary: &Summary) -> Option<Decision> {
        let s = self.shipped.as_ref()?;
        // Tied: groups at the top score, or one group of every coder (nothing told them apart).
        let everyone = s.groups.len() == 1 && s.groups[0].coders.len() >= summary.coders.len();
        let tie = s.tests == 0 || s.top > 1 || everyone;
        Some(Decision {
            rule: "dual_agreement".into(),
            basis: match s.pick {
                Pick::Agreement if !tie => Basis::Tests,
                _ => Basis::Tie,
            },
            words: format!("{}, picked by {}", s.coder, why(s)),
        })
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
}
