//! What a person decides about a project an import flagged (its reference fails its own hidden
//! test): the hidden test is right and the project takes part in comparisons (`include`), or
//! the test is wrong and the project stays out (`exclude`). Each decision is one line appended
//! to `decisions.jsonl` beside `FLAGGED.md`, with who, why and a digest of the flag it answers:
//! a decision answers the flag it read, so a re-import that writes a different `FLAGGED.md`
//! waits for a person again. Nothing is ever rewritten; the last decision on the current flag
//! stands.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::FLAG_FILE;

/// The journal of a flagged project's decisions, beside its `FLAGGED.md`.
pub const DECISIONS_FILE: &str = "decisions.jsonl";

/// Which side of a flagged project a person found wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ruling {
    /// The hidden test is right (the reference is wrong): the project takes part.
    Include,
    /// The hidden test is wrong: the project stays out of comparisons.
    Exclude,
}

impl Ruling {
    /// The ruling as the command line says it.
    pub fn word(self) -> &'static str {
        match self {
            Ruling::Include => "include",
            Ruling::Exclude => "exclude",
        }
    }
}

/// One decision, as journaled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlagDecision {
    /// Include or exclude.
    pub ruling: Ruling,
    /// Why, in the words of who decided.
    pub why: String,
    /// Who decided.
    pub by: String,
    /// Milliseconds since the Unix epoch (when; never compared).
    pub t: u64,
    /// SHA-256 of the `FLAGGED.md` the decision answers.
    pub flag_sha256: String,
}

/// Where a project stands with comparisons.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Not flagged at import.
    Clean,
    /// Flagged, and no decision answers its current flag.
    Undecided,
    /// Flagged, and a person decided (the last decision on the current flag).
    Decided(FlagDecision),
}

impl Standing {
    /// Whether the project takes part in comparisons.
    pub fn takes_part(&self) -> bool {
        match self {
            Standing::Clean => true,
            Standing::Undecided => false,
            Standing::Decided(d) => d.ruling == Ruling::Include,
        }
    }
}

/// Why a flag decision could not be read or recorded.
#[derive(Debug, thiserror::Error)]
pub enum DecisionError {
    /// The project has no `FLAGGED.md`: there is nothing to decide.
    #[error("{project}: not flagged at import (no {FLAG_FILE}): there is nothing to decide")]
    NotFlagged {
        /// The project's folder.
        project: PathBuf,
    },
    /// A decision needs its reason.
    #[error("say why with --why: which side is wrong, and how you know")]
    NoReason,
    /// The project's `FLAGGED.md` or its decisions' file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line of the journal is not a decision.
    #[error("{path}, line {line}: not a decision ({source})")]
    Malformed {
        /// The journal's path.
        path: PathBuf,
        /// The line's number (1-based).
        line: usize,
        /// Why it does not read.
        source: serde_json::Error,
    },
}

/// Where `project` stands: clean, flagged and undecided, or decided.
pub fn standing(project: &Path) -> Result<Standing, DecisionError> {
    let Some(digest) = flag_digest(project)? else {
        return Ok(Standing::Clean);
    };
    let last = read(project)?
        .into_iter()
        .rev()
        .find(|d| d.flag_sha256 == digest);
    Ok(last.map_or(Standing::Undecided, Standing::Decided))
}

/// Every decision journaled for `project`, oldest first (none: an empty list).
pub(super) fn read(project: &Path) -> Result<Vec<FlagDecision>, DecisionError> {
    let path = project.join(DECISIONS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(DecisionError::Io { path, source }),
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|source| DecisionError::Malformed {
                path: path.clone(),
                line: i + 1,
                source,
            })
        })
        .collect()
}

/// Journals a person's `ruling` on the flag `project` has now, and returns the decision.
pub fn decide(
    project: &Path,
    ruling: Ruling,
    why: &str,
    by: &str,
) -> Result<FlagDecision, DecisionError> {
    let Some(flag_sha256) = flag_digest(project)? else {
        return Err(DecisionError::NotFlagged {
            project: project.to_path_buf(),
        });
    };
    if why.trim().is_empty() {
        return Err(DecisionError::NoReason);
    }
    // A journal that cannot be read is not appended to: the person sees why first.
    read(project)?;
    let d = FlagDecision {
        ruling,
        why: why.trim().to_string(),
        by: by.to_string(),
        t: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
        flag_sha256,
    };
    let path = project.join(DECISIONS_FILE);
    let line = serde_json::to_string(&d).expect("a decision serialises") + "\n";
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()).and_then(|()| f.sync_all()))
        .map_err(|source| DecisionError::Io { path, source })?;
    Ok(d)
}

/// The SHA-256 of `project`'s `FLAGGED.md`, or `None` where it has none.
fn flag_digest(project: &Path) -> Result<Option<String>, DecisionError> {
    let path = project.join(FLAG_FILE);
    match std::fs::read(&path) {
        Ok(bytes) => Ok(Some(hex(&Sha256::digest(&bytes)))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(DecisionError::Io { path, source }),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(text: &str) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join(FLAG_FILE), text).unwrap();
        d
    }

    #[test]
    fn a_project_without_a_flag_is_clean_and_has_nothing_to_decide() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(standing(d.path()).unwrap(), Standing::Clean);
        assert!(matches!(
            decide(d.path(), Ruling::Include, "x", "me"),
            Err(DecisionError::NotFlagged { .. })
        ));
    }

    #[test]
    fn the_last_decision_on_the_current_flag_stands_and_a_new_flag_waits_again() {
        let d = flagged("the reference fails\n");
        assert_eq!(standing(d.path()).unwrap(), Standing::Undecided);
        assert!(!standing(d.path()).unwrap().takes_part());
        decide(d.path(), Ruling::Exclude, "the test counts wrong", "ann").unwrap();
        assert!(!standing(d.path()).unwrap().takes_part());
        decide(
            d.path(),
            Ruling::Include,
            "I misread: the test is right",
            "bob",
        )
        .unwrap();
        let Standing::Decided(last) = standing(d.path()).unwrap() else {
            panic!("decided")
        };
        assert_eq!((last.ruling, last.by.as_str()), (Ruling::Include, "bob"));
        assert_eq!(read(d.path()).unwrap().len(), 2, "nothing is rewritten");
        // A re-import writes another flag: the old decisions do not answer it.
        std::fs::write(d.path().join(FLAG_FILE), "another disagreement\n").unwrap();
        assert_eq!(standing(d.path()).unwrap(), Standing::Undecided);
    }

    #[test]
    fn a_decision_needs_a_reason_and_a_broken_journal_names_its_line() {
        let d = flagged("f\n");
        assert!(matches!(
            decide(d.path(), Ruling::Include, "  ", "me"),
            Err(DecisionError::NoReason)
        ));
        std::fs::write(d.path().join(DECISIONS_FILE), "\n{\"ruling\":\"maybe\"}\n").unwrap();
        let e = standing(d.path()).unwrap_err();
        assert!(e.to_string().contains("line 2: not a decision"), "{e}");
        assert!(decide(d.path(), Ruling::Include, "x", "me").is_err());
        assert_eq!(
            std::fs::read_to_string(d.path().join(DECISIONS_FILE)).unwrap(),
            "\n{\"ruling\":\"maybe\"}\n",
            "a broken journal is not appended to"
        );
    }
}
