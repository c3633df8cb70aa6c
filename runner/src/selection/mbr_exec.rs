//! MBR-exec (Shi et al., "Natural Language to Code Translation with Execution", EMNLP 2022;
//! facebookresearch/mbr-exec): minimum Bayes risk over execution results. Two samples match when
//! both return a value on every input and the values are equal (the hard 0/1 loss); a sample's
//! risk is the samples it does not match, so the pick is a sample that matches the most
//! samples, itself included. A sample that raises, or gives no answer, on any input matches
//! none, as in the reference code.
//!
//! The inputs are the calls the generated tests made ([`Outputs`]); values are compared as
//! Python's `==` compares them. The reference breaks ties by the samples' log-probabilities,
//! which recorded corpora do not carry: here every tied sample is in the draw.

use std::collections::BTreeMap;

use super::{Fraction, Outputs, Pick, ProblemMatrix};

/// MBR-exec's expected pass@1, `None` without recorded answers.
pub fn mbr_exec(m: &ProblemMatrix) -> Option<Fraction> {
    mbr_exec_pick(m).map(|p| m.draw_among(p))
}

/// The solutions MBR-exec draws among, `None` without recorded answers.
pub(super) fn mbr_exec_pick(m: &ProblemMatrix) -> Option<Pick> {
    let o = m.outputs.as_ref()?;
    Some(pick(m, o))
}

fn pick(m: &ProblemMatrix, o: &Outputs) -> Pick {
    // Samples answering every call alike, with values only.
    let mut groups: BTreeMap<&[u32], (u64, Vec<usize>)> = BTreeMap::new();
    for (i, row) in o.rows.iter().enumerate() {
        if m.runs(i) && row.iter().all(|&a| o.is_value(a)) {
            let g = groups.entry(row.as_slice()).or_default();
            g.0 += u64::from(m.solution_counts[i]);
            g.1.push(i);
        }
    }
    let Some(best) = groups.values().map(|g| g.0).max() else {
        // No sample matches any other (or itself): every sample has the same risk.
        return (0..m.solution_counts.len()).collect();
    };
    groups
        .values()
        .filter(|g| g.0 == best)
        .flat_map(|g| g.1.iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selection::testing::{frac, matrix, outputs};

    #[test]
    fn the_largest_group_of_samples_answering_alike_wins() {
        // Calls f(1), f(2). s0 (x1, right) and s2 (x1, right) answer (1, 2); s1 (x3, wrong)
        // answers (1, 3): the wrong answer has more samples.
        let mut m = matrix(&[1, 3, 1], &[], &["", "", ""], &[true, false, true]);
        m.outputs = Some(outputs(&["1 2", "1 3", "1 2"]));
        assert_eq!(mbr_exec(&m), Some(frac(0, 3)));
        // Two more samples of s0: (1, 2) has 4 samples.
        m.solution_counts = vec![3, 3, 1];
        assert_eq!(mbr_exec(&m), Some(frac(4, 4)));
        // Equal groups tie and are pooled.
        m.solution_counts = vec![2, 3, 1];
        assert_eq!(mbr_exec(&m), Some(frac(3, 6)));
    }

    #[test]
    fn a_sample_that_raises_or_is_not_asked_matches_nobody() {
        // s1 (x5) raises on f(2) (answer class `!`); s2 (x2) was never asked (`-`).
        let mut m = matrix(&[1, 5, 2], &[], &["", "", ""], &[true, false, false]);
        m.outputs = Some(outputs(&["1 2", "1 !", "- -"]));
        assert_eq!(mbr_exec(&m), Some(frac(1, 1)));
        // Nobody answers everything with a value: all tie, the random baseline.
        m.outputs = Some(outputs(&["1 !", "1 !", "- -"]));
        assert_eq!(mbr_exec(&m), Some(frac(1, 8)));
        // A solution that does not run takes no part.
        m.outputs = Some(outputs(&["1 2", "1 3", "1 3"]));
        m.executes = vec![true, true, false];
        assert_eq!(mbr_exec(&m), Some(frac(0, 5)));
        // No calls: every sample answers nothing alike, one group.
        m.outputs = Some(outputs(&["", "", ""]));
        m.executes = Vec::new();
        assert_eq!(mbr_exec(&m), Some(frac(1, 8)));
        // Without answers there is no result.
        m.outputs = None;
        assert_eq!(mbr_exec(&m), None);
    }
}
