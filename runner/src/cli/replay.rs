//! `dixit replay`: re-executes a recorded run offline and checks every decision.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::run::{protocol_error, resolve_run};
use super::{toolchains, GlobalArgs};
use crate::engine;
use crate::report;

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The run: its directory (holding journal.jsonl), or its id under ./runs.
    pub run: String,
    /// Keep the re-execution's agent directories here (default: a temporary directory).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
}

pub fn run(g: &GlobalArgs, a: &ReplayArgs) -> CliResult {
    let run_dir = resolve_run(&PathBuf::from("runs"), &a.run).map_err(protocol_error)?;
    let tc = Arc::new(toolchains(g)?);
    let tmp;
    let work = match &a.work_dir {
        Some(d) => d.clone(),
        None => {
            tmp = tempfile::tempdir().map_err(|e| CliError::new(exit::INTERNAL, e))?;
            tmp.path().to_path_buf()
        }
    };
    let started = std::time::Instant::now();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::new(exit::INTERNAL, e))?;
    let out = rt
        .block_on(engine::replay(
            &run_dir,
            crate::protocol::REGISTRY,
            tc,
            &work,
        ))
        .map_err(protocol_error)?;
    println!(
        "replayed run {} ({}): {} events reproduced exactly in {:.2} s; {}",
        out.run_id,
        out.protocol.name(),
        out.events,
        started.elapsed().as_secs_f64(),
        report::describe_stop(out.protocol, &out.stop)
    );
    if !out.fuel_compared {
        println!("note: fuel was not compared: this machine's Python runtime is not byte-identical to the recording's (verdicts and decisions were)");
    }
    Ok(exit::OK)
}
