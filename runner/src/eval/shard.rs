//! Deterministic sharding of a corpus's problems, so a batch scheduler (Slurm array, Kubernetes
//! indexed job, CI matrix) can spread one evaluation over machines and `dixit merge` can join the
//! parts.

use serde::{Deserialize, Serialize};

/// Shard `index` of `count` (1-based: `1/4` is the first of four). Problem `k` of the selection
/// (0-based, in data order) belongs to shard `k % count + 1`: round robin, so neighbouring
/// problems, which tend to be alike in size, land in different shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, from 1 to `count`.
    pub index: u32,
    /// How many shards.
    pub count: u32,
}

/// A `--shard` value that is not `i/n` with 1 ≤ i ≤ n.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid shard `{0}`: expected i/n with 1 <= i <= n, e.g. 1/4")]
pub struct ShardParseError(pub String);

impl Shard {
    /// Whether the problem at `position` (0-based) belongs to this shard.
    pub fn contains(self, position: usize) -> bool {
        position % self.count as usize + 1 == self.index as usize
    }

    /// The items of this shard, in order.
    pub fn select<T>(self, items: Vec<T>) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(k, _)| self.contains(*k))
            .map(|(_, x)| x)
            .collect()
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let s: Shard = "2/3".parse().unwrap();
        assert_eq!(s, Shard { index: 2, count: 3 });
        assert_eq!(s.to_string(), "2/3");
        for bad in ["0/3", "4/3", "1", "a/b", "1/0", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn shards_partition_the_items() {
        let items: Vec<usize> = (0..10).collect();
        let parts: Vec<Vec<usize>> = (1..=3)
            .map(|index| Shard { index, count: 3 }.select(items.clone()))
            .collect();
        assert_eq!(parts[0], vec![0, 3, 6, 9]);
        assert_eq!(parts[1], vec![1, 4, 7]);
        assert_eq!(parts[2], vec![2, 5, 8]);
        let mut all: Vec<usize> = parts.concat();
        all.sort();
        assert_eq!(all, items);
    }
}
