//! `dixit slurm [OPTIONS] -- eval|compare [OPTIONS]`: runs a dixit command as a Slurm job array
//! (one task per shard) plus a merge job that depends on it. It writes `DIR/job.json` (the
//! scheduler-neutral job description), `DIR/array.sbatch` and `DIR/merge.sbatch`, and submits
//! them with `sbatch` (or, with `--dry-run`, prints them). The rendering is
//! `scaleout::slurm`; this file only turns arguments into a [`Job`] and [`SlurmOptions`].
//!
//! A separate command rather than `dixit eval --slurm`: the scheduler's options (partition,
//! time, CPUs, sbatch arguments, the binary and cache on the nodes) would double `eval`'s
//! option list, `eval` stays the plain "compute this shard" step that also runs under
//! Kubernetes or GNU parallel, and other array jobs can be submitted the same way.

use std::path::{Path, PathBuf};

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::task::{display_command, job_error, merge_step, parse_command};
use super::GlobalArgs;
use crate::scaleout::slurm::{self, SlurmError, SlurmOptions};
use crate::scaleout::{Job, JOB_FORMAT, SHARD_PLACEHOLDER};

#[derive(Debug, Args)]
pub struct SlurmArgs {
    /// Array tasks (shards). Many more than nodes: shards are balanced by expected work, and a
    /// lost node loses only its running tasks.
    #[arg(long, default_value_t = 16, value_name = "N")]
    pub shards: u32,
    /// The job's directory, on a filesystem every node sees: job.json, the two scripts, logs/,
    /// the shard reports and the merged report.json.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Slurm partition [default: the cluster's default].
    #[arg(long)]
    pub partition: Option<String>,
    /// Time limit of each task (sbatch --time: MM, HH:MM:SS, D-HH...) [default: the
    /// partition's].
    #[arg(long, value_name = "TIME")]
    pub time: Option<String>,
    /// CPUs per task; each task runs as many sandbox threads.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub cpus_per_task: u32,
    /// At most K tasks at once (--array=1-N%K).
    #[arg(long, value_name = "K")]
    pub max_running: Option<u32>,
    /// Another sbatch option for both scripts, one per use: --sbatch-arg=--account=lab
    /// --sbatch-arg=--mem=4G.
    #[arg(long = "sbatch-arg", value_name = "OPTION", allow_hyphen_values = true)]
    pub sbatch_args: Vec<String>,
    /// Job name [default: dixit-COMMAND].
    #[arg(long, value_name = "NAME")]
    pub job_name: Option<String>,
    /// The dixit binary on the nodes [default: this binary's absolute path].
    #[arg(long, value_name = "PATH")]
    pub dixit: Option<PathBuf>,
    /// The cache directory on the nodes (DIXIT_CACHE) [default: this command's --cache-dir or
    /// DIXIT_CACHE if set, else each node's default].
    #[arg(long, value_name = "DIR")]
    pub node_cache_dir: Option<PathBuf>,
    /// Write the job and the scripts and print them; submit nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The command of each task, after `--`: `eval [OPTIONS]` or `compare PROJECT...
    /// [OPTIONS]`, without --shard and --out (set by dixit slurm).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

fn absolute(path: &Path) -> Result<PathBuf, CliError> {
    std::path::absolute(path)
        .map_err(|e| CliError::usage(format!("cannot resolve {}: {e}", path.display())))
}

fn slurm_error(e: SlurmError) -> CliError {
    let code = match e {
        SlurmError::BadValue { .. } | SlurmError::Io { .. } => exit::USAGE,
        SlurmError::Spawn { .. }
        | SlurmError::Sbatch { .. }
        | SlurmError::MergeNotSubmitted { .. } => exit::ENVIRONMENT,
    };
    CliError::new(code, e)
}

/// The job `dixit slurm` describes: the task command with the shard and the output directory,
/// checked by parsing it as dixit would on a node.
fn job(a: &SlurmArgs, dir: &Path) -> Result<Job, CliError> {
    if a.shards == 0 {
        return Err(CliError::usage("--shards must be at least 1"));
    }
    if let Some(flag) = a
        .command
        .iter()
        .find(|w| ["--shard", "--out"].contains(&w.split('=').next().unwrap_or_default()))
    {
        return Err(CliError::usage(format!(
            "`{flag}` in the task command: dixit slurm sets --shard and --out itself (--out DIR of dixit slurm is where shards write)"
        )));
    }
    let mut task = a.command.clone();
    task.extend([
        "--shard".into(),
        SHARD_PLACEHOLDER.into(),
        "--out".into(),
        dir.display().to_string(),
    ]);
    let one = format!("1/{}", a.shards);
    let first: Vec<String> = task
        .iter()
        .map(|w| w.replace(SHARD_PLACEHOLDER, &one))
        .collect();
    let does_not_parse = |args: &[String], e: String| {
        CliError::usage(format!(
            "the task command `{}` does not parse: {e}",
            display_command(args)
        ))
    };
    let bare = parse_command(&a.command).map_err(|e| does_not_parse(&a.command, e))?;
    let Some((merge, result)) = merge_step(&bare.command, dir) else {
        return Err(CliError::usage(format!(
            "`{}` cannot run as an array task (only `dixit eval` and `dixit compare` can)",
            display_command(&a.command)
        )));
    };
    parse_command(&first).map_err(|e| does_not_parse(&first, e))?;
    let name = a
        .job_name
        .clone()
        .unwrap_or_else(|| format!("dixit-{}", a.command[0]));
    let workdir = std::env::current_dir().map_err(anyhow::Error::from)?;
    Ok(Job {
        format: JOB_FORMAT,
        name,
        tasks: a.shards,
        dir: dir.to_path_buf(),
        workdir,
        task,
        merge,
        result,
    })
}

pub(super) fn run(g: &GlobalArgs, a: &SlurmArgs) -> CliResult {
    std::fs::create_dir_all(&a.out).map_err(|e| {
        CliError::usage(format!(
            "cannot create the job directory {}: {e}",
            a.out.display()
        ))
    })?;
    let dir = absolute(&a.out)?;
    let job = job(a, &dir)?;
    let dixit = match &a.dixit {
        Some(p) => absolute(p)?,
        None => std::env::current_exe().map_err(anyhow::Error::from)?,
    };
    let cache_dir = match a.node_cache_dir.as_ref().or(g.cache_dir.as_ref()) {
        Some(p) => Some(absolute(p)?),
        None => None,
    };
    let options = SlurmOptions {
        partition: a.partition.clone(),
        time: a.time.clone(),
        cpus_per_task: a.cpus_per_task,
        max_running: a.max_running,
        sbatch_args: a.sbatch_args.clone(),
        dixit,
        cache_dir,
    };
    let scripts = slurm::render(&job, &options).map_err(slurm_error)?;
    job.write().map_err(job_error)?;
    let (array, merge) = slurm::write(&job, &scripts).map_err(slurm_error)?;

    if a.dry_run {
        println!("# {}\n{}", array.display(), scripts.array);
        println!("# {}\n{}", merge.display(), scripts.merge);
        println!(
            "# not submitted (--dry-run); to submit:\n{}",
            slurm::submit_commands(&dir)
        );
        return Ok(exit::OK);
    }
    let Some(sbatch) = slurm::find_on_path("sbatch") else {
        return Err(CliError::env(format!(
            "sbatch not found on PATH: the job is written in {} but not submitted",
            dir.display()
        ))
        .hint(format!(
            "submit it from a Slurm login node:\n  {}\nor print the scripts with --dry-run",
            slurm::submit_commands(&dir)
        )));
    };
    let submitted = slurm::submit(&sbatch, &dir).map_err(slurm_error)?;
    println!(
        "submitted array job {} ({} tasks) and merge job {} (runs after every task succeeded)",
        submitted.array, job.tasks, submitted.merge
    );
    println!("follow:  squeue -j {},{}", submitted.array, submitted.merge);
    println!("logs:    {}", job.log_dir().display());
    println!("result:  {}", job.result.display());
    println!(
        "if tasks fail: {} names the missing shards and the command that reruns them",
        display_command(&job.merge)
    );
    Ok(exit::OK)
}
