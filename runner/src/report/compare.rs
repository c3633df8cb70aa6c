//! What `dixit compare` found, as plain data ([`CompareReport`], the `dixit-compare/1` format
//! that `--json`, `--out` and `--merge` read and write), and its table: one row per (project,
//! protocol), then totals per protocol, for development and held-out projects apart. `compare/`
//! fills the report in; this module depends on nothing of it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::format::percent;
use crate::config::ProtocolName;
use crate::eval::Shard;

/// The version of the report format (`dixit compare --json`).
pub const COMPARE_FORMAT: &str = "dixit-compare/1";

/// What one cell of the comparison found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CellResult {
    /// The protocol ran on the project.
    Ran(CellRun),
    /// The protocol cannot run on this project (it lacks hidden tests or an acceptance suite,
    /// or a config it rejects).
    Skipped { why: String },
    /// The run failed to start or broke (an error of dixit or the machine, not of the agents).
    Failed { error: String },
}

/// A cell whose protocol ran: its run, its stop, its hidden-test results and what it cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellRun {
    pub run_id: String,
    pub run_dir: PathBuf,
    /// The stop, in words, and its class (`done`, `human_needed`, `capped`, `failed`,
    /// `interrupted`).
    pub stop: String,
    pub exit: String,
    pub coders: usize,
    /// Final implementations that pass every hidden test.
    pub all_hidden: usize,
    pub hidden_passed: usize,
    pub hidden_total: usize,
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub usd: f64,
    pub seconds: f64,
}

/// One (project, protocol) cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Its number in the full comparison (project-major).
    pub index: usize,
    pub project: String,
    pub protocol: ProtocolName,
    /// Whether the project is held out (`--holdout`): reported apart from the development ones.
    pub holdout: bool,
    pub result: CellResult,
}

/// A comparison (or one shard of it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompareReport {
    pub format: String,
    pub projects: Vec<String>,
    pub protocols: Vec<ProtocolName>,
    /// The shard this report covers, if it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    pub cells: Vec<Cell>,
}

/// Totals of one protocol over a set of projects.
#[derive(Default)]
struct Totals {
    cells: usize,
    coders: usize,
    all_hidden: usize,
    hidden_passed: usize,
    hidden_total: usize,
    calls: u64,
    tokens: u64,
    usd: f64,
    seconds: f64,
    skipped: usize,
}

impl Totals {
    fn add(&mut self, run: &CellRun) {
        self.cells += 1;
        self.coders += run.coders;
        self.all_hidden += run.all_hidden;
        self.hidden_passed += run.hidden_passed;
        self.hidden_total += run.hidden_total;
        self.calls += run.calls;
        self.tokens += run.prompt_tokens + run.completion_tokens;
        self.usd += run.usd;
        self.seconds += run.seconds;
    }
}

/// A share in whole percent, `-` for 0 of 0.
fn pct(n: usize, d: usize) -> String {
    percent(n as u64, d as u64, 0, "-")
}

fn short_stop(stop: &str) -> String {
    let s = stop.split(':').next().unwrap_or(stop);
    s.chars().take(28).collect()
}

/// The comparison as a text table.
pub fn compare_table(r: &CompareReport) -> String {
    let mut o = String::new();
    o.push_str(&format!(
        "{:<16} {:<8} {:>12} {:>13} {:>6} {:>9} {:>8} {:>8}  {}\n",
        "project",
        "protocol",
        "all hidden",
        "hidden tests",
        "calls",
        "tokens",
        "cost $",
        "time s",
        "stop"
    ));
    for c in &r.cells {
        let name = if c.holdout {
            format!("{} (held out)", c.project)
        } else {
            c.project.clone()
        };
        match &c.result {
            CellResult::Ran(run) => o.push_str(&format!(
                "{:<16} {:<8} {:>12} {:>13} {:>6} {:>9} {:>8.4} {:>8.1}  {}\n",
                name,
                c.protocol.as_str(),
                format!(
                    "{}/{} {}",
                    run.all_hidden,
                    run.coders,
                    pct(run.all_hidden, run.coders)
                ),
                format!("{}/{}", run.hidden_passed, run.hidden_total),
                run.calls,
                run.prompt_tokens + run.completion_tokens,
                run.usd,
                run.seconds,
                short_stop(&run.stop)
            )),
            CellResult::Skipped { why } => o.push_str(&format!(
                "{:<16} {:<8} {:>12}  skipped: {why}\n",
                name,
                c.protocol.as_str(),
                "-"
            )),
            CellResult::Failed { error } => o.push_str(&format!(
                "{:<16} {:<8} {:>12}  failed: {error}\n",
                name,
                c.protocol.as_str(),
                "-"
            )),
        }
    }
    let groups: Vec<(&str, bool)> = if r.cells.iter().any(|c| c.holdout) {
        vec![("development", false), ("held out", true)]
    } else {
        vec![("all projects", false)]
    };
    o.push_str("\ntotals per protocol\n");
    o.push_str(&format!(
        "{:<14} {:<8} {:>14} {:>13} {:>6} {:>9} {:>8} {:>8}\n",
        "projects", "protocol", "all hidden", "hidden tests", "calls", "tokens", "cost $", "time s"
    ));
    for (label, holdout) in groups {
        for p in &r.protocols {
            let t = totals(r, p, holdout);
            if t.cells == 0 && t.skipped == 0 {
                continue;
            }
            o.push_str(&format!(
                "{:<14} {:<8} {:>14} {:>13} {:>6} {:>9} {:>8.4} {:>8.1}{}\n",
                label,
                p.as_str(),
                format!(
                    "{}/{} {}",
                    t.all_hidden,
                    t.coders,
                    pct(t.all_hidden, t.coders)
                ),
                format!(
                    "{}/{} {}",
                    t.hidden_passed,
                    t.hidden_total,
                    pct(t.hidden_passed, t.hidden_total)
                ),
                t.calls,
                t.tokens,
                t.usd,
                t.seconds,
                if t.skipped > 0 {
                    format!("  ({} skipped)", t.skipped)
                } else {
                    String::new()
                }
            ));
        }
    }
    o
}

fn totals(r: &CompareReport, protocol: &ProtocolName, holdout: bool) -> Totals {
    let mut t = Totals::default();
    for c in r
        .cells
        .iter()
        .filter(|c| &c.protocol == protocol && c.holdout == holdout)
    {
        match &c.result {
            CellResult::Ran(run) => t.add(run),
            _ => t.skipped += 1,
        }
    }
    t
}
