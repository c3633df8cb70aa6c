//! SRank (To, Nguyen and Bui, "Functional Overlap Reranking for Neural Code Generation", ACL
//! Findings 2024; FSoft-AI4Code/SRank-CodeRanker, `reranking/evaluator.py` and
//! `functionality_processing.py`): clusters of solutions that answer every input alike, ranked
//! by how much the other clusters agree with them.
//!
//! As its evaluator does:
//! * a solution is **rejected** when it runs no input (it does not build, or was never asked)
//!   or, given more than one input, answers them all alike (a constant function; an exception
//!   or no answer counts as `None`, as the reference records it); rejected solutions form one
//!   cluster of score 0;
//! * the others are **clustered** by their answers to every input;
//! * each cluster `k` has a weight `V[k]` = (its unique solutions / all accepted unique
//!   solutions) × its **pass rate**, the share of the generated test cases it passes (test
//!   samples counted with multiplicity, like the reference's list of expected outputs per
//!   input; the mean over the cluster's members, who pass the same cases unless a test does
//!   more than call);
//! * the **interaction** of clusters `k` and `l` is the share of inputs on which both return a
//!   value and the values are equal (1 on the diagonal);
//! * a cluster's score is `Σ_l interaction[k][l] × V[l]`; the clusters with the top score are
//!   pooled (exact equality, as the reference merges them) and a sample is drawn among them.
//!
//! Inputs are the calls the generated tests made ([`Outputs`]), answers compared as Python's
//! `==` compares them and exceptions by class (the reference compares exceptions as `None`).

use std::collections::HashMap;

use super::{AnswerKind, Fraction, Outputs, Pick, ProblemMatrix};

/// SRank's expected pass@1 with every generated test counted in the pass rate; `None` without
/// recorded answers.
pub fn srank(m: &ProblemMatrix) -> Option<Fraction> {
    srank_weighted(m, &vec![1.0; m.test_counts.len()])
}

/// SRank with each test's weight in the pass rate given (a test of weight 0 does not count: the
/// band's filter); `None` without recorded answers.
pub fn srank_weighted(m: &ProblemMatrix, weights: &[f64]) -> Option<Fraction> {
    srank_pick(m, weights).map(|p| m.draw_among(p))
}

/// The solutions SRank draws among, each test's weight in the pass rate given; `None` without
/// recorded answers.
pub(super) fn srank_pick(m: &ProblemMatrix, weights: &[f64]) -> Option<Pick> {
    let o = m.outputs.as_ref()?;
    Some(pick(m, o, weights))
}

/// SRank's view of an answer: a returned value other than `None`, or `None` (an exception, no
/// answer and a returned `None` all read as `None`).
fn seen(o: &Outputs, a: u32) -> Option<u32> {
    let c = &o.answers[a as usize];
    (c.kind == AnswerKind::Value && c.shown != "None").then_some(a)
}

fn rejected(m: &ProblemMatrix, o: &Outputs, i: usize) -> bool {
    let row = &o.rows[i];
    let ran = m.runs(i) && row.iter().any(|&a| o.kind(a) != AnswerKind::NotAsked);
    let constant = row.len() > 1 && row.iter().all(|&a| seen(o, a) == seen(o, row[0]));
    (!ran && !row.is_empty()) || !m.runs(i) || constant
}

fn pick(m: &ProblemMatrix, o: &Outputs, weights: &[f64]) -> Pick {
    // Clusters in the order of their first member, as the reference builds them (its scores
    // are sums in that order).
    let mut clusters: Vec<(&[u32], Vec<usize>)> = Vec::new();
    let mut index: HashMap<&[u32], usize> = HashMap::new();
    let mut rejects = Vec::new();
    for i in 0..o.rows.len() {
        if rejected(m, o, i) {
            rejects.push(i);
            continue;
        }
        let row = o.rows[i].as_slice();
        match index.get(row) {
            Some(&k) => clusters[k].1.push(i),
            None => {
                index.insert(row, clusters.len());
                clusters.push((row, vec![i]));
            }
        }
    }
    let accepted: usize = clusters.iter().map(|c| c.1.len()).sum();
    let total_weight: f64 = weights
        .iter()
        .zip(&m.test_counts)
        .map(|(w, &c)| w * f64::from(c))
        .sum();
    let pass_rate = |i: usize| -> f64 {
        if total_weight == 0.0 {
            return 0.0;
        }
        let passed: f64 = (0..weights.len())
            .filter(|&j| m.passes[i][j])
            .map(|j| weights[j] * f64::from(m.test_counts[j]))
            .sum();
        passed / total_weight
    };
    let v: Vec<f64> = clusters
        .iter()
        .map(|(_, members)| {
            let size = members.len() as f64 / accepted as f64;
            let rate = members.iter().map(|&i| pass_rate(i)).sum::<f64>() / members.len() as f64;
            size * rate
        })
        .collect();
    let calls = o.calls.len();
    let overlap = |a: &[u32], b: &[u32]| -> f64 {
        if calls == 0 {
            return 0.0;
        }
        let same = a
            .iter()
            .zip(b)
            .filter(|(&x, &y)| x == y && o.is_value(x))
            .count();
        same as f64 / calls as f64
    };
    let scores: Vec<f64> = clusters
        .iter()
        .enumerate()
        .map(|(k, (row, _))| {
            clusters
                .iter()
                .enumerate()
                .map(|(l, (other, _))| {
                    let interaction = if k == l { 1.0 } else { overlap(row, other) };
                    interaction * v[l]
                })
                .sum()
        })
        .collect();
    // The rejected cluster scores 0 and ties with any accepted cluster that scores 0.
    let top = scores
        .iter()
        .copied()
        .chain((!rejects.is_empty()).then_some(0.0))
        .reduce(f64::max);
    let Some(top) = top else {
        return Vec::new();
    };
    let mut chosen: Vec<usize> = clusters
        .iter()
        .zip(&scores)
        .filter(|(_, &s)| s == top)
        .flat_map(|((_, members), _)| members.iter().copied())
        .collect();
    if top == 0.0 {
        chosen.extend(&rejects);
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selection::testing::{frac, matrix, outputs};

    /// Every expected value below is also what SRank's own code gives
    /// (`process_cluster_attention_one_task`, then `attention_score_matrix @ V`, then the pooled
    /// top), run on the same answers, tests and samples.
    #[test]
    fn clusters_are_ranked_by_the_agreement_of_the_others() {
        // Calls f(0), f(1), f(2). One sample each:
        //   A = {s0, s1} (right) answer 1 2 3; B = {s2, s3, s4} answer 1 2 4; C = {s5} 1 5 3.
        // Interactions: A–B 2/3, A–C 2/3, B–C 1/3.
        let rows = ["1 2 3", "1 2 3", "1 2 4", "1 2 4", "1 2 4", "1 5 3"];
        let hidden = [true, true, false, false, false, false];
        // Tests f(0) == 1 (all pass) and f(2) == 3 (A and C pass): rates A 1, B 1/2, C 1;
        // V = A 2/6, B 3/6 · 1/2, C 1/6. Scores A 0.6111, B 0.5278, C 0.4722: A.
        let mut m = matrix(
            &[1; 6],
            &[1, 1],
            &["11", "11", "10", "10", "10", "11"],
            &hidden,
        );
        m.outputs = Some(outputs(&rows));
        assert_eq!(srank(&m), Some(frac(2, 2)));
        // Tests f(0) == 1 and f(1) == 2 (A and B pass): rates A 1, B 1, C 1/2. Scores A 0.7222,
        // B 0.75, C 0.4722: the larger wrong cluster wins.
        m.passes = vec![
            vec![true, true],
            vec![true, true],
            vec![true, true],
            vec![true, true],
            vec![true, true],
            vec![true, false],
        ];
        assert_eq!(srank(&m), Some(frac(0, 3)));
        // The same with the second test weighted 0 (a band filter): every rate is 1.
        // Scores A 0.7778, B 0.7778 (as a float, B's sum is the larger by one unit in the last
        // place here, as in the reference), C 0.5556.
        assert_eq!(srank_weighted(&m, &[1.0, 0.0]), Some(frac(0, 3)));
    }

    #[test]
    fn constant_and_silent_solutions_are_rejected() {
        // s0 (right) answers 1 2; s1 (x3) answers 7 7 (constant); s2 (x2) raises everywhere
        // (constant: None); s3 (x4) never ran.
        let mut m = matrix(
            &[1, 3, 2, 4],
            &[1],
            &["1", "1", "1", "0"],
            &[true, false, false, false],
        );
        m.outputs = Some(outputs(&["1 2", "7 7", "! !", "- -"]));
        assert_eq!(srank(&m), Some(frac(1, 1)));
        // A returned None and an exception read the same: constant.
        m.outputs = Some(outputs(&["1 2", "None !", "! !", "- -"]));
        assert_eq!(srank(&m), Some(frac(1, 1)));
        // Everything rejected: one cluster of score 0, a draw among all of it.
        m.outputs = Some(outputs(&["7 7", "7 7", "! !", "- -"]));
        assert_eq!(srank(&m), Some(frac(1, 10)));
        // One input: no constant test; nobody passes a test, so every V is 0 and the accepted
        // clusters tie with the rejected one at 0.
        let mut m = matrix(&[1, 1, 1], &[1], &["0", "0", "0"], &[true, false, false]);
        m.outputs = Some(outputs(&["1", "2", "-"]));
        assert_eq!(srank(&m), Some(frac(1, 3)));
        // Without answers there is no result.
        m.outputs = None;
        assert_eq!(srank(&m), None);
    }
}
