//! The worker's side of the pool: read the setup, then answer one job at a time until stdin
//! ends, then send the counters.

use std::io::{BufRead, Write};

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{Answer, JobLine};

/// What a worker process does with each job.
pub trait Work {
    /// One job, as the parent sends it.
    type Job: DeserializeOwned;
    /// A job's result.
    type Reply: Serialize;
    /// What the worker reports after its last job (its counters).
    type Summary: Serialize;
    /// Why a job failed.
    type Error: std::fmt::Display;

    /// Does one job.
    fn run(&mut self, job: Self::Job) -> Result<Self::Reply, Self::Error>;

    /// The counters of every job so far.
    fn summary(&self) -> Self::Summary;
}

/// Why a worker stopped before its parent closed its input.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Its input or output failed (the parent went away).
    #[error("the worker's pipe to its parent failed")]
    Pipe(#[from] std::io::Error),
    /// A line from the parent was not what the protocol says (line 1: the setup, then jobs).
    #[error("line {line} from the parent is not a {what}")]
    Parse {
        /// 1-based.
        line: usize,
        /// `setup` or `job`.
        what: &'static str,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
    /// A result could not be written as JSON.
    #[error("a result could not be written as JSON")]
    Encode(#[source] serde_json::Error),
}

/// Serves jobs: reads the setup line and makes the worker with `start` (a failure is answered
/// as an error, so the parent can say why), then answers each job line, and after the last one
/// writes the summary.
pub fn serve<S, W, E>(
    mut input: impl BufRead,
    mut output: impl Write,
    start: impl FnOnce(S) -> Result<W, E>,
) -> Result<(), ServeError>
where
    S: DeserializeOwned,
    W: Work,
    E: std::fmt::Display,
{
    let mut line = String::new();
    input.read_line(&mut line)?;
    let setup: S = serde_json::from_str(&line).map_err(|source| ServeError::Parse {
        line: 1,
        what: "setup",
        source,
    })?;
    let mut work = match start(setup) {
        Ok(w) => w,
        Err(e) => {
            return send::<W::Reply, W::Summary>(&mut output, &Answer::Error(e.to_string()));
        }
    };
    send::<W::Reply, W::Summary>(&mut output, &Answer::Ready)?;
    let mut number = 1;
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        number += 1;
        let JobLine { job } =
            serde_json::from_str::<JobLine<W::Job>>(&line).map_err(|source| ServeError::Parse {
                line: number,
                what: "job",
                source,
            })?;
        let answer: Answer<W::Reply, W::Summary> = match work.run(job) {
            Ok(r) => Answer::Ok(r),
            Err(e) => Answer::Error(e.to_string()),
        };
        send(&mut output, &answer)?;
    }
    send::<W::Reply, _>(&mut output, &Answer::Summary(work.summary()))
}

fn send<R: Serialize, S: Serialize>(
    output: &mut impl Write,
    answer: &Answer<R, S>,
) -> Result<(), ServeError> {
    serde_json::to_writer(&mut *output, answer).map_err(ServeError::Encode)?;
    output.write_all(b"\n")?;
    output.flush()?;
    Ok(())
}
