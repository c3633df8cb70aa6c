//! dixit's own stops, as its journal keeps them (open entries: see [`crate::journal::Open`]).

use serde::{Deserialize, Serialize};

use crate::journal::Named;

/// A round added no test because every proposal was too easy: the coders agree on everything
/// asked.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Converged {}

impl Named for Converged {
    const NAME: &'static str = "converged";
}

/// A round added no test because the proposals were too hard (or did not build) or a tester
/// hibernates: either the tests or the coders are wrong.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stalled {
    /// Tests classified TOO_HARD in the last round.
    pub too_hard: Vec<String>,
    /// Tests classified INVALID in the last round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invalid: Vec<String>,
    /// Testers asleep with their too-hard tests.
    pub hibernated: Vec<String>,
}

impl Named for Stalled {
    const NAME: &'static str = "stalled";
}

/// `[dixit] max_calls`: the run made every call it may; it ships by the evidence so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spent {
    /// The cap it reached.
    pub calls: u32,
}

impl Named for Spent {
    const NAME: &'static str = "spent";
}

/// `[dixit] max_calls`: the coders' programs are the same, byte for byte, so no test can
/// separate them and no further call can change what ships.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Identical {}

impl Named for Identical {
    const NAME: &'static str = "identical";
}

/// Coders could not pass the suite after their retries: a person should look at these tests
/// (perhaps they are wrong).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "HumanNeededWire")]
pub struct HumanNeeded {
    /// Each coder that could not pass the suite, with the tests it fails.
    pub cannot_pass: Vec<CannotPass>,
}

impl Named for HumanNeeded {
    const NAME: &'static str = "human_needed";
}

/// A coder that could not pass the suite, and the tests (1-based) it fails at its best.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CannotPass {
    /// The coder.
    pub coder: String,
    /// The suite tests it fails at its best (1-based).
    pub failing: Vec<usize>,
}

/// [`HumanNeeded`] as journals wrote it: format 1.0 named one coder.
#[derive(Deserialize)]
#[serde(untagged)]
enum HumanNeededWire {
    Now { cannot_pass: Vec<CannotPass> },
    One { coder: String, failing: Vec<usize> },
}

impl From<HumanNeededWire> for HumanNeeded {
    fn from(w: HumanNeededWire) -> Self {
        match w {
            HumanNeededWire::Now { cannot_pass } => HumanNeeded { cannot_pass },
            HumanNeededWire::One { coder, failing } => HumanNeeded {
                cannot_pass: vec![CannotPass { coder, failing }],
            },
        }
    }
}
