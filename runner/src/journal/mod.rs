//! The journal: `runs/<id>/journal.jsonl`, the append-only record of a run. Every event needed
//! to reconstruct the run is written and flushed as it happens: prompts, replies (with usage and
//! cost), verdict matrices, classifications, suite changes, checkpoints, rollbacks, hibernations,
//! stops. The first line is a header with the format version and the project as it was.
//!
//! - `event.rs`: the event types.
//! - `reader.rs`: reading a journal (a half-written last line is tolerated; a newer major format
//!   is refused).
//! - `writer.rs`: writing, and the verify mode behind `--resume` and `replay`: events the
//!   protocol emits are compared, lane by lane, with the recorded ones.

mod event;
mod reader;
mod writer;

pub use event::{
    CellRecord, Choice, Event, ExitClass, Fork, Named, Open, PolicyNote, ProjectSnapshot, Record,
    Shipping, Standing, StopReason, SuiteEntry, DETACHED_SINCE_MINOR, FORMAT_MAJOR, FORMAT_MINOR,
    NAMES_BOUND_SINCE_MINOR, PERSON_LANE, RUN_LANE, SHIPPED_SINCE_MINOR, SHIP_LANE,
};
pub use reader::{Answered, JournalFile, FORMAT_1_0_PROTOCOL};
pub use writer::{append_decision, fork_journal, Journal, PastEnd};

use std::path::PathBuf;

/// Journal failures. A divergence is not an I/O problem: it means a replay did not reproduce
/// the recording, and names the first differing event.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: corrupt journal line: {message}")]
    Corrupt {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Format { path: PathBuf, message: String },
    #[error("divergence in lane `{lane}` at its event #{index}: {detail}")]
    Diverged {
        lane: String,
        index: u64,
        detail: String,
    },
}
