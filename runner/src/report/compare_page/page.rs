//! The comparison page's markup, from a [`PageModel`]: the headline, pass rates with their
//! intervals, the paired differences against the control, cost against pass rate, how the
//! runs ended, the problem × protocol grid linking every run's page, every cell's numbers, and
//! (when cells carry them) the seeds' own metrics.

use maud::{html, Markup};

use super::model::{CostUnit, GridRow, Group, PageModel, PairedRow, ProtocolFigures, StopCounts};
use crate::english::plural;
use crate::outcome::{CellResult, CompareReport};
use crate::report::compare::{CONTROL, MIN_PAIRED};
use crate::report::eval_report::Provenance;
use crate::report::format::thousands;
use crate::report::html::{
    scatter_chart, whisker_chart, Column, Page, ScatterChart, ScatterPoint, Table, TableCell,
    Whisker, WhiskerChart,
};
use crate::report::input::ReportError;
use crate::stats::Rate;

/// The page of `r` (figures in `m`) as one HTML document; `source` names the report it was
/// rendered from, for the footer.
pub(super) fn render(
    r: &CompareReport,
    m: &PageModel,
    source: &str,
    prov: &Provenance,
) -> Result<String, ReportError> {
    let mut page = Page::new("dixit comparison")
        .subtitle(subtitle(m))
        .lead(lead(m))
        .footer(format!(
            "generated {} by {} from {source}",
            prov.generated, prov.generator
        ));
    page.section("rates", "Pass rates", per_group(m, rates));
    page.section("paired", format!("Against {CONTROL}"), paired(m));
    page.section(
        "cost",
        "Cost and pass rate",
        per_group(m, |g| cost(g, m.cost)),
    );
    page.section("stops", "How the runs ended", per_group(m, stops));
    page.section(
        "decisions",
        "What each shipped implementation rests on",
        per_group(m, decisions),
    );
    page.section("grid", "Problems × protocols", per_group(m, grid));
    page.section("cells", "Every cell", cells(r));
    if let Some(metrics) = seed_metrics(r) {
        page.section("metrics", "Seed metrics", metrics);
    }
    Ok(page.render())
}

/// The seeds' own metrics per protocol (the band's live precision, DebateCoder's convergence
/// by epoch, the repair blog's last-worse-than-best rate, HillClimber's own tests against the
/// hidden ones), over the development problems whose cells carry them; none: no section.
fn seed_metrics(r: &CompareReport) -> Option<Markup> {
    let measures = crate::report::compare::seed_metrics(r);
    if measures.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "dx-metrics",
        vec![
            Column::text("protocol"),
            Column::text("measure"),
            Column::text("over the problems")
                .title("a share of problems with its 95 % Wilson interval, a pooled ratio, or a mean per problem"),
        ],
    );
    for (p, totals) in &measures {
        for (name, total) in totals {
            t.row(vec![
                TableCell::text(p.as_str()),
                TableCell::text(name),
                TableCell::text(total.to_string()),
            ]);
        }
    }
    Some(html! {
        p.dx-muted { "Each protocol's own measures, as its seed defines them: a share of problems (with its 95 % Wilson interval), a ratio pooled over the problems, or a mean per problem. The blind overlap counts the distinct calls the hidden tests make (function and arguments, as Python compares them) that the run's own tests make too." }
        (t.render())
    })
}

/// `single, dixit, repair on 3 projects (1 held out)`.
fn subtitle(m: &PageModel) -> String {
    let names: Vec<&str> = m.protocols.iter().map(|(p, _)| p.as_str()).collect();
    let mut s = format!(
        "{} on {}",
        names.join(", "),
        plural(m.projects, "project", "projects")
    );
    if m.held_out > 0 {
        s.push_str(&format!(" ({} held out)", m.held_out));
    }
    s
}

/// The share that passed, in percent, from the counts: `100 × rate` can fall just below a half
/// (23/40 is 57.49999… as a float) and round otherwise than the terminal's table does.
fn percent_of(r: &Rate) -> f64 {
    100.0 * r.passed as f64 / r.n.max(1) as f64
}

/// `6/10 · 60 % [31–83]`, or what is missing.
fn rate_text(r: &Rate) -> String {
    if r.n == 0 {
        return "no problem with hidden tests".into();
    }
    format!(
        "{}/{} · {:.0} % [{:.0}–{:.0}]",
        r.passed,
        r.n,
        percent_of(r),
        100.0 * r.interval.low,
        100.0 * r.interval.high
    )
}

/// The headline: what was compared, how many cells did not run or stopped for a person, and
/// what "shipped" means per protocol (the rates follow at once, as a plot).
fn lead(m: &PageModel) -> Markup {
    let troubled = m
        .groups
        .iter()
        .flat_map(|g| &g.protocols)
        .any(|p| p.stops.not_run > 0 || p.stops.interrupted > 0);
    html! {
        div.dx-lead.(if troubled { "dx-warn" } else { "" }) {
            p {
                strong { (plural(m.projects, "project", "projects")) }
                @if m.held_out > 0 { " (" (m.held_out) " held out, reported apart)" }
                " × "
                strong { (plural(m.protocols.len(), "protocol", "protocols")) }
                ". A problem counts as solved when the implementation its run ships passes every hidden test."
            }
            @let stopped = stop_words(m);
            @if !stopped.is_empty() {
                p {
                    (crate::english::and_list(&stopped)) "; per protocol in "
                    a href="#stops" { "How the runs ended" } "."
                }
            }
            @if m.settings.is_empty() {
                p.dx-muted {
                    "The comparison file records no settings: each run's page (linked from the grid) names its agents."
                }
            }
            details {
                summary { "What each protocol ships" }
                dl.dx-kv {
                    @for (p, rule) in &m.protocols {
                        dt { (p.as_str()) }
                        dd { (rule.unwrap_or("(a protocol this version does not know)")) }
                    }
                }
            }
            @if !m.settings.is_empty() {
                details #settings {
                    summary { "What each protocol ran with" }
                    p.dx-muted { "Each run's dixit.toml, with the defaults filled in." }
                    dl.dx-kv {
                        @for (p, sets) in &m.settings {
                            @for (lines, n) in sets {
                                dt { (p.as_str()) br; span.dx-muted { (plural(*n, "run", "runs")) } }
                                dd { @for line in lines { code { (line) } br; } }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// What did not end normally, over every group: `2 runs stopped for human judgement`, `1 at a
/// cap`, `1 cell did not run`; nothing when every cell ran to its end.
fn stop_words(m: &PageModel) -> Vec<String> {
    let sum = |f: fn(&StopCounts) -> usize| -> usize {
        m.groups
            .iter()
            .flat_map(|g| &g.protocols)
            .map(|p| f(&p.stops))
            .sum()
    };
    let mut out = Vec::new();
    let human = sum(|s| s.human_needed);
    if human > 0 {
        out.push(format!(
            "{} stopped for human judgement",
            plural(human, "run", "runs")
        ));
    }
    let parts: [(usize, &str, &str); 4] = [
        (
            sum(|s| s.capped),
            "run stopped at a cap",
            "runs stopped at a cap",
        ),
        (
            sum(|s| s.run_failed + s.other),
            "run ended otherwise (failed or unknown)",
            "runs ended otherwise (failed or unknown)",
        ),
        (
            sum(|s| s.interrupted),
            "run was interrupted",
            "runs were interrupted",
        ),
        (
            sum(|s| s.not_run + s.skipped),
            "cell did not run (skipped or failed to start)",
            "cells did not run (skipped or failed to start)",
        ),
    ];
    for (n, one, many) in parts {
        if n > 0 {
            out.push(plural(n, one, many));
        }
    }
    out
}

/// `body(group)` for every group, each under its own heading when there are several.
fn per_group(m: &PageModel, body: impl Fn(&Group) -> Markup) -> Markup {
    html! {
        @for g in &m.groups {
            @if m.groups.len() > 1 { h3 { (g.label) } }
            (body(g))
        }
    }
}

/// A group's rates: the dot-and-whisker plot and the same numbers as a table.
fn rates(g: &Group) -> Markup {
    let rows: Vec<Whisker> = g
        .protocols
        .iter()
        .map(|p| Whisker {
            label: p.protocol.as_str().to_string(),
            value: (p.rate.n > 0).then_some(100.0 * p.rate.rate),
            interval: (p.rate.n > 0)
                .then_some((100.0 * p.rate.interval.low, 100.0 * p.rate.interval.high)),
            shown: rate_text(&p.rate),
            key: p.protocol.as_str().to_string(),
        })
        .collect();
    let ticks: Vec<(f64, String)> = (0..=5)
        .map(|k| (20.0 * k as f64, format!("{} %", 20 * k)))
        .collect();
    let mut t = Table::new(
        format!("dx-rates-{}", g.key),
        vec![
            Column::text("protocol"),
            Column::num("problems").title("problems whose run has hidden tests"),
            Column::num("solved").title("the shipped implementation passes every hidden test"),
            Column::num("rate"),
            Column::num("95 % interval").title("Wilson score interval"),
        ],
    );
    for p in &g.protocols {
        let r = &p.rate;
        let judged = r.n > 0;
        t.row(vec![
            TableCell::text(p.protocol.as_str()),
            TableCell::num(r.n as f64, r.n.to_string()),
            TableCell::num(r.passed as f64, r.passed.to_string()),
            TableCell::num(
                if judged { r.rate } else { f64::NAN },
                if judged {
                    format!("{:.0} %", percent_of(r))
                } else {
                    "–".into()
                },
            ),
            TableCell::num(
                if judged { r.interval.low } else { f64::NAN },
                if judged {
                    format!(
                        "[{:.0} %, {:.0} %]",
                        100.0 * r.interval.low,
                        100.0 * r.interval.high
                    )
                } else {
                    "–".into()
                },
            ),
        ]);
    }
    html! {
        div.dx-rates id={ "dx-rates-plot-" (g.key) } {
            (whisker_chart(&WhiskerChart {
                caption: "Shipped implementation passes every hidden test (95 % Wilson interval)",
                rows: &rows,
                domain: (0.0, 100.0),
                ticks: &ticks,
                reference: None,
                x_label: "problems solved, %",
            }))
        }
        (t.render())
    }
}

/// The paired differences against the control: a whisker around 0 per protocol (the interval
/// only with [`MIN_PAIRED`] pairs or more) and the table of `dixit compare`.
fn paired(m: &PageModel) -> Markup {
    if !m.has_control {
        return html! {
            p { "No " code { (CONTROL) } " in this comparison: there is nothing to pair the protocols with." }
        };
    }
    if m.paired.is_empty() {
        return html! {
            p { "No development problem where " code { (CONTROL) } " and another protocol both shipped an implementation judged by hidden tests." }
        };
    }
    let rows: Vec<Whisker> = m
        .paired
        .iter()
        .map(|p| Whisker {
            label: p.protocol.as_str().to_string(),
            value: Some(100.0 * p.paired.difference),
            interval: p.has_interval().then_some((
                100.0 * p.paired.interval.low,
                100.0 * p.paired.interval.high,
            )),
            shown: difference_text(p),
            key: p.protocol.as_str().to_string(),
        })
        .collect();
    let ticks: Vec<(f64, String)> = (-2..=2)
        .map(|k| {
            let label = if k == 0 {
                "0".to_string()
            } else {
                format!("{:+}", 50 * k)
            };
            (50.0 * k as f64, label)
        })
        .collect();
    let mut t = Table::new(
        "dx-paired",
        vec![
            Column::text("protocol"),
            Column::num("problems").title("development problems both ran with hidden tests"),
            Column::num("difference").title(format!("its rate minus {CONTROL}'s, in points")),
            Column::num("95 % interval").title(
                "paired percentile bootstrap over the problems (10 000 resamples, a fixed seed)",
            ),
            Column::num("only it").title(format!("solved by it, not by {CONTROL}")),
            Column::num(format!("only {CONTROL}")).title(format!("solved by {CONTROL}, not by it")),
            Column::num("both"),
            Column::num("neither"),
            Column::num("p").title("exact McNemar (sign) test, two-sided"),
        ],
    );
    for p in &m.paired {
        let d = &p.paired;
        t.row(vec![
            TableCell::text(p.protocol.as_str()),
            TableCell::num(d.n as f64, d.n.to_string()),
            TableCell::num(d.difference, format!("{:+.0} pts", 100.0 * d.difference)),
            if p.has_interval() {
                TableCell::num(
                    d.interval.low,
                    format!(
                        "[{:+.0}, {:+.0}]",
                        100.0 * d.interval.low,
                        100.0 * d.interval.high
                    ),
                )
            } else {
                TableCell::num(f64::NAN, format!("too few problems (under {MIN_PAIRED})"))
            },
            TableCell::num(d.only_a as f64, d.only_a.to_string()),
            TableCell::num(d.only_b as f64, d.only_b.to_string()),
            TableCell::num(d.both as f64, d.both.to_string()),
            TableCell::num(d.neither as f64, d.neither.to_string()),
            TableCell::num(d.p_value, format!("{:.3}", d.p_value)),
        ]);
    }
    let short = m.paired.iter().any(|p| !p.has_interval());
    html! {
        p.dx-muted {
            "Problem by problem, on the development problems where both shipped an implementation judged by hidden tests: each protocol's rate minus "
            code { (CONTROL) } "'s, with a 95 % paired bootstrap interval, and the exact McNemar test on the problems only one of the two solved."
        }
        @if short {
            p.dx-note {
                "Below " (MIN_PAIRED) " problems there is no interval: the bootstrap's percentiles would describe the resampling more than the protocols (one problem gives [+100, +100]). Those rows show the difference alone."
            }
        }
        div id="dx-paired-plot" {
            (whisker_chart(&WhiskerChart {
                caption: &format!("Difference from {CONTROL}, in points"),
                rows: &rows,
                domain: (-100.0, 100.0),
                ticks: &ticks,
                reference: Some(0.0),
                x_label: &format!("← {CONTROL} solves more · it solves more →"),
            }))
        }
        (t.render())
    }
}

/// `+30 pts [+10, +50] · p 0.375`, or the difference alone with why.
fn difference_text(p: &PairedRow) -> String {
    let d = &p.paired;
    if p.has_interval() {
        format!(
            "{:+.0} pts [{:+.0}, {:+.0}] · p {:.3}",
            100.0 * d.difference,
            100.0 * d.interval.low,
            100.0 * d.interval.high,
            d.p_value
        )
    } else {
        format!(
            "{:+.0} pts · {}: too few for an interval",
            100.0 * d.difference,
            plural(d.n as usize, "problem", "problems")
        )
    }
}

/// A group's cost against its pass rate: one labelled point per protocol that ran, and the
/// numbers as a table.
fn cost(g: &Group, unit: CostUnit) -> Markup {
    let points: Vec<ScatterPoint> = g
        .protocols
        .iter()
        .filter(|p| p.rate.n > 0)
        .filter_map(|p| {
            let mean = p.mean(unit)?;
            Some(ScatterPoint {
                label: p.protocol.as_str().to_string(),
                x: mean,
                y: 100.0 * p.rate.rate,
                title: format!(
                    "{}: {:.1} {} per problem, {}",
                    p.protocol,
                    mean,
                    unit.words(),
                    rate_text(&p.rate)
                ),
                key: p.protocol.as_str().to_string(),
            })
        })
        .collect();
    let mut t = Table::new(
        format!("dx-cost-{}", g.key),
        vec![
            Column::text("protocol"),
            Column::num("runs"),
            Column::num("calls / problem"),
            Column::num("tokens / problem"),
            Column::num("cost $"),
            Column::num("time s"),
            Column::num("solved"),
        ],
    );
    for p in &g.protocols {
        let mean = |u| p.mean(u).map_or("–".to_string(), |m| format!("{m:.1}"));
        t.row(vec![
            TableCell::text(p.protocol.as_str()),
            TableCell::num(p.stops.ran() as f64, p.stops.ran().to_string()),
            TableCell::num(
                p.mean(CostUnit::Calls).unwrap_or(f64::NAN),
                mean(CostUnit::Calls),
            ),
            TableCell::num(
                p.mean(CostUnit::Tokens).unwrap_or(f64::NAN),
                mean(CostUnit::Tokens),
            ),
            TableCell::num(p.usd, format!("{:.4}", p.usd)),
            TableCell::num(p.seconds, format!("{:.1}", p.seconds)),
            TableCell::num(p.rate.rate, rate_text(&p.rate)),
        ]);
    }
    let why = match unit {
        CostUnit::Tokens => "tokens (prompt and completion) per problem",
        CostUnit::Calls => "model calls per problem (no run counted tokens)",
    };
    html! {
        @if points.is_empty() {
            p { "No protocol both ran and was judged by hidden tests here." }
        } @else {
            div id={ "dx-cost-plot-" (g.key) } {
                (scatter_chart(&ScatterChart {
                    caption: &format!("Mean {why} against the share of problems solved"),
                    points: &points,
                    x_label: &format!("mean {} per problem", unit.words()),
                    x_counts: true,
                    y_label: "problems solved, %",
                    y_max: 100.0,
                }))
            }
        }
        (t.render())
    }
}

/// Per protocol, what separated each shipped implementation from the run's others (its tests,
/// the agreement of answers, a tie, nothing to choose), against what the hidden tests said: so
/// one sees whether the tests or the selection earned a protocol's passes.
fn decisions(g: &Group) -> Markup {
    let mut columns = vec![Column::text("protocol")];
    let bases = g
        .protocols
        .first()
        .map(|p| p.bases.clone())
        .unwrap_or_default();
    for b in &bases {
        columns.push(
            Column::num(b.basis.words())
                .title("shipped implementations that pass every hidden test ✓ / fail one ✗"),
        );
    }
    let mut t = Table::new(format!("dx-decisions-{}", g.key), columns);
    for p in &g.protocols {
        let mut row = vec![TableCell::text(p.protocol.as_str())];
        for b in &p.bases {
            row.push(TableCell::num(
                b.pass as f64,
                if b.pass + b.fail == 0 {
                    "–".to_string()
                } else {
                    format!("{} ✓ / {} ✗", b.pass, b.fail)
                },
            ));
        }
        t.row(row);
    }
    html! {
        p.dx-muted {
            "What picked each shipped implementation over the run's others: "
            strong { "tests" } " it passes more of (the IDEAL suite, CodeT's test cases), "
            strong { "agreement" } " of answers where the tests passed all alike (SRank), "
            strong { "a tie" } " broken by agent order, or " strong { "one implementation" }
            " to ship. A cell's mark in the grid names its rule on hover; every cell's is in the table below."
        }
        (t.render())
    }
}

/// How a group's cells ended, per protocol: nothing hidden.
fn stops(g: &Group) -> Markup {
    let mut t = Table::new(
        format!("dx-stops-{}", g.key),
        vec![
            Column::text("protocol"),
            Column::num("ran"),
            Column::num("done").title("a result with nothing to decide first"),
            Column::num("human stop").title("stopped for human judgement"),
            Column::num("capped").title("a round or budget cap stopped it (resumable)"),
            Column::num("run failed").title("a failure outside dixit (a backend) stopped it"),
            Column::num("interrupted").title("a signal stopped it (resumable)"),
            Column::num("did not run").title("the run failed to start or broke"),
            Column::num("skipped").title("the protocol cannot run on the project"),
        ],
    );
    for p in &g.protocols {
        let s = &p.stops;
        let n = |k: usize| TableCell::num(k as f64, k.to_string());
        let mut row = vec![
            TableCell::text(p.protocol.as_str()),
            n(s.ran()),
            n(s.done),
            n(s.human_needed),
            n(s.capped),
            n(s.run_failed),
            n(s.interrupted),
            n(s.not_run),
            n(s.skipped),
        ];
        if s.other > 0 {
            row[1] = TableCell::num(s.ran() as f64, format!("{} ({} other)", s.ran(), s.other));
        }
        t.row(row);
    }
    html! {
        p.dx-muted { "Every cell of every protocol, by how its run ended. A run that stopped for a person or at a cap still shipped what it had: the rates count it." }
        (t.render())
    }
}

/// A group's problem × protocol grid: each cell's mark (✓/✗ or why nothing ran) and how its
/// run ended, a link to its run page, the details on hover.
fn grid(g: &Group) -> Markup {
    let protocols: Vec<&ProtocolFigures> = g.protocols.iter().collect();
    html! {
        div.dx-table-wrap {
            table.dx-table.dx-cmp-grid id={ "dx-grid-" (g.key) } {
                thead { tr {
                    th scope="col" { "project" }
                    @for p in &protocols { th scope="col" { (p.protocol.as_str()) } }
                } }
                tbody {
                    @for row in &g.rows { (grid_row(row)) }
                }
            }
        }
        p.dx-note {
            "✓ the shipped implementation passes every hidden test · ✗ it fails one · – no hidden tests or nothing shipped · "
            "below the mark, a run that did not end normally: human stop, capped, run failed, interrupted · "
            "skipped / failed: no run (hover for why). A mark links to its run's page."
        }
    }
}

fn grid_row(row: &GridRow) -> Markup {
    html! {
        tr {
            th scope="row" { (row.project) }
            @for c in &row.cells {
                td class=(c.mark.class()) data-project=(row.project) data-protocol=(c.protocol.as_str())
                    data-mark=(c.mark.key()) data-stop=[c.stop.map(|s| s.key())] title=(c.title) {
                    @let stop = c.stop.map(|s| s.words()).filter(|w| !w.is_empty());
                    @match &c.href {
                        Some(href) => {
                            a.dx-mark href=(href) {
                                span.dx-sym { (c.mark.shown()) }
                                @if let Some(w) = stop { span.dx-stopkind { (w) } }
                            }
                        }
                        None => {
                            span.dx-mark {
                                span.dx-sym { (c.mark.shown()) }
                                @if let Some(w) = stop { span.dx-stopkind { (w) } }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Every cell as `dixit compare`'s table has it, filterable: the numbers behind the plots.
fn cells(r: &CompareReport) -> Markup {
    let mut t = Table::new(
        "dx-cells",
        vec![
            Column::text("project"),
            Column::text("protocol"),
            Column::text("shipped"),
            Column::num("hidden tests").title("hidden tests the shipped implementations pass"),
            Column::num("calls"),
            Column::num("tokens"),
            Column::num("cost $"),
            Column::num("time s"),
            Column::text("stop"),
            Column::text("rests on").title("the rule that picked what shipped, and what it read"),
        ],
    )
    .filterable();
    for c in &r.cells {
        let project = if c.holdout {
            format!("{} (held out)", c.project)
        } else {
            c.project.clone()
        };
        let mut row = vec![
            TableCell::text(project),
            TableCell::text(c.protocol.as_str()),
        ];
        match &c.result {
            CellResult::Ran(run) => {
                let tokens = run.prompt_tokens + run.completion_tokens;
                let shipped = match (&run.shipped, run.shipped_passes) {
                    (Some(s), Some(true)) => format!("{s} ✓"),
                    (Some(s), Some(false)) => format!("{s} ✗"),
                    (Some(s), None) => s.clone(),
                    (None, _) => "–".into(),
                };
                row.extend([
                    TableCell::text(shipped),
                    TableCell::num(
                        run.hidden_passed as f64,
                        format!("{}/{}", run.hidden_passed, run.hidden_total),
                    ),
                    TableCell::num(run.calls as f64, thousands(run.calls)),
                    TableCell::num(tokens as f64, thousands(tokens)),
                    TableCell::num(run.usd, format!("{:.4}", run.usd)),
                    TableCell::num(run.seconds, format!("{:.1}", run.seconds)),
                    TableCell::text(&run.stop),
                    TableCell::text(
                        run.decision
                            .as_ref()
                            .map(|d| format!("{}: {}", d.basis.words(), d.words))
                            .unwrap_or_else(|| "–".into()),
                    ),
                ]);
            }
            CellResult::Skipped { why } => {
                row.extend(empty_numbers());
                row.push(TableCell::text(format!("skipped: {why}")));
                row.push(TableCell::text("–"));
            }
            CellResult::Failed { error } => {
                row.extend(empty_numbers());
                row.push(TableCell::text(format!("failed to run: {error}")));
                row.push(TableCell::text("–"));
            }
        }
        t.row(row);
    }
    t.render()
}

/// The numeric cells of a cell that did not run.
fn empty_numbers() -> Vec<TableCell> {
    let mut v = vec![TableCell::text("–")];
    v.extend((0..5).map(|_| TableCell::num(f64::NAN, "–")));
    v
}
