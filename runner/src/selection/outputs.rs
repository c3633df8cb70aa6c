//! What the solutions *answer*, not only whether they pass: the calls the generated tests made
//! into the solution and each solution's answer to each, as classes of equal answers. MBR-exec
//! and SRank compare solutions by these; the harness records them off the bridge of the verdict
//! matrix's own runs (`eval/matrix.rs`), so they cost no run of their own.

use serde::{Deserialize, Serialize};

/// What kind of answer a class holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerKind {
    /// Returned plain data (compared as Python's `==` compares it).
    Value,
    /// Raised an exception (compared by its class).
    Raised,
    /// Returned an object that is not plain data (compared by its type only).
    Unrepresentable,
    /// The solution has no such function.
    Missing,
    /// The solution's instance ended while answering (fuel, memory, a trap).
    NoAnswer,
    /// The solution was never asked: no run of it reached the call (it does not build, or the
    /// call was made only after another solution's answer).
    NotAsked,
}

/// One class of equal answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerClass {
    /// What kind of answer.
    pub kind: AnswerKind,
    /// The answer for people: a value as Python source (cut), `raises ValueError`, ...
    pub shown: String,
}

/// What every solution of a problem answered to every call its generated tests made.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outputs {
    /// The distinct calls as Python source (cut), in the order the tests first made them (test
    /// order, then solution order): `has_close_elements([1.0, 2.0], 0.5)`.
    pub calls: Vec<String>,
    /// The distinct answers over all calls: answers Python would call equal share a class.
    pub answers: Vec<AnswerClass>,
    /// `rows[i][c]`: solution `i`'s answer to call `c` (an index into `answers`).
    pub rows: Vec<Vec<u32>>,
}

impl Outputs {
    /// Checks the shape against `solutions` unique solutions.
    pub fn validate(&self, solutions: usize) -> Result<(), String> {
        if self.rows.len() != solutions {
            return Err(format!(
                "outputs have {} rows for {solutions} solutions",
                self.rows.len()
            ));
        }
        let calls = self.calls.len();
        for (i, row) in self.rows.iter().enumerate() {
            if row.len() != calls {
                return Err(format!(
                    "outputs row {i} has {} answers for {calls} calls",
                    row.len()
                ));
            }
            if let Some(a) = row.iter().find(|&&a| a as usize >= self.answers.len()) {
                return Err(format!(
                    "outputs row {i} names answer {a}, which does not exist"
                ));
            }
        }
        Ok(())
    }

    /// The kind of answer class `a`.
    pub fn kind(&self, a: u32) -> AnswerKind {
        self.answers[a as usize].kind
    }

    /// Whether answer class `a` is a returned value.
    pub fn is_value(&self, a: u32) -> bool {
        self.kind(a) == AnswerKind::Value
    }
}
