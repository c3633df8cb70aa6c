//! The import page (`DIR/import.html`): what an import made of a benchmark, for a person to
//! read and decide from. The counts first; then each flagged project with its evidence, where
//! it stands (undecided, included or excluded, by whom and why) and the commands that decide;
//! the records refused, with their lines; and every clean project with its acceptance tests.

use std::collections::BTreeMap;

use maud::{html, Markup};

use crate::english::plural;
use crate::import::{ImportReport, ProjectReport, Ruling, Standing, FLAG_FILE};
use crate::report::eval_report::Provenance;
use crate::report::html::{code, Column, Page, Table, TableCell};

/// The page of `r`, each project's standing in `standings` (by folder; a folder missing from
/// it reads as undecided when flagged).
pub fn render_import(
    r: &ImportReport,
    standings: &BTreeMap<String, Standing>,
    prov: &Provenance,
) -> String {
    let undecided = r
        .projects
        .iter()
        .filter(|p| p.flagged.is_some())
        .filter(|p| !matches!(standings.get(&p.folder), Some(Standing::Decided(_))))
        .count();
    let mut page = Page::new(format!("dixit import: {}", r.benchmark))
        .subtitle(format!("{} → {}", r.file.display(), r.out.display()))
        .lead(lead(r, undecided))
        .footer(format!(
            "generated {} by {} from {}",
            prov.generated,
            prov.generator,
            r.out.join(crate::import::REPORT_FILE).display()
        ));
    if r.flagged > 0 {
        page.section(
            "flagged",
            "Flagged: the benchmark disagrees with itself",
            flagged(r, standings),
        );
    }
    if !r.refused.is_empty() {
        page.section("refused", "Refused records", refused(r));
    }
    page.section("projects", "Every project", projects(r, standings));
    page.render()
}

fn lead(r: &ImportReport, undecided: usize) -> Markup {
    let class = if undecided > 0 {
        "dx-lead dx-warn"
    } else {
        "dx-lead dx-good"
    };
    html! {
        div class=(class) {
            p { strong { (r.clean) " clean, " (r.flagged) " flagged, " (r.refused.len()) " refused" }
                " of " (plural(r.projects.len() + r.refused.len(), "task", "tasks")) "." }
            @if undecided > 0 {
                p { (plural(undecided, "flagged project waits", "flagged projects wait"))
                    " for a person: its reference fails its own hidden test, and "
                    code { "dixit compare" } " leaves it out until someone decides which side is wrong." }
            } @else if r.flagged > 0 {
                p { "Every flagged project is decided." }
            }
            @if !r.refused.is_empty() {
                p { "Refused records made no project (the benchmark's own defect, or code dixit cannot build); the others imported." }
            }
        }
    }
}

fn flagged(r: &ImportReport, standings: &BTreeMap<String, Standing>) -> Markup {
    html! {
        p.dx-muted { "Each project's " code { (FLAG_FILE) } " has the same evidence. Decide with one of the two commands under it; the decision is journaled in the project with who and why, and " code { "dixit report" } " on this folder draws this page again with it." }
        @for p in r.projects.iter().filter(|p| p.flagged.is_some()) {
            @let f = p.flagged.as_ref().expect("filtered");
            @let folder = r.out.join(&p.folder);
            article.dx-flag id=(format!("flag-{}", p.folder)) {
                h3 { (p.task_id) " " span.dx-muted { "(" (p.language.as_str()) ", " (folder.display()) ")" } }
                p { strong { "Stands: " } (standing_text(standings.get(&p.folder))) }
                p { strong { "The hidden test on the reference: " } (f.why) }
                (code(&f.evidence, Some("what the failing run showed")))
                p { strong { "The prompt's examples: " } (f.examples) }
                (code(&format!(
                    "dixit decide {d} include --why \"the test is right: ...\"\n\
                     dixit decide {d} exclude --why \"the test is wrong: ...\"",
                    d = crate::shell::shell_word(&folder.display().to_string())
                ), Some("decide")))
            }
        }
    }
}

fn standing_text(s: Option<&Standing>) -> String {
    match s {
        Some(Standing::Decided(d)) => format!(
            "{} by {}: {}",
            match d.ruling {
                Ruling::Include => "included (the test is right)",
                Ruling::Exclude => "excluded (the test is wrong)",
            },
            d.by,
            d.why
        ),
        Some(Standing::Clean) => "clean (its flag is gone)".into(),
        _ => "undecided: left out of comparisons".into(),
    }
}

fn refused(r: &ImportReport) -> Markup {
    let mut t = Table::new(
        "dx-refused",
        vec![
            Column::text("task"),
            Column::num("line").title("the record's line in the benchmark's file"),
            Column::text("why"),
        ],
    );
    for x in &r.refused {
        t.row(vec![
            TableCell::text(if x.task_id.is_empty() {
                "(unread)"
            } else {
                &x.task_id
            }),
            TableCell::num(x.at.line as f64, x.at.line.to_string()),
            TableCell::text(&x.why),
        ]);
    }
    t.render()
}

fn projects(r: &ImportReport, standings: &BTreeMap<String, Standing>) -> Markup {
    let mut t = Table::new(
        "dx-projects",
        vec![
            Column::text("task"),
            Column::text("folder"),
            Column::text("language"),
            Column::text("stands"),
            Column::num("tests/")
                .title("acceptance tests: the prompt's examples the reference passes"),
            Column::num("dropped").title(
                "examples the reference fails, or the benchmark's example test it fails: left out",
            ),
            Column::num("unread").title("lines that looked like examples but could not be read"),
        ],
    )
    .filterable();
    for p in &r.projects {
        let tests = p.tests.len() + usize::from(p.example_test);
        let dropped = p.dropped.len() + usize::from(p.example_test_dropped.is_some());
        t.row(vec![
            TableCell::text(&p.task_id),
            TableCell::text(&p.folder),
            TableCell::text(p.language.as_str()),
            TableCell::text(stands(p, standings.get(&p.folder))),
            TableCell::num(tests as f64, tests.to_string()),
            TableCell::num(dropped as f64, dropped.to_string()),
            TableCell::num(p.unread.len() as f64, p.unread.len().to_string()),
        ]);
    }
    t.render()
}

fn stands(p: &ProjectReport, s: Option<&Standing>) -> &'static str {
    match (p.flagged.is_some(), s) {
        (false, _) => "clean",
        (true, Some(Standing::Decided(d))) if d.ruling == Ruling::Include => "flagged, included",
        (true, Some(Standing::Decided(_))) => "flagged, excluded",
        (true, Some(Standing::Clean)) => "flag removed",
        (true, _) => "flagged, undecided",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{Flag, FlagDecision, Place, Refused};
    use crate::toolchain::Language;

    fn project(id: &str, folder: &str, flag: Option<Flag>) -> ProjectReport {
        ProjectReport {
            task_id: id.into(),
            folder: folder.into(),
            language: Language::Cpp,
            flagged: flag,
            example_test: true,
            example_test_dropped: None,
            examples_from: Place {
                path: "b.jsonl".into(),
                line: 1,
            },
            tests: Vec::new(),
            dropped: Vec::new(),
            unread: Vec::new(),
            repaired: Vec::new(),
        }
    }

    fn report() -> ImportReport {
        let flag = Flag {
            why: "wrong_answer".into(),
            evidence: "assert (f(3) == 2) </pre><script>alert(1)</script>".into(),
            examples: "the reference passes them".into(),
        };
        ImportReport::new(
            "HumanEval-X",
            "b.jsonl".into(),
            None,
            None,
            "out".into(),
            vec![
                project("X/0", "X_0", None),
                project("X/<b>1</b>", "X__b_1__b_", Some(flag)),
            ],
            vec![Refused {
                task_id: "X/2".into(),
                at: Place {
                    path: "b.jsonl".into(),
                    line: 3,
                },
                why: "a test cut off".into(),
            }],
        )
    }

    fn prov() -> Provenance {
        Provenance {
            generated: "then".into(),
            generator: "dixit".into(),
        }
    }

    #[test]
    fn the_page_shows_counts_evidence_refusals_and_where_a_flag_stands_escaped() {
        let r = report();
        let undecided = render_import(&r, &BTreeMap::new(), &prov());
        assert!(
            undecided.contains("1 clean, 1 flagged, 1 refused"),
            "{undecided}"
        );
        assert!(undecided.contains("1 flagged project waits for a person"));
        assert!(undecided.contains("undecided: left out of comparisons"));
        assert!(undecided.contains("a test cut off"));
        assert!(undecided.contains("dixit decide out/X__b_1__b_ include"));
        assert!(
            !undecided.contains("<script>alert"),
            "agent text is escaped"
        );
        assert!(!undecided.contains("<b>1</b>"), "task ids are escaped");
        let decided = BTreeMap::from([(
            "X__b_1__b_".to_string(),
            Standing::Decided(FlagDecision {
                ruling: Ruling::Include,
                why: "the test is right".into(),
                by: "ann".into(),
                t: 0,
                flag_sha256: String::new(),
            }),
        )]);
        let page = render_import(&r, &decided, &prov());
        assert!(page.contains("Every flagged project is decided."));
        assert!(page.contains("included (the test is right) by ann: the test is right"));
        assert!(page.contains("flagged, included"));
    }
}
