//! The shard reports a merge reads, in one place for `dixit merge` (an evaluation's or a samples
//! scoring's shards) and `dixit compare --merge`: shard files, or one directory of them where
//! every shard must be there once, each file holding the shard its name says.

use std::path::{Path, PathBuf};

use super::exit::CliError;
use crate::english::and_list;
use crate::scaleout::{check_shard_file, slurm, Job, Shard, JOB_FILE};

/// What a merge was given: shard files, or the files of one directory of them.
pub(super) struct ShardInputs {
    /// The files, in shard order when they come from a directory.
    pub(super) files: Vec<PathBuf>,
    /// The directory they were found in, when one was given.
    pub(super) dir: Option<PathBuf>,
}

impl ShardInputs {
    /// `paths` as a merge takes them: one directory (every shard's file must be in it; the
    /// error names the missing ones and how to rerun them) or files only (`command`: `dixit eval`
    /// or `dixit compare`, for the hints).
    pub(super) fn of(paths: &[PathBuf], command: &str) -> Result<Self, CliError> {
        match paths {
            [dir] if dir.is_dir() => Ok(ShardInputs {
                files: shard_dir_files(dir, command)?,
                dir: Some(dir.clone()),
            }),
            files => {
                if let Some(d) = files.iter().find(|p| p.is_dir()) {
                    return Err(CliError::usage(format!(
                        "{} is a directory: give one directory of shard files, or shard files only",
                        d.display()
                    )));
                }
                Ok(ShardInputs {
                    files: files.to_vec(),
                    dir: None,
                })
            }
        }
    }

    /// The directory given, if any.
    pub(super) fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Each file read with `read`, labelled for errors (its name inside the directory, else the
    /// path given). A file found in the directory must hold the shard its name says (`shard`:
    /// the report's own), so a renamed file is never merged as another shard.
    pub(super) fn read<T>(
        &self,
        read: impl Fn(&Path) -> Result<T, CliError>,
        shard: impl Fn(&T) -> Option<Shard>,
    ) -> Result<Vec<(String, T)>, CliError> {
        let in_dir = self.dir.is_some();
        self.files
            .iter()
            .map(|path| {
                let report = read(path)?;
                if in_dir {
                    check_shard_file(path, shard(&report)).map_err(CliError::usage)?;
                }
                Ok((shard_label(path, in_dir), report))
            })
            .collect()
    }
}

/// A directory's shard files (`shard-I-of-N.json`) in shard order, for `dixit eval`, `dixit
/// merge` and `dixit compare --merge` alike (`command`: `dixit eval` or `dixit compare`). A
/// directory with none says what writes them; missing shards are an error naming them and how to
/// rerun them (the exact sbatch command when the directory holds a `dixit slurm` job).
fn shard_dir_files(dir: &Path, command: &str) -> Result<Vec<PathBuf>, CliError> {
    let found = crate::scaleout::ShardFiles::scan(dir).map_err(|e| {
        CliError::new(super::exit::USAGE, e).hint(format!(
            "`{command} --shard I/N --out DIR` writes DIR/shard-I-of-N.json"
        ))
    })?;
    let coverage = found.coverage();
    if !coverage.missing.is_empty() {
        return Err(CliError::usage(format!(
            "{}: cannot merge: {} of {} shards missing: {}",
            dir.display(),
            coverage.missing.len(),
            coverage.count,
            and_list(&coverage.missing),
        ))
        .hint(rerun_hint(
            Some(dir),
            coverage.count,
            &coverage.missing,
            &format!("{command} --shard I/N --out DIR"),
        )));
    }
    Ok(found.files.values().cloned().collect())
}

/// How to rerun the `missing` shards of `count`: the exact sbatch command when `dir` holds a job
/// written by `dixit slurm`, else the shard command (`rerun`, e.g. `dixit eval --shard I/N --out
/// DIR`) to run again.
pub(super) fn rerun_hint(dir: Option<&Path>, count: u32, missing: &[u32], rerun: &str) -> String {
    let slurm_job = dir
        .map(|d| d.join(JOB_FILE))
        .filter(|j| j.is_file())
        .and_then(|j| Job::read(&j).ok())
        .filter(|job| job.tasks == count && job.dir.join(slurm::ARRAY_SCRIPT).is_file());
    match slurm_job {
        Some(job) => format!(
            "resubmit only those tasks, and the merge after them:\n  {}\ntheir logs: {}",
            slurm::resubmit_command(&job.dir, missing),
            missing
                .iter()
                .map(|i| job.log_dir().join(format!("task-{i}.log")).display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        None => format!(
            "run shard{} {} of {count} again (`{rerun}` with the other shards' options), then merge again",
            if missing.len() == 1 { "" } else { "s" },
            and_list(missing)
        ),
    }
}

/// A shard file's label in merge errors: its name inside a shard directory, else the path given.
fn shard_label(path: &Path, in_dir: bool) -> String {
    match path.file_name() {
        Some(n) if in_dir => n.to_string_lossy().into_owned(),
        _ => path.display().to_string(),
    }
}
