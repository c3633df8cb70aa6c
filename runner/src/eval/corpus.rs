//! A format-neutral model of an offline evaluation corpus.
//!
//! A [`Corpus`] holds, per problem, everything a harness needs to build a
//! verdict matrix without knowing where the data came from: the recorded
//! solution samples, the recorded test samples (both deduplicated, with their
//! multiplicity), a reference solution and the hidden tests. Importers (such as
//! [`super::codet`]) produce it; harnesses consume it, usually as JSON (the
//! serde form of [`Corpus`] is the interchange format between the Rust
//! importer and the native Python harness `scripts/native_eval.py`).
//!
//! # How a harness runs the sources
//!
//! * a solution is a complete Python module (prompt + completion);
//! * a generated test is a Python statement (usually `assert f(...) == ...`),
//!   run after the solution module, in its globals: `solution + "\n" + test`;
//! * the hidden test is run as `solution + "\n" + hidden_test`; it raises
//!   (fails) unless the solution is correct.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Errors reading or writing a corpus as JSON.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// The file could not be read or written.
    #[error("cannot access corpus file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file is not a JSON corpus (serde reports the line and column).
    #[error("corpus file {path} is not valid corpus json: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The underlying error, with line and column.
        source: serde_json::Error,
    },
}

/// A source string together with how many times it was sampled.
///
/// Identical strings are one [`Weighted`] entry; `count` is the multiplicity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Weighted {
    /// The source text (a Python module or a Python test statement).
    pub source: String,
    /// How many recorded samples had exactly this text (at least 1).
    pub count: u32,
}

/// One problem with its recorded samples.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// Stable problem identifier, e.g. `HumanEval/0`.
    pub id: String,
    /// Name of the function under test.
    pub entry_point: String,
    /// The prompt the solutions continue (signature + docstring).
    pub prompt: String,
    /// A known-correct, complete, runnable Python module (prompt + canonical
    /// solution). Tests it passes are considered correct.
    pub reference: String,
    /// Python source that, run after a solution module (`solution + "\n" +
    /// hidden_test`), raises unless the solution is correct.
    pub hidden_test: String,
    /// Recorded solutions (complete modules), deduplicated, first-seen order.
    pub solutions: Vec<Weighted>,
    /// Recorded test statements, deduplicated, first-seen order.
    pub tests: Vec<Weighted>,
}

impl Problem {
    /// Number of solution samples, counting multiplicity.
    pub fn solution_samples(&self) -> u64 {
        self.solutions.iter().map(|w| u64::from(w.count)).sum()
    }

    /// Number of test samples, counting multiplicity.
    pub fn test_samples(&self) -> u64 {
        self.tests.iter().map(|w| u64::from(w.count)).sum()
    }
}

/// A set of problems.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Corpus {
    /// The problems, in the order of the source data.
    pub problems: Vec<Problem>,
}

impl Corpus {
    /// Parses a corpus from its JSON form; `path` only names the source in errors.
    pub fn from_json(text: &str, path: &Path) -> Result<Self, CorpusError> {
        serde_json::from_str(text).map_err(|source| CorpusError::Json {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Reads a corpus from a JSON file.
    pub fn read(path: &Path) -> Result<Self, CorpusError> {
        let text = std::fs::read_to_string(path).map_err(|source| CorpusError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_json(&text, path)
    }

    /// The JSON form of the corpus (the interchange format of the harnesses).
    pub fn to_json(&self) -> String {
        // Serialising plain strings and integers cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Writes the JSON form of the corpus to a file.
    pub fn write(&self, path: &Path) -> Result<(), CorpusError> {
        std::fs::write(path, self.to_json()).map_err(|source| CorpusError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// Deduplicates `items`: identical strings become one [`Weighted`] whose
/// `count` is their multiplicity; entries keep the order of first appearance.
pub fn tally<I>(items: I) -> Vec<Weighted>
where
    I: IntoIterator<Item = String>,
{
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<Weighted> = Vec::new();
    for item in items {
        match index.get(&item) {
            Some(&i) => out[i].count += 1,
            None => {
                index.insert(item.clone(), out.len());
                out.push(Weighted {
                    source: item,
                    count: 1,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem() -> Problem {
        Problem {
            id: "P/0".into(),
            entry_point: "f".into(),
            prompt: "def f(x):\n".into(),
            reference: "def f(x):\n    return x\n".into(),
            hidden_test: "assert f(1) == 1\n".into(),
            solutions: tally(["a".to_string(), "b".into(), "a".into()]),
            tests: tally(["assert f(1) == 1".to_string()]),
        }
    }

    #[test]
    fn tally_keeps_first_seen_order_and_counts() {
        let t = tally(["b", "a", "b", "c", "b", "a"].map(String::from));
        let got: Vec<(&str, u32)> = t.iter().map(|w| (w.source.as_str(), w.count)).collect();
        assert_eq!(got, vec![("b", 3), ("a", 2), ("c", 1)]);
        assert!(tally(Vec::<String>::new()).is_empty());
    }

    #[test]
    fn sample_counts_include_multiplicity() {
        let p = problem();
        assert_eq!(p.solution_samples(), 3);
        assert_eq!(p.test_samples(), 1);
    }

    #[test]
    fn json_round_trip() {
        let c = Corpus {
            problems: vec![problem()],
        };
        let back = Corpus::from_json(&c.to_json(), Path::new("x.json")).unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn bad_json_names_the_file() {
        let err = Corpus::from_json("{\"problems\": [1]}", Path::new("dump.json")).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("dump.json"), "{msg}");
        assert!(msg.contains("line 1"), "{msg}");
    }
}
