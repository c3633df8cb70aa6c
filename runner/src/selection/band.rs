//! The Dixit band over a recorded pool: every test classified by how many pool members fail it,
//! the selection by most IDEAL tests passed, and how many tests of each class are correct.

use serde::{Deserialize, Serialize};

use super::{Fraction, Pick, ProblemMatrix};
use crate::classify::{class_of, Class};

/// The band of every test over the whole pool (failures counted with
/// solution multiplicity): [`class_of`], the band rule of a run.
pub fn pool_bands(m: &ProblemMatrix, minority: f64) -> Vec<Class> {
    let pool = m.pool();
    (0..m.test_counts.len())
        .map(|j| class_of(m.failures(j), pool, minority))
        .collect()
}

/// Dixit band selection: classify every test over the pool ([`pool_bands`]),
/// then pick the solutions passing the most IDEAL tests, counted with test
/// multiplicity (`test_multiplicity`, the default in reports: a test written
/// by several testers weighs more, as in CodeT) or as unique tests. Ties:
/// uniform draw among the tied pool members. With no IDEAL test every
/// solution ties at 0, which is the random baseline.
pub fn dixit_band(m: &ProblemMatrix, minority: f64, test_multiplicity: bool) -> Fraction {
    m.draw_among(band_pick(m, minority, test_multiplicity))
}

/// The solutions the band draws among: those passing the most IDEAL tests.
pub(super) fn band_pick(m: &ProblemMatrix, minority: f64, test_multiplicity: bool) -> Pick {
    let bands = pool_bands(m, minority);
    let scores: Vec<u64> = m
        .passes
        .iter()
        .map(|row| {
            (0..row.len())
                .filter(|&j| row[j] && bands[j] == Class::Ideal)
                .map(|j| {
                    if test_multiplicity {
                        u64::from(m.test_counts[j])
                    } else {
                        1
                    }
                })
                .sum()
        })
        .collect();
    let Some(&best) = scores.iter().max() else {
        return Vec::new();
    };
    (0..scores.len()).filter(|&i| scores[i] == best).collect()
}

/// Tests of one band and how many of them are correct.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassCount {
    /// Unique tests in the class.
    pub tests: u64,
    /// Unique tests in the class that the reference solution passes.
    pub correct_tests: u64,
    /// Test samples (with multiplicity) in the class.
    pub samples: u64,
    /// Test samples (with multiplicity) in the class that are correct.
    pub correct_samples: u64,
}

impl ClassCount {
    fn add(&mut self, other: &ClassCount) {
        self.tests += other.tests;
        self.correct_tests += other.correct_tests;
        self.samples += other.samples;
        self.correct_samples += other.correct_samples;
    }
}

/// Precision of the pool bands: per class, tests and correct tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BandPrecision {
    /// TOO_EASY tests.
    pub too_easy: ClassCount,
    /// IDEAL tests.
    pub ideal: ClassCount,
    /// TOO_HARD tests.
    pub too_hard: ClassCount,
}

impl BandPrecision {
    pub(crate) fn add(&mut self, other: &BandPrecision) {
        self.too_easy.add(&other.too_easy);
        self.ideal.add(&other.ideal);
        self.too_hard.add(&other.too_hard);
    }

    /// The three bands together (the reports' `all` row).
    pub fn all(&self) -> ClassCount {
        let mut all = self.too_easy;
        all.add(&self.ideal);
        all.add(&self.too_hard);
        all
    }
}

/// Counts tests per pool band ([`pool_bands`]) and how many are correct
/// (passed by the reference solution), with and without multiplicity.
pub fn band_precision(m: &ProblemMatrix, minority: f64) -> BandPrecision {
    let mut out = BandPrecision::default();
    for (j, band) in pool_bands(m, minority).into_iter().enumerate() {
        let class = match band {
            Class::Ideal => &mut out.ideal,
            Class::TooHard => &mut out.too_hard,
            // `class_of` never says INVALID: a test that does not build fails here.
            Class::TooEasy | Class::Invalid => &mut out.too_easy,
        };
        let count = u64::from(m.test_counts[j]);
        let correct = m.reference_passes[j];
        class.tests += 1;
        class.samples += count;
        if correct {
            class.correct_tests += 1;
            class.correct_samples += count;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::DEFAULT_MINORITY;
    use crate::selection::testing::{frac, matrix};

    #[test]
    fn band_picks_most_ideal_tests() {
        // Pool 10: s0 x6 (right) passes all; s1 x3 passes t0,t1; s2 x1 passes t0.
        // t0: 0 failures → TOO_EASY; t1: 1 → IDEAL; t2: 4 of 10 → IDEAL (≤ 4).
        let m = matrix(
            &[6, 3, 1],
            &[1, 1, 1],
            &["111", "110", "100"],
            &[true, false, false],
        );
        assert_eq!(
            pool_bands(&m, DEFAULT_MINORITY),
            vec![Class::TooEasy, Class::Ideal, Class::Ideal]
        );
        assert_eq!(dixit_band(&m, DEFAULT_MINORITY, true), frac(6, 6));
        // With s0 only x5 (pool 9): t2 has 4 > 3.6 failures → TOO_HARD;
        // s0 and s1 tie on t1 → 5/8.
        let m = matrix(
            &[5, 3, 1],
            &[1, 1, 1],
            &["111", "110", "100"],
            &[true, false, false],
        );
        assert_eq!(
            pool_bands(&m, DEFAULT_MINORITY),
            vec![Class::TooEasy, Class::Ideal, Class::TooHard]
        );
        assert_eq!(dixit_band(&m, DEFAULT_MINORITY, true), frac(5, 8));
    }

    #[test]
    fn band_test_multiplicity_changes_the_pick() {
        // Pool 2 (minority 0.5, so one failure of two is IDEAL): s0 (right)
        // passes t0, sampled 3 times; s1 (wrong) passes t1 and t2, once each.
        let m = matrix(&[1, 1], &[3, 1, 1], &["100", "011"], &[true, false]);
        assert_eq!(pool_bands(&m, 0.5), vec![Class::Ideal; 3]);
        // With multiplicity s0 scores 3, s1 scores 2.
        assert_eq!(dixit_band(&m, 0.5, true), frac(1, 1));
        // As unique tests s0 scores 1, s1 scores 2.
        assert_eq!(dixit_band(&m, 0.5, false), frac(0, 1));
    }

    #[test]
    fn band_without_ideal_tests_is_random() {
        let m = matrix(&[2, 2], &[1], &["0", "0"], &[true, false]);
        assert_eq!(dixit_band(&m, DEFAULT_MINORITY, true), frac(2, 4));
        let m = matrix(&[2, 2], &[], &["", ""], &[true, false]);
        assert_eq!(dixit_band(&m, DEFAULT_MINORITY, true), frac(2, 4));
        let empty = matrix(&[], &[], &[], &[]);
        assert_eq!(dixit_band(&empty, DEFAULT_MINORITY, true).value(), 0.0);
    }

    #[test]
    fn precision_counts_classes() {
        let mut m = matrix(
            &[6, 3, 1],
            &[2, 1, 5],
            &["111", "110", "100"],
            &[true, false, false],
        );
        m.reference_passes = vec![true, false, true];
        let p = band_precision(&m, DEFAULT_MINORITY);
        assert_eq!(
            p.too_easy,
            ClassCount {
                tests: 1,
                correct_tests: 1,
                samples: 2,
                correct_samples: 2
            }
        );
        assert_eq!(
            p.ideal,
            ClassCount {
                tests: 2,
                correct_tests: 1,
                samples: 6,
                correct_samples: 5
            }
        );
        assert_eq!(p.too_hard, ClassCount::default());
    }
}
