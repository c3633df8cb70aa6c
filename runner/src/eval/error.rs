//! Errors of an offline evaluation. A solution or test that fails is data (a verdict in the
//! matrix), never an error; these are the cases where dixit cannot produce a result.

use std::path::PathBuf;

use super::codet::ImportError;
use super::corpus::CorpusError;
use super::scoring::ScoringError;
use crate::english::and_list;

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
    /// A worker process failed (`--workers processes`).
    #[error("the worker processes failed{}", problem.as_ref().map(|p| format!(" on {p}")).unwrap_or_default())]
    Workers {
        /// The problem it was building, if one.
        problem: Option<String>,
        /// What went wrong.
        #[source]
        source: crate::workers::PoolError,
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
    /// Shard reports that do not make up one evaluation.
    #[error(transparent)]
    Merge(#[from] MergeError),
}

/// Why shard reports cannot be joined into the report of the whole evaluation. Parts are named
/// by a label: the file they came from, or their shard.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("cannot merge: no reports given")]
    Nothing,
    /// A report of a whole (unsharded) evaluation among the parts.
    #[error("cannot merge: {label} is not a shard (it was evaluated whole)")]
    NotAShard {
        /// The part.
        label: String,
    },
    /// Parts evaluated differently (corpus, limits, isolation, runtime, scoring...).
    #[error("cannot merge: {label} was evaluated with another setup than {first}: {}", .differences.join("; "))]
    SetupDiffers {
        /// The part that differs.
        label: String,
        /// The first part.
        first: String,
        /// Each differing field, `name: first's value vs this part's`.
        differences: Vec<String>,
    },
    /// Parts of different splits.
    #[error("cannot merge: {label} is one of {count} shards, {first} one of {first_count}")]
    CountDiffers {
        /// The part that differs.
        label: String,
        /// Its shard count.
        count: u32,
        /// The first part.
        first: String,
        /// The first part's shard count.
        first_count: u32,
    },
    /// The same shard more than once.
    #[error("cannot merge: shard{} {} of {count} given more than once", plural(.repeated.len()), and_list(.repeated))]
    Repeated {
        /// The shard count.
        count: u32,
        /// The shards given more than once.
        repeated: Vec<u32>,
    },
    /// Shards that are not there.
    #[error("cannot merge: {} of {count} shards missing: {}", .missing.len(), and_list(.missing))]
    Missing {
        /// The shard count.
        count: u32,
        /// The missing shards, ascending.
        missing: Vec<u32>,
    },
    /// Every shard is there but the problems do not add up (shards of another partition rule).
    #[error("cannot merge: the shards hold {found} problems, the evaluation selected {expected}")]
    ProblemCount {
        /// Problems selected by the evaluation.
        expected: u64,
        /// Problems in the parts together.
        found: u64,
    },
    /// Every shard is there but the samples do not add up to the scoring's selection, each
    /// once.
    #[error("cannot merge: the shards hold {found} samples at distinct places, the scoring selected {expected}")]
    SampleCount {
        /// Samples selected by the scoring.
        expected: usize,
        /// Distinct samples in the parts together.
        found: usize,
    },
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

impl EvalError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        EvalError::Io {
            path: path.into(),
            source,
        }
    }
}
