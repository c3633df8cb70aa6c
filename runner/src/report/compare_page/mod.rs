//! The comparison page (`DIR/report.html` beside `DIR/compare.json`): what `dixit compare`
//! found, for a person deciding which protocol to trust, built from the pieces in
//! [`super::html`] and the same sums as the text table.
//!
//! Data flow: [`CompareReport`] → [`PageModel::new`] (rates, stops, costs, paired
//! differences, the grid with its links) → [`render_compare_page`] → one self-contained HTML
//! file. The CLI writes it whenever it writes `compare.json` (an unsharded run or a merge).
//!
//! - `model.rs`: [`PageModel`], the figures.
//! - `link.rs`: links to each cell's run page, relative where possible, percent-encoded.
//! - `page.rs`: the markup: headline, rate intervals, paired differences, cost against pass
//!   rate, stops, the problem × protocol grid, every cell, and room for the seeds' metrics.

mod link;
mod model;
mod page;

use std::path::Path;

pub use link::{encode_segment, run_page_href};
pub use model::{
    CostUnit, GridCell, GridRow, Group, Mark, PageModel, PairedRow, ProtocolFigures, StopCounts,
    StopKind,
};

use super::eval_report::Provenance;
use super::input::ReportError;
use crate::config::Arm;
use crate::outcome::CompareReport;

/// The comparison page's file name, in the folder of `compare.json`.
pub const COMPARE_PAGE: &str = "report.html";

/// The page of `report` for `page_dir/report.html`, as one HTML document: its links to the
/// runs' pages are made from `page_dir`, and `shipped_rule` says what each protocol's runs
/// ship (the CLI asks the protocols).
pub fn render_compare_page(
    report: &CompareReport,
    page_dir: &Path,
    shipped_rule: &dyn Fn(&Arm) -> Option<&'static str>,
    prov: &Provenance,
) -> Result<String, ReportError> {
    let model = PageModel::new(report, page_dir, shipped_rule);
    let source = format!("the comparison in {}", page_dir.display());
    page::render(report, &model, &source, prov)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::outcome::{CellResult, CellRun, CompareCell, COMPARE_FORMAT};

    const HOSTILE: &str = "<script>x</script>";

    fn run(dir: &str, exit: &str, stop: &str, passes: Option<bool>) -> CellResult {
        CellResult::Ran(CellRun {
            run_id: "r".into(),
            run_dir: PathBuf::from(dir),
            stop: stop.into(),
            exit: exit.into(),
            coders: 1,
            shipped: Some("coder-1".into()),
            shipped_passes: passes,
            all_hidden: usize::from(passes == Some(true)),
            hidden_passed: usize::from(passes == Some(true)),
            hidden_total: 1,
            calls: 4,
            prompt_tokens: 100,
            completion_tokens: 20,
            usd: 0.01,
            seconds: 2.5,
            decision: Some(crate::outcome::Decision {
                rule: "srank_ideal_passers".into(),
                basis: if passes == Some(true) {
                    crate::outcome::Basis::Tests
                } else {
                    crate::outcome::Basis::Tie
                },
                words: format!("coder-1, picked by `srank_ideal_passers` {HOSTILE}"),
            }),
            metrics: None,
            settings: None,
        })
    }

    fn cell(index: usize, project: &str, protocol: &str, result: CellResult) -> CompareCell {
        CompareCell {
            index,
            project: project.into(),
            protocol: Arm::new(protocol),
            holdout: false,
            result,
        }
    }

    /// Three development projects (one with a hostile name) and one held out, under single,
    /// dixit and blind: a skipped cell, a cell that failed to run, a human stop, a cap.
    fn sample() -> CompareReport {
        let mut cells = vec![
            cell(0, "alpha", "single", run("/cmp/runs/alpha/1", "done", "finished", Some(false))),
            cell(1, "alpha", "dixit", run("/cmp/runs/alpha/2", "done", "converged: all too easy", Some(true))),
            cell(2, "alpha", "blind", CellResult::Skipped { why: "no hidden/ folder: blind needs one".into() }),
            cell(3, HOSTILE, "single", run("/cmp/runs/<script>x</script>/3", "done", "finished", Some(true))),
            cell(4, HOSTILE, "dixit", run(
                "/cmp/runs/<script>x</script>/4",
                "human_needed",
                "human judgement needed: coder-2 cannot pass test 3 <img src=x onerror=alert(1)>",
                Some(false),
            )),
            cell(5, HOSTILE, "blind", CellResult::Failed { error: "backend: connection refused".into() }),
            cell(6, "gamma", "single", run("/elsewhere/gamma/6", "done", "finished", None)),
            cell(7, "gamma", "dixit", run("/cmp/runs/gamma/7", "capped", "round cap (4 rounds)", Some(true))),
            cell(8, "gamma", "blind", run("/cmp/runs/javascript:alert(1)/8", "done", "verified", Some(true))),
        ];
        for (k, protocol) in ["single", "dixit", "blind"].into_iter().enumerate() {
            let mut c = cell(
                9 + k,
                "held",
                protocol,
                run("/cmp/runs/held/9", "done", "finished", Some(true)),
            );
            c.holdout = true;
            cells.push(c);
        }
        CompareReport {
            format: COMPARE_FORMAT.into(),
            projects: vec![
                "alpha".into(),
                HOSTILE.into(),
                "gamma".into(),
                "held".into(),
            ],
            protocols: ["single", "dixit", "blind"].map(Arm::new).to_vec(),
            shard: None,
            cells,
        }
    }

    /// The page's `<main>`, a line per block, its time of making replaced.
    fn main_text(html: &str, prov: &Provenance) -> String {
        let main = &html[html.find("<main").unwrap()..html.find("</main>").unwrap() + 7];
        crate::report::html::pretty(main).replace(&prov.generated, "[time]")
    }

    fn rule(p: &Arm) -> Option<&'static str> {
        (p.as_str() != "blind").then_some("the first coder")
    }

    fn figures<'a>(g: &'a Group, protocol: &str) -> &'a ProtocolFigures {
        g.protocols
            .iter()
            .find(|p| p.protocol.as_str() == protocol)
            .unwrap()
    }

    #[test]
    fn the_model_counts_what_the_table_counts_and_every_stop() {
        let m = PageModel::new(&sample(), Path::new("/cmp"), &rule);
        assert_eq!((m.projects, m.held_out), (4, 1));
        assert_eq!(
            m.groups.iter().map(|g| g.label).collect::<Vec<_>>(),
            ["development", "held out"]
        );
        let dev = &m.groups[0];
        assert_eq!(dev.rows.len(), 3);
        // dixit: passes on alpha and gamma (capped, but it shipped), fails at the human stop.
        let dixit = figures(dev, "dixit");
        assert_eq!((dixit.rate.passed, dixit.rate.n), (2, 3));
        assert_eq!(
            dixit.stops,
            StopCounts {
                done: 1,
                human_needed: 1,
                capped: 1,
                ..StopCounts::default()
            }
        );
        // What dixit's judged results rest on: its tests picked both passes, a tie the failure.
        let count = |b: crate::outcome::Basis| {
            dixit
                .bases
                .iter()
                .find(|c| c.basis == b)
                .map(|c| (c.pass, c.fail))
        };
        assert_eq!(count(crate::outcome::Basis::Tests), Some((2, 0)));
        assert_eq!(count(crate::outcome::Basis::Tie), Some((0, 1)));
        // single: gamma has no hidden tests, so two problems are judged.
        let single = figures(dev, "single");
        assert_eq!((single.rate.passed, single.rate.n), (1, 2));
        let blind = figures(dev, "blind");
        assert_eq!(
            (blind.stops.skipped, blind.stops.not_run, blind.stops.ran()),
            (1, 1, 1)
        );
        assert_eq!(m.cost, CostUnit::Tokens);
        assert_eq!(single.mean(CostUnit::Tokens), Some(120.0));
        // Paired on the development problems only, and too few for an interval.
        assert_eq!(
            m.paired
                .iter()
                .map(|p| (p.protocol.as_str(), p.paired.n, p.has_interval()))
                .collect::<Vec<_>>(),
            [("dixit", 2, false)]
        );
        // The grid: marks, stops, links (relative under /cmp, else file://), none without a run.
        let hostile = &dev.rows[1];
        assert_eq!(hostile.project, HOSTILE);
        let marks: Vec<(Mark, Option<StopKind>, Option<&str>)> = hostile
            .cells
            .iter()
            .map(|c| (c.mark, c.stop, c.href.as_deref()))
            .collect();
        assert_eq!(
            marks,
            [
                (
                    Mark::Pass,
                    Some(StopKind::Done),
                    Some("runs/%3Cscript%3Ex%3C/script%3E/3/report.html")
                ),
                (
                    Mark::Fail,
                    Some(StopKind::HumanNeeded),
                    Some("runs/%3Cscript%3Ex%3C/script%3E/4/report.html")
                ),
                (Mark::Failed, None, None),
            ]
        );
        let gamma = &dev.rows[2];
        assert_eq!(
            gamma.cells[0].href.as_deref(),
            Some("file:///elsewhere/gamma/6/report.html")
        );
        assert_eq!(gamma.cells[0].mark, Mark::Unjudged);
        assert_eq!(
            gamma.cells[2].href.as_deref(),
            Some("runs/javascript%3Aalert%281%29/8/report.html")
        );
        assert!(dev.rows[0].cells[2]
            .title
            .contains("skipped: no hidden/ folder"));
        insta::assert_debug_snapshot!(m);
    }

    #[test]
    fn the_page_escapes_what_agents_and_benchmarks_wrote() {
        let prov = Provenance::now();
        let mut r = sample();
        // A model name is the user's, but the page treats it as any other text.
        if let Some(CellResult::Ran(run)) = r.cells.iter_mut().map(|c| &mut c.result).next() {
            run.settings = Some(vec![
                "[dixit] coders = 3".into(),
                format!("3 × coder: model {HOSTILE}"),
            ]);
        }
        let html = render_compare_page(&r, Path::new("/cmp"), &rule, &prov).unwrap();
        assert!(!html.contains("<script>x"), "a project name became markup");
        assert!(!html.contains("<img"), "a stop became markup");
        assert!(html.contains("&lt;script&gt;x&lt;/script&gt;"));
        // Every link is a run page: relative, or an absolute file: URL; never a scheme of its own.
        let hrefs: Vec<&str> = html
            .split("href=\"")
            .skip(1)
            .map(|h| &h[..h.find('"').unwrap()])
            .filter(|h| !h.starts_with('#') && *h != "data:,")
            .collect();
        assert_eq!(hrefs.len(), 7 + 3, "{hrefs:?}");
        for h in &hrefs {
            assert!(h.ends_with("/report.html"), "{h}");
            let scheme = h.split('/').next().unwrap();
            assert!(!scheme.contains(':') || h.starts_with("file:///"), "{h}");
        }
        insta::assert_snapshot!(main_text(&html, &prov));
    }

    #[test]
    fn enough_pairs_draw_an_interval_around_zero() {
        // Twelve problems: dixit solves 1..=9, single 7..=12.
        let mut cells = Vec::new();
        for k in 1..=12 {
            let p = format!("p{k}");
            cells.push(cell(
                2 * k,
                &p,
                "single",
                run("/r", "done", "finished", Some(k >= 7)),
            ));
            cells.push(cell(
                2 * k + 1,
                &p,
                "dixit",
                run("/r", "done", "converged", Some(k <= 9)),
            ));
        }
        let r = CompareReport {
            format: COMPARE_FORMAT.into(),
            projects: (1..=12).map(|k| format!("p{k}")).collect(),
            protocols: ["single", "dixit"].map(Arm::new).to_vec(),
            shard: None,
            cells,
        };
        let m = PageModel::new(&r, Path::new("/cmp"), &rule);
        assert!(m.paired[0].has_interval());
        let html = render_compare_page(&r, Path::new("/cmp"), &rule, &Provenance::now()).unwrap();
        let plot = &html[html.find("id=\"dx-paired-plot\"").unwrap()..];
        let plot = &plot[..plot.find("</figure>").unwrap()];
        assert_eq!(
            plot.matches("class=\"dx-ci\"").count(),
            3,
            "a line and two caps"
        );
        assert_eq!(plot.matches("class=\"dx-ref\"").count(), 1, "the zero line");
        let rates = &html[html.find("id=\"dx-rates-plot-all\"").unwrap()..];
        let rates = &rates[..rates.find("</figure>").unwrap()];
        assert_eq!(rates.matches("<circle class=\"dx-point").count(), 2);
        assert!(rates.contains("9/12 · 75 % ["), "{rates}");
    }
}
