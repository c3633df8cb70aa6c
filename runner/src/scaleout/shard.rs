//! Shards: which part of a job this process does. A [`Shard`] is "part `index` of `count`"; a
//! [`ShardSpec`] is what the user wrote (`3/8`, `auto`, `auto/8`), resolved against the
//! scheduler's environment variables ([`ShardSpec::resolve`]); [`partition`] deals weighted
//! items to shards so that every shard has about the same work.

use std::collections::BinaryHeap;

use serde::{Deserialize, Serialize};

/// Part `index` of `count` (1-based: `1/4` is the first of four).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, from 1 to `count`.
    pub index: u32,
    /// How many shards.
    pub count: u32,
}

/// A shard value that is not `i/n` with 1 ≤ i ≤ n (or, for a [`ShardSpec`], `auto[/n]`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid shard `{0}`: expected i/n with 1 <= i <= n (e.g. 1/4), auto, or auto/n")]
pub struct ShardParseError(pub String);

impl Shard {
    /// Whether the item at `position` (0-based) belongs to this shard when items of equal
    /// weight are dealt round robin: item `k` goes to shard `k % count + 1`. For items whose
    /// work is not known in advance; weighted items use [`Shard::select`].
    pub fn contains(self, position: usize) -> bool {
        position % self.count as usize + 1 == self.index as usize
    }

    /// The positions (0-based, ascending) of the items of `weights` that belong to this shard
    /// under [`partition`].
    pub fn members(self, weights: &[u64]) -> Vec<usize> {
        partition(weights, self.count)
            .into_iter()
            .enumerate()
            .filter(|&(_, s)| s == self.index)
            .map(|(k, _)| k)
            .collect()
    }

    /// The items of this shard, in their order, each weighing `weight(item)` (see [`partition`]).
    pub fn select<T>(self, items: Vec<T>, weight: impl Fn(&T) -> u64) -> Vec<T> {
        let weights: Vec<u64> = items.iter().map(weight).collect();
        let shards = partition(&weights, self.count);
        items
            .into_iter()
            .zip(shards)
            .filter(|&(_, s)| s == self.index)
            .map(|(x, _)| x)
            .collect()
    }
}

/// Deals items to `count` shards so that the shards' total weights are as even as a greedy
/// rule makes them: the heaviest item first (ties: the earlier item), each to the lightest shard
/// so far (ties: the lowest index). Returns each item's shard (1-based).
///
/// Deterministic: it depends only on the weights and `count`, so every shard of a job, on any
/// machine, computes the same partition. Every item is in exactly one shard, and the heaviest
/// shard outweighs the lightest by at most the heaviest item (when an item was last added to the
/// heaviest shard, that shard was the lightest). With more shards than items, some are empty.
pub fn partition(weights: &[u64], count: u32) -> Vec<u32> {
    let count = count.max(1);
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by_key(|&k| (std::cmp::Reverse(weights[k]), k));
    // A min-heap of (load, shard index) through Reverse.
    let mut loads: BinaryHeap<std::cmp::Reverse<(u128, u32)>> =
        (1..=count).map(|i| std::cmp::Reverse((0, i))).collect();
    let mut out = vec![0; weights.len()];
    for k in order {
        let std::cmp::Reverse((load, index)) = loads.pop().unwrap_or(std::cmp::Reverse((0, 1)));
        out[k] = index;
        loads.push(std::cmp::Reverse((load + u128::from(weights[k]), index)));
    }
    out
}

impl std::str::FromStr for Shard {
    type Err = ShardParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ShardParseError(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(err)?;
        let index: u32 = i.trim().parse().map_err(|_| err())?;
        let count: u32 = n.trim().parse().map_err(|_| err())?;
        if index == 0 || index > count {
            return Err(err());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The environment variable of a Slurm job array task's id.
pub const SLURM_ARRAY_TASK_ID: &str = "SLURM_ARRAY_TASK_ID";
/// The number of tasks in the Slurm job array.
pub const SLURM_ARRAY_TASK_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";
/// The lowest task id of the Slurm job array.
pub const SLURM_ARRAY_TASK_MIN: &str = "SLURM_ARRAY_TASK_MIN";
/// The highest task id of the Slurm job array.
pub const SLURM_ARRAY_TASK_MAX: &str = "SLURM_ARRAY_TASK_MAX";
/// The step between task ids of the Slurm job array (`--array=0-15:4`).
pub const SLURM_ARRAY_TASK_STEP: &str = "SLURM_ARRAY_TASK_STEP";
/// The 0-based index of a pod of a Kubernetes indexed job.
pub const JOB_COMPLETION_INDEX: &str = "JOB_COMPLETION_INDEX";

/// What the user asked for: a fixed shard, or one taken from the scheduler's environment.
///
/// * `I/N`: shard `I` of `N`.
/// * `auto/N`: `N` shards; the index is `SLURM_ARRAY_TASK_ID` (the array task id *is* the shard
///   number, so submit `--array=1-N`; resubmitting `--array=3,7` reruns shards 3 and 7), else
///   `JOB_COMPLETION_INDEX + 1` (Kubernetes indexes pods from 0).
/// * `auto`: a whole Slurm array numbered without gaps (`--array=0-7` or `--array=1-8`):
///   index `SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1` of `SLURM_ARRAY_TASK_COUNT`.
///   A partial array (a resubmission of some tasks) cannot tell the count and is refused;
///   Kubernetes has no count variable, so it needs `auto/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardSpec {
    /// A given shard.
    Fixed(Shard),
    /// From the environment, with the shard count if given.
    Auto {
        /// The number of shards, when given (`auto/N`).
        count: Option<u32>,
    },
}

impl std::str::FromStr for ShardSpec {
    type Err = ShardParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if t == "auto" {
            return Ok(ShardSpec::Auto { count: None });
        }
        if let Some(n) = t.strip_prefix("auto/") {
            return match n.trim().parse::<u32>() {
                Ok(count) if count > 0 => Ok(ShardSpec::Auto { count: Some(count) }),
                _ => Err(ShardParseError(s.to_string())),
            };
        }
        s.parse().map(ShardSpec::Fixed)
    }
}

impl std::fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShardSpec::Fixed(s) => write!(f, "{s}"),
            ShardSpec::Auto { count: None } => write!(f, "auto"),
            ShardSpec::Auto { count: Some(n) } => write!(f, "auto/{n}"),
        }
    }
}

/// Why the scheduler's environment does not say which shard this is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardEnvError {
    /// `auto` outside an array job.
    #[error("--shard {spec}: neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set (not a Slurm array task or a Kubernetes indexed job)")]
    NotAnArrayTask {
        /// What the user wrote.
        spec: ShardSpec,
    },
    /// A variable that is not a number.
    #[error("{variable}={value:?} is not a non-negative integer")]
    NotANumber {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
    },
    /// `auto` in a Slurm array whose variables are incomplete.
    #[error("--shard auto: {variable} is not set, so the shard count is unknown")]
    Missing {
        /// The variable.
        variable: &'static str,
    },
    /// `auto` in an array that is not one contiguous range (a resubmission, a step).
    #[error("--shard auto: the array has {count} tasks with ids {min} to {max} (step {step}); only a whole array numbered without gaps tells the shard count")]
    PartialArray {
        /// `SLURM_ARRAY_TASK_COUNT`.
        count: u32,
        /// `SLURM_ARRAY_TASK_MIN`.
        min: u32,
        /// `SLURM_ARRAY_TASK_MAX`.
        max: u32,
        /// `SLURM_ARRAY_TASK_STEP`.
        step: u32,
    },
    /// `auto` in a Kubernetes indexed job: there is no count variable.
    #[error("JOB_COMPLETION_INDEX={index} says which shard but not how many")]
    NoCount {
        /// The index.
        index: u32,
    },
    /// The index from the environment is outside `1..=count`.
    #[error("{variable}={value} is not a shard of 1..{count}{}", if *.variable == JOB_COMPLETION_INDEX { " once 1 is added" } else { "" })]
    OutOfRange {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: u32,
        /// The shard count.
        count: u32,
    },
}

impl ShardEnvError {
    /// What the user can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            ShardEnvError::NotAnArrayTask { .. } => {
                "outside a scheduler, give the shard itself: --shard I/N"
            }
            ShardEnvError::PartialArray { .. } | ShardEnvError::Missing { .. } => {
                "give the count: --shard auto/N takes the array task id as the shard number (submit --array=1-N)"
            }
            ShardEnvError::NoCount { .. } => {
                "give the count: --shard auto/N (N = the job's completions), or DIXIT_SHARD=auto/N"
            }
            ShardEnvError::OutOfRange { variable, .. } if *variable == SLURM_ARRAY_TASK_ID => {
                "with --shard auto/N the array task id is the shard number: submit --array=1-N"
            }
            _ => "check the job's array or completions settings",
        }
    }
}

/// Reads an environment variable (a closure in tests, [`std::env::var`] in the binary).
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The process environment, as an [`EnvLookup`].
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn number(env: EnvLookup, variable: &'static str) -> Result<Option<u32>, ShardEnvError> {
    match env(variable) {
        None => Ok(None),
        Some(value) => value
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| ShardEnvError::NotANumber { variable, value }),
    }
}

impl ShardSpec {
    /// Whether the environment holds an array task index (so that no `--shard` at all means
    /// `auto` for Slurm).
    pub fn in_array_task(env: EnvLookup) -> bool {
        env(SLURM_ARRAY_TASK_ID).is_some() || env(JOB_COMPLETION_INDEX).is_some()
    }

    /// The shard this process evaluates.
    pub fn resolve(self, env: EnvLookup) -> Result<Shard, ShardEnvError> {
        match self {
            ShardSpec::Fixed(s) => Ok(s),
            ShardSpec::Auto { count: Some(count) } => {
                let (variable, value, index) = if let Some(id) = number(env, SLURM_ARRAY_TASK_ID)? {
                    (SLURM_ARRAY_TASK_ID, id, id)
                } else if let Some(i) = number(env, JOB_COMPLETION_INDEX)? {
                    (JOB_COMPLETION_INDEX, i, i.saturating_add(1))
                } else {
                    return Err(ShardEnvError::NotAnArrayTask { spec: self });
                };
                if index == 0 || index > count {
                    return Err(ShardEnvError::OutOfRange {
                        variable,
                        value,
                        count,
                    });
                }
                Ok(Shard { index, count })
            }
            ShardSpec::Auto { count: None } => {
                let Some(id) = number(env, SLURM_ARRAY_TASK_ID)? else {
                    return match number(env, JOB_COMPLETION_INDEX)? {
                        Some(index) => Err(ShardEnvError::NoCount { index }),
                        None => Err(ShardEnvError::NotAnArrayTask { spec: self }),
                    };
                };
                let get =
                    |variable| number(env, variable)?.ok_or(ShardEnvError::Missing { variable });
                let count = get(SLURM_ARRAY_TASK_COUNT)?;
                let min = get(SLURM_ARRAY_TASK_MIN)?;
                let max = number(env, SLURM_ARRAY_TASK_MAX)?.unwrap_or(min + count - 1);
                let step = number(env, SLURM_ARRAY_TASK_STEP)?.unwrap_or(1);
                // A resubmission of some tasks (`--array=3,7`) has gaps, or starts past 1.
                if count == 0 || step != 1 || max < min || max - min + 1 != count || min > 1 {
                    return Err(ShardEnvError::PartialArray {
                        count,
                        min,
                        max,
                        step,
                    });
                }
                if id < min || id > max {
                    return Err(ShardEnvError::OutOfRange {
                        variable: SLURM_ARRAY_TASK_ID,
                        value: id,
                        count,
                    });
                }
                Ok(Shard {
                    index: id - min + 1,
                    count,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn parses_and_prints() {
        let s: Shard = "2/3".parse().unwrap();
        assert_eq!(s, Shard { index: 2, count: 3 });
        assert_eq!(s.to_string(), "2/3");
        for bad in ["0/3", "4/3", "1", "a/b", "1/0", "", "auto"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        for (text, spec) in [
            ("auto", ShardSpec::Auto { count: None }),
            ("auto/8", ShardSpec::Auto { count: Some(8) }),
            ("3/8", ShardSpec::Fixed(Shard { index: 3, count: 8 })),
        ] {
            assert_eq!(text.parse::<ShardSpec>().unwrap(), spec);
            assert_eq!(spec.to_string(), text);
        }
        for bad in ["auto/0", "auto/x", "auto/", "autox", "9/8"] {
            assert!(bad.parse::<ShardSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn round_robin_contains_partitions_positions() {
        let parts: Vec<Vec<usize>> = (1..=3)
            .map(|index| {
                (0..10)
                    .filter(|&k| Shard { index, count: 3 }.contains(k))
                    .collect()
            })
            .collect();
        assert_eq!(parts, [vec![0, 3, 6, 9], vec![1, 4, 7], vec![2, 5, 8]]);
    }

    /// Every item lands in exactly one shard, for item counts around and below the shard count.
    #[test]
    fn partition_is_exact() {
        for n in 0..40usize {
            let weights: Vec<u64> = (0..n as u64).map(|k| (k * 7919) % 101 + 1).collect();
            for count in 1..=12u32 {
                let shards = partition(&weights, count);
                assert_eq!(shards.len(), n);
                assert!(shards.iter().all(|&s| (1..=count).contains(&s)));
                let mut all: Vec<usize> = (1..=count)
                    .flat_map(|index| Shard { index, count }.members(&weights))
                    .collect();
                all.sort();
                assert_eq!(all, (0..n).collect::<Vec<_>>(), "n={n} count={count}");
            }
        }
    }

    /// The heaviest shard outweighs the lightest by at most the heaviest item, on skewed weights
    /// where round robin is far off.
    #[test]
    fn partition_is_balanced() {
        // Sizes like a corpus: a few huge problems among many small ones, huge ones adjacent.
        let weights: Vec<u64> = (0..82u64)
            .map(|k| {
                if k % 10 < 2 {
                    9_000 + k
                } else {
                    300 + (k * 37) % 500
                }
            })
            .collect();
        let heaviest = *weights.iter().max().unwrap();
        for count in [2u32, 3, 6, 8, 10, 16] {
            let shards = partition(&weights, count);
            let mut load = vec![0u64; count as usize];
            for (k, s) in shards.iter().enumerate() {
                load[*s as usize - 1] += weights[k];
            }
            let (lo, hi) = (*load.iter().min().unwrap(), *load.iter().max().unwrap());
            assert!(hi - lo <= heaviest, "count {count}: {load:?}");
            // Round robin (the old rule) puts every huge item in the same two shards of ten.
            if count == 10 {
                let mut rr = vec![0u64; 10];
                for (k, w) in weights.iter().enumerate() {
                    rr[k % 10] += w;
                }
                let rr_spread = rr.iter().max().unwrap() - rr.iter().min().unwrap();
                assert!(rr_spread > 4 * (hi - lo), "{load:?} vs {rr:?}");
            }
        }
        // Equal weights: shard sizes differ by at most one item.
        let shards = partition(&[5; 10], 4);
        let sizes: Vec<usize> = (1..=4)
            .map(|i| shards.iter().filter(|&&s| s == i).count())
            .collect();
        assert_eq!(sizes, [3, 3, 2, 2]);
    }

    #[test]
    fn partition_is_deterministic_and_keeps_order() {
        let weights = [3, 9, 1, 9, 4, 4, 7];
        assert_eq!(partition(&weights, 3), partition(&weights, 3));
        // Heaviest first: 9 → 1, 9 → 2, 7 → 3; then each to the lightest: 4 → 3 (11),
        // 4 → 1 (13), 3 → 2 (12), 1 → 3 (12).
        assert_eq!(partition(&weights, 3), [2, 1, 3, 2, 3, 1, 3]);
        let items = vec!["a", "b", "c", "d", "e", "f", "g"];
        let w = |x: &&str| weights[items.iter().position(|y| y == x).unwrap()];
        assert_eq!(
            Shard { index: 3, count: 3 }.select(items.clone(), w),
            ["c", "e", "g"]
        );
    }

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| map.get(k).cloned()
    }

    fn slurm(id: u32, min: u32, max: u32, count: u32) -> impl Fn(&str) -> Option<String> {
        let (id, min, max, count) = (
            id.to_string(),
            min.to_string(),
            max.to_string(),
            count.to_string(),
        );
        env(&[
            (SLURM_ARRAY_TASK_ID, &id),
            (SLURM_ARRAY_TASK_MIN, &min),
            (SLURM_ARRAY_TASK_MAX, &max),
            (SLURM_ARRAY_TASK_COUNT, &count),
            (SLURM_ARRAY_TASK_STEP, "1"),
        ])
    }

    #[test]
    fn auto_reads_a_whole_slurm_array() {
        let auto = ShardSpec::Auto { count: None };
        assert_eq!(
            auto.resolve(&slurm(0, 0, 7, 8)),
            Ok(Shard { index: 1, count: 8 })
        );
        assert_eq!(
            auto.resolve(&slurm(8, 1, 8, 8)),
            Ok(Shard { index: 8, count: 8 })
        );
        // A resubmission of tasks 3 and 7 (`--array=3,7`), or of task 1 alone, is refused.
        let partial = env(&[
            (SLURM_ARRAY_TASK_ID, "3"),
            (SLURM_ARRAY_TASK_MIN, "3"),
            (SLURM_ARRAY_TASK_MAX, "7"),
            (SLURM_ARRAY_TASK_COUNT, "2"),
        ]);
        assert!(matches!(
            auto.resolve(&partial),
            Err(ShardEnvError::PartialArray {
                count: 2,
                min: 3,
                max: 7,
                ..
            })
        ));
        assert!(matches!(
            auto.resolve(&slurm(3, 3, 3, 1)),
            Err(ShardEnvError::PartialArray { .. })
        ));
        let no_count = env(&[(SLURM_ARRAY_TASK_ID, "2"), (SLURM_ARRAY_TASK_MIN, "1")]);
        assert_eq!(
            auto.resolve(&no_count),
            Err(ShardEnvError::Missing {
                variable: SLURM_ARRAY_TASK_COUNT
            })
        );
        let bad = env(&[(SLURM_ARRAY_TASK_ID, "two")]);
        assert!(matches!(
            auto.resolve(&bad),
            Err(ShardEnvError::NotANumber {
                variable: SLURM_ARRAY_TASK_ID,
                ..
            })
        ));
        assert!(matches!(
            auto.resolve(&env(&[])),
            Err(ShardEnvError::NotAnArrayTask { .. })
        ));
        assert_eq!(
            auto.resolve(&env(&[(JOB_COMPLETION_INDEX, "4")])),
            Err(ShardEnvError::NoCount { index: 4 })
        );
    }

    #[test]
    fn auto_with_a_count_takes_the_task_id_as_the_shard() {
        let auto8 = ShardSpec::Auto { count: Some(8) };
        // A resubmission of shards 3 and 7 keeps their numbers.
        let partial = env(&[
            (SLURM_ARRAY_TASK_ID, "7"),
            (SLURM_ARRAY_TASK_MIN, "3"),
            (SLURM_ARRAY_TASK_COUNT, "2"),
        ]);
        assert_eq!(auto8.resolve(&partial), Ok(Shard { index: 7, count: 8 }));
        assert_eq!(
            auto8.resolve(&slurm(0, 0, 7, 8)),
            Err(ShardEnvError::OutOfRange {
                variable: SLURM_ARRAY_TASK_ID,
                value: 0,
                count: 8
            })
        );
        // Kubernetes numbers pods from 0.
        let k8s = |i: &str| env(&[(JOB_COMPLETION_INDEX, i)]);
        assert_eq!(auto8.resolve(&k8s("0")), Ok(Shard { index: 1, count: 8 }));
        assert_eq!(auto8.resolve(&k8s("7")), Ok(Shard { index: 8, count: 8 }));
        assert!(matches!(
            auto8.resolve(&k8s("8")),
            Err(ShardEnvError::OutOfRange {
                variable: JOB_COMPLETION_INDEX,
                ..
            })
        ));
        assert!(matches!(
            auto8.resolve(&env(&[])),
            Err(ShardEnvError::NotAnArrayTask { .. })
        ));
        let fixed = ShardSpec::Fixed(Shard { index: 2, count: 3 });
        assert_eq!(
            fixed.resolve(&slurm(5, 1, 8, 8)),
            Ok(Shard { index: 2, count: 3 })
        );
    }
}
