//! Offline evaluation of recorded corpora (`dixit eval`): per problem, many recorded solutions
//! and recorded tests, plus hidden tests as ground truth. The full verdict matrix is built in the
//! sandbox, cached, and scored by several selection strategies side by side. See DESIGN,
//! "Offline evaluation", and `docs/eval.md` for the fidelity and throughput measurements.
//!
//! Data flow: corpus files → importer ([`codet`]) → [`Corpus`] → [`Harness`] (sandbox, rayon;
//! [`EvalCache`]) → [`ProblemVerdicts`] → strategies ([`scoring`]) → [`EvalReport`] (shards
//! joined by [`EvalReport::merge`]). A shard ([`Shard`], from [`crate::scaleout`]) is a set of
//! problems balanced by expected work ([`codet::expected_cells`]).
//!
//! - `corpus.rs`: the format-neutral corpus: problems, weighted (deduplicated) samples.
//! - `codet.rs`: the importer for CodeT's published format, with CodeT's post-processing.
//! - `matrix.rs`: the [`Harness`]: compile check and verdict matrices, at an [`Isolation`] level.
//! - `processes.rs`: the matrices built in worker processes (`--workers processes`) instead.
//! - `fuel_rule.rs`: [`FuelRule`], the fuel a solution may spend on a test, from the reference's.
//! - `answers.rs`: what each solution answered to each call of the tests, off the matrix's runs.
//! - `cache.rs`: the on-disk cache of imported corpora and matrices.
//! - `scoring/`: every selection strategy of [`crate::selection`] scored by its expected pass
//!   rate, Dixit loop simulation, band precision; [`Report`] with an exact shard merge.
//! - `samples/`: scoring a model's samples file (`--samples`): formats, benchmarks, pass@k.
//! - `evaluate.rs`: [`evaluate`], one evaluation start to finish, and the [`EvalReport`].
//! - `error.rs`: [`EvalError`].

mod cache;
pub mod codet;
pub mod corpus;
mod error;
mod evaluate;
mod fuel_rule;
mod matrix;
mod processes;
pub mod samples;
pub mod scoring;
mod verdicts;
mod worker;

pub use crate::execution::Isolation;
pub use crate::scaleout::{Shard, ShardParseError};
pub use cache::EvalCache;
pub use codet::{ImportError, ImportOptions};
pub use corpus::{Corpus, CorpusError, Problem, Weighted};
pub use error::{EvalError, MergeError};
pub use evaluate::{
    evaluate, problem_file_name, CorpusCounts, EvalOptions, EvalReport, EvalSetup, Evaluation,
    Execution, Phases, REPORT_FORMAT,
};
pub use fuel_rule::FuelRule;
pub use matrix::{test_program, Harness, EVAL_SEED};
pub use scoring::{Report, ScoringConfig, ScoringError};
pub use verdicts::{verdict_code, verdict_of_code, CellNote, MemoryResets, ProblemVerdicts};
pub use worker::serve_matrices;

/// Progress of the long phases, reported by the library and drawn by the CLI (workers never
/// print). Calls may come from several threads at once.
pub trait Progress: Sync {
    /// A phase of `total` units begins.
    fn start(&self, phase: &str, total: u64);
    /// `n` more units are done.
    fn advance(&self, n: u64);
    /// The current phase is over.
    fn finish(&self);
}

/// Progress that goes nowhere.
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _phase: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
}
