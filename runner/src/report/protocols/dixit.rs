//! dixit on the page and in the terminal: how the suite grew and how tests were classified,
//! each tester's history, and the evidence under its stops.

use maud::{html, Markup};

use super::ProtocolRenderer;
use crate::english::plural;
use crate::journal::Open;
use crate::outcome::Summary;
use crate::protocol::dixit::events::{
    CannotPass, Converged, HumanNeeded, Identical, Spent, Stalled,
};
use crate::protocol::dixit::part::DixitPart;
use crate::report::html::{Column, Section, Table, TableCell};
use crate::report::run_report::{attempts_anchor, coder_link, ids_linked, test_link, RunView};

/// dixit's renderer.
pub(super) struct Renderer;

impl ProtocolRenderer for Renderer {
    fn text(&self, s: &Summary) -> String {
        let Some(part) = s.part.typed::<DixitPart>() else {
            return String::new();
        };
        let mut o = String::new();
        let growth: Vec<String> = part.suite_growth.iter().map(|n| n.to_string()).collect();
        o.push_str(&format!(
            "  rounds: {}   suite: {} (size at each round's start: {})\n",
            s.rounds,
            plural(s.suite.len(), "test", "tests"),
            growth.join(" → ")
        ));
        let c = &part.classes;
        o.push_str(&format!(
            "  classifications: {} IDEAL, {} TOO_EASY, {} TOO_HARD, {} INVALID\n",
            c.ideal, c.too_easy, c.too_hard, c.invalid
        ));
        for (name, t) in &part.testers {
            o.push_str(&format!(
                "  {name:10} proposed {:2}, accepted {:2}, hibernated {}×, revived {}×\n",
                t.proposed, t.accepted, t.hibernations, t.revivals
            ));
        }
        o
    }

    fn facts(&self, s: &Summary) -> Vec<(&'static str, String)> {
        let Some(part) = s.part.typed::<DixitPart>() else {
            return Vec::new();
        };
        let c = &part.classes;
        vec![(
            "classifications",
            format!(
                "{} IDEAL · {} TOO_EASY · {} TOO_HARD · {} INVALID",
                c.ideal, c.too_easy, c.too_hard, c.invalid
            ),
        )]
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
        if let Some(Spent { calls }) = stop.read() {
            return html! {
                p { "The run made the " (calls) " calls " code { "[dixit] max_calls" } " allows. "
                    "What it ships rests on the evidence it gathered by then: the suite of "
                    a href="#suite" { (plural(v.suite.len(), "test", "tests")) }
                    " and every proposal's answers, below." }
            };
        }
        if stop.read::<Identical>().is_some() {
            return html! {
                p { "The coders wrote the same program, byte for byte: every test gives each of them the same verdict, "
                    "so no further call could change what ships, and " code { "[dixit] max_calls" } " spends none on it." }
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
            let n = |x: u32| TableCell::num(f64::from(x), x.to_string());
            t.row(vec![
                TableCell::text(name),
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

#[cfg(test)]
mod tests {
    //! The report of a recorded dixit run, end to end: folded, rendered, escaped.
    use std::path::{Path, PathBuf};

    use crate::classify::Class;
    use crate::consensus::{AnswerGroup, Disagreement, Disagreements, FunctionDisagreements};
    use crate::journal::{ExitClass, JournalFile};
    use crate::outcome::ProtocolData;
    use crate::protocol::dixit::Dixit;
    use crate::report::eval_report::Provenance;
    use crate::report::run_report::RunView;
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
        let v = RunView::new(&j, &s, dir, &Dixit);
        let prov = Provenance::now();
        (render_run(&v, &Dixit, &prov).unwrap(), prov)
    }

    #[test]
    fn the_recorded_run_folds_into_its_view() {
        let dir = fixture();
        let j = JournalFile::read(&dir.join("journal.jsonl")).unwrap();
        let s = Dixit.summary_of(&j);
        let v = RunView::new(&j, &s, &dir, &Dixit);
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
