//! debate's own event and stop, as its journal keeps them (open entries: see
//! [`crate::journal::Open`]).

use serde::{Deserialize, Serialize};

use crate::journal::{CellRecord, Named, Standing};

/// A coder's test meant to break the others, run against every solution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DebateTest {
    /// The test's id.
    pub test: String,
    /// Coders whose solutions fail it (all of them: it may be wrong; none: it breaks nothing).
    pub failed_by: Vec<String>,
    /// Whether it discriminated (some pass, some fail) and joins the suite.
    pub kept: bool,
    /// Why it could not be run against the solutions (it was not taken, or did not build).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_error: Option<String>,
    /// One cell per solution.
    pub cells: Vec<CellRecord>,
}

impl Named for DebateTest {
    const NAME: &'static str = "debate_test";
}

/// The debate ended (`why`) and `winner` passes the most tests (`standings`, best first; ties
/// broken by fewer errors, then agent order, as `tie_break` says).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Debated {
    /// The coder that passes the most tests.
    pub winner: String,
    /// Why the debate ended.
    pub why: String,
    /// Every coder's standing, best first.
    pub standings: Vec<Standing>,
    /// How a tie for first was broken, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tie_break: Option<String>,
}

impl Named for Debated {
    const NAME: &'static str = "debated";
}
