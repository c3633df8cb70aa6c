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
    /// Reading or writing the journal failed.
    #[error("{path}: {source}")]
    Io {
        /// The journal's path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A line is not a journal record.
    #[error("{path}:{line}: corrupt journal line: {message}")]
    Corrupt {
        /// The journal's path.
        path: PathBuf,
        /// The line's number (1-based).
        line: usize,
        /// Why it does not read.
        message: String,
    },
    /// The journal is not of a format this dixit reads or writes (no header, an unknown or newer
    /// format, an event that does not serialize).
    #[error("{path}: {message}")]
    Format {
        /// The journal's path.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A replay did not reproduce the recording.
    #[error("divergence in lane `{lane}` at its event #{index}: {detail}")]
    Diverged {
        /// The lane where they differ.
        lane: String,
        /// The index (in that lane) of the first differing event or call.
        index: u64,
        /// How they differ.
        detail: String,
    },
}
