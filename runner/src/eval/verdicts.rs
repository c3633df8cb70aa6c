//! A problem's verdict matrix as data: the stored form ([`ProblemVerdicts`], one character a
//! verdict), the notes of failing cells, and the memory resets of the instances that built it.
//! What `matrix.rs` builds, worker processes send back (`processes.rs`) and the cache keeps.

use serde::{Deserialize, Serialize};

use super::corpus::Weighted;
use super::scoring::{Outputs, ProblemMatrix, RecordedProblem, ScoringError};
use crate::sandbox::VerdictKind;

/// The one-character code of a verdict in stored matrix rows.
pub fn verdict_code(kind: VerdictKind) -> char {
    match kind {
        VerdictKind::Pass => 'P',
        VerdictKind::WrongAnswer => 'W',
        VerdictKind::RuntimeError => 'R',
        VerdictKind::TimeLimit => 'T',
        VerdictKind::WallTimeLimit => 'L',
        VerdictKind::MemoryLimit => 'M',
        VerdictKind::OutputLimit => 'O',
        VerdictKind::CompileError => 'C',
        VerdictKind::InternalError => 'I',
    }
}

/// The verdict a code stands for (see [`verdict_code`]).
pub fn verdict_of_code(code: char) -> Option<VerdictKind> {
    Some(match code {
        'P' => VerdictKind::Pass,
        'W' => VerdictKind::WrongAnswer,
        'R' => VerdictKind::RuntimeError,
        'T' => VerdictKind::TimeLimit,
        'L' => VerdictKind::WallTimeLimit,
        'M' => VerdictKind::MemoryLimit,
        'O' => VerdictKind::OutputLimit,
        'C' => VerdictKind::CompileError,
        'I' => VerdictKind::InternalError,
        _ => return None,
    })
}

/// What a failing cell raised, kept sparse beside the rows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellNote {
    /// Solution index; absent for the reference solution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solution: Option<usize>,
    /// Test index; absent for the hidden check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<usize>,
    /// The exception's class name, or what the sandbox said.
    pub note: String,
}

/// The verdict matrix of one problem, as cached and as saved with `--out`. Verdicts are one
/// character each (see [`verdict_code`]): `P` pass, `W` wrong answer (an assertion failed), `R`
/// runtime error (another exception), `T` fuel exhausted, `L` wall-clock safety net, `M`
/// memory, `O` output, `C` compile error, `I` internal error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemVerdicts {
    /// Problem id.
    pub id: String,
    /// The unique solutions with their multiplicity.
    pub solutions: Vec<Weighted>,
    /// The unique generated tests with their multiplicity.
    pub tests: Vec<Weighted>,
    /// `rows[i]`: solution `i` on each test (one code per test).
    pub rows: Vec<String>,
    /// Solution `i` on the hidden tests: character `i`.
    pub hidden: String,
    /// The reference solution on each test.
    pub reference_row: String,
    /// The reference solution on the hidden tests (a sanity check: should be `P`).
    pub reference_hidden: char,
    /// Exception class names of the failing cells that raised one.
    pub notes: Vec<CellNote>,
    /// Fuel solution `i`'s hidden check spent: element `i` (absent in matrices built before
    /// it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden_fuel: Option<Vec<u64>>,
    /// Guest runs this matrix took.
    pub runs: u64,
    /// Fuel all its runs used.
    pub fuel: u64,
    /// What each solution answered to each call the generated tests made, read off the bridge
    /// of the same runs (the hidden check's and the reference's runs are left out: selection
    /// must not see them). Absent in matrices built before dixit recorded answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Outputs>,
}

fn passes(codes: &str) -> Vec<bool> {
    codes.chars().map(|c| c == 'P').collect()
}

impl ProblemVerdicts {
    /// The pass/fail matrix the strategies score.
    pub fn matrix(&self) -> Result<ProblemMatrix, ScoringError> {
        let mut m = self.recorded().matrix()?;
        m.outputs = self.outputs.clone();
        m.validate()?;
        Ok(m)
    }

    /// The same verdicts in the pass/fail form `scripts/native_eval.py` writes.
    pub fn recorded(&self) -> RecordedProblem {
        RecordedProblem {
            id: self.id.clone(),
            solutions: self.solutions.clone(),
            tests: self.tests.clone(),
            passes: self.rows.iter().map(|r| passes(r)).collect(),
            hidden: passes(&self.hidden),
            reference_passes: passes(&self.reference_row),
            reference_hidden: Some(self.reference_hidden == 'P'),
            // A solution that does not compile is a compile error in every cell, its hidden
            // check included.
            executes: self.hidden.chars().map(|c| c != 'C').collect(),
        }
    }

    /// How many cells (including hidden checks and the reference) have each verdict.
    pub fn verdict_counts(&self) -> std::collections::BTreeMap<char, u64> {
        let mut out = std::collections::BTreeMap::new();
        let all = self
            .rows
            .iter()
            .map(String::as_str)
            .chain([self.hidden.as_str(), self.reference_row.as_str()]);
        for c in all.flat_map(str::chars).chain([self.reference_hidden]) {
            *out.entry(c).or_insert(0) += 1;
        }
        out
    }
}

/// The memory resets of an evaluation's instances: how each found the pages to copy back, and
/// the counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryResets {
    /// How the resets found the pages to copy back.
    pub tracking: crate::sandbox::ResetTracking,
    /// The counts.
    #[serde(flatten)]
    pub stats: crate::sandbox::ResetStats,
}

impl MemoryResets {
    /// The resets of two processes together; the tracking is the weaker one where they differ
    /// (a process whose kernel refused tracking resets private pages).
    pub fn join(a: Option<Self>, b: Option<Self>) -> Option<Self> {
        match (a, b) {
            (Some(a), Some(b)) => Some(MemoryResets {
                tracking: if a.tracking == b.tracking {
                    a.tracking
                } else {
                    crate::sandbox::ResetTracking::Private
                },
                stats: a.stats + b.stats,
            }),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for k in [
            VerdictKind::Pass,
            VerdictKind::WrongAnswer,
            VerdictKind::RuntimeError,
            VerdictKind::TimeLimit,
            VerdictKind::WallTimeLimit,
            VerdictKind::MemoryLimit,
            VerdictKind::OutputLimit,
            VerdictKind::CompileError,
            VerdictKind::InternalError,
        ] {
            assert_eq!(verdict_of_code(verdict_code(k)), Some(k));
        }
        assert_eq!(verdict_of_code('x'), None);
    }
}
