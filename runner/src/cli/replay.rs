//! `dixit replay`: re-executes a recorded run offline and checks every decision.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::run::{protocol_error, resolve_run};
use super::{toolchains, GlobalArgs};
use crate::engine::{self, ProtocolError, ReplayOutcome};
use crate::journal::JournalError;

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The run: its directory (holding journal.jsonl), or its id under ./runs.
    pub run: String,
    /// Keep the re-execution's agent directories here (default: a temporary directory).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Print the result as JSON on stdout: whether the run was reproduced, its directory, its
    /// stop, or the first divergence (exit 5 either way).
    #[arg(long)]
    pub json: bool,
}

pub(super) fn run(g: &GlobalArgs, a: &ReplayArgs) -> CliResult {
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
    let replayed = rt.block_on(engine::replay(
        &run_dir,
        crate::protocol::REGISTRY,
        tc,
        &work,
    ));
    let seconds = started.elapsed().as_secs_f64();
    if a.json {
        return json(&run_dir, replayed, seconds);
    }
    let out = replayed.map_err(protocol_error)?;
    println!(
        "replayed run {} ({}): {} events reproduced exactly in {:.2} s; {}",
        out.run_id,
        out.protocol.name(),
        out.events,
        seconds,
        crate::outcome::describe_stop(out.protocol, &out.stop)
    );
    if !out.fuel_compared {
        println!("note: fuel was not compared: this machine's Python runtime is not byte-identical to the recording's (verdicts and decisions were)");
    }
    Ok(exit::OK)
}

/// `--json`: the replay's result as one JSON object on stdout. A divergence is a result too
/// (`reproduced: false` with the first differing event, exit 5); any other error is reported
/// as usual.
fn json(
    run_dir: &std::path::Path,
    replayed: Result<ReplayOutcome, ProtocolError>,
    seconds: f64,
) -> CliResult {
    let (value, code) = match replayed {
        Ok(out) => (
            serde_json::json!({
                "reproduced": true,
                "run_dir": run_dir,
                "run_id": out.run_id,
                "protocol": out.protocol.name(),
                "events": out.events,
                "seconds": seconds,
                "stop": out.stop,
                "stop_text": crate::outcome::describe_stop(out.protocol, &out.stop),
                "round": out.round,
                "fuel_compared": out.fuel_compared,
            }),
            exit::OK,
        ),
        Err(ProtocolError::Journal(JournalError::Diverged {
            lane,
            index,
            detail,
        })) => (
            serde_json::json!({
                "reproduced": false,
                "run_dir": run_dir,
                "divergence": { "lane": lane, "index": index, "detail": detail },
            }),
            exit::DIVERGED,
        ),
        Err(e) => return Err(protocol_error(e)),
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&value).map_err(anyhow::Error::from)?
    );
    Ok(code)
}
