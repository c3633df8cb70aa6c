//! The seeds' own measures of a run, per protocol ([`Part::metrics`](super::Part::metrics)): a
//! run gives each once, and the report totals them over the problems of a comparison.

use serde::{Deserialize, Serialize};

/// One measure of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Metric {
    /// Whether something held for the problem (`converged by epoch 2`).
    Flag {
        /// The measure's name.
        name: String,
        /// Whether it held.
        value: bool,
    },
    /// A number per problem (`suite size`).
    Count {
        /// The measure's name.
        name: String,
        /// The number.
        value: f64,
    },
    /// `num` of `den` (`admitted tests the hidden-passing implementations pass`).
    Ratio {
        /// The measure's name.
        name: String,
        /// The numerator.
        num: u64,
        /// The denominator.
        den: u64,
    },
}

impl Metric {
    /// A flag named `name`.
    pub fn flag(name: &str, value: bool) -> Metric {
        Metric::Flag {
            name: name.into(),
            value,
        }
    }

    /// A count named `name`.
    pub fn count(name: &str, value: f64) -> Metric {
        Metric::Count {
            name: name.into(),
            value,
        }
    }

    /// A ratio named `name`: `num` of `den`.
    pub fn ratio(name: &str, num: u64, den: u64) -> Metric {
        Metric::Ratio {
            name: name.into(),
            num,
            den,
        }
    }

    /// The measure's name.
    pub fn name(&self) -> &str {
        match self {
            Metric::Flag { name, .. } | Metric::Count { name, .. } | Metric::Ratio { name, .. } => {
                name
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_round_trip_as_json() {
        let m = vec![Metric::flag("a", true), Metric::ratio("b", 1, 2)];
        let j = serde_json::to_string(&m).unwrap();
        assert!(j.contains("\"kind\":\"flag\""), "{j}");
        assert_eq!(serde_json::from_str::<Vec<Metric>>(&j).unwrap(), m);
    }
}
