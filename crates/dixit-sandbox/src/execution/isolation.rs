//! How much state the runs of one row (a solution against many tests) share.

use serde::{Deserialize, Serialize};

/// How much state the runs of one row share (DESIGN, Execution).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Isolation {
    /// A fresh instance (a fresh pair, for a test and its solution) per run: DESIGN's default,
    /// and the only level where each run has a seed of its own.
    #[default]
    Run,
    /// One instance (pair) per row: the calls run one after another in it, each in fresh
    /// namespaces with its own fuel budget; interpreter-wide state persists between them.
    Solution,
}

impl Isolation {
    /// The name used on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Isolation::Run => "run",
            Isolation::Solution => "solution",
        }
    }

    /// What the level means, in the words every report uses.
    pub fn describe(self) -> &'static str {
        match self {
            Isolation::Run => "a fresh pair of instances (solution's, test's) per run",
            Isolation::Solution => {
                "one pair of instances per solution; each test in fresh namespaces with its own fuel"
            }
        }
    }
}

impl std::fmt::Display for Isolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no isolation level.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown isolation level `{0}` (expected run or solution)")]
pub struct UnknownIsolation(pub String);

impl std::str::FromStr for Isolation {
    type Err = UnknownIsolation;
    fn from_str(s: &str) -> Result<Self, UnknownIsolation> {
        match s {
            "run" => Ok(Isolation::Run),
            "solution" => Ok(Isolation::Solution),
            _ => Err(UnknownIsolation(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_are_refused() {
        for i in [Isolation::Run, Isolation::Solution] {
            assert_eq!(i.as_str().parse::<Isolation>(), Ok(i));
            assert_eq!(
                serde_json::to_string(&i).unwrap(),
                format!("\"{}\"", i.as_str())
            );
        }
        assert!("process"
            .parse::<Isolation>()
            .unwrap_err()
            .to_string()
            .contains("run or solution"));
    }
}
