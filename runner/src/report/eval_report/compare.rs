//! Two eval outputs compared on one page (`dixit report A B`): A is "before", B "after".
//! Problems are matched by id, solutions and tests by their text, so two evaluations of the
//! same corpus line up cell for cell even when they differ in limits, isolation or runtime.
//! Shown: the setups' differences (a diff), each strategy's mean, per problem the strategies
//! whose pass@1 changed ("flips" of what they pick), and the cells whose verdict changed; a
//! problem's changed cells open as a small matrix (`compare.js`) with the code on click.
//!
//! Embedded per problem with changed cells (`dx-c-K`):
//!
//! ```text
//! {id, prefix, sols: [rest of source per changed row], rowIdx: [[i in A, i in B]],
//!  tests: [source per changed column, or null for the hidden check], colIdx: [[j in A, j in B]],
//!  a: ["letters of A per changed row"], b: [...], ref: {a, b} or null}
//! ```

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::super::format::thousands;
use super::super::html::{diff, html, verdict_legend, Column, DiffSide, Page, Table, TableCell};
use super::super::input::ReportError;
use super::page::common_line_prefix;
use super::{EvalOutput, Provenance, STRATEGIES};
use crate::eval::ProblemVerdicts;

const COMPARE_JS: &str = include_str!("compare.js");

/// Cells of one problem present in both outputs, and those whose verdict changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CellChanges {
    /// Cells compared (matched solution × matched test, hidden checks and the reference
    /// solution's cells included).
    pub compared: u64,
    /// `(from, to)` → how many cells changed so.
    pub transitions: BTreeMap<(char, char), u64>,
    /// Solutions or tests of either side with no counterpart in the other.
    pub unmatched: u64,
}

impl CellChanges {
    /// Cells that changed.
    pub(super) fn changed(&self) -> u64 {
        self.transitions.values().sum()
    }
}

/// The changed part of one problem, for the page script.
#[derive(Serialize, Default)]
struct ChangedCells<'a> {
    id: &'a str,
    prefix: &'a str,
    sols: Vec<&'a str>,
    #[serde(rename = "rowIdx")]
    row_idx: Vec<(usize, usize)>,
    tests: Vec<Option<&'a str>>,
    #[serde(rename = "colIdx")]
    col_idx: Vec<(Option<usize>, Option<usize>)>,
    a: Vec<String>,
    b: Vec<String>,
    #[serde(rename = "ref")]
    reference: Option<RefRow>,
}

#[derive(Serialize)]
struct RefRow {
    a: String,
    b: String,
}

fn index_of(items: &[crate::eval::Weighted]) -> HashMap<&str, usize> {
    items
        .iter()
        .enumerate()
        .map(|(i, w)| (w.source.as_str(), i))
        .collect()
}

/// Lines up `a` and `b` (same problem) and finds the changed cells.
fn align<'a>(a: &'a ProblemVerdicts, b: &'a ProblemVerdicts) -> (CellChanges, ChangedCells<'a>) {
    let (bs, bt) = (index_of(&b.solutions), index_of(&b.tests));
    let rows: Vec<(usize, usize)> = a
        .solutions
        .iter()
        .enumerate()
        .filter_map(|(i, s)| bs.get(s.source.as_str()).map(|&k| (i, k)))
        .collect();
    // Columns: the hidden check (None), then matched tests.
    let mut cols: Vec<(Option<usize>, Option<usize>)> = vec![(None, None)];
    cols.extend(
        a.tests
            .iter()
            .enumerate()
            .filter_map(|(j, t)| bt.get(t.source.as_str()).map(|&k| (Some(j), Some(k)))),
    );
    let unmatched = (a.solutions.len() - rows.len())
        + (b.solutions.len() - rows.len())
        + (a.tests.len() + 1 - cols.len())
        + (b.tests.len() + 1 - cols.len());
    let chars = |s: &str| s.chars().collect::<Vec<char>>();
    let (a_rows, b_rows): (Vec<Vec<char>>, Vec<Vec<char>>) = (
        a.rows.iter().map(|r| chars(r)).collect(),
        b.rows.iter().map(|r| chars(r)).collect(),
    );
    let (a_hidden, b_hidden) = (chars(&a.hidden), chars(&b.hidden));
    let (a_ref, b_ref) = (chars(&a.reference_row), chars(&b.reference_row));
    let cell_a = |i: usize, c: &(Option<usize>, Option<usize>)| match c.0 {
        None => a_hidden[i],
        Some(j) => a_rows[i][j],
    };
    let cell_b = |i: usize, c: &(Option<usize>, Option<usize>)| match c.1 {
        None => b_hidden[i],
        Some(j) => b_rows[i][j],
    };
    let ref_a = |c: &(Option<usize>, Option<usize>)| c.0.map_or(a.reference_hidden, |j| a_ref[j]);
    let ref_b = |c: &(Option<usize>, Option<usize>)| c.1.map_or(b.reference_hidden, |j| b_ref[j]);

    let mut changes = CellChanges {
        unmatched: unmatched as u64,
        ..Default::default()
    };
    let mut changed_rows = Vec::new();
    let mut changed_cols = vec![false; cols.len()];
    let note = |x: char, y: char, changes: &mut CellChanges| {
        changes.compared += 1;
        if x != y {
            *changes.transitions.entry((x, y)).or_insert(0) += 1;
            true
        } else {
            false
        }
    };
    for &(i, k) in &rows {
        let mut any = false;
        for (c, col) in cols.iter().enumerate() {
            if note(cell_a(i, col), cell_b(k, col), &mut changes) {
                changed_cols[c] = true;
                any = true;
            }
        }
        if any {
            changed_rows.push((i, k));
        }
    }
    let mut ref_changed = false;
    for (c, col) in cols.iter().enumerate() {
        if note(ref_a(col), ref_b(col), &mut changes) {
            changed_cols[c] = true;
            ref_changed = true;
        }
    }
    let keep: Vec<&(Option<usize>, Option<usize>)> = cols
        .iter()
        .zip(&changed_cols)
        .filter_map(|(c, &k)| k.then_some(c))
        .collect();
    let prefix = common_line_prefix(
        changed_rows
            .iter()
            .map(|&(i, _)| a.solutions[i].source.as_str()),
    );
    let data = ChangedCells {
        id: &a.id,
        prefix,
        sols: changed_rows
            .iter()
            .map(|&(i, _)| &a.solutions[i].source[prefix.len()..])
            .collect(),
        row_idx: changed_rows.clone(),
        tests: keep
            .iter()
            .map(|c| c.0.map(|j| a.tests[j].source.as_str()))
            .collect(),
        col_idx: keep.iter().map(|c| **c).collect(),
        a: changed_rows
            .iter()
            .map(|&(i, _)| keep.iter().map(|c| cell_a(i, c)).collect())
            .collect(),
        b: changed_rows
            .iter()
            .map(|&(_, k)| keep.iter().map(|c| cell_b(k, c)).collect())
            .collect(),
        reference: ref_changed.then(|| RefRow {
            a: keep.iter().map(|c| ref_a(c)).collect(),
            b: keep.iter().map(|c| ref_b(c)).collect(),
        }),
    };
    (changes, data)
}

fn setup_text(e: &EvalOutput) -> String {
    let v = serde_json::json!({
        "setup": e.report.setup,
        "shard": e.report.shard,
        "scoring": e.report.results.config,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

fn pct_of(f: crate::eval::scoring::Fraction) -> String {
    if f.den == 0 {
        "–".into()
    } else {
        format!("{:.1} % ({}/{})", 100.0 * f.value(), f.num, f.den)
    }
}

/// The comparison page of `a` (before) and `b` (after).
pub fn render_comparison(
    a: &EvalOutput,
    b: &EvalOutput,
    prov: &Provenance,
) -> Result<String, ReportError> {
    let b_index: HashMap<&str, usize> = b
        .problems
        .iter()
        .enumerate()
        .map(|(k, p)| (p.id.as_str(), k))
        .collect();
    let a_ids: HashMap<&str, usize> = a
        .problems
        .iter()
        .enumerate()
        .map(|(k, p)| (p.id.as_str(), k))
        .collect();
    // (index in A, index in B) of the problems in both, in A's order.
    let common: Vec<(usize, usize)> = a
        .problems
        .iter()
        .enumerate()
        .filter_map(|(k, p)| b_index.get(p.id.as_str()).map(|&j| (k, j)))
        .collect();
    let only_a: Vec<&str> = a
        .problems
        .iter()
        .filter(|p| !b_index.contains_key(p.id.as_str()))
        .map(|p| p.id.as_str())
        .collect();
    let only_b: Vec<&str> = b
        .problems
        .iter()
        .filter(|p| !a_ids.contains_key(p.id.as_str()))
        .map(|p| p.id.as_str())
        .collect();

    // Strategy flips: per problem and strategy, pass@1 in A and in B.
    let mut flips = Table::new(
        "dx-flips",
        vec![
            Column::text("problem"),
            Column::text("strategy"),
            Column::num("A pass@1"),
            Column::num("B pass@1"),
            Column::num("change").title("B − A in points: ▲ better, ▼ worse"),
        ],
    )
    .filterable();
    let mut flip_count = 0usize;
    let mut per_strategy: Vec<(usize, usize)> = vec![(0, 0); STRATEGIES.len()];
    for &(ka, kb) in &common {
        let (pa, pb) = (
            &a.report.results.problems[ka],
            &b.report.results.problems[kb],
        );
        for (s, st) in STRATEGIES.iter().enumerate() {
            // A strategy one side has no result of is not compared.
            let (Some(fa), Some(fb)) = ((st.of)(pa), (st.of)(pb)) else {
                continue;
            };
            let delta = 100.0 * (fb.value() - fa.value());
            if delta.abs() < 1e-9 {
                continue;
            }
            flip_count += 1;
            if delta > 0.0 {
                per_strategy[s].0 += 1;
            } else {
                per_strategy[s].1 += 1;
            }
            flips.row(vec![
                TableCell::markup(
                    html! { a href={ "#changed/" (pa.id) } { (pa.id) } },
                    ka.to_string(),
                ),
                TableCell::text(st.name),
                TableCell::num(fa.value(), pct_of(fa)),
                TableCell::num(fb.value(), pct_of(fb)),
                TableCell::num(
                    delta,
                    format!("{} {delta:+.1}", if delta > 0.0 { "▲" } else { "▼" }),
                )
                .class(if delta > 0.0 { "dx-up" } else { "dx-down" }),
            ]);
        }
    }

    // Strategy means.
    let (sa, sb) = (&a.report.results.summary, &b.report.results.summary);
    let mut means = Table::new(
        "dx-compare-strategies",
        vec![
            Column::text("strategy"),
            Column::num("A pass@1 %"),
            Column::num("B pass@1 %"),
            Column::num("change"),
            Column::num("▲ problems").title("problems where B's pick is better"),
            Column::num("▼ problems").title("problems where B's pick is worse"),
        ],
    );
    for (st, (up, down)) in STRATEGIES.iter().zip(&per_strategy) {
        let (Some(ma), Some(mb)) = ((st.mean)(sa), (st.mean)(sb)) else {
            // On one side only: its mean, and nothing to compare.
            let shown = |m: Option<f64>| m.map_or_else(|| "–".to_string(), |m| format!("{m:.2}"));
            let (ma, mb) = ((st.mean)(sa), (st.mean)(sb));
            if ma.is_none() && mb.is_none() {
                continue;
            }
            means.row(vec![
                TableCell::text(st.name),
                TableCell::num(ma.unwrap_or(f64::NAN), shown(ma)),
                TableCell::num(mb.unwrap_or(f64::NAN), shown(mb)),
                TableCell::num(f64::NAN, "–").class("dx-muted"),
                TableCell::num(f64::NAN, "–"),
                TableCell::num(f64::NAN, "–"),
            ]);
            continue;
        };
        let d = mb - ma;
        let mark = if d > 1e-9 {
            "▲ "
        } else if d < -1e-9 {
            "▼ "
        } else {
            "= "
        };
        means.row(vec![
            TableCell::text(st.name),
            TableCell::num(ma, format!("{ma:.2}")),
            TableCell::num(mb, format!("{mb:.2}")),
            TableCell::num(d, format!("{mark}{d:+.2}")).class(if d > 1e-9 {
                "dx-up"
            } else if d < -1e-9 {
                "dx-down"
            } else {
                "dx-muted"
            }),
            TableCell::num(*up as f64, up.to_string()),
            TableCell::num(*down as f64, down.to_string()),
        ]);
    }

    // Changed cells per problem.
    let mut cells = Table::new(
        "dx-changed-cells",
        vec![
            Column::text("problem"),
            Column::num("cells compared"),
            Column::num("changed"),
            Column::text("changes (A→B: cells)"),
            Column::num("unmatched")
                .title("solutions or tests of one side that the other does not have"),
        ],
    )
    .filterable();
    let mut total = CellChanges::default();
    let mut data: Vec<(usize, ChangedCells)> = Vec::new();
    for &(ka, kb) in &common {
        let (pa, pb) = (&a.problems[ka], &b.problems[kb]);
        let (ch, d) = align(pa, pb);
        total.compared += ch.compared;
        total.unmatched += ch.unmatched;
        for (k, n) in &ch.transitions {
            *total.transitions.entry(*k).or_insert(0) += n;
        }
        if ch.changed() == 0 && ch.unmatched == 0 {
            continue;
        }
        let summary: Vec<String> = ch
            .transitions
            .iter()
            .map(|((x, y), n)| format!("{x}→{y}: {}", thousands(*n)))
            .collect();
        cells.row(vec![
            TableCell::markup(
                if ch.changed() > 0 {
                    html! { a href={ "#changed/" (pa.id) } data-changed=(ka) { (pa.id) } }
                } else {
                    html! { (pa.id) }
                },
                ka.to_string(),
            ),
            TableCell::num(ch.compared as f64, thousands(ch.compared)),
            TableCell::num(ch.changed() as f64, thousands(ch.changed())),
            TableCell::text(summary.join(" · ")),
            TableCell::num(ch.unmatched as f64, thousands(ch.unmatched)),
        ]);
        if ch.changed() > 0 {
            data.push((ka, d));
        }
    }

    let mut page = Page::new("dixit eval comparison")
        .subtitle(format!("A: {} → B: {}", a.dir.display(), b.dir.display()))
        .footer(format!(
            "generated {} by {} from {} and {}",
            prov.generated,
            prov.generator,
            a.dir.display(),
            b.dir.display()
        ));
    let same = flip_count == 0 && total.changed() == 0 && only_a.is_empty() && only_b.is_empty();
    page = page.lead(html! {
        div.dx-lead.(if same { "dx-good" } else { "dx-bad" }) {
            p {
                strong { (common.len()) " problems in both" }
                @if !only_a.is_empty() { " · " (only_a.len()) " only in A" }
                @if !only_b.is_empty() { " · " (only_b.len()) " only in B" }
                " · " (thousands(total.compared)) " cells compared, "
                strong { (thousands(total.changed())) " changed" }
                " · " (flip_count) " changes of a strategy's pass@1 on a problem"
            }
            @if same { p { "= The two evaluations agree on every problem, strategy and cell." } }
        }
    });
    page.section("strategies", "Strategies", html! {
        p.dx-muted { "Means over each output's own problems; ▲/▼ count the problems in both where the strategy's pass@1 rose or fell." }
        (means.render())
    });
    page.section(
        "setup",
        "Setups",
        html! {
            p.dx-muted { "What determines the results, A against B." }
            (diff(
                DiffSide { label: "A", text: &setup_text(a) },
                DiffSide { label: "B", text: &setup_text(b) },
                None,
                "split",
            ))
        },
    );
    page.section("flips", "Strategy picks that changed", html! {
        @if flip_count == 0 { p { "No strategy's pass@1 changed on any problem." } }
        @else {
            p.dx-muted { "Per problem, each strategy whose expected pass@1 differs between A and B (its pick, or the pool it draws from, changed)." }
            (flips.render())
        }
    });
    let transitions: Vec<String> = total
        .transitions
        .iter()
        .map(|((x, y), n)| format!("{x}→{y}: {}", thousands(*n)))
        .collect();
    page.section("cells", "Cells that changed", html! {
        @if total.changed() == 0 { p { "No cell changed its verdict." } }
        @else {
            p { "All changes: " (transitions.join(" · ")) }
        }
        @if !cells.rows.is_empty() {
            p.dx-muted { "Click a problem to see its changed cells: rows are solutions, columns tests (“H” the hidden check); each cell shows B's verdict, a changed cell is outlined and its hover says A → B." }
            (cells.render())
        }
        (super::super::html::legend(&verdict_legend()))
        div #dx-drill {}
    });
    if !only_a.is_empty() || !only_b.is_empty() {
        page.section(
            "unmatched",
            "Problems in one output only",
            html! {
                dl.dx-kv {
                    dt { "only in A" } dd { (only_a.join(", ")) }
                    dt { "only in B" } dd { (only_b.join(", ")) }
                }
            },
        );
    }
    #[derive(Serialize)]
    struct Meta {
        verdicts: Vec<(char, &'static str)>,
        changed: Vec<(String, usize)>,
    }
    page.data(
        "dx-meta",
        &Meta {
            verdicts: verdict_legend().iter().map(|e| (e.code, e.name)).collect(),
            changed: data.iter().map(|(k, d)| (d.id.to_string(), *k)).collect(),
        },
    )?;
    for (k, d) in &data {
        page.data(&format!("dx-c-{k}"), d)?;
    }
    page.script(COMPARE_JS);
    Ok(page.render())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Weighted;

    fn w(s: &str) -> Weighted {
        Weighted {
            source: s.into(),
            count: 1,
        }
    }

    fn pv(sols: &[&str], tests: &[&str], rows: &[&str], hidden: &str, r: &str) -> ProblemVerdicts {
        ProblemVerdicts {
            id: "T/0".into(),
            solutions: sols.iter().map(|s| w(s)).collect(),
            tests: tests.iter().map(|s| w(s)).collect(),
            rows: rows.iter().map(|s| s.to_string()).collect(),
            hidden: hidden.into(),
            reference_row: r.into(),
            reference_hidden: 'P',
            notes: Vec::new(),
            hidden_fuel: None,
            runs: 0,
            fuel: 0,
            outputs: None,
        }
    }

    #[test]
    fn comparison_page_snapshot() {
        use super::super::page::tests::{sample, snapshot_text};
        let a = sample("/eval-a", ["PW", "WW", "TT"], "PWT");
        let b = sample("/eval-b", ["PW", "WW", "PT"], "PWP");
        let prov = Provenance::now();
        let html = render_comparison(&a, &b, &prov).unwrap();
        assert!(!html.contains("<img"), "hostile text reached the markup");
        insta::assert_snapshot!(snapshot_text(&html, &prov));
    }

    #[test]
    fn cells_line_up_by_text_whatever_the_order() {
        let a = pv(
            &["s1", "s2", "s3"],
            &["t1", "t2"],
            &["PT", "WW", "PP"],
            "PWP",
            "PP",
        );
        // B: solutions and tests in another order, s3 missing, a new test t3; s1 × t2 went
        // from T to P, s2's hidden check from W to P.
        let b = pv(
            &["s2", "s1"],
            &["t3", "t2", "t1"],
            &["PWW", "PPP"],
            "PP",
            "PPP",
        );
        let (ch, d) = align(&a, &b);
        assert_eq!(
            ch.transitions,
            BTreeMap::from([(('T', 'P'), 1), (('W', 'P'), 1)])
        );
        // 2 matched solutions × (hidden + 2 tests) + the reference's 3 cells.
        assert_eq!(ch.compared, 2 * 3 + 3);
        assert_eq!(ch.unmatched, 1 + 1);
        assert_eq!(d.row_idx, [(0, 1), (1, 0)]);
        assert_eq!(d.col_idx, [(None, None), (Some(1), Some(1))]);
        assert_eq!(d.tests, [None, Some("t2")]);
        assert_eq!(d.a, ["PT", "WW"]);
        assert_eq!(d.b, ["PP", "PW"]);
        assert!(d.reference.is_none());
    }
}
