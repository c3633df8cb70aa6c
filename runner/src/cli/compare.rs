//! `dixit compare`: runs several protocols over several projects and prints one table.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::{toolchains, GlobalArgs};
use crate::compare::{self, CompareReport, Plan};
use crate::config::ProtocolName;
use crate::engine::{self, Quiet};
use crate::eval::Shard;
use crate::report;

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Project folders (each with dixit.toml and spec.md).
    #[arg(required_unless_present = "merge")]
    pub projects: Vec<PathBuf>,
    /// The protocols to run on each project, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "dixit,debate,repair,blind"
    )]
    pub protocols: Vec<ProtocolName>,
    /// A file naming the held-out projects (one name or path a line): reported apart from the
    /// development projects.
    #[arg(long, value_name = "FILE")]
    pub holdout: Option<PathBuf>,
    /// Run only shard i of n of the (project, protocol) cells (join the `--json` reports with
    /// `--merge`).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Where the cells' runs go (DIR/<project>/<run id>) [default: each project's runs/].
    #[arg(long, value_name = "DIR")]
    pub runs_dir: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Instead of running anything, join these `--shard … --json` reports and print the table.
    #[arg(long, value_name = "REPORT", num_args = 1..)]
    pub merge: Vec<PathBuf>,
}

pub fn run(g: &GlobalArgs, a: &CompareArgs) -> CliResult {
    let report = if a.merge.is_empty() {
        let holdout = match &a.holdout {
            Some(f) => compare::read_holdout(f).map_err(CliError::usage)?,
            None => Vec::new(),
        };
        for p in &a.projects {
            if !p.join("dixit.toml").is_file() {
                return Err(CliError::usage(format!(
                    "{}: not a project (no dixit.toml)",
                    p.display()
                )));
            }
        }
        let plan = Plan {
            projects: a.projects.clone(),
            protocols: a.protocols.clone(),
            holdout,
            shard: a.shard,
            runs_dir: a.runs_dir.clone(),
        };
        let tc = Arc::new(toolchains(g)?);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| CliError::new(exit::INTERNAL, e))?;
        rt.block_on(compare::compare(
            &plan,
            tc,
            &engine::default_backend,
            Arc::new(Quiet),
        ))
    } else {
        let mut parts = Vec::new();
        for f in &a.merge {
            let text = std::fs::read_to_string(f)
                .map_err(|e| CliError::usage(format!("{}: {e}", f.display())))?;
            let r: CompareReport = serde_json::from_str(&text).map_err(|e| {
                CliError::usage(format!("{}: not a compare report: {e}", f.display()))
            })?;
            parts.push(r);
        }
        CompareReport::merge(parts).map_err(CliError::usage)?
    };
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)?
        );
    } else {
        print!("{}", report::compare_table(&report));
    }
    let failed = report
        .cells
        .iter()
        .any(|c| matches!(c.result, compare::CellResult::Failed { .. }));
    Ok(if failed { exit::FAILED } else { exit::OK })
}
