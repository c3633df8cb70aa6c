//! Scale-out from the command line (issue 12): shards taken from a scheduler's variables,
//! `dixit task` running one task of a job description, `dixit merge DIR` naming missing shards
//! with the command that reruns them, and `dixit slurm --dry-run` writing the job and its
//! sbatch scripts. The real cluster (slurmctld, two slurmd, a node killed mid-array) is
//! `scripts/slurm-test`.

use std::path::Path;

use crate::support::{describe, dixit, dixit_at, root, shared_data, Output};

/// Asserts a usage error (exit 2) whose stderr mentions every one of `needles`.
fn usage_error(out: &Output, needles: &[&str]) {
    out.expect_code(2);
    for n in needles {
        assert!(
            out.stderr.contains(n),
            "`dixit {}`: stderr does not mention {n:?}:\n{}",
            out.args.join(" "),
            out.stderr
        );
    }
    assert!(out.stdout.is_empty(), "no data on stdout: {}", out.stdout);
}

fn run_env(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    dixit_at(&root(), args, env)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn eval_shard_auto_names_the_variables_it_lacks() {
    let out = dixit(&["eval", "--shard", "auto"]);
    usage_error(
        &out,
        &["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "--shard I/N"],
    );
    let out = dixit(&["eval", "--shard", "auto/0"]);
    usage_error(&out, &["invalid shard `auto/0`"]);

    // A resubmission of some tasks (`sbatch --array=3,7`) cannot tell the count.
    let partial = [
        ("SLURM_ARRAY_TASK_ID", "3"),
        ("SLURM_ARRAY_TASK_MIN", "3"),
        ("SLURM_ARRAY_TASK_MAX", "7"),
        ("SLURM_ARRAY_TASK_COUNT", "2"),
    ];
    for args in [&["eval", "--shard", "auto"][..], &["eval"][..]] {
        let o = run_env(args, &partial);
        assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
        let err = text(&o.stderr);
        assert!(err.contains("2 tasks with ids 3 to 7"), "{err}");
        assert!(err.contains("--shard auto/N"), "{err}");
    }
    // With the count, the task id is the shard; 0 is not one.
    let o = run_env(
        &["eval", "--shard", "auto/8"],
        &[("SLURM_ARRAY_TASK_ID", "0")],
    );
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    assert!(text(&o.stderr).contains("SLURM_ARRAY_TASK_ID=0 is not a shard of 1..8"));
    assert!(text(&o.stderr).contains("--array=1-N"));

    // Kubernetes: an index but no count, with or without the flag; DIXIT_SHARD sets it.
    let o = run_env(&["eval"], &[("JOB_COMPLETION_INDEX", "2")]);
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    let err = text(&o.stderr);
    assert!(
        err.contains("JOB_COMPLETION_INDEX=2 says which shard but not how many"),
        "{err}"
    );
    assert!(err.contains("--shard 1/1"), "{err}");
    let o = run_env(
        &["eval"],
        &[("JOB_COMPLETION_INDEX", "8"), ("DIXIT_SHARD", "auto/8")],
    );
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    assert!(
        text(&o.stderr).contains("JOB_COMPLETION_INDEX=8 is not a shard of 1..8 once 1 is added")
    );
}

fn slurm_dry_run(dir: &Path, extra: &[&str], command: &[&str]) -> Output {
    let d = dir.display().to_string();
    let mut args = vec!["slurm", "--dry-run", "--out", &d];
    args.extend_from_slice(extra);
    args.push("--");
    args.extend_from_slice(command);
    dixit(&args)
}

#[test]
fn slurm_dry_run_writes_the_job_and_both_scripts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("job");
    let out = slurm_dry_run(
        &dir,
        &[
            "--shards",
            "12",
            "--partition",
            "debug",
            "--time",
            "20:00",
            "--cpus-per-task",
            "2",
            "--max-running",
            "4",
            "--sbatch-arg=--account=lab",
            "--sbatch-arg",
            "--mem=2G",
            "--dixit",
            "/opt/dixit/bin/dixit",
            "--node-cache-dir",
            "/shared/cache",
        ],
        &[
            "eval",
            "--isolation",
            "solution",
            "--only",
            "HumanEval/2,HumanEval/4",
        ],
    );
    out.expect_code(0);
    let d = dir.display().to_string();
    for needle in [
        "#SBATCH --array=1-12%4",
        "#SBATCH --requeue",
        "#SBATCH --partition=debug",
        "#SBATCH --time=20:00",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --account=lab",
        "#SBATCH --mem=2G",
        "#SBATCH --kill-on-invalid-dep=yes",
        "export DIXIT_CACHE=/shared/cache",
        &format!("exec /opt/dixit/bin/dixit task {d}/job.json"),
        &format!("exec /opt/dixit/bin/dixit merge {d} --out {d}/report.json"),
        &format!("sbatch --dependency=afterok:${{jid%%;*}} {d}/merge.sbatch"),
        "not submitted (--dry-run)",
    ] {
        assert!(out.stdout.contains(needle), "{needle}\n{}", out.stdout);
    }
    for script in ["array.sbatch", "merge.sbatch"] {
        let path = dir.join(script);
        let status = std::process::Command::new("bash")
            .arg("-n")
            .arg(&path)
            .status()
            .unwrap();
        assert!(status.success(), "{script} is not valid bash");
    }
    assert!(
        dir.join("logs").is_dir(),
        "Slurm does not create the log directory"
    );
    let job: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("job.json")).unwrap()).unwrap();
    assert_eq!(job["tasks"], 12);
    assert_eq!(job["name"], "dixit-eval");
    let task: Vec<&str> = job["task"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        task,
        [
            "eval",
            "--isolation",
            "solution",
            "--only",
            "HumanEval/2,HumanEval/4",
            "--shard",
            "{shard}",
            "--out",
            &d
        ]
    );
    assert_eq!(job["workdir"], root().display().to_string());
}

#[test]
fn slurm_refuses_what_cannot_run_as_an_array() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("job");
    let out = slurm_dry_run(&dir, &[], &["eval", "--shard", "1/2"]);
    usage_error(&out, &["`--shard`", "sets --shard and --out itself"]);
    let out = slurm_dry_run(&dir, &[], &["eval", "--out=/x"]);
    usage_error(&out, &["`--out=/x`"]);
    let out = slurm_dry_run(&dir, &[], &["run", "demo"]);
    usage_error(&out, &["`dixit run demo` cannot run as an array task"]);
    let out = slurm_dry_run(&dir, &[], &["eval", "--bogus"]);
    usage_error(&out, &["does not parse", "--bogus"]);
    let out = slurm_dry_run(&dir, &["--sbatch-arg", "account=lab"], &["eval"]);
    usage_error(&out, &["account=lab", "starts with -"]);
    let out = slurm_dry_run(&dir, &["--shards", "0"], &["eval"]);
    usage_error(&out, &["--shards must be at least 1"]);
    let spaced = tmp.path().join("my job");
    let out = slurm_dry_run(&spaced, &[], &["eval"]);
    usage_error(&out, &["cannot go on an #SBATCH line", "whitespace"]);
    assert!(!dir.join("job.json").exists(), "nothing written on refusal");
}

#[test]
fn task_needs_a_job_and_an_index() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("job.json");
    let out = dixit(&["task", &missing.display().to_string()]);
    usage_error(&out, &["cannot access", "job.json"]);
    let dir = tmp.path().join("job");
    slurm_dry_run(&dir, &["--shards", "4"], &["eval"]).expect_code(0);
    let job = dir.join("job.json").display().to_string();
    let out = dixit(&["task", &job, "--index", "5"]);
    usage_error(&out, &["--index 5 is not a task", "(1..4)"]);
    let out = dixit(&["task", &job]);
    usage_error(&out, &["SLURM_ARRAY_TASK_ID", "--index I"]);
}

/// The whole flow on real data, without a scheduler: a job of 3 tasks; tasks 1 and 3 run from
/// Slurm's variables; `dixit merge DIR` refuses, naming shard 2 and the sbatch command that
/// reruns it; task 2 runs (twice: a repeated task is harmless); the merge then equals a
/// single `dixit eval` of the same problems. A shard file renamed by hand is refused.
#[test]
fn merge_names_missing_shards_then_equals_one_eval() {
    let Some(data) = shared_data() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("job");
    let d = dir.display().to_string();
    let corpus = data.display().to_string();
    let eval_args = [
        "eval",
        "--isolation",
        "solution",
        "--fuel",
        "1000000000",
        "--no-cache",
        "--only",
        "HumanEval/2,HumanEval/30,HumanEval/42,HumanEval/50,HumanEval/52",
        "--corpus",
        &corpus,
    ];
    slurm_dry_run(&dir, &["--shards", "3"], &eval_args).expect_code(0);
    let job = dir.join("job.json").display().to_string();
    for id in ["1", "3"] {
        let o = run_env(&["task", &job], &[("SLURM_ARRAY_TASK_ID", id)]);
        assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
        assert!(text(&o.stderr).contains(&format!("dixit task {id}/3 of {job}")));
        assert!(dir.join(format!("shard-{id}-of-3.json")).is_file());
    }
    let out = dixit(&["merge", &d]);
    usage_error(
        &out,
        &[
            "1 of 3 shards missing: 2",
            &format!("jid=$(sbatch --parsable --array=2 {d}/array.sbatch) && sbatch --dependency=afterok:${{jid%%;*}} {d}/merge.sbatch"),
            &format!("{d}/logs/task-2.log"),
        ],
    );
    for _ in 0..2 {
        dixit(&["task", &job, "--index", "2"]).expect_code(0);
    }
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("shard"))
        .collect();
    assert_eq!(names.len(), 3, "no temporary files left: {names:?}");
    let merged = dixit(&["merge", &d, "--json", "--out", &format!("{d}/report.json")]);
    merged.expect_code(0);
    let merged = merged.json();
    let single = dixit(
        &eval_args
            .iter()
            .copied()
            .chain(["--json"])
            .collect::<Vec<_>>(),
    );
    single.expect_code(0);
    let single = single.json();
    for key in ["format", "setup", "results"] {
        assert_eq!(merged[key], single[key], "{key}");
    }
    for key in ["corpus", "verdicts", "fuel", "reference_failures"] {
        assert_eq!(merged["execution"][key], single["execution"][key], "{key}");
    }
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(saved, merged);
    let problems = std::fs::read_dir(dir.join("problems")).unwrap().count();
    assert_eq!(problems, 5);

    std::fs::copy(dir.join("shard-1-of-3.json"), dir.join("shard-2-of-3.json")).unwrap();
    let out = dixit(&["merge", &d]);
    usage_error(
        &out,
        &["shard-2-of-3.json holds shard 1/3, not the shard its name says"],
    );
}

/// `dixit compare` as an array job, without a scheduler: each task runs a shard of the
/// (project, protocol) cells of the triangle fixture and saves shard-I-of-3.json; the merge
/// refuses while a shard is missing (naming the sbatch command that reruns it), then runs the
/// job's own merge command, which saves compare.json with the cells of a single `dixit compare`
/// (and its page, report.html).
#[test]
fn compare_runs_as_an_array_and_merges_into_one_table() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("job");
    let d = dir.display().to_string();
    let runs = tmp.path().join("runs").display().to_string();
    let triangle = root()
        .join("fixtures/projects/triangle")
        .display()
        .to_string();
    let compare = ["compare", triangle.as_str(), "--runs-dir", runs.as_str()];
    slurm_dry_run(&dir, &["--shards", "3"], &compare).expect_code(0);
    let job_path = dir.join("job.json");
    let job: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&job_path).unwrap()).unwrap();
    assert_eq!(job["result"], format!("{d}/compare.json"));
    let job_path = job_path.display().to_string();
    for id in ["1", "3"] {
        let o = run_env(&["task", &job_path], &[("SLURM_ARRAY_TASK_ID", id)]);
        assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
        assert!(dir.join(format!("shard-{id}-of-3.json")).is_file());
    }
    usage_error(
        &dixit(&["compare", "--merge", &d]),
        &[
            "1 of 3 shards missing: 2",
            &format!("jid=$(sbatch --parsable --array=2 {d}/array.sbatch)"),
        ],
    );
    dixit(&["task", &job_path, "--index", "2"]).expect_code(0);
    assert!(!dir.join("report.html").exists(), "a shard writes no page");
    let merge: Vec<String> = job["merge"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let merged = dixit(&merge.iter().map(String::as_str).collect::<Vec<_>>());
    merged.expect_code(0);
    for protocol in ["dixit", "debate", "repair", "blind"] {
        assert!(
            merged
                .stdout
                .lines()
                .any(|l| l.split_whitespace().take(2).eq(["triangle", protocol])),
            "{}",
            merged.stdout
        );
    }
    let cells = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        v["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let mut c = c.clone();
                let r = c["result"].as_object_mut().unwrap();
                for k in ["run_id", "run_dir", "seconds"] {
                    r.remove(k);
                }
                c
            })
            .collect()
    };
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("compare.json")).unwrap()).unwrap();
    let single = dixit(&[&compare[..], &["--json"]].concat());
    single.expect_code(0);
    assert_eq!(cells(&saved), cells(&single.json()));
    assert_eq!(saved["shard"], serde_json::Value::Null);
    // The merge wrote the comparison's page beside it.
    assert!(dir.join("report.html").is_file());
}

/// `dixit eval --samples` as an array job, without a scheduler: CodeT's samples of five tasks,
/// interleaved so that no task's samples are together, scored in 3 shards by `dixit task`; the
/// merge refuses while shard 2 is missing (naming the sbatch command that reruns it), then
/// writes exactly the `samples_results.jsonl` and report of one unsharded scoring, and `dixit
/// report` makes the page of the merged directory.
#[test]
fn samples_shards_merge_into_one_scoring() {
    let Some(data) = shared_data() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let grouped = tmp.path().join("grouped.jsonl");
    let only = "HumanEval/0,HumanEval/2,HumanEval/12,HumanEval/36,HumanEval/52";
    let made = std::process::Command::new(root().join("scripts/codet_samples.py"))
        .args([
            grouped.to_str().unwrap(),
            "--only",
            only,
            "--per-task",
            "12",
        ])
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    // Round robin over the tasks: sample k of every task, then k + 1.
    let text = std::fs::read_to_string(&grouped).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 60);
    let mut interleaved = String::new();
    for k in 0..12 {
        for t in 0..5 {
            interleaved.push_str(lines[t * 12 + k]);
            interleaved.push('\n');
        }
    }
    let samples = tmp.path().join("samples.jsonl");
    std::fs::write(&samples, interleaved).unwrap();
    let problems = data.join("HumanEval_for_code_generation.jsonl");
    let (s, p) = (
        samples.display().to_string(),
        problems.display().to_string(),
    );
    let eval_args = [
        "eval",
        "--samples",
        &s,
        "--problems",
        &p,
        "--no-cache",
        "--only",
        only,
    ];

    let whole = tmp.path().join("whole");
    let mut args = eval_args.to_vec();
    let w = whole.display().to_string();
    args.extend(["--out", &w, "--json"]);
    let single = dixit(&args);
    single.expect_code(0);
    let single = single.json();

    let dir = tmp.path().join("job");
    let d = dir.display().to_string();
    slurm_dry_run(&dir, &["--shards", "3"], &eval_args).expect_code(0);
    let job: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("job.json")).unwrap()).unwrap();
    assert_eq!(job["merge"], serde_json::json!(["merge", d]));
    assert_eq!(
        job["result"],
        serde_json::json!(dir.join("samples_results.jsonl"))
    );
    let job = dir.join("job.json").display().to_string();
    for id in ["1", "3"] {
        dixit(&["task", &job, "--index", id]).expect_code(0);
        let shard: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("shard-{id}-of-3.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(shard["kind"], "samples");
        let n = shard["report"]["tasks"].as_u64().unwrap();
        assert!((1..=2).contains(&n), "shard {id} holds {n} tasks");
    }
    usage_error(
        &dixit(&["merge", &d]),
        &[
            "1 of 3 shards missing: 2",
            &format!("jid=$(sbatch --parsable --array=2 {d}/array.sbatch) && sbatch --dependency=afterok:${{jid%%;*}} {d}/merge.sbatch"),
        ],
    );
    dixit(&["task", &job, "--index", "2"]).expect_code(0);
    let merged = dixit(&["merge", &d, "--json"]);
    merged.expect_code(0);
    let merged = merged.json();
    assert_eq!(
        std::fs::read(dir.join("samples_results.jsonl")).unwrap(),
        std::fs::read(whole.join("samples_results.jsonl")).unwrap(),
        "the merged results are the whole scoring's, line for line"
    );
    let strip = |mut v: serde_json::Value| {
        v.as_object_mut().unwrap().remove("execution");
        v
    };
    assert_eq!(strip(merged.clone()), strip(single.clone()));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("samples_report.json")).unwrap())
            .unwrap();
    assert_eq!(saved, merged);
    assert_eq!(std::fs::read_dir(dir.join("problems")).unwrap().count(), 5);
    let page = tmp.path().join("page.html");
    dixit(&["report", &d, "-o", page.to_str().unwrap()]).expect_code(0);
    assert!(std::fs::read_to_string(&page)
        .unwrap()
        .contains("HumanEval/52"));

    // A shard of another selection does not merge with these.
    let other = tmp.path().join("other");
    let o = other.display().to_string();
    let mut args = eval_args[..6].to_vec();
    args.extend([
        "--only",
        "HumanEval/0,HumanEval/2",
        "--allow-missing",
        "--shard",
        "2/3",
        "--out",
        &o,
    ]);
    dixit(&args).expect_code(0);
    let out = dixit(&[
        "merge",
        &format!("{d}/shard-1-of-3.json"),
        &format!("{d}/shard-3-of-3.json"),
        &format!("{o}/shard-2-of-3.json"),
    ]);
    usage_error(&out, &["with another setup", "setup.only"]);
}
