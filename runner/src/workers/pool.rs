//! The parent's side of the pool: N child processes, each given the next job as soon as it
//! answers the last one.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{Answer, JobLine};

/// How to start one worker: a program and its arguments (normally this dixit binary and a
/// hidden subcommand).
#[derive(Clone, Debug)]
pub struct WorkerCommand {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
}

/// Why the pool could not finish its jobs.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// A worker could not be started.
    #[error("cannot start worker process {program}")]
    Start {
        /// The program.
        program: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A worker could not set itself up.
    #[error("worker {worker} could not start its work: {message}")]
    Setup {
        /// 1-based worker number.
        worker: usize,
        /// The worker's message.
        message: String,
    },
    /// A worker answered that a job failed.
    #[error("worker {worker} failed on job {job}: {message}")]
    Job {
        /// 1-based worker number.
        worker: usize,
        /// The job's index.
        job: usize,
        /// The worker's message.
        message: String,
    },
    /// A worker ended, or closed its output, before answering.
    #[error("worker {worker} ended before answering{}: {status}", job.map(|j| format!(" job {j}")).unwrap_or_default())]
    Ended {
        /// 1-based worker number.
        worker: usize,
        /// The job it was doing (`None`: its setup or summary).
        job: Option<usize>,
        /// How it ended.
        status: String,
    },
    /// A worker's line is not an answer of the protocol.
    #[error("worker {worker} sent a line that is not an answer")]
    Garbled {
        /// 1-based worker number.
        worker: usize,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
    /// A job or the setup could not be written to a worker.
    #[error("cannot write to worker {worker}")]
    Write {
        /// 1-based worker number.
        worker: usize,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// A pool of worker processes.
#[derive(Clone, Debug)]
pub struct ProcessPool {
    command: WorkerCommand,
    workers: usize,
}

/// What the pool's [`map`](ProcessPool::map) returns: each job's result in job order, and each
/// worker's summary.
pub type Mapped<R, T> = (Vec<R>, Vec<T>);

impl ProcessPool {
    /// A pool of `workers` processes (at least one), each started with `command`.
    pub fn new(command: WorkerCommand, workers: usize) -> Self {
        ProcessPool {
            command,
            workers: workers.max(1),
        }
    }

    /// Worker processes it starts (at most one per job).
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Runs every job on the workers, in the order `order` gives (indices into `jobs`, each
    /// once: put the longest first), sending each the `setup` first; `done` is told each result
    /// as it arrives. Stops at the first failure: the workers still running finish the job
    /// they have, are told no more, and are waited for.
    pub fn map<S, J, R, T>(
        &self,
        setup: &S,
        jobs: &[J],
        order: &[usize],
        done: &(dyn Fn(usize, &R) + Sync),
    ) -> Result<Mapped<R, T>, PoolError>
    where
        S: Serialize + Sync,
        J: Serialize + Sync,
        R: DeserializeOwned + Send,
        T: DeserializeOwned + Send,
    {
        let results: Mutex<Vec<Option<R>>> = Mutex::new(jobs.iter().map(|_| None).collect());
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let count = self.workers.min(order.len());
        let summaries: Vec<Result<T, PoolError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (1..=count)
                .map(|worker| {
                    let (results, next, failed) = (&results, &next, &failed);
                    scope.spawn(move || {
                        let outcome =
                            self.drive(worker, setup, jobs, order, next, failed, |job, r: R| {
                                done(job, &r);
                                results.lock().unwrap_or_else(|e| e.into_inner())[job] = Some(r);
                            });
                        if outcome.is_err() {
                            failed.store(true, Ordering::SeqCst);
                        }
                        outcome
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        // The first failure by worker number (a later one is often its consequence).
        let summaries = summaries.into_iter().collect::<Result<Vec<T>, _>>()?;
        let results = results
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .into_iter()
            .enumerate()
            .map(|(job, r)| {
                r.ok_or_else(|| PoolError::Ended {
                    worker: 0,
                    job: Some(job),
                    status: "the job was never handed out".into(),
                })
            })
            .collect::<Result<Vec<R>, _>>()?;
        Ok((results, summaries))
    }

    /// One worker's life: start it, send the setup, then jobs until none is left or one failed
    /// anywhere, then read its summary and wait for it.
    #[allow(clippy::too_many_arguments)]
    fn drive<S, J, R, T>(
        &self,
        worker: usize,
        setup: &S,
        jobs: &[J],
        order: &[usize],
        next: &AtomicUsize,
        failed: &AtomicBool,
        mut keep: impl FnMut(usize, R),
    ) -> Result<T, PoolError>
    where
        S: Serialize,
        J: Serialize,
        R: DeserializeOwned,
        T: DeserializeOwned,
    {
        let mut process = Worker::start(&self.command, worker)?;
        process.send(setup)?;
        match process.answer::<R, T>(None)? {
            Answer::Ready => {}
            Answer::Error(message) => {
                return Err(PoolError::Setup { worker, message });
            }
            _ => {
                return Err(PoolError::Ended {
                    worker,
                    job: None,
                    status: "it did not answer its setup".into(),
                })
            }
        }
        loop {
            if failed.load(Ordering::SeqCst) {
                break;
            }
            let Some(&job) = order.get(next.fetch_add(1, Ordering::SeqCst)) else {
                break;
            };
            process.send(&JobLine { job: &jobs[job] })?;
            match process.answer::<R, T>(Some(job))? {
                Answer::Ok(r) => keep(job, r),
                Answer::Error(message) => {
                    return Err(PoolError::Job {
                        worker,
                        job,
                        message,
                    })
                }
                Answer::Ready | Answer::Summary(_) => {
                    return Err(PoolError::Ended {
                        worker,
                        job: Some(job),
                        status: "it answered something else".into(),
                    })
                }
            }
        }
        process.finish::<R, T>()
    }
}

/// A started worker: its pipes, killed and reaped if dropped before it finished.
struct Worker {
    number: usize,
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Worker {
    fn start(command: &WorkerCommand, number: usize) -> Result<Self, PoolError> {
        let mut child = Command::new(&command.program)
            .args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|source| PoolError::Start {
                program: command.program.clone(),
                source,
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(PoolError::Start {
                program: command.program.clone(),
                source: std::io::Error::other("no pipes to the child"),
            });
        };
        Ok(Worker {
            number,
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            line: String::new(),
        })
    }

    fn send(&mut self, value: &impl Serialize) -> Result<(), PoolError> {
        let worker = self.number;
        let mut bytes = serde_json::to_vec(value).map_err(|e| PoolError::Write {
            worker,
            source: std::io::Error::other(e),
        })?;
        bytes.push(b'\n');
        let stdin = self.stdin.as_mut().ok_or_else(|| PoolError::Write {
            worker,
            source: std::io::Error::other("its input is closed"),
        })?;
        stdin
            .write_all(&bytes)
            .and_then(|()| stdin.flush())
            .map_err(|source| PoolError::Write { worker, source })
    }

    fn answer<R: DeserializeOwned, T: DeserializeOwned>(
        &mut self,
        job: Option<usize>,
    ) -> Result<Answer<R, T>, PoolError> {
        self.line.clear();
        let read = self.stdout.read_line(&mut self.line);
        if !matches!(read, Ok(n) if n > 0) {
            let status = match self.child.wait() {
                Ok(s) => s.to_string(),
                Err(e) => format!("cannot wait for it: {e}"),
            };
            return Err(PoolError::Ended {
                worker: self.number,
                job,
                status,
            });
        }
        serde_json::from_str(&self.line).map_err(|source| PoolError::Garbled {
            worker: self.number,
            source,
        })
    }

    /// Closes its input, reads its summary and waits for it to exit.
    fn finish<R: DeserializeOwned, T: DeserializeOwned>(mut self) -> Result<T, PoolError> {
        self.stdin = None;
        let summary = match self.answer::<R, T>(None)? {
            Answer::Summary(t) => t,
            Answer::Error(message) => {
                return Err(PoolError::Ended {
                    worker: self.number,
                    job: None,
                    status: message,
                })
            }
            Answer::Ok(_) | Answer::Ready => {
                return Err(PoolError::Ended {
                    worker: self.number,
                    job: None,
                    status: "it answered something else after its last job".into(),
                })
            }
        };
        let status = self.child.wait().map_err(|e| PoolError::Ended {
            worker: self.number,
            job: None,
            status: format!("cannot wait for it: {e}"),
        })?;
        if !status.success() {
            return Err(PoolError::Ended {
                worker: self.number,
                job: None,
                status: status.to_string(),
            });
        }
        Ok(summary)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Reaped already when it finished; otherwise stop it, so no worker outlives the pool.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in worker (fault injection, not dixit's own): Python that answers each job `n`
    /// with `n × the setup`, or misbehaves on the job the script names.
    fn fake(script: &str) -> WorkerCommand {
        let program = format!(
            r#"
import json, os, sys
setup = json.loads(sys.stdin.readline())
print(json.dumps("ready"), flush=True)
done = 0
for line in sys.stdin:
    n = json.loads(line)["job"]
    {script}
    done += 1
    print(json.dumps({{"ok": n * setup}}), flush=True)
print(json.dumps({{"summary": done}}), flush=True)
"#
        );
        WorkerCommand {
            program: "python3".into(),
            args: vec!["-c".into(), program.into()],
        }
    }

    fn map(script: &str, workers: usize, jobs: &[u64]) -> Result<Mapped<u64, u64>, PoolError> {
        let order: Vec<usize> = (0..jobs.len()).rev().collect();
        ProcessPool::new(fake(script), workers).map(&3u64, jobs, &order, &|_, _| {})
    }

    #[test]
    fn answers_come_back_in_job_order_with_every_summary() {
        let jobs: Vec<u64> = (0..40).collect();
        let (results, summaries) = map("pass", 3, &jobs).unwrap();
        assert_eq!(results, jobs.iter().map(|n| n * 3).collect::<Vec<_>>());
        assert_eq!(summaries.len(), 3);
        assert_eq!(summaries.iter().sum::<u64>(), 40, "each job ran once");
        // More workers than jobs: only as many start as there are jobs.
        let (_, summaries) = map("pass", 8, &[1, 2]).unwrap();
        assert_eq!(summaries.len(), 2);
    }

    #[test]
    fn a_failing_job_is_named_with_the_workers_message() {
        let err = map(
            r#"if n == 7: print(json.dumps({"error": "no seven"}), flush=True); continue"#,
            2,
            &(0..20).collect::<Vec<_>>(),
        )
        .unwrap_err();
        match err {
            PoolError::Job { job, message, .. } => {
                assert_eq!((job, message.as_str()), (7, "no seven"))
            }
            other => panic!("{other}"),
        }
    }

    #[test]
    fn a_worker_that_dies_mid_job_is_named_with_its_exit() {
        let err = map("if n == 5: os._exit(9)", 2, &(0..20).collect::<Vec<_>>()).unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, PoolError::Ended { job: Some(5), .. }) && text.contains("exit status: 9"),
            "{text}"
        );
    }

    #[test]
    fn garbage_on_a_workers_stdout_is_refused() {
        let err = map("print('hello', flush=True)", 1, &[1]).unwrap_err();
        assert!(matches!(err, PoolError::Garbled { .. }), "{err}");
    }

    #[test]
    fn a_missing_program_is_a_start_error() {
        let pool = ProcessPool::new(
            WorkerCommand {
                program: "/nonexistent/dixit".into(),
                args: Vec::new(),
            },
            2,
        );
        let err = pool
            .map::<_, _, u64, u64>(&0u64, &[1u64], &[0], &|_, _| {})
            .unwrap_err();
        assert!(matches!(err, PoolError::Start { .. }), "{err}");
    }
}
