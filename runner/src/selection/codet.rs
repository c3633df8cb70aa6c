//! CodeT's dual agreement (Chen et al., ICLR 2023; microsoft/CodeT `agreement.py`).

use std::collections::BTreeMap;

use super::{Fraction, Pick, ProblemMatrix};

/// One consensus set of CodeT's dual agreement: the solutions that pass exactly the same
/// tests, and its score.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsensusSet {
    /// The tests every member passes (indices, ascending; never empty).
    pub tests: Vec<usize>,
    /// Its members (solution indices, ascending).
    pub solutions: Vec<usize>,
    /// CodeT's score: the tests (test samples, with `test_multiplicity`) × √(solution samples),
    /// computed in `f64` exactly like Python.
    pub score: f64,
}

/// CodeT's dual agreement (`agreement.py` `DualAgreement` +
/// `evaluation.py` `get_result_of_sorted_solutions`, top-1) over a pass matrix: the one rule
/// `dixit eval` scores ([`dual_agreement`]) and the live protocol `codet` ships by.
///
/// * only solutions passing at least one test take part;
/// * solutions are grouped by the exact set of tests they pass (the "consensus set"); CodeT
///   gives every solution *sample* and every test *sample* its own id, so a set's size is its
///   number of solution samples (`solution_counts`) and, with `test_multiplicity`, its test
///   count is the number of test samples in the set (`test_counts`, CodeT's behaviour);
///   without, unique tests;
/// * score = tests × √solutions. (CodeT's paper writes the product of the two counts; its
///   released code, which its published numbers come from, takes the square root of the
///   solutions, and so does this.)
/// * CodeT sorts sets by score and merges consecutive sets with *equal* (`==`) scores, so all
///   sets sharing the top score are pooled ([`DualAgreement::chosen`]);
/// * if no solution passes any test (also: no tests), there is no set: CodeT falls back to the
///   random baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct DualAgreement {
    /// The consensus sets, in the order of their test sets.
    pub sets: Vec<ConsensusSet>,
}

impl DualAgreement {
    /// The consensus sets of `passes` (`passes[i][j]`: solution `i` passes test `j`), solution
    /// `i` counted `solution_counts[i]` times and test `j` `test_counts[j]` times (with
    /// `test_multiplicity`; else once).
    pub fn new(
        passes: &[Vec<bool>],
        solution_counts: &[u32],
        test_counts: &[u32],
        test_multiplicity: bool,
    ) -> DualAgreement {
        let mut groups: BTreeMap<Vec<usize>, Vec<usize>> = BTreeMap::new();
        for (i, row) in passes.iter().enumerate() {
            let set: Vec<usize> = (0..row.len()).filter(|&j| row[j]).collect();
            if !set.is_empty() {
                groups.entry(set).or_default().push(i);
            }
        }
        let sets = groups
            .into_iter()
            .map(|(tests, solutions)| {
                let test_count: u64 = if test_multiplicity {
                    tests.iter().map(|&j| u64::from(test_counts[j])).sum()
                } else {
                    tests.len() as u64
                };
                let samples: u64 = solutions
                    .iter()
                    .map(|&i| u64::from(solution_counts[i]))
                    .sum();
                ConsensusSet {
                    score: test_count as f64 * (samples as f64).sqrt(),
                    tests,
                    solutions,
                }
            })
            .collect();
        DualAgreement { sets }
    }

    /// The top score, if any solution passes a test.
    pub fn top(&self) -> Option<f64> {
        self.sets.iter().map(|s| s.score).reduce(f64::max)
    }

    /// Whether set `s` has the top score (CodeT pools every such set).
    pub fn is_top(&self, s: &ConsensusSet) -> bool {
        self.top() == Some(s.score)
    }

    /// The solutions CodeT picks among: the members of every set with the top score, pooled
    /// (ascending). None when no solution passes any test: CodeT then draws among all
    /// solutions (the random baseline).
    pub fn chosen(&self) -> Option<Vec<usize>> {
        let top = self.top()?;
        let mut chosen: Vec<usize> = self
            .sets
            .iter()
            .filter(|s| s.score == top)
            .flat_map(|s| s.solutions.iter().copied())
            .collect();
        chosen.sort_unstable();
        Some(chosen)
    }
}

/// CodeT's dual agreement as pass@1 ([`DualAgreement`]): a uniform draw among the pooled
/// solution samples of the top-scoring consensus sets, so pass@1 = correct / total over them;
/// with no set, the random baseline.
pub fn dual_agreement(m: &ProblemMatrix, test_multiplicity: bool) -> Fraction {
    m.draw_among(dual_agreement_pick(m, test_multiplicity))
}

/// The solutions dual agreement draws among: the top consensus sets', pooled; with no set,
/// every solution.
pub(super) fn dual_agreement_pick(m: &ProblemMatrix, test_multiplicity: bool) -> Pick {
    DualAgreement::new(
        &m.passes,
        &m.solution_counts,
        &m.test_counts,
        test_multiplicity,
    )
    .chosen()
    .unwrap_or_else(|| (0..m.solution_counts.len()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selection::testing::{frac, matrix};

    #[test]
    fn dual_agreement_prefers_consensus() {
        // s0 (x1, wrong) passes t0,t1; s1 (x4, right) passes t0 only.
        // Scores: {t0,t1}: 2*1 = 2; {t0}: 1*2 = 2 → tie → pooled: 4/5.
        let m = matrix(&[1, 4], &[1, 1], &["11", "10"], &[false, true]);
        assert_eq!(dual_agreement(&m, true), frac(4, 5));
        // Test multiplicity: t1 sampled 3 times → {t0,t1}: 4*1 = 4 > 2.
        let m = matrix(&[1, 4], &[1, 3], &["11", "10"], &[false, true]);
        assert_eq!(dual_agreement(&m, true), frac(0, 1));
        assert_eq!(dual_agreement(&m, false), frac(4, 5));
    }

    #[test]
    fn dual_agreement_groups_distinct_solutions_with_the_same_set() {
        // s0,s1 pass {t0}: group of 2 samples → 1*√2 ≈ 1.41;
        // s2 passes {t0,t1} alone: 2*1 = 2 → wins.
        let m = matrix(
            &[1, 1, 1],
            &[1, 1],
            &["10", "10", "11"],
            &[true, true, false],
        );
        assert_eq!(dual_agreement(&m, true), frac(0, 1));
        // Three samples with set {t0}: 1*√3 ≈ 1.73 < 2 still.
        let m = matrix(
            &[2, 1, 1],
            &[1, 1],
            &["10", "10", "11"],
            &[true, true, false],
        );
        assert_eq!(dual_agreement(&m, true), frac(0, 1));
        // Four samples: 1*√4 = 2 == 2 → exact tie, pooled 4/5.
        let m = matrix(
            &[2, 2, 1],
            &[1, 1],
            &["10", "10", "11"],
            &[true, true, false],
        );
        assert_eq!(dual_agreement(&m, true), frac(4, 5));
    }

    #[test]
    fn dual_agreement_ignores_solutions_passing_nothing_and_falls_back() {
        // s1 passes nothing and is excluded even though it is numerous.
        let m = matrix(&[1, 9], &[1], &["1", "0"], &[true, false]);
        assert_eq!(dual_agreement(&m, true), frac(1, 1));
        // Nobody passes anything → random baseline 1/10.
        let m = matrix(&[1, 9], &[1], &["0", "0"], &[true, false]);
        assert_eq!(dual_agreement(&m, true), frac(1, 10));
        // No tests at all → random baseline.
        let m = matrix(&[1, 9], &[], &["", ""], &[true, false]);
        assert_eq!(dual_agreement(&m, true), frac(1, 10));
    }

    #[test]
    fn the_chosen_solutions_are_the_members_of_the_top_sets() {
        let rows = |rows: &[&str]| -> Vec<Vec<bool>> {
            rows.iter()
                .map(|r| r.chars().map(|c| c == '1').collect())
                .collect()
        };
        // s0 and s2 agree on {t0, t1}: 2 × √2 ≈ 2.83; s1 alone passes all three: 3 × 1 = 3.
        let a = DualAgreement::new(&rows(&["110", "111", "110"]), &[1; 3], &[1; 3], true);
        assert_eq!(a.sets.len(), 2);
        assert_eq!(a.sets[0].tests, vec![0, 1]);
        assert_eq!(a.sets[0].solutions, vec![0, 2]);
        assert_eq!(a.top(), Some(3.0));
        assert_eq!(a.chosen(), Some(vec![1]));
        // A fourth member of {t0, t1}: 2 × √3 ≈ 3.46 wins.
        let a = DualAgreement::new(&rows(&["110", "111", "110", "110"]), &[1; 4], &[1; 3], true);
        assert_eq!(a.chosen(), Some(vec![0, 2, 3]));
        // Equal scores pool: {t0} × √4 = 2 and {t0, t1} × √1 = 2.
        let a = DualAgreement::new(
            &rows(&["10", "11", "10", "10", "10"]),
            &[1; 5],
            &[1; 2],
            true,
        );
        assert!(a.sets.iter().all(|s| a.is_top(s)));
        assert_eq!(a.chosen(), Some(vec![0, 1, 2, 3, 4]));
        // Nothing passed, or nothing to pass: no set, no choice (the random baseline).
        assert_eq!(
            DualAgreement::new(&rows(&["00", "00"]), &[1; 2], &[1; 2], true).chosen(),
            None
        );
        let none = DualAgreement::new(&rows(&["", ""]), &[1; 2], &[], true);
        assert!(none.sets.is_empty() && none.top().is_none());
    }
}
