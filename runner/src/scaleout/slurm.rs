//! Slurm: the two batch scripts of a [`Job`] and their submission.
//!
//! * `array.sbatch`: a job array of `tasks` tasks numbered `1..=tasks` (the array task id *is*
//!   the shard number), each running `dixit task DIR/job.json`; `--requeue`, so a task lost with
//!   its node runs again elsewhere, and `--open-mode=append`, so its log keeps both attempts.
//! * `merge.sbatch`: the job's merge command, submitted with `--dependency=afterok:<array>` so
//!   it starts once every task has succeeded (and is cancelled, `--kill-on-invalid-dep`, if
//!   one failed).
//!
//! [`render`] writes the text only; `write` puts both scripts beside `job.json`; [`submit`]
//! runs `sbatch`; [`resubmit_command`] is the command that reruns some tasks and the merge.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::files::write_atomic;
use super::job::Job;

/// The array script's file name in the job directory.
pub const ARRAY_SCRIPT: &str = "array.sbatch";
/// The merge script's file name in the job directory.
pub const MERGE_SCRIPT: &str = "merge.sbatch";

/// Why Slurm scripts could not be rendered, written or submitted.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    /// A value that cannot go on an `#SBATCH` line (sbatch splits those lines on whitespace).
    #[error("{what} {value:?} cannot go on an #SBATCH line: {problem}")]
    BadValue {
        /// Which option or path.
        what: String,
        /// The value.
        value: String,
        /// Why not.
        problem: &'static str,
    },
    /// A script could not be written.
    #[error("cannot write {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// `sbatch` could not be started.
    #[error("cannot run {program}")]
    Spawn {
        /// The program.
        program: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// `sbatch` refused a script.
    #[error("`{command}` failed ({status}): {stderr}")]
    Sbatch {
        /// The command line.
        command: String,
        /// Its exit status.
        status: String,
        /// What it printed on stderr.
        stderr: String,
    },
    /// The array was submitted, the merge job was not.
    #[error("array job {array} was submitted, but not the merge job: {source}")]
    MergeNotSubmitted {
        /// The array job's id.
        array: String,
        /// Why the merge job was not submitted.
        #[source]
        source: Box<SlurmError>,
    },
}

/// How the scripts ask Slurm for resources, and what the nodes run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlurmOptions {
    /// `--partition`, if not the cluster's default.
    pub partition: Option<String>,
    /// `--time` per task (`MM`, `HH:MM:SS`, `D-HH`...), if not the partition's default.
    pub time: Option<String>,
    /// `--cpus-per-task` of each array task, and its sandbox threads (`DIXIT_JOBS`); the merge
    /// job asks for one CPU.
    pub cpus_per_task: u32,
    /// At most this many tasks at once (`--array=1-N%K`).
    pub max_running: Option<u32>,
    /// More sbatch options, one per `#SBATCH` line (`--account=abc`, `--mem=4G`).
    pub sbatch_args: Vec<String>,
    /// The dixit binary on the nodes.
    pub dixit: PathBuf,
    /// The cache directory on the nodes (`DIXIT_CACHE`), if not their default.
    pub cache_dir: Option<PathBuf>,
}

/// The text of both scripts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scripts {
    /// `array.sbatch`.
    pub array: String,
    /// `merge.sbatch`.
    pub merge: String,
}

/// The job ids `sbatch` gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submitted {
    /// The array job.
    pub array: String,
    /// The merge job.
    pub merge: String,
}

/// A word for a shell command line: as is when it is plain, else single-quoted.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '_' | '-' | '.' | '/' | ':' | '=' | ',' | '@' | '%' | '+')
        });
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

fn command_line(program: &Path, args: &[String]) -> String {
    std::iter::once(program.display().to_string())
        .chain(args.iter().cloned())
        .map(|a| shell_quote(&a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `1-3,7,9-10`: sorted indices as Slurm's `--array` ranges.
pub fn array_ranges(indices: &[u32]) -> String {
    let mut sorted = indices.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        out.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    out.join(",")
}

fn sbatch_value(what: &str, value: &str) -> Result<(), SlurmError> {
    let bad = |problem| {
        Err(SlurmError::BadValue {
            what: what.to_string(),
            value: value.to_string(),
            problem,
        })
    };
    if value.is_empty() {
        bad("it is empty")
    } else if value.chars().any(char::is_whitespace) {
        bad("it contains whitespace")
    } else {
        Ok(())
    }
}

fn sbatch_path(what: &str, path: &Path) -> Result<String, SlurmError> {
    let text = path.display().to_string();
    sbatch_value(what, &text)?;
    Ok(text)
}

/// The `#SBATCH` lines both scripts share (the merge needs one CPU, tasks `cpus_per_task`).
fn common_lines(o: &SlurmOptions, workdir: &str, cpus: u32) -> Result<String, SlurmError> {
    let mut s = String::new();
    let _ = writeln!(s, "#SBATCH --requeue");
    let _ = writeln!(s, "#SBATCH --open-mode=append");
    let _ = writeln!(s, "#SBATCH --chdir={workdir}");
    let _ = writeln!(s, "#SBATCH --cpus-per-task={}", cpus.max(1));
    if let Some(p) = &o.partition {
        sbatch_value("--partition", p)?;
        let _ = writeln!(s, "#SBATCH --partition={p}");
    }
    if let Some(t) = &o.time {
        sbatch_value("--time", t)?;
        let _ = writeln!(s, "#SBATCH --time={t}");
    }
    for a in &o.sbatch_args {
        sbatch_value("--sbatch-arg", a)?;
        if !a.starts_with('-') {
            return Err(SlurmError::BadValue {
                what: "--sbatch-arg".into(),
                value: a.clone(),
                problem: "an sbatch option starts with - (e.g. --account=abc)",
            });
        }
        let _ = writeln!(s, "#SBATCH {a}");
    }
    Ok(s)
}

fn environment(o: &SlurmOptions, cpus: u32) -> String {
    let mut s = String::from("set -euo pipefail\n");
    let _ = writeln!(
        s,
        "export DIXIT_JOBS=\"${{SLURM_CPUS_PER_TASK:-{}}}\"",
        cpus.max(1)
    );
    if let Some(c) = &o.cache_dir {
        let _ = writeln!(
            s,
            "export DIXIT_CACHE={}",
            shell_quote(&c.display().to_string())
        );
    }
    s
}

/// The two scripts of `job`.
pub fn render(job: &Job, o: &SlurmOptions) -> Result<Scripts, SlurmError> {
    sbatch_value("job name", &job.name)?;
    sbatch_path("the job directory", &job.dir)?;
    let logs = sbatch_path("the log directory", &job.log_dir())?;
    let workdir = sbatch_path("the working directory", &job.workdir)?;
    let task_lines = common_lines(o, &workdir, o.cpus_per_task)?;
    let merge_lines = common_lines(o, &workdir, 1)?;
    let job_file = job.path().display().to_string();
    let array_path = job.dir.join(ARRAY_SCRIPT).display().to_string();
    let dixit = shell_quote(&o.dixit.display().to_string());

    let mut array = String::from("#!/bin/bash\n");
    let _ = writeln!(
        array,
        "# Written by `dixit slurm`: task I of {} of the job described in {job_file}.",
        job.tasks
    );
    let _ = writeln!(
        array,
        "# The array task id is the shard number. Rerun some tasks: sbatch --array=3,7 {}",
        shell_quote(&array_path)
    );
    let _ = writeln!(array, "#SBATCH --job-name={}", job.name);
    let _ = writeln!(
        array,
        "#SBATCH --array=1-{}{}",
        job.tasks,
        o.max_running.map(|k| format!("%{k}")).unwrap_or_default()
    );
    let _ = writeln!(array, "#SBATCH --output={logs}/task-%a.log");
    array.push_str(&task_lines);
    array.push_str(&environment(o, o.cpus_per_task));
    let _ = writeln!(
        array,
        "echo \"dixit: task ${{SLURM_ARRAY_TASK_ID}} of {} (job ${{SLURM_ARRAY_JOB_ID}}) on node ${{SLURMD_NODENAME:-?}}, attempt $(( ${{SLURM_RESTART_COUNT:-0}} + 1 )), $(date -u +%FT%TZ)\"",
        job.tasks
    );
    let _ = writeln!(array, "exec {dixit} task {}", shell_quote(&job_file));

    let mut merge = String::from("#!/bin/bash\n");
    let _ = writeln!(
        merge,
        "# Written by `dixit slurm`: joins the {} task results of {job_file} into {}.",
        job.tasks,
        job.result.display()
    );
    let _ = writeln!(
        merge,
        "# Submit it with --dependency=afterok:<array job id> (it is cancelled if a task fails)."
    );
    let _ = writeln!(merge, "#SBATCH --job-name={}-merge", job.name);
    let _ = writeln!(merge, "#SBATCH --output={logs}/merge.log");
    let _ = writeln!(merge, "#SBATCH --kill-on-invalid-dep=yes");
    merge.push_str(&merge_lines);
    merge.push_str(&environment(o, 1));
    let _ = writeln!(
        merge,
        "echo \"dixit: merge of {} tasks (job ${{SLURM_JOB_ID}}) on node ${{SLURMD_NODENAME:-?}}, attempt $(( ${{SLURM_RESTART_COUNT:-0}} + 1 )), $(date -u +%FT%TZ)\"",
        job.tasks
    );
    let _ = writeln!(merge, "exec {}", command_line(&o.dixit, &job.merge));
    Ok(Scripts { array, merge })
}

/// Writes both scripts (executable) beside `job.json`; returns their paths (array, merge).
pub fn write(job: &Job, scripts: &Scripts) -> Result<(PathBuf, PathBuf), SlurmError> {
    use std::os::unix::fs::PermissionsExt;
    let mut paths = Vec::new();
    for (name, text) in [
        (ARRAY_SCRIPT, &scripts.array),
        (MERGE_SCRIPT, &scripts.merge),
    ] {
        let path = job.dir.join(name);
        let io = |source| SlurmError::Io {
            path: path.clone(),
            source,
        };
        write_atomic(&path, text.as_bytes()).map_err(|e| match e {
            super::files::ShardFileError::Io { source, .. } => io(source),
            other => io(std::io::Error::other(other.to_string())),
        })?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).map_err(io)?;
        paths.push(path);
    }
    Ok((paths[0].clone(), paths[1].clone()))
}

/// `program` on `PATH`, if there.
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// The sbatch command lines [`submit`] runs (the merge job's dependency shown as `$jid`).
pub fn submit_commands(dir: &Path) -> String {
    resubmit(dir, None)
}

/// The command that reruns tasks `missing` (and then the merge) of the job in `dir`.
pub fn resubmit_command(dir: &Path, missing: &[u32]) -> String {
    resubmit(dir, Some(missing))
}

fn resubmit(dir: &Path, missing: Option<&[u32]>) -> String {
    let array = shell_quote(&dir.join(ARRAY_SCRIPT).display().to_string());
    let merge = shell_quote(&dir.join(MERGE_SCRIPT).display().to_string());
    let which = missing
        .map(|m| format!(" --array={}", array_ranges(m)))
        .unwrap_or_default();
    format!(
        "jid=$(sbatch --parsable{which} {array}) && sbatch --dependency=afterok:${{jid%%;*}} {merge}"
    )
}

fn sbatch(program: &Path, args: &[String]) -> Result<String, SlurmError> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|source| SlurmError::Spawn {
            program: program.to_path_buf(),
            source,
        })?;
    if !out.status.success() {
        return Err(SlurmError::Sbatch {
            command: command_line(program, args),
            status: out.status.to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    // `--parsable` prints `jobid` or `jobid;cluster`.
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text
        .trim()
        .split(';')
        .next()
        .unwrap_or_default()
        .to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(SlurmError::Sbatch {
            command: command_line(program, args),
            status: out.status.to_string(),
            stderr: format!("expected a job id on stdout, got {:?}", text.trim()),
        });
    }
    Ok(id)
}

/// Submits the array, then the merge job depending on it (`afterok`).
pub fn submit(program: &Path, dir: &Path) -> Result<Submitted, SlurmError> {
    let path = |name: &str| dir.join(name).display().to_string();
    let array = sbatch(program, &["--parsable".into(), path(ARRAY_SCRIPT)])?;
    let merge = sbatch(
        program,
        &[
            "--parsable".into(),
            format!("--dependency=afterok:{array}"),
            path(MERGE_SCRIPT),
        ],
    )
    .map_err(|e| SlurmError::MergeNotSubmitted {
        array: array.clone(),
        source: Box::new(e),
    })?;
    Ok(Submitted { array, merge })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaleout::job::tests::example;

    fn options() -> SlurmOptions {
        SlurmOptions {
            partition: Some("cpu".into()),
            time: Some("30:00".into()),
            cpus_per_task: 2,
            max_running: Some(4),
            sbatch_args: vec!["--account=lab".into(), "--mem=4G".into()],
            dixit: "/opt/dixit/bin/dixit".into(),
            cache_dir: Some("/shared/dixit cache".into()),
        }
    }

    #[test]
    fn scripts_name_the_job_and_the_options() {
        let job = example(Path::new("/scratch/ev"));
        let s = render(&job, &options()).unwrap();
        for line in [
            "#SBATCH --job-name=dixit-eval",
            "#SBATCH --array=1-8%4",
            "#SBATCH --output=/scratch/ev/logs/task-%a.log",
            "#SBATCH --requeue",
            "#SBATCH --open-mode=append",
            "#SBATCH --chdir=/scratch/ev",
            "#SBATCH --cpus-per-task=2",
            "#SBATCH --partition=cpu",
            "#SBATCH --time=30:00",
            "#SBATCH --account=lab",
            "#SBATCH --mem=4G",
            "export DIXIT_JOBS=\"${SLURM_CPUS_PER_TASK:-2}\"",
            "export DIXIT_CACHE='/shared/dixit cache'",
            "exec /opt/dixit/bin/dixit task /scratch/ev/job.json",
        ] {
            assert!(s.array.lines().any(|l| l == line), "{line}\n{}", s.array);
        }
        for line in [
            "#SBATCH --job-name=dixit-eval-merge",
            "#SBATCH --kill-on-invalid-dep=yes",
            "#SBATCH --requeue",
            "#SBATCH --output=/scratch/ev/logs/merge.log",
            "exec /opt/dixit/bin/dixit merge /scratch/ev",
            "#SBATCH --cpus-per-task=1",
            "#SBATCH --partition=cpu",
        ] {
            assert!(s.merge.lines().any(|l| l == line), "{line}\n{}", s.merge);
        }
        assert!(!s.merge.contains("--array"));
        // Every #SBATCH line comes before the first command (sbatch stops reading them there).
        for script in [&s.array, &s.merge] {
            let first_command = script.lines().position(|l| !l.starts_with('#')).unwrap();
            assert!(!script
                .lines()
                .skip(first_command)
                .any(|l| l.starts_with("#SBATCH")));
        }
    }

    #[test]
    fn refuses_values_sbatch_would_split() {
        let job = example(Path::new("/scratch/my ev"));
        let err = render(&job, &options()).unwrap_err().to_string();
        assert!(
            err.contains("the job directory \"/scratch/my ev\""),
            "{err}"
        );
        let mut o = options();
        o.sbatch_args = vec!["account=lab".into()];
        let err = render(&example(Path::new("/s")), &o)
            .unwrap_err()
            .to_string();
        assert!(err.contains("starts with -"), "{err}");
        o.sbatch_args = vec!["--comment=a b".into()];
        assert!(render(&example(Path::new("/s")), &o).is_err());
    }

    #[test]
    fn resubmission_reruns_only_the_missing_tasks_then_the_merge() {
        assert_eq!(array_ranges(&[7, 3]), "3,7");
        assert_eq!(array_ranges(&[1, 2, 3, 5, 9, 10]), "1-3,5,9-10");
        assert_eq!(
            resubmit_command(Path::new("/scratch/ev"), &[3, 7]),
            "jid=$(sbatch --parsable --array=3,7 /scratch/ev/array.sbatch) && sbatch --dependency=afterok:${jid%%;*} /scratch/ev/merge.sbatch"
        );
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(
            shell_quote("HumanEval/2,HumanEval/3"),
            "HumanEval/2,HumanEval/3"
        );
        assert_eq!(shell_quote(""), "''");
    }

    /// Fault injection: an sbatch (a shell script) that accepts the array and refuses the merge
    /// job. The error names the array job that is already queued, and the merge was asked to
    /// depend on it. (The real sbatch runs in scripts/slurm-test.)
    #[test]
    fn a_refused_merge_job_names_the_queued_array() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("sbatch");
        let calls = dir.path().join("calls");
        std::fs::write(
            &fake,
            format!(
                "#!/bin/sh\necho \"$@\" >> {calls}\nif [ $(wc -l < {calls}) = 1 ]; then echo '42;cluster'; exit 0; fi\necho 'sbatch: error: invalid partition' >&2\nexit 1\n",
                calls = calls.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = submit(&fake, Path::new("/j")).unwrap_err();
        assert!(matches!(&err, SlurmError::MergeNotSubmitted { array, .. } if array == "42"));
        let chain: Vec<String> =
            std::iter::successors(Some(&err as &dyn std::error::Error), |e| e.source())
                .map(|e| e.to_string())
                .collect();
        assert!(
            chain.iter().any(|m| m.contains("invalid partition")),
            "{chain:?}"
        );
        assert_eq!(
            std::fs::read_to_string(&calls).unwrap(),
            "--parsable /j/array.sbatch\n--parsable --dependency=afterok:42 /j/merge.sbatch\n"
        );
    }
}
