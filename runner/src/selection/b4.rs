//! B4 (Chen et al., "B4: Towards Optimal Assessment of Plausible Code Solutions with Plausible
//! Tests", ASE 2024; ZJU-CTAG/B4 `strategy.py`, `B4`): a Bayesian selection over the pass
//! matrix. Solutions are grouped by the exact set of tests they pass (CodeT's consensus sets);
//! each group `x`, with its test set `y`, is the hypothesis "these solutions and these tests
//! are the correct ones", scored by the log of its posterior under Beta-Bernoulli models:
//!
//! ```text
//! log B(|y| + αy, M − |y| + 1)          tests correct with probability θy ~ Beta(αy, 1)
//! + log B(|x| + αx, N − |x| + 1)        solutions correct, θx ~ Beta(αx, 1)
//! + log B(s1 + 1, n1 − s1 + 1)          a wrong solution passes a right test, θ1 ~ Beta(1, 1)
//! + log B(s0 + 1, n0 − s0 + β0)         a wrong solution passes a wrong test, θ0 ~ Beta(1, β0)
//! ```
//!
//! where N solutions and M tests make the matrix, `s1` of the `n1` cells (wrong solution, right
//! test) pass and `s0` of the `n0` cells (wrong solution, wrong test). A right solution passes
//! every right test and fails every wrong one by the model's assumption, so those cells are
//! the hypothesis itself. The group with the highest score is picked (equal scores pooled).
//!
//! As in B4's harness: the matrix's rows are the unique solutions that run (a sample that does
//! not is left out), its columns the unique tests; priors αx = αy = 10³ and β0 = 10⁴ (its
//! README's command, which also tries β0 = 10⁵ and 10⁶). As everywhere in `dixit eval`, the
//! draw among the picked solutions counts samples.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Fraction, Pick, ProblemMatrix};

/// B4's priors.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct B4Priors {
    /// αx = αy: the prior weight toward a solution, or a test, being correct.
    pub alpha: f64,
    /// β0: the prior weight against a wrong solution passing a wrong test.
    pub beta0: f64,
}

impl Default for B4Priors {
    fn default() -> Self {
        B4Priors {
            alpha: 1e3,
            beta0: 1e4,
        }
    }
}

/// `ln B(a, b)`, the log of the Beta function.
fn ln_beta(a: f64, b: f64) -> f64 {
    libm::lgamma(a) + libm::lgamma(b) - libm::lgamma(a + b)
}

/// One hypothesis of B4: the solutions that pass exactly `tests`, and its log posterior.
#[derive(Debug, Clone, PartialEq)]
pub struct B4Group {
    /// The tests its members pass (column indices among the tests considered).
    pub tests: Vec<usize>,
    /// Its members (solution indices).
    pub solutions: Vec<usize>,
    /// The log posterior (up to a constant shared by every group).
    pub score: f64,
}

/// B4's groups over the columns `tests` of the matrix (every test, or a band's), rows the
/// solutions that run.
pub fn b4_groups(m: &ProblemMatrix, tests: &[usize], priors: B4Priors) -> Vec<B4Group> {
    let rows: Vec<usize> = (0..m.passes.len()).filter(|&i| m.runs(i)).collect();
    let (n, big_m) = (rows.len() as f64, tests.len() as f64);
    // How many rows pass each column.
    let column: Vec<f64> = tests
        .iter()
        .map(|&j| rows.iter().filter(|&&i| m.passes[i][j]).count() as f64)
        .collect();
    let mut layouts: BTreeMap<Vec<bool>, Vec<usize>> = BTreeMap::new();
    for &i in &rows {
        let layout: Vec<bool> = tests.iter().map(|&j| m.passes[i][j]).collect();
        layouts.entry(layout).or_default().push(i);
    }
    layouts
        .into_iter()
        .map(|(layout, solutions)| {
            let x = solutions.len() as f64;
            let y = layout.iter().filter(|&&p| p).count() as f64;
            // Cells of the rows outside the group: every member of the group passes exactly
            // `layout`, so the others' passes per column are the column's minus the group's.
            let (mut s1, mut s0) = (0.0, 0.0);
            for (k, &passes) in layout.iter().enumerate() {
                if passes {
                    s1 += column[k] - x;
                } else {
                    s0 += column[k];
                }
            }
            let n1 = (n - x) * y;
            let n0 = (n - x) * (big_m - y);
            let score = ln_beta(y + priors.alpha, big_m - y + 1.0)
                + ln_beta(x + priors.alpha, n - x + 1.0)
                + ln_beta(s1 + 1.0, n1 - s1 + 1.0)
                + ln_beta(s0 + 1.0, n0 - s0 + priors.beta0);
            B4Group {
                tests: layout
                    .iter()
                    .enumerate()
                    .filter(|(_, &p)| p)
                    .map(|(k, _)| k)
                    .collect(),
                solutions,
                score,
            }
        })
        .collect()
}

/// B4's expected pass@1 over the columns `tests`: a draw among the members of the groups with
/// the top score (the random baseline when no solution runs).
pub fn b4_over(m: &ProblemMatrix, tests: &[usize], priors: B4Priors) -> Fraction {
    m.draw_among(b4_pick_over(m, tests, priors))
}

/// The solutions B4 draws among over the columns `tests`: the top groups' members (every
/// solution when none runs).
pub(super) fn b4_pick_over(m: &ProblemMatrix, tests: &[usize], priors: B4Priors) -> Pick {
    let groups = b4_groups(m, tests, priors);
    let Some(top) = groups.iter().map(|g| g.score).reduce(f64::max) else {
        return (0..m.solution_counts.len()).collect();
    };
    groups
        .iter()
        .filter(|g| g.score == top)
        .flat_map(|g| g.solutions.iter().copied())
        .collect()
}

/// B4 over every generated test.
pub fn b4(m: &ProblemMatrix, priors: B4Priors) -> Fraction {
    let all: Vec<usize> = (0..m.test_counts.len()).collect();
    b4_over(m, &all, priors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selection::testing::{frac, matrix};

    #[test]
    fn ln_beta_is_the_log_of_the_beta_function() {
        // B(1, 1) = 1, B(2, 3) = 1/12, B(0.5, 0.5) = π.
        assert!(ln_beta(1.0, 1.0).abs() < 1e-12);
        assert!((ln_beta(2.0, 3.0) - (1.0f64 / 12.0).ln()).abs() < 1e-12);
        assert!((ln_beta(0.5, 0.5) - std::f64::consts::PI.ln()).abs() < 1e-12);
    }

    #[test]
    fn groups_are_scored_as_b4s_own_code_scores_them() {
        // The reference values are `strategy.B4(E, beta_0, alpha_xy)` of ZJU-CTAG/B4, run on
        // the same matrices (numpy 2, scipy 1.16).
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b.abs();
        // Three solutions, two tests: s0 and s1 pass both, s2 passes t0 only; α = 2, β0 = 3.
        let m = matrix(
            &[1, 1, 1],
            &[1, 1],
            &["11", "11", "10"],
            &[true, true, false],
        );
        let p = B4Priors {
            alpha: 2.0,
            beta0: 3.0,
        };
        let groups = b4_groups(&m, &[0, 1], p);
        // BTreeMap order of layouts: [true, false] before [true, true].
        assert_eq!(groups[0].solutions, vec![2]);
        assert!(close(groups[0].score, -10.38591370178042), "{groups:?}");
        assert_eq!(groups[1].solutions, vec![0, 1]);
        assert!(close(groups[1].score, -7.272398392570046), "{groups:?}");
        assert_eq!(b4(&m, p), frac(2, 2));
    }

    #[test]
    fn b4_doubts_a_test_only_one_solution_passes_where_codet_follows_it() {
        // s1 alone passes t0 and t1; s0, s2 and s3 pass t1 only. CodeT: 2 × √1 = 2 beats
        // 1 × √3 ≈ 1.73, so s1. B4 (default priors): {s0, s2, s3} scores −46.7549 against s1's
        // −46.9110 (B4's own code gives the same), so it takes t0 for a wrong test.
        let m = matrix(
            &[1, 1, 1, 1],
            &[1, 1],
            &["01", "11", "01", "01"],
            &[true, false, true, true],
        );
        assert_eq!(super::super::dual_agreement(&m, false), frac(0, 1));
        let groups = b4_groups(&m, &[0, 1], B4Priors::default());
        let score = |who: &[usize]| {
            groups
                .iter()
                .find(|g| g.solutions == who)
                .map(|g| g.score)
                .unwrap()
        };
        assert!((score(&[0, 2, 3]) - -46.75493406869356).abs() < 1e-9);
        assert!((score(&[1]) - -46.91098275617887).abs() < 1e-9);
        assert_eq!(b4(&m, B4Priors::default()), frac(3, 3));
    }

    #[test]
    fn ties_multiplicity_and_nothing_to_pick_from() {
        // Two groups of the same shape tie exactly and are pooled; the draw counts samples.
        let m = matrix(&[3, 1], &[1, 1], &["10", "01"], &[true, false]);
        assert_eq!(b4(&m, B4Priors::default()), frac(3, 4));
        // No test: one group of everything that runs.
        let mut m = matrix(&[3, 1], &[], &["", ""], &[false, true]);
        m.executes = vec![false, true];
        assert_eq!(b4(&m, B4Priors::default()), frac(1, 1));
        // Nothing runs: the random baseline.
        m.executes = vec![false, false];
        assert_eq!(b4(&m, B4Priors::default()), frac(1, 4));
        // A problem where no solution is right scores 0 whatever is picked.
        let m = matrix(&[2, 2], &[1], &["1", "0"], &[false, false]);
        assert_eq!(b4(&m, B4Priors::default()).num, 0);
    }
}
