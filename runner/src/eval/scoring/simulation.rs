//! The Dixit loop simulated on recorded verdicts: coders drawn from the pool, tests arriving in
//! a random order, classified by the band among the current coders, failing coders replaced.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use super::{Fraction, ProblemMatrix};
use crate::classify::{class_of, Class, DEFAULT_MINORITY};

/// Default number of simulated coders in the Dixit loop.
pub const DEFAULT_CODERS: usize = 5;
/// Default number of seeds the Dixit loop simulation is averaged over.
pub const DEFAULT_SEEDS: u32 = 20;

/// Settings of the Dixit loop simulation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LoopConfig {
    /// Number of simultaneous coders N.
    pub coders: usize,
    /// Number of seeds S the result is averaged over.
    pub seeds: u32,
    /// Base seed, mixed with the problem id and the seed index.
    pub base_seed: u64,
    /// TOO_HARD threshold as a share of the N coders.
    pub minority: f64,
}

impl Default for LoopConfig {
    fn default() -> Self {
        Self {
            coders: DEFAULT_CODERS,
            seeds: DEFAULT_SEEDS,
            base_seed: 0,
            minority: DEFAULT_MINORITY,
        }
    }
}

/// Totals of a Dixit loop simulation of one problem over all seeds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopOutcome {
    /// Final coders that are correct, summed over seeds.
    pub correct: u64,
    /// Final coders, summed over seeds (N × S, or less if the pool is smaller).
    pub coders: u64,
    /// Times a coder failing the suite could not be replaced (no pool member
    /// passes the whole suite), summed over seeds.
    pub stuck: u64,
    /// Seeds that ended with at least one coder failing the suite.
    pub stuck_runs: u64,
    /// Final suite sizes (unique tests), summed over seeds.
    pub suite_tests: u64,
    /// TOO_HARD tests later revived into the suite, summed over seeds.
    pub revived: u64,
}

impl LoopOutcome {
    /// Expected pass@1: mean correctness of the final coders over seeds.
    pub fn pass_at_1(&self) -> Fraction {
        Fraction {
            num: self.correct,
            den: self.coders,
        }
    }
}

/// 64-bit FNV-1a, a stable hash so a problem's seeds do not depend on its
/// position in a shard.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The RNG seed of run `seed` of problem `id`.
fn loop_seed(base: u64, id: &str, seed: u32) -> u64 {
    fnv1a(id) ^ base.rotate_left(32) ^ u64::from(seed).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Expands multiplicities: index `i` repeated `counts[i]` times.
fn expand(counts: &[u32]) -> Vec<usize> {
    counts
        .iter()
        .enumerate()
        .flat_map(|(i, &c)| std::iter::repeat_n(i, c as usize))
        .collect()
}

/// State of one simulated run.
struct LoopRun<'a> {
    m: &'a ProblemMatrix,
    minority: f64,
    /// Unique-solution index of each coder.
    coders: Vec<usize>,
    /// Per unique solution: passes every suite test so far.
    passes_suite: Vec<bool>,
    in_suite: Vec<bool>,
    suite_len: u64,
    /// TOO_HARD tests, in arrival order.
    aside: Vec<usize>,
    in_aside: Vec<bool>,
    outcome: LoopOutcome,
}

impl LoopRun<'_> {
    fn band(&self, t: usize) -> Class {
        let failures = self
            .coders
            .iter()
            .filter(|&&c| !self.m.passes[c][t])
            .count();
        class_of(failures as u64, self.coders.len() as u64, self.minority)
    }

    /// Adds an IDEAL test, replaces coders failing the suite, then revives
    /// aside tests that became IDEAL, one at a time, until none does.
    fn admit(&mut self, first: usize, rng: &mut StdRng) {
        let mut t = first;
        loop {
            self.in_suite[t] = true;
            self.suite_len += 1;
            for (i, ok) in self.passes_suite.iter_mut().enumerate() {
                *ok &= self.m.passes[i][t];
            }
            self.replace_failing(rng);
            let Some(pos) = self
                .aside
                .iter()
                .position(|&a| self.band(a) == Class::Ideal)
            else {
                break;
            };
            t = self.aside.remove(pos);
            self.in_aside[t] = false;
            self.outcome.revived += 1;
        }
    }

    /// Replaces every coder failing the suite by a pool member drawn uniformly
    /// (with multiplicity) among those passing the whole suite.
    fn replace_failing(&mut self, rng: &mut StdRng) {
        let weights: Vec<u64> = self
            .m
            .solution_counts
            .iter()
            .zip(&self.passes_suite)
            .map(|(&c, &ok)| if ok { u64::from(c) } else { 0 })
            .collect();
        let total: u64 = weights.iter().sum();
        for k in 0..self.coders.len() {
            if self.passes_suite[self.coders[k]] {
                continue;
            }
            if total == 0 {
                self.outcome.stuck += 1;
                continue;
            }
            let mut r = rng.random_range(0..total);
            for (i, &w) in weights.iter().enumerate() {
                if r < w {
                    self.coders[k] = i;
                    break;
                }
                r -= w;
            }
        }
    }
}

/// Simulates the Dixit loop on recorded verdicts, averaged over seeds.
///
/// Decisions, per seed (an independent [`StdRng`] seeded from `base_seed`,
/// the problem id and the seed index; results are reproducible for a given
/// `rand` version):
/// * **coders**: N pool members drawn *without replacement* from the pool
///   with multiplicity (identical sources may still be drawn twice, as they
///   are distinct samples); if the pool is smaller than N, all of it;
/// * **arrivals**: the test *samples* (with multiplicity) in a uniformly
///   shuffled order, so popular tests tend to arrive early; an arrival whose
///   test is already in the suite or aside is ignored; a TOO_EASY arrival is
///   dropped (a later duplicate is classified afresh);
/// * **classification**: failures among the N current coders; 0 → TOO_EASY,
///   more than `minority × N` → TOO_HARD (kept aside), else IDEAL (joins);
/// * **replacement**: after every suite addition, each coder failing the
///   suite is replaced by a pool member drawn uniformly with multiplicity
///   among those passing the whole suite (current coders included, so two
///   coders may coincide); if there is none the coder stays (counted in
///   [`LoopOutcome::stuck`]). With `minority < 1` this cannot happen: an
///   IDEAL test is passed by some current coder, who passes the whole suite;
/// * **revival**: after every suite change the aside tests are re-checked in
///   arrival order; the first that is now IDEAL joins (a new suite change);
///   aside tests that are now TOO_EASY stay aside;
/// * **result**: the fraction of correct coders at the end.
pub fn dixit_loop(m: &ProblemMatrix, config: &LoopConfig) -> LoopOutcome {
    let pool = expand(&m.solution_counts);
    let arrivals = expand(&m.test_counts);
    let n = config.coders.min(pool.len());
    let mut total = LoopOutcome::default();
    if n == 0 {
        return total;
    }
    for seed in 0..config.seeds {
        let mut rng = StdRng::seed_from_u64(loop_seed(config.base_seed, &m.id, seed));
        let coders = rand::seq::index::sample(&mut rng, pool.len(), n)
            .into_iter()
            .map(|k| pool[k])
            .collect();
        let mut order = arrivals.clone();
        order.shuffle(&mut rng);
        let mut run = LoopRun {
            m,
            minority: config.minority,
            coders,
            passes_suite: vec![true; m.solution_counts.len()],
            in_suite: vec![false; m.test_counts.len()],
            suite_len: 0,
            aside: Vec::new(),
            in_aside: vec![false; m.test_counts.len()],
            outcome: total,
        };
        for t in order {
            if run.in_suite[t] || run.in_aside[t] {
                continue;
            }
            match run.band(t) {
                // `class_of` never says INVALID: a test that does not build fails here.
                Class::TooEasy | Class::Invalid => {}
                Class::TooHard => {
                    run.aside.push(t);
                    run.in_aside[t] = true;
                }
                Class::Ideal => run.admit(t, &mut rng),
            }
        }
        total = run.outcome;
        total.correct += run.coders.iter().filter(|&&c| m.hidden[c]).count() as u64;
        total.coders += n as u64;
        total.suite_tests += run.suite_len;
        if run.coders.iter().any(|&c| !run.passes_suite[c]) {
            total.stuck_runs += 1;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selection::testing::{frac, matrix};

    #[test]
    fn loop_converges_to_the_suite_passers() {
        // Pool: s0 x6 right (passes t0, t1), s1 x4 wrong (fails t1). t0 is
        // always TOO_EASY. With k wrong coders among the 5 drawn: k = 0 →
        // all right; k = 1..2 → t1 IDEAL, the wrong coders are replaced by s0
        // → all right; k >= 3 → t1 TOO_HARD, nothing changes → (5-k)/5 right.
        let m = matrix(&[6, 4], &[1, 1], &["11", "10"], &[true, false]);
        let cfg = LoopConfig {
            seeds: 50,
            ..LoopConfig::default()
        };
        let out = dixit_loop(&m, &cfg);
        assert_eq!(out.coders, 250);
        assert_eq!(out.stuck, 0);
        // Deterministic for fixed seeds.
        assert_eq!(out, dixit_loop(&m, &cfg));
        // Expected: P(k=3) = C(4,3)C(6,2)/C(10,5) = 60/252, P(k=4) = 6/252,
        // so (186 + 60 x 0.4 + 6 x 0.2) / 252 ~= 0.838.
        let rate = out.pass_at_1().value();
        assert!(rate > 0.7 && rate < 0.95, "{rate}");
    }

    #[test]
    fn loop_all_right_when_everyone_is_right_or_only_one_wrong() {
        // 9 right + 1 wrong: at most one wrong coder → t0 IDEAL if drawn → fixed.
        let m = matrix(&[9, 1], &[1], &["1", "0"], &[true, false]);
        let out = dixit_loop(&m, &LoopConfig::default());
        assert_eq!(out.pass_at_1(), frac(100, 100));
        assert_eq!(out.stuck_runs, 0);
    }

    #[test]
    fn loop_replaces_failing_coders() {
        // Pool = 5 coders: s0 x4 passes t0 only, s1 x1 passes t1 only.
        // t0 (1 failure) is IDEAL, t1 (4 failures) TOO_HARD. Whatever the
        // order, t0 joins, s1 is replaced by s0 (the only suite passer), and
        // t1, now failed by all 5, stays aside.
        let m = matrix(&[4, 1], &[1, 1], &["10", "01"], &[true, false]);
        let out = dixit_loop(&m, &LoopConfig::default());
        assert_eq!(out.pass_at_1(), frac(100, 100));
        assert_eq!(out.suite_tests, 20);
        // s0 x3, s1 x2: t0 has 2 failures (IDEAL), t1 3 (TOO_HARD): same end.
        let m = matrix(&[3, 2], &[1, 1], &["10", "01"], &[true, false]);
        let out = dixit_loop(&m, &LoopConfig::default());
        assert_eq!(out.pass_at_1(), frac(100, 100));
        // 4 coders of that pool: 3 s0 + 1 s1 → t0 IDEAL → all s0 (right);
        // 2 s0 + 2 s1 → both tests fail 2 > 1.6 → TOO_HARD → half right.
        let cfg = LoopConfig {
            coders: 4,
            ..LoopConfig::default()
        };
        let out = dixit_loop(&m, &cfg);
        assert_eq!(out.coders, 80);
        assert_eq!(out.stuck, 0);
        assert!(out.correct >= 40 && out.correct <= 80, "{out:?}");
    }

    #[test]
    fn loop_contradictory_tests() {
        // Pool 2, both drawn, minority 0.5: s0 passes only t0, s1 only t1.
        // The first arrival is IDEAL; its failer is replaced by its passer;
        // the second is then failed by both coders → TOO_HARD, aside.
        let m = matrix(&[1, 1], &[1, 1], &["10", "01"], &[true, false]);
        let cfg = LoopConfig {
            coders: 2,
            minority: 0.5,
            seeds: 10,
            ..LoopConfig::default()
        };
        let out = dixit_loop(&m, &cfg);
        assert_eq!(out.stuck, 0);
        assert_eq!(out.suite_tests, 10);
        assert!(out.correct.is_multiple_of(2), "{out:?}");
    }

    #[test]
    fn loop_stuck_coder_stays() {
        // Cannot happen in a run with minority < 1 (an IDEAL test is passed by
        // a current coder, who then passes the whole suite), so drive the run
        // by hand: coders s0, s1; suite t0 then t1, which nobody passes both.
        let m = matrix(&[1, 1], &[1, 1], &["10", "01"], &[true, false]);
        let mut run = LoopRun {
            m: &m,
            minority: 0.5,
            coders: vec![0, 1],
            passes_suite: vec![true, true],
            in_suite: vec![false; 2],
            suite_len: 0,
            aside: Vec::new(),
            in_aside: vec![false; 2],
            outcome: LoopOutcome::default(),
        };
        let mut rng = StdRng::seed_from_u64(1);
        run.admit(0, &mut rng);
        // s1 fails t0 and is replaced by s0, the only passer.
        assert_eq!(run.coders, vec![0, 0]);
        run.admit(1, &mut rng);
        // Nobody passes {t0, t1}: both coders are stuck and stay.
        assert_eq!(run.coders, vec![0, 0]);
        assert_eq!(run.outcome.stuck, 2);
    }

    #[test]
    fn loop_revives_aside_tests() {
        // Pool 5, all drawn: s0 x2 (right) passes t0, t1; s1 x2 passes t1;
        // s2 x1 passes nothing. t0: 3 failures → TOO_HARD; t1: 1 → IDEAL.
        // When t1 joins, s2 is replaced by s0 or s1 (1/2 each). If by s0, t0
        // has 2 failures → IDEAL: revived if it had arrived first, and then
        // the s1 coders are replaced by s0 (all right); else 2/5 right.
        // Expected pass@1 = 1/2 + 1/2 x 2/5 = 0.7; revival in 1/4 of runs.
        let m = matrix(
            &[2, 2, 1],
            &[1, 1],
            &["11", "01", "00"],
            &[true, false, false],
        );
        let cfg = LoopConfig {
            seeds: 40,
            ..LoopConfig::default()
        };
        let out = dixit_loop(&m, &cfg);
        assert!(out.revived > 0, "{out:?}");
        let rate = out.pass_at_1().value();
        assert!(rate > 0.5 && rate < 0.9, "{rate}");
    }
}
