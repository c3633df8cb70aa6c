//! Pass@1 of solution-selection strategies over recorded verdict matrices.
//!
//! Input: per problem, a [`ProblemMatrix`] of verdicts (which unique solution
//! passes which unique generated test, which solutions pass the hidden tests,
//! which tests the reference solution passes), with the multiplicity of every
//! solution and test in the recorded samples. A harness such as
//! `scripts/native_eval.py` writes them as a [`VerdictFile`].
//!
//! The strategies are [`crate::selection`]'s, the module live runs ship by: each picks the
//! solutions a uniform draw is made among, and here that pick becomes the *expected* pass@1 as
//! an exact [`Fraction`] (so reports can be merged and serialised without rounding); a
//! [`Report`] averages the per-problem values over problems.
//!
//! - `simulation.rs`: the Dixit loop simulated on recorded verdicts.

mod simulation;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::corpus::Weighted;
use crate::classify::DEFAULT_MINORITY;

pub use crate::selection::{
    among_ideal_passers, b4, b4_groups, b4_ideal_tests, b4_over, band_precision, codet_ideal_tests,
    dixit_band, dual_agreement, ideal_passers, ideal_tests, max_pass, mbr_exec, pool_bands,
    random_baseline, srank, srank_ideal_tests, srank_weighted, AnswerClass, AnswerKind, B4Group,
    B4Priors, BandPrecision, ClassCount, ConsensusSet, DualAgreement, Fraction, Outputs,
    ProblemMatrix, SelectionConfig, Strategy,
};
pub use simulation::{dixit_loop, LoopConfig, LoopOutcome, DEFAULT_CODERS, DEFAULT_SEEDS};

/// Errors reading verdicts or combining reports.
#[derive(Debug, thiserror::Error)]
pub enum ScoringError {
    /// The verdict file could not be read.
    #[error("cannot read verdict file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The verdict file is not valid JSON of the expected shape.
    #[error("verdict file {path} is not valid verdict json: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The underlying error, with line and column.
        source: serde_json::Error,
    },
    /// A matrix's dimensions do not agree.
    #[error(transparent)]
    Shape(#[from] crate::selection::ShapeError),
    /// Reports scored with different settings cannot be merged.
    #[error("cannot merge reports scored with different settings")]
    ConfigMismatch,
    /// A problem occurs twice among the problems of a report.
    #[error("problem {0} appears more than once")]
    DuplicateProblem(String),
    /// [`Report::merge`] was given no reports.
    #[error("no reports to merge")]
    NothingToMerge,
}

/// One problem of a verdict file as written by `scripts/native_eval.py`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedProblem {
    /// Problem id.
    pub id: String,
    /// Unique solutions with multiplicity.
    pub solutions: Vec<Weighted>,
    /// Unique generated tests with multiplicity.
    pub tests: Vec<Weighted>,
    /// `passes[i][j]`: solution `i` passes test `j`.
    pub passes: Vec<Vec<bool>>,
    /// Solution `i` passes the hidden tests.
    pub hidden: Vec<bool>,
    /// The reference solution passes test `j`.
    pub reference_passes: Vec<bool>,
    /// The reference solution passes the hidden tests (a harness sanity check).
    #[serde(default)]
    pub reference_hidden: Option<bool>,
    /// Solution `i`'s code runs at all ([`ProblemMatrix::executes`]); absent: all of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub executes: Vec<bool>,
}

impl RecordedProblem {
    /// The verdict matrix of this problem (checked).
    pub fn matrix(&self) -> Result<ProblemMatrix, ScoringError> {
        let m = ProblemMatrix {
            id: self.id.clone(),
            solution_counts: self.solutions.iter().map(|w| w.count).collect(),
            test_counts: self.tests.iter().map(|w| w.count).collect(),
            passes: self.passes.clone(),
            hidden: self.hidden.clone(),
            reference_passes: self.reference_passes.clone(),
            executes: self.executes.clone(),
            outputs: None,
        };
        m.validate()?;
        Ok(m)
    }
}

/// A verdict file: the output of `scripts/native_eval.py`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictFile {
    /// Per-problem verdicts.
    pub problems: Vec<RecordedProblem>,
    /// Per-test timeout the harness used, in seconds.
    #[serde(default)]
    pub timeout: Option<f64>,
    /// Wall time of the harness run, in seconds.
    #[serde(default)]
    pub wall_seconds: Option<f64>,
}

impl VerdictFile {
    /// Reads a verdict file.
    pub fn read(path: &Path) -> Result<Self, ScoringError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScoringError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| ScoringError::Json {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The checked verdict matrices, in file order.
    pub fn matrices(&self) -> Result<Vec<ProblemMatrix>, ScoringError> {
        self.problems.iter().map(RecordedProblem::matrix).collect()
    }
}

/// Settings of a scoring run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScoringConfig {
    /// TOO_HARD threshold over the pool (band strategies and precision).
    pub minority: f64,
    /// Dixit loop simulation settings.
    pub dixit_loop: LoopConfig,
    /// B4's priors (reports scored before B4 existed read as the defaults).
    #[serde(default)]
    pub b4: B4Priors,
}

impl Default for ScoringConfig {
    fn default() -> Self {
        Self {
            minority: DEFAULT_MINORITY,
            dixit_loop: LoopConfig::default(),
            b4: B4Priors::default(),
        }
    }
}

/// Every strategy's result for one problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemReport {
    /// Problem id.
    pub id: String,
    /// Random baseline.
    pub random: Fraction,
    /// CodeT dual agreement (test multiplicity counted, as CodeT does).
    pub dual_agreement: Fraction,
    /// Dual agreement counting unique tests.
    pub dual_agreement_unique_tests: Fraction,
    /// Dixit band, IDEAL tests counted with multiplicity (the default).
    pub dixit_band: Fraction,
    /// Dixit band, IDEAL tests counted as unique tests.
    pub dixit_band_unique_tests: Fraction,
    /// Dixit loop simulation totals.
    pub dixit_loop: LoopOutcome,
    /// Pool band precision.
    pub band_precision: BandPrecision,
    /// MaxPass: most tests passed. (This and the strategies below are absent from reports
    /// scored before they existed.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_pass: Option<Fraction>,
    /// MBR-exec over the recorded answers (absent without answers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mbr_exec: Option<Fraction>,
    /// B4 over the pass matrix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b4: Option<Fraction>,
    /// SRank over the recorded answers (absent without answers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srank: Option<Fraction>,
    /// CodeT's dual agreement over the pool's IDEAL tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codet_ideal_tests: Option<Fraction>,
    /// B4 over the pool's IDEAL tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b4_ideal_tests: Option<Fraction>,
    /// SRank with the pool's IDEAL tests as its pass rate (absent without answers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srank_ideal_tests: Option<Fraction>,
    /// CodeT's dual agreement among the solutions that pass every IDEAL test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codet_ideal_passers: Option<Fraction>,
    /// B4 among the solutions that pass every IDEAL test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b4_ideal_passers: Option<Fraction>,
    /// SRank among the solutions that pass every IDEAL test (absent without answers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srank_ideal_passers: Option<Fraction>,
}

/// Scores one problem with every strategy: each [`Strategy`]'s pick (the code a live run ships
/// by), as expected pass@1.
pub fn score_problem(m: &ProblemMatrix, config: &ScoringConfig) -> ProblemReport {
    let c = SelectionConfig {
        minority: config.minority,
        b4: config.b4,
    };
    let scored = |s: Strategy| s.pick(m, &c).map(|p| m.draw_among(p));
    let always = |s: Strategy| scored(s).unwrap_or_default();
    ProblemReport {
        id: m.id.clone(),
        random: always(Strategy::Random),
        dual_agreement: always(Strategy::Codet),
        dual_agreement_unique_tests: dual_agreement(m, false),
        dixit_band: always(Strategy::Band),
        dixit_band_unique_tests: dixit_band(m, config.minority, false),
        dixit_loop: dixit_loop(m, &config.dixit_loop),
        band_precision: band_precision(m, config.minority),
        max_pass: scored(Strategy::MaxPass),
        mbr_exec: scored(Strategy::MbrExec),
        b4: scored(Strategy::B4),
        srank: scored(Strategy::Srank),
        codet_ideal_tests: scored(Strategy::CodetIdealTests),
        b4_ideal_tests: scored(Strategy::B4IdealTests),
        srank_ideal_tests: scored(Strategy::SrankIdealTests),
        codet_ideal_passers: scored(Strategy::CodetIdealPassers),
        b4_ideal_passers: scored(Strategy::B4IdealPassers),
        srank_ideal_passers: scored(Strategy::SrankIdealPassers),
    }
}

/// Means over problems (pass@1 in percent) and summed counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of problems.
    pub problems: usize,
    /// Random baseline, mean pass@1 %.
    pub random_pct: f64,
    /// CodeT dual agreement, mean pass@1 %.
    pub dual_agreement_pct: f64,
    /// Dual agreement with unique tests, mean pass@1 %.
    pub dual_agreement_unique_tests_pct: f64,
    /// Dixit band (test multiplicity), mean pass@1 %.
    pub dixit_band_pct: f64,
    /// Dixit band (unique tests), mean pass@1 %.
    pub dixit_band_unique_tests_pct: f64,
    /// Dixit loop simulation, mean pass@1 %.
    pub dixit_loop_pct: f64,
    /// Dixit loop: unreplaceable-coder events, summed.
    pub dixit_loop_stuck: u64,
    /// Dixit loop: runs ending with a coder failing the suite, summed.
    pub dixit_loop_stuck_runs: u64,
    /// Band precision, summed over problems.
    pub band_precision: BandPrecision,
    /// MaxPass, mean pass@1 % (this and the means below: when every problem has the
    /// strategy's result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_pass_pct: Option<f64>,
    /// MBR-exec, mean pass@1 %.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mbr_exec_pct: Option<f64>,
    /// B4, mean pass@1 %.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b4_pct: Option<f64>,
    /// SRank, mean pass@1 %.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srank_pct: Option<f64>,
    /// Dual agreement over IDEAL tests, mean pass@1 %.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codet_ideal_tests_pct: Option<f64>,
    /// B4 over IDEAL tests, mean pass@1 %.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b4_ideal_tests_pct: Option<f64>,
    /// SRank with IDEAL tests' pass rate, mean pass@1 %.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srank_ideal_tests_pct: Option<f64>,
    /// Dual agreement among IDEAL passers, mean pass@1 %.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codet_ideal_passers_pct: Option<f64>,
    /// B4 among IDEAL passers, mean pass@1 %.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b4_ideal_passers_pct: Option<f64>,
    /// SRank among IDEAL passers, mean pass@1 %.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srank_ideal_passers_pct: Option<f64>,
}

impl Summary {
    fn of(problems: &[ProblemReport]) -> Self {
        let mean = |f: &dyn Fn(&ProblemReport) -> Fraction| {
            if problems.is_empty() {
                0.0
            } else {
                let sum: f64 = problems.iter().map(|p| f(p).value()).sum();
                100.0 * sum / problems.len() as f64
            }
        };
        // A mean of a strategy some problem has no result of is no mean at all.
        let mean_of = |f: &dyn Fn(&ProblemReport) -> Option<Fraction>| {
            let all: Option<Vec<Fraction>> = problems.iter().map(f).collect();
            all.filter(|v| !v.is_empty())
                .map(|v| 100.0 * v.iter().map(|x| x.value()).sum::<f64>() / v.len() as f64)
        };
        let mut band_precision = BandPrecision::default();
        for p in problems {
            band_precision.add(&p.band_precision);
        }
        Self {
            problems: problems.len(),
            random_pct: mean(&|p| p.random),
            dual_agreement_pct: mean(&|p| p.dual_agreement),
            dual_agreement_unique_tests_pct: mean(&|p| p.dual_agreement_unique_tests),
            dixit_band_pct: mean(&|p| p.dixit_band),
            dixit_band_unique_tests_pct: mean(&|p| p.dixit_band_unique_tests),
            dixit_loop_pct: mean(&|p| p.dixit_loop.pass_at_1()),
            dixit_loop_stuck: problems.iter().map(|p| p.dixit_loop.stuck).sum(),
            dixit_loop_stuck_runs: problems.iter().map(|p| p.dixit_loop.stuck_runs).sum(),
            band_precision,
            max_pass_pct: mean_of(&|p| p.max_pass),
            mbr_exec_pct: mean_of(&|p| p.mbr_exec),
            b4_pct: mean_of(&|p| p.b4),
            srank_pct: mean_of(&|p| p.srank),
            codet_ideal_tests_pct: mean_of(&|p| p.codet_ideal_tests),
            b4_ideal_tests_pct: mean_of(&|p| p.b4_ideal_tests),
            srank_ideal_tests_pct: mean_of(&|p| p.srank_ideal_tests),
            codet_ideal_passers_pct: mean_of(&|p| p.codet_ideal_passers),
            b4_ideal_passers_pct: mean_of(&|p| p.b4_ideal_passers),
            srank_ideal_passers_pct: mean_of(&|p| p.srank_ideal_passers),
        }
    }
}

/// Order of problems in a report: ids compared as (text, number) chunks, so
/// `HumanEval/2` < `HumanEval/10`; a canonical order makes sums, and hence
/// merged reports, bit-identical to unsharded ones.
fn natural_key(id: &str) -> Vec<(bool, u128, String)> {
    let mut out = Vec::new();
    let mut rest = id;
    while let Some(c) = rest.chars().next() {
        let digit = c.is_ascii_digit();
        let end = rest
            .find(|ch: char| ch.is_ascii_digit() != digit)
            .unwrap_or(rest.len());
        let (chunk, tail) = rest.split_at(end);
        let number = if digit {
            chunk.parse().unwrap_or(u128::MAX)
        } else {
            0
        };
        out.push((digit, number, chunk.to_string()));
        rest = tail;
    }
    out
}

/// Per-problem results and their summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Settings used.
    pub config: ScoringConfig,
    /// Per-problem results, in natural id order.
    pub problems: Vec<ProblemReport>,
    /// Means and totals computed from `problems`.
    pub summary: Summary,
}

impl Report {
    /// Builds a report from per-problem results (sorted into natural id order).
    pub fn from_problems(
        config: ScoringConfig,
        mut problems: Vec<ProblemReport>,
    ) -> Result<Self, ScoringError> {
        problems.sort_by_cached_key(|p| natural_key(&p.id));
        if let Some(w) = problems.windows(2).find(|w| w[0].id == w[1].id) {
            return Err(ScoringError::DuplicateProblem(w[0].id.clone()));
        }
        let summary = Summary::of(&problems);
        Ok(Self {
            config,
            problems,
            summary,
        })
    }

    /// Scores every matrix (each is validated first).
    pub fn score(matrices: &[ProblemMatrix], config: ScoringConfig) -> Result<Self, ScoringError> {
        let mut problems = Vec::with_capacity(matrices.len());
        for m in matrices {
            m.validate()?;
            problems.push(score_problem(m, &config));
        }
        Self::from_problems(config, problems)
    }

    /// Combines reports of disjoint problem sets (shards) into the report an
    /// unsharded run would give. The summaries of the parts are ignored and
    /// recomputed from the per-problem results.
    pub fn merge(parts: impl IntoIterator<Item = Report>) -> Result<Self, ScoringError> {
        let mut parts = parts.into_iter();
        let first = parts.next().ok_or(ScoringError::NothingToMerge)?;
        let config = first.config;
        let mut problems = first.problems;
        for part in parts {
            if part.config != config {
                return Err(ScoringError::ConfigMismatch);
            }
            problems.extend(part.problems);
        }
        Self::from_problems(config, problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selection::testing::{frac, matrix};

    fn problems(n: usize) -> Vec<ProblemMatrix> {
        (0..n)
            .map(|k| {
                let mut m = matrix(
                    &[3, 1 + k as u32 % 3, 2],
                    &[2, 1, 1],
                    &["111", "101", "010"],
                    &[true, k % 2 == 0, false],
                );
                m.id = format!("P/{}", k * 3);
                m
            })
            .collect()
    }

    #[test]
    fn random_counts_multiplicity() {
        let m = matrix(&[3, 1], &[], &["", ""], &[true, false]);
        assert_eq!(random_baseline(&m), frac(3, 4));
        let empty = matrix(&[], &[], &[], &[]);
        assert_eq!(random_baseline(&empty).value(), 0.0);
    }

    #[test]
    fn nothing_passes_anything() {
        let m = matrix(&[3, 2], &[2, 1], &["00", "00"], &[false, false]);
        let r = score_problem(&m, &ScoringConfig::default());
        assert_eq!(r.random, frac(0, 5));
        assert_eq!(r.dual_agreement, frac(0, 5));
        assert_eq!(r.dixit_band, frac(0, 5));
        assert_eq!(r.dixit_loop.correct, 0);
        assert_eq!(r.dixit_loop.coders, 5 * u64::from(DEFAULT_SEEDS));
        assert_eq!(r.band_precision.too_hard.tests, 2);
        assert_eq!(r.band_precision.too_hard.samples, 3);
    }

    #[test]
    fn empty_pool_and_empty_tests() {
        let empty = matrix(&[], &[], &[], &[]);
        let r = score_problem(&empty, &ScoringConfig::default());
        assert_eq!(r.dixit_loop, LoopOutcome::default());
        assert_eq!(r.dixit_loop.pass_at_1().value(), 0.0);
        // No tests: coders stay as drawn; expectation = c/n.
        let m = matrix(&[1, 1], &[], &["", ""], &[true, false]);
        let out = dixit_loop(&m, &LoopConfig::default());
        assert_eq!(out.pass_at_1(), frac(20, 40));
    }

    #[test]
    fn shape_errors_name_the_problem() {
        let mut m = matrix(&[1], &[1], &["1"], &[true]);
        m.passes[0].push(true);
        let msg = m.validate().unwrap_err().to_string();
        assert_eq!(msg, "problem T/1: passes row 0 has 2 entries for 1 tests");
    }

    #[test]
    fn merge_equals_unsharded() {
        let all = problems(12);
        let cfg = ScoringConfig::default();
        let whole = Report::score(&all, cfg).unwrap();
        assert_eq!(whole.problems[1].id, "P/3");
        assert_eq!(whole.problems[4].id, "P/12");
        let a = Report::score(&all[7..], cfg).unwrap();
        let b = Report::score(&all[..3], cfg).unwrap();
        let c = Report::score(&all[3..7], cfg).unwrap();
        // Round trip through JSON, as shards would be stored.
        let c: Report = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
        let merged = Report::merge([a, c, b]).unwrap();
        assert_eq!(merged, whole);
    }

    #[test]
    fn merge_rejects_overlap_and_mismatch() {
        let all = problems(3);
        let cfg = ScoringConfig::default();
        let a = Report::score(&all[..2], cfg).unwrap();
        let b = Report::score(&all[1..], cfg).unwrap();
        assert!(matches!(
            Report::merge([a.clone(), b]),
            Err(ScoringError::DuplicateProblem(id)) if id == "P/3"
        ));
        let other = ScoringConfig {
            minority: 0.3,
            ..cfg
        };
        let d = Report::score(&all[2..], other).unwrap();
        assert!(matches!(
            Report::merge([a, d]),
            Err(ScoringError::ConfigMismatch)
        ));
        assert!(matches!(
            Report::merge(Vec::new()),
            Err(ScoringError::NothingToMerge)
        ));
    }

    #[test]
    fn summary_means_are_percentages() {
        let a = matrix(&[1, 1], &[], &["", ""], &[true, false]);
        let mut b = matrix(&[1], &[], &[""], &[true]);
        b.id = "T/2".into();
        let r = Report::score(&[a, b], ScoringConfig::default()).unwrap();
        assert_eq!(r.summary.problems, 2);
        assert!((r.summary.random_pct - 75.0).abs() < 1e-12);
    }

    #[test]
    fn natural_order() {
        let mut ids = vec!["HumanEval/10", "HumanEval/2", "A", "HumanEval/100"];
        ids.sort_by_key(|id| natural_key(id));
        assert_eq!(
            ids,
            vec!["A", "HumanEval/2", "HumanEval/10", "HumanEval/100"]
        );
    }
}
