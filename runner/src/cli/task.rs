//! `dixit task JOB.json`: runs one task of a job description (what each array task of
//! `dixit slurm` runs). The task's shard comes from `--index` or the scheduler's variables; the
//! job's task command, with the shard filled in, is dispatched like any dixit command line.
//!
//! Which commands may be tasks, and what joins their results, is decided by [`merge_step`]:
//! `dixit eval` (one task per shard of the corpus, joined by `dixit merge`) and `dixit compare`
//! (one task per shard of the (project, protocol) cells, joined by `dixit compare --merge`).

use std::path::{Path, PathBuf};

use clap::{Args, Parser};

use super::exit::{CliError, CliResult};
use super::{Cli, Command, GlobalArgs};
use crate::scaleout::{process_env, slurm::shell_quote, Job, JobError, ShardSpec};

#[derive(Debug, Args)]
pub struct TaskArgs {
    /// A job description written by `dixit slurm` (DIR/job.json).
    #[arg(value_name = "JOB.json")]
    pub job: PathBuf,
    /// Which task, 1..N [default: SLURM_ARRAY_TASK_ID (the array task id is the task number),
    /// else JOB_COMPLETION_INDEX + 1].
    #[arg(long, value_name = "I")]
    pub index: Option<u32>,
}

/// How the results of a command's tasks are joined: the merge command's arguments and the file
/// it writes, for a job in `dir`; `None` for a command that cannot run as a task.
pub(super) fn merge_step(command: &Command, dir: &Path) -> Option<(Vec<String>, PathBuf)> {
    match command {
        Command::Eval(e) if e.samples.is_some() => Some((
            vec!["merge".into(), dir.display().to_string()],
            dir.join(crate::eval::samples::RESULTS_FILE),
        )),
        Command::Eval(_) => {
            let result = dir.join("report.json");
            Some((
                vec![
                    "merge".into(),
                    dir.display().to_string(),
                    "--out".into(),
                    result.display().to_string(),
                ],
                result,
            ))
        }
        Command::Compare(_) => Some((
            vec![
                "compare".into(),
                "--merge".into(),
                dir.display().to_string(),
                "--out".into(),
                dir.display().to_string(),
            ],
            dir.join(crate::compare::COMPARE_FILE),
        )),
        _ => None,
    }
}

/// Parses a dixit command line given without the program name; the error is clap's first line.
pub(super) fn parse_command(args: &[String]) -> Result<Cli, String> {
    Cli::try_parse_from(std::iter::once("dixit".to_string()).chain(args.iter().cloned())).map_err(
        |e| {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default();
            first.strip_prefix("error: ").unwrap_or(first).to_string()
        },
    )
}

/// A command line for messages.
pub(super) fn display_command(args: &[String]) -> String {
    std::iter::once("dixit".to_string())
        .chain(args.iter().map(|a| shell_quote(a)))
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn job_error(e: JobError) -> CliError {
    CliError::new(super::exit::USAGE, e)
        .hint("`dixit slurm ... -- eval ...` writes a job description as DIR/job.json")
}

pub(super) fn run(g: &GlobalArgs, a: &TaskArgs) -> CliResult {
    let job = Job::read(&a.job).map_err(job_error)?;
    let shard = match a.index {
        Some(i) => job.shard(i).ok_or_else(|| {
            CliError::usage(format!(
                "--index {i} is not a task of {} (1..{})",
                a.job.display(),
                job.tasks
            ))
        })?,
        None => ShardSpec::Auto {
            count: Some(job.tasks),
        }
        .resolve(&process_env)
        .map_err(|e| {
            let hint = e.hint();
            CliError::usage(e).hint(format!("{hint}; or pick the task with --index I"))
        })?,
    };
    let args = job.task_args(shard);
    let mut inner = parse_command(&args).map_err(|e| {
        CliError::usage(format!(
            "{}: the task command `{}` does not parse: {e}",
            a.job.display(),
            display_command(&args)
        ))
    })?;
    if merge_step(&inner.command, &job.dir).is_none() {
        return Err(CliError::usage(format!(
            "{}: `{}` cannot run as a task (only `dixit eval` and `dixit compare` can)",
            a.job.display(),
            display_command(&args)
        )));
    }
    // This process's options (and environment) win over any in the job's command line.
    inner.global.jobs = g.jobs.or(inner.global.jobs);
    inner.global.cache_dir = g.cache_dir.clone().or(inner.global.cache_dir);
    inner.global.quiet |= g.quiet;
    inner.global.verbose = inner.global.verbose.max(g.verbose);
    if !inner.global.quiet {
        eprintln!(
            "dixit task {shard} of {}: {}",
            a.job.display(),
            display_command(&args)
        );
    }
    super::dispatch(inner)
}
