//! Snapshots of what the binary prints: the exit code, stdout and stderr of commands whose output
//! is fixed given the fixtures and scripted agents, each through the one [`Redactor`] (temporary
//! directories, the repository root, run ids, timestamps and durations become placeholders).
//! The terminal summary of a run under each protocol (converged, repaired, a debate, blind, a
//! run that asks for a human, a run with disagreements), a replay, `exec` and `classify` on the
//! classification fixtures, bad configurations, and `--help`.
//!
//! C guests are used where the output shows fuel (`exec`): their fuel is fixed by Debian's
//! clang, while the Python runtime's may differ between builds of it.

use std::path::Path;

use crate::support::{
    classify_interface, copy_tree, dixit_in, fixture, the_run, triangle, Output, Redactor,
};

/// `dixit ARGS` in `cwd`.
fn dixit(cwd: &Path, args: &[&str]) -> Output {
    dixit_in(cwd, args, &[])
}

/// A fixture path as an argument.
fn p(rel: &str) -> String {
    fixture(rel).display().to_string()
}

/// The transcript of `dixit run` on the triangle fixture under `protocol`, with `edit` applied
/// to its dixit.toml, after checking the exit code.
fn run_triangle(protocol: &str, edit: impl Fn(String) -> String, code: i32) -> String {
    let t = tempfile::tempdir().unwrap();
    let project = triangle(t.path(), edit);
    let o = dixit(
        t.path(),
        &["run", project.to_str().unwrap(), "--protocol", protocol],
    );
    o.expect_code(code);
    Redactor::new().path(t.path(), "[TMP]").transcript(&o)
}

#[test]
fn run_dixit_converges() {
    insta::assert_snapshot!(run_triangle("dixit", |c| c, 0));
}

#[test]
fn run_debate_picks_a_leader() {
    insta::assert_snapshot!(run_triangle("debate", |c| c, 0));
}

#[test]
fn run_repair_ships_the_best_attempts() {
    insta::assert_snapshot!(run_triangle("repair", |c| c, 0));
}

#[test]
fn run_blind_verifies_against_the_hidden_suite() {
    insta::assert_snapshot!(run_triangle("blind", |c| c, 0));
}

/// Exit 1: an acceptance test still fails after the last attempt.
#[test]
fn run_repair_asks_a_human() {
    insta::assert_snapshot!(run_triangle(
        "repair",
        |c| c.replace("max_attempts = 4", "max_attempts = 2"),
        1
    ));
}

/// A converged run whose final implementations still disagree (`fixtures/projects/median`).
#[test]
fn run_names_its_disagreements() {
    let t = tempfile::tempdir().unwrap();
    let project = t.path().join("median");
    copy_tree(&fixture("projects/median"), &project);
    let o = dixit(t.path(), &["run", "median"]);
    o.expect_code(0);
    insta::assert_snapshot!(Redactor::new().path(t.path(), "[TMP]").transcript(&o));
}

/// A replay by path and by id (from the project), and of a run that is not there.
#[test]
fn replay_reproduces_a_run() {
    let t = tempfile::tempdir().unwrap();
    let project = triangle(t.path(), |c| c);
    dixit(t.path(), &["run", "-q", project.to_str().unwrap()]).expect_code(0);
    let run = the_run(&project);
    let id = run.file_name().unwrap().to_str().unwrap();
    let outs = [
        dixit(t.path(), &["replay", run.to_str().unwrap()]),
        dixit(&project, &["replay", id]),
        dixit(t.path(), &["replay", "no-such-run"]),
    ];
    for (o, code) in outs.iter().zip([0, 0, 2]) {
        o.expect_code(code);
    }
    insta::assert_snapshot!(Redactor::new().path(t.path(), "[TMP]").transcripts(&outs));
}

/// The human-readable verdict of each kind of outcome, C guests.
#[test]
fn exec_prints_each_verdict() {
    let interface = classify_interface("c");
    let root = crate::support::root();
    let outs: Vec<Output> = [
        ("nested_if", "too_hard.c", 0),
        ("no_400", "too_hard.c", 1),
        ("table", "too_hard.c", 1),
        ("correct", "invalid.c", 1),
    ]
    .iter()
    .map(|(solution, test, code)| {
        let (s, t) = (
            p(&format!("classify/c/solutions/{solution}")),
            p(&format!("classify/c/tests/{test}")),
        );
        let o = dixit(
            &root,
            &[
                "exec",
                "--solution",
                &s,
                "--test",
                &t,
                &interface[0],
                &interface[1],
            ],
        );
        o.expect_code(*code);
        o
    })
    .collect();
    insta::assert_snapshot!(Redactor::new().transcripts(&outs));
}

/// The classification table: skipped identical reruns, a flaky test's failing seed, a compiled
/// test.
#[test]
fn classify_prints_the_matrix_and_the_class() {
    let root = crate::support::root();
    let solutions = |kind: &str| -> Vec<String> {
        let dir = fixture(&format!("classify/{kind}/solutions"));
        let mut v: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path().display().to_string())
            .collect();
        v.sort();
        v
    };
    let classify = |kind: &str, test: &str| {
        let mut args = vec![
            "classify".to_string(),
            "--test".into(),
            p(&format!("classify/{kind}/tests/{test}")),
        ];
        args.extend(solutions(kind));
        args.extend(classify_interface(kind));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = dixit(&root, &args);
        o.expect_code(0);
        o
    };
    let outs = [
        classify("python", "ideal.py"),
        classify("python", "flaky.py"),
        classify("c", "too_easy.c"),
    ];
    insta::assert_snapshot!(Redactor::new().transcripts(&outs));
}

/// A configuration error names the file, the key and the line, exits 2, and prints nothing on
/// stdout.
#[test]
fn bad_config_names_the_file_and_the_line() {
    let t = tempfile::tempdir().unwrap();
    dixit(t.path(), &["init", "p"]).expect_code(0);
    let cfg = t.path().join("p/dixit.toml");
    let good = std::fs::read_to_string(&cfg).unwrap();
    let mut outs = Vec::new();
    for (from, to) in [
        ("[protocol]", "[protocol]\ncodrs = 4"),
        ("minority = 0.4", "minority = 1.4"),
        ("backend = \"script\"", "backend = \"telepathy\""),
        ("[protocol]", "[protocol\n"),
    ] {
        assert!(good.contains(from), "{from:?} is not in:\n{good}");
        std::fs::write(&cfg, good.replacen(from, to, 1)).unwrap();
        let o = dixit(t.path(), &["run", "p"]);
        o.expect_code(2);
        outs.push(o);
    }
    insta::assert_snapshot!(Redactor::new().path(t.path(), "[TMP]").transcripts(&outs));
}

/// `--help` of the binary and of `run`, with the environment variables it shows unset.
#[test]
fn help_lists_the_commands_and_options() {
    let root = crate::support::root();
    let outs = [
        dixit_in(&root, &["--help"], &["DIXIT_CACHE", "DIXIT_JOBS"]),
        dixit_in(&root, &["run", "--help"], &["DIXIT_CACHE", "DIXIT_JOBS"]),
    ];
    for o in &outs {
        o.expect_code(0);
    }
    insta::assert_snapshot!(Redactor::new().transcripts(&outs));
}
