//! The eval report page. Everything a reader compares across problems is drawn on the server
//! (tables, charts); each problem's solutions × tests heatmap and code are drawn in the browser
//! only when the problem is opened (`eval.js`), from one embedded JSON block per problem:
//!
//! ```text
//! {id, prefix,                      the solutions' common first lines, stored once
//!  sols: [[rest of source, samples]], tests: [[source, samples]],
//!  rows: ["PWR…" per solution], hidden: "PW…" (one per solution), ref: "P…", refHidden: "P",
//!  bands: "IHE…" (one per test),
//!  noteNames: ["NameError", …],     what failing cells raised
//!  notes: {row: "…"}}               row -1: the reference; per row one character per (hidden
//!                                   check, test…): ' ' none, else the note's index in
//!                                   NOTE_ALPHABET
//! ```

use std::collections::BTreeMap;

use serde::Serialize;

use super::super::format::{percent, thousands};
use super::super::html::{
    band_legend, bar_chart, dot_chart, histogram, html, legend, verdict_legend, Bar, Column,
    DotChart, Markup, Page, Series, Table, TableCell,
};
use super::super::input::ReportError;
use super::{EvalOutput, Provenance, STRATEGIES};
use crate::classify::Class;
use crate::eval::scoring::{pool_bands, Fraction, ProblemReport};
use crate::eval::{EvalReport, ProblemVerdicts};

/// The page script of the eval report.
const EVAL_JS: &str = include_str!("eval.js");

/// Characters that stand for notes in the embedded `notes` strings (printable ASCII without
/// space, `"` and `\`, so they need no escaping in JSON).
pub(crate) const NOTE_ALPHABET: &str =
    "!#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~";

/// The band letter of a test.
pub(crate) fn band_letter(b: Class) -> char {
    match b {
        Class::Ideal => 'I',
        Class::TooHard => 'H',
        // `class_of` never says INVALID: a test that does not build fails here.
        Class::TooEasy | Class::Invalid => 'E',
    }
}

/// The bands of `v`'s tests over its pool (the band rule, `classify::class_of`).
pub(crate) fn bands(v: &ProblemVerdicts, minority: f64) -> String {
    match v.matrix() {
        Ok(m) => pool_bands(&m, minority)
            .into_iter()
            .map(band_letter)
            .collect(),
        Err(_) => "E".repeat(v.tests.len()),
    }
}

/// The longest common prefix of `texts` that ends at a line break (empty for fewer than two).
pub(crate) fn common_line_prefix<'a>(texts: impl IntoIterator<Item = &'a str>) -> &'a str {
    let mut it = texts.into_iter();
    let Some(first) = it.next() else { return "" };
    let mut len = first.len();
    let mut n = 1;
    for t in it {
        n += 1;
        len = first
            .bytes()
            .zip(t.bytes())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count();
    }
    if n < 2 {
        return "";
    }
    // Texts may differ inside a multi-byte character.
    while !first.is_char_boundary(len) {
        len -= 1;
    }
    match first[..len].rfind('\n') {
        Some(k) => &first[..=k],
        None => "",
    }
}

/// Notes as row-aligned strings over [`NOTE_ALPHABET`]: `(names, row → string)`.
pub(crate) fn encode_notes(v: &ProblemVerdicts) -> (Vec<String>, BTreeMap<i64, String>) {
    let alphabet: Vec<char> = NOTE_ALPHABET.chars().collect();
    let mut names: Vec<String> = Vec::new();
    let mut rows: BTreeMap<i64, Vec<char>> = BTreeMap::new();
    let width = v.tests.len() + 1;
    for n in &v.notes {
        let k = match names.iter().position(|x| *x == n.note) {
            Some(k) => k,
            None if names.len() + 1 < alphabet.len() => {
                names.push(n.note.clone());
                names.len() - 1
            }
            None => {
                if names.len() + 1 == alphabet.len() {
                    names.push("(another note; see the problem's file)".into());
                }
                alphabet.len() - 1
            }
        };
        let row = n.solution.map_or(-1, |s| s as i64);
        let col = n.test.map_or(0, |t| t + 1);
        rows.entry(row).or_insert_with(|| vec![' '; width])[col] = alphabet[k];
    }
    (
        names,
        rows.into_iter()
            .map(|(r, cs)| (r, cs.into_iter().collect()))
            .collect(),
    )
}

#[derive(Serialize)]
struct ProblemData<'a> {
    id: &'a str,
    prefix: &'a str,
    sols: Vec<(&'a str, u32)>,
    tests: Vec<(&'a str, u32)>,
    rows: &'a [String],
    hidden: &'a str,
    #[serde(rename = "ref")]
    reference: &'a str,
    #[serde(rename = "refHidden")]
    reference_hidden: char,
    bands: String,
    #[serde(rename = "noteNames")]
    note_names: Vec<String>,
    notes: BTreeMap<i64, String>,
}

fn problem_data(v: &ProblemVerdicts, minority: f64) -> ProblemData<'_> {
    let prefix = common_line_prefix(v.solutions.iter().map(|s| s.source.as_str()));
    let (note_names, notes) = encode_notes(v);
    ProblemData {
        id: &v.id,
        prefix,
        sols: v
            .solutions
            .iter()
            .map(|s| (&s.source[prefix.len()..], s.count))
            .collect(),
        tests: v
            .tests
            .iter()
            .map(|t| (t.source.as_str(), t.count))
            .collect(),
        rows: &v.rows,
        hidden: &v.hidden,
        reference: &v.reference_row,
        reference_hidden: v.reference_hidden,
        bands: bands(v, minority),
        note_names,
        notes,
    }
}

/// What the page script needs besides the problems: letter meanings and problem ids.
#[derive(Serialize)]
struct Meta<'a> {
    #[serde(rename = "noteAlphabet")]
    note_alphabet: &'static str,
    /// Letter → meaning, in legend order.
    verdicts: Vec<(char, &'static str)>,
    bands: Vec<(char, &'static str)>,
    problems: Vec<&'a str>,
}

/// A pass@1 as a percentage cell.
fn frac_cell(num: u64, den: u64) -> TableCell {
    if den == 0 {
        return TableCell::num(f64::NAN, "–");
    }
    let v = 100.0 * num as f64 / den as f64;
    TableCell::num(v, format!("{v:.1}"))
}

/// The eval report of `eval` as one HTML document.
pub fn render_eval(eval: &EvalOutput, prov: &Provenance) -> Result<String, ReportError> {
    let r = &eval.report;
    let c = &r.execution.corpus;
    let minority = r.results.config.minority;
    let mut page = Page::new("dixit eval report")
        .subtitle(format!(
            "{} · {} corpus {} · {} problem{}{}",
            eval.dir.display(),
            r.setup.corpus_format,
            r.setup.corpus_hash.chars().take(12).collect::<String>(),
            c.problems,
            if c.problems == 1 { "" } else { "s" },
            r.shard.map(|s| format!(" (shard {s})")).unwrap_or_default()
        ))
        .footer(format!(
            "generated {} by {} from {}",
            prov.generated,
            prov.generator,
            eval.dir.display()
        ));
    page = page.lead(lead(r));
    page.section("strategies", "Strategies", strategies(r));
    page.section("bands", "Band precision", band_precision(r));
    page.section("plots", "Plots", plots(eval));
    page.section("problems", "Problems", problem_table(eval));
    page.section(
        "problem",
        "Problem drill-down",
        html! {
            div #dx-drill {
                p.dx-muted { "Choose a problem in the table above: its solutions × tests heatmap opens here, and a click on a cell shows the solution's and the test's code." }
            }
        },
    );
    page.section("setup", "How it was run", setup(r));
    page.data(
        "dx-meta",
        &Meta {
            note_alphabet: NOTE_ALPHABET,
            verdicts: verdict_legend().iter().map(|e| (e.code, e.name)).collect(),
            bands: band_legend().iter().map(|e| (e.code, e.name)).collect(),
            problems: eval.problems.iter().map(|p| p.id.as_str()).collect(),
        },
    )?;
    for (k, v) in eval.problems.iter().enumerate() {
        page.data(&format!("dx-p-{k}"), &problem_data(v, minority))?;
    }
    page.script(EVAL_JS);
    Ok(page.render())
}

fn lead(r: &EvalReport) -> Markup {
    let c = &r.execution.corpus;
    let s = &r.results.summary;
    // The first of the best (a variant that ties its strategy is not named instead).
    let best = STRATEGIES
        .iter()
        .filter_map(|st| Some((st, (st.mean)(s)?)))
        .fold(
            None::<(&super::Strategy, f64)>,
            |best, (st, m)| match best {
                Some(b) if b.1 >= m => Some(b),
                _ => Some((st, m)),
            },
        );
    let failures = &r.execution.reference_failures;
    html! {
        div.dx-lead.(if failures.is_empty() { "dx-good" } else { "dx-bad" }) {
            p {
                strong { (c.problems) " problem" @if c.problems != 1 { "s" } } " · "
                (thousands(c.solutions)) " unique solutions (" (thousands(c.solution_samples)) " samples) · "
                (thousands(c.tests)) " unique generated tests (" (thousands(c.test_samples)) " samples) · "
                (thousands(c.cells)) " cells, each one sandboxed run"
            }
            @if let Some((b, mean)) = best {
                p { "Best pass@1: " strong { (b.name) " " (format!("{mean:.2} %")) } ", against " (format!("{:.2} %", s.random_pct)) " for a random pick." }
            }
            @if !failures.is_empty() {
                p { "✗ Reference solutions that fail their own hidden tests: " (failures.join(", ")) " (their problems' results are suspect)." }
            }
        }
    }
}

fn strategies(r: &EvalReport) -> Markup {
    let s = &r.results.summary;
    let problems = &r.results.problems;
    let mut t = Table::new(
        "dx-strategies",
        vec![
            Column::text("strategy"),
            Column::num("pass@1 %").title(
                "mean over problems of the chance that the strategy's pick passes the hidden tests",
            ),
            Column::num("vs random").title("difference to the random baseline, in points"),
            Column::num("▲ problems").title("problems where it beats a random pick"),
            Column::num("▼ problems").title("problems where it does worse than a random pick"),
            Column::num("at 100 %").title("problems where every solution it may pick is correct"),
            Column::num("at 0 %").title("problems where no solution it may pick is correct"),
        ],
    );
    let mut missing = Vec::new();
    for st in STRATEGIES {
        let Some(mean) = (st.mean)(s) else {
            missing.push(st.name);
            continue;
        };
        let delta = mean - s.random_pct;
        let count = |f: &dyn Fn(&ProblemReport, Fraction) -> bool| {
            problems
                .iter()
                .filter(|p| (st.of)(p).is_some_and(|x| f(p, x)))
                .count()
        };
        let up = count(&|p, x| x.value() > p.random.value() + 1e-12);
        let down = count(&|p, x| x.value() + 1e-12 < p.random.value());
        let full = count(&|_, x| x.den > 0 && x.num == x.den);
        let zero = count(&|_, x| x.num == 0);
        let delta_cell = if st.key == "random" {
            TableCell::num(0.0, "")
        } else {
            TableCell::num(
                delta,
                format!("{}{delta:+.2}", if delta >= 0.0 { "▲ " } else { "▼ " }),
            )
            .class(if delta >= 0.0 { "dx-up" } else { "dx-down" })
        };
        t.row(vec![
            TableCell::text(st.name),
            TableCell::num(mean, format!("{mean:.2}")),
            delta_cell,
            TableCell::num(up as f64, up.to_string()),
            TableCell::num(down as f64, down.to_string()),
            TableCell::num(full as f64, full.to_string()),
            TableCell::num(zero as f64, zero.to_string()),
        ]);
    }
    let cfg = &r.results.config;
    html! {
        (t.render())
        p.dx-note {
            "pass@1: the expected share of correct picks when the strategy draws uniformly among the solutions it ranks first, averaged over problems. "
            "MBR-exec and SRank compare what the solutions return on the calls the tests make; MaxPass, CodeT and B4 only which tests they pass. "
            "B4's priors: α = " (cfg.b4.alpha) ", β0 = " (cfg.b4.beta0) ". "
            "Dixit band: the solutions passing the most IDEAL tests (tests failed by some, but at most " (cfg.minority) " of the pool). “band → X, IDEAL tests only”: X sees the IDEAL tests alone; “among IDEAL passers”: X chooses among the solutions that pass every IDEAL test. "
            "Dixit loop: a simulation of the loop with " (cfg.dixit_loop.coders) " coders over " (cfg.dixit_loop.seeds) " seeds. "
            "“Unique tests” counts each distinct test once instead of by how many samples wrote it."
        }
        @if !missing.is_empty() {
            p.dx-note { "Not scored here (this report has no result of them: MBR-exec and SRank need the solutions' answers, which pass/fail verdicts do not hold, and a report written before a strategy existed has none of it): " (missing.join(", ")) "." }
        }
        (bar_chart(
            "Mean pass@1 by strategy (%)",
            &STRATEGIES.iter().filter_map(|st| {
                let mean = (st.mean)(s)?;
                Some(Bar {
                    label: st.name.to_string(),
                    value: mean,
                    shown: format!("{mean:.2} %"),
                    class: None,
                })
            }).collect::<Vec<_>>(),
            Some(100.0),
        ))
    }
}

fn band_precision(r: &EvalReport) -> Markup {
    let p = &r.results.summary.band_precision;
    let mut t = Table::new(
        "dx-band-precision",
        vec![
            Column::text("band"),
            Column::num("tests"),
            Column::num("correct"),
            Column::num("share correct"),
            Column::num("samples"),
            Column::num("correct samples"),
            Column::num("share"),
        ],
    );
    let all = p.all();
    for (name, letter, cc) in [
        ("TOO_EASY", Some('E'), &p.too_easy),
        ("IDEAL", Some('I'), &p.ideal),
        ("TOO_HARD", Some('H'), &p.too_hard),
        ("all", None, &all),
    ] {
        let share = |a: u64, b: u64| {
            if b == 0 {
                TableCell::num(f64::NAN, "–")
            } else {
                TableCell::num(a as f64 / b as f64, percent(a, b, 1, "–"))
            }
        };
        t.row(vec![
            TableCell::markup(
                html! { @if let Some(l) = letter { span class={ "sw b b-" (l) } { (l) } " " } (name) },
                name,
            ),
            TableCell::num(cc.tests as f64, thousands(cc.tests)),
            TableCell::num(cc.correct_tests as f64, thousands(cc.correct_tests)),
            share(cc.correct_tests, cc.tests),
            TableCell::num(cc.samples as f64, thousands(cc.samples)),
            TableCell::num(cc.correct_samples as f64, thousands(cc.correct_samples)),
            share(cc.correct_samples, cc.samples),
        ]);
    }
    html! {
        p { "Each generated test classified over its problem's whole pool of recorded solutions (MINORITY " (r.results.config.minority) "); a test is correct when the reference solution passes it." }
        (t.render())
    }
}

fn plots(eval: &EvalOutput) -> Markup {
    let r = &eval.report.results;
    // Problems ordered by the random baseline, so a strategy above it shows as marks above.
    let mut order: Vec<usize> = (0..r.problems.len()).collect();
    order.sort_by(|&a, &b| {
        r.problems[a]
            .random
            .value()
            .total_cmp(&r.problems[b].random.value())
            .then(a.cmp(&b))
    });
    let categories: Vec<String> = order.iter().map(|&k| r.problems[k].id.clone()).collect();
    let series: Vec<Series> = STRATEGIES
        .iter()
        .filter(|st| st.plotted && (st.mean)(&r.summary).is_some())
        .map(|st| Series {
            name: st.name.to_string(),
            values: order
                .iter()
                .map(|&k| {
                    let f = (st.of)(&r.problems[k])?;
                    (f.den > 0).then(|| 100.0 * f.value())
                })
                .collect(),
        })
        .collect();

    // Share of its problem's generated tests each solution passes, by samples.
    let bins: Vec<String> = (0..10)
        .map(|b| format!("{}–{}", b * 10, b * 10 + 10))
        .collect();
    let (mut correct, mut incorrect) = (vec![0.0; 10], vec![0.0; 10]);
    for v in &eval.problems {
        if v.tests.is_empty() {
            continue;
        }
        for ((row, s), h) in v.rows.iter().zip(&v.solutions).zip(v.hidden.chars()) {
            let passed = row.chars().filter(|&c| c == 'P').count();
            let b = (passed * 10 / v.tests.len()).min(9);
            let into = if h == 'P' {
                &mut correct
            } else {
                &mut incorrect
            };
            into[b] += f64::from(s.count);
        }
    }
    let to_series = |name: &str, v: Vec<f64>| Series {
        name: name.to_string(),
        values: v.into_iter().map(Some).collect(),
    };

    // Verdicts of every cell (hidden checks and the reference included).
    let mut counts: BTreeMap<char, u64> = BTreeMap::new();
    for v in &eval.problems {
        for (c, n) in v.verdict_counts() {
            *counts.entry(c).or_insert(0) += n;
        }
    }
    let total: u64 = counts.values().sum();
    let verdict_bars: Vec<Bar> = verdict_legend()
        .into_iter()
        .filter_map(|e| {
            let n = *counts.get(&e.code)?;
            Some(Bar {
                label: format!("{} {}", e.code, e.name),
                value: n as f64,
                shown: format!("{} ({})", thousands(n), percent(n, total, 1, "–")),
                class: Some(format!("v-{}", e.code)),
            })
        })
        .collect();

    html! {
        (dot_chart(&DotChart {
            caption: "pass@1 per problem by strategy (%), problems ordered by the random baseline",
            categories: &categories,
            series: &series,
            y_max: 100.0,
            y_label: "pass@1 %",
            counts: false,
            x_label: "problems, by the random baseline's pass@1 (hover a mark for its problem)",
            numbered: true,
        }))
        div.dx-grid {
            (histogram(
                "dx-hist-passed",
                "Share of its problem's generated tests a solution passes (%), by solution samples",
                &bins,
                &[to_series("correct (passes the hidden tests)", correct), to_series("incorrect", incorrect)],
                "solution samples",
            ))
            (bar_chart(
                &format!("Verdict mix of all {} cells", thousands(total)),
                &verdict_bars,
                None,
            ))
        }
    }
}

fn problem_table(eval: &EvalOutput) -> Markup {
    let mut t = Table::new(
        "dx-problems",
        vec![
            Column::text("problem"),
            Column::num("solutions").title("unique solutions (samples)"),
            Column::num("tests").title("unique generated tests (samples)"),
            Column::num("random %"),
            Column::num("dual agreement %"),
            Column::num("Dixit band %"),
            Column::num("Dixit loop %"),
            Column::num("IDEAL").title("IDEAL tests (✓ how many the reference passes)"),
            Column::num("TOO_HARD").title("TOO_HARD tests (✓ how many the reference passes)"),
            Column::num("compile errors")
                .title("share of cells whose solution or test does not compile"),
            Column::text("reference").title("the reference solution on the hidden tests"),
        ],
    )
    .filterable();
    for (k, (p, v)) in eval
        .report
        .results
        .problems
        .iter()
        .zip(&eval.problems)
        .enumerate()
    {
        let bp = &p.band_precision;
        let cells: u64 = (v.rows.len() * v.tests.len()) as u64;
        let ce = v
            .rows
            .iter()
            .flat_map(|r| r.chars())
            .filter(|&c| c == 'C')
            .count() as u64;
        t.row(vec![
            TableCell::markup(
                html! { a href={ "#problem/" (p.id) } data-problem=(k) { (p.id) } },
                k.to_string(),
            ),
            TableCell::num(
                v.solutions.len() as f64,
                format!("{} ({})", v.solutions.len(), p.random.den),
            ),
            TableCell::num(
                v.tests.len() as f64,
                format!(
                    "{} ({})",
                    v.tests.len(),
                    v.tests.iter().map(|t| u64::from(t.count)).sum::<u64>()
                ),
            ),
            frac_cell(p.random.num, p.random.den),
            frac_cell(p.dual_agreement.num, p.dual_agreement.den),
            frac_cell(p.dixit_band.num, p.dixit_band.den),
            frac_cell(p.dixit_loop.correct, p.dixit_loop.coders),
            TableCell::num(
                bp.ideal.tests as f64,
                format!("{} (✓ {})", bp.ideal.tests, bp.ideal.correct_tests),
            ),
            TableCell::num(
                bp.too_hard.tests as f64,
                format!("{} (✓ {})", bp.too_hard.tests, bp.too_hard.correct_tests),
            ),
            if cells == 0 {
                TableCell::num(f64::NAN, "–")
            } else {
                TableCell::num(ce as f64 / cells as f64, percent(ce, cells, 1, "–"))
            },
            if v.reference_hidden == 'P' {
                TableCell::text("✓ pass")
            } else {
                TableCell::text(format!(
                    "✗ {}",
                    super::super::html::meaning("v", v.reference_hidden)
                ))
                .class("dx-down")
            },
        ]);
    }
    html! {
        p.dx-muted { "Click a problem to open its heatmap below; click a column header to sort, type to filter (e.g. a problem number)." }
        (t.render())
    }
}

fn setup(r: &EvalReport) -> Markup {
    let s = &r.setup;
    let e = &r.execution;
    let t = &e.seconds;
    html! {
        dl.dx-kv {
            dt { "corpus" } dd { (s.corpus_format) " · sha256 " code { (s.corpus_hash) } }
            dt { "tests per sample" } dd { "first " (s.test_case_limit) " kept" }
            @if let Some(only) = &s.only { dt { "only" } dd { (only.join(", ")) } }
            @if let Some(l) = s.limit { dt { "limit" } dd { "first " (l) " problems" } }
            dt { "isolation" } dd { (s.isolation) ": " (s.isolation.describe()) }
            dt { "limits per run" } dd { "fuel " (thousands(s.limits.fuel)) " · memory " (s.limits.memory_bytes >> 20) " MiB · output " (thousands(s.limits.output_bytes)) " bytes · wall-clock safety net " (thousands(s.limits.wall_time_ms)) " ms" }
            dt { "wasmtime" } dd { (s.wasmtime) }
            dt { "Python runtime" } dd { code { (s.runtime) } }
            dt { "execution" } dd { (thousands(e.runs)) " runs in " (thousands(e.instances)) " instances " (crate::report::format::workers(e.threads, e.workers)) " · " (e.cached_problems) " of " (e.corpus.problems) " matrices from the cache" }
            dt { "wall time" } dd { (format!("{:.1} s (import {:.1}, compile check {:.1}, matrix {:.1}, scoring {:.1})", t.total, t.import, t.compile_check, t.matrix, t.scoring)) }
            dt { "fuel used" } dd { (thousands(e.fuel)) }
        }
        h3 { "Letters" }
        p.dx-muted { "Verdicts:" }
        (legend(&verdict_legend()))
        p.dx-muted { "Bands of a test over its problem's pool:" }
        (legend(&band_legend()))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::eval::scoring::{Report, ScoringConfig};
    use crate::eval::{
        CellNote, CorpusCounts, EvalSetup, Execution, Isolation, Weighted, REPORT_FORMAT,
    };
    use crate::sandbox::Limits;

    /// A small eval output with hostile text in a solution, a test and a note.
    pub(crate) fn sample(dir: &str, rows: [&str; 3], hidden: &str) -> EvalOutput {
        let v = ProblemVerdicts {
            id: "T/0".into(),
            solutions: vec![
                w("def f(x):\n    return x + 1\n", 2),
                w(
                    "def f(x):\n    return '</script><img src=x onerror=alert(1)>'\n",
                    1,
                ),
                w("def f(x):\n    while True: pass\n", 1),
            ],
            tests: vec![
                w("assert f(1) == 2", 1),
                w("assert f(0) == 0  # <b>bold</b>", 2),
            ],
            rows: rows.iter().map(|r| r.to_string()).collect(),
            hidden: hidden.into(),
            reference_row: "PW".into(),
            reference_hidden: 'P',
            notes: vec![CellNote {
                solution: Some(1),
                test: Some(0),
                note: "<img src=x onerror=alert(2)>Error".into(),
            }],
            hidden_fuel: None,
            runs: 12,
            fuel: 1000,
            outputs: None,
        };
        let results = Report::score(&[v.matrix().unwrap()], ScoringConfig::default()).unwrap();
        EvalOutput {
            dir: dir.into(),
            report: EvalReport {
                format: REPORT_FORMAT,
                setup: EvalSetup {
                    corpus_format: "codet".into(),
                    corpus_hash: "0123456789abcdef".into(),
                    test_case_limit: 5,
                    only: None,
                    limit: None,
                    problems: 1,
                    isolation: Isolation::Solution,
                    limits: Limits::default(),
                    fuel_rule: crate::eval::FuelRule::Flat,
                    wasmtime: "48.0.8".into(),
                    runtime: "runtime-digest".into(),
                },
                shard: None,
                results,
                execution: Execution {
                    corpus: CorpusCounts {
                        problems: 1,
                        solutions: 3,
                        solution_samples: 4,
                        tests: 2,
                        test_samples: 3,
                        cells: 12,
                    },
                    ..Execution::default()
                },
            },
            problems: vec![v],
        }
    }

    /// The page without its stylesheet and scripts (they have tests of their own), with the
    /// time redacted.
    pub(crate) fn snapshot_text(html: &str, prov: &Provenance) -> String {
        let main = &html[html.find("<main").unwrap()..html.find("</main>").unwrap() + 7];
        let data: Vec<&str> = html
            .match_indices("<script type=\"application/json\"")
            .map(|(k, _)| &html[k..k + html[k..].find("</script>").unwrap() + 9])
            .collect();
        crate::report::html::pretty(&format!("{main}\n{}", data.join("\n")))
            .replace(&prov.generated, "[time]")
    }

    #[test]
    fn eval_page_snapshot() {
        let prov = Provenance::now();
        let html = render_eval(&sample("/eval-out", ["PW", "WW", "TT"], "PWT"), &prov).unwrap();
        assert!(!html.contains("<img"), "hostile text reached the markup");
        assert!(!html.contains("'</script>"), "hostile text ended a script");
        insta::assert_snapshot!(snapshot_text(&html, &prov));
    }

    fn w(s: &str, count: u32) -> Weighted {
        Weighted {
            source: s.into(),
            count,
        }
    }

    #[test]
    fn common_prefix_stops_at_a_line() {
        assert_eq!(
            common_line_prefix(["def f(x):\n    return 1\n", "def f(x):\n    return 2\n"]),
            "def f(x):\n"
        );
        assert_eq!(common_line_prefix(["abc", "abd"]), "");
        assert_eq!(common_line_prefix(["only\n"]), "");
        assert_eq!(common_line_prefix(["a\nb\n", "a\nb\n"]), "a\nb\n");
        // 'é' and 'è' share their first byte.
        assert_eq!(common_line_prefix(["x\né\n", "x\nè\n"]), "x\n");
        assert_eq!(common_line_prefix(["é", "è"]), "");
    }

    #[test]
    fn notes_are_row_aligned() {
        let v = ProblemVerdicts {
            id: "T/0".into(),
            solutions: vec![w("a", 1), w("b", 1)],
            tests: vec![w("t1", 1), w("t2", 1)],
            rows: vec!["PP".into(), "RP".into()],
            hidden: "PR".into(),
            reference_row: "PP".into(),
            reference_hidden: 'P',
            notes: vec![
                CellNote {
                    solution: Some(0),
                    test: Some(1),
                    note: "NameError".into(),
                },
                CellNote {
                    solution: Some(1),
                    test: None,
                    note: "TypeError".into(),
                },
                CellNote {
                    solution: Some(1),
                    test: Some(0),
                    note: "NameError".into(),
                },
            ],
            hidden_fuel: None,
            runs: 0,
            fuel: 0,
            outputs: None,
        };
        let (names, rows) = encode_notes(&v);
        assert_eq!(names, ["NameError", "TypeError"]);
        assert_eq!(rows[&0], "  !");
        assert_eq!(rows[&1], "#! ");
        assert_eq!(bands(&v, 0.4), "HE");
    }
}
