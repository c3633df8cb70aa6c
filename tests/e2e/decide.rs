//! A person's turn: `dixit decide` at a stop, then `--resume` goes on from the decision, and
//! the run with decisions replays exactly. Scripted agents: coder-2 ignores the spec's `x < 0`
//! rule, so it cannot pass tester-2's test and the run stops for a person.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use std::process::Command;

use super::support::{describe, dixit_at, final_state, journal, the_run, triangle};

const RIGHT: &str = "def f(x):\n    return 2 * x if x >= 0 else 0";
const NEG_BUG: &str = "def f(x):\n    return 2 * x";

fn dixit(dir: &Path, args: &[&str]) -> Output {
    dixit_at(dir, args, &[("USER", "ada")])
}

fn py(agent: &str, code: &str) -> String {
    format!("[[{agent}]]\ntext = '''\n```python\n{code}\n```\n'''\n\n")
}

/// The project: three coders (coder-2 wrong for x < 0), two testers.
fn project(dir: &Path, max_rounds: u32) {
    let t = |body: &str| format!("from solution import f\n{body}");
    let mut s = vec![
        py("coder-1", RIGHT),
        py(
            "coder-3",
            "def f(x):\n    return 2 * x + (1 if x == 7 else 0) if x >= 0 else 0",
        ),
        py("coder-3", RIGHT),
        py("tester-1", &t("assert f(7) == 14")),
        py("tester-2", &t("assert f(-2) == 0")),
        py("tester-1", &t("assert f(1) == 2")),
        py("tester-1", &t("assert f(2) == 4")),
        py("tester-2", &t("assert f(3) == 6")),
        py("tester-2", &t("assert f(4) == 8")),
    ];
    s.extend(std::iter::repeat_n(py("coder-2", NEG_BUG), 3));
    std::fs::write(dir.join("script.toml"), s.concat()).unwrap();
    std::fs::write(
        dir.join("dixit.toml"),
        format!("[project]\nlanguage = \"python\"\n[protocol]\ncoders = 3\ntesters = 2\nmax_rounds = {max_rounds}\nmax_tester_retries = 1\nmax_coder_retries = 2\n[agents]\nbackend = \"script\"\nscript = \"script.toml\"\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("spec.md"),
        "Write `f(x)` in `solution.py`: for x >= 0 it returns 2*x; for x < 0 it returns 0.\n",
    )
    .unwrap();
}

fn last_stop(j: &[Value]) -> Value {
    j.iter()
        .rev()
        .find(|r| r["event"] == "stop")
        .cloned()
        .expect("a stop")
}

/// Runs the project to its stop for a person and returns the run directory and its id.
fn stopped(dir: &Path, max_rounds: u32) -> (std::path::PathBuf, String) {
    project(dir, max_rounds);
    let o = dixit(dir, &["run", "."]);
    assert!(
        !o.status.success(),
        "the run stops for a person: {}",
        describe(&o)
    );
    let run = the_run(dir);
    let id = run.file_name().unwrap().to_string_lossy().into_owned();
    (run, id)
}

fn replays(dir: &Path, id: &str) {
    let o = dixit(dir, &["replay", id]);
    assert!(o.status.success(), "replay: {}", describe(&o));
}

#[test]
fn the_stop_offers_its_choices_as_commands() {
    let t = tempfile::tempdir().unwrap();
    project(t.path(), 3);
    let o = dixit(t.path(), &["run", "."]);
    assert_eq!(o.status.code(), Some(1), "{}", describe(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for c in ["drop-test 2", "leave-behind coder-2", "accept"] {
        assert!(
            out.contains("dixit decide ") && out.contains(c),
            "{c}: {out}"
        );
    }
    let page = std::fs::read_to_string(the_run(t.path()).join("report.html")).unwrap();
    assert!(
        page.contains("id=\"dx-choices\""),
        "the page offers the choices"
    );
    assert!(page.contains("leave-behind coder-2"));
}

#[test]
fn a_coder_left_behind_and_the_rest_converge() {
    let t = tempfile::tempdir().unwrap();
    let (run, id) = stopped(t.path(), 3);
    let o = dixit(
        t.path(),
        &[
            "decide",
            &id,
            "leave-behind",
            "coder-2",
            "--why",
            "it ignores x < 0",
        ],
    );
    assert!(o.status.success(), "{}", describe(&o));
    let o = dixit(t.path(), &["run", ".", "--resume", &id]);
    assert!(o.status.success(), "{}", describe(&o));
    let j = journal(&run);
    assert_eq!(last_stop(&j)["reason"], "converged");
    let d: Vec<&Value> = j.iter().filter(|r| r["event"] == "decision").collect();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0]["lane"], "person");
    assert_eq!(d[0]["choice"], "leave_behind");
    assert_eq!(d[0]["coder"], "coder-2");
    assert_eq!(d[0]["why"], "it ignores x < 0");
    assert_eq!(d[0]["by"], "ada");
    // coder-2 took no further part: no reply of its after the decision.
    let at = j.iter().position(|r| r["event"] == "decision").unwrap();
    assert!(!j[at..]
        .iter()
        .any(|r| r["lane"] == "coder-2" && r["event"] == "reply"));
    // Its last implementation stays in the record, and the summary says it was left behind.
    assert!(run.join("implementations/coder-2/solution.py").is_file());
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["left_behind"], serde_json::json!(["coder-2"]));
    // The classifications after the decision name the coders that remain.
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        !page.contains("solution 1"),
        "the smaller pool is named, not numbered"
    );
    replays(t.path(), &id);
}

/// Issue 36: the command `dixit decide` offers for going on runs as printed (it names the
/// project's folder, not a placeholder), and a run whose decision no run has met yet replays
/// up to the stop it was decided at.
#[test]
fn the_printed_resume_runs_as_printed_and_a_pending_decision_replays_to_its_stop() {
    let t = tempfile::tempdir().unwrap();
    let (run, id) = stopped(t.path(), 3);
    let o = dixit(
        t.path(),
        &[
            "decide",
            &id,
            "leave-behind",
            "coder-2",
            "--why",
            "it ignores x < 0",
        ],
    );
    assert!(o.status.success(), "{}", describe(&o));
    let printed = String::from_utf8_lossy(&o.stdout).to_string();
    let cmd = printed
        .lines()
        .find_map(|l| l.strip_prefix("continue with: "))
        .unwrap_or_else(|| panic!("no command in: {printed}"))
        .to_string();
    assert!(!cmd.contains("PROJECT"), "{cmd}");
    // Deciding again before going on is refused, naming the same command.
    let again = dixit(t.path(), &["decide", &id, "accept", "--why", "x"]);
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains(&cmd),
        "{}",
        describe(&again)
    );
    // Replayed before anyone went on: the recording up to the stop, then the stop again.
    replays(t.path(), &id);
    // The printed command, word for word, from the folder `dixit decide` ran in.
    let args: Vec<&str> = cmd.split(' ').skip(1).collect();
    let o = dixit(t.path(), &args);
    assert!(o.status.success(), "{cmd}: {}", describe(&o));
    assert_eq!(last_stop(&journal(&run))["reason"], "converged");
    replays(t.path(), &id);
}

#[test]
fn a_wrong_test_dropped_and_the_run_converges_without_it() {
    let t = tempfile::tempdir().unwrap();
    let (run, id) = stopped(t.path(), 3);
    let o = dixit(
        t.path(),
        &[
            "decide",
            &id,
            "drop-test",
            "2",
            "--why",
            "x < 0 is out of scope",
        ],
    );
    assert!(o.status.success(), "{}", describe(&o));
    let o = dixit(t.path(), &["run", ".", "--resume", &id]);
    assert!(o.status.success(), "{}", describe(&o));
    let j = journal(&run);
    assert_eq!(last_stop(&j)["reason"], "converged");
    assert!(j
        .iter()
        .any(|r| r["event"] == "suite_changed" && r["removed"] == serde_json::json!([2])));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    let numbers: Vec<u64> = summary["suite"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [1], "test 2 left the suite; numbers are kept");
    replays(t.path(), &id);
}

#[test]
fn accepting_ends_the_run_and_it_cannot_be_resumed() {
    let t = tempfile::tempdir().unwrap();
    let (run, id) = stopped(t.path(), 3);
    let o = dixit(t.path(), &["decide", &id, "accept", "--why", "good enough"]);
    assert!(o.status.success(), "{}", describe(&o));
    let j = journal(&run);
    let s = last_stop(&j);
    assert_eq!(s["reason"], "accepted");
    assert_eq!(s["by"], "ada");
    let o = dixit(t.path(), &["run", ".", "--resume", &id]);
    assert!(!o.status.success());
    assert!(
        describe(&o).contains("nothing to resume"),
        "{}",
        describe(&o)
    );
    let o = dixit(t.path(), &["decide", &id, "accept", "--why", "again"]);
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    replays(t.path(), &id);
}

#[test]
fn more_rounds_after_the_round_cap() {
    let t = tempfile::tempdir().unwrap();
    let (run, id) = stopped(t.path(), 1);
    assert_eq!(last_stop(&journal(&run))["reason"], "round_cap");
    let o = dixit(
        t.path(),
        &[
            "decide",
            &id,
            "raise",
            "dixit.max_rounds=3",
            "--why",
            "more room",
        ],
    );
    assert!(o.status.success(), "{}", describe(&o));
    let o = dixit(t.path(), &["run", ".", "--resume", &id]);
    assert_eq!(o.status.code(), Some(1), "{}", describe(&o));
    assert_eq!(last_stop(&journal(&run))["reason"], "human_needed");
    replays(t.path(), &id);
    // And on from there: coder-2 left behind.
    let o = dixit(
        t.path(),
        &[
            "decide",
            &id,
            "leave-behind",
            "coder-2",
            "--why",
            "wrong for x < 0",
        ],
    );
    assert!(o.status.success(), "{}", describe(&o));
    let o = dixit(t.path(), &["run", ".", "--resume", &id]);
    assert!(o.status.success(), "{}", describe(&o));
    assert_eq!(last_stop(&journal(&run))["reason"], "converged");
    replays(t.path(), &id);
}

#[test]
fn a_choice_the_stop_does_not_offer_is_refused_with_the_choices() {
    let t = tempfile::tempdir().unwrap();
    let (_, id) = stopped(t.path(), 3);
    let o = dixit(t.path(), &["decide", &id, "drop-test", "1", "--why", "x"]);
    assert_eq!(o.status.code(), Some(2));
    let e = describe(&o);
    assert!(
        e.contains("`drop-test 1` is not a choice") && e.contains("leave-behind coder-2"),
        "{e}"
    );
    let o = dixit(t.path(), &["decide", &id, "accept"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(describe(&o).contains("why"), "{}", describe(&o));
    let o = dixit(
        t.path(),
        &["decide", &id, "raise", "dixit.max_rounds=9", "--why", "x"],
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "raise is for caps: {}",
        describe(&o)
    );
    // Two coders must remain for the band to mean anything.
    let o = dixit(
        t.path(),
        &["decide", &id, "leave-behind", "coder-2", "--why", "x"],
    );
    assert!(o.status.success());
    let o = dixit(t.path(), &["decide", &id, "accept", "--why", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        describe(&o).contains("already recorded"),
        "{}",
        describe(&o)
    );
}

/// Repair and blind give more attempts, debate more epochs: the run goes on from the stop and
/// ends where a run with the larger limit from the start ends; accepting ends it as accepted.
#[test]
fn repair_blind_and_debate_go_on_with_more_room_or_are_accepted() {
    let cases = [
        (
            "repair",
            "max_attempts = 4",
            "max_attempts = 2",
            "repair.max_attempts=4",
        ),
        (
            "blind",
            "max_blind_attempts = 2",
            "max_blind_attempts = 1",
            "blind.max_blind_attempts=2",
        ),
        (
            "debate",
            "max_epochs = 3",
            "max_epochs = 1",
            "debate.max_epochs=3",
        ),
    ];
    for (protocol, whole, short, raise) in cases {
        let t = tempfile::tempdir().unwrap();
        let p = triangle(t.path(), |c| c);
        let o = dixit(
            t.path(),
            &["run", p.to_str().unwrap(), "--protocol", protocol],
        );
        assert!(o.status.code().is_some(), "{}", describe(&o));
        let expected = final_state(&the_run(&p));
        for accept in [false, true] {
            let t = tempfile::tempdir().unwrap();
            let p = triangle(t.path(), |c| {
                assert!(c.contains(whole), "{protocol}: {whole}");
                c.replace(whole, short)
            });
            let o = dixit(
                t.path(),
                &["run", p.to_str().unwrap(), "--protocol", protocol],
            );
            let out = String::from_utf8_lossy(&o.stdout).into_owned();
            let run = the_run(&p);
            let id = run.file_name().unwrap().to_string_lossy().into_owned();
            let key = raise.split('=').next().unwrap();
            assert!(
                out.contains(&format!("dixit decide {id} raise {key}=")),
                "{protocol}: the stop offers more room: {out}"
            );
            if accept {
                let o = dixit(&p, &["decide", &id, "accept", "--why", "good enough"]);
                assert!(o.status.success(), "{protocol}: {}", describe(&o));
                assert_eq!(last_stop(&journal(&run))["reason"], "accepted");
                let o = dixit(&p, &["replay", &id]);
                assert!(o.status.success(), "{protocol}: {}", describe(&o));
                continue;
            }
            // Not less than there is: a raise must go above the limit.
            let o = dixit(
                &p,
                &["decide", &id, "raise", &format!("{key}=1"), "--why", "x"],
            );
            assert_eq!(o.status.code(), Some(2), "{protocol}: {}", describe(&o));
            let o = dixit(&p, &["decide", &id, "raise", raise, "--why", "more room"]);
            assert!(o.status.success(), "{protocol}: {}", describe(&o));
            let o = dixit(&p, &["run", ".", "--resume", &id]);
            assert!(o.status.code().is_some(), "{protocol}: {}", describe(&o));
            assert_eq!(final_state(&run), expected, "{protocol}");
            let o = dixit(&p, &["replay", &id]);
            assert!(o.status.success(), "{protocol}: {}", describe(&o));
        }
    }
}

/// A resume after a decision, killed with SIGKILL at two points and resumed again, ends where
/// the uninterrupted resume ends.
#[test]
fn resume_after_a_decision_survives_kill_9() {
    let decided = |dir: &Path, delay: bool| {
        let (run, id) = stopped(dir, 3);
        if delay {
            let script = dir.join("script.toml");
            let s = std::fs::read_to_string(&script)
                .unwrap()
                .replace("text = '''", "delay_ms = 150\ntext = '''");
            std::fs::write(script, s).unwrap();
        }
        let o = dixit(
            dir,
            &["decide", &id, "drop-test", "2", "--why", "out of scope"],
        );
        assert!(o.status.success(), "{}", describe(&o));
        (run, id)
    };
    let t = tempfile::tempdir().unwrap();
    let (run, id) = decided(t.path(), false);
    let o = dixit(t.path(), &["run", ".", "--resume", &id]);
    assert!(o.status.success(), "{}", describe(&o));
    let expected = final_state(&run);
    let decision_at = journal(&run)
        .iter()
        .position(|r| r["event"] == "decision")
        .unwrap();
    for extra in [2, 5] {
        let t = tempfile::tempdir().unwrap();
        let (run, id) = decided(t.path(), true);
        let mut child = Command::new(env!("CARGO_BIN_EXE_dixit"))
            .args(["run", ".", "--resume", &id, "-q"])
            .current_dir(t.path())
            .env("USER", "ada")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let lines = || {
            std::fs::read_to_string(run.join("journal.jsonl"))
                .map(|s| s.lines().count())
                .unwrap_or(0)
        };
        while lines() < decision_at + 1 + extra
            && started.elapsed() < std::time::Duration::from_secs(60)
        {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        // The tail may be a line cut short by the kill.
        let j: Vec<Value> = std::fs::read_to_string(run.join("journal.jsonl"))
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        assert!(
            !j[decision_at..].iter().any(|r| r["event"] == "stop"),
            "killed before the end ({extra} lines after the decision)"
        );
        let o = dixit(t.path(), &["run", ".", "--resume", &id]);
        assert!(o.status.success(), "{}", describe(&o));
        assert_eq!(
            final_state(&run),
            expected,
            "killed {extra} lines after the decision"
        );
        replays(t.path(), &id);
    }
}

/// A project whose run stalls: coder-1 and coder-2 ignore the spec's `x < 0` rule, so both of
/// tester-1's tests of it are TOO_HARD and tester-1 hibernates, while tester-2's proposals are
/// too easy. A second reply is scripted for the coders (right) and the testers (too easy), for
/// the run that goes on.
fn stalled_project(dir: &Path) {
    let t = |body: &str| format!("from solution import f\n{body}");
    let s = [
        py("coder-1", NEG_BUG),
        py("coder-1", RIGHT),
        py("coder-2", NEG_BUG),
        py("coder-2", RIGHT),
        py("coder-3", RIGHT),
        py("tester-1", &t("assert f(-2) == 0")),
        py("tester-1", &t("assert f(-5) == 0")),
        py("tester-1", &t("assert f(3) == 6")),
        py("tester-1", &t("assert f(4) == 8")),
        py("tester-2", &t("assert f(1) == 2")),
        py("tester-2", &t("assert f(2) == 4")),
        py("tester-2", &t("assert f(5) == 10")),
        py("tester-2", &t("assert f(6) == 12")),
    ];
    std::fs::write(dir.join("script.toml"), s.concat()).unwrap();
    std::fs::write(
        dir.join("dixit.toml"),
        "[project]\nlanguage = \"python\"\n[protocol]\ncoders = 3\ntesters = 2\nmax_rounds = 4\nmax_tester_retries = 1\nmax_coder_retries = 2\n[agents]\nbackend = \"script\"\nscript = \"script.toml\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("spec.md"),
        "Write `f(x)` in `solution.py`: for x >= 0 it returns 2*x; for x < 0 it returns 0.\n",
    )
    .unwrap();
}

/// The suite's test numbers and authors in `summary.json`.
fn suite_of(run: &Path) -> Vec<(u64, String)> {
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    summary["suite"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["number"].as_u64().unwrap(),
                t["author"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The stalled run offers to wake tester-1 or discard its tests, and nothing for tester-2.
fn stalled(dir: &Path) -> (std::path::PathBuf, String) {
    stalled_project(dir);
    let o = dixit(dir, &["run", "."]);
    assert_eq!(o.status.code(), Some(1), "{}", describe(&o));
    let run = the_run(dir);
    let id = run.file_name().unwrap().to_string_lossy().into_owned();
    let stop = last_stop(&journal(&run));
    assert_eq!(stop["reason"], "stalled", "{stop}");
    assert_eq!(stop["hibernated"], serde_json::json!(["tester-1"]));
    let out = String::from_utf8_lossy(&o.stdout);
    for c in ["wake tester-1", "discard tester-1", "accept"] {
        assert!(
            out.contains(&format!("dixit decide {id} {c}")),
            "{c}: {out}"
        );
    }
    let o = dixit(dir, &["decide", &id, "wake", "tester-2", "--why", "x"]);
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    assert!(
        describe(&o).contains("`wake tester-2` is not a choice"),
        "{}",
        describe(&o)
    );
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        page.contains("tester-1 hibernates with two too-hard tests: <a"),
        "the page links the hibernated tests"
    );
    (run, id)
}

#[test]
fn a_woken_testers_tests_join_the_suite_and_the_coders_pass_them() {
    let t = tempfile::tempdir().unwrap();
    let (run, id) = stalled(t.path());
    let o = dixit(
        t.path(),
        &["decide", &id, "wake", "tester-1", "--why", "x < 0 gives 0"],
    );
    assert!(o.status.success(), "{}", describe(&o));
    let o = dixit(t.path(), &["run", ".", "--resume", &id]);
    assert!(o.status.success(), "{}", describe(&o));
    let j = journal(&run);
    assert_eq!(last_stop(&j)["reason"], "converged");
    let at = j.iter().position(|r| r["event"] == "decision").unwrap();
    assert!(j[at..]
        .iter()
        .any(|r| r["lane"] == "tester-1" && r["event"] == "revived"));
    // Both hibernated tests joined, as tester-1's; coder-1 and coder-2 fixed their code.
    assert_eq!(
        suite_of(&run),
        [(1, "tester-1".to_string()), (2, "tester-1".to_string())]
    );
    for c in ["coder-1", "coder-2"] {
        let code =
            std::fs::read_to_string(run.join(format!("implementations/{c}/solution.py"))).unwrap();
        assert!(code.contains("else 0"), "{c} fixed: {code}");
    }
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(page.contains("woken by a person"), "the suite says why");
    replays(t.path(), &id);
}

#[test]
fn a_discarded_testers_tests_are_forgotten_and_it_proposes_afresh() {
    let t = tempfile::tempdir().unwrap();
    let (run, id) = stalled(t.path());
    let o = dixit(
        t.path(),
        &[
            "decide",
            &id,
            "discard",
            "tester-1",
            "--why",
            "x < 0 is out of scope",
        ],
    );
    assert!(o.status.success(), "{}", describe(&o));
    let o = dixit(t.path(), &["run", ".", "--resume", &id]);
    assert!(o.status.code().is_some(), "{}", describe(&o));
    let j = journal(&run);
    assert_eq!(last_stop(&j)["reason"], "converged");
    let at = j.iter().position(|r| r["event"] == "decision").unwrap();
    let after = &j[at..];
    let forgotten = after
        .iter()
        .find(|r| r["lane"] == "tester-1" && r["event"] == "forgotten")
        .expect("tester-1's tests forgotten");
    assert_eq!(forgotten["tests"].as_array().unwrap().len(), 2);
    assert!(!after.iter().any(|r| r["event"] == "revived"));
    // Never classified again; tester-1 starts over with the spec, as at its first proposal.
    let ids: Vec<&Value> = forgotten["tests"].as_array().unwrap().iter().collect();
    assert!(!after
        .iter()
        .any(|r| r["event"] == "classified" && ids.contains(&&r["test"])));
    let first_prompt = after
        .iter()
        .find(|r| r["lane"] == "tester-1" && r["event"] == "reply")
        .expect("tester-1 asked again");
    assert!(
        first_prompt["prompt"]
            .as_str()
            .unwrap()
            .contains("for x < 0 it returns 0"),
        "tester-1 was taken back to before its tests: {first_prompt}"
    );
    assert!(suite_of(&run).is_empty());
    replays(t.path(), &id);
}

/// Issue 36: under the `majority` policy the run needs no person. At the stop where coder-2
/// cannot pass test 2 (which coder-1 and coder-3 pass), the policy leaves coder-2 behind, journals
/// the decision with its rule and the evidence it read, and the run goes on to converge; the
/// replay decides again and agrees. A person then decides again at that stop (`--at 1`): the
/// run forks into a new run beside it, the first branch untouched, and the fork goes on from the
/// person's choice; both branches replay.
#[test]
fn a_policy_decides_without_a_person_and_a_person_forks_the_run_at_its_decision() {
    let t = tempfile::tempdir().unwrap();
    project(t.path(), 3);
    let o = dixit(t.path(), &["run", ".", "--policy", "majority"]);
    assert!(o.status.success(), "no stop for a person: {}", describe(&o));
    let run = the_run(t.path());
    let id = run.file_name().unwrap().to_string_lossy().into_owned();
    let j = journal(&run);
    assert_eq!(last_stop(&j)["reason"], "converged");
    let d: Vec<&Value> = j.iter().filter(|r| r["event"] == "decision").collect();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["lane"], "person");
    assert_eq!(d[0]["choice"], "leave_behind");
    assert_eq!(d[0]["coder"], "coder-2");
    assert_eq!(d[0]["by"], "policy majority");
    assert_eq!(d[0]["policy"]["name"], "majority");
    assert!(d[0]["policy"]["rule"]
        .as_str()
        .unwrap()
        .contains("majority of the coders"));
    let evidence = d[0]["policy"]["evidence"].to_string();
    assert!(
        evidence.contains("test 2: 2 of 3 coders pass it (coder-1 and coder-3)"),
        "{evidence}"
    );
    assert!(!evidence.contains("hidden"), "{evidence}");
    // The journal's config says the policy it ran under; the page names the decision's maker.
    assert!(j[0]["project"]["config"]
        .as_str()
        .unwrap()
        .contains("[policy]"));
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        page.contains("policy majority"),
        "the page names the policy"
    );
    replays(t.path(), &id);

    // A person decides again at decision 1: a fork, the original kept byte for byte.
    let before = std::fs::read(run.join("journal.jsonl")).unwrap();
    let o = dixit(
        t.path(),
        &[
            "decide",
            &id,
            "--at",
            "1",
            "drop-test",
            "2",
            "--why",
            "x < 0 is out of scope",
        ],
    );
    assert!(o.status.success(), "{}", describe(&o));
    let printed = String::from_utf8_lossy(&o.stdout).to_string();
    let fork_id = format!("{id}-b2");
    assert!(
        printed.contains(&format!("forked at its decision 1 into run {fork_id}")),
        "{printed}"
    );
    assert_eq!(std::fs::read(run.join("journal.jsonl")).unwrap(), before);
    let fork = run.parent().unwrap().join(&fork_id);
    let fj = journal(&fork);
    assert_eq!(fj[0]["run_id"], fork_id.as_str());
    assert_eq!(fj[0]["forked_from"]["run"], id.as_str());
    assert_eq!(fj[0]["forked_from"]["decision"], 1);
    replays(t.path(), &fork_id);
    let cmd = printed
        .lines()
        .find_map(|l| l.strip_prefix("continue with: "))
        .unwrap()
        .to_string();
    let args: Vec<&str> = cmd.split(' ').skip(1).collect();
    let o = dixit(t.path(), &args);
    assert!(o.status.success(), "{cmd}: {}", describe(&o));
    let fj = journal(&fork);
    assert_eq!(last_stop(&fj)["reason"], "converged");
    let d: Vec<&Value> = fj.iter().filter(|r| r["event"] == "decision").collect();
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0]["choice"].as_str(), d[0]["by"].as_str()),
        (Some("drop_test"), Some("ada"))
    );
    assert!(!fj
        .iter()
        .any(|r| r["event"] == "decision" && r["choice"] == "leave_behind"));
    replays(t.path(), &fork_id);
    replays(t.path(), &id);
    // A decision the run never made is refused, naming how many it made.
    let o = dixit(
        t.path(),
        &["decide", &id, "--at", "5", "accept", "--why", "x"],
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(
        err.contains("has no decision 5") && err.contains("it has 1"),
        "{}",
        describe(&o)
    );
}
