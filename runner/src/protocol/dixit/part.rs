//! What a dixit run produced: its part of the summary (how the suite grew, how tests were
//! classified, each tester's history), its stops in words and what a person may choose at them.

use std::collections::BTreeMap;

use serde::Serialize;

use super::events::{CannotPass, Converged, HumanNeeded, Identical, Spent, Stalled};
use super::Dixit;
use crate::english::{and_list, plural};
use crate::journal::{Choice, Event, ExitClass, Open};
use crate::outcome::{bump, ClassCounts, CoderStats, Metric, Part, ProtocolData, Summary};

/// One tester's history.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TesterStats {
    /// Tests it wrote.
    pub proposed: u32,
    /// Its tests accepted into the suite.
    pub accepted: u32,
    /// Classifications of its tests (a hibernated test is classified again each round).
    pub classes: ClassCounts,
    /// Times it hibernated.
    pub hibernations: u32,
    /// Times it woke from hibernation.
    pub revivals: u32,
    /// Times it went back to a checkpoint.
    pub rollbacks: u32,
    /// While it hibernates: the ids of its two too-hard tests.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub asleep_with: Vec<String>,
}

/// dixit's part of a summary: how the suite grew and how tests were classified.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DixitPart {
    /// Suite size at the start of each round.
    pub suite_growth: Vec<usize>,
    /// Classifications of every tester's tests.
    pub classes: ClassCounts,
    /// Each tester's history, by name.
    pub testers: BTreeMap<String, TesterStats>,
    /// Each test's last classification: pass or not per member of the pool it ran against.
    #[serde(skip)]
    pub last_verdicts: BTreeMap<String, Vec<bool>>,
}

fn numbers(n: &[usize]) -> String {
    n.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl ProtocolData for Dixit {
    fn name(&self) -> &'static str {
        super::NAME
    }

    fn part(&self) -> Option<Box<dyn Part>> {
        Some(Box::new(DixitPart::default()))
    }

    fn describe(&self, stop: &Open) -> String {
        if stop.read::<Converged>().is_some() {
            return "converged: a round's proposals were all too easy, the coders agree on everything asked".into();
        }
        if let Some(Spent { calls }) = stop.read() {
            return format!(
                "spent: the run made the {calls} calls dixit.max_calls allows; it ships by the evidence so far"
            );
        }
        if stop.read::<Identical>().is_some() {
            return "identical: the coders wrote the same program, which no test can separate"
                .into();
        }
        if let Some(Stalled {
            too_hard,
            invalid,
            hibernated,
        }) = stop.read()
        {
            let mut why = Vec::new();
            if !too_hard.is_empty() {
                why.push(format!(
                    "{} TOO_HARD ({})",
                    plural(too_hard.len(), "test was", "tests were"),
                    too_hard.join(", ")
                ));
            }
            if !invalid.is_empty() {
                why.push(format!(
                    "{} INVALID ({})",
                    plural(invalid.len(), "test was", "tests were"),
                    invalid.join(", ")
                ));
            }
            if !hibernated.is_empty() {
                why.push(format!("{} hibernating", hibernated.join(", ")));
            }
            return format!(
                "human judgement needed: stalled, a round added no test ({}): either these tests or the coders are wrong",
                if why.is_empty() { "no test fit".to_string() } else { why.join("; ") }
            );
        }
        if let Some(HumanNeeded { cannot_pass }) = stop.read() {
            let who: Vec<String> = cannot_pass
                .iter()
                .map(|CannotPass { coder, failing }| {
                    if failing.is_empty() {
                        // No test it fails: its code does not build (or it gave none).
                        return format!(
                            "{coder} cannot pass even an empty suite (its code does not build)"
                        );
                    }
                    format!(
                        "{coder} cannot pass {} {}",
                        if failing.len() == 1 { "test" } else { "tests" },
                        numbers(failing)
                    )
                })
                .collect();
            let failing: usize = cannot_pass.iter().map(|c| c.failing.len()).sum();
            return format!(
                "human judgement needed: {}{}",
                who.join("; "),
                match failing {
                    0 => " (perhaps the coder is wrong)",
                    1 => " (perhaps the test is wrong)",
                    _ => " (perhaps the tests are wrong)",
                }
            );
        }
        format!("stopped: {}", stop.name)
    }

    /// When coders cannot pass: drop one of the tests they fail (it is wrong), or leave one of
    /// them behind (it is wrong), or accept. When stalled: accept. Converged: nothing to decide.
    fn choices(&self, stop: &Open) -> Vec<Choice> {
        if let Some(HumanNeeded { cannot_pass }) = stop.read() {
            let mut tests: Vec<usize> = cannot_pass
                .iter()
                .flat_map(|c| c.failing.iter().copied())
                .collect();
            tests.sort_unstable();
            tests.dedup();
            return tests
                .into_iter()
                .map(|test| Choice::DropTest { test })
                .chain(cannot_pass.iter().map(|c| Choice::LeaveBehind {
                    coder: c.coder.clone(),
                }))
                .chain([Choice::Accept])
                .collect();
        }
        if stop.read::<Converged>().is_some()
            || stop.read::<Spent>().is_some()
            || stop.read::<Identical>().is_some()
        {
            return Vec::new();
        }
        if let Some(Stalled { hibernated, .. }) = stop.read() {
            return hibernated
                .iter()
                .flat_map(|t| {
                    [
                        Choice::Wake { tester: t.clone() },
                        Choice::Discard { tester: t.clone() },
                    ]
                })
                .chain([Choice::Accept])
                .collect();
        }
        vec![Choice::Accept]
    }

    fn round_limit(&self) -> Option<&'static str> {
        Some("dixit.max_rounds")
    }

    fn exit_class(&self, stop: &Open) -> ExitClass {
        if stop.read::<Converged>().is_some()
            || stop.read::<Spent>().is_some()
            || stop.read::<Identical>().is_some()
        {
            ExitClass::Done
        } else {
            ExitClass::HumanNeeded
        }
    }

    fn suite_reason(&self) -> Option<&'static str> {
        Some("some coders failed it, but no more than a minority (IDEAL)")
    }

    fn shipped_rule(&self) -> &'static str {
        "the first coder not left behind whose final implementation passes the most tests of the suite"
    }

    /// Format 1.0's human-judgement stop named one coder (`coder`, `failing`).
    fn upgrade(&self, entry: &mut Open) {
        if let Some(h) = entry.read::<HumanNeeded>() {
            *entry = Open::of(&h);
        }
    }
}

impl Part for DixitPart {
    /// The suite it grew, the classes of the proposals, and the band's precision: of the
    /// admitted tests, the share the implementations that pass every hidden test also pass
    /// (over each such coder's last verdicts on the suite).
    fn metrics(&self, s: &Summary) -> Vec<Metric> {
        let (mut num, mut den) = (0u64, 0u64);
        for (name, c) in &s.coders {
            let right = matches!(c.hidden, Some((p, t)) if p == t && t > 0);
            if right && !s.left_behind.contains(name) {
                num += c.last_vector.iter().filter(|v| **v).count() as u64;
                den += c.last_vector.len() as u64;
            }
        }
        let c = &self.classes;
        vec![
            Metric::count("suite size", s.suite.len() as f64),
            Metric::count("IDEAL proposals", c.ideal as f64),
            Metric::count("TOO_EASY proposals", c.too_easy as f64),
            Metric::count("TOO_HARD proposals", c.too_hard as f64),
            Metric::count("INVALID proposals", c.invalid as f64),
            Metric::ratio(
                "admitted tests the hidden-passing implementations pass",
                num,
                den,
            ),
        ]
    }

    fn add(&mut self, lane: &str, e: &Event, _coders: &BTreeMap<String, CoderStats>) {
        match e {
            Event::Started { testers, .. } => {
                for t in testers {
                    self.testers.entry(t.clone()).or_default();
                }
            }
            Event::Round { suite, .. } => self.suite_growth.push(*suite),
            Event::Reply { .. } => {
                if let Some(t) = self.testers.get_mut(lane) {
                    t.proposed += 1;
                }
            }
            Event::Classified {
                test, class, cells, ..
            } => {
                self.last_verdicts.insert(
                    test.clone(),
                    cells
                        .iter()
                        .map(|c| c.v == crate::sandbox::VerdictKind::Pass)
                        .collect(),
                );
                bump(&mut self.classes, *class);
                if let Some(t) = self.testers.get_mut(lane) {
                    bump(&mut t.classes, *class);
                }
            }
            Event::Rollback { .. } => {
                if let Some(t) = self.testers.get_mut(lane) {
                    t.rollbacks += 1;
                }
            }
            Event::Hibernated { tests } => {
                if let Some(t) = self.testers.get_mut(lane) {
                    t.hibernations += 1;
                    t.asleep_with = tests.clone();
                }
            }
            Event::Revived => {
                if let Some(t) = self.testers.get_mut(lane) {
                    t.revivals += 1;
                    t.asleep_with.clear();
                }
            }
            Event::Forgotten { .. } => {
                if let Some(t) = self.testers.get_mut(lane) {
                    t.asleep_with.clear();
                }
            }
            Event::Accepted { .. } => {
                if let Some(t) = self.testers.get_mut(lane) {
                    t.accepted += 1;
                }
            }
            _ => {}
        }
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// Per hibernating tester: who fails its too-hard tests, and what the hidden tests say.
    fn balance(&self, s: &Summary) -> Vec<String> {
        let active: Vec<&String> = s
            .coders
            .keys()
            .filter(|c| !s.left_behind.contains(c))
            .collect();
        self.testers
            .iter()
            .filter(|(_, t)| !t.asleep_with.is_empty())
            .filter_map(|(name, t)| {
                let mut fails = vec![false; active.len()];
                for id in &t.asleep_with {
                    let v = self.last_verdicts.get(id)?;
                    if v.len() != active.len() {
                        return None;
                    }
                    for (f, pass) in fails.iter_mut().zip(v) {
                        *f |= !pass;
                    }
                }
                let (failers, passers): (Vec<&String>, Vec<&String>) = {
                    let (f, p): (Vec<_>, Vec<_>) =
                        active.iter().zip(&fails).partition(|(_, f)| **f);
                    (
                        f.into_iter().map(|(c, _)| *c).collect(),
                        p.into_iter().map(|(c, _)| *c).collect(),
                    )
                };
                let everyone = active.len() > 2;
                let verb = |who: &[&String], one: &str, many: &str| match who.len() {
                    1 => format!("{} {one}", who[0]),
                    n if n == active.len() && everyone => format!("all {n} coders {many}"),
                    _ => format!("{} {many}", and_list(who)),
                };
                let mut line = format!(
                    "{name} hibernates with {}: {} them",
                    and_list(&t.asleep_with),
                    verb(&failers, "fails", "fail")
                );
                if !passers.is_empty() {
                    line.push_str(&format!(", {} them", verb(&passers, "passes", "pass")));
                }
                let hidden_ok = |c: &&String| s.coders[*c].hidden.map(|(p, t)| p == t);
                if active.iter().all(|c| hidden_ok(c).is_some()) && !failers.is_empty() {
                    if failers.iter().all(|c| hidden_ok(c) == Some(true)) {
                        let who = if passers.is_empty() && everyone {
                            "all of them pass".to_string()
                        } else {
                            verb(&failers, "passes", "pass")
                        };
                        line.push_str(&format!(
                            "; but {who} the hidden tests: perhaps these tests are wrong"
                        ));
                    } else if !passers.is_empty()
                        && passers.iter().all(|c| hidden_ok(c) == Some(true))
                        && failers.iter().all(|c| hidden_ok(c) == Some(false))
                    {
                        line.push_str("; the hidden tests agree with them");
                    }
                }
                Some(line)
            })
            .collect()
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
    use crate::classify::Class;
    use crate::journal::CellRecord;

    /// A summary of three coders where tester-1 hibernates with two tests that `fail` (per
    /// coder) fail, and the hidden tests pass for those in `hidden_ok`.
    fn hibernating(fail: [bool; 3], hidden_ok: [bool; 3]) -> Summary {
        let coders: Vec<String> = (1..=3).map(|k| format!("coder-{k}")).collect();
        let cell = |pass: bool| CellRecord {
            v: if pass {
                crate::sandbox::VerdictKind::Pass
            } else {
                crate::sandbox::VerdictKind::WrongAnswer
            },
            side: None,
            seed: 0,
            fuel: 0,
            exit: None,
            runs: 1,
            skipped: 0,
            evidence: None,
        };
        let mut s = Dixit.summary();
        s.add(
            "run",
            &Event::Started {
                coders: coders.clone(),
                testers: vec!["tester-1".into()],
                reviewers: Vec::new(),
                seed: 0,
            },
        );
        for (c, ok) in coders.iter().zip(hidden_ok) {
            s.add(
                c,
                &Event::Hidden {
                    passed: usize::from(ok),
                    total: 1,
                    cells: vec![cell(ok)],
                },
            );
        }
        for id in ["tester-1#0", "tester-1#1"] {
            s.add(
                "tester-1",
                &Event::Classified {
                    test: id.into(),
                    class: Class::TooHard,
                    failures: fail.iter().filter(|f| **f).count(),
                    pool: 3,
                    build_error: None,
                    cells: fail.iter().map(|f| cell(!f)).collect(),
                },
            );
        }
        s.add(
            "tester-1",
            &Event::Hibernated {
                tests: vec!["tester-1#0".into(), "tester-1#1".into()],
            },
        );
        s
    }

    #[test]
    fn the_balance_names_who_fails_a_hibernating_testers_tests() {
        let line = |s: &Summary| s.part.get().map(|p| p.balance(s)).unwrap_or_default();
        assert_eq!(
            line(&hibernating([true, true, false], [false, false, true])),
            ["tester-1 hibernates with tester-1#0 and tester-1#1: coder-1 and coder-2 fail them, coder-3 passes them; the hidden tests agree with them"]
        );
        assert_eq!(
            line(&hibernating([true, true, true], [true, true, true])),
            ["tester-1 hibernates with tester-1#0 and tester-1#1: all 3 coders fail them; but all of them pass the hidden tests: perhaps these tests are wrong"]
        );
        // Woken or discarded: no line.
        let mut s = hibernating([true, true, false], [false, false, true]);
        s.add(
            "tester-1",
            &Event::Forgotten {
                tests: vec!["tester-1#0".into(), "tester-1#1".into()],
            },
        );
        assert!(line(&s).is_empty());
    }

    #[test]
    fn an_empty_suite_is_a_doubt() {
        let mut s = Dixit.summary();
        assert!(s.doubts().is_empty(), "not before the run stopped");
        s.stop = Some(crate::journal::StopReason::own(&Converged {}));
        assert_eq!(
            s.doubts(),
            ["the suite is empty: no test checked the implementations"]
        );
    }
}
