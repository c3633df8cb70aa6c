//! `dixit eval` on a recorded corpus (CodeT's data directory), or on recorded verdicts
//! (`--score-verdicts`), and `dixit merge` of a corpus evaluation's shards.

use std::path::{Path, PathBuf};

use super::args::{resolve_shard, EvalArgs, MergeArgs};
use super::shared::{eval_error, merge_error, show_merged, Bars};
use crate::cli::exit::{self, CliError, CliResult};
use crate::cli::shards::ShardInputs;
use crate::cli::{toolchains, GlobalArgs};
use crate::eval::scoring::{B4Priors, LoopConfig, VerdictFile};
use crate::eval::{evaluate, EvalOptions, EvalReport, ImportOptions, Report, ScoringConfig};
use crate::report::format::thousands;
use crate::report::{eval_table, verdicts_table};

/// Where the shared CodeT data lives, relative to an ancestor directory.
const DEFAULT_CORPUS: &str = "shared/data/codet-humaneval";

/// `shared/data/codet-humaneval` under the nearest ancestor of `start` that has it.
fn find_default_corpus(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|a| a.join(DEFAULT_CORPUS))
        .find(|p| p.is_dir())
}

/// A corpus evaluation (or a scoring of recorded verdicts).
pub(super) fn run(g: &GlobalArgs, a: &EvalArgs) -> CliResult {
    let scoring = ScoringConfig {
        minority: a.minority,
        dixit_loop: LoopConfig {
            coders: a.coders,
            seeds: a.seeds,
            base_seed: a.loop_seed,
            minority: a.minority,
        },
        b4: B4Priors {
            alpha: a.b4_alpha,
            beta0: a.b4_beta0,
        },
    };
    if let Some(path) = &a.score_verdicts {
        return score_verdicts(path, scoring, a.json);
    }
    let shard = resolve_shard(a.shard, g.quiet)?;
    let corpus = match &a.corpus {
        Some(c) => c.clone(),
        None => {
            let cwd = std::env::current_dir().map_err(anyhow::Error::from)?;
            // From the working directory, else from the binary (target/release in a checkout).
            let exe = std::env::current_exe().ok();
            find_default_corpus(&cwd)
                .or_else(|| exe.as_deref().and_then(find_default_corpus))
                .ok_or_else(|| {
                    CliError::usage(format!(
                        "no corpus given and no {DEFAULT_CORPUS} above {}",
                        cwd.display()
                    ))
                    .hint("pass --corpus DIR (a CodeT data directory)")
                })?
        }
    };
    if !corpus.is_dir() {
        return Err(CliError::usage(format!(
            "corpus directory {} does not exist",
            corpus.display()
        )));
    }
    let options = EvalOptions {
        corpus,
        import: ImportOptions {
            test_case_limit: a.test_case_limit,
            only: a.only.clone(),
            limit: a.limit,
            shard,
        },
        isolation: a.isolation,
        limits: a.limits(),
        fuel_rule: a.fuel_rule(),
        scoring,
        cache_dir: None,
        processes: None,
    };
    let tc = toolchains(g)?;
    let root = tc.sandbox().cache().root();
    let options = EvalOptions {
        cache_dir: (!a.no_cache).then(|| root.to_path_buf()),
        processes: a.processes(g, root)?,
        ..options
    };
    let runtime = tc.python_runtime().map_err(|e| match e {
        crate::toolchain::ToolchainError::Missing { .. } => {
            CliError::env(e).hint("run `dixit toolchain doctor` to see how to install it")
        }
        _ => CliError::new(exit::INTERNAL, anyhow::anyhow!("{e}")),
    })?;
    let bars = Bars::new(g.quiet);
    let evaluation = evaluate(tc.sandbox(), runtime, &options, &bars).map_err(eval_error)?;
    if let Some(path) = &a.export_corpus {
        evaluation
            .corpus
            .write(path)
            .map_err(|e| eval_error(e.into()))?;
    }
    let saved = match &a.out {
        Some(dir) => Some(evaluation.save(dir).map_err(eval_error)?),
        None => None,
    };
    let report = &evaluation.report;
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(report).map_err(anyhow::Error::from)?
        );
    } else {
        print!("{}", eval_table(report));
    }
    if !g.quiet {
        let e = &report.execution;
        eprintln!(
            "evaluated {} problems in {:.1} s: {} runs, {} of {} matrices from the cache{}",
            e.corpus.problems,
            e.seconds.total,
            thousands(e.runs),
            e.cached_problems,
            e.corpus.problems,
            saved
                .as_ref()
                .map(|f| format!("; report saved as {}", f.display()))
                .unwrap_or_default()
        );
    }
    Ok(exit::OK)
}

/// Scores recorded pass/fail matrices (e.g. the native harness's) with dixit's strategies.
fn score_verdicts(path: &Path, scoring: ScoringConfig, json: bool) -> CliResult {
    let file = VerdictFile::read(path).map_err(|e| eval_error(e.into()))?;
    let matrices = file.matrices().map_err(|e| eval_error(e.into()))?;
    let report = Report::score(&matrices, scoring).map_err(|e| eval_error(e.into()))?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)?
        );
    } else {
        print!("{}", verdicts_table(path, file.wall_seconds, &report));
    }
    Ok(exit::OK)
}

/// Merges the shard reports of a corpus evaluation.
pub(super) fn merge(g: &GlobalArgs, a: &MergeArgs, inputs: &ShardInputs) -> CliResult {
    let parts = inputs.read(|p| EvalReport::read(p).map_err(eval_error), |r| r.shard)?;
    let shards = parts.len();
    let merged = EvalReport::merge_labelled(parts).map_err(|e| merge_error(e, inputs.dir()))?;
    show_merged(a, &merged, eval_table(&merged))?;
    if !g.quiet {
        eprintln!(
            "merged {shards} shards: {} problems{}",
            merged.execution.corpus.problems,
            a.out
                .as_ref()
                .map(|f| format!("; report saved as {}", f.display()))
                .unwrap_or_default()
        );
    }
    Ok(exit::OK)
}
