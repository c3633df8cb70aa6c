//! Errors of an offline evaluation. A solution or test that fails is data (a verdict in the
//! matrix), never an error; these are the cases where dixit cannot produce a result.

use std::path::PathBuf;

use super::codet::ImportError;
use super::corpus::CorpusError;
use super::scoring::ScoringError;

/// Why an evaluation (or a merge of shard reports) could not complete.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The corpus could not be imported (missing file, malformed line, unknown prompt...).
    #[error(transparent)]
    Import(#[from] ImportError),
    /// A corpus JSON file could not be written or read.
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    /// Scoring or merging failed (inconsistent matrices, overlapping shards...).
    #[error(transparent)]
    Scoring(#[from] ScoringError),
    /// The sandbox failed (not a guest: dixit itself) while checking or running.
    #[error("sandbox failure while {doing}: {message}")]
    Sandbox {
        /// What the harness was doing.
        doing: String,
        /// The sandbox's message.
        message: String,
    },
    /// A cache, report or matrix file could not be read or written.
    #[error("cannot access {path}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A report file is not a `dixit eval` report.
    #[error("{path} is not a dixit eval report")]
    BadReport {
        /// The file.
        path: PathBuf,
        /// The parse error, with line and column.
        #[source]
        source: serde_json::Error,
    },
    /// A report was written by a newer, incompatible dixit.
    #[error("{path} has report format {found}; this dixit reads format {supported}")]
    ReportFormat {
        /// The file.
        path: PathBuf,
        /// The format found.
        found: u32,
        /// The format this version reads.
        supported: u32,
    },
    /// Shard reports that do not belong to one evaluation.
    #[error("cannot merge: {0}")]
    Merge(String),
}

impl EvalError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        EvalError::Io {
            path: path.into(),
            source,
        }
    }
}
