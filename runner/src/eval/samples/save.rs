//! A scoring's files: a whole scoring's results and report, or a shard's part of them for
//! `dixit merge DIR`, and each task's programs and verdicts.

use std::path::{Path, PathBuf};

use super::merge::{SamplesShard, SAMPLES_SHARD_KIND};
use super::score::{SampleResult, SamplesEvaluation, SamplesReport};
use crate::eval::EvalError;

impl SamplesEvaluation {
    /// Writes `samples_results.jsonl` (one line per sample, in input order), `samples_report.json`
    /// and `problems/<task>.json` (each task's programs and verdicts) under `dir`, each
    /// atomically; returns the results file's path. A shard writes its `problems/` and
    /// `shard-I-of-N.json` (a [`SamplesShard`]) instead, for `dixit merge DIR`.
    pub fn save(&self, dir: &Path) -> Result<PathBuf, EvalError> {
        let problems = dir.join("problems");
        std::fs::create_dir_all(&problems).map_err(|e| EvalError::io(&problems, e))?;
        for t in &self.tasks {
            crate::eval::evaluate::write_json(
                &problems.join(crate::eval::problem_file_name(&t.id)),
                t,
            )?;
        }
        if let Some(shard) = self.report.shard {
            let path = dir.join(crate::scaleout::shard_file_name(shard));
            let part = SamplesShard {
                kind: SAMPLES_SHARD_KIND.to_string(),
                report: self.report.clone(),
                results: self
                    .places
                    .samples
                    .iter()
                    .copied()
                    .zip(self.results.iter().cloned())
                    .collect(),
                tasks: self.places.tasks.clone(),
                selected_samples: self.places.selected_samples,
            };
            crate::eval::evaluate::write_json(&path, &part)?;
            return Ok(path);
        }
        save_whole(dir, &self.report, &self.results)
    }
}

/// Writes a whole scoring's results and report into `dir`; returns the results file.
pub fn save_whole(
    dir: &Path,
    report: &SamplesReport,
    results: &[SampleResult],
) -> Result<PathBuf, EvalError> {
    let mut lines = String::new();
    for r in results {
        lines.push_str(&serde_json::to_string(r).unwrap_or_default());
        lines.push('\n');
    }
    let path = dir.join(RESULTS_FILE);
    crate::scaleout::write_atomic(&path, lines.as_bytes())
        .map_err(|e| EvalError::io(&path, std::io::Error::other(e.to_string())))?;
    crate::eval::evaluate::write_json(&dir.join(REPORT_FILE), report)?;
    Ok(path)
}

/// The results file `--out` writes.
pub const RESULTS_FILE: &str = "samples_results.jsonl";
/// The report file `--out` writes.
pub const REPORT_FILE: &str = "samples_report.json";
