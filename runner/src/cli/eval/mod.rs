//! `dixit eval`: scores a recorded corpus offline (`corpus.rs`) or a samples file
//! (`samples.rs`); `dixit merge`: joins either's shard reports. `args.rs` holds the arguments,
//! `shared.rs` what both paths share.

mod args;
mod corpus;
mod samples;
mod shared;

use super::exit::{CliError, CliResult};
use super::shards::ShardInputs;
use super::GlobalArgs;
use crate::eval::samples::SamplesShard;

pub(super) use args::{EvalArgs, MergeArgs};

/// `dixit eval`.
pub(super) fn run(g: &GlobalArgs, a: &EvalArgs) -> CliResult {
    match &a.samples {
        Some(samples) => samples::run(g, a, samples),
        None => corpus::run(g, a),
    }
}

/// `dixit eval-worker`: one worker process of `--workers processes`. It dies with its parent,
/// and its stdout carries only the protocol (logs go to stderr).
pub(super) fn worker(g: &GlobalArgs) -> CliResult {
    // A parent killed outright leaves no worker running on.
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    let tc = super::toolchains(g)?;
    let runtime = tc
        .python_runtime()
        .map_err(|e| CliError::new(super::exit::INTERNAL, anyhow::anyhow!("{e}")))?;
    crate::eval::serve_matrices(
        tc.sandbox(),
        runtime,
        std::io::stdin().lock(),
        std::io::stdout().lock(),
    )
    .map_err(|e| CliError::new(super::exit::INTERNAL, e))?;
    Ok(super::exit::OK)
}

/// `dixit merge`: shard files, or one directory of them.
pub(super) fn merge(g: &GlobalArgs, a: &MergeArgs) -> CliResult {
    let inputs = ShardInputs::of(&a.reports, "dixit eval")?;
    if inputs
        .files
        .first()
        .is_some_and(|p| SamplesShard::is_one(p))
    {
        samples::merge(g, a, &inputs)
    } else {
        corpus::merge(g, a, &inputs)
    }
}
