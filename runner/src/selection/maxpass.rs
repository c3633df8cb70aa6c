//! MaxPass: the solutions that pass the most generated tests, the plainest heuristic (as B4's
//! `strategy.MaxPass` implements it, ZJU-CTAG/B4; Chen et al., ASE 2024, §2). Tests count as
//! unique tests and only solutions that run take part, as in B4's harness; the pick is a draw
//! among every solution with the most passes.

use super::{Fraction, Pick, ProblemMatrix};

/// MaxPass's expected pass@1 (the random baseline when no solution runs).
pub fn max_pass(m: &ProblemMatrix) -> Fraction {
    m.draw_among(max_pass_pick(m))
}

/// The solutions MaxPass draws among: those with the most passes (every solution when none
/// runs).
pub(super) fn max_pass_pick(m: &ProblemMatrix) -> Pick {
    let passed: Vec<Option<usize>> = (0..m.passes.len())
        .map(|i| {
            m.runs(i)
                .then(|| m.passes[i].iter().filter(|&&p| p).count())
        })
        .collect();
    let Some(best) = passed.iter().flatten().max().copied() else {
        return (0..passed.len()).collect();
    };
    (0..passed.len())
        .filter(|&i| passed[i] == Some(best))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selection::testing::{frac, matrix};

    #[test]
    fn the_most_passes_win_and_ties_are_drawn() {
        // s0 (x2, right) passes 2 tests; s1 (x3, wrong) 2 tests; s2 (x1) 1.
        let m = matrix(
            &[2, 3, 1],
            &[5, 1, 1],
            &["110", "011", "100"],
            &[true, false, true],
        );
        assert_eq!(max_pass(&m), frac(2, 5));
        // Test multiplicity does not count: t0 was sampled 5 times, s0 still ties with s1.
        let m = matrix(&[2, 3], &[5, 1, 1], &["100", "011"], &[true, false]);
        assert_eq!(max_pass(&m), frac(0, 3), "s1 passes two unique tests");
    }

    #[test]
    fn a_solution_that_does_not_run_takes_no_part() {
        let mut m = matrix(&[1, 4], &[1], &["0", "0"], &[true, false]);
        assert_eq!(max_pass(&m), frac(1, 5), "nobody passes anything: all tie");
        m.executes = vec![true, false];
        assert_eq!(max_pass(&m), frac(1, 1));
        m.executes = vec![false, false];
        assert_eq!(
            max_pass(&m),
            frac(1, 5),
            "nothing runs: the random baseline"
        );
        let empty = matrix(&[], &[], &[], &[]);
        assert_eq!(max_pass(&empty), Fraction::default());
    }
}
