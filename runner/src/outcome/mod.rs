//! What a run produced, as data: the engine and the protocols make it, the report renders it
//! (and neither of the first two imports the report). A replay, or a reader of any journal,
//! folds the same data from the run's events.
//!
//! - `protocol.rs`: [`ProtocolData`], what a protocol's runs mean (its part of the summary, its
//!   decisions in words, what a person may choose at them, its trials and named tests); each
//!   protocol implements it in its folder (`protocol/<name>/part.rs`), and `engine::Protocol`
//!   extends it.
//! - `summary.rs`: the [`Summary`] (`summary.json`): common fields plus the protocol's [`Part`].
//! - `stop.rs`: a stop in words ([`describe_stop`]), its [`exit_class`], and what a person may
//!   choose at it ([`Offer`]); `room.rs`: a limit a person may raise there ([`Room`]).
//! - `metric.rs`: the seeds' own measures of a run ([`Metric`]).
//! - `finished.rs`: a protocol run as it ended ([`FinishedRun`]), for the outputs and reports.
//! - `compare.rs`: what `dixit compare` found over many runs ([`CompareReport`]), which
//!   `compare/` fills in and `report/` renders.

mod compare;
mod decision;
mod finished;
mod metric;
mod protocol;
mod room;
mod stop;
mod summary;

pub use compare::{CellResult, CellRun, CompareCell, CompareReport, COMPARE_FORMAT};
pub use decision::{Basis, Decision};
pub use finished::FinishedRun;
pub use metric::Metric;
pub use protocol::{ProtocolData, Trial};
pub use room::Room;
pub use stop::{describe_stop, exit_class, offer, offer_of, recorded_config, Offer};
pub use summary::{
    bump, ClassCounts, CoderStats, Part, ProtocolPart, SuiteItem, Summary, UsageTotals,
};
