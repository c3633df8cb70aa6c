//! The HTML report of an eval output (`dixit report EVAL_OUT`) and the comparison of two
//! (`dixit report A B`), built from the pieces in [`super::html`].
//!
//! Data flow: `EVAL_OUT/{report.json, problems/*.json}` → [`EvalOutput::load`] (checked) →
//! [`render_eval`] / [`render_comparison`] → one self-contained HTML file.
//!
//! - `load.rs`: [`EvalOutput`], reading and checking an eval output.
//! - `page.rs`: the eval report: strategies, band precision, plots, the problem table, and per
//!   problem a drill-down drawn lazily in the browser (`eval.js`) from compact embedded data:
//!   verdict-letter strings, solution texts stored once per problem after their common prefix.
//! - `compare.rs`: two eval outputs side by side: strategy means, per-problem changes of each
//!   strategy's pass@1, and cells whose verdict changed (`compare.js` draws them per problem).

mod compare;
mod load;
mod page;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use compare::render_comparison;
pub use load::EvalOutput;
pub use page::render_eval;

use super::format::utc_timestamp;
use super::input::ReportError;
use crate::eval::scoring::{Fraction, ProblemReport, Summary};

/// Where a page came from, for its footer.
#[derive(Clone, Debug)]
pub struct Provenance {
    /// When it was generated (`2026-11-23 10:04 UTC`).
    pub generated: String,
    /// The generator (`dixit 0.1.0`).
    pub generator: String,
}

impl Provenance {
    /// Now, by this dixit.
    pub fn now() -> Self {
        Provenance {
            generated: utc_timestamp(SystemTime::now()),
            generator: concat!("dixit ", env!("CARGO_PKG_VERSION")).to_string(),
        }
    }
}

/// A selection strategy as the reports show it.
pub(crate) struct Strategy {
    /// Short key (element ids, embedded data).
    pub key: &'static str,
    /// Name shown.
    pub name: &'static str,
    /// Its pass@1 on one problem (`None`: no result, e.g. answers were not recorded).
    pub of: fn(&ProblemReport) -> Option<Fraction>,
    /// Its mean pass@1 in percent (`None` when some problem has no result).
    pub mean: fn(&Summary) -> Option<f64>,
    /// Drawn in the per-problem plot.
    pub plotted: bool,
}

/// The strategies of `eval::scoring`, in the order of `dixit eval`'s table: the baseline, the
/// selectors of the literature, the band's own, then the band in front of a selector.
pub(crate) const STRATEGIES: &[Strategy] = &[
    Strategy {
        key: "random",
        name: "random baseline",
        of: |p| Some(p.random),
        mean: |s| Some(s.random_pct),
        plotted: true,
    },
    Strategy {
        key: "max_pass",
        name: "MaxPass (most tests passed)",
        of: |p| p.max_pass,
        mean: |s| s.max_pass_pct,
        plotted: false,
    },
    Strategy {
        key: "dual",
        name: "CodeT dual agreement",
        of: |p| Some(p.dual_agreement),
        mean: |s| Some(s.dual_agreement_pct),
        plotted: true,
    },
    Strategy {
        key: "dual_unique",
        name: "dual agreement, unique tests",
        of: |p| Some(p.dual_agreement_unique_tests),
        mean: |s| Some(s.dual_agreement_unique_tests_pct),
        plotted: false,
    },
    Strategy {
        key: "mbr_exec",
        name: "MBR-exec (most samples answering alike)",
        of: |p| p.mbr_exec,
        mean: |s| s.mbr_exec_pct,
        plotted: false,
    },
    Strategy {
        key: "b4",
        name: "B4 (Beta-Bernoulli posterior)",
        of: |p| p.b4,
        mean: |s| s.b4_pct,
        plotted: false,
    },
    Strategy {
        key: "srank",
        name: "SRank (answer clusters × agreement)",
        of: |p| p.srank,
        mean: |s| s.srank_pct,
        plotted: true,
    },
    Strategy {
        key: "band",
        name: "Dixit band (most IDEAL tests)",
        of: |p| Some(p.dixit_band),
        mean: |s| Some(s.dixit_band_pct),
        plotted: true,
    },
    Strategy {
        key: "band_unique",
        name: "Dixit band, unique tests",
        of: |p| Some(p.dixit_band_unique_tests),
        mean: |s| Some(s.dixit_band_unique_tests_pct),
        plotted: false,
    },
    Strategy {
        key: "loop",
        name: "Dixit loop simulation",
        of: |p| Some(p.dixit_loop.pass_at_1()),
        mean: |s| Some(s.dixit_loop_pct),
        plotted: true,
    },
    Strategy {
        key: "codet_ideal_tests",
        name: "band → CodeT, IDEAL tests only",
        of: |p| p.codet_ideal_tests,
        mean: |s| s.codet_ideal_tests_pct,
        plotted: false,
    },
    Strategy {
        key: "b4_ideal_tests",
        name: "band → B4, IDEAL tests only",
        of: |p| p.b4_ideal_tests,
        mean: |s| s.b4_ideal_tests_pct,
        plotted: false,
    },
    Strategy {
        key: "srank_ideal_tests",
        name: "band → SRank, IDEAL tests' pass rate",
        of: |p| p.srank_ideal_tests,
        mean: |s| s.srank_ideal_tests_pct,
        plotted: false,
    },
    Strategy {
        key: "codet_ideal_passers",
        name: "band → CodeT among IDEAL passers",
        of: |p| p.codet_ideal_passers,
        mean: |s| s.codet_ideal_passers_pct,
        plotted: false,
    },
    Strategy {
        key: "b4_ideal_passers",
        name: "band → B4 among IDEAL passers",
        of: |p| p.b4_ideal_passers,
        mean: |s| s.b4_ideal_passers_pct,
        plotted: false,
    },
    Strategy {
        key: "srank_ideal_passers",
        name: "band → SRank among IDEAL passers",
        of: |p| p.srank_ideal_passers,
        mean: |s| s.srank_ideal_passers_pct,
        plotted: false,
    },
];

/// Writes `html` to `path` and returns it.
pub(crate) fn write_page(path: &Path, html: &str) -> Result<PathBuf, ReportError> {
    std::fs::write(path, html).map_err(|e| ReportError::io(path, e))?;
    Ok(path.to_path_buf())
}

/// `dixit report EVAL_OUT`: renders `dir`'s report to `out` (default `dir/report.html`) and
/// returns the path written.
pub fn write_eval_report(dir: &Path, out: Option<&Path>) -> Result<PathBuf, ReportError> {
    let eval = EvalOutput::load(dir)?;
    let html = render_eval(&eval, &Provenance::now())?;
    let path = out.map_or_else(|| dir.join("report.html"), Path::to_path_buf);
    write_page(&path, &html)
}

/// `dixit report A B`: renders the comparison of `a` (before) and `b` (after) to `out`
/// (default `b/compare.html`) and returns the path written.
pub fn write_comparison(a: &Path, b: &Path, out: Option<&Path>) -> Result<PathBuf, ReportError> {
    let (ea, eb) = rayon::join(|| EvalOutput::load(a), || EvalOutput::load(b));
    let html = render_comparison(&ea?, &eb?, &Provenance::now())?;
    let path = out.map_or_else(|| b.join("compare.html"), Path::to_path_buf);
    write_page(&path, &html)
}
