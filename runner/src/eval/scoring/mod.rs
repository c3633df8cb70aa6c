//! Pass@1 of solution-selection strategies over recorded verdict matrices.
//!
//! Input: per problem, a [`ProblemMatrix`] of verdicts (which unique solution
//! passes which unique generated test, which solutions pass the hidden tests,
//! which tests the reference solution passes), with the multiplicity of every
//! solution and test in the recorded samples. A harness such as
//! `scripts/native_eval.py` writes them as a [`VerdictFile`].
//!
//! Every strategy returns, per problem, the *expected* pass@1 as an exact
//! [`Fraction`] (so reports can be merged and serialised without rounding);
//! a [`Report`] averages the per-problem values over problems.
//!
//! Conventions shared by all strategies:
//! * the *pool* is the recorded solution samples with multiplicity (a unique
//!   solution seen 3 times is 3 pool members);
//! * "picking among tied solutions" means drawing one pool member uniformly
//!   among the tied ones, so the expected pass@1 is (correct members) /
//!   (members): multiplicity weights the draw;
//! * a problem with no solution samples scores 0.
//!
//! Strategies that compare *answers* (MBR-exec, SRank) need [`Outputs`], what each solution
//! answered to each call the tests made; without them (a pass/fail verdict file) they have no
//! result, and reports say so rather than show a number.
//!
//! The strategies, a file each, each naming the paper and the code it follows:
//! - `codet.rs`: CodeT's dual agreement ([`DualAgreement`], also the rule the live protocol
//!   `codet` ships by);
//! - `maxpass.rs`: MaxPass, most tests passed;
//! - `mbr_exec.rs`: MBR-exec, the largest group of samples answering alike;
//! - `b4.rs`: B4, a Beta-Bernoulli posterior over the pass matrix;
//! - `srank.rs`: SRank, answer clusters weighted by the other clusters' agreement;
//! - `band.rs`: the Dixit band over the pool, and how precise its classes are;
//! - `band_front.rs`: the band in front of CodeT, B4 and SRank: as their test filter, or as a
//!   filter of the solutions they choose among;
//! - `simulation.rs`: the Dixit loop simulated on recorded verdicts;
//! - `outputs.rs`: the answers ([`Outputs`]).

mod b4;
mod band;
mod band_front;
mod codet;
mod maxpass;
mod mbr_exec;
mod outputs;
mod simulation;
mod srank;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::corpus::Weighted;
use crate::classify::DEFAULT_MINORITY;

pub use b4::{b4, b4_groups, b4_over, B4Group, B4Priors};
pub use band::{band_precision, dixit_band, pool_bands, BandPrecision, ClassCount};
pub use band_front::{
    among_ideal_passers, b4_ideal_tests, codet_ideal_tests, ideal_passers, ideal_tests,
    srank_ideal_tests,
};
pub use codet::{dual_agreement, ConsensusSet, DualAgreement};
pub use maxpass::max_pass;
pub use mbr_exec::mbr_exec;
pub use outputs::{AnswerClass, AnswerKind, Outputs};
pub use simulation::{dixit_loop, LoopConfig, LoopOutcome, DEFAULT_CODERS, DEFAULT_SEEDS};
pub use srank::{srank, srank_weighted};

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
    #[error("problem {id}: {what}")]
    Shape {
        /// The problem.
        id: String,
        /// What is inconsistent.
        what: String,
    },
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

/// The verdicts of one problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemMatrix {
    /// Problem id (orders problems in reports and seeds the loop simulation).
    pub id: String,
    /// Multiplicity of each unique solution.
    pub solution_counts: Vec<u32>,
    /// Multiplicity of each unique generated test.
    pub test_counts: Vec<u32>,
    /// `passes[i][j]`: solution `i` passes test `j`.
    pub passes: Vec<Vec<bool>>,
    /// `hidden[i]`: solution `i` passes the hidden tests (is correct).
    pub hidden: Vec<bool>,
    /// `reference_passes[j]`: the reference solution passes test `j` (the test
    /// is correct).
    pub reference_passes: Vec<bool>,
    /// `executes[i]`: solution `i`'s code runs at all (it compiles). Empty: all of them (a
    /// pass/fail verdict file does not say).
    pub executes: Vec<bool>,
    /// What each solution answered to each call the tests made; `None` when only pass/fail
    /// was recorded (strategies that compare answers then have no result).
    pub outputs: Option<Outputs>,
}

impl ProblemMatrix {
    /// Checks that all dimensions agree.
    pub fn validate(&self) -> Result<(), ScoringError> {
        let (s, t) = (self.solution_counts.len(), self.test_counts.len());
        let shape = |what: String| {
            Err(ScoringError::Shape {
                id: self.id.clone(),
                what,
            })
        };
        if self.passes.len() != s {
            return shape(format!(
                "passes has {} rows for {s} solutions",
                self.passes.len()
            ));
        }
        if let Some((i, row)) = self.passes.iter().enumerate().find(|(_, r)| r.len() != t) {
            return shape(format!(
                "passes row {i} has {} entries for {t} tests",
                row.len()
            ));
        }
        if self.hidden.len() != s {
            return shape(format!(
                "hidden has {} entries for {s} solutions",
                self.hidden.len()
            ));
        }
        if self.reference_passes.len() != t {
            let n = self.reference_passes.len();
            return shape(format!("reference_passes has {n} entries for {t} tests"));
        }
        if !self.executes.is_empty() && self.executes.len() != s {
            let n = self.executes.len();
            return shape(format!("executes has {n} entries for {s} solutions"));
        }
        if let Some(o) = &self.outputs {
            o.validate(s).or_else(shape)?;
        }
        Ok(())
    }

    /// The same problem with only the solutions `keep` (indices, ascending): a selector run on
    /// it picks among them.
    pub fn only(&self, keep: &[usize]) -> ProblemMatrix {
        ProblemMatrix {
            id: self.id.clone(),
            solution_counts: keep.iter().map(|&i| self.solution_counts[i]).collect(),
            test_counts: self.test_counts.clone(),
            passes: keep.iter().map(|&i| self.passes[i].clone()).collect(),
            hidden: keep.iter().map(|&i| self.hidden[i]).collect(),
            reference_passes: self.reference_passes.clone(),
            executes: if self.executes.is_empty() {
                Vec::new()
            } else {
                keep.iter().map(|&i| self.executes[i]).collect()
            },
            outputs: self.outputs.as_ref().map(|o| Outputs {
                calls: o.calls.clone(),
                answers: o.answers.clone(),
                rows: keep.iter().map(|&i| o.rows[i].clone()).collect(),
            }),
        }
    }

    /// Whether solution `i`'s code runs at all (see [`ProblemMatrix::executes`]).
    pub fn runs(&self, i: usize) -> bool {
        self.executes.get(i).copied().unwrap_or(true)
    }

    /// Size of the pool: solution samples counting multiplicity.
    pub fn pool(&self) -> u64 {
        self.solution_counts.iter().map(|&c| u64::from(c)).sum()
    }

    /// Pool members (with multiplicity) that fail test `j`.
    pub fn failures(&self, j: usize) -> u64 {
        self.passes
            .iter()
            .zip(&self.solution_counts)
            .filter(|(row, _)| !row[j])
            .map(|(_, &c)| u64::from(c))
            .sum()
    }

    /// Expected correctness of a uniform draw among the pool members of the
    /// unique solutions `chosen`.
    fn draw_among(&self, chosen: impl IntoIterator<Item = usize>) -> Fraction {
        let mut f = Fraction::default();
        for i in chosen {
            let c = u64::from(self.solution_counts[i]);
            f.den += c;
            if self.hidden[i] {
                f.num += c;
            }
        }
        f
    }
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

/// An exact non-negative ratio; `0/0` counts as 0 (nothing to pick from).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fraction {
    /// Numerator.
    pub num: u64,
    /// Denominator.
    pub den: u64,
}

impl Fraction {
    /// The value, 0 when the denominator is 0.
    pub fn value(self) -> f64 {
        if self.den == 0 {
            0.0
        } else {
            self.num as f64 / self.den as f64
        }
    }
}

/// Random baseline: the unbiased pass@1 estimator over the samples, c/n, with
/// multiplicity (CodeT's `pass_at_K` with k = 1).
pub fn random_baseline(m: &ProblemMatrix) -> Fraction {
    m.draw_among(0..m.solution_counts.len())
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

/// Scores one problem with every strategy.
pub fn score_problem(m: &ProblemMatrix, config: &ScoringConfig) -> ProblemReport {
    ProblemReport {
        id: m.id.clone(),
        random: random_baseline(m),
        dual_agreement: dual_agreement(m, true),
        dual_agreement_unique_tests: dual_agreement(m, false),
        dixit_band: dixit_band(m, config.minority, true),
        dixit_band_unique_tests: dixit_band(m, config.minority, false),
        dixit_loop: dixit_loop(m, &config.dixit_loop),
        band_precision: band_precision(m, config.minority),
        max_pass: Some(max_pass(m)),
        mbr_exec: mbr_exec(m),
        b4: Some(b4(m, config.b4)),
        srank: srank(m),
        codet_ideal_tests: Some(codet_ideal_tests(m, config.minority)),
        b4_ideal_tests: Some(b4_ideal_tests(m, config.minority, config.b4)),
        srank_ideal_tests: srank_ideal_tests(m, config.minority),
        codet_ideal_passers: among_ideal_passers(m, config.minority, |m| {
            Some(dual_agreement(m, true))
        }),
        b4_ideal_passers: among_ideal_passers(m, config.minority, |m| Some(b4(m, config.b4))),
        srank_ideal_passers: among_ideal_passers(m, config.minority, srank),
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
pub(crate) mod testing {
    //! Small matrices for the strategies' tests.
    use super::*;

    /// Builds a matrix from rows of '1'/'0' characters.
    pub(crate) fn matrix(
        sol: &[u32],
        tests: &[u32],
        rows: &[&str],
        hidden: &[bool],
    ) -> ProblemMatrix {
        let passes: Vec<Vec<bool>> = rows
            .iter()
            .map(|r| r.chars().map(|c| c == '1').collect())
            .collect();
        let m = ProblemMatrix {
            id: "T/1".into(),
            solution_counts: sol.to_vec(),
            test_counts: tests.to_vec(),
            passes,
            hidden: hidden.to_vec(),
            reference_passes: vec![true; tests.len()],
            executes: Vec::new(),
            outputs: None,
        };
        m.validate().unwrap();
        m
    }

    pub(crate) fn frac(num: u64, den: u64) -> Fraction {
        Fraction { num, den }
    }

    /// Answers from rows of space-separated tokens, one per call: `!` raises, `-` not asked,
    /// `~` no answer, anything else a value shown as the token (equal tokens, equal answers).
    pub(crate) fn outputs(rows: &[&str]) -> Outputs {
        let mut answers: Vec<AnswerClass> = Vec::new();
        let mut index = std::collections::HashMap::new();
        let rows: Vec<Vec<u32>> = rows
            .iter()
            .map(|r| {
                r.split_whitespace()
                    .map(|t| {
                        *index.entry(t.to_string()).or_insert_with(|| {
                            let kind = match t {
                                "!" => AnswerKind::Raised,
                                "-" => AnswerKind::NotAsked,
                                "~" => AnswerKind::NoAnswer,
                                _ => AnswerKind::Value,
                            };
                            answers.push(AnswerClass {
                                kind,
                                shown: t.to_string(),
                            });
                            answers.len() as u32 - 1
                        })
                    })
                    .collect()
            })
            .collect();
        let calls = rows.first().map_or(0, Vec::len);
        Outputs {
            calls: (0..calls).map(|c| format!("f({c})")).collect(),
            answers,
            rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::scoring::testing::{frac, matrix};

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
