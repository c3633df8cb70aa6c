//! The live backends: `openai` and `anthropic` against a fault-injecting server on loopback,
//! `command` with a real CLI script, and (ignored by default: `scripts/test` runs it) a real run
//! against the local model server.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use serde_json::Value;

use super::fault_server::{anthropic_reply, openai_reply, Fault, FaultServer};

fn dixit(args: &[&str], cwd: &Path) -> Output {
    super::support::dixit_at(cwd, args, &[("TEST_API_KEY", "sk-test")])
}

fn text(o: &Output) -> String {
    super::support::describe(o)
}

fn journal(project: &Path) -> (std::path::PathBuf, Vec<Value>) {
    let run = std::fs::read_dir(project.join("runs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let j = std::fs::read_to_string(run.join("journal.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (run, j)
}

const SPEC: &str =
    "Write `f(x)` in `solution.py`: for x >= 0 it returns 2*x; for x < 0 it returns 0.\n";
const RIGHT: &str = "```python\ndef f(x):\n    return 2 * x if x >= 0 else 0\n```";
const NEG_BUG: &str = "```python\ndef f(x):\n    return 2 * x\n```";

fn project(dir: &Path, agents: &str, extra: &str) {
    std::fs::write(
        dir.join("dixit.toml"),
        format!("[project]\nlanguage = \"python\"\n[protocol]\ncoders = 3\ntesters = 1\nmax_rounds = 1\nmax_tester_retries = 1\n{extra}\n[agents]\n{agents}\n"),
    )
    .unwrap();
    std::fs::write(dir.join("spec.md"), SPEC).unwrap();
}

#[test]
fn openai_backend_retries_transient_faults_and_accounts_only_answers() {
    let server = FaultServer::start();
    // One coder's first call meets every fault in turn; all coders answer the same code, so
    // which coder meets them does not matter.
    server.push(
        "coder",
        [
            Fault::Status(
                429,
                vec![("retry-after".into(), "0.2".into())],
                "{\"error\":\"rate limited\"}".into(),
            ),
            Fault::Status(500, vec![], "{\"error\":\"boom\"}".into()),
            Fault::Hang(Duration::from_secs(3)),
            Fault::Malformed,
            Fault::Truncated,
            Fault::Ok(openai_reply(RIGHT, 100, 20)),
            Fault::Ok(openai_reply(RIGHT, 100, 20)),
            Fault::Ok(openai_reply(NEG_BUG, 100, 20)),
        ],
    );
    server.push(
        "tester",
        [
            Fault::Ok(openai_reply("I would check negative inputs.", 50, 7)),
            Fault::Ok(openai_reply(
                "```python\nfrom solution import f\nassert f(-1) == 0\n```",
                60,
                9,
            )),
        ],
    );
    let t = tempfile::tempdir().unwrap();
    let agents = format!(
        "backend = \"openai\"\nmodel = \"test-model\"\nbase_url = \"{}/v1\"\napi_key_env = \"TEST_API_KEY\"\ntemperature = 0.7\nmax_tokens = 256\ntimeout_s = 1\nretries = 8\nretry_delay_ms = 20",
        server.url()
    );
    project(
        t.path(),
        &agents,
        "[prices.test-model]\ninput = 1.0\noutput = 2.0\n[budget]\nmax_usd = 1.0",
    );
    let o = dixit(&["run", "."], t.path());
    assert_eq!(
        o.status.code(),
        Some(4),
        "one round, then the round cap: {}",
        text(&o)
    );
    let (_, j) = journal(t.path());
    let replies: Vec<&Value> = j.iter().filter(|r| r["event"] == "reply").collect();
    assert_eq!(
        replies.len(),
        5,
        "3 coders + 2 tester turns; failed attempts are not replies"
    );
    let tokens: u64 = replies
        .iter()
        .map(|r| {
            r["usage"]["prompt_tokens"].as_u64().unwrap()
                + r["usage"]["completion_tokens"].as_u64().unwrap()
        })
        .sum();
    assert_eq!(tokens, 3 * 120 + 57 + 69);
    let usd: f64 = replies
        .iter()
        .map(|r| r["cost_usd"].as_f64().unwrap())
        .sum();
    assert!(
        (usd - (3.0 * (100.0 + 40.0) + 50.0 + 14.0 + 60.0 + 18.0) / 1e6).abs() < 1e-12,
        "{usd}"
    );
    assert_eq!(
        server.seen("coder").len(),
        8,
        "5 faults retried, then 3 answers"
    );
    // The tester's reply without code is a failed attempt, answered honestly.
    let tester: Vec<&Value> = j.iter().filter(|r| r["lane"] == "tester-1").collect();
    let classified: Vec<&str> = tester
        .iter()
        .filter(|r| r["event"] == "classified")
        .map(|r| r["class"].as_str().unwrap())
        .collect();
    assert_eq!(classified, ["INVALID", "IDEAL"]);
    // Request shape: model, seed distinct per agent, temperature, max_tokens, bearer key.
    let first = &server.seen("coder")[0];
    assert_eq!(first.path, "/v1/chat/completions");
    assert_eq!(first.headers["authorization"], "Bearer sk-test");
    assert_eq!(first.body["model"], "test-model");
    assert_eq!(first.body["max_tokens"], 256);
    assert_eq!(first.body["messages"][0]["role"], "system");
    let seeds: std::collections::BTreeSet<u64> = server
        .seen("coder")
        .iter()
        .map(|s| s.body["seed"].as_u64().unwrap())
        .collect();
    assert!(
        seeds.len() >= 3,
        "each coder samples with its own seed: {seeds:?}"
    );
    let o = dixit(&["replay", journal(t.path()).0.to_str().unwrap()], t.path());
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn openai_backend_gives_up_clearly_and_the_run_resumes() {
    let server = FaultServer::start();
    server.push(
        "coder",
        [
            Fault::Ok(openai_reply(RIGHT, 10, 10)),
            Fault::Ok(openai_reply(RIGHT, 10, 10)),
        ],
    );
    server.push(
        "coder",
        (0..3).map(|_| Fault::Status(500, vec![], "{\"error\":\"down\"}".into())),
    );
    server.push(
        "tester",
        [Fault::Ok(openai_reply(
            "```python\nfrom solution import f\nassert f(2) == 4\n```",
            10,
            10,
        ))],
    );
    let t = tempfile::tempdir().unwrap();
    let agents = format!("backend = \"openai\"\nmodel = \"m\"\nbase_url = \"{}/v1\"\nretries = 3\nretry_delay_ms = 10", server.url());
    project(t.path(), &agents, "");
    let o = dixit(&["run", "."], t.path());
    assert_eq!(
        o.status.code(),
        Some(3),
        "a backend failure exits 3: {}",
        text(&o)
    );
    let out = text(&o);
    assert!(out.contains("failed after 3 attempt(s): 500"), "{out}");
    assert!(out.contains("--resume"), "{out}");
    let (run, j) = journal(t.path());
    let stop = j.iter().rev().find(|r| r["event"] == "stop").unwrap();
    assert_eq!(stop["reason"], "error");
    assert!(j.iter().any(|r| r["event"] == "failed"));
    let paid = j.iter().filter(|r| r["event"] == "reply").count();
    // The service is back: the run resumes, reusing the recorded replies.
    server.push("coder", [Fault::Ok(openai_reply(RIGHT, 10, 10))]);
    server.push(
        "tester",
        [Fault::Ok(openai_reply(
            "```python\nfrom solution import f\nassert f(3) == 6\n```",
            10,
            10,
        ))],
    );
    let before = server.seen("coder").len() + server.seen("tester").len();
    let id = run.file_name().unwrap().to_string_lossy().into_owned();
    let o = dixit(&["run", ".", "--resume", &id], t.path());
    assert!(matches!(o.status.code(), Some(0) | Some(4)), "{}", text(&o));
    let after = server.seen("coder").len() + server.seen("tester").len();
    let (_, j) = journal(t.path());
    let replies = j.iter().filter(|r| r["event"] == "reply").count();
    assert_eq!(
        after - before,
        replies - paid,
        "recorded replies are reused, not asked again"
    );
    let o = dixit(&["replay", run.to_str().unwrap()], t.path());
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn anthropic_backend_speaks_the_messages_api() {
    let server = FaultServer::start();
    server.push("coder", [
        Fault::Status(529, vec![], "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}".into()),
        Fault::Ok(anthropic_reply(RIGHT, 120, 30, 40)),
        Fault::Ok(anthropic_reply(RIGHT, 120, 0, 40)),
        Fault::Ok(anthropic_reply(NEG_BUG, 120, 0, 40)),
    ]);
    server.push(
        "tester",
        [Fault::Ok(anthropic_reply(
            "```python\nfrom solution import f\nassert f(-2) == 0\n```",
            80,
            0,
            12,
        ))],
    );
    let t = tempfile::tempdir().unwrap();
    let agents = format!("backend = \"anthropic\"\nmodel = \"claude-sonnet-4-5\"\nbase_url = \"{}\"\napi_key_env = \"TEST_API_KEY\"\nmax_tokens = 1024\nretry_delay_ms = 10", server.url());
    project(t.path(), &agents, "");
    let o = dixit(&["run", "."], t.path());
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    let req = &server.seen("coder")[0];
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.headers["x-api-key"], "sk-test");
    assert_eq!(req.headers["anthropic-version"], "2023-06-01");
    assert_eq!(req.body["max_tokens"], 1024);
    assert!(
        req.body["system"]
            .as_str()
            .unwrap()
            .contains("software engineer"),
        "the system prompt is a top-level field"
    );
    assert_eq!(req.body["messages"][0]["role"], "user");
    let (_, j) = journal(t.path());
    let usages: Vec<(u64, u64)> = j
        .iter()
        .filter(|r| r["event"] == "reply" && r["lane"].as_str().unwrap().starts_with("coder"))
        .map(|r| {
            (
                r["usage"]["prompt_tokens"].as_u64().unwrap(),
                r["usage"]["completion_tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut sorted = usages.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [(120, 40), (120, 40), (150, 40)],
        "input + cache reads, output"
    );
    assert!(j
        .iter()
        .any(|r| r["event"] == "classified" && r["class"] == "IDEAL"));
}

/// A CLI "agent": writes its answer into the workspace, keeps a session counter in its state
/// directory, and misbehaves on request.
const CLI_AGENT: &str = r#"#!/usr/bin/env python3
import os, sys, subprocess, time
prompt = sys.stdin.read()
state = os.environ["AGENT_STATE"]
os.makedirs(state, exist_ok=True)
count_file = os.path.join(state, "count")
count = int(open(count_file).read()) if os.path.exists(count_file) else 0
count += 1
open(count_file, "w").write(str(count))
with open(os.environ["SEEN_LOG"], "a") as f:
    f.write(f"{count}\n")
mode = os.environ.get("MODE", "")
if "escape" in mode:
    open("../../../../../spec.md", "a").write("\nEVIL\n")     # the project, outside the workspace
    open("../../coder-2/workspace/solution.py", "w").write("x = 1\n")  # another agent's files
if "forbidden" in mode:
    r = subprocess.run(["git", "push", "--force"], capture_output=True, text=True)
    print("git said:", r.stderr.strip())
if "slow" in mode:
    time.sleep(30)
code = {1: "def f(x):\n    return 2 * x\n", 2: "def f(x):\n    return -1\n"}.get(count, "def f(x):\n    return -1\n")
open("solution.py", "w").write(code)
print(f"wrote attempt {count}")
"#;

#[test]
fn command_backend_guardrails_timeout_and_rollback_of_session_state() {
    let t = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let seen_log = outside.path().join("seen.log");
    let agent = outside.path().join("agent.py");
    std::fs::write(&agent, CLI_AGENT).unwrap();
    let script_path = t.path().join("script.toml");
    let tester = "[[tester-1]]\ntext = '''\n```python\nfrom solution import f\nassert f(-1) == 0\n```\n'''\n";
    std::fs::write(&script_path, format!("{tester}[[coder-2]]\ntext = '''\n```python\ndef f(x):\n    return 2 * x if x >= 0 else 0\n```\n'''\n[[coder-3]]\ntext = '''\n```python\ndef f(x):\n    return 2 * x if x >= 0 else 0\n```\n'''\n")).unwrap();
    let cfg = |mode: &str, timeout: u64| {
        format!(
            "[project]\nlanguage = \"python\"\n[protocol]\ncoders = 3\ntesters = 1\nmax_rounds = 2\nmax_tester_retries = 1\nmax_coder_retries = 2\n\
             [agents]\nbackend = \"script\"\nscript = \"script.toml\"\n\
             [[coder]]\nbackend = \"command\"\ncommand = [\"python3\", \"{}\"]\ntimeout_s = {timeout}\nforbidden_commands = [\"git push --force\"]\n\
             env = {{ AGENT_STATE = \"{{state}}/session\", MODE = \"{mode}\", SEEN_LOG = \"{}\" }}\n",
            agent.display(),
            seen_log.display()
        )
    };
    std::fs::write(t.path().join("spec.md"), SPEC).unwrap();

    std::fs::write(t.path().join("dixit.toml"), cfg("escape,forbidden", 60)).unwrap();
    let o = dixit(&["run", "."], t.path());
    assert_eq!(
        o.status.code(),
        Some(1),
        "coder-1 never passes the negative test: human needed: {}",
        text(&o)
    );
    assert!(
        !std::fs::read_to_string(t.path().join("spec.md"))
            .unwrap()
            .contains("EVIL"),
        "the change outside the workspace was undone"
    );
    let (run, j) = journal(t.path());
    let own = "def f(x):\n    return 2 * x if x >= 0 else 0";
    assert_eq!(
        std::fs::read_to_string(run.join("implementations/coder-2/solution.py"))
            .unwrap()
            .trim_end(),
        own,
        "another agent's write was undone"
    );
    let first = j
        .iter()
        .find(|r| r["lane"] == "coder-1" && r["event"] == "reply")
        .unwrap();
    let v: Vec<&str> = first["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(v.iter().any(|x| x.contains("spec.md")), "{v:?}");
    assert!(
        v.iter()
            .any(|x| x.contains("refused forbidden command: git push --force")),
        "{v:?}"
    );
    assert!(
        first["text"].as_str().unwrap().contains("not allowed here"),
        "the agent saw only a refusal"
    );
    assert_eq!(
        first["files"][0]["path"], "solution.py",
        "its own workspace write is its answer"
    );
    // Session state is rolled back with the agent: attempt 2 regressed, so the counter in its
    // state directory went back to 1 and every retry is attempt 2 again.
    let seen = std::fs::read_to_string(&seen_log).unwrap();
    assert_eq!(seen.lines().collect::<Vec<_>>(), ["1", "2", "2"], "{seen}");
    let rollbacks = j
        .iter()
        .filter(|r| r["lane"] == "coder-1" && r["event"] == "rollback")
        .count();
    assert_eq!(rollbacks, 2);
    let o = dixit(&["replay", run.to_str().unwrap()], t.path());
    assert!(
        o.status.success(),
        "a command agent's run replays from its recorded files: {}",
        text(&o)
    );

    // A turn past its timeout is killed and stops the run (resumably).
    std::fs::remove_dir_all(t.path().join("runs")).unwrap();
    std::fs::write(t.path().join("dixit.toml"), cfg("slow", 1)).unwrap();
    let started = std::time::Instant::now();
    let o = dixit(&["run", "."], t.path());
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    assert!(
        text(&o).contains("did not finish within 1 s"),
        "{}",
        text(&o)
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the 30 s sleep was cut short"
    );
}

/// A real run on the local model server (`toolchains/model start`); `scripts/test` runs it.
#[test]
#[ignore = "needs the local model server: toolchains/model start (scripts/test runs it)"]
fn live_run_on_the_local_model() {
    let port = std::env::var("DIXIT_MODEL_PORT").unwrap_or_else(|_| "8080".into());
    let url =
        std::env::var("DIXIT_LIVE_URL").unwrap_or_else(|_| format!("http://127.0.0.1:{port}/v1"));
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("live");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(
        p.join("dixit.toml"),
        format!(
            "[project]\nlanguage = \"python\"\nseed = 7\n[protocol]\ncoders = 3\ntesters = 2\nmax_rounds = 2\nmax_coder_retries = 1\nmax_tester_retries = 1\n\
             [agents]\nbackend = \"openai\"\nmodel = \"qwen2.5-coder-1.5b-instruct\"\nbase_url = \"{url}\"\ntemperature = 0.8\nmax_tokens = 320\ntimeout_s = 600\n"
        ),
    )
    .unwrap();
    std::fs::write(p.join("spec.md"), "Write a Python function `clamp(x, lo, hi)` that returns `lo` if `x < lo`, `hi` if `x > hi`, and `x` otherwise. If `lo > hi`, it raises `ValueError`.\n").unwrap();
    let o =
        super::support::dixit_at_within(t.path(), &["run", "live"], &[], Duration::from_secs(2400));
    assert!(
        matches!(o.status.code(), Some(0) | Some(1) | Some(4)),
        "the run completes with a stop: {}",
        text(&o)
    );
    let (run, j) = journal(&p);
    let replies: Vec<&Value> = j.iter().filter(|r| r["event"] == "reply").collect();
    assert!(replies.len() >= 5, "{} replies", replies.len());
    assert!(
        replies
            .iter()
            .all(|r| r["usage"]["prompt_tokens"].as_u64().unwrap() > 0
                && r["usage"]["completion_tokens"].as_u64().unwrap() > 0),
        "real usage on every reply"
    );
    let coder_code = replies
        .iter()
        .filter(|r| {
            r["lane"].as_str().unwrap().starts_with("coder")
                && !r["files"].as_array().unwrap().is_empty()
        })
        .count();
    assert!(
        coder_code >= 2,
        "code was extracted from the model's replies"
    );
    assert!(
        j.iter()
            .any(|r| r["event"] == "judged" && r["build_error"].is_null()),
        "some solution built"
    );
    assert!(
        j.iter().any(|r| r["event"] == "classified"),
        "tests were classified"
    );
    let o = dixit(&["replay", run.to_str().unwrap()], t.path());
    assert!(
        o.status.success(),
        "the real run replays identically: {}",
        text(&o)
    );
}

#[test]
fn a_reply_cut_off_at_the_length_limit_is_named_as_such() {
    let server = FaultServer::start();
    server.push(
        "coder",
        (0..3).map(|_| Fault::Ok(openai_reply(RIGHT, 10, 10))),
    );
    let mut cut = openai_reply(
        "```python\nfrom solution import f\nassert f(1) == 2\nassert f(2) ==",
        40,
        64,
    );
    cut["choices"][0]["finish_reason"] = "length".into();
    server.push(
        "tester",
        [
            Fault::Ok(cut),
            Fault::Ok(openai_reply(
                "```python\nfrom solution import f\nassert f(-1) == 0\n```",
                40,
                20,
            )),
        ],
    );
    let t = tempfile::tempdir().unwrap();
    let agents = format!(
        "backend = \"openai\"\nmodel = \"m\"\nbase_url = \"{}/v1\"\nmax_tokens = 64",
        server.url()
    );
    project(t.path(), &agents, "");
    let o = dixit(&["run", "."], t.path());
    assert!(matches!(o.status.code(), Some(0) | Some(4)), "{}", text(&o));
    let (_, j) = journal(t.path());
    let tester: Vec<&Value> = j
        .iter()
        .filter(|r| r["lane"] == "tester-1" && r["event"] == "reply")
        .collect();
    assert_eq!(tester[0]["truncated"], true);
    let nudge = tester[1]["prompt"].as_str().unwrap();
    assert!(
        nudge.contains("cut off") && nudge.contains("length limit"),
        "{nudge}"
    );
}
