//! What `dixit report` was given, told apart by a directory's contents: a run directory has
//! `journal.jsonl`; an eval output (`dixit eval --out DIR`) has `report.json` and `problems/`.
//! [`ReportError`] is every way a report cannot be made.

use std::path::{Path, PathBuf};

use crate::eval::EvalError;

/// A directory `dixit report` can render.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportInput {
    /// A run directory (`runs/<id>/` with `journal.jsonl`).
    Run(PathBuf),
    /// The output of `dixit eval --out DIR` (`report.json` and `problems/`).
    Eval(PathBuf),
    /// The output of `dixit import --out DIR` (`import.json` and the project folders).
    Import(PathBuf),
    /// The output of `dixit eval --samples --out DIR` (`samples_report.json` and `problems/`).
    Samples(PathBuf),
}

impl ReportInput {
    /// Recognises `dir` by its contents.
    pub fn detect(dir: &Path) -> Result<Self, ReportError> {
        if !dir.is_dir() {
            return Err(ReportError::NotADirectory {
                path: dir.to_path_buf(),
            });
        }
        if dir.join("journal.jsonl").is_file() {
            Ok(ReportInput::Run(dir.to_path_buf()))
        } else if dir.join(crate::eval::samples::REPORT_FILE).is_file() {
            Ok(ReportInput::Samples(dir.to_path_buf()))
        } else if dir.join("report.json").is_file() && dir.join("problems").is_dir() {
            Ok(ReportInput::Eval(dir.to_path_buf()))
        } else if dir.join(crate::import::REPORT_FILE).is_file() {
            Ok(ReportInput::Import(dir.to_path_buf()))
        } else {
            Err(ReportError::UnknownInput {
                dir: dir.to_path_buf(),
            })
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        match self {
            ReportInput::Run(d)
            | ReportInput::Eval(d)
            | ReportInput::Import(d)
            | ReportInput::Samples(d) => d,
        }
    }
}

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The input is not a directory.
    #[error("{path} is not a directory")]
    NotADirectory {
        /// What was given.
        path: PathBuf,
    },
    /// The directory is neither a run nor an eval output.
    #[error("{dir} is neither an eval output (report.json and problems/), a samples output (samples_report.json), an import (import.json) nor a run directory (journal.jsonl)")]
    UnknownInput {
        /// The directory.
        dir: PathBuf,
    },
    /// A run's journal could not be read.
    #[error("{dir} is a run directory, but its journal cannot be read")]
    Journal {
        /// The run directory.
        dir: PathBuf,
        /// What is wrong with the journal.
        #[source]
        source: crate::journal::JournalError,
    },
    /// Two inputs were given but they are not both eval outputs.
    #[error("only two eval outputs can be compared; {dir} is not one (a run directory is reported alone)")]
    CompareNeedsEvals {
        /// The input that is not an eval output.
        dir: PathBuf,
    },
    /// `report.json` could not be read.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// A problem file is not a problem's verdicts.
    #[error("{path} is not a problem matrix of dixit eval")]
    BadProblem {
        /// The file.
        path: PathBuf,
        /// The parse error, with line and column.
        #[source]
        source: serde_json::Error,
    },
    /// A problem file disagrees with itself or with `report.json`.
    #[error("{path}: {what}")]
    Inconsistent {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// A file or directory could not be read or written.
    #[error("cannot access {path}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// An import's `import.json` is not an import's report.
    #[error("{path} is not the report of dixit import")]
    BadImport {
        /// The file.
        path: PathBuf,
        /// The parse error, with line and column.
        #[source]
        source: serde_json::Error,
    },
    /// A flagged project's decisions could not be read.
    #[error(transparent)]
    Decision(#[from] crate::import::DecisionError),
    /// Data could not be serialised for the page (a bug).
    #[error("cannot embed data in the page")]
    Embed(#[from] serde_json::Error),
}

impl ReportError {
    /// Whether the input is at fault (bad or missing files), as opposed to dixit or the machine.
    pub fn is_bad_input(&self) -> bool {
        match self {
            ReportError::Eval(e) => !matches!(e, EvalError::Sandbox { .. }),
            ReportError::Io { source, .. } => matches!(
                source.kind(),
                std::io::ErrorKind::NotFound
                    | std::io::ErrorKind::InvalidData
                    | std::io::ErrorKind::PermissionDenied
            ),
            ReportError::Embed(_) => false,
            ReportError::Journal { source, .. } => !matches!(
                source,
                crate::journal::JournalError::Io { source, .. }
                    if !matches!(source.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied)
            ),
            _ => true,
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ReportError::Io {
            path: path.into(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_contents() {
        let d = tempfile::tempdir().unwrap();
        let err = ReportInput::detect(d.path()).unwrap_err();
        assert!(matches!(err, ReportError::UnknownInput { .. }));
        assert!(err.to_string().contains("journal.jsonl"));
        std::fs::write(d.path().join("report.json"), "{}").unwrap();
        assert!(ReportInput::detect(d.path()).is_err());
        std::fs::create_dir(d.path().join("problems")).unwrap();
        assert_eq!(
            ReportInput::detect(d.path()).unwrap(),
            ReportInput::Eval(d.path().to_path_buf())
        );
        std::fs::write(d.path().join("journal.jsonl"), "").unwrap();
        assert!(matches!(
            ReportInput::detect(d.path()).unwrap(),
            ReportInput::Run(_)
        ));
        assert!(matches!(
            ReportInput::detect(&d.path().join("nope")),
            Err(ReportError::NotADirectory { .. })
        ));
    }
}
