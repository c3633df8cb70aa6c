//! `dixit bench`: how fast the sandbox runs guests, side by side with the same work done natively,
//! measured in one process run so the numbers share a machine state.
//!
//! Data flow: embedded programs (`fixtures/bench/`) → [`programs::Programs`] (built for the
//! sandbox and natively) → `measure` loops on 1..n threads → [`Report`] (rows, ratios, targets)
//! → `report::bench_table` (the CLI prints it) or JSON.
//!
//! - `suite.rs`: the whole benchmark, step by step ([`run`], [`load_python_once`]).
//! - `programs.rs`: the benchmark programs, written to a temp dir, built as guests and natively.
//! - `measure.rs`: timing loops and statistics (median, p90, runs per second).
//! - `report.rs`: the report, the targets and whether each was met.
//! - `error.rs`: [`BenchError`], why a benchmark could not be measured.

mod error;
mod measure;
mod programs;
mod report;
mod suite;

pub use error::BenchError;
pub use measure::Stats;
pub use programs::Programs;
pub use report::{ClassifyRow, GuestRow, LoadRow, Report, RowResets, Target, Throughput};
pub use suite::{load_python_once, run, BenchOptions, StepProgress};
