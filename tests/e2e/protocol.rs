//! End-to-end tests of the protocol (`dixit init/run/replay`) with script agents: every branch of
//! the loop, the journal, resume after `kill -9`, replay, and bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{journal, killed_journal, the_run};

fn dixit(args: &[&str], cwd: &Path) -> Output {
    super::support::dixit_at(cwd, args, &[])
}

fn text(o: &Output) -> String {
    super::support::describe(o)
}

/// A Python project of `f(x)` with the given protocol settings and scripted replies.
fn project(dir: &Path, protocol: &str, script: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("dixit.toml"),
        format!("[project]\nlanguage = \"python\"\n[protocol]\n{protocol}\n[agents]\nbackend = \"script\"\nscript = \"script.toml\"\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("spec.md"),
        "Write `f(x)` in `solution.py`: for x >= 0 it returns 2*x; for x < 0 it returns 0.\n",
    )
    .unwrap();
    std::fs::write(dir.join("script.toml"), script).unwrap();
}

/// A script entry whose reply is one Python code block.
fn py(agent: &str, code: &str) -> String {
    format!("[[{agent}]]\ntext = '''\n```python\n{code}\n```\n'''\n\n")
}

fn test_src(body: &str) -> String {
    format!("from solution import f\n{body}")
}

const RIGHT: &str = "def f(x):\n    return 2 * x if x >= 0 else 0";
const NEG_BUG: &str = "def f(x):\n    return 2 * x";

/// The events of one lane, as (event name, record).
fn lane<'a>(j: &'a [Value], lane: &str) -> Vec<(&'a str, &'a Value)> {
    j.iter()
        .filter(|r| r["lane"] == lane)
        .map(|r| (r["event"].as_str().unwrap(), r))
        .collect()
}

fn names(events: &[(&str, &Value)]) -> Vec<String> {
    events
        .iter()
        .map(|(n, r)| match *n {
            "classified" => format!("classified:{}", r["class"].as_str().unwrap()),
            "judged" => format!(
                "judged:{}",
                r["vector"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| if v.as_bool().unwrap() { '1' } else { '0' })
                    .collect::<String>()
            ),
            other => other.to_string(),
        })
        .collect()
}

fn stop(j: &[Value]) -> &Value {
    j.iter()
        .rev()
        .find(|r| r["event"] == "stop")
        .expect("a stop event")
}

#[test]
fn too_easy_then_nudge_then_ideal() {
    let t = tempfile::tempdir().unwrap();
    let script = [
        py("coder-1", RIGHT),
        py("coder-2", NEG_BUG),
        py("coder-3", RIGHT),
        py("tester-1", &test_src("assert f(1) == 2")),
        py("tester-1", &test_src("assert f(-1) == 0")),
    ]
    .concat();
    project(t.path(), "coders = 3\ntesters = 1\nmax_rounds = 1", &script);
    let o = dixit(&["run", "."], t.path());
    assert_eq!(
        o.status.code(),
        Some(4),
        "a round cap is a resumable stop: {}",
        text(&o)
    );
    let j = journal(&the_run(t.path()));
    let tester = lane(&j, "tester-1");
    assert_eq!(
        names(&tester),
        [
            "checkpoint",
            "reply",
            "classified:TOO_EASY",
            "checkpoint",
            "reply",
            "classified:IDEAL",
            "thanks",
            "accepted"
        ]
    );
    let nudge = tester[4].1["prompt"].as_str().unwrap();
    assert!(nudge.contains("a little too simple"), "{nudge}");
    assert_eq!(tester[5].1["failures"], 1);
    let added = j.iter().find(|r| r["event"] == "suite_changed").unwrap();
    assert!(added["added"][0]["source"]
        .as_str()
        .unwrap()
        .contains("f(-1)"));
}

#[test]
fn too_hard_twice_hibernates_then_revives() {
    let t = tempfile::tempdir().unwrap();
    let zero_bug = "def f(x):\n    return 1 if x == 0 else 2 * x";
    let script = [
        py("coder-1", RIGHT),
        py("coder-2", RIGHT),
        py("coder-3", zero_bug),
        py("coder-3", RIGHT), // its fix for f(0) also fixes negatives
        py("coder-4", NEG_BUG),
        py("coder-5", NEG_BUG),
        py("tester-1", &test_src("assert f(-1) == 0")),
        py("tester-1", &test_src("assert f(-5) == 0")),
        py("tester-2", &test_src("assert f(0) == 0")),
        py("tester-2", &test_src("assert f(2) == 4")),
        py("tester-2", &test_src("assert f(3) == 6")),
    ]
    .concat();
    project(
        t.path(),
        "coders = 5\ntesters = 2\nmax_rounds = 2\nmax_tester_retries = 1",
        &script,
    );
    let o = dixit(&["run", "."], t.path());
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    let j = journal(&the_run(t.path()));
    let t1 = names(&lane(&j, "tester-1"));
    let hib = t1
        .iter()
        .position(|n| n == "hibernated")
        .expect("hibernated");
    assert_eq!(
        t1[..hib],
        [
            "checkpoint",
            "reply",
            "classified:TOO_HARD",
            "checkpoint",
            "reply",
            "classified:TOO_HARD"
        ]
    );
    // Round 2: coder-3 caught up, so 2 of 5 fail the first test: IDEAL; the tester wakes up.
    assert_eq!(
        t1[hib + 1..],
        [
            "classified:IDEAL",
            "revived",
            "rollback",
            "thanks",
            "accepted"
        ]
    );
    let changes: Vec<&Value> = j.iter().filter(|r| r["event"] == "suite_changed").collect();
    assert_eq!(changes.len(), 2);
    assert_eq!(changes[1]["added"][0]["author"], "tester-1");
    assert!(changes[1]["added"][0]["source"]
        .as_str()
        .unwrap()
        .contains("f(-1)"));
    // Its transcript was rolled back to just after the revived test, then thanked.
    let tr = std::fs::read_to_string(the_run(t.path()).join("agents/tester-1/transcript.jsonl"))
        .unwrap();
    assert!(
        !tr.contains("f(-5)"),
        "the second too-hard test was rolled back"
    );
}

#[test]
fn invalid_tests_go_back_to_their_author_with_the_error() {
    let t = tempfile::tempdir().unwrap();
    let script = [
        py("coder-1", RIGHT),
        py("coder-2", NEG_BUG),
        py("coder-3", RIGHT),
        py("tester-1", "from solution import f\nassert f(1) =="),
        py("tester-1", &test_src("assert f(-1) == 0")),
        "[[tester-2]]\ntext = \"I think f(2) should be 4.\"\n\n".to_string(),
        py("tester-2", &test_src("assert f(-3) == 0")),
    ]
    .concat();
    project(t.path(), "coders = 3\ntesters = 2\nmax_rounds = 1", &script);
    let o = dixit(&["run", "."], t.path());
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    let j = journal(&the_run(t.path()));
    let t1 = lane(&j, "tester-1");
    assert_eq!(
        names(&t1)[..6],
        [
            "checkpoint",
            "reply",
            "classified:INVALID",
            "checkpoint",
            "reply",
            "classified:IDEAL"
        ]
    );
    assert!(t1[2].1["build_error"]
        .as_str()
        .unwrap()
        .contains("SyntaxError"));
    let nudge = t1[4].1["prompt"].as_str().unwrap();
    assert!(
        nudge.contains("does not build") && nudge.contains("SyntaxError"),
        "{nudge}"
    );
    let t2 = lane(&j, "tester-2");
    assert_eq!(
        names(&t2)[..6],
        [
            "checkpoint",
            "reply",
            "classified:INVALID",
            "checkpoint",
            "reply",
            "classified:IDEAL"
        ]
    );
    assert!(t2[4].1["prompt"]
        .as_str()
        .unwrap()
        .contains("could not find a test"));
    assert!(
        !j.iter().any(|r| r["event"] == "hibernated"),
        "INVALID never counts as TOO_HARD"
    );
}

/// A test that never reaches the implementation (it checks its own copy of the function: the
/// same AssertionError on every coder, exactly as with no implementation at all) is INVALID, not
/// TOO_HARD: its author is told so, with its own error and what it got wrong, and is not sent
/// to sleep. A test that imports the implementation and fails every coder (a wrong expectation)
/// stays TOO_HARD: it fails them otherwise than it fails an empty implementation. The run
/// replays.
#[test]
fn a_test_that_never_reaches_the_implementation_is_invalid_not_too_hard() {
    let t = tempfile::tempdir().unwrap();
    let script = [
        py("coder-1", RIGHT),
        py("coder-2", NEG_BUG),
        py("coder-3", RIGHT),
        py("tester-1", "def f(x):\n    return 0\n\nassert f(7) == 14"),
        py("tester-1", &test_src("assert f(-1) == 0")),
        py("tester-2", &test_src("assert f(2) == 5")),
        py("tester-2", &test_src("assert f(-3) == 0")),
    ]
    .concat();
    project(t.path(), "coders = 3\ntesters = 2\nmax_rounds = 1", &script);
    let o = dixit(&["run", "."], t.path());
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    let run = the_run(t.path());
    let j = journal(&run);
    let t1 = lane(&j, "tester-1");
    assert_eq!(
        names(&t1)[..6],
        [
            "checkpoint",
            "reply",
            "classified:INVALID",
            "checkpoint",
            "reply",
            "classified:IDEAL"
        ]
    );
    assert_eq!(t1[2].1["failures"], 3, "every coder failed it");
    let why = t1[2].1["build_error"].as_str().unwrap();
    assert!(why.contains("exactly as it fails with none"), "{why}");
    assert!(why.contains("AssertionError"), "{why}");
    let nudge = t1[4].1["prompt"].as_str().unwrap();
    assert!(
        nudge.contains("no implementation at all")
            && nudge.contains("it defines `f` itself")
            && nudge.contains("AssertionError"),
        "{nudge}"
    );
    assert!(!nudge.contains("does not build"), "{nudge}");
    assert!(
        !nudge.contains("2 * x"),
        "no implementation is quoted: {nudge}"
    );
    let t2 = lane(&j, "tester-2");
    assert_eq!(names(&t2)[2], "classified:TOO_HARD", "{:?}", names(&t2));
    let o = dixit(
        &["replay", run.file_name().unwrap().to_str().unwrap()],
        t.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
}

/// A Python test that uses the interface's names without importing them still reaches the code
/// (journal 1.8: the names are bound in its namespace, as `from solution import *` binds them),
/// so it is classified on what the coders wrote. The rule follows the recorded format: the same
/// journal marked 1.7 replays under 1.7's rule, where that test raised NameError, and the replay
/// names the first event that differs.
#[test]
fn a_test_that_forgot_its_import_still_reaches_the_code() {
    let t = tempfile::tempdir().unwrap();
    let script = [
        py("coder-1", RIGHT),
        py("coder-2", NEG_BUG),
        py("coder-3", RIGHT),
        py("tester-1", "assert f(-1) == 0"),
        py("tester-2", &test_src("assert f(2) == 4")),
    ]
    .concat();
    project(t.path(), "coders = 3\ntesters = 2\nmax_rounds = 1", &script);
    let o = dixit(&["run", "."], t.path());
    let run = the_run(t.path());
    let j = journal(&run);
    let t1 = lane(&j, "tester-1");
    assert_eq!(
        names(&t1)[..3],
        ["checkpoint", "reply", "classified:IDEAL"],
        "{}",
        text(&o)
    );
    let id = run.file_name().unwrap().to_str().unwrap().to_string();
    let o = dixit(&["replay", &id], t.path());
    assert!(o.status.success(), "{}", text(&o));
    let path = run.join("journal.jsonl");
    let recorded = std::fs::read_to_string(&path).unwrap();
    assert!(recorded.contains("\"format\":\"dixit-journal/1.8\""));
    std::fs::write(
        &path,
        recorded.replacen("dixit-journal/1.8", "dixit-journal/1.7", 1),
    )
    .unwrap();
    let o = dixit(&["replay", &id], t.path());
    assert!(!o.status.success(), "{}", text(&o));
    let err = text(&o);
    assert!(
        err.contains("divergence in lane `tester-1`") && err.contains("NameError"),
        "{err}"
    );
}

/// Round 1 adds two tests; coder-2 fails the second.
fn two_test_script(coder2: &[&str]) -> String {
    let mut s = vec![
        py("coder-1", RIGHT),
        py(
            "coder-3",
            "def f(x):\n    return 2 * x + (1 if x == 7 else 0) if x >= 0 else 0",
        ),
        py("coder-3", RIGHT),
        py("tester-1", &test_src("assert f(7) == 14")),
        py("tester-2", &test_src("assert f(-2) == 0")),
        py("tester-1", &test_src("assert f(1) == 2")),
        py("tester-1", &test_src("assert f(2) == 4")),
        py("tester-2", &test_src("assert f(3) == 6")),
        py("tester-2", &test_src("assert f(4) == 8")),
    ];
    for c in coder2 {
        s.push(py("coder-2", c));
    }
    s.concat()
}

#[test]
fn a_regressing_coder_is_rolled_back_to_its_best_attempt() {
    let t = tempfile::tempdir().unwrap();
    let worse = "def f(x):\n    return -1";
    project(
        t.path(),
        "coders = 3\ntesters = 2\nmax_rounds = 2\nmax_tester_retries = 1",
        &two_test_script(&[NEG_BUG, worse, RIGHT]),
    );
    let o = dixit(&["run", "."], t.path());
    assert_eq!(
        o.status.code(),
        Some(0),
        "round 2 adds no test: converged: {}",
        text(&o)
    );
    let run = the_run(t.path());
    let j = journal(&run);
    let c2 = lane(&j, "coder-2");
    assert_eq!(
        names(&c2),
        [
            "reply",
            "judged:",
            "judged:10",
            "checkpoint",
            "reply",
            "judged:00",
            "rollback",
            "reply",
            "judged:11",
            "thanks"
        ]
    );
    // Both fix prompts name only the test the best attempt fails.
    for i in [4, 7] {
        assert!(
            c2[i].1["prompt"]
                .as_str()
                .unwrap()
                .contains("Test 2 fails; the others pass."),
            "{}",
            c2[i].1["prompt"]
        );
    }
    let tr = std::fs::read_to_string(run.join("agents/coder-2/transcript.jsonl")).unwrap();
    assert!(
        !tr.contains("return -1"),
        "the regressing attempt is gone from the history"
    );
    let final_code =
        std::fs::read_to_string(run.join("implementations/coder-2/solution.py")).unwrap();
    assert!(
        final_code.contains("2 * x if x >= 0 else 0"),
        "{final_code}"
    );
}

#[test]
fn a_coder_that_cannot_pass_stops_for_a_human() {
    let t = tempfile::tempdir().unwrap();
    project(
        t.path(),
        "coders = 3\ntesters = 2\nmax_rounds = 3\nmax_tester_retries = 1\nmax_coder_retries = 2",
        &two_test_script(&[NEG_BUG, NEG_BUG, NEG_BUG]),
    );
    let o = dixit(&["run", "."], t.path());
    assert_eq!(
        o.status.code(),
        Some(1),
        "human needed exits 1: {}",
        text(&o)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("human judgement needed: coder-2 cannot pass test 2"),
        "{out}"
    );
    let j = journal(&the_run(t.path()));
    let s = stop(&j);
    assert_eq!(s["reason"], "human_needed");
    assert_eq!(
        s["cannot_pass"],
        serde_json::json!([{"coder": "coder-2", "failing": [2]}])
    );
    assert_eq!(
        names(&lane(&j, "coder-2"))
            .iter()
            .filter(|n| *n == "reply")
            .count(),
        3,
        "1 solve + 2 retries"
    );
}

#[test]
fn the_demo_converges_and_reports() {
    let t = tempfile::tempdir().unwrap();
    let o = dixit(&["init", "demo"], t.path());
    assert!(o.status.success(), "{}", text(&o));
    let o = dixit(&["run", "demo"], t.path());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("converged"), "{out}");
    let run = the_run(&t.path().join("demo"));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["stop"]["reason"], "converged");
    assert_eq!(summary["suite"].as_array().unwrap().len(), 3);
    assert_eq!(summary["protocol"], "dixit");
    // tester-2's first tests were ahead of their time: it slept, and woke when coders caught up.
    assert_eq!(summary["dixit"]["testers"]["tester-2"]["hibernations"], 1);
    assert_eq!(summary["dixit"]["testers"]["tester-2"]["revivals"], 1);
    for c in ["coder-1", "coder-2", "coder-3"] {
        assert_eq!(
            summary["coders"][c]["hidden"],
            serde_json::json!([1, 1]),
            "{c} passes the hidden tests"
        );
        assert!(run
            .join("implementations")
            .join(c)
            .join("solution.py")
            .is_file());
    }
    for n in 1..=3 {
        assert!(run.join(format!("suite/test_{n:03}.py")).is_file());
    }
    let j = journal(&run);
    // coder-2 fails the unsorted-input test, fixes it, and is thanked.
    assert_eq!(
        names(&lane(&j, "coder-2"))[..7],
        [
            "reply",
            "judged:",
            "judged:0",
            "checkpoint",
            "reply",
            "judged:1",
            "thanks"
        ]
    );
}

#[test]
fn every_init_language_runs_to_convergence() {
    for lang in ["c", "rust", "io"] {
        let t = tempfile::tempdir().unwrap();
        let o = dixit(&["init", "p", "--language", lang], t.path());
        assert!(o.status.success(), "{lang}: {}", text(&o));
        let o = dixit(&["run", "p", "--json"], t.path());
        assert_eq!(o.status.code(), Some(0), "{lang}: {}", text(&o));
        let s: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(s["stop"]["reason"], "converged", "{lang}");
        assert!(s["suite"].as_array().unwrap().len() >= 2, "{lang}: {s}");
        for (name, c) in s["coders"].as_object().unwrap() {
            let (p, total) = (
                c["hidden"][0].as_u64().unwrap(),
                c["hidden"][1].as_u64().unwrap(),
            );
            assert_eq!(p, total, "{lang}: {name} fails hidden tests");
        }
    }
}

/// The demo with every reply slowed down and given a usage.
fn slow_demo(dir: &Path, delay_ms: u64, tokens: u64) {
    let o = dixit(&["init", "demo"], dir);
    assert!(o.status.success());
    let p = dir.join("demo/script.toml");
    let s = std::fs::read_to_string(&p).unwrap().replace(
        "text = '''",
        &format!("delay_ms = {delay_ms}\nusage = {{ prompt_tokens = {tokens}, completion_tokens = {tokens} }}\ntext = '''"),
    );
    std::fs::write(p, s).unwrap();
}

/// What a run's final state is: summary (without id), suite and implementations.
fn final_state(run: &Path) -> String {
    let mut s: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    s.as_object_mut().unwrap().remove("run_id");
    let mut out = s.to_string();
    for sub in [
        "suite",
        "implementations/coder-1",
        "implementations/coder-2",
        "implementations/coder-3",
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(run.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            out.push_str(&format!(
                "\n{}:\n{}",
                f.file_name().unwrap().to_string_lossy(),
                std::fs::read_to_string(&f).unwrap()
            ));
        }
    }
    out
}

#[test]
fn kill_9_mid_run_then_resume_reaches_the_same_state() {
    let base = tempfile::tempdir().unwrap();
    slow_demo(base.path(), 0, 10);
    assert_eq!(
        dixit(&["run", "demo", "-q"], base.path()).status.code(),
        Some(0)
    );
    let expected = final_state(&the_run(&base.path().join("demo")));
    for kill_at in [6usize, 25, 60] {
        let t = tempfile::tempdir().unwrap();
        slow_demo(t.path(), 60, 10);
        let mut child = Command::new(env!("CARGO_BIN_EXE_dixit"))
            .args(["run", "demo", "-q"])
            .current_dir(t.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let journal_lines = || {
            std::fs::read_dir(t.path().join("demo/runs"))
                .ok()
                .and_then(|mut d| d.next())
                .and_then(|e| std::fs::read_to_string(e.ok()?.path().join("journal.jsonl")).ok())
                .map(|s| s.lines().count())
                .unwrap_or(0)
        };
        let started = std::time::Instant::now();
        while journal_lines() < kill_at && started.elapsed() < std::time::Duration::from_secs(60) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let run = the_run(&t.path().join("demo"));
        let id = run.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            killed_journal(&run).iter().all(|r| r["event"] != "stop"),
            "killed before the end (at {kill_at} lines)"
        );
        if kill_at == 25 {
            // What a kill in the middle of a write leaves, made certain once: a record cut short.
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(run.join("journal.jsonl"))
                .unwrap();
            std::io::Write::write_all(&mut f, br#"{"lane":"run","seq":"#).unwrap();
        }
        let o = dixit(&["run", "demo", "-q", "--resume", &id], t.path());
        assert_eq!(
            o.status.code(),
            Some(0),
            "resume after kill at {kill_at} lines: {}",
            text(&o)
        );
        assert_eq!(final_state(&run), expected, "killed at {kill_at} lines");
        let o = dixit(&["replay", run.to_str().unwrap()], t.path());
        assert!(
            o.status.success(),
            "the resumed journal replays: {}",
            text(&o)
        );
    }
}

#[test]
fn a_budget_cap_stops_the_run_resumably() {
    let t = tempfile::tempdir().unwrap();
    slow_demo(t.path(), 0, 50);
    let cfg = t.path().join("demo/dixit.toml");
    let original = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, format!("{original}\n[budget]\nmax_tokens = 900\n")).unwrap();
    let o = dixit(&["run", "demo"], t.path());
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("budget cap reached"),
        "{}",
        text(&o)
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--resume"),
        "{}",
        text(&o)
    );
    let run = the_run(&t.path().join("demo"));
    let j = journal(&run);
    assert_eq!(stop(&j)["reason"], "budget");
    assert!(j.iter().any(|r| r["event"] == "refused"));
    let spent: u64 = j
        .iter()
        .filter(|r| r["event"] == "reply")
        .map(|_| 100)
        .sum();
    assert!(
        (900..1100).contains(&spent),
        "at most one call per agent past the cap: {spent}"
    );
    // The stopped run replays exactly, refusal included.
    let o = dixit(&["replay", run.to_str().unwrap()], t.path());
    assert!(o.status.success(), "{}", text(&o));
    // Raise the cap and resume: the run completes as if it had never stopped.
    std::fs::write(&cfg, format!("{original}\n[budget]\nmax_tokens = 100000\n")).unwrap();
    let id = run.file_name().unwrap().to_string_lossy().into_owned();
    let o = dixit(&["run", "demo", "--resume", &id], t.path());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let base = tempfile::tempdir().unwrap();
    slow_demo(base.path(), 0, 50);
    assert_eq!(
        dixit(&["run", "demo", "-q"], base.path()).status.code(),
        Some(0)
    );
    assert_eq!(
        final_state(&run),
        final_state(&the_run(&base.path().join("demo")))
    );
    let o = dixit(&["replay", run.to_str().unwrap()], t.path());
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn replay_is_exact_on_one_and_two_threads_and_names_a_divergence() {
    let t = tempfile::tempdir().unwrap();
    assert!(dixit(&["init", "demo"], t.path()).status.success());
    assert_eq!(
        dixit(&["run", "demo", "-q"], t.path()).status.code(),
        Some(0)
    );
    let run = the_run(&t.path().join("demo"));
    for jobs in ["1", "2"] {
        let o = dixit(&["-j", jobs, "replay", run.to_str().unwrap()], t.path());
        assert!(o.status.success(), "-j{jobs}: {}", text(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("reproduced exactly"));
    }
    // Tamper with a recorded reply: coder-2's fix no longer sorts.
    let p = run.join("journal.jsonl");
    let j = std::fs::read_to_string(&p).unwrap();
    let tampered: Vec<String> = j
        .lines()
        .map(|l| {
            if l.contains("\"lane\":\"coder-2\"") && l.contains("\"purpose\":\"fix\"") {
                l.replace("sorted(values)", "list(values)")
            } else {
                l.to_string()
            }
        })
        .collect();
    assert_ne!(tampered.join("\n"), j.trim_end());
    std::fs::write(&p, tampered.join("\n") + "\n").unwrap();
    let o = dixit(&["replay", run.to_str().unwrap()], t.path());
    assert_eq!(o.status.code(), Some(5), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("divergence in lane `coder-2`") && err.contains("judged"),
        "{err}"
    );
}

/// `--json` on `run`, `replay` and `report`: the run's JSON says where its folder and page are,
/// replay's says whether it reproduced the run (and its stop) or where it diverged, report's
/// what it wrote.
#[test]
fn run_replay_and_report_print_json() {
    let t = tempfile::tempdir().unwrap();
    assert!(dixit(&["init", "demo"], t.path()).status.success());
    let o = dixit(&["run", "demo", "--json"], t.path());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let s: Value = serde_json::from_slice(&o.stdout).unwrap();
    let run = the_run(&t.path().join("demo"));
    let run_dir = Path::new(s["run_dir"].as_str().unwrap());
    assert_eq!(run_dir.canonicalize().unwrap(), run.canonicalize().unwrap());
    let page = Path::new(s["report"].as_str().unwrap());
    assert_eq!(page, run_dir.join("report.html"));
    assert!(page.is_file(), "{s}");
    assert_eq!(s["stop"]["reason"], "converged");

    let o = dixit(&["replay", run.to_str().unwrap(), "--json"], t.path());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["reproduced"], true, "{r}");
    assert_eq!(r["run_dir"], run.to_str().unwrap());
    assert_eq!(r["run_id"], s["run_id"]);
    assert_eq!(r["stop"], s["stop"]);
    assert!(r["events"].as_u64().unwrap() > 10, "{r}");
    assert!(
        r["stop_text"].as_str().unwrap().contains("converged"),
        "{r}"
    );

    let junit = t.path().join("junit.xml");
    let o = dixit(
        &[
            "report",
            run.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
            "--json",
        ],
        t.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let w: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(w["input"], "run");
    assert_eq!(w["report"], run.join("report.html").to_str().unwrap());
    assert_eq!(w["junit"], junit.to_str().unwrap());
    assert!(junit.is_file());
    assert!(o.stderr.is_empty(), "{}", text(&o));

    // A tampered reply: replay --json says where the run diverged, on stdout, and exits 5.
    let p = run.join("journal.jsonl");
    let j = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, j.replace("sorted(values)", "list(values)")).unwrap();
    let o = dixit(&["replay", run.to_str().unwrap(), "--json"], t.path());
    assert_eq!(o.status.code(), Some(5), "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["reproduced"], false, "{r}");
    assert_eq!(r["run_dir"], run.to_str().unwrap());
    assert!(!r["divergence"]["lane"].as_str().unwrap().is_empty(), "{r}");
    assert!(
        !r["divergence"]["detail"].as_str().unwrap().is_empty(),
        "{r}"
    );
}

#[test]
fn bad_input_gets_clear_errors() {
    let t = tempfile::tempdir().unwrap();
    assert!(dixit(&["init", "p"], t.path()).status.success());
    let cfg = t.path().join("p/dixit.toml");
    let good = std::fs::read_to_string(&cfg).unwrap();

    std::fs::write(&cfg, good.replace("[protocol]", "[protocol]\ncodrs = 4")).unwrap();
    let o = dixit(&["run", "p"], t.path());
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("dixit.toml") && e.contains("codrs"), "{e}");

    std::fs::write(&cfg, good.replace("minority = 0.4", "minority = 1.4")).unwrap();
    let e = String::from_utf8_lossy(&dixit(&["run", "p"], t.path()).stderr).into_owned();
    assert!(e.contains("dixit.minority") && e.contains("(line "), "{e}");

    std::fs::write(
        &cfg,
        good.replace("backend = \"script\"", "backend = \"telepathy\""),
    )
    .unwrap();
    let e = String::from_utf8_lossy(&dixit(&["run", "p"], t.path()).stderr).into_owned();
    assert!(e.contains("telepathy"), "{e}");

    std::fs::write(&cfg, &good).unwrap();
    std::fs::remove_file(t.path().join("p/spec.md")).unwrap();
    let o = dixit(&["run", "p"], t.path());
    expect_usage_error(&o, "spec.md");

    let o = dixit(&["run", "nowhere"], t.path());
    expect_usage_error(&o, "nowhere/dixit.toml");

    // A corrupt journal line names the file and line; resuming a finished run is refused.
    std::fs::write(t.path().join("p/spec.md"), "Write `median(values)`.\n").unwrap();
    assert!(dixit(&["init", "q"], t.path()).status.success());
    assert_eq!(dixit(&["run", "q", "-q"], t.path()).status.code(), Some(0));
    let run = the_run(&t.path().join("q"));
    let id = run.file_name().unwrap().to_string_lossy().into_owned();
    let o = dixit(&["run", "q", "--resume", &id], t.path());
    expect_usage_error(&o, "nothing to resume");
    let p = run.join("journal.jsonl");
    let mut lines: Vec<String> = std::fs::read_to_string(&p)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    lines[5] = "{\"lane\": \"coder-1\", \"seq\": oops".into();
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let o = dixit(&["replay", run.to_str().unwrap()], t.path());
    expect_usage_error(&o, "journal.jsonl:6: corrupt journal line");
    let o = dixit(&["replay", "no-such-run"], t.path());
    expect_usage_error(&o, "no run `no-such-run`");
}

/// `o` exited with code 2 (bad input) and its error names `needle`.
fn expect_usage_error(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", text(o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(needle),
        "{}",
        text(o)
    );
}

/// Lines of code worth looking for (long enough not to be common words).
fn code_lines(src: &str) -> Vec<String> {
    src.lines()
        .map(str::trim)
        .filter(|l| {
            l.len() >= 18 && !l.starts_with("from solution import") && !l.starts_with("#include")
        })
        .map(String::from)
        .collect()
}

#[test]
fn the_game_is_invisible_in_every_transcript() {
    for lang in ["python", "c"] {
        let t = tempfile::tempdir().unwrap();
        assert!(dixit(&["init", "p", "--language", lang], t.path())
            .status
            .success());
        assert_eq!(dixit(&["run", "p", "-q"], t.path()).status.code(), Some(0));
        let run = the_run(&t.path().join("p"));
        let j = journal(&run);
        let tests: Vec<String> = j
            .iter()
            .filter(|r| r["event"] == "reply" && r["lane"].as_str().unwrap().starts_with("tester"))
            .flat_map(|r| {
                r["files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|f| code_lines(f["content"].as_str().unwrap_or("")))
                    .collect::<Vec<_>>()
            })
            .collect();
        let solutions: Vec<String> = j
            .iter()
            .filter(|r| r["event"] == "reply" && r["lane"].as_str().unwrap().starts_with("coder"))
            .flat_map(|r| {
                r["files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|f| code_lines(f["content"].as_str().unwrap_or("")))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(!tests.is_empty() && !solutions.is_empty());
        for agent in std::fs::read_dir(run.join("agents")).unwrap() {
            let agent = agent.unwrap().path();
            let name = agent.file_name().unwrap().to_string_lossy().into_owned();
            let transcript = std::fs::read_to_string(agent.join("transcript.jsonl")).unwrap();
            for line in transcript.lines() {
                let m: Value = serde_json::from_str(line).unwrap();
                if m["role"] == "assistant" {
                    continue; // the agent's own words
                }
                let content = m["content"].as_str().unwrap();
                let leaked = if name.starts_with("coder") {
                    &tests
                } else {
                    &solutions
                };
                for l in leaked.iter().filter(|l| !is_own(&j, &name, l)) {
                    assert!(
                        !content.contains(l.as_str()),
                        "{lang}: {name} was sent `{l}`"
                    );
                }
                let bad = dixit::engine::forbidden_words(
                    content,
                    dixit::protocol::get("dixit").unwrap().forbidden(),
                );
                assert!(
                    bad.is_empty(),
                    "{lang}: {name} was sent {bad:?} in: {content}"
                );
            }
        }
    }
}

/// Whether `line` is in one of `agent`'s own replies (then it is not a leak).
fn is_own(j: &[Value], agent: &str, line: &str) -> bool {
    j.iter().any(|r| {
        r["lane"] == agent
            && r["event"] == "reply"
            && r["text"].as_str().unwrap_or("").contains(line)
    })
}

#[test]
fn fuel_is_compared_only_on_the_recorded_runtime() {
    let t = tempfile::tempdir().unwrap();
    assert!(dixit(&["init", "demo"], t.path()).status.success());
    assert_eq!(
        dixit(&["run", "demo", "-q"], t.path()).status.code(),
        Some(0)
    );
    let run = the_run(&t.path().join("demo"));
    let p = run.join("journal.jsonl");
    let original = std::fs::read_to_string(&p).unwrap();
    let header: Value = serde_json::from_str(original.lines().next().unwrap()).unwrap();
    let digest = header["runtimes"]["python"]
        .as_str()
        .expect("the header records the runtime digest")
        .to_string();
    // One cell's fuel is off by one.
    let bump = |s: &str| {
        let mut done = false;
        s.lines()
            .map(|l| {
                if !done && l.contains("\"event\":\"judged\"") && l.contains("\"fuel\":") {
                    done = true;
                    let at = l.find("\"fuel\":").unwrap() + 7;
                    let end = at + l[at..].find(|c: char| !c.is_ascii_digit()).unwrap();
                    let n: u64 = l[at..end].parse().unwrap();
                    format!("{}{}{}", &l[..at], n + 1, &l[end..])
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    };
    std::fs::write(&p, bump(&original)).unwrap();
    let o = dixit(&["replay", run.to_str().unwrap()], t.path());
    assert_eq!(
        o.status.code(),
        Some(5),
        "same runtime: fuel is compared: {}",
        text(&o)
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("fuel"),
        "{}",
        text(&o)
    );
    // Recorded on another machine's runtime build: decisions are compared, fuel is not.
    std::fs::write(&p, bump(&original).replacen(&digest, "0000", 1)).unwrap();
    let o = dixit(&["replay", run.to_str().unwrap()], t.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("fuel was not compared"),
        "{}",
        text(&o)
    );
}

#[test]
fn the_recorded_real_run_replays() {
    let run = super::support::root().join("fixtures/runs/to_roman-qwen1.5b");
    let o = dixit(&["replay", run.to_str().unwrap()], &super::support::root());
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("reproduced exactly") && out.contains("coder-4 cannot pass tests 1, 2"),
        "{out}"
    );
}

/// Every run recorded under fixtures/runs (real runs of each protocol on the local model)
/// replays exactly, and the replay ends with the stop its summary.json recorded.
#[test]
fn every_recorded_run_replays() {
    let root = super::support::root();
    let mut protocols = std::collections::BTreeSet::new();
    let mut runs: Vec<_> = std::fs::read_dir(root.join("fixtures/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("journal.jsonl").is_file())
        .collect();
    runs.sort();
    for run in &runs {
        let o = dixit(&["replay", run.to_str().unwrap()], &root);
        assert!(o.status.success(), "{}: {}", run.display(), text(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains("reproduced exactly"),
            "{}: {out}",
            run.display()
        );
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap())
                .unwrap();
        protocols.insert(summary["protocol"].as_str().unwrap_or("dixit").to_string());
    }
    let all: std::collections::BTreeSet<String> = ["blind", "debate", "dixit", "repair"]
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(protocols, all, "a recorded real run of every protocol");
}
