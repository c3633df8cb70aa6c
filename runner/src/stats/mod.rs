//! The statistics a comparison reports: a pass rate with its 95 % Wilson score interval, and
//! two protocols on the same problems compared pair by pair: the difference of their pass rates
//! with a seeded percentile-bootstrap interval, and the exact McNemar (sign) test on the
//! problems where they disagree.
//!
//! Small samples are the rule here (tens of problems), so nothing leans on a normal
//! approximation of the rate itself: Wilson's interval stays inside [0, 1] and is not empty
//! at 0 or n successes, and the paired test is exact.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde::Serialize;

/// z for a two-sided 95 % interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Resamples of the paired bootstrap (enough for the second decimal of a 95 % interval).
pub const BOOTSTRAP_RESAMPLES: u32 = 10_000;

/// A closed interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    /// The lower bound.
    pub low: f64,
    /// The upper bound.
    pub high: f64,
}

impl Interval {
    /// Whether `x` lies inside.
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }
}

/// A share of problems, with its 95 % Wilson score interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rate {
    /// Problems passed.
    pub passed: u64,
    /// Problems.
    pub n: u64,
    /// `passed / n` (0 for no problems).
    pub rate: f64,
    /// The rate's 95 % Wilson score interval.
    pub interval: Interval,
}

impl Rate {
    /// The rate of `passed` of `n`, with its interval.
    pub fn of(passed: u64, n: u64) -> Rate {
        Rate {
            passed,
            n,
            rate: if n == 0 {
                0.0
            } else {
                passed as f64 / n as f64
            },
            interval: wilson(passed, n, Z95),
        }
    }
}

/// The Wilson score interval of `successes` in `n` at `z` (no continuity correction; R's
/// `prop.test(correct = FALSE)`). No problems: the whole of [0, 1].
pub fn wilson(successes: u64, n: u64, z: f64) -> Interval {
    if n == 0 {
        return Interval {
            low: 0.0,
            high: 1.0,
        };
    }
    let n = n as f64;
    let p = successes as f64 / n;
    let z2 = z * z;
    let d = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / d;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / d;
    Interval {
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    }
}

/// The two-sided exact McNemar test: of the `b + c` problems where two protocols disagree,
/// `b` went one way and `c` the other; under "neither is better" each way is a fair coin, so
/// p = P(a split at least this uneven) = min(1, 2 · P(X ≤ min(b, c))), X ~ Binomial(b + c, ½).
/// The sign test on paired pass/fail is the same test. No disagreement: p = 1.
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    // ln C(n, i) built up term by term, so that large n neither overflows nor underflows.
    let ln_half_n = n as f64 * std::f64::consts::LN_2;
    let mut ln_choose = 0.0_f64;
    let mut tail = (-ln_half_n).exp();
    for i in 1..=k {
        ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        tail += (ln_choose - ln_half_n).exp();
    }
    (2.0 * tail).min(1.0)
}

/// Two protocols on the same problems, pair by pair (`a` against `b`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Paired {
    /// Problems both were run on.
    pub n: u64,
    /// Solved by both.
    pub both: u64,
    /// Solved by `a` only.
    pub only_a: u64,
    /// Solved by `b` only.
    pub only_b: u64,
    /// Solved by neither.
    pub neither: u64,
    /// `a`'s pass rate minus `b`'s.
    pub difference: f64,
    /// Its 95 % paired percentile-bootstrap interval.
    pub interval: Interval,
    /// The exact McNemar test's two-sided p on `only_a` against `only_b`.
    pub p_value: f64,
}

/// Compares `a` and `b`, each a pass (true) or fail per problem, in the same problem order; the
/// bootstrap resamples problems (pairs) with `seed`, so the interval is the same every time.
pub fn paired(pairs: &[(bool, bool)], seed: u64) -> Paired {
    let count = |f: fn(&(bool, bool)) -> bool| pairs.iter().filter(|p| f(p)).count() as u64;
    let n = pairs.len() as u64;
    let (both, only_a, only_b) = (
        count(|p| p.0 && p.1),
        count(|p| p.0 && !p.1),
        count(|p| !p.0 && p.1),
    );
    let difference = if n == 0 {
        0.0
    } else {
        (only_a as f64 - only_b as f64) / n as f64
    };
    Paired {
        n,
        both,
        only_a,
        only_b,
        neither: n - both - only_a - only_b,
        difference,
        interval: bootstrap_difference(pairs, BOOTSTRAP_RESAMPLES, seed),
        p_value: mcnemar_exact(only_a, only_b),
    }
}

/// The 2.5th and 97.5th percentiles of the difference of pass rates over `resamples`
/// resamples of the pairs (with replacement), drawn with `seed`.
pub fn bootstrap_difference(pairs: &[(bool, bool)], resamples: u32, seed: u64) -> Interval {
    if pairs.is_empty() || resamples == 0 {
        return Interval {
            low: -1.0,
            high: 1.0,
        };
    }
    // Only the sign of each pair matters: +1 (a alone), −1 (b alone), 0 (agree).
    let signs: Vec<i64> = pairs
        .iter()
        .map(|(a, b)| i64::from(*a) - i64::from(*b))
        .collect();
    let n = signs.len();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut diffs: Vec<f64> = (0..resamples)
        .map(|_| {
            let sum: i64 = (0..n).map(|_| signs[rng.random_range(0..n)]).sum();
            sum as f64 / n as f64
        })
        .collect();
    diffs.sort_by(f64::total_cmp);
    let at = |q: f64| diffs[((q * resamples as f64).floor() as usize).min(diffs.len() - 1)];
    Interval {
        low: at(0.025),
        high: at(0.975),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() <= eps
    }

    /// Against R: `prop.test(x, n, correct = FALSE)$conf.int`.
    #[test]
    fn wilson_matches_known_values() {
        for (k, n, low, high) in [
            (8, 10, 0.490_162_5, 0.943_317_8),
            (0, 10, 0.0, 0.277_532_8),
            (20, 20, 0.838_874_8, 1.0),
            (41, 82, 0.394_228_3, 0.605_771_7),
        ] {
            let i = wilson(k, n, Z95);
            assert!(
                close(i.low, low, 1e-6) && close(i.high, high, 1e-6),
                "{k}/{n}: {i:?}"
            );
        }
        assert_eq!(
            wilson(0, 0, Z95),
            Interval {
                low: 0.0,
                high: 1.0
            }
        );
    }

    /// Against R: `binom.test(min(b, c), b + c)$p.value` (= `mcnemar.exact`).
    #[test]
    fn the_exact_mcnemar_test_matches_known_values() {
        for (b, c, p) in [
            (1, 9, 0.021_484_375),
            (9, 1, 0.021_484_375),
            (5, 5, 1.0),
            (0, 0, 1.0),
            (0, 6, 0.031_25),
            (3, 12, 0.035_156_25),
            (10, 20, 0.098_737_1),
        ] {
            let got = mcnemar_exact(b, c);
            assert!(close(got, p, 1e-6), "b={b} c={c}: {got} != {p}");
        }
        // Large samples stay finite and symmetric.
        let p = mcnemar_exact(1500, 1600);
        assert!(p > 0.0 && p < 1.0 && close(p, mcnemar_exact(1600, 1500), 1e-12));
    }

    /// With 100 problems, 30 solved by a alone and 10 by b alone, the difference is 0.2 and the
    /// paired (Wald) standard error √((b + c)/n − (b − c)²/n²)/√n = 0.06: the bootstrap's
    /// percentiles must land near 0.2 ± 1.96 · 0.06.
    #[test]
    fn the_paired_bootstrap_agrees_with_the_normal_approximation_on_a_large_sample() {
        let mut pairs = vec![(true, false); 30];
        pairs.extend(vec![(false, true); 10]);
        pairs.extend(vec![(true, true); 35]);
        pairs.extend(vec![(false, false); 25]);
        let p = paired(&pairs, 7);
        assert_eq!(
            (p.n, p.both, p.only_a, p.only_b, p.neither),
            (100, 35, 30, 10, 25)
        );
        assert!(close(p.difference, 0.2, 1e-12));
        assert!(
            close(p.interval.low, 0.2 - Z95 * 0.06, 0.015),
            "{:?}",
            p.interval
        );
        assert!(
            close(p.interval.high, 0.2 + Z95 * 0.06, 0.015),
            "{:?}",
            p.interval
        );
        assert!(p.p_value < 0.01);
        // Seeded: the same interval every time; another seed, nearly the same.
        assert_eq!(paired(&pairs, 7).interval, p.interval);
        let other = paired(&pairs, 8).interval;
        assert!(close(other.low, p.interval.low, 0.02));
    }

    #[test]
    fn agreement_everywhere_is_no_difference() {
        let pairs = vec![(true, true), (false, false), (true, true)];
        let p = paired(&pairs, 1);
        assert_eq!(p.difference, 0.0);
        assert_eq!(
            p.interval,
            Interval {
                low: 0.0,
                high: 0.0
            }
        );
        assert_eq!(p.p_value, 1.0);
        let p = paired(&[], 1);
        assert_eq!((p.n, p.p_value), (0, 1.0));
    }
}
