//! codet's own event and stop, as its journal keeps them (open entries: see
//! [`crate::journal::Open`]). Scores are not journaled: they follow from a group's counts
//! ([`Group::score`]), and a journal keeps no floating point a replay would compare.

use serde::{Deserialize, Serialize};

use crate::journal::Named;

/// The test cases a tester's reply held, in the tester's lane.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestCases {
    /// The reply (`tester-1#1`).
    pub reply: String,
    /// Its code blocks of the run's test kind.
    pub blocks: usize,
    /// The cases that count, in order: each with its suite number.
    pub cases: Vec<Case>,
    /// Cases past the limit (`[codet] tests`), not run.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub beyond_limit: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Named for TestCases {
    const NAME: &'static str = "test_cases";
}

/// One test case: `tester-1#1.2` (the reply's second block) or `tester-1#1.2.3` (its third
/// top-level assert), and its number in the suite every implementation ran against.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// Its id.
    pub id: String,
    /// Its number in the suite.
    pub number: usize,
}

/// Implementations that pass exactly the same test cases (a consensus set).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// Its coders, in agent order.
    pub coders: Vec<String>,
    /// The suite numbers of the tests they pass.
    pub tests: Vec<usize>,
}

impl Group {
    /// CodeT's score: tests passed × √coders (`selection::DualAgreement`).
    pub fn score(&self) -> f64 {
        self.tests.len() as f64 * (self.coders.len() as f64).sqrt()
    }
}

/// How the shipped coder was picked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pick {
    /// Dual agreement: the first coder (in agent order) of the best-scoring groups.
    Agreement,
    /// No group (no test cases, or none that any implementation passes): the first coder
    /// whose code builds.
    FirstThatBuilds,
    /// No group, and no code builds: the first coder.
    First,
}

/// The stop: the run ships `coder`'s implementation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shipped {
    /// The coder shipped.
    pub coder: String,
    /// How it was picked.
    pub pick: Pick,
    /// Test cases every implementation ran against.
    pub tests: usize,
    /// The groups of coders that pass at least one test case, best first (score, then the
    /// first coder's order).
    pub groups: Vec<Group>,
    /// How many groups lead `groups` with the top score (CodeT pools them; more than one is
    /// a tie, broken by agent order).
    pub top: usize,
}

impl Named for Shipped {
    const NAME: &'static str = "shipped";
}
