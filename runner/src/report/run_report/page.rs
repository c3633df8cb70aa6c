//! The run report page: the decision first, then the evidence, one section each. Everything
//! is drawn on the server except the drill-down of the final matrix (`run.js`), which shows a
//! clicked cell's test and verdict from the embedded `dx-run` block:
//!
//! ```text
//! {coders: [name], tests: [{n, file, author, round, source}], verdicts: {letter: name},
//!  cells: [[{v, seed, fuel, exit, ev, cmd} | null per test] per coder], impl: {coder: anchor}}
//! ```
//!
//! where `ev` is a failing cell's journaled evidence (`{kind, message, file, line, code,
//! stderr}`, see [`crate::evidence::Evidence`]) and `cmd` the `dixit exec` command that runs it
//! again from the run directory:
//!
//! ```text
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::super::html::{
    bar_chart, code, diff_against, histogram, html, legend, meaning, verdict_legend, Bar, Column,
    DiffSide, Markup, Matrix, MatrixCol, MatrixRow, Page, Series, Table, TableCell,
};
use super::super::input::ReportError;
use super::model::{slug, Outcome, ProposalView, RunView};
use crate::classify::Class;
use crate::consensus::Disagreements;
use crate::english::{and_list, plural};
use crate::journal::{CellRecord, JournalFile, StopReason};
use crate::outcome::{describe_stop, exit_class, offer_of, ProtocolData, Summary};
use crate::report::choices::commands;
use crate::report::eval_report::Provenance;
use crate::report::format::{thousands, utc_timestamp};
use crate::report::protocols::renderer;
use crate::report::{balance, shipping_words};

/// The page script of the run report.
const RUN_JS: &str = include_str!("run.js");

/// The anchor of suite test `n`.
fn test_anchor(n: usize) -> String {
    format!("test-{n}")
}

/// The anchor of a coder's implementation (an item of the `diff_against` block).
fn impl_anchor(v: &RunView, coder: &str) -> Option<String> {
    v.implementations
        .iter()
        .position(|i| i.coder == coder)
        .map(|i| format!("impl-{i}"))
}

/// The anchor of a coder's attempts.
pub fn attempts_anchor(coder: &str) -> String {
    format!("attempts-{}", slug(coder))
}

/// A verdict's letter (`P`, `F`, ...; `X`: not run).
pub fn letter(c: Option<&CellRecord>) -> char {
    c.map_or('X', |c| crate::eval::verdict_code(c.v))
}

#[derive(Serialize)]
struct RunData<'a> {
    coders: &'a [String],
    tests: Vec<TestData<'a>>,
    verdicts: BTreeMap<char, &'static str>,
    cells: Vec<Vec<Option<CellData<'a>>>>,
    #[serde(rename = "impl")]
    impls: BTreeMap<&'a str, String>,
}

#[derive(Serialize)]
struct TestData<'a> {
    n: usize,
    file: &'a str,
    author: &'a str,
    round: u32,
    source: &'a str,
}

#[derive(Serialize)]
struct CellData<'a> {
    v: char,
    seed: u64,
    fuel: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    exit: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ev: Option<&'a crate::evidence::Evidence>,
    cmd: String,
}

/// Renders the report of the run in `run_dir` (its journal already read, its summary folded)
/// to `out` (default `run_dir/report.html`) and returns the path written.
pub fn write_run_report(
    run_dir: &Path,
    journal: &JournalFile,
    summary: &Summary,
    protocol: &dyn ProtocolData,
    out: Option<&Path>,
) -> Result<PathBuf, ReportError> {
    let view = RunView::new(journal, summary, run_dir, protocol);
    let html = render_run(&view, protocol, &Provenance::now())?;
    let path = out.map_or_else(|| run_dir.join("report.html"), Path::to_path_buf);
    crate::report::eval_report::write_page(&path, &html)
}

/// The run report of `v` (a run of protocol `p`) as one HTML document.
pub fn render_run(
    v: &RunView,
    p: &dyn ProtocolData,
    prov: &Provenance,
) -> Result<String, ReportError> {
    let j = v.journal;
    let mut page = Page::new(format!("dixit run {}", j.run_id))
        .subtitle(format!(
            "protocol {} · {} · {} · {}",
            p.name(),
            plural(v.coders.len(), "coder", "coders"),
            plural(
                v.testers.len() + v.reviewers.len(),
                if v.reviewers.is_empty() {
                    "tester"
                } else {
                    "other agent"
                },
                if v.reviewers.is_empty() {
                    "testers"
                } else {
                    "other agents"
                },
            ),
            v.run_dir.display()
        ))
        .footer(format!(
            "generated {} by {} from {}",
            prov.generated,
            prov.generator,
            j.path.display()
        ));
    page = page.lead(lead(v, p));
    if let Some(why) = p.suite_reason() {
        page.section("suite", "The suite", suite(v, why));
    }
    if !v.proposals.is_empty() {
        page.section("rejected", "Rejected tests", rejected(v));
    }
    if !v.suite.is_empty() {
        page.section("matrix", "Coders × tests", matrices(v, p));
    }
    page.section("implementations", "Implementations", implementations(v));
    page.section("attempts", "Attempts", attempts(v));
    if !v.hidden_tests.is_empty() {
        page.section("hidden", "Hidden tests", hidden(v));
    }
    page.section(
        "disagreements",
        "Disagreements",
        disagreements(v.summary.disagreements.as_ref()),
    );
    if !v.rounds.is_empty() {
        page.section("timeline", "Timeline", timeline(v, p));
    }
    page.section("usage", "Usage and cost", usage(v));
    if let Some(sec) = renderer(p.name()).section(v) {
        page.section(sec.id, sec.title, sec.body);
    }
    page.section("setup", "The run", setup(v));

    let verdicts = verdict_legend()
        .iter()
        .map(|e| (e.code, e.name))
        .chain([('X', "not run")])
        .collect();
    page.data(
        "dx-run",
        &RunData {
            coders: &v.coders,
            tests: v
                .suite
                .iter()
                .map(|t| TestData {
                    n: t.number,
                    file: &t.file,
                    author: &t.author,
                    round: t.round,
                    source: &t.source,
                })
                .collect(),
            verdicts,
            cells: v
                .coders
                .iter()
                .map(|c| {
                    v.final_cells
                        .get(c)
                        .map(|cells| {
                            cells
                                .iter()
                                .zip(&v.suite)
                                .map(|(x, t)| {
                                    x.as_ref().map(|x| CellData {
                                        v: crate::eval::verdict_code(x.v),
                                        seed: x.seed,
                                        fuel: x.fuel,
                                        exit: x.exit,
                                        ev: x.evidence.as_ref(),
                                        cmd: v.exec_command(c, &v.suite_test_path(t), x.seed),
                                    })
                                })
                                .collect()
                        })
                        .unwrap_or_default()
                })
                .collect(),
            impls: v
                .coders
                .iter()
                .filter_map(|c| Some((c.as_str(), impl_anchor(v, c)?)))
                .collect(),
        },
    )?;
    page.script(RUN_JS);
    Ok(page.render())
}

/// The suite test `n`, linked, with its file and author: `test 3 (test_003.py by tester-1)`.
pub fn test_link(v: &RunView, n: usize) -> Markup {
    let t = v.suite.iter().find(|t| t.number == n);
    html! {
        a href={ "#" (test_anchor(n)) } { "test " (n) }
        @if let Some(t) = t { " (" (t.file) " by " (t.author) ")" }
    }
}

/// A coder's name, linked to its implementation when it has one.
pub fn coder_link(v: &RunView, coder: &str) -> Markup {
    html! {
        @if let Some(a) = impl_anchor(v, coder) { a href={ "#" (a) } { (coder) } }
        @else { (coder) }
    }
}

fn proposal_link(p: &ProposalView) -> Markup {
    html! { a href={ "#" (p.anchor()) } { (p.id) } }
}

/// The proposals named by a stop (ids), linked to their rows (their last classification).
pub fn ids_linked(v: &RunView, ids: &[String]) -> Markup {
    html! {
        @for (k, id) in ids.iter().enumerate() {
            @if k > 0 { ", " }
            @match v.proposals.iter().rev().find(|p| p.id == *id) {
                Some(p) => { (proposal_link(p)) " (" (p.file) @if !p.failed_by.is_empty() { ", failed by " (p.failed_by.join(", ")) } ")" }
                None => { (id) }
            }
        }
    }
}

/// The decision the person has to make, in plain words, with links to the evidence.
fn lead(v: &RunView, p: &dyn ProtocolData) -> Markup {
    let Some((stop, round)) = &v.stop else {
        return html! {
            div.dx-lead.dx-bad {
                p.dx-stop { strong { "The run has not stopped" } " (it is running, or it crashed): resume it with " code { (crate::engine::resume_command(&v.run_dir, v.journal, None)) } "." }
            }
        };
    };
    let doubts = v.summary.doubts();
    let class = match exit_class(p, stop) {
        // Green only when everything known agrees.
        crate::journal::ExitClass::Done if doubts.is_empty() => "dx-good",
        crate::journal::ExitClass::Done => "dx-warn",
        crate::journal::ExitClass::HumanNeeded | crate::journal::ExitClass::Failed => "dx-bad",
        crate::journal::ExitClass::Capped | crate::journal::ExitClass::Interrupted => "",
    };
    let resume = html! { code { (crate::engine::resume_command(&v.run_dir, v.journal, None)) } };
    let decisions: Vec<(String, &str, &str, Option<&crate::journal::PolicyNote>)> = v
        .journal
        .records
        .iter()
        .filter_map(|r| match &r.event {
            crate::journal::Event::Decision {
                choice,
                why,
                by,
                policy,
            } => Some((choice.command(), why.as_str(), by.as_str(), policy.as_ref())),
            _ => None,
        })
        .collect();
    let run_word = crate::shell::shell_word(&v.run_dir.display().to_string());
    let ask: Markup = match stop {
        StopReason::Decided(d) => renderer(p.name()).explain(d, v),
        StopReason::RoundCap { rounds } => html! {
            p { "The " (p.round_word()) " cap (" (rounds) ") stopped the run before it came to a decision; nothing is decided yet. Raise it (the command above) and continue with " (resume) "." }
        },
        StopReason::Budget { agent, cap } => html! {
            p { "A budget cap stopped the run before a call of " (agent) ": " (cap) ". Raise it (the command above) and continue with " (resume) "." }
        },
        StopReason::Accepted { by } if crate::config::PolicyName::is_decider(by) => html! {
            p { (by) " accepted; the run ends there and ships what its evidence picks (above; the decisions below say why)." }
        },
        StopReason::Accepted { by } => html! {
            p { (by) " accepted the implementations as they were; the run ends there (the decisions below say why)." }
        },
        StopReason::Error { agent, message } => html! {
            p { (agent) " failed: " code { (message) } ". Fix the cause (a server, a key, a command) and continue with " (resume) "." }
        },
        StopReason::Interrupted => html! {
            p { "The run was interrupted (a Ctrl-C or a signal) before it came to a decision; agent calls in flight were abandoned, nothing is decided yet. Continue with " (resume) "." }
        },
    };
    let s = v.summary;
    html! {
        div.dx-lead.(class) {
            p.dx-stop { strong { (capitalise(&describe_stop(p, stop))) } " (round " (round) ")." }
            @if !doubts.is_empty() {
                p.dx-doubts { strong { "But: " } (doubts.join("; ")) "." }
            }
            @if let Some(ship) = &s.shipping {
                @let (head, strategy, tail) = shipping_words(ship);
                p.dx-ships { strong { "Ships: " } (head) code { (strategy) } (tail) "." }
            }
            @let offer = offer_of(p, v.journal);
            @let e = balance(s);
            @if !offer.is_empty() && !e.is_empty() {
                div #dx-evidence {
                    ul.dx-coders {
                        @for (coder, line) in &e.coders {
                            li { (coder_link(v, coder)) ": " (line) }
                        }
                    }
                    @for line in &e.balance {
                        p.dx-balance { (capitalise(line)) "." }
                    }
                    @for line in &e.odd {
                        p.dx-odd { a href="#disagreements" { (line) } "." }
                    }
                }
            }
            @let commands = commands(&offer, &v.run_dir.display().to_string());
            @if !commands.is_empty() {
                div #dx-choices {
                    p { strong { "What you can do" } " (then " (resume) ", except after accept):" }
                    ul {
                        @for (command, effect) in &commands {
                            li { code { (command) } " — " (effect) }
                        }
                    }
                }
            }
            (ask)
            @if !decisions.is_empty() {
                div #dx-decisions {
                    p { strong { "Decisions" } }
                    ol {
                        @for (k, (choice, why, by, policy)) in decisions.iter().enumerate() {
                            li {
                                @if let Some(n) = policy {
                                    "decided by policy " (n.name) ": " code { (choice) } " — “" (why) "”"
                                    details.dx-policy {
                                        summary { "its rule and the evidence it read" }
                                        p { (n.rule) }
                                        ul { @for e in &n.evidence { li { (e) } } }
                                        p { "To decide otherwise here: " code { "dixit decide " (run_word) " --at " (k + 1) " CHOICE --why \"…\"" } " forks the run at this stop (this run is kept)." }
                                    }
                                } @else {
                                    (by) ": " code { (choice) } " — “" (why) "”"
                                }
                            }
                        }
                    }
                }
            }
            dl.dx-kv.dx-facts {
                dt { "suite" } dd #dx-suite-count data-count=(v.suite.len()) { (plural(v.suite.len(), "test", "tests")) }
                dt { "rounds" } dd { (s.rounds) }
                @for (k, fact) in renderer(p.name()).facts(s) {
                    dt { (k) } dd { (fact) }
                }
                @if let Some(d) = &s.disagreements {
                    @if d.error.is_none() {
                        dt { "disagreements" } dd { a href="#disagreements" { (plural(d.count(), "call", "calls")) } " of " (d.calls) }
                    }
                }
                dt { "usage" } dd { (plural(s.usage.calls as usize, "call", "calls")) " · " (thousands(s.usage.prompt_tokens + s.usage.completion_tokens)) " tokens · $" (format!("{:.4}", s.usage.usd)) }
            }
        }
    }
}

fn capitalise(s: &str) -> String {
    // An agent's name (`coder-4 alone fails …`) is written as the run names it.
    let first = s.split_whitespace().next().unwrap_or("");
    if first
        .split_once('-')
        .is_some_and(|(_, n)| n.trim_end_matches(['\'', 's']).parse::<u32>().is_ok())
    {
        return s.to_string();
    }
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The suite, and `why` a test is in it.
fn suite(v: &RunView, why: &str) -> Markup {
    if v.suite.is_empty() {
        return html! { p { "The suite is empty: no test joined it." } };
    }
    let mut t = Table::new(
        "dx-suite",
        vec![
            Column::num("#"),
            Column::text("file"),
            Column::text("author"),
            Column::num("round").title("the round at whose end it joined"),
            Column::text("failed when admitted")
                .title("the coders that failed it when it was classified"),
            Column::text("final verdicts").title("each coder's verdict on it at the end"),
        ],
    );
    for (k, s) in v.suite.iter().enumerate() {
        let admitted = s.admitted_by.map(|k| &v.proposals[k]);
        t.row(vec![
            TableCell::num(s.number as f64, s.number.to_string()),
            TableCell::markup(html! { a href={ "#" (test_anchor(s.number)) } { (s.file) } }, s.file.clone()),
            TableCell::text(&s.author),
            TableCell::num(f64::from(s.round), s.round.to_string()),
            TableCell::markup(
                html! {
                    @match admitted {
                        Some(p) => { (if p.failed_by.is_empty() { "–".to_string() } else { p.failed_by.join(", ") }) " (" (p.failures) " of " (p.pool) ", " a href={ "#" (p.anchor()) } { (p.id) } ")" @if s.woken { " · woken by a person" } }
                        None if v.acceptance.is_some() => { "(given)" }
                        None => { "–" }
                    }
                },
                admitted.map_or(0, |p| p.failures).to_string(),
            ),
            TableCell::markup(
                html! {
                    @for c in &v.coders {
                        @let l = letter(v.final_cells.get(c).and_then(|x| x.get(k)).and_then(Option::as_ref));
                        span class={ "sw v v-" (l) } title={ (c) ": " (meaning("v", l)) } { (l) }
                    }
                },
                String::new(),
            ),
        ]);
    }
    html! {
        p { "Each test joined the suite because " (why) ". Click a file for its code." }
        (t.render())
        @for s in &v.suite {
            details.dx-test id=(test_anchor(s.number)) {
                summary { "test " (s.number) ": " (s.file) " by " (s.author) }
                (code(&s.source, Some(&s.file)))
            }
        }
    }
}

fn outcome_badge(o: &Outcome) -> Markup {
    let l = match o {
        Outcome::Class(Class::Ideal) | Outcome::Kept => Some('I'),
        Outcome::Class(Class::TooHard) => Some('H'),
        Outcome::Class(Class::TooEasy) | Outcome::NotKept => Some('E'),
        Outcome::Class(Class::Invalid) => None,
    };
    html! {
        @if let Some(l) = l { span class={ "sw b b-" (l) } { (l) } " " }
        @else { span.sw { "!" } " " }
        (o.name())
    }
}

fn first_line(s: &str, max: usize) -> String {
    let l = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if l.chars().count() > max {
        format!("{}…", l.chars().take(max).collect::<String>())
    } else {
        l.to_string()
    }
}

fn rejected(v: &RunView) -> Markup {
    let rejected = v.rejected();
    if rejected.is_empty() {
        return html! { p { "Every proposed test joined the suite." } };
    }
    let mut t = Table::new(
        "dx-rejected",
        vec![
            Column::text("test"),
            Column::num("round"),
            Column::text("classification"),
            Column::text("failed by"),
            Column::text("then its author was told"),
        ],
    )
    .filterable();
    for p in &rejected {
        t.row(vec![
            TableCell::markup(proposal_link(p), p.id.clone()),
            TableCell::num(f64::from(p.round), p.round.to_string()),
            TableCell::markup(outcome_badge(&p.outcome), p.outcome.name()),
            TableCell::text(if let Some(e) = &p.build_error {
                format!("does not build: {}", first_line(e, 80))
            } else if p.failed_by.is_empty() {
                format!("nobody ({} of {})", p.failures, p.pool)
            } else {
                format!("{} ({} of {})", p.failed_by.join(", "), p.failures, p.pool)
            }),
            TableCell::text(p.nudge.as_deref().map_or_else(
                || {
                    if p.revival {
                        "(re-checked while its author hibernated)".into()
                    } else {
                        "–".into()
                    }
                },
                |n| first_line(n, 100),
            )),
        ]);
    }
    html! {
        p { (plural(rejected.len(), "classification", "classifications")) " did not admit a test. Click a test for its code, its verdicts and the full message its author got next." }
        (t.render())
        @for p in &rejected {
            details.dx-proposal id=(p.anchor()) {
                summary { (p.id) " (round " (p.round) ", " (p.purpose) "): " (p.outcome.name()) }
                @if let Some(src) = &p.source { (code(src, Some(&p.file))) }
                @else { p.dx-muted { "The reply held no test." } }
                @if !p.cells.is_empty() && p.pool_names.len() == p.cells.len() {
                    p { "Verdicts: "
                        @for (n, c) in p.pool_names.iter().zip(&p.cells) {
                            @let l = crate::eval::verdict_code(c.v);
                            span class={ "sw v v-" (l) } title=(meaning("v", l)) { (l) } (n) " "
                        }
                    }
                }
                @if let Some(e) = &p.build_error { p { "Build error:" } (code(e, None)) }
                @if let Some(n) = &p.nudge { p { "Its author was told next:" } blockquote.dx-nudge { (n) } }
            }
        }
    }
}

fn suite_cols(v: &RunView, n: usize) -> Vec<MatrixCol> {
    v.suite
        .iter()
        .take(n)
        .map(|t| MatrixCol {
            label: format!("t{}", t.number),
            title: Some(format!("{} by {} (round {})", t.file, t.author, t.round)),
            sep: false,
        })
        .collect()
}

fn matrices(v: &RunView, p: &dyn ProtocolData) -> Markup {
    let final_m = Matrix {
        caption: None,
        corner: "coder \\ test".into(),
        lead_heads: vec![],
        cols: suite_cols(v, v.suite.len()),
        rows: v
            .coders
            .iter()
            .map(|c| MatrixRow {
                label: c.clone(),
                cells: v
                    .final_cells
                    .get(c)
                    .map(|cells| cells.iter().map(|x| letter(x.as_ref())).collect())
                    .unwrap_or_default(),
                cls: "v",
                ..Default::default()
            })
            .collect(),
    };
    html! {
        (legend(&verdict_legend()))
        p { "At the end of the run: each coder's verdict on each suite test (click a cell for the test, the verdict, what failed and the command that runs it again; a test's header for its code)." }
        div #dx-final .dx-roomy {
            (final_m.render())
            p.dx-cell-info.dx-muted { "Hover a cell for its verdict." }
        }
        div #dx-cell-drill .dx-drill hidden {}
        @for r in v.rounds.iter().filter(|r| !r.judged.is_empty()) {
            @let width = r.judged.values().map(|j| j.vector.len()).max().unwrap_or(0);
            details.dx-round {
                summary { (capitalise(p.round_word())) " " (r.number) ": each coder's last check, against " (plural(width, "test", "tests")) }
                @if width == 0 {
                    p.dx-muted { "The suite was empty: the check only built each coder's code ("
                        (v.coders.iter().filter(|c| r.judged.get(*c).is_some_and(|j| j.build_error.is_none())).count())
                        " of " (v.coders.len()) " built)." }
                } @else {
                    div.dx-roomy { (Matrix {
                        caption: None,
                        corner: "coder \\ test".into(),
                        lead_heads: vec![],
                        cols: suite_cols(v, width),
                        rows: v.coders.iter().filter_map(|c| {
                            let j = r.judged.get(c)?;
                            Some(MatrixRow {
                                label: c.clone(),
                                cells: (0..width).map(|k| j.letter(k)).collect(),
                                cls: "v",
                                ..Default::default()
                            })
                        }).collect(),
                    }.render()) }
                }
            }
        }
    }
}

fn implementations(v: &RunView) -> Markup {
    if v.implementations.is_empty() {
        return html! { p { "No implementation was found in " code { (v.run_dir.join("implementations").display()) } "." } };
    }
    let texts: Vec<String> = v.implementations.iter().map(|i| i.text()).collect();
    let items: Vec<DiffSide> = v
        .implementations
        .iter()
        .zip(&texts)
        .map(|(i, t)| DiffSide {
            label: &i.coder,
            text: t,
        })
        .collect();
    // Compare with the implementation the run ships, when it picks one; else with the first
    // coder that passes the whole suite at the end; else the first.
    let shipped = v.summary.shipped();
    let picked = v
        .implementations
        .iter()
        .position(|i| shipped.contains(&&i.coder))
        .filter(|_| shipped.len() < v.summary.coders.len());
    let passes_all = v.implementations.iter().position(|i| {
        v.final_cells.get(&i.coder).is_some_and(|c| {
            c.iter().all(|x| {
                x.as_ref()
                    .is_some_and(|x| x.v == crate::sandbox::VerdictKind::Pass)
            })
        })
    });
    let (base, why) = match (picked, passes_all) {
        (Some(b), _) => (b, "the one the run ships"),
        (None, Some(b)) => (b, "the first that passes the whole suite"),
        (None, None) => (0, "the first"),
    };
    let base = Some(base).filter(|_| items.len() > 1);
    html! {
        p { "Each coder's final code (" code { "implementations/" } "). "
            @if let Some(b) = base { "Each is shown as a diff against " strong { (items[b].label) } " (" (why) "); choose another to compare with, or none to read the code." } }
        (diff_against("impl", &items, base))
    }
}

fn attempts(v: &RunView) -> Markup {
    let table = |c: &str| -> Option<Markup> {
        let list = v.attempts.get(c).filter(|l| !l.is_empty())?;
        let last = v.final_attempt(c).map(|a| a.pos);
        let mut t = Table::new(
            format!("dx-att-{}", slug(c)),
            vec![
                Column::num("round"),
                Column::text("code from"),
                Column::num("passed"),
                Column::text("verdicts"),
                Column::text("then"),
            ],
        );
        for a in list {
            let j = &a.judged;
            t.row(vec![
                TableCell::num(f64::from(a.round), a.round.to_string()),
                TableCell::text(&a.purpose),
                TableCell::num(
                    j.passed() as f64,
                    format!("{} / {}", j.passed(), j.vector.len()),
                ),
                TableCell::markup(
                    html! {
                        @if let Some(e) = &j.build_error { "does not build: " (first_line(e, 80)) }
                        @else { code { @for k in 0..j.vector.len() { (j.letter(k)) } } }
                    },
                    String::new(),
                ),
                TableCell::text(format!(
                    "{}{}",
                    a.outcome,
                    if Some(a.pos) == last { " ★" } else { "" }
                )),
            ]);
        }
        Some(t.render())
    };
    html! {
        p { "Every check of a coder's code against the suite, with the reply that produced it and what the high-water mark did: a better attempt becomes the best so far; an attempt that is no better is rolled back, so the coder goes on from its best code. ★ marks the check of the code the coder ended with." }
        @for c in &v.coders {
            h3 id=(attempts_anchor(c)) { (c) }
            @match table(c) {
                Some(t) => { (t) }
                None => { p.dx-muted { "No check." } }
            }
        }
    }
}

fn hidden(v: &RunView) -> Markup {
    let m = Matrix {
        caption: None,
        corner: "coder \\ hidden test".into(),
        lead_heads: vec![],
        cols: v
            .hidden_tests
            .iter()
            .enumerate()
            .map(|(k, name)| MatrixCol {
                label: format!("h{}", k + 1),
                title: Some(name.clone()),
                sep: false,
            })
            .collect(),
        rows: v
            .coders
            .iter()
            .filter_map(|c| {
                let cells = v.hidden.get(c)?;
                Some(MatrixRow {
                    label: c.clone(),
                    title: Some(format!(
                        "{c}: {} of {} pass",
                        cells
                            .iter()
                            .filter(|x| x.v == crate::sandbox::VerdictKind::Pass)
                            .count(),
                        cells.len()
                    )),
                    cells: cells.iter().map(|x| letter(Some(x))).collect(),
                    cls: "v",
                    ..Default::default()
                })
            })
            .collect(),
    };
    html! {
        @if v.hidden.is_empty() {
            p { "The hidden tests did not run (the run stopped on a cap or an error)." }
        } @else {
            p { "The final implementations against the project's hidden tests, which no agent ever saw:" }
            ul {
                @for c in &v.coders {
                    @if let Some(cells) = v.hidden.get(c) {
                        li { (c) ": " (cells.iter().filter(|x| x.v == crate::sandbox::VerdictKind::Pass).count()) " of " (cells.len()) " pass" }
                    }
                }
            }
            div.dx-roomy { (m.render()) }
        }
        @for (k, name) in v.hidden_tests.iter().enumerate() {
            details {
                summary { "h" (k + 1) ": " (name) }
                (code(v.journal.project.hidden.get(name).map_or("", String::as_str), Some(name)))
            }
        }
    }
}

/// The disagreements section (also used for runs that have none).
pub(super) fn disagreements(d: Option<&Disagreements>) -> Markup {
    let Some(d) = d else {
        return html! { p { "Not computed: the disagreement finder replays the calls of Python unit tests only." } };
    };
    if let Some(e) = &d.error {
        return html! { p.dx-down { "✗ The disagreement finder could not run: " (e) } };
    }
    if d.implementations.len() < 2 {
        return html! { p { "Nothing to compare: fewer than two coders left an implementation." } };
    }
    let tables: Vec<Markup> = d
        .functions
        .iter()
        .map(|f| {
            let mut t = Table::new(
                format!("dx-dis-{}", slug(&f.function)),
                vec![
                    Column::text("call"),
                    Column::text("answers"),
                    Column::text("made by"),
                ],
            );
            for i in &f.inputs {
                t.row(vec![
                    TableCell::markup(html! { code { (i.call) } }, i.call.clone()),
                    TableCell::markup(
                        html! {
                            ul.dx-answers {
                                @for a in &i.answers { li { code { (a.answer) } " ← " (a.coders.join(", ")) } }
                            }
                        },
                        i.answers.len().to_string(),
                    ),
                    TableCell::text(i.tests.join("; ")),
                ]);
            }
            t.render()
        })
        .collect();
    html! {
        p { "Every test of the run (suite, rejected, hidden and given tests alike) ran once more against each final implementation ("
            (and_list(&d.implementations)) "), going on past failed checks, and every call it made into " code { "solution" } " was read off the boundary between the two (each implementation runs apart and only answers, so none can tell this from an ordinary test, or touch the record). Answers are compared as Python compares them: values with " code { "==" } ", exceptions by type. Nothing of this is shown to any agent." }
        p #dx-dis-summary {
            strong { (plural(d.count(), "call", "calls")) " with different answers" } " of " (d.calls) " distinct calls from " (plural(d.tests, "test", "tests")) "; " (d.agreed) " agreed"
            @if d.not_replayable > 0 { "; " (d.not_replayable) " not compared (an argument was an object, not plain data)" }
            @if d.not_probed > 0 { "; " (d.not_probed) " more not run (limit " (crate::consensus::MAX_CALLS) ")" }
            "."
        }
        @for (f, t) in d.functions.iter().zip(&tables) {
            h3 { code { (f.function) } " — " (plural(f.inputs.len(), "input", "inputs")) }
            (t)
        }
    }
}

fn timeline(v: &RunView, p: &dyn ProtocolData) -> Markup {
    // Proposals kept or not (rather than classified): count those instead of classes.
    let trials = v
        .proposals
        .iter()
        .any(|p| matches!(p.outcome, Outcome::Kept | Outcome::NotKept));
    let bins: Vec<String> = v.rounds.iter().map(|r| r.number.to_string()).collect();
    let suite_size = Series {
        name: "suite size at the start".into(),
        values: v
            .rounds
            .iter()
            .map(|r| Some(r.suite_at_start as f64))
            .collect(),
    };
    let added = Series {
        name: "tests added at the end".into(),
        values: v.rounds.iter().map(|r| Some(r.added as f64)).collect(),
    };
    let unit = p.round_word();
    let mut t = Table::new(
        "dx-rounds",
        vec![
            Column::num(unit),
            Column::num("suite at start"),
            Column::num("IDEAL"),
            Column::num("TOO_EASY"),
            Column::num("TOO_HARD"),
            Column::num("INVALID"),
            Column::num("added"),
        ],
    );
    for r in &v.rounds {
        let n = |x: u32| TableCell::num(f64::from(x), x.to_string());
        let z = |x: usize| TableCell::num(x as f64, x.to_string());
        t.row(vec![
            n(r.number),
            z(r.suite_at_start),
            n(r.classes.ideal),
            n(r.classes.too_easy),
            n(r.classes.too_hard),
            n(r.classes.invalid),
            z(r.added),
        ]);
    }
    let classes: Vec<Series> = if trials {
        let per = |kept: bool| -> Vec<Option<f64>> {
            v.rounds
                .iter()
                .map(|r| {
                    Some(
                        v.proposals
                            .iter()
                            .filter(|p| p.round == r.number && (p.outcome == Outcome::Kept) == kept)
                            .count() as f64,
                    )
                })
                .collect()
        };
        vec![
            Series {
                name: "kept (discriminated)".into(),
                values: per(true),
            },
            Series {
                name: "not kept".into(),
                values: per(false),
            },
        ]
    } else {
        let per = |f: fn(&crate::outcome::ClassCounts) -> u32| -> Vec<Option<f64>> {
            v.rounds
                .iter()
                .map(|r| Some(f64::from(f(&r.classes))))
                .collect()
        };
        vec![
            Series {
                name: "IDEAL".into(),
                values: per(|c| c.ideal),
            },
            Series {
                name: "TOO_EASY".into(),
                values: per(|c| c.too_easy),
            },
            Series {
                name: "TOO_HARD".into(),
                values: per(|c| c.too_hard),
            },
            Series {
                name: "INVALID".into(),
                values: per(|c| c.invalid),
            },
        ]
    };
    html! {
        div.dx-grid {
            (histogram("dx-tl-suite", &format!("Suite size per {unit}: at its start, and the tests added at its end"), &bins, &[suite_size, added], "tests"))
            (histogram("dx-tl-classes", &format!("{} per {unit}", if trials { "Tests written" } else { "Classifications" }), &bins, &classes, "tests"))
        }
        (t.render())
    }
}

fn usage(v: &RunView) -> Markup {
    let s = v.summary;
    let role = |a: &str| {
        if v.coders.iter().any(|c| c == a) {
            "coder"
        } else if v.testers.iter().any(|c| c == a) {
            "tester"
        } else if v.reviewers.iter().any(|c| c == a) {
            "reviewer"
        } else {
            ""
        }
    };
    let mut t = Table::new(
        "dx-usage",
        vec![
            Column::text("agent"),
            Column::text("role"),
            Column::text("model"),
            Column::num("calls"),
            Column::num("prompt tokens"),
            Column::num("completion tokens"),
            Column::num("USD"),
        ],
    );
    let agents: Vec<&String> = v
        .coders
        .iter()
        .chain(&v.testers)
        .chain(&v.reviewers)
        .collect();
    for a in &agents {
        let u = s.usage_per_agent.get(*a).cloned().unwrap_or_default();
        t.row(vec![
            TableCell::text(a.as_str()),
            TableCell::text(role(a)),
            TableCell::text(v.models.get(*a).map(|m| m.join(", ")).unwrap_or_default()),
            TableCell::num(u.calls as f64, u.calls.to_string()),
            TableCell::num(u.prompt_tokens as f64, thousands(u.prompt_tokens)),
            TableCell::num(u.completion_tokens as f64, thousands(u.completion_tokens)),
            TableCell::num(u.usd, format!("{:.4}", u.usd)),
        ]);
    }
    let u = &s.usage;
    t.row(vec![
        TableCell::markup(html! { strong { "total" } }, "~"),
        TableCell::text(""),
        TableCell::text(""),
        TableCell::num(u.calls as f64, u.calls.to_string()),
        TableCell::num(u.prompt_tokens as f64, thousands(u.prompt_tokens)),
        TableCell::num(u.completion_tokens as f64, thousands(u.completion_tokens)),
        TableCell::num(u.usd, format!("{:.4}", u.usd)),
    ]);
    let bars: Vec<Bar> = agents
        .iter()
        .map(|a| {
            let u = s.usage_per_agent.get(*a).cloned().unwrap_or_default();
            let tokens = u.prompt_tokens + u.completion_tokens;
            Bar {
                label: a.to_string(),
                value: tokens as f64,
                shown: format!(
                    "{} tokens, {}, ${:.4}",
                    thousands(tokens),
                    plural(u.calls as usize, "call", "calls"),
                    u.usd
                ),
                class: None,
            }
        })
        .collect();
    html! {
        (t.render())
        (bar_chart("Tokens per agent", &bars, None))
        p.dx-note { "Prices come from the project's " code { "[prices]" } " table; a model without a price costs $0 here." }
    }
}

fn setup(v: &RunView) -> Markup {
    let j = v.journal;
    let when =
        |ms: u64| utc_timestamp(std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms));
    html! {
        dl.dx-kv {
            dt { "run" } dd { code { (j.run_id) } " · protocol " (j.protocol) }
            @if let Some((a, b)) = v.span {
                dt { "time" } dd.dx-time { (when(a)) " to " (when(b)) " (" (format!("{:.1}", (b.saturating_sub(a)) as f64 / 1000.0)) " s)" }
            }
            dt { "directory" } dd { code { (v.run_dir.display()) } }
            dt { "dixit" } dd { (j.dixit_version) " · wasmtime " (j.wasmtime_version) }
            @for (k, d) in &j.runtimes { dt { (k) " runtime" } dd { code { (d) } } }
            @if j.resumes() > 0 { dt { "resumed" } dd { (j.resumes()) " times" } }
            dt { "agents" } dd { "coders " (v.coders.join(", ")) @if !v.testers.is_empty() { " · testers " (v.testers.join(", ")) } @if !v.reviewers.is_empty() { " · reviewers " (v.reviewers.join(", ")) } }
            dt { "replay" } dd { code { "dixit replay " (v.run_dir.display()) } }
        }
        details {
            summary { "The spec" }
            (code(&j.project.spec, Some("spec.md")))
        }
        details {
            summary { "dixit.toml" }
            (code(&j.project.config, Some("dixit.toml")))
        }
    }
}
