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
    /// Its pass@1 on one problem.
    pub of: fn(&ProblemReport) -> Fraction,
    /// Its mean pass@1 in percent.
    pub mean: fn(&Summary) -> f64,
    /// Drawn in the per-problem plot.
    pub plotted: bool,
}

/// The strategies of `eval::scoring`, in the order of `dixit eval`'s table.
pub(crate) const STRATEGIES: &[Strategy] = &[
    Strategy {
        key: "random",
        name: "random baseline",
        of: |p| p.random,
        mean: |s| s.random_pct,
        plotted: true,
    },
    Strategy {
        key: "dual",
        name: "CodeT dual agreement",
        of: |p| p.dual_agreement,
        mean: |s| s.dual_agreement_pct,
        plotted: true,
    },
    Strategy {
        key: "dual_unique",
        name: "dual agreement, unique tests",
        of: |p| p.dual_agreement_unique_tests,
        mean: |s| s.dual_agreement_unique_tests_pct,
        plotted: false,
    },
    Strategy {
        key: "band",
        name: "Dixit band (most IDEAL tests)",
        of: |p| p.dixit_band,
        mean: |s| s.dixit_band_pct,
        plotted: true,
    },
    Strategy {
        key: "band_unique",
        name: "Dixit band, unique tests",
        of: |p| p.dixit_band_unique_tests,
        mean: |s| s.dixit_band_unique_tests_pct,
        plotted: false,
    },
    Strategy {
        key: "loop",
        name: "Dixit loop simulation",
        of: |p| p.dixit_loop.pass_at_1(),
        mean: |s| s.dixit_loop_pct,
        plotted: true,
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
