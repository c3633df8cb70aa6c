//! blind's own events and stop, as its journal keeps them (open entries: see
//! [`crate::journal::Open`]).

use serde::{Deserialize, Serialize};

use crate::journal::Named;

/// The tests a coder wrote for itself from the spec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelfTests {
    /// The tests, in the order written.
    pub tests: Vec<SelfTest>,
}

impl Named for SelfTests {
    const NAME: &'static str = "self_tests";
}

/// A test a coder wrote for itself: its id (`agent#call.n`, the reply's n-th code block), its
/// category and stated confidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelfTest {
    /// Its id (`agent#call.n`).
    pub id: String,
    /// The category it gave (`other` when it gave none).
    pub category: String,
    /// The confidence it stated, if it stated one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
}

/// The hidden suite's answer to a coder, pass or fail only (what it was told).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlindChecked {
    /// The blind attempt's number (from 1).
    pub attempt: u32,
    /// Whether the coder's code passes the hidden suite.
    pub passed: bool,
}

impl Named for BlindChecked {
    const NAME: &'static str = "blind_checked";
}

/// The hidden suite answered for every coder (pass or fail only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verified {
    /// Coders whose code passes the hidden suite.
    pub passed: Vec<String>,
    /// Coders whose code fails it.
    pub failed: Vec<String>,
}

impl Named for Verified {
    const NAME: &'static str = "verified";
}
