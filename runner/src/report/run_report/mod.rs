//! The run report (`runs/<id>/report.html`): the decision a person has to make about a run, and
//! the evidence, rendered from the run's journal for any protocol (common sections plus the
//! protocol's own), from the pieces in [`super::html`].
//!
//! Data flow: `journal.jsonl` → [`crate::outcome::ProtocolData::summary_of`] and [`RunView::new`]
//! (plus `implementations/` and the disagreements, computed by [`crate::consensus`]) →
//! [`render_run`] → one self-contained HTML file. [`RunView`] also feeds the JUnit export
//! (`report/junit.rs`).
//!
//! - `model.rs`: [`RunView`], the run folded from its journal.
//! - `page.rs`: the page: the decision, the suite, rejected tests, coders × tests matrices (final
//!   and per round), implementations with diffs, attempts and the high-water mark, hidden
//!   tests, disagreements, timeline, usage, the protocol's section, the run's setup.
//! - `run.js`: the drill-down of the final matrix.

pub mod model;
mod page;

use std::path::Path;

pub use model::{
    AttemptView, Implementation, Judged, Outcome, ProposalView, RoundView, RunView, SuiteTest,
};
pub use page::{
    attempts_anchor, coder_link, ids_linked, letter, render_run, test_link, write_run_report,
};

use super::input::ReportError;
use crate::journal::JournalFile;

/// Reads a run directory's journal (`RUN_DIR/journal.jsonl`).
pub fn read_journal(run_dir: &Path) -> Result<JournalFile, ReportError> {
    JournalFile::read(&run_dir.join("journal.jsonl")).map_err(|e| ReportError::Journal {
        dir: run_dir.to_path_buf(),
        source: e,
    })
}
