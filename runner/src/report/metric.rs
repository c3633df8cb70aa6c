//! The totals of the seeds' own measures of runs ([`Metric`], a protocol's
//! [`Part::metrics`](crate::outcome::Part::metrics)) over the problems of a comparison
//! ([`aggregate`]).
//!
//! A run gives each measure once. Over problems, a [`Metric::Flag`] is a share of problems
//! (with a 95 % Wilson interval), a [`Metric::Ratio`] is pooled (sum of numerators over sum of
//! denominators, no interval: its parts are not independent draws) and a [`Metric::Count`] is a
//! mean per problem.

use crate::outcome::Metric;
use crate::stats::{wilson, Interval, Z95};

/// A measure over the problems that gave it.
#[derive(Clone, Debug, PartialEq)]
pub enum Total {
    /// `k` of `n` problems, with the interval of the share.
    Share {
        /// Problems where the flag is set.
        k: u64,
        /// Problems that gave the measure.
        n: u64,
        /// The share's interval.
        interval: Interval,
    },
    /// Pooled `num` of `den` over `problems` problems.
    Pooled {
        /// The pooled numerator.
        num: u64,
        /// The pooled denominator.
        den: u64,
        /// Problems that gave the measure.
        problems: usize,
    },
    /// The mean over `problems` problems.
    Mean {
        /// The mean.
        mean: f64,
        /// Problems that gave the measure.
        problems: usize,
    },
}

impl std::fmt::Display for Total {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Total::Share { k, n, interval } => write!(
                f,
                "{k}/{n} ({:.0} % [{:.0}, {:.0}])",
                100.0 * *k as f64 / (*n).max(1) as f64,
                100.0 * interval.low,
                100.0 * interval.high
            ),
            Total::Pooled { num, den, problems } => {
                if *den == 0 {
                    write!(f, "0/0 over {problems}")
                } else {
                    write!(
                        f,
                        "{num}/{den} ({:.0} %) over {problems}",
                        100.0 * *num as f64 / *den as f64
                    )
                }
            }
            Total::Mean { mean, problems } => write!(f, "{mean:.2} per problem over {problems}"),
        }
    }
}

/// Each measure's total over the runs (one list of metrics per problem), in the order the
/// measures first appear. A measure a run did not give is not counted for that problem.
pub fn aggregate<'a>(runs: impl IntoIterator<Item = &'a [Metric]>) -> Vec<(String, Total)> {
    let mut out: Vec<(String, Total)> = Vec::new();
    let mut sums: Vec<(f64, usize)> = Vec::new();
    for metrics in runs {
        for m in metrics {
            let at = match out.iter().position(|(n, _)| n == m.name()) {
                Some(i) => i,
                None => {
                    let empty = match m {
                        Metric::Flag { .. } => Total::Share {
                            k: 0,
                            n: 0,
                            interval: wilson(0, 0, Z95),
                        },
                        Metric::Ratio { .. } => Total::Pooled {
                            num: 0,
                            den: 0,
                            problems: 0,
                        },
                        Metric::Count { .. } => Total::Mean {
                            mean: 0.0,
                            problems: 0,
                        },
                    };
                    out.push((m.name().to_string(), empty));
                    sums.push((0.0, 0));
                    out.len() - 1
                }
            };
            match (&mut out[at].1, m) {
                (Total::Share { k, n, interval }, Metric::Flag { value, .. }) => {
                    *k += u64::from(*value);
                    *n += 1;
                    *interval = wilson(*k, *n, Z95);
                }
                (Total::Pooled { num, den, problems }, Metric::Ratio { num: a, den: b, .. }) => {
                    *num += a;
                    *den += b;
                    *problems += 1;
                }
                (Total::Mean { mean, problems }, Metric::Count { value, .. }) => {
                    let s = &mut sums[at];
                    s.0 += value;
                    s.1 += 1;
                    *mean = s.0 / s.1 as f64;
                    *problems = s.1;
                }
                // One name, two kinds: the first kind wins, the other is not counted.
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_shares_ratios_pool_and_counts_average() {
        let a = vec![
            Metric::flag("converged", true),
            Metric::ratio("precision", 3, 4),
            Metric::count("suite size", 2.0),
        ];
        let b = vec![
            Metric::flag("converged", false),
            Metric::ratio("precision", 1, 1),
            Metric::count("suite size", 5.0),
        ];
        let c = vec![Metric::flag("converged", true)];
        let t = aggregate([a.as_slice(), b.as_slice(), c.as_slice()]);
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].0, "converged");
        match &t[0].1 {
            Total::Share { k, n, interval } => {
                assert_eq!((*k, *n), (2, 3));
                // Wilson 95 % for 2/3: [0.2077, 0.9385].
                assert!((interval.low - 0.2077).abs() < 1e-3, "{interval:?}");
                assert!((interval.high - 0.9385).abs() < 1e-3, "{interval:?}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            t[1].1,
            Total::Pooled {
                num: 4,
                den: 5,
                problems: 2
            }
        );
        assert_eq!(
            t[2].1,
            Total::Mean {
                mean: 3.5,
                problems: 2
            }
        );
        assert_eq!(t[1].1.to_string(), "4/5 (80 %) over 2");
        assert_eq!(t[0].1.to_string(), "2/3 (67 % [21, 94])");
    }
}
