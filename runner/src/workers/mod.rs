//! Worker processes: a pool of child processes of dixit itself, each taking one job at a time
//! over its stdin and answering on its stdout, as the alternative to threads in one address space
//! (`--workers processes`). One address space per worker means a memory reset's page-table
//! changes interrupt no other core (no TLB shootdowns across workers), at the price of a
//! start-up per worker.
//!
//! - `pool.rs`: the parent's side, [`ProcessPool`]: starts the workers, hands each the next job
//!   when it answers the last (work stealing, so one long job delays no other), and collects
//!   the answers in job order.
//! - `serve.rs`: the worker's side, [`serve`]: reads the setup, then jobs, and answers each.
//!
//! The wire is JSON, one value a line: the parent writes the setup, which the worker answers
//! with `"ready"` (or `{"error": "…"}`), then one job a line, and closes stdin; the worker
//! answers each job with `{"ok": …}` or `{"error": "…"}` and, when stdin ends, writes
//! `{"summary": …}` (its counters) and exits.

mod pool;
mod serve;

use std::fmt;
use std::str::FromStr;

pub use pool::{Mapped, PoolError, ProcessPool, WorkerCommand};
pub use serve::{serve, ServeError, Work};

/// How sandbox runs are spread over cores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Workers {
    /// Threads of this process (rayon): one address space, no start-up.
    #[default]
    Threads,
    /// Child processes, one thread each ([`ProcessPool`]).
    Processes,
}

impl Workers {
    /// Whether this is [`Workers::Threads`] (reports leave the default out).
    pub fn is_threads(&self) -> bool {
        *self == Workers::Threads
    }

    /// The name on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Workers::Threads => "threads",
            Workers::Processes => "processes",
        }
    }
}

impl fmt::Display for Workers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `--workers` value that is neither `threads` nor `processes`.
#[derive(Debug, thiserror::Error)]
#[error("unknown worker kind `{0}`: expected threads or processes")]
pub struct UnknownWorkers(String);

impl FromStr for Workers {
    type Err = UnknownWorkers;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "threads" => Ok(Workers::Threads),
            "processes" => Ok(Workers::Processes),
            other => Err(UnknownWorkers(other.to_string())),
        }
    }
}

/// One line the parent reads from a worker.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum Answer<R, S> {
    /// The setup was taken: jobs may come.
    Ready,
    /// A job's result.
    Ok(R),
    /// Why a job could not be done (the worker goes on with the next).
    Error(String),
    /// The worker's counters, after its last job.
    Summary(S),
}

/// One line a worker reads after the setup.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct JobLine<J> {
    job: J,
}
