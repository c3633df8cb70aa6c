//! Classification: a test against a pool of solutions is TOO_EASY (nobody fails it), IDEAL (some
//! fail, no more than a minority), TOO_HARD (more than a minority fail) or INVALID (it does not
//! build). A solution fails a test if any of its reruns fails.
//!
//! - `matrix.rs`: runs the (test × solution × rerun) matrix on the rayon pool.

mod matrix;

use serde::{Deserialize, Serialize};

pub use matrix::{rerun_seed, run_cell, run_matrix, PairVerdict};

use crate::sandbox::{CompileSide, VerdictKind};

/// The default MINORITY: more than this share of failing solutions makes a test TOO_HARD.
pub const DEFAULT_MINORITY: f64 = 0.4;

/// How many times each (solution, test) pair runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reruns {
    /// Exactly this many runs (stopping at the first failure).
    Fixed(u32),
    /// Up to this many, but only one when the first run read no entropy and no clock: its reruns
    /// would be identical by construction.
    Auto(u32),
}

impl Reruns {
    /// The most runs a pair may get.
    pub fn max(self) -> u32 {
        match self {
            Reruns::Fixed(n) | Reruns::Auto(n) => n.max(1),
        }
    }
}

impl Default for Reruns {
    fn default() -> Self {
        Reruns::Auto(20)
    }
}

impl std::str::FromStr for Reruns {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "auto" {
            return Ok(Reruns::default());
        }
        if let Some(n) = s.strip_prefix("auto:") {
            return n
                .parse()
                .map(Reruns::Auto)
                .map_err(|_| format!("invalid reruns `{s}`"));
        }
        match s.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(Reruns::Fixed(n)),
            _ => Err(format!(
                "invalid reruns `{s}`: expected a number ≥ 1, `auto` or `auto:N`"
            )),
        }
    }
}

impl std::fmt::Display for Reruns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reruns::Fixed(n) => write!(f, "{n}"),
            Reruns::Auto(20) => write!(f, "auto"),
            Reruns::Auto(n) => write!(f, "auto:{n}"),
        }
    }
}

impl Serialize for Reruns {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Reruns::Fixed(n) => s.serialize_u32(*n),
            other => s.serialize_str(&other.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for Reruns {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(u32),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) if n >= 1 => Ok(Reruns::Fixed(n)),
            Raw::N(_) => Err(serde::de::Error::custom("reruns must be ≥ 1")),
            Raw::S(s) => s.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// The class of a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Class {
    /// No solution fails it: it separates nothing.
    TooEasy,
    /// Some, but no more than a minority, of the solutions fail it.
    Ideal,
    /// More than a minority of the solutions fail it.
    TooHard,
    /// It does not build, or it fails every solution exactly as it fails with none.
    Invalid,
}

impl Class {
    /// The class's name as the journal and reports write it (`TOO_EASY`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Class::TooEasy => "TOO_EASY",
            Class::Ideal => "IDEAL",
            Class::TooHard => "TOO_HARD",
            Class::Invalid => "INVALID",
        }
    }
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The rule itself: `failures` of `pool` solutions failed a test that builds.
/// 0 → TOO_EASY; more than `minority × pool` → TOO_HARD; otherwise IDEAL. One rule for runs
/// (coders) and `dixit eval` (recorded pools, counted with multiplicity).
pub fn class_of(failures: u64, pool: u64, minority: f64) -> Class {
    if failures == 0 {
        Class::TooEasy
    } else if failures as f64 > pool as f64 * minority {
        Class::TooHard
    } else {
        Class::Ideal
    }
}

/// A test's classification with the evidence behind it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Classification {
    /// The class.
    pub class: Class,
    /// Solutions that failed the test.
    pub failures: usize,
    /// Solutions it was run against.
    pub pool: usize,
    /// The minority share the band rule used.
    pub minority: f64,
    /// One cell per solution, in the order given.
    pub cells: Vec<PairVerdict>,
    /// For INVALID: the build error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_error: Option<String>,
}

impl Classification {
    /// Classifies from the matrix row of one test. INVALID when the test fails to build on its
    /// own, or fails to build against every solution (then it is the test that is broken, and
    /// its author gets the build error rather than a TOO_HARD).
    pub fn from_cells(cells: Vec<PairVerdict>, minority: f64) -> Self {
        let pool = cells.len();
        let test_broken = |c: &PairVerdict| {
            c.verdict.verdict == VerdictKind::CompileError
                && matches!(
                    c.verdict.side,
                    Some(CompileSide::Test) | Some(CompileSide::Link)
                )
        };
        let failures = cells.iter().filter(|c| !c.passed()).count();
        if pool > 0 && cells.iter().all(test_broken) {
            let err = cells[0].verdict.stderr.clone();
            return Classification {
                class: Class::Invalid,
                failures,
                pool,
                minority,
                cells,
                build_error: Some(err),
            };
        }
        Classification {
            class: class_of(failures as u64, pool as u64, minority),
            failures,
            pool,
            minority,
            cells,
            build_error: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_band() {
        assert_eq!(class_of(0, 5, 0.4), Class::TooEasy);
        assert_eq!(class_of(1, 5, 0.4), Class::Ideal);
        assert_eq!(class_of(2, 5, 0.4), Class::Ideal);
        assert_eq!(class_of(3, 5, 0.4), Class::TooHard);
        assert_eq!(
            class_of(1, 2, 0.4),
            Class::TooHard,
            "1 of 2 is more than 0.8"
        );
        assert_eq!(class_of(2, 7, 0.4), Class::Ideal);
        assert_eq!(class_of(3, 7, 0.4), Class::TooHard);
        assert_eq!(class_of(40, 100, 0.4), Class::Ideal);
        assert_eq!(class_of(41, 100, 0.4), Class::TooHard);
    }

    fn cell(kind: VerdictKind, side: Option<CompileSide>) -> PairVerdict {
        let mut verdict = crate::sandbox::Verdict::not_run(kind, side, "x", 1);
        if kind == VerdictKind::Pass {
            verdict.detail = None;
        }
        PairVerdict {
            verdict,
            runs: 1,
            skipped: 0,
        }
    }

    #[test]
    fn invalid_only_when_the_test_itself_does_not_build() {
        let test_broken = || cell(VerdictKind::CompileError, Some(CompileSide::Test));
        let c = Classification::from_cells(vec![test_broken(), test_broken()], 0.4);
        assert_eq!(c.class, Class::Invalid);
        assert_eq!(c.build_error.as_deref(), Some(""));
        let link = || cell(VerdictKind::CompileError, Some(CompileSide::Link));
        assert_eq!(
            Classification::from_cells(vec![link(), test_broken()], 0.4).class,
            Class::Invalid,
            "it builds with no solution"
        );
        // A solution that does not build is that solution's failure, not the test's.
        let cells = vec![
            cell(VerdictKind::Pass, None),
            cell(VerdictKind::Pass, None),
            cell(VerdictKind::CompileError, Some(CompileSide::Solution)),
        ];
        let c = Classification::from_cells(cells, 0.4);
        assert_eq!((c.class, c.failures), (Class::Ideal, 1));
        // Building against one solution but not another: a failure of that pair.
        let cells = vec![cell(VerdictKind::Pass, None), link()];
        assert_eq!(Classification::from_cells(cells, 0.4).class, Class::TooHard);
        assert_eq!(
            Classification::from_cells(vec![], 0.4).class,
            Class::TooEasy
        );
    }

    #[test]
    fn reruns_parse_and_print() {
        assert_eq!("auto".parse::<Reruns>().unwrap(), Reruns::Auto(20));
        assert_eq!("auto:5".parse::<Reruns>().unwrap(), Reruns::Auto(5));
        assert_eq!("7".parse::<Reruns>().unwrap(), Reruns::Fixed(7));
        assert!("0".parse::<Reruns>().is_err());
        assert!("many".parse::<Reruns>().is_err());
        assert_eq!(Reruns::Auto(20).to_string(), "auto");
        let r: Reruns = serde_json::from_str("\"auto:3\"").unwrap();
        assert_eq!(r, Reruns::Auto(3));
    }
}
