//! The run report (`runs/<id>/report.html`): the decision a person has to make about a run, and
//! the evidence, rendered from the run's journal for any protocol (common sections plus the
//! protocol's own), from the pieces in [`super::html`].
//!
//! Data flow: `journal.jsonl` → [`crate::report::Summary::of_journal`] and [`RunView::new`]
//! (plus `implementations/` and the disagreements, computed by [`crate::consensus`]) →
//! [`render_run`] → one self-contained HTML file. [`RunView`] also feeds the JUnit export
//! (`report/junit.rs`).
//!
//! - `model.rs`: [`RunView`], the run folded from its journal.
//! - `page.rs`: the page: the decision, the suite, rejected tests, coders × tests matrices (final
//!   and per round), implementations with diffs, attempts and the high-water mark, hidden
//!   tests, disagreements, timeline, usage, the protocol's section, the run's setup.
//! - `run.js`: the drill-down of the final matrix.

mod model;
mod page;

use std::path::{Path, PathBuf};

pub use model::{
    AttemptView, Implementation, Judged, Outcome, ProposalView, RoundView, RunView, SuiteTest,
};
pub use page::{attempts_anchor, coder_link, ids_linked, letter, render_run, test_link};

use super::eval_report::Provenance;
use super::input::ReportError;
use super::{ProtocolReport, Summary};
use crate::journal::JournalFile;

/// Reads a run directory's journal (`RUN_DIR/journal.jsonl`).
pub fn read_journal(run_dir: &Path) -> Result<JournalFile, ReportError> {
    JournalFile::read(&run_dir.join("journal.jsonl")).map_err(|e| ReportError::Journal {
        dir: run_dir.to_path_buf(),
        source: e,
    })
}

/// Renders the report of the run in `run_dir` (its journal already read, its summary folded)
/// to `out` (default `run_dir/report.html`) and returns the path written.
pub fn write_run_report(
    run_dir: &Path,
    journal: &JournalFile,
    summary: &Summary,
    protocol: &dyn ProtocolReport,
    out: Option<&Path>,
) -> Result<PathBuf, ReportError> {
    let view = RunView::new(journal, summary, protocol, run_dir);
    let html = render_run(&view, &Provenance::now())?;
    let path = out.map_or_else(|| run_dir.join("report.html"), Path::to_path_buf);
    super::eval_report::write_page(&path, &html)
}
