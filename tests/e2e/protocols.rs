//! The protocols beside `dixit` (issue 10): `debate`, `repair`, `blind`, `single` and `codet` on
//! the scripted fixture `fixtures/projects/triangle` (every branch of each), their other stops on
//! variants of it,
//! resume after `kill -9`, replay on one and two threads, the prompts each protocol may and may
//! not send, and `dixit compare` over the fixtures.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{
    describe, dixit_at, final_state, fixture, journal, killed_journal, the_run, triangle,
};

fn dixit(args: &[&str], cwd: &Path) -> Output {
    dixit_at(cwd, args, &[])
}

fn events<'a>(j: &'a [Value], lane: &str, event: &str) -> Vec<&'a Value> {
    j.iter()
        .filter(|r| r["lane"] == lane && r["event"] == event)
        .collect()
}

fn stop(j: &[Value]) -> &Value {
    j.iter().rev().find(|r| r["event"] == "stop").unwrap()
}

fn summary(run: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap()
}

/// Runs `protocol` on a copy of the fixture; returns the run directory and the output.
fn run(dir: &Path, protocol: &str, edit: impl Fn(String) -> String) -> (PathBuf, Output) {
    let p = triangle(dir, edit);
    let o = dixit(&["run", p.to_str().unwrap(), "--protocol", protocol], dir);
    (the_run(&p), o)
}

/// The run replays exactly, on one thread and on two.
fn replays(run: &Path) {
    for jobs in ["1", "2"] {
        let o = dixit(&["-j", jobs, "replay", run.to_str().unwrap()], run);
        assert!(o.status.success(), "replay -j {jobs}: {}", describe(&o));
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("reproduced exactly"),
            "{}",
            describe(&o)
        );
    }
}

#[test]
fn repair_reviews_reverts_regressions_and_ships_the_best_attempt() {
    let t = tempfile::tempdir().unwrap();
    let (run, o) = run(t.path(), "repair", |c| c);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let j = journal(&run);
    // coder-1: the review found problems, so its first attempt was rewritten; then a syntax
    // error and a regression were reverted, and the fourth attempt shipped.
    let review = &events(&j, "reviewer-1", "reviewed")[0];
    assert_eq!(review["clean"], false);
    assert_eq!(events(&j, "reviewer-2", "reviewed")[0]["clean"], true);
    let attempts: Vec<(u64, String)> = events(&j, "coder-1", "attempt")
        .iter()
        .map(|a| {
            (
                a["passed"].as_u64().unwrap(),
                a["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        attempts,
        [
            (2, "first".to_string()),
            (0, "reverted".into()),
            (2, "reverted".into()),
            (3, "kept".into())
        ]
    );
    let purposes: Vec<&str> = events(&j, "coder-1", "reply")
        .iter()
        .map(|r| r["purpose"].as_str().unwrap())
        .collect();
    assert_eq!(purposes, ["write", "rewrite", "fix", "fix", "fix"]);
    // A fix prompt names the failing test and its output, shows the best code and the tests.
    let fix = events(&j, "coder-1", "reply")[2]["prompt"]
        .as_str()
        .unwrap();
    assert!(
        fix.contains("test_isosceles.py") && fix.contains("AssertionError"),
        "{fix}"
    );
    assert!(fix.contains("do NOT modify"), "{fix}");
    // The syntax error was rolled back before the next attempt: attempt 3's prompt shows the
    // best code, not the broken one.
    let third = events(&j, "coder-1", "reply")[3]["prompt"]
        .as_str()
        .unwrap();
    assert!(
        !third.contains("def triangle(a, b, c)\n    return"),
        "{third}"
    );
    let s = summary(&run);
    assert_eq!(s["repair"]["coders"]["coder-1"]["shipped"], 4);
    assert_eq!(s["repair"]["coders"]["coder-2"]["shipped"], 1);
    assert_eq!(stop(&j)["reason"], "repaired");
    let shipped = std::fs::read_to_string(run.join("implementations/coder-1/solution.py")).unwrap();
    assert!(shipped.contains("a == c"), "{shipped}");
    replays(&run);
}

#[test]
fn repair_that_never_passes_ships_its_best_and_asks_a_human() {
    let t = tempfile::tempdir().unwrap();
    // Two attempts only: coder-1's best is its first (2 of 3), after a reverted regression.
    let (run, o) = run(t.path(), "repair", |c| {
        c.replace("max_attempts = 4", "max_attempts = 2")
    });
    assert_eq!(o.status.code(), Some(1), "{}", describe(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("acceptance tests still fail"),
        "{}",
        describe(&o)
    );
    let s = summary(&run);
    assert_eq!(s["repair"]["coders"]["coder-1"]["shipped"], 1);
    let shipped = std::fs::read_to_string(run.join("implementations/coder-1/solution.py")).unwrap();
    assert!(
        shipped.contains("not a triangle"),
        "the best attempt ships: {shipped}"
    );
}

#[test]
fn debate_keeps_discriminating_tests_and_refinements_that_do_not_regress() {
    let t = tempfile::tempdir().unwrap();
    let (run, o) = run(t.path(), "debate", |c| c);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let j = journal(&run);
    let tests: Vec<(String, bool, Vec<String>)> = j
        .iter()
        .filter(|r| r["event"] == "debate_test")
        .map(|r| {
            (
                r["test"].as_str().unwrap().to_string(),
                r["kept"].as_bool().unwrap(),
                r["failed_by"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect();
    // Epoch 1: coder-1's test breaks coder-2; coder-2's breaks nobody; coder-3 wrote none.
    assert!(
        tests.contains(&("coder-1#1".into(), true, vec!["coder-2".into()])),
        "{tests:?}"
    );
    assert!(
        tests.contains(&("coder-2#1".into(), false, vec![])),
        "{tests:?}"
    );
    let no_test = j
        .iter()
        .find(|r| r["event"] == "debate_test" && r["test"] == "coder-3#1")
        .unwrap();
    assert!(no_test["build_error"].as_str().unwrap().contains("no test"));
    // coder-3's refinement in epoch 2 did not parse: it passed fewer tests and was undone.
    assert_eq!(events(&j, "coder-3", "rollback").len(), 1);
    // Each coder saw the others' code, labelled, never its own or their names.
    let prompt = j
        .iter()
        .find(|r| r["lane"] == "coder-2" && r["event"] == "reply" && r["purpose"] == "break")
        .unwrap()["prompt"]
        .as_str()
        .unwrap();
    assert!(prompt.contains("Implementation A") && prompt.contains("Implementation B"));
    assert!(!prompt.contains("coder-"), "{prompt}");
    let s = stop(&j);
    assert_eq!(s["reason"], "debated");
    assert_eq!(s["winner"], "coder-1");
    assert!(
        s["tie_break"]
            .as_str()
            .unwrap()
            .contains("agent order (coder-1, coder-2 and coder-3 pass as many"),
        "{s}"
    );
    let summary = summary(&run);
    assert_eq!(summary["suite"].as_array().unwrap().len(), 3);
    assert_eq!(summary["debate"]["epochs"].as_array().unwrap().len(), 3);
    replays(&run);
}

#[test]
fn debate_stops_when_no_test_breaks_anything_or_nothing_improves() {
    // One epoch only: the debate stops at max_epochs with coder-1 ahead (no tie).
    let t = tempfile::tempdir().unwrap();
    let (dir, o) = run(t.path(), "debate", |c| {
        c.replace("max_epochs = 3", "max_epochs = 1")
    });
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let j = journal(&dir);
    let s = stop(&j);
    assert_eq!(s["why"], "max_epochs reached", "{s}");
    assert_eq!(s["standings"][0]["coder"], "coder-1");
    assert!(s["tie_break"].is_null() || s["tie_break"].as_str().unwrap().contains("order"));
    // early_stop = 1: epoch 1 improves nobody's standing... coder-2's refinement is no better,
    // so the debate stops after it.
    let t = tempfile::tempdir().unwrap();
    let (dir, _) = run(t.path(), "debate", |c| {
        c.replace("early_stop = 2", "early_stop = 1")
    });
    let s = stop(&journal(&dir)).clone();
    assert_eq!(s["why"], "1 epochs without improvement", "{s}");
    // A coder that writes only tests everyone passes: no new breaking test.
    let t = tempfile::tempdir().unwrap();
    let p = triangle(t.path(), |c| c);
    let script = p.join("scripts/debate.toml");
    let text = std::fs::read_to_string(&script).unwrap().replace(
        "assert triangle(3, 2, 2) == \"isosceles\"",
        "assert triangle(5, 5, 5) == \"equilateral\"",
    );
    std::fs::write(&script, text).unwrap();
    let o = dixit(
        &["run", p.to_str().unwrap(), "--protocol", "debate"],
        t.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let s = stop(&journal(&the_run(&p))).clone();
    assert_eq!(s["why"], "no new breaking test", "{s}");
}

#[test]
fn blind_answers_pass_or_fail_only_and_never_leaks_a_hidden_byte() {
    let t = tempfile::tempdir().unwrap();
    let (run, o) = run(t.path(), "blind", |c| c);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let j = journal(&run);
    // Coders verify concurrently, so lanes interleave in the journal; each lane keeps its order.
    let mut checks: Vec<(String, bool)> = j
        .iter()
        .filter(|r| r["event"] == "blind_checked")
        .map(|r| {
            (
                r["lane"].as_str().unwrap().to_string(),
                r["passed"].as_bool().unwrap(),
            )
        })
        .collect();
    checks.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        checks,
        [
            ("coder-1".to_string(), true),
            ("coder-2".to_string(), false),
            ("coder-2".to_string(), true)
        ]
    );
    let categories: Vec<String> = events(&j, "coder-1", "self_tests")[0]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["category"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(categories, ["happy_path", "edge_case", "invalid_input"]);
    // Full feedback on its own tests: the fix prompt shows the failing test's output.
    let fix = j
        .iter()
        .find(|r| r["lane"] == "coder-1" && r["event"] == "reply" && r["purpose"] == "fix")
        .unwrap()["prompt"]
        .as_str()
        .unwrap();
    assert!(fix.contains("must raise ValueError"), "{fix}");
    // No byte of a hidden test reaches any prompt: every line of the hidden suite (but imports
    // and comments) is absent from every message an agent received.
    let hidden =
        std::fs::read_to_string(fixture("projects/triangle/hidden/test_hidden.py")).unwrap();
    let lines: Vec<&str> = hidden
        .lines()
        .map(str::trim)
        .filter(|l| {
            l.len() >= 8
                && !l.starts_with('#')
                && !l.starts_with("from ")
                && !l.starts_with("import ")
        })
        .collect();
    assert!(lines.len() >= 5);
    let mut messages = 0;
    for agent in std::fs::read_dir(run.join("agents")).unwrap() {
        let transcript =
            std::fs::read_to_string(agent.unwrap().path().join("transcript.jsonl")).unwrap();
        for m in transcript.lines() {
            let m: Value = serde_json::from_str(m).unwrap();
            if m["role"] == "assistant" {
                continue;
            }
            messages += 1;
            let content = m["content"].as_str().unwrap();
            for l in &lines {
                assert!(!content.contains(l), "a hidden line reached a prompt: {l}");
            }
            for word in ["hidden", "test_hidden"] {
                assert!(!content.contains(word), "{content}");
            }
        }
    }
    assert!(messages > 5);
    let s = summary(&run);
    assert_eq!(
        s["blind"]["coders"]["coder-2"]["blind"],
        serde_json::json!([false, true])
    );
    replays(&run);
}

#[test]
fn blind_that_fails_its_last_check_asks_a_human() {
    let t = tempfile::tempdir().unwrap();
    let (run, o) = run(t.path(), "blind", |c| {
        c.replace("max_blind_attempts = 2", "max_blind_attempts = 1")
    });
    assert_eq!(o.status.code(), Some(1), "{}", describe(&o));
    let s = stop(&journal(&run)).clone();
    assert_eq!(s["reason"], "verified");
    assert_eq!(s["failed"], serde_json::json!(["coder-2"]));
}

/// Every prompt each protocol sent keeps its policy: dixit and blind never reveal other agents
/// or a contest; debate shows other implementations by design but never keeps score aloud.
#[test]
fn each_protocol_keeps_its_words() {
    for protocol in ["debate", "repair", "blind", "codet"] {
        let t = tempfile::tempdir().unwrap();
        let (run, _) = run(t.path(), protocol, |c| c);
        let forbidden = dixit::protocol::get(protocol).unwrap().forbidden();
        for agent in std::fs::read_dir(run.join("agents")).unwrap() {
            let transcript =
                std::fs::read_to_string(agent.unwrap().path().join("transcript.jsonl")).unwrap();
            for m in transcript.lines() {
                let m: Value = serde_json::from_str(m).unwrap();
                if m["role"] == "assistant" {
                    continue;
                }
                let bad = dixit::engine::forbidden_words(m["content"].as_str().unwrap(), forbidden);
                assert!(bad.is_empty(), "{protocol}: {bad:?} in {}", m["content"]);
            }
        }
    }
}

/// Slow scripted replies, so a kill lands mid-run.
fn slow(project: &Path, protocol: &str) {
    let p = project.join(format!("scripts/{protocol}.toml"));
    let s = std::fs::read_to_string(&p)
        .unwrap()
        .replace("text = '''", "delay_ms = 40\ntext = '''");
    std::fs::write(p, s).unwrap();
}

#[test]
fn every_protocol_resumes_after_kill_9_to_the_same_state() {
    for protocol in ["debate", "repair", "blind", "codet"] {
        let base = tempfile::tempdir().unwrap();
        let (run, o) = run(base.path(), protocol, |c| c);
        assert!(o.status.code().is_some(), "{}", describe(&o));
        let expected = final_state(&run);
        let lines = journal(&run).len();
        for kill_at in [lines / 4, lines / 2] {
            let t = tempfile::tempdir().unwrap();
            let p = triangle(t.path(), |c| c);
            slow(&p, protocol);
            let mut child = Command::new(env!("CARGO_BIN_EXE_dixit"))
                .args(["run", p.to_str().unwrap(), "--protocol", protocol, "-q"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            let journal_lines = || {
                std::fs::read_dir(p.join("runs"))
                    .ok()
                    .and_then(|mut d| d.next())
                    .and_then(|e| {
                        std::fs::read_to_string(e.ok()?.path().join("journal.jsonl")).ok()
                    })
                    .map(|s| s.lines().count())
                    .unwrap_or(0)
            };
            let started = std::time::Instant::now();
            while journal_lines() < kill_at
                && started.elapsed() < std::time::Duration::from_secs(60)
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            child.kill().unwrap();
            child.wait().unwrap();
            let killed = the_run(&p);
            assert!(
                killed_journal(&killed).iter().all(|r| r["event"] != "stop"),
                "{protocol}: killed before the end (at {kill_at} of {lines} lines)"
            );
            let id = killed.file_name().unwrap().to_string_lossy().into_owned();
            let o = dixit(
                &["run", p.to_str().unwrap(), "--resume", &id, "-q"],
                t.path(),
            );
            assert_eq!(o.status.code(), Some(0), "{protocol}: {}", describe(&o));
            assert_eq!(
                final_state(&killed),
                expected,
                "{protocol}: killed at {kill_at}"
            );
            replays(&killed);
        }
    }
}

/// `dixit compare` runs each protocol on each project (ordinary run directories) and prints one
/// table; its shards, merged, give the same cells.
#[test]
fn compare_tabulates_every_protocol_and_its_shards_merge() {
    let t = tempfile::tempdir().unwrap();
    let p = triangle(t.path(), |c| c);
    let out = t.path().join("runs");
    let o = dixit(
        &[
            "compare",
            p.to_str().unwrap(),
            "--runs-dir",
            out.to_str().unwrap(),
        ],
        t.path(),
    );
    assert!(o.status.success(), "{}", describe(&o));
    let table = String::from_utf8_lossy(&o.stdout).into_owned();
    // The table's rows with their columns' spacing squeezed.
    let rows: Vec<String> = table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    for protocol in ["dixit", "debate", "repair", "blind", "single", "codet"] {
        assert!(
            rows.iter()
                .any(|r| r.starts_with(&format!("triangle {protocol} "))),
            "{table}"
        );
    }
    // CodeT's columns count the one implementation it ships (coder-3, right), not the two
    // wrong ones it did not: five calls.
    assert!(
        rows.iter()
            .any(|r| r.starts_with("triangle codet coder-3 ✓ 1/1 100 % 1/1 5 ")),
        "{table}"
    );
    // The control: one answer, and it fails the hidden test the others pass.
    assert!(
        rows.iter()
            .any(|r| r.starts_with("triangle single coder-1 ✗ 0/1 0 % 0/1 1 ")),
        "{table}"
    );
    assert!(table.contains("totals per protocol"), "{table}");
    // Each protocol against the control on the one problem: they pass where single fails.
    for protocol in ["dixit", "debate", "repair", "blind", "codet"] {
        assert!(
            rows.iter().any(|r| r.starts_with(&format!(
                "{protocol} 1 +100 pts (too few for an interval) 1 0 1.000"
            ))),
            "{table}"
        );
    }
    // Six run directories, each replayable, each named below the table.
    let runs: Vec<PathBuf> = std::fs::read_dir(out.join("triangle"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 6);
    for run in &runs {
        assert!(table.contains(run.to_str().unwrap()), "{table}");
    }
    replays(&runs[0]);

    let whole = dixit(
        &[
            "compare",
            p.to_str().unwrap(),
            "--json",
            "--runs-dir",
            out.to_str().unwrap(),
        ],
        t.path(),
    );
    // What each shipped implementation rests on: single had one; CodeT's test cases separated
    // coder-3 from the two wrong ones; dixit's ship strategy says what it read.
    let v: Value = serde_json::from_slice(&whole.stdout).unwrap();
    let decision = |protocol: &str| {
        v["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["protocol"] == protocol)
            .unwrap()["result"]["decision"]
            .clone()
    };
    assert_eq!(decision("single")["basis"], "only", "{v}");
    assert_eq!(decision("codet")["rule"], "dual_agreement", "{v}");
    assert_eq!(decision("codet")["basis"], "tests", "{v}");
    let dixit_decision = decision("dixit");
    assert!(
        dixit_decision["words"]
            .as_str()
            .is_some_and(|w| w.contains("picked by") && w.contains("reading")),
        "{v}"
    );
    let mut shards = Vec::new();
    for s in ["1/3", "2/3", "3/3"] {
        let o = dixit(
            &[
                "compare",
                p.to_str().unwrap(),
                "--json",
                "--shard",
                s,
                "--runs-dir",
                out.to_str().unwrap(),
            ],
            t.path(),
        );
        assert!(o.status.success(), "{}", describe(&o));
        let f = t.path().join(format!("shard-{}.json", &s[..1]));
        std::fs::write(&f, &o.stdout).unwrap();
        shards.push(f.display().to_string());
    }
    let mut args = vec!["compare", "--json", "--merge"];
    args.extend(shards.iter().map(String::as_str));
    let merged = dixit(&args, t.path());
    assert!(merged.status.success(), "{}", describe(&merged));
    let comparable = |o: &Output| -> Vec<Value> {
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
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
    assert_eq!(comparable(&whole), comparable(&merged));
    // A missing shard is named.
    let o = dixit(&["compare", "--merge", &shards[0], &shards[1]], t.path());
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("is missing"),
        "{}",
        describe(&o)
    );
}

/// Issue 36: a comparison under `--policy majority` needs no person: every cell of the protocols
/// that stop for one (dixit, repair, blind, debate) ends done, each decision journaled as the
/// policy's; every cell records the policy among its settings, and each run replays.
#[test]
fn a_comparison_under_a_policy_stops_for_no_person() {
    let t = tempfile::tempdir().unwrap();
    let p = triangle(t.path(), |c| c);
    let out = t.path().join("runs");
    let o = dixit(
        &[
            "compare",
            p.to_str().unwrap(),
            "--protocols",
            "dixit,repair,blind,debate",
            "--policy",
            "majority",
            "--json",
            "--runs-dir",
            out.to_str().unwrap(),
        ],
        t.path(),
    );
    assert!(o.status.success(), "{}", describe(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4);
    for c in cells {
        let r = &c["result"];
        assert_ne!(r["exit"], "human_needed", "{c:#}");
        assert!(
            r["settings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| l == "[policy] name = majority"),
            "{c:#}"
        );
        let run = PathBuf::from(r["run_dir"].as_str().unwrap());
        for d in journal(&run).iter().filter(|e| e["event"] == "decision") {
            assert_eq!(d["by"], "policy majority", "{d}");
        }
        replays(&run);
    }
}

/// `single`, the control: one coder asked once, no feedback, no tests; the run ships its answer
/// (`finished`), the hidden test judges it, and the run replays.
#[test]
fn single_asks_once_and_ships_the_answer() {
    let t = tempfile::tempdir().unwrap();
    let (run, o) = run(t.path(), "single", |c| c);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("(single): finished"), "{}", describe(&o));
    let j = journal(&run);
    let replies = events(&j, "coder-1", "reply");
    assert_eq!(replies.len(), 1, "asked exactly once");
    assert_eq!(replies[0]["purpose"], "solve");
    assert!(
        events(&j, "coder-1", "judged").is_empty(),
        "no test is run for it"
    );
    let started = events(&j, "run", "started");
    assert_eq!(started[0]["coders"], serde_json::json!(["coder-1"]));
    assert!(started[0]["testers"].as_array().unwrap().is_empty());
    let hidden = events(&j, "coder-1", "hidden");
    assert_eq!(
        (hidden[0]["passed"].as_u64(), hidden[0]["total"].as_u64()),
        (Some(0), Some(1))
    );
    let stop = j.iter().find(|e| e["event"] == "stop").unwrap();
    assert_eq!(stop["reason"], "finished");
    assert!(run.join("report.html").is_file());
    replays(&run);
    // Its table takes no key.
    let x = t.path().join("x");
    let p = triangle(&x, |c| format!("{c}\n[single]\ncoders = 2\n"));
    let o = dixit(&["run", p.to_str().unwrap(), "--protocol", "single"], &x);
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("coders"),
        "{}",
        describe(&o)
    );
}

/// A repair whose every attempt is a syntax error, reviewed as clean, is not green and says
/// so, and its code is shown whole.
#[test]
fn repair_whose_attempts_never_run_says_so() {
    let t = tempfile::tempdir().unwrap();
    let p = triangle(t.path(), |c| c);
    let broken = "def triangle(a, b, c):\n    if a == b == c\n        return \"equilateral\"";
    let right = "def triangle(a, b, c):\n    x, y, z = sorted((a, b, c))\n    if x <= 0 or x + y <= z:\n        raise ValueError(\"not a triangle\")\n    return {1: \"equilateral\", 2: \"isosceles\"}.get(len({a, b, c}), \"scalene\")";
    let reply = |agent: &str, text: &str| format!("[[{agent}]]\ntext = '''\n{text}\n'''\n\n");
    let code = |agent: &str, c: &str| reply(agent, &format!("```python\n{c}\n```"));
    let mut script = code("coder-1", broken);
    script += &reply("reviewer-1", "CLEAN");
    script += &code("coder-2", right);
    script += &reply("reviewer-2", "CLEAN");
    for _ in 0..3 {
        script += &code("coder-1", broken);
    }
    std::fs::write(p.join("scripts/repair.toml"), script).unwrap();
    let o = dixit(
        &["run", p.to_str().unwrap(), "--protocol", "repair"],
        t.path(),
    );
    assert_eq!(o.status.code(), Some(1), "{}", describe(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("but: ")
            && out.contains(
                "no attempt of coder-1's ran: every acceptance test errors in all 4 attempts"
            )
            && out.contains("though its review called the first clean"),
        "{out}"
    );
    let page = std::fs::read_to_string(the_run(&p).join("report.html")).unwrap();
    assert!(
        page.contains("No attempt of coder-1 ran at all"),
        "the page says it"
    );
    assert!(!page.contains("dx-lead dx-good"), "not green");
}

/// The cells of a compare report without what varies between two comparisons (run ids and
/// folders, wall time).
fn cells_without_times(report: &Value) -> Vec<Value> {
    report["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let mut c = c.clone();
            for k in ["run_id", "run_dir", "seconds"] {
                c["result"].as_object_mut().unwrap().remove(k);
            }
            c
        })
        .collect()
}

/// `--sample 3 --seed 5` of four projects, two cells at a time, killed with SIGKILL once some
/// cells have finished and run again: the finished cells are reused (not run again) and the
/// result is the uninterrupted comparison's.
#[test]
fn a_sampled_concurrent_comparison_killed_and_run_again_ends_as_an_uninterrupted_one() {
    let make = |dir: &Path, delay: bool| -> Vec<PathBuf> {
        (1..=4)
            .map(|k| {
                let p = triangle(&dir.join(format!("src{k}")), |c| c);
                let to = dir.join(format!("tri{k}"));
                std::fs::rename(&p, &to).unwrap();
                if delay {
                    for f in std::fs::read_dir(to.join("scripts")).unwrap() {
                        let f = f.unwrap().path();
                        let s = std::fs::read_to_string(&f)
                            .unwrap()
                            .replace("text = ", "delay_ms = 60\ntext = ");
                        std::fs::write(&f, s).unwrap();
                    }
                }
                to
            })
            .collect()
    };
    let args = |projects: &[PathBuf], out: &Path| -> Vec<String> {
        let mut a = vec!["compare".to_string()];
        a.extend(projects.iter().map(|p| p.display().to_string()));
        a.extend(
            [
                "--protocols",
                "single,dixit,repair",
                "--sample",
                "3",
                "--seed",
                "5",
                "--jobs",
                "2",
                "--json",
                "--out",
            ]
            .map(String::from),
        );
        a.push(out.display().to_string());
        a
    };
    // Uninterrupted.
    let t = tempfile::tempdir().unwrap();
    let projects = make(t.path(), false);
    let out = t.path().join("cmp");
    let a = args(&projects, &out);
    let o = dixit(&a.iter().map(String::as_str).collect::<Vec<_>>(), t.path());
    assert!(o.status.success(), "{}", describe(&o));
    let whole: Value = serde_json::from_slice(&o.stdout).unwrap();
    let sampled: Vec<&str> = whole["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(sampled.len(), 3, "{sampled:?}");
    assert_eq!(whole["cells"].as_array().unwrap().len(), 9);
    assert_eq!(kept_cells(&out), 9, "every finished cell is kept");
    // Every cell that ran carries its protocol's own measures.
    let metric = |c: &Value, name: &str| -> Option<Value> {
        c["result"]["metrics"]
            .as_array()?
            .iter()
            .find(|m| m["name"] == name)
            .cloned()
    };
    for c in whole["cells"].as_array().unwrap() {
        // And says what it ran with: its protocol's table first.
        let protocol = c["protocol"].as_str().unwrap();
        let settings = c["result"]["settings"].as_array().expect("settings");
        assert!(
            settings[0]
                .as_str()
                .unwrap()
                .starts_with(&format!("[{protocol}]")),
            "{c}"
        );
        match c["protocol"].as_str().unwrap() {
            "dixit" => {
                let m = metric(c, "suite size").expect("dixit: suite size");
                assert!(m["value"].as_f64().unwrap() >= 1.0, "{c}");
                let p = metric(c, "admitted tests the hidden-passing implementations pass")
                    .expect("dixit: the band's precision");
                assert!(p["num"].as_u64() <= p["den"].as_u64(), "{p}");
            }
            "repair" => {
                let m = metric(c, "last attempt worse than the best").expect("repair");
                assert_eq!(m["kind"], "flag");
            }
            _ => assert!(c["result"]["metrics"].is_array(), "{c}"),
        }
    }

    // Killed after some cells finished, then run again.
    let t2 = tempfile::tempdir().unwrap();
    let projects = make(t2.path(), true);
    let out2 = t2.path().join("cmp");
    let a = args(&projects, &out2);
    let before = killed_once_kept(&a, t2.path(), &out2, 3, 120);
    assert!(
        (3..9).contains(&before),
        "killed mid-way: {before} cells kept"
    );
    let runs_before = |p: &PathBuf| std::fs::read_dir(p.join("runs")).map_or(0, |d| d.count());
    let runs: usize = projects.iter().map(runs_before).sum();
    // A look while it is stopped (`--kept`): the kept cells, every other one not run yet, a
    // page written; and nothing runs.
    let mut look = a.clone();
    look.push("--kept".into());
    let o = dixit(
        &look.iter().map(String::as_str).collect::<Vec<_>>(),
        t2.path(),
    );
    assert!(o.status.success(), "{}", describe(&o));
    let seen: Value = serde_json::from_slice(&o.stdout).unwrap();
    let cells = seen["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 9, "{seen}");
    let not_yet = cells
        .iter()
        .filter(|c| {
            c["result"]["status"] == "skipped"
                && c["result"]["why"]
                    .as_str()
                    .is_some_and(|w| w.starts_with("not run yet"))
        })
        .count();
    assert_eq!(not_yet, 9 - before, "{seen}");
    assert_eq!(projects.iter().map(runs_before).sum::<usize>(), runs);
    assert!(out2.join("compare.json").is_file() && out2.join("report.html").is_file());
    let o = dixit(&a.iter().map(String::as_str).collect::<Vec<_>>(), t2.path());
    assert!(o.status.success(), "{}", describe(&o));
    let again: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(cells_without_times(&again), cells_without_times(&whole));
    // Only the cells that had not finished ran again (a killed cell leaves its run folder).
    let runs_after: usize = projects.iter().map(runs_before).sum();
    assert!(
        runs_after - runs <= 9 - before,
        "{runs} runs before, {runs_after} after, {before} cells kept"
    );

    // Fewer protocols in the same folder: their cells are found by name, none runs again.
    let mut fewer = a.clone();
    let at = fewer
        .iter()
        .position(|x| x == "single,dixit,repair")
        .unwrap();
    fewer[at] = "repair,single".into();
    let o = dixit(
        &fewer.iter().map(String::as_str).collect::<Vec<_>>(),
        t2.path(),
    );
    assert!(o.status.success(), "{}", describe(&o));
    assert_eq!(projects.iter().map(runs_before).sum::<usize>(), runs_after);
    let some: Value = serde_json::from_slice(&o.stdout).unwrap();
    let cells = some["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6);
    assert_eq!(
        cells
            .iter()
            .map(|c| c["index"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        (0..6).collect::<Vec<_>>(),
        "a reused cell takes its place in this plan"
    );
}

/// Runs `dixit ARGS` in `cwd`, kills it with SIGKILL once `--out DIR` (`out`) keeps `at_least`
/// cells (or after `within_s` seconds), and returns how many cells it kept.
fn killed_once_kept(
    args: &[String],
    cwd: &Path,
    out: &Path,
    at_least: usize,
    within_s: u64,
) -> usize {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dixit"))
        .args(args)
        .current_dir(cwd)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while kept_cells(out) < at_least && started.elapsed() < std::time::Duration::from_secs(within_s)
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    kept_cells(out)
}

/// Kept cells under `--out DIR` (`DIR/cells/<protocol>/<project>.json`; not the temporary file
/// of one being written).
fn kept_cells(out: &Path) -> usize {
    let Ok(protocols) = std::fs::read_dir(out.join("cells")) else {
        return 0;
    };
    protocols
        .filter_map(|d| std::fs::read_dir(d.ok()?.path()).ok())
        .flatten()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".json"))
        })
        .count()
}

/// `codet` (CodeT's dual agreement): three coders answer once, two testers write tests once.
/// coder-1 and coder-2 agree with each other and are wrong; coder-3 alone is right and passes
/// more of the testers' cases (tester-1's block split at its three asserts; tester-2's first
/// three blocks, the fourth beyond the limit), so dual agreement ships coder-3: green, though
/// two of three implementations fail the hidden test. No agent hears of another, coders never
/// see a test and testers never a solution; the run replays and its page renders.
#[test]
fn codet_ships_the_minority_that_the_tests_agree_with() {
    let t = tempfile::tempdir().unwrap();
    let (run, o) = run(t.path(), "codet", |c| c);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("(codet): coder-3 shipped: dual agreement (coder-3 passes 6 of 6 test cases: score 6 × √1 = 6.00; next, coder-1 and coder-2: score 4 × √2 = 5.66)"),
        "{}",
        describe(&o)
    );
    // Only the shipped implementation's hidden result counts: no doubt about the other two.
    assert!(!stdout.contains("but: "), "{}", describe(&o));
    let j = journal(&run);
    for agent in ["coder-1", "coder-2", "coder-3", "tester-1", "tester-2"] {
        assert_eq!(events(&j, agent, "reply").len(), 1, "{agent} is asked once");
    }
    let cases = |tester: &str| -> Vec<(String, u64)> {
        events(&j, tester, "test_cases")[0]["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["id"].as_str().unwrap().to_string(),
                    c["number"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        cases("tester-1"),
        [
            ("tester-1#0.1.1".to_string(), 1),
            ("tester-1#0.1.2".to_string(), 2),
            ("tester-1#0.1.3".to_string(), 3),
        ]
    );
    assert_eq!(
        cases("tester-2"),
        [
            ("tester-2#0.1".to_string(), 4),
            ("tester-2#0.2".to_string(), 5),
            ("tester-2#0.3".to_string(), 6),
        ]
    );
    assert_eq!(events(&j, "tester-2", "test_cases")[0]["beyond_limit"], 1);
    // A split case is its block with the other asserts taken out.
    let suite = &events(&j, "run", "suite_changed")[0]["added"];
    let third = suite[2]["source"].as_str().unwrap();
    assert!(
        third.contains("from solution import triangle")
            && third.contains("assert triangle(2, 3, 3) == \"isosceles\"")
            && !third.contains("equilateral")
            && !third.contains("scalene"),
        "{third}"
    );
    // The matrix: every implementation against every case, in each coder's lane.
    let vector = |coder: &str| events(&j, coder, "judged")[0]["vector"].clone();
    let wrong = serde_json::json!([true, true, false, false, true, true]);
    assert_eq!(vector("coder-1"), wrong);
    assert_eq!(vector("coder-2"), wrong);
    assert_eq!(vector("coder-3"), serde_json::json!(vec![true; 6]));
    let s = stop(&j);
    assert_eq!(s["reason"], "shipped");
    assert_eq!(s["coder"], "coder-3");
    assert_eq!(s["pick"], "agreement");
    assert_eq!(
        s["groups"],
        serde_json::json!([
            {"coders": ["coder-3"], "tests": [1, 2, 3, 4, 5, 6]},
            {"coders": ["coder-1", "coder-2"], "tests": [1, 2, 5, 6]},
        ])
    );
    let sum = summary(&run);
    assert_eq!(sum["codet"]["shipped"], "coder-3");
    assert_eq!(
        sum["coders"]["coder-1"]["hidden"],
        serde_json::json!([0, 1])
    );
    assert_eq!(
        sum["coders"]["coder-3"]["hidden"],
        serde_json::json!([1, 1])
    );
    // Coders never saw a test, testers never a solution.
    for agent in std::fs::read_dir(run.join("agents")).unwrap() {
        let agent = agent.unwrap().path();
        let name = agent.file_name().unwrap().to_string_lossy().into_owned();
        let transcript = std::fs::read_to_string(agent.join("transcript.jsonl")).unwrap();
        let sent: Vec<String> = transcript
            .lines()
            .map(|m| serde_json::from_str::<Value>(m).unwrap())
            .filter(|m| m["role"] != "assistant")
            .map(|m| m["content"].as_str().unwrap().to_string())
            .collect();
        let leak = if name.starts_with("coder") {
            "from solution import"
        } else {
            "def triangle"
        };
        assert!(sent.iter().all(|m| !m.contains(leak)), "{name}: {sent:?}");
    }
    // The page: green, the groups, the shipped coder.
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(page.contains("dx-lead dx-good"), "the headline is green");
    assert!(page.contains("<h2>Dual agreement</h2>") && page.contains("shipped: coder-3"));
    replays(&run);
}

/// CodeT with nothing to agree on: testers whose replies hold no test (no case, no group).
/// The first coder whose code builds ships (what `single` ships when coder-1's builds); the
/// empty suite is said, and the headline is not green.
#[test]
fn codet_without_tests_ships_the_first_coder_that_builds() {
    let t = tempfile::tempdir().unwrap();
    let p = triangle(t.path(), |c| c);
    let script = std::fs::read_to_string(p.join("scripts/codet.toml")).unwrap();
    let coders = &script[..script.find("[[tester-1]]").unwrap()];
    // coder-1's code does not even parse; the testers write prose.
    let coders = coders.replacen("    if a == b:\n", "    if a == b\n", 1);
    let script = format!(
        "{coders}[[tester-1]]\ntext = \"I would test the equilateral case.\"\n\n\
         [[tester-2]]\ntext = \"Nothing to add.\"\n"
    );
    std::fs::write(p.join("scripts/codet.toml"), script).unwrap();
    let o = dixit(
        &["run", p.to_str().unwrap(), "--protocol", "codet"],
        t.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains(
            "(codet): coder-2 shipped: no test case to agree on, so the first coder whose code builds"
        ) && stdout.contains("but: coder-2 fails hidden tests (0/1 pass); the suite is empty"),
        "{}",
        describe(&o)
    );
    let run = the_run(&p);
    let s = stop(&journal(&run)).clone();
    assert_eq!(
        (s["pick"].as_str(), s["tests"].as_u64()),
        (Some("first_that_builds"), Some(0))
    );
    replays(&run);
}

/// A comparison's blind cell measures its own tests against the hidden ones: whether they
/// pass, whether that predicts the hidden verdict, and the share of the hidden tests' calls
/// the own tests also make (observed, not parsed); the text table totals them per protocol.
#[test]
fn a_blind_cell_measures_its_own_tests_against_the_hidden_ones() {
    let t = tempfile::tempdir().unwrap();
    let project = triangle(&t.path().join("tri"), |c| c);
    let o = dixit(
        &[
            "compare",
            project.to_str().unwrap(),
            "--protocols",
            "blind",
            "--json",
        ],
        t.path(),
    );
    assert!(o.status.success(), "{}", describe(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let metrics = r["cells"][0]["result"]["metrics"]
        .as_array()
        .unwrap()
        .clone();
    let get = |name: &str| {
        metrics
            .iter()
            .find(|m| m["name"] == name)
            .unwrap_or_else(|| panic!("{name} not in {metrics:?}"))
            .clone()
    };
    for name in [
        "own tests all pass",
        "hidden tests all pass",
        "hidden tests pass when own tests pass",
        "own verdict agrees with the hidden one",
    ] {
        let m = get(name);
        assert!(m["num"].as_u64() <= m["den"].as_u64(), "{m}");
    }
    let overlap = get("hidden calls the own tests also make");
    assert!(overlap["den"].as_u64().unwrap() > 0, "{overlap}");
    assert!(
        overlap["num"].as_u64() <= overlap["den"].as_u64(),
        "{overlap}"
    );
    let o = dixit(
        &["compare", project.to_str().unwrap(), "--protocols", "blind"],
        t.path(),
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("the seeds' own measures"), "{text}");
    assert!(
        text.contains("hidden calls the own tests also make"),
        "{text}"
    );
}

/// The experiment end to end at a small scale: three HumanEval-format tasks (the triangle spec
/// as a benchmark's record: prompt with examples, `check(candidate)`, a reference) imported
/// with a template whose agents are the triangle's scripted ones, then every protocol compared
/// over them two cells at a time with `--out`, killed with SIGKILL part-way and run again: the
/// same cells as an uninterrupted comparison, every protocol ran on every project (repair on
/// the acceptance tests made from the examples), and the page is written.
#[test]
fn a_comparison_of_imported_projects_under_every_protocol_killed_and_resumed() {
    const PROMPT: &str = "def triangle(a, b, c):\n    \"\"\" Classify a triangle by the lengths of its sides: \"equilateral\" (three equal sides),\n    \"isosceles\" (exactly two) or \"scalene\" (none). The sides are numbers; if any is zero or\n    negative, or the sides cannot form a triangle (one is at least as long as the other two\n    together), raise ValueError.\n    >>> triangle(2, 2, 2)\n    'equilateral'\n    >>> triangle(3, 4, 5)\n    'scalene'\n    >>> triangle(2, 2, 3)\n    'isosceles'\n    \"\"\"\n";
    const REFERENCE: &str = "    if min(a, b, c) <= 0:\n        raise ValueError('sides must be positive')\n    x, y, z = sorted((a, b, c))\n    if x + y <= z:\n        raise ValueError('not a triangle')\n    if a == b == c:\n        return 'equilateral'\n    if a == b or b == c or a == c:\n        return 'isosceles'\n    return 'scalene'\n";
    const CHECK: &str = "\n\ndef check(candidate):\n    assert candidate(7, 7, 7) == 'equilateral'\n    assert candidate(5, 5, 8) == 'isosceles'\n    assert candidate(4, 6, 9) == 'scalene'\n    for sides in [(0, 0, 0), (2, -3, 4), (1, 3, 1)]:\n        try:\n            candidate(*sides)\n        except ValueError:\n            continue\n        raise AssertionError(sides)\n";
    let setup = |dir: &Path, delay: bool| -> Vec<PathBuf> {
        let lines: String = (1..=3)
            .map(|k| {
                format!(
                    "{}\n",
                    serde_json::json!({"task_id": format!("Tri/{k}"), "prompt": PROMPT,
                        "entry_point": "triangle", "canonical_solution": REFERENCE, "test": CHECK})
                )
            })
            .collect();
        let bench = dir.join("tri.jsonl");
        std::fs::write(&bench, lines).unwrap();
        // The triangle fixture's protocol settings and scripted agents, as an import template.
        let template = std::fs::read_to_string(fixture("projects/triangle/dixit.toml"))
            .unwrap()
            .replace("name = \"triangle\"\n", "");
        std::fs::write(dir.join("template.toml"), template).unwrap();
        let o = dixit(
            &[
                "import",
                "humaneval",
                bench.to_str().unwrap(),
                "--template",
                "template.toml",
                "--out",
                "he",
            ],
            dir,
        );
        assert!(o.status.success(), "{}", describe(&o));
        (1..=3)
            .map(|k| {
                let p = dir.join("he").join(format!("Tri_{k}"));
                assert!(
                    p.join("tests").is_dir(),
                    "acceptance tests from the examples"
                );
                let scripts = p.join("scripts");
                std::fs::create_dir_all(&scripts).unwrap();
                for f in std::fs::read_dir(fixture("projects/triangle/scripts")).unwrap() {
                    let f = f.unwrap().path();
                    let mut s = std::fs::read_to_string(&f).unwrap();
                    if delay {
                        s = s.replace("text = ", "delay_ms = 40\ntext = ");
                    }
                    std::fs::write(scripts.join(f.file_name().unwrap()), s).unwrap();
                }
                p
            })
            .collect()
    };
    let args = |projects: &[PathBuf]| -> Vec<String> {
        let mut a = vec!["compare".to_string()];
        a.extend(projects.iter().map(|p| p.display().to_string()));
        a.extend(
            [
                "--protocols",
                "single,codet,dixit,debate,repair,blind",
                "--jobs",
                "2",
                "--json",
                "--out",
                "cmp",
            ]
            .map(String::from),
        );
        a
    };
    let t = tempfile::tempdir().unwrap();
    let projects = setup(t.path(), false);
    let a = args(&projects);
    let o = dixit(&a.iter().map(String::as_str).collect::<Vec<_>>(), t.path());
    assert!(o.status.success(), "{}", describe(&o));
    let whole: Value = serde_json::from_slice(&o.stdout).unwrap();
    let cells = whole["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 18);
    for c in cells {
        assert!(
            c["result"]["run_id"].is_string(),
            "every protocol runs on every imported project: {c}"
        );
        assert!(c["result"]["shipped_passes"].is_boolean(), "{c}");
    }
    assert!(t.path().join("cmp/report.html").is_file());

    let t2 = tempfile::tempdir().unwrap();
    let projects = setup(t2.path(), true);
    let a = args(&projects);
    let out2 = t2.path().join("cmp");
    let before = killed_once_kept(&a, t2.path(), &out2, 5, 180);
    assert!((5..18).contains(&before), "killed mid-way: {before} kept");
    let o = dixit(&a.iter().map(String::as_str).collect::<Vec<_>>(), t2.path());
    assert!(o.status.success(), "{}", describe(&o));
    let again: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(cells_without_times(&again), cells_without_times(&whole));
    assert!(out2.join("report.html").is_file());
}

/// A converged run whose coders disagree ships by evidence: on `fixtures/projects/median`,
/// coder-2 answers one call differently from the two others (and fails the hidden test), and
/// SRank among the IDEAL passers (the default) leaves it out; `max_pass`, which reads no
/// answers, ties all three. The pick is journaled, printed, replayed, and an unknown strategy
/// is refused naming the file and the line.
#[test]
fn a_run_ships_by_the_evidence_of_its_tests_and_answers() {
    let t = tempfile::tempdir().unwrap();
    let ship = |strategy: Option<&str>| {
        let p = t.path().join(strategy.unwrap_or("default"));
        crate::support::copy_tree(&fixture("projects/median"), &p);
        if let Some(s) = strategy {
            let c = std::fs::read_to_string(p.join("dixit.toml")).unwrap();
            let c = c.replace("max_rounds = 4", &format!("max_rounds = 4\nship = \"{s}\""));
            std::fs::write(p.join("dixit.toml"), c).unwrap();
        }
        let o = dixit(&["run", p.to_str().unwrap()], t.path());
        (p, o)
    };
    let (p, o) = ship(None);
    assert!(o.status.success(), "{}", describe(&o));
    let run = the_run(&p);
    let j = journal(&run);
    let shipped = events(&j, "ship", "shipped");
    assert_eq!(shipped.len(), 1, "{shipped:?}");
    assert_eq!(shipped[0]["strategy"], "srank_ideal_passers");
    assert_eq!(
        shipped[0]["tied"],
        serde_json::json!(["coder-1", "coder-3"])
    );
    assert_eq!(shipped[0]["coder"], "coder-1");
    assert!(shipped[0]["calls"].as_u64().unwrap() > 0);
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .contains("ships: coder-1, picked by `srank_ideal_passers`"),
        "{}",
        describe(&o)
    );
    assert_eq!(summary(&run)["shipping"]["coder"], "coder-1");
    replays(&run);

    let (p, o) = ship(Some("max_pass"));
    assert!(o.status.success(), "{}", describe(&o));
    let j = journal(&the_run(&p));
    assert_eq!(
        events(&j, "ship", "shipped")[0]["tied"],
        serde_json::json!(["coder-1", "coder-2", "coder-3"])
    );

    let (_, o) = ship(Some("srank_best"));
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("dixit.toml") && err.contains("line") && err.contains("srank_best"),
        "{err}"
    );
}

/// `[dixit] max_calls` as a comparison's arm (`dixit:max_calls=N`): each capped run makes at
/// most its calls (fixes first, the rest split between the testers), stops `spent` and ships
/// by its evidence; its journal's dixit.toml says the cap, and it replays. Coders whose programs
/// are the same, byte for byte, stop the run at once (`identical`): no test can separate them.
#[test]
fn dixit_under_a_call_cap_stays_within_it_and_replays() {
    let t = tempfile::tempdir().unwrap();
    let p = triangle(t.path(), |c| c);
    let out = t.path().join("runs");
    let o = dixit(
        &[
            "compare",
            p.to_str().unwrap(),
            "--protocols",
            "dixit,dixit:max_calls=4,dixit:max_calls=6",
            "--json",
            "--runs-dir",
            out.to_str().unwrap(),
        ],
        t.path(),
    );
    assert!(o.status.success(), "{}", describe(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let cells = v["cells"].as_array().unwrap();
    let calls: Vec<u64> = cells
        .iter()
        .map(|c| c["result"]["calls"].as_u64().unwrap())
        .collect();
    // Uncapped it makes 12 calls; capped, exactly what the cap allows (it never runs out of
    // questions on this fixture).
    assert_eq!(calls, [12, 4, 6], "{v:#}");
    for (c, cap) in cells[1..].iter().zip(["4", "6"]) {
        let r = &c["result"];
        assert_eq!(c["protocol"], format!("dixit:max_calls={cap}"), "{c:#}");
        assert!(
            r["stop"].as_str().unwrap().starts_with(&format!(
                "spent: the run made the {cap} calls dixit.max_calls allows"
            )),
            "{c:#}"
        );
        assert_eq!(r["exit"], "done", "{c:#}");
        assert!(
            r["settings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| l.as_str().unwrap().contains(&format!("max_calls = {cap}"))),
            "{c:#}"
        );
        let run = PathBuf::from(r["run_dir"].as_str().unwrap());
        let j = journal(&run);
        let config = j[0]["project"]["config"].as_str().unwrap();
        assert!(config.contains(&format!("max_calls = {cap}")), "{config}");
        assert_eq!(stop(&j)["reason"], "spent", "{:#}", stop(&j));
        replays(&run);
    }
    // With 6 calls: 3 solutions, then 2 + 1 proposals (the first tester takes what does not
    // divide).
    let run = PathBuf::from(cells[2]["result"]["run_dir"].as_str().unwrap());
    let j = journal(&run);
    let replies = |lane: &str| events(&j, lane, "reply").len();
    assert_eq!((replies("tester-1"), replies("tester-2")), (2, 1), "{j:#?}");

    // Two coders that write the same program: no call after their solutions.
    let same = t.path().join("same");
    std::fs::create_dir_all(&same).unwrap();
    let p = triangle(&same, |c| c);
    let script = p.join("scripts/dixit.toml");
    let text = std::fs::read_to_string(&script).unwrap();
    let text = text.replacen(
        "    if a == b:\n        return \"isosceles\"",
        "    if a == b or b == c or a == c:\n        return \"isosceles\"",
        1,
    );
    std::fs::write(&script, text).unwrap();
    let o = dixit(
        &[
            "compare",
            p.to_str().unwrap(),
            "--protocols",
            "dixit:coders=2:max_calls=5",
            "--json",
            "--runs-dir",
            out.to_str().unwrap(),
        ],
        t.path(),
    );
    assert!(o.status.success(), "{}", describe(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let r = &v["cells"][0]["result"];
    assert_eq!(r["calls"], 2, "{r:#}");
    assert!(
        r["stop"]
            .as_str()
            .unwrap()
            .starts_with("identical: the coders wrote the same program"),
        "{r:#}"
    );
    replays(&PathBuf::from(r["run_dir"].as_str().unwrap()));

    // Comparisons of the same projects run apart, with no arm in common, merge into one.
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    for (arm, dir) in [("dixit", &a), ("dixit:max_calls=4", &b)] {
        let o = dixit(
            &[
                "compare",
                p.to_str().unwrap(),
                "--protocols",
                arm,
                "--out",
                dir.to_str().unwrap(),
                "--runs-dir",
                out.to_str().unwrap(),
            ],
            t.path(),
        );
        assert!(o.status.success(), "{}", describe(&o));
    }
    let o = dixit(
        &[
            "compare",
            "--merge",
            a.join("compare.json").to_str().unwrap(),
            b.join("compare.json").to_str().unwrap(),
            "--json",
        ],
        t.path(),
    );
    assert!(o.status.success(), "{}", describe(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["protocols"],
        serde_json::json!(["dixit", "dixit:max_calls=4"])
    );
    let arms: Vec<(u64, &str)> = v["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["index"].as_u64().unwrap(),
                c["protocol"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(arms, [(0, "dixit"), (1, "dixit:max_calls=4")]);

    // A cap below the coders' first solutions and a key the table lacks are usage errors
    // before anything runs.
    for (arm, says) in [
        ("dixit:max_calls=3", "3 leaves no call for a tester"),
        ("dixit:max_cals=7", "max_cals"),
        ("dixit:max_calls", "is not KEY=VALUE"),
    ] {
        let o = dixit(
            &["compare", p.to_str().unwrap(), "--protocols", arm],
            t.path(),
        );
        assert_eq!(o.status.code(), Some(2), "{arm}: {}", describe(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(says),
            "{arm}: {}",
            describe(&o)
        );
    }
}
