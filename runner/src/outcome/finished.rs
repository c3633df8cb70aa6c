//! A protocol run as it ended: what `engine::start`, `resume` and `replay`'s callers write the
//! run's outputs (`implementations/`, `suite/`, `summary.json`) and reports from.

use std::path::PathBuf;

use super::protocol::ProtocolData;
use super::summary::Summary;
use crate::journal::{JournalFile, StopReason};
use crate::toolchain::TestKind;

/// A protocol run as it ended (stopped, interrupted, or its resume undone): what the caller
/// writes the run's outputs and reports from.
pub struct FinishedRun {
    /// The run's id.
    pub run_id: String,
    /// The run's folder.
    pub run_dir: PathBuf,
    /// The protocol that ran (it describes its stop and says how the CLI exits).
    pub protocol: &'static dyn ProtocolData,
    /// Why it stopped.
    pub stop: StopReason,
    /// The round (or epoch) it stopped in.
    pub round: u32,
    /// The run at a glance.
    pub summary: Summary,
    /// The journal as written, for the reporters (`report.html`, JUnit) the caller wires up;
    /// none in a replay, which writes nothing.
    pub journal: Option<JournalFile>,
    /// Each coder's final implementation (its name and its workspace), for the run's
    /// `implementations/` the caller writes; none when a resume was undone.
    pub implementations: Vec<(String, PathBuf)>,
    /// The kind of the run's tests (how its suite runs outside dixit).
    pub test_kind: TestKind,
    /// An interrupt came before a resumed run went past its recording: the resume was undone,
    /// and the journal and the run's outputs are as they were before it (`summary` is the
    /// journal's; `stop` is `Interrupted`, what happened to this process).
    pub resume_undone: bool,
}

impl std::fmt::Debug for FinishedRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FinishedRun")
            .field("run_id", &self.run_id)
            .field("protocol", &self.protocol.name())
            .field("stop", &self.stop)
            .field("round", &self.round)
            .finish_non_exhaustive()
    }
}
