//! Choosing the implementation to ship: one module for `dixit eval`, which scores each strategy
//! on recorded corpora, and for live runs, which ship by one of them (DESIGN, The experiment).
//!
//! Input: a [`ProblemMatrix`]: which unique solution passes which test, with the multiplicity
//! of each, what each answered to each call the tests made ([`Outputs`]), and, offline only,
//! which solutions are correct (the hidden tests) and which tests are (the reference). A
//! strategy's [`Strategy::pick`] reads the first two only: the solutions a uniform draw is made
//! among (ties pooled). `dixit eval` turns a pick into expected pass@1 ([`Fraction`]); a live run
//! ships the first coder of its pick.
//!
//! Conventions shared by all strategies:
//! * the *pool* is the solution samples with multiplicity (a unique solution seen 3 times is 3
//!   pool members; in a live run every coder counts once);
//! * "picking among tied solutions" means drawing one pool member uniformly among the tied
//!   ones, so the expected pass@1 is (correct members) / (members): multiplicity weights the
//!   draw;
//! * a problem with no solution samples scores 0.
//!
//! Strategies that compare *answers* (MBR-exec, SRank) need [`Outputs`], what each solution
//! answered to each call the tests made; without them (a pass/fail verdict file, a compiled
//! language) they have no result, and reports say so rather than show a number.
//!
//! The strategies, a file each, each naming the paper and the code it follows:
//! - `codet.rs`: CodeT's dual agreement ([`DualAgreement`]);
//! - `maxpass.rs`: MaxPass, most tests passed;
//! - `mbr_exec.rs`: MBR-exec, the largest group of samples answering alike;
//! - `b4.rs`: B4, a Beta-Bernoulli posterior over the pass matrix;
//! - `srank.rs`: SRank, answer clusters weighted by the other clusters' agreement;
//! - `band.rs`: the Dixit band over the pool, and how precise its classes are;
//! - `band_front.rs`: the band in front of CodeT, B4 and SRank: as their test filter, or as a
//!   filter of the solutions they choose among;
//! - `strategy.rs`: [`Strategy`], the strategies by name, and what each picks;
//! - `outputs.rs`: the answers ([`Outputs`]).

mod b4;
mod band;
mod band_front;
mod codet;
mod maxpass;
mod mbr_exec;
mod outputs;
mod srank;
mod strategy;

use serde::{Deserialize, Serialize};

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
pub use srank::{srank, srank_weighted};
pub use strategy::{Pick, SelectionConfig, Strategy};

/// Why a matrix is not one.
#[derive(Debug, thiserror::Error)]
#[error("problem {id}: {what}")]
pub struct ShapeError {
    /// The problem's id.
    pub id: String,
    /// What is wrong with its shape.
    pub what: String,
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
    pub fn validate(&self) -> Result<(), ShapeError> {
        let (s, t) = (self.solution_counts.len(), self.test_counts.len());
        let shape = |what: String| {
            Err(ShapeError {
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
    pub fn draw_among(&self, chosen: impl IntoIterator<Item = usize>) -> Fraction {
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
