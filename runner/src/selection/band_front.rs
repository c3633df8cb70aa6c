//! The Dixit band in front of a selector. The band is a precise test filter (on CodeT's
//! HumanEval corpus, nearly every IDEAL test is correct, against a fifth of the TOO_HARD ones)
//! but a weak selector on its own (most IDEAL tests passed); these strategies let it choose the
//! tests and a strong selector choose the solution: CodeT's dual agreement, B4 and SRank, each
//! over the IDEAL tests of the pool only ([`pool_bands`]). Designed on the shared half of
//! CodeT's HumanEval corpus, the only corpus at hand, so their figures there are not a held-out
//! measurement (docs/eval.md says so beside them).

use super::{b4_over, pool_bands, B4Priors, DualAgreement, Fraction, Pick, ProblemMatrix};
use crate::classify::Class;

/// The pool's IDEAL tests.
pub fn ideal_tests(m: &ProblemMatrix, minority: f64) -> Vec<usize> {
    pool_bands(m, minority)
        .into_iter()
        .enumerate()
        .filter(|(_, c)| *c == Class::Ideal)
        .map(|(j, _)| j)
        .collect()
}

/// CodeT's dual agreement over the IDEAL tests only (test samples counted, as CodeT counts
/// them); with no IDEAL test any solution passes, the random baseline, as CodeT falls back.
pub fn codet_ideal_tests(m: &ProblemMatrix, minority: f64) -> Fraction {
    m.draw_among(codet_ideal_tests_pick(m, minority))
}

/// The solutions CodeT's dual agreement draws among over the IDEAL tests (every solution when
/// no IDEAL test is passed).
pub(super) fn codet_ideal_tests_pick(m: &ProblemMatrix, minority: f64) -> Pick {
    let ideal = ideal_tests(m, minority);
    let passes: Vec<Vec<bool>> = m
        .passes
        .iter()
        .map(|row| ideal.iter().map(|&j| row[j]).collect())
        .collect();
    let counts: Vec<u32> = ideal.iter().map(|&j| m.test_counts[j]).collect();
    DualAgreement::new(&passes, &m.solution_counts, &counts, true)
        .chosen()
        .unwrap_or_else(|| (0..m.solution_counts.len()).collect())
}

/// B4 over the IDEAL tests only.
pub fn b4_ideal_tests(m: &ProblemMatrix, minority: f64, priors: B4Priors) -> Fraction {
    b4_over(m, &ideal_tests(m, minority), priors)
}

/// SRank with only the IDEAL tests in its pass rate (its inputs stay every call the tests
/// made: the answers compare solutions whatever the tests expect); `None` without answers.
pub fn srank_ideal_tests(m: &ProblemMatrix, minority: f64) -> Option<Fraction> {
    srank_ideal_tests_pick(m, minority).map(|p| m.draw_among(p))
}

/// The solutions SRank draws among with the IDEAL tests as its pass rate.
pub(super) fn srank_ideal_tests_pick(m: &ProblemMatrix, minority: f64) -> Option<Pick> {
    let ideal = ideal_tests(m, minority);
    let weights: Vec<f64> = (0..m.test_counts.len())
        .map(|j| if ideal.contains(&j) { 1.0 } else { 0.0 })
        .collect();
    super::srank::srank_pick(m, &weights)
}

/// The solutions that pass every IDEAL test of the pool, when there is one and someone does.
pub fn ideal_passers(m: &ProblemMatrix, minority: f64) -> Option<Vec<usize>> {
    let ideal = ideal_tests(m, minority);
    if ideal.is_empty() {
        return None;
    }
    let keep: Vec<usize> = (0..m.passes.len())
        .filter(|&i| ideal.iter().all(|&j| m.passes[i][j]))
        .collect();
    (!keep.is_empty()).then_some(keep)
}

/// What `pick` draws among when it picks among the solutions that pass every IDEAL test (all
/// solutions when none does), as indices of `m`.
pub(super) fn among_ideal_passers_pick(
    m: &ProblemMatrix,
    minority: f64,
    pick: impl Fn(&ProblemMatrix) -> Option<Pick>,
) -> Option<Pick> {
    match ideal_passers(m, minority) {
        Some(keep) => pick(&m.only(&keep)).map(|p| p.into_iter().map(|i| keep[i]).collect()),
        None => pick(m),
    }
}

/// `select` among the solutions that pass every IDEAL test (all solutions when none does).
pub fn among_ideal_passers(
    m: &ProblemMatrix,
    minority: f64,
    select: impl Fn(&ProblemMatrix) -> Option<Fraction>,
) -> Option<Fraction> {
    match ideal_passers(m, minority) {
        Some(keep) => select(&m.only(&keep)),
        None => select(m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selection::testing::{frac, matrix, outputs};
    use crate::selection::{b4, dual_agreement, srank};

    /// The trap the band is for. s0 (x3, right) passes the right test t0; s1 (x2, wrong) fails
    /// it and passes three wrong tests t1–t3 nobody else passes. Over the pool of 5, t0 fails 2
    /// (IDEAL: at most 40 %), t1–t3 fail 3 (TOO_HARD). Calls f(0), f(1): s0 answers 1 2, s1
    /// answers 3 4; t0 is `f(0) == 1`, t1–t3 `f(1) == 4`.
    fn trap() -> ProblemMatrix {
        let mut m = matrix(&[3, 2], &[1, 1, 1, 1], &["1000", "0111"], &[true, false]);
        m.outputs = Some(outputs(&["1 2", "3 4"]));
        m
    }

    #[test]
    fn the_band_keeps_wrong_tests_from_the_selectors() {
        let m = trap();
        assert_eq!(ideal_tests(&m, 0.4), vec![0]);
        // CodeT: {t1, t2, t3} × √2 ≈ 4.24 beats {t0} × √3 ≈ 1.73. Over t0 only: s0.
        assert_eq!(dual_agreement(&m, true), frac(0, 2));
        assert_eq!(codet_ideal_tests(&m, 0.4), frac(3, 3));
        // B4 (its own code on the unique rows gives the same): over every test {s1} scores
        // −47.448 against {s0}'s −75.411; over t0, {s0} −30.631 against {s1} −46.056.
        assert_eq!(b4(&m, B4Priors::default()), frac(0, 2));
        assert_eq!(b4_ideal_tests(&m, 0.4, B4Priors::default()), frac(3, 3));
        // SRank (its own code gives the same): pass rates 1/4 and 3/4, so s1 scores 0.375 and
        // s0 0.125; over t0, 1 and 0: s0 0.5 against 0.
        assert_eq!(srank(&m), Some(frac(0, 2)));
        assert_eq!(srank_ideal_tests(&m, 0.4), Some(frac(3, 3)));
    }

    #[test]
    fn the_selectors_choose_among_the_solutions_that_pass_every_ideal_test() {
        let m = trap();
        assert_eq!(ideal_passers(&m, 0.4), Some(vec![0]));
        let codet = |m: &ProblemMatrix| Some(dual_agreement(m, true));
        assert_eq!(among_ideal_passers(&m, 0.4, codet), Some(frac(3, 3)));
        assert_eq!(among_ideal_passers(&m, 0.4, srank), Some(frac(3, 3)));
        // The chosen matrix keeps the answers of the kept solutions only.
        let kept = m.only(&[1]);
        assert_eq!(kept.outputs.unwrap().rows, vec![vec![2, 3]]);
        // Nobody passes both IDEAL tests t0 and t1 (minority 0.5 makes both IDEAL): the
        // selector chooses among everyone, as without the band.
        let m = matrix(&[3, 3], &[1, 1], &["10", "01"], &[true, false]);
        assert_eq!(ideal_tests(&m, 0.5), vec![0, 1]);
        assert_eq!(ideal_passers(&m, 0.5), None);
        assert_eq!(among_ideal_passers(&m, 0.5, codet), codet(&m));
        // No IDEAL test: the same.
        assert_eq!(ideal_passers(&m, 0.0), None);
    }

    #[test]
    fn codet_over_ideal_tests_is_not_the_band() {
        // Ten samples, three IDEAL tests each failed by 3: s0 (x1) passes all three, s1, s2,
        // s3 (x3 each) two of them. The band picks s0 (most IDEAL tests); CodeT scores s0's
        // set 3 × √1 = 3 and each pair's 2 × √3 ≈ 3.46, and pools the three pairs.
        let m = matrix(
            &[1, 3, 3, 3],
            &[1, 1, 1],
            &["111", "110", "101", "011"],
            &[true, false, false, false],
        );
        assert_eq!(ideal_tests(&m, 0.4), vec![0, 1, 2]);
        assert_eq!(super::super::dixit_band(&m, 0.4, true), frac(1, 1));
        assert_eq!(codet_ideal_tests(&m, 0.4), frac(0, 9));
    }

    #[test]
    fn without_an_ideal_test_the_selectors_have_nothing_to_go_by() {
        let mut m = trap();
        // Minority 0: every failed test is TOO_HARD.
        assert!(ideal_tests(&m, 0.0).is_empty());
        assert_eq!(codet_ideal_tests(&m, 0.0), frac(3, 5));
        // B4 over no column: one group of every solution that runs.
        assert_eq!(b4_ideal_tests(&m, 0.0, B4Priors::default()), frac(3, 5));
        // SRank: every rate 0, every score 0: all tie.
        assert_eq!(srank_ideal_tests(&m, 0.0), Some(frac(3, 5)));
        m.outputs = None;
        assert_eq!(srank_ideal_tests(&m, 0.4), None);
    }
}
