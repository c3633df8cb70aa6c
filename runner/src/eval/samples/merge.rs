//! Shards of one samples scoring (`dixit eval --samples FILE --shard I/N --out DIR`) and their
//! merge (`dixit merge DIR`) into exactly the results and report one unsharded scoring gives:
//! each shard keeps where its samples and tasks stand in the whole, so the merge puts every
//! line back in input order and every task in benchmark order.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::pass_at_k::pass_at_ks;
use super::score::{SampleResult, SamplesEvalError, SamplesExecution, SamplesReport};
use crate::eval::evaluate::check_shard_parts;
use crate::eval::{EvalError, MergeError};

/// The `kind` of a samples shard file (a corpus shard file has none).
pub const SAMPLES_SHARD_KIND: &str = "samples";

/// One shard's part of a samples scoring, as `shard-I-of-N.json` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplesShard {
    /// [`SAMPLES_SHARD_KIND`].
    pub kind: String,
    /// The shard's own report (its `shard` set).
    pub report: SamplesReport,
    /// Each of its results with its place among the samples of the whole scoring.
    pub results: Vec<(usize, SampleResult)>,
    /// Every selected task's place in benchmark order (the same in every shard).
    pub tasks: BTreeMap<String, usize>,
    /// Samples of every selected task (the same in every shard).
    pub selected_samples: usize,
}

impl SamplesShard {
    /// Whether the JSON file at `path` is a samples shard (rather than a corpus shard).
    pub fn is_one(path: &Path) -> bool {
        #[derive(Deserialize)]
        struct Head {
            kind: Option<String>,
        }
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| serde_json::from_str::<Head>(&t).ok())
            .and_then(|h| h.kind)
            .is_some_and(|k| k == SAMPLES_SHARD_KIND)
    }

    /// Reads a samples shard file.
    pub fn read(path: &Path) -> Result<SamplesShard, EvalError> {
        let text = std::fs::read_to_string(path).map_err(|e| EvalError::io(path, e))?;
        serde_json::from_str(&text).map_err(|source| EvalError::BadReport {
            path: path.to_path_buf(),
            source,
        })
    }

    /// What must be equal for shards to be parts of one scoring.
    fn setup_value(&self) -> serde_json::Value {
        serde_json::json!({
            "format": self.report.format,
            "setup": self.report.setup,
            "selected_samples": self.selected_samples,
            "tasks": self.tasks,
            "refused_tasks": self.report.refused_tasks,
            "unscored_samples": self.report.unscored_samples,
        })
    }
}

/// Joins labelled shards into the whole scoring's report and results (input order). Every shard
/// `1..=n` must be there once, with the same setup, and their samples must make up the
/// selection exactly. Execution counts are summed; the wall time is the slowest shard's.
pub fn merge_shards(
    parts: Vec<(String, SamplesShard)>,
) -> Result<(SamplesReport, Vec<SampleResult>), SamplesEvalError> {
    let labelled: Vec<(&str, Option<crate::scaleout::Shard>, serde_json::Value)> = parts
        .iter()
        .map(|(label, p)| (label.as_str(), p.report.shard, p.setup_value()))
        .collect();
    check_shard_parts(&labelled).map_err(EvalError::from)?;
    let first = parts[0].1.clone();
    let place = |id: &str| first.tasks.get(id).copied().unwrap_or(usize::MAX);

    let mut results: Vec<(usize, SampleResult)> = Vec::new();
    let mut per_task = Vec::new();
    let mut missing = Vec::new();
    let mut problems = Vec::new();
    let mut verdicts: BTreeMap<String, usize> = BTreeMap::new();
    let mut sanitized = 0;
    let mut execution = SamplesExecution::default();
    for (_, p) in parts {
        results.extend(p.results);
        per_task.extend(p.report.per_task);
        missing.extend(p.report.missing_tasks);
        problems.extend(p.report.input_problems);
        sanitized += p.report.sanitized;
        for (k, n) in p.report.verdicts {
            *verdicts.entry(k).or_insert(0) += n;
        }
        let e = &p.report.execution;
        execution.runs += e.runs;
        execution.cached_tasks += e.cached_tasks;
        execution.seconds = execution.seconds.max(e.seconds);
        execution.threads = execution.threads.max(e.threads);
        if !e.workers.is_threads() {
            execution.workers = e.workers;
        }
    }
    results.sort_by_key(|(k, _)| *k);
    let distinct = results
        .iter()
        .map(|(k, _)| *k)
        .collect::<HashSet<_>>()
        .len();
    let in_range = results.iter().all(|(k, _)| *k < first.selected_samples);
    if distinct != results.len() || !in_range || results.len() != first.selected_samples {
        return Err(EvalError::from(MergeError::SampleCount {
            expected: first.selected_samples,
            found: distinct,
        })
        .into());
    }
    per_task.sort_by_key(|t| place(&t.task_id));
    missing.sort_by_key(|id| place(id));
    // Problems of the whole file are in every shard: keep each once, in first-seen order; a
    // missing task's problem is its shard's own, put in benchmark order as one scoring does.
    let missing_set: HashSet<&str> = missing.iter().map(String::as_str).collect();
    let (mut of_tasks, of_file): (Vec<_>, Vec<_>) = problems.into_iter().partition(|p| {
        p.line.is_none()
            && p.path == first.report.setup.samples_file
            && p.task_id
                .as_deref()
                .is_some_and(|t| missing_set.contains(t))
    });
    let mut input_problems = Vec::new();
    for p in of_file {
        if !input_problems.contains(&p) {
            input_problems.push(p);
        }
    }
    of_tasks.sort_by_key(|p| place(p.task_id.as_deref().unwrap_or_default()));
    input_problems.extend(of_tasks);

    let counts: Vec<(usize, usize)> = per_task.iter().map(|t| (t.samples, t.passed)).collect();
    let results: Vec<SampleResult> = results.into_iter().map(|(_, r)| r).collect();
    let report = SamplesReport {
        pass_at_k: pass_at_ks(&counts),
        tasks: per_task.len(),
        samples: results.len(),
        passed: results.iter().filter(|r| r.passed).count(),
        sanitized,
        shard: None,
        missing_tasks: missing,
        input_problems,
        verdicts,
        reference_failures: per_task
            .iter()
            .filter(|t| !t.reference_passed)
            .map(|t| t.task_id.clone())
            .collect(),
        per_task,
        execution,
        ..first.report
    };
    Ok((report, results))
}
