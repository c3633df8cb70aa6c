//! A job description: what each task of an array runs and what merges their results,
//! independent of the scheduler. `dixit slurm` writes one as `job.json` beside the scripts;
//! each array task runs `dixit task DIR/job.json`, which substitutes its shard into
//! [`Job::task`] and runs that dixit command; the merge step runs [`Job::merge`].
//!
//! Nothing here knows what the commands do: `dixit eval` shards are one kind of task; a
//! command that tabulates cells (one task per cell) is another, added by giving it a task
//! command that takes `--shard {shard}` and a merge command.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::files::write_atomic;
use super::shard::Shard;

/// The job description format this version writes and reads.
pub const JOB_FORMAT: u32 = 1;

/// The file name of a job description inside its directory.
pub const JOB_FILE: &str = "job.json";

/// In [`Job::task`], replaced by the task's shard (`3/8`).
pub const SHARD_PLACEHOLDER: &str = "{shard}";

/// Why a job description could not be written, read or used.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The file could not be read or written.
    #[error("cannot access {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a job description.
    #[error("{path} is not a dixit job description")]
    Json {
        /// The file.
        path: PathBuf,
        /// The parse error, with line and column.
        #[source]
        source: serde_json::Error,
    },
    /// Written by a newer dixit.
    #[error("{path} has job format {found}; this dixit reads format {supported}")]
    Format {
        /// The file.
        path: PathBuf,
        /// The format found.
        found: u32,
        /// The format this version reads.
        supported: u32,
    },
    /// A description that cannot be run.
    #[error("{path}: {problem}")]
    Invalid {
        /// The file (or the directory it is for).
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
}

/// `tasks` tasks, each running [`Job::task`] with its shard, then [`Job::merge`] once all
/// have succeeded. Paths are absolute, so any node can run any task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// [`JOB_FORMAT`].
    pub format: u32,
    /// A short name (the scheduler's job name).
    pub name: String,
    /// How many tasks (shards).
    pub tasks: u32,
    /// Where the description, the scripts, `logs/` and the results live.
    pub dir: PathBuf,
    /// The working directory of every task (relative paths in the commands resolve here).
    pub workdir: PathBuf,
    /// The arguments of the dixit command of one task; [`SHARD_PLACEHOLDER`] stands for its
    /// shard.
    pub task: Vec<String>,
    /// The arguments of the dixit command that joins the tasks' results.
    pub merge: Vec<String>,
    /// The file the merge writes.
    pub result: PathBuf,
}

impl Job {
    /// Checks that the description can be run: at least one task, absolute paths, a task
    /// command that takes the shard.
    pub fn validate(&self) -> Result<(), JobError> {
        let invalid = |problem: String| JobError::Invalid {
            path: self.dir.join(JOB_FILE),
            problem,
        };
        if self.tasks == 0 {
            return Err(invalid("a job has at least one task".into()));
        }
        for (what, p) in [("dir", &self.dir), ("workdir", &self.workdir)] {
            if !p.is_absolute() {
                return Err(invalid(format!("{what} {} is not absolute", p.display())));
            }
        }
        if !self.task.iter().any(|a| a.contains(SHARD_PLACEHOLDER)) {
            return Err(invalid(format!(
                "the task command never mentions {SHARD_PLACEHOLDER}, so every task would do the same"
            )));
        }
        if self.merge.is_empty() {
            return Err(invalid("the merge command is empty".into()));
        }
        Ok(())
    }

    /// The task command of `shard`.
    pub fn task_args(&self, shard: Shard) -> Vec<String> {
        let s = shard.to_string();
        self.task
            .iter()
            .map(|a| a.replace(SHARD_PLACEHOLDER, &s))
            .collect()
    }

    /// The shard of task `index` (1-based).
    pub fn shard(&self, index: u32) -> Option<Shard> {
        (index >= 1 && index <= self.tasks).then_some(Shard {
            index,
            count: self.tasks,
        })
    }

    /// `dir/job.json`.
    pub fn path(&self) -> PathBuf {
        self.dir.join(JOB_FILE)
    }

    /// `dir/logs`, where the scheduler writes each task's output.
    pub fn log_dir(&self) -> PathBuf {
        self.dir.join("logs")
    }

    /// Writes `dir/job.json` (atomically), creating `dir` and `dir/logs`.
    pub fn write(&self) -> Result<PathBuf, JobError> {
        self.validate()?;
        let logs = self.log_dir();
        std::fs::create_dir_all(&logs).map_err(|source| JobError::Io {
            path: logs.clone(),
            source,
        })?;
        let path = self.path();
        let mut text = serde_json::to_string_pretty(self).map_err(|source| JobError::Json {
            path: path.clone(),
            source,
        })?;
        text.push('\n');
        write_atomic(&path, text.as_bytes()).map_err(|e| match e {
            super::files::ShardFileError::Io { path, source } => JobError::Io { path, source },
            other => JobError::Io {
                path: path.clone(),
                source: std::io::Error::other(other.to_string()),
            },
        })?;
        Ok(path)
    }

    /// Reads and validates a job description.
    pub fn read(path: &Path) -> Result<Job, JobError> {
        let text = std::fs::read_to_string(path).map_err(|source| JobError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        #[derive(Deserialize)]
        struct Head {
            format: u32,
        }
        let json = |source| JobError::Json {
            path: path.to_path_buf(),
            source,
        };
        let head: Head = serde_json::from_str(&text).map_err(json)?;
        if head.format != JOB_FORMAT {
            return Err(JobError::Format {
                path: path.to_path_buf(),
                found: head.format,
                supported: JOB_FORMAT,
            });
        }
        let job: Job = serde_json::from_str(&text).map_err(json)?;
        job.validate()?;
        Ok(job)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn example(dir: &Path) -> Job {
        Job {
            format: JOB_FORMAT,
            name: "dixit-eval".into(),
            tasks: 8,
            dir: dir.to_path_buf(),
            workdir: dir.to_path_buf(),
            task: ["eval", "--shard", SHARD_PLACEHOLDER, "--out"]
                .iter()
                .map(|s| s.to_string())
                .chain([dir.display().to_string()])
                .collect(),
            merge: vec!["merge".into(), dir.display().to_string()],
            result: dir.join("report.json"),
        }
    }

    #[test]
    fn round_trip_and_substitution() {
        let dir = tempfile::tempdir().unwrap();
        let job = example(dir.path());
        let path = job.write().unwrap();
        assert!(dir.path().join("logs").is_dir());
        let back = Job::read(&path).unwrap();
        assert_eq!(back, job);
        let shard = job.shard(3).unwrap();
        assert_eq!(&job.task_args(shard)[..3], ["eval", "--shard", "3/8"]);
        assert_eq!(job.shard(0), None);
        assert_eq!(job.shard(9), None);
    }

    #[test]
    fn refuses_what_cannot_run() {
        let dir = tempfile::tempdir().unwrap();
        let mut job = example(dir.path());
        job.task.retain(|a| a != SHARD_PLACEHOLDER);
        assert!(job
            .validate()
            .unwrap_err()
            .to_string()
            .contains("never mentions {shard}"));
        let mut job = example(dir.path());
        job.tasks = 0;
        assert!(job.validate().is_err());
        let mut job = example(dir.path());
        job.workdir = "relative".into();
        assert!(job
            .validate()
            .unwrap_err()
            .to_string()
            .contains("not absolute"));
        let path = dir.path().join(JOB_FILE);
        std::fs::write(&path, r#"{"format": 9}"#).unwrap();
        assert!(matches!(
            Job::read(&path),
            Err(JobError::Format { found: 9, .. })
        ));
        std::fs::write(&path, "not json").unwrap();
        assert!(matches!(Job::read(&path), Err(JobError::Json { .. })));
    }
}
