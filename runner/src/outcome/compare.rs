//! What `dixit compare` found, as plain data: the `dixit-compare/1` format ([`CompareReport`])
//! that `--json`, `--out` and `--merge` read and write. `compare/` fills it in, one
//! [`CompareCell`] per (project, protocol arm); `report/` renders it (the table, the page).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::config::Arm;
use crate::scaleout::Shard;

/// The version of the report format (`dixit compare --json`).
pub const COMPARE_FORMAT: &str = "dixit-compare/1";

/// What one cell of the comparison found.
// A comparison holds hundreds of cells, not millions: a boxed run would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CellResult {
    /// The protocol ran on the project.
    Ran(CellRun),
    /// The protocol cannot run on this project (it lacks hidden tests or an acceptance suite,
    /// or a config it rejects).
    Skipped {
        /// Why it cannot.
        why: String,
    },
    /// The run failed to start or broke (an error of dixit or the machine, not of the agents).
    Failed {
        /// What failed.
        error: String,
    },
}

/// A cell whose protocol ran: its run, its stop, its hidden-test results and what it cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellRun {
    /// The run's id.
    pub run_id: String,
    /// The run's folder (absolute).
    pub run_dir: PathBuf,
    /// The stop, in words, and its class (`done`, `human_needed`, `capped`, `failed`,
    /// `interrupted`).
    pub stop: String,
    /// The stop's exit class (`done`, `human_needed`, `capped`, `failed`, `interrupted`).
    pub exit: String,
    /// The implementations the run ships (every coder's, or the one a protocol such as `codet`
    /// picked): the hidden columns count these.
    pub coders: usize,
    /// The implementation a problem is judged by (see [`super::Summary::shipped_one`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shipped: Option<String>,
    /// Whether it passes every hidden test (none: no hidden tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shipped_passes: Option<bool>,
    /// What it rests on: the rule that picked it and what separated it from the others; none in
    /// a cell kept before cells carried it (`dixit compare` reads it again from the journal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<super::Decision>,
    /// Shipped implementations that pass every hidden test.
    pub all_hidden: usize,
    /// Hidden tests passed, summed over the shipped implementations.
    pub hidden_passed: usize,
    /// Hidden tests run, summed over the shipped implementations.
    pub hidden_total: usize,
    /// Agent calls made.
    pub calls: u64,
    /// Tokens in the prompts sent.
    pub prompt_tokens: u64,
    /// Tokens in the replies.
    pub completion_tokens: u64,
    /// Cost in US dollars.
    pub usd: f64,
    /// Wall-clock seconds the run took.
    pub seconds: f64,
    /// The seeds' own measures of the run ([`crate::report::metric`]); none in a cell kept
    /// before they existed (`dixit compare` computes them again from the run's journal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Vec<super::Metric>>,
    /// What the run ran with, a line each: its protocol's table with defaults filled in, the
    /// sandbox limits, and its agents by role (see `crate::compare`); none in a cell kept before
    /// cells carried them (`dixit compare` reads them again from the run's journal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Vec<String>>,
}

/// One (project, protocol arm) cell of a comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompareCell {
    /// Its number in the full comparison (project-major).
    pub index: usize,
    /// The project's name.
    pub project: String,
    /// The protocol arm (a protocol, with any settings it overrides).
    pub protocol: Arm,
    /// Whether the project is held out (`--holdout`): reported apart from the development ones.
    pub holdout: bool,
    /// What came of it.
    pub result: CellResult,
}

/// A comparison (or one shard of it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompareReport {
    /// The report's format (`dixit-compare/1`).
    pub format: String,
    /// The projects compared, by name.
    pub projects: Vec<String>,
    /// The protocol arms compared.
    pub protocols: Vec<Arm>,
    /// The shard this report covers, if it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The cells this report holds.
    pub cells: Vec<CompareCell>,
}
