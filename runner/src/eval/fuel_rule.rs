//! How much fuel a solution may spend on one test. A solution that never ends burns the whole
//! limit on every test it loops on; online judges stop such runs at a few times the reference
//! solution's own time on the test. `dixit eval` does the same with fuel, which is
//! deterministic: the reference runs first, and each solution's run on a test may spend
//! `factor` × the reference's fuel on that test, at least `floor`, never more than the limit.

use serde::{Deserialize, Serialize};

/// The fuel rule of an evaluation (recorded in its setup and its cache keys).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum FuelRule {
    /// Every run may spend the whole limit (reports written before the rule existed).
    #[default]
    Flat,
    /// `factor` × the reference's fuel on the same test, at least `floor`, at most the limit;
    /// the limit where the reference did not end on the test by itself (its own fuel ran out,
    /// or it did not build).
    Reference {
        /// The multiple of the reference's fuel a run gets.
        factor: u64,
        /// The least fuel a run gets.
        floor: u64,
    },
}

impl FuelRule {
    /// The fuel a solution's run on a test may spend, given the limit and the reference's fuel
    /// on that test (`None`: the reference did not end by itself).
    pub fn cap(self, limit: u64, reference: Option<u64>) -> u64 {
        match (self, reference) {
            (FuelRule::Reference { factor, floor }, Some(r)) => {
                r.saturating_mul(factor).max(floor).min(limit)
            }
            _ => limit,
        }
    }

    /// The rule in a sentence, for the report.
    pub fn describe(self, limit: u64) -> String {
        match self {
            FuelRule::Flat => format!("every run may spend {limit} fuel"),
            FuelRule::Reference { factor, floor } => format!(
                "a run may spend {factor} × the reference solution's fuel on the same test, at \
                 least {floor} and at most {limit} (the limit where the reference did not end by \
                 itself)"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_is_the_reference_times_the_factor_between_the_floor_and_the_limit() {
        let r = FuelRule::Reference {
            factor: 10,
            floor: 1_000,
        };
        assert_eq!(r.cap(1_000_000, Some(500)), 5_000);
        assert_eq!(r.cap(1_000_000, Some(50)), 1_000, "the floor");
        assert_eq!(r.cap(1_000_000, Some(500_000)), 1_000_000, "the limit");
        assert_eq!(r.cap(1_000_000, Some(u64::MAX)), 1_000_000, "no overflow");
        assert_eq!(r.cap(1_000_000, None), 1_000_000, "no reference fuel");
        assert_eq!(FuelRule::Flat.cap(7, Some(1)), 7);
    }

    #[test]
    fn a_setup_without_a_rule_reads_as_flat() {
        #[derive(Deserialize)]
        struct Setup {
            #[serde(default)]
            fuel_rule: FuelRule,
        }
        let s: Setup = serde_json::from_str("{}").unwrap();
        assert_eq!(s.fuel_rule, FuelRule::Flat);
        let json = serde_json::to_string(&FuelRule::Reference {
            factor: 3,
            floor: 9,
        })
        .unwrap();
        assert_eq!(json, r#"{"rule":"reference","factor":3,"floor":9}"#);
    }
}
