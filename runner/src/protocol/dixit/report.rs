//! dixit in the report: its part of the summary (how the suite grew, how tests were classified,
//! each tester's history), its stops in words and on the page.

use std::collections::BTreeMap;

use maud::{html, Markup};
use serde::Serialize;

use super::events::{CannotPass, Converged, HumanNeeded, Stalled};
use super::Dixit;
use crate::english::and_list;
use crate::english::plural;
use crate::journal::{Choice, Event, ExitClass, Open};
use crate::report::html::{Cell, Column, Section, Table};
use crate::report::metric::Metric;
use crate::report::run_report::{attempts_anchor, coder_link, ids_linked, test_link, RunView};
use crate::report::{bump, ClassCounts, CoderStats, Part, ProtocolReport, Summary};

/// One tester's history.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TesterStats {
    /// Tests it wrote.
    pub proposed: u32,
    pub accepted: u32,
    /// Classifications of its tests (a hibernated test is classified again each round).
    pub classes: ClassCounts,
    pub hibernations: u32,
    pub revivals: u32,
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
    pub classes: ClassCounts,
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

impl ProtocolReport for Dixit {
    fn name(&self) -> &'static str {
        "dixit"
    }

    fn part(&self) -> Option<Box<dyn Part>> {
        Some(Box::new(DixitPart::default()))
    }

    fn describe(&self, stop: &Open) -> String {
        if stop.read::<Converged>().is_some() {
            return "converged: a round's proposals were all too easy, the coders agree on everything asked".into();
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
                    format!(
                        "{coder} cannot pass {} {}",
                        if failing.len() == 1 { "test" } else { "tests" },
                        numbers(failing)
                    )
                })
                .collect();
            return format!(
                "human judgement needed: {} (perhaps the {} wrong)",
                who.join("; "),
                if cannot_pass.iter().map(|c| c.failing.len()).sum::<usize>() == 1 {
                    "test is"
                } else {
                    "tests are"
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
        if stop.read::<Converged>().is_some() {
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
        if stop.read::<Converged>().is_some() {
            ExitClass::Done
        } else {
            ExitClass::HumanNeeded
        }
    }

    fn explain(&self, stop: &Open, v: &RunView) -> Markup {
        if stop.read::<Converged>().is_some() {
            let dis = v.summary.disagreements.as_ref().map_or(0, |d| d.count());
            return html! {
                p { "The testers' last proposals were all too easy: the coders agree on everything the tests asked. "
                    "The suite has " a href="#suite" { (plural(v.suite.len(), "test", "tests")) } "; each coder's implementation is below." }
                @if dis > 0 {
                    p { "✗ But the final implementations give different answers to "
                        a href="#disagreements" { (plural(dis, "call", "calls")) }
                        " the tests made without checking them: look there before picking one." }
                }
            };
        }
        if let Some(Stalled {
            too_hard,
            invalid,
            hibernated,
        }) = stop.read()
        {
            // The hibernating testers' tests are named with their testers below.
            let asleep: Vec<String> = hibernated.iter().flat_map(|t| asleep_with(v, t)).collect();
            let too_hard: Vec<String> = too_hard
                .into_iter()
                .filter(|t| !asleep.contains(t))
                .collect();
            return html! {
                p { "The last round added no test, and not because the coders agree"
                    @if too_hard.is_empty() && invalid.is_empty() { "." } @else { ": " }
                    @if !too_hard.is_empty() { (plural(too_hard.len(), "proposal was", "proposals were")) " TOO_HARD (" (ids_linked(v, &too_hard)) "). " }
                    @if !invalid.is_empty() { (plural(invalid.len(), "proposal was", "proposals were")) " INVALID, not building or never reaching the code (" (ids_linked(v, &invalid)) "). " }
                }
                @for t in &hibernated {
                    @let with = asleep_with(v, t);
                    p { (t) " hibernates with two too-hard tests"
                        @if !with.is_empty() { ": " (ids_linked(v, &with)) }
                        ". If they are right, wake it: they join the suite and the coders must pass them. If they are wrong, discard them: " (t) " proposes afresh." }
                }
                p { "Either these tests are wrong or most coders are. Read each test against the spec: a wrong test can be ignored; a right one means the coders that fail it are wrong." }
            };
        }
        if let Some(HumanNeeded { cannot_pass }) = stop.read() {
            return html! {
                @for CannotPass { coder, failing } in &cannot_pass {
                    p { (coder_link(v, coder)) " cannot pass "
                        @for (k, n) in failing.iter().enumerate() {
                            @if k > 0 { @if k + 1 == failing.len() { " and " } @else { ", " } }
                            (test_link(v, *n))
                        }
                        " after its retries (" a href={ "#" (attempts_anchor(coder)) } { "its attempts" } ")." }
                }
                p { "Perhaps the tests are wrong. Read them against the spec: if they are right, the implementation is wrong; if not, the coders that pass them share the tests' mistake." }
            };
        }
        html! {}
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

    fn section(&self, v: &RunView) -> Option<Section> {
        let part = v.summary.part.typed::<DixitPart>()?;
        let mut t = Table::new(
            "dx-testers",
            vec![
                Column::text("tester"),
                Column::num("proposed"),
                Column::num("accepted"),
                Column::num("IDEAL"),
                Column::num("TOO_EASY"),
                Column::num("TOO_HARD"),
                Column::num("INVALID"),
                Column::num("hibernated"),
                Column::num("revived"),
                Column::num("rollbacks"),
            ],
        );
        for (name, s) in &part.testers {
            let n = |x: u32| Cell::num(f64::from(x), x.to_string());
            t.row(vec![
                Cell::text(name),
                n(s.proposed),
                n(s.accepted),
                n(s.classes.ideal),
                n(s.classes.too_easy),
                n(s.classes.too_hard),
                n(s.classes.invalid),
                n(s.hibernations),
                n(s.revivals),
                n(s.rollbacks),
            ]);
        }
        Some(Section {
            id: "protocol".into(),
            title: "Testers (protocol dixit)".into(),
            body: html! {
                p { "Each tester's proposals and how they were classified (a hibernated tester's tests are classified again each round)." }
                (t.render())
            },
        })
    }
}

/// The ids of the too-hard tests `tester` hibernates with, as the journal says.
fn asleep_with(v: &RunView, tester: &str) -> Vec<String> {
    v.summary
        .part
        .typed::<DixitPart>()
        .and_then(|p| p.testers.get(tester))
        .map(|t| t.asleep_with.clone())
        .unwrap_or_default()
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

    fn text(&self, s: &Summary) -> String {
        let mut o = String::new();
        let growth: Vec<String> = self.suite_growth.iter().map(|n| n.to_string()).collect();
        o.push_str(&format!(
            "  rounds: {}   suite: {} (size at each round's start: {})\n",
            s.rounds,
            plural(s.suite.len(), "test", "tests"),
            growth.join(" → ")
        ));
        let c = &self.classes;
        o.push_str(&format!(
            "  classifications: {} IDEAL, {} TOO_EASY, {} TOO_HARD, {} INVALID\n",
            c.ideal, c.too_easy, c.too_hard, c.invalid
        ));
        for (name, t) in &self.testers {
            o.push_str(&format!(
                "  {name:10} proposed {:2}, accepted {:2}, hibernated {}×, revived {}×\n",
                t.proposed, t.accepted, t.hibernations, t.revivals
            ));
        }
        o
    }

    fn facts(&self) -> Vec<(&'static str, String)> {
        let c = &self.classes;
        vec![(
            "classifications",
            format!(
                "{} IDEAL · {} TOO_EASY · {} TOO_HARD · {} INVALID",
                c.ideal, c.too_easy, c.too_hard, c.invalid
            ),
        )]
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
    //! The report of a recorded dixit run, end to end: folded, rendered, escaped.
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::classify::Class;
    use crate::consensus::{AnswerGroup, Disagreement, Disagreements, FunctionDisagreements};
    use crate::journal::{CellRecord, JournalFile};
    use crate::report::eval_report::Provenance;
    use crate::report::run_report::{letter, render_run, Outcome};

    /// The recorded real run (coder-4 cannot pass the two tests of the suite).
    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/runs/to_roman-qwen1.5b")
    }

    /// Disagreements with hostile text where a guest controls it (an exception's type name).
    fn hostile_disagreements() -> Disagreements {
        Disagreements {
            implementations: vec!["coder-1".into(), "coder-4".into()],
            tests: 3,
            calls: 36,
            agreed: 35,
            not_replayable: 1,
            not_probed: 0,
            overlap: None,
            functions: vec![FunctionDisagreements {
                function: "to_roman".into(),
                inputs: vec![Disagreement {
                    call: "to_roman('7')".into(),
                    args: serde_json::json!(["7"]),
                    kwargs: serde_json::json!([]),
                    tests: vec!["hidden test_hidden.py".into()],
                    answers: vec![
                        AnswerGroup {
                            kind: "raised".into(),
                            answer: "raises ValueError".into(),
                            coders: vec!["coder-1".into()],
                        },
                        AnswerGroup {
                            kind: "raised".into(),
                            answer: "raises <img src=x onerror=alert(1)>".into(),
                            coders: vec!["coder-4".into()],
                        },
                    ],
                }],
            }],
            error: None,
        }
    }

    fn render(dir: &Path) -> (String, Provenance) {
        let j = JournalFile::read(&dir.join("journal.jsonl")).unwrap();
        let mut s = Dixit.summary_of(&j);
        s.disagreements = Some(hostile_disagreements());
        let v = Dixit.view(&j, &s, dir);
        let prov = Provenance::now();
        (render_run(&v, &Dixit, &prov).unwrap(), prov)
    }

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
        let line = |s: &Summary| crate::report::balance(s).balance;
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

    #[test]
    fn the_recorded_run_folds_into_its_view() {
        let dir = fixture();
        let j = JournalFile::read(&dir.join("journal.jsonl")).unwrap();
        let s = Dixit.summary_of(&j);
        let v = Dixit.view(&j, &s, &dir);
        assert_eq!(v.coders.len(), 4);
        assert_eq!(v.suite.len(), 2);
        assert_eq!(
            v.suite
                .iter()
                .map(|t| t.author.as_str())
                .collect::<Vec<_>>(),
            ["tester-1", "tester-2"]
        );
        // Both tests were admitted by an IDEAL classification that coder-4 alone failed.
        for t in &v.suite {
            let p = &v.proposals[t.admitted_by.expect("admitted")];
            assert_eq!(p.outcome, Outcome::Class(Class::Ideal));
            assert_eq!(p.failed_by, ["coder-4"]);
            assert_eq!(p.suite_number, Some(t.number));
        }
        // coder-4: its round-2 check was kept as the best, both fixes were rolled back, and the
        // code it ended with is the kept one.
        let a = &v.attempts["coder-4"];
        let outcomes: Vec<&str> = a.iter().map(|a| a.outcome.as_str()).collect();
        assert_eq!(outcomes[1], "kept: the best so far");
        assert!(outcomes[2].starts_with("rolled back") && outcomes[3].starts_with("rolled back"));
        assert_eq!(v.final_attempt("coder-4").unwrap().pos, a[1].pos);
        let letters = |c: &str| -> String {
            v.final_cells[c]
                .iter()
                .map(|x| letter(x.as_ref()))
                .collect()
        };
        assert_eq!(letters("coder-1"), "PP");
        assert_eq!(letters("coder-4"), "WW");
        assert_eq!(v.hidden_tests, ["test_hidden.py"]);
        assert_eq!(v.implementations.len(), 4);
        let stop = v
            .stop
            .as_ref()
            .and_then(|(s, _)| s.decided().cloned())
            .unwrap();
        assert_eq!(Dixit.exit_class(&stop), ExitClass::HumanNeeded);
    }

    #[test]
    fn hostile_text_is_escaped_and_the_decision_links_the_evidence() {
        let (html, _) = render(&fixture());
        assert!(!html.contains("<img"), "hostile text reached the markup");
        assert!(html.contains("raises &lt;img src=x onerror=alert(1)&gt;"));
        let lead = &html[html.find("dx-lead").unwrap()..html.find("class=\"dx-section\"").unwrap()];
        for link in [
            "href=\"#test-1\"",
            "href=\"#test-2\"",
            "href=\"#impl-3\"",
            "href=\"#attempts-coder-4\"",
        ] {
            assert!(lead.contains(link), "the decision lacks {link}");
        }
        for id in ["id=\"test-1\"", "id=\"impl-3\"", "id=\"attempts-coder-4\""] {
            assert!(html.contains(id), "no target {id}");
        }
    }

    #[test]
    fn run_page_snapshot() {
        let dir = fixture();
        let (html, prov) = render(&dir);
        let main = &html[html.find("<main").unwrap()..html.find("</main>").unwrap() + 7];
        let mut text = crate::report::html::pretty(main)
            .replace(&prov.generated, "[time]")
            .replace(&dir.display().to_string(), "[run]");
        // The recorded run's times, in case the fixture is ever recorded again.
        while let Some(k) = text.find("<dd class=\"dx-time\">") {
            let end = k + text[k..].find("</dd>").unwrap();
            text.replace_range(k..end, "<dd class=\"dx-time\"[times]");
        }
        insta::assert_snapshot!(text);
    }
}
