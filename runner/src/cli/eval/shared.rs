//! What `dixit eval`'s and `dixit merge`'s corpus and samples paths share: errors in CLI
//! terms, showing a merged report, and progress bars.

use std::path::Path;
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::args::MergeArgs;
use crate::cli::exit::{self, CliError};
use crate::cli::shards::rerun_hint;
use crate::eval::{EvalError, ImportError, MergeError, Progress};
use crate::scaleout::write_atomic;

/// A merged report: written to `--out FILE` (atomically) when given, then printed as JSON
/// (`--json`) or as `table`.
pub(in crate::cli) fn show_merged(
    a: &MergeArgs,
    merged: &impl serde::Serialize,
    table: String,
) -> Result<(), CliError> {
    let json = serde_json::to_string_pretty(merged).map_err(anyhow::Error::from)?;
    if let Some(out) = &a.out {
        write_atomic(out, format!("{json}\n").as_bytes()).map_err(|e| {
            CliError::new(exit::USAGE, e).hint("--out names the merged report's file")
        })?;
    }
    if a.json {
        println!("{json}");
    } else {
        print!("{table}");
    }
    Ok(())
}

/// A merge error, with a hint that reruns missing shards: the exact sbatch command when `dir`
/// holds a job written by `dixit slurm`.
pub(in crate::cli) fn merge_error(e: EvalError, dir: Option<&Path>) -> CliError {
    let EvalError::Merge(MergeError::Missing { count, missing }) = &e else {
        return eval_error(e);
    };
    let hint = rerun_hint(dir, *count, missing, "dixit eval --shard I/N --out DIR");
    eval_error(e).hint(hint)
}

/// Bad input is a usage error (exit 2); a failing sandbox or cache is dixit's (exit 70).
pub(in crate::cli) fn eval_error(e: EvalError) -> CliError {
    let usage = matches!(
        e,
        EvalError::Import(_)
            | EvalError::BadReport { .. }
            | EvalError::ReportFormat { .. }
            | EvalError::Merge(_)
            | EvalError::Scoring(_)
            | EvalError::Corpus(_)
            | EvalError::Io { .. }
    );
    let hint = match &e {
        EvalError::Import(ImportError::Discover { .. }) => {
            Some("a CodeT data directory holds *_for_code_generation.jsonl, *_for_test_case_generation.jsonl, *_code_solution.jsonl and *_test_case.jsonl")
        }
        _ => None,
    };
    let code = if usage { exit::USAGE } else { exit::INTERNAL };
    let mut err = CliError::new(code, e);
    if let Some(h) = hint {
        err = err.hint(h);
    }
    err
}

/// indicatif bars on stderr, one per phase; hidden with `--quiet` or when stderr is no terminal.
pub(in crate::cli) struct Bars {
    quiet: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl Bars {
    pub(in crate::cli) fn new(quiet: bool) -> Self {
        Bars {
            quiet,
            bar: Mutex::new(None),
        }
    }
}

impl Progress for Bars {
    fn start(&self, phase: &str, total: u64) {
        let target = if self.quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        if let Ok(style) = ProgressStyle::with_template(
            "{prefix:>14} [{bar:36}] {human_pos}/{human_len} · {per_sec} · eta {eta}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(phase.to_string());
        *self.bar.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar);
    }

    fn advance(&self, n: u64) {
        if let Some(bar) = &*self.bar.lock().unwrap_or_else(|e| e.into_inner()) {
            bar.inc(n);
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            bar.finish_and_clear();
        }
    }
}
