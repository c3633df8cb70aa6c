//! Interrupts and failed starts (real signals to the real binary): SIGINT and SIGTERM stop a run
//! (or a resume) at its next safe point with a resumable `interrupted` stop, the report and the
//! resume hint, exit 130 or 143; the resume reaches what an uninterrupted run reaches. A second
//! signal exits at once. An abandoned command turn is killed with its helpers and its changes
//! outside the workspace are undone. A run that fails before its first agent call leaves no
//! folder behind.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{kill_process, Pid, Signal};
use serde_json::Value;

use crate::support::{describe, dixit_at, journal, the_run};

/// A step that waits for the binary gives up after this (a safety net: no test relies on it).
const PATIENCE: Duration = Duration::from_secs(240);

/// A reply the script makes wait an hour: only an interrupt gets past it.
const STALL: &str = "delay_ms = 3600000\n";

fn dixit(args: &[&str], cwd: &Path) -> std::process::Output {
    dixit_at(cwd, args, &[])
}

/// `dixit init demo` in `dir`: the demo project with scripted agents.
fn demo(dir: &Path) -> PathBuf {
    let o = dixit(&["init", "demo"], dir);
    assert!(o.status.success(), "{}", describe(&o));
    dir.join("demo")
}

/// Makes `agent`'s reply number `n` (from 1) of the demo's script wait an hour, and no other.
fn stall(project: &Path, agent: &str, n: usize) {
    stall_in(&project.join("script.toml"), agent, n);
}

/// Makes `agent`'s reply number `n` (from 1) of the script `p` wait an hour, and no other.
fn stall_in(p: &Path, agent: &str, n: usize) {
    let s = std::fs::read_to_string(p).unwrap().replace(STALL, "");
    let entry = format!("[[{agent}]]\ntext = '''");
    let at = s
        .match_indices(&entry)
        .nth(n - 1)
        .unwrap_or_else(|| panic!("{agent} has no reply #{n}"))
        .0;
    let s = format!(
        "{}[[{agent}]]\n{STALL}{}",
        &s[..at],
        &s[at + format!("[[{agent}]]\n").len()..]
    );
    std::fs::write(p, s).unwrap();
}

/// Makes every reply of the script wait an hour (replies a resume reuses are not asked again).
fn stall_all(project: &Path) {
    let p = project.join("script.toml");
    let s = std::fs::read_to_string(&p)
        .unwrap()
        .replace(STALL, "")
        .replace("\ntext = '''", &format!("\n{STALL}text = '''"));
    std::fs::write(p, s).unwrap();
}

/// Takes every stall out of the script.
fn unstall(project: &Path) {
    let p = project.join("script.toml");
    let s = std::fs::read_to_string(&p).unwrap().replace(STALL, "");
    std::fs::write(p, s).unwrap();
}

/// `dixit ARGS` in `cwd`, started and left running.
fn spawn(cwd: &Path, args: &[&str]) -> Child {
    crate::support::warm_up();
    Command::new(env!("CARGO_BIN_EXE_dixit"))
        .args(args)
        .current_dir(cwd)
        .env_remove("DIXIT_JOBS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn send(child: &Child, signal: Signal) {
    let pid = Pid::from_child(child);
    kill_process(pid, signal).unwrap();
}

/// Waits until `ready` holds (checked every few milliseconds).
fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(started.elapsed() < PATIENCE, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The records of the one run of `project`, if it has begun.
fn records(project: &Path) -> Vec<Value> {
    let Some(run) = std::fs::read_dir(project.join("runs"))
        .ok()
        .and_then(|mut d| d.next())
        .and_then(|e| e.ok())
    else {
        return Vec::new();
    };
    std::fs::read_to_string(run.path().join("journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Whether `agent` has a reply to call `call` in `records` after the last `resumed` marker
/// (`after_resume`) or anywhere.
fn replied(records: &[Value], agent: &str, call: u64, after_resume: bool) -> bool {
    let from = if after_resume {
        records
            .iter()
            .rposition(|r| r["event"] == "resumed")
            .map_or(records.len(), |i| i + 1)
    } else {
        0
    };
    records[from..]
        .iter()
        .any(|r| r["lane"] == agent && r["event"] == "reply" && r["call"] == call)
}

/// Waits for the process to end; its exit code, stdout and stderr.
fn finish(child: Child) -> std::process::Output {
    let mut child = child;
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let t_out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let mut status = None;
    wait_until("dixit exits", || {
        status = child.try_wait().unwrap();
        status.is_some()
    });
    std::process::Output {
        status: status.unwrap(),
        stdout: t_out.join().unwrap(),
        stderr: t_err.join().unwrap(),
    }
}

/// The last stop of a run, as recorded.
fn last_stop(run: &Path) -> Value {
    journal(run)
        .into_iter()
        .rev()
        .find(|r| r["event"] == "stop" || r["event"] == "resumed")
        .filter(|r| r["event"] == "stop")
        .unwrap_or_else(|| panic!("{}: no stop after the last resume", run.display()))
}

/// A run's outcome without what differs between runs: summary (without its id), suite and
/// implementations.
fn final_state(run: &Path) -> String {
    let mut s: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    s.as_object_mut().unwrap().remove("run_id");
    let mut out = s.to_string();
    for sub in ["suite", "implementations"] {
        let mut stack = vec![run.join(sub)];
        let mut files = Vec::new();
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    files.push(p);
                }
            }
        }
        files.sort();
        for f in files {
            out.push_str(&format!(
                "\n{}:\n{}",
                f.strip_prefix(run).unwrap().display(),
                std::fs::read_to_string(&f).unwrap()
            ));
        }
    }
    out
}

/// The final state of the demo run without interruption.
fn uninterrupted() -> String {
    let t = tempfile::tempdir().unwrap();
    let p = demo(t.path());
    let o = dixit(&["run", "demo", "-q"], t.path());
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    final_state(&the_run(&p))
}

/// What every interrupted run shows: its exit code, the interrupted stop, the report, the resume
/// hint, and a journal that replays exactly.
fn check_interrupted(o: &std::process::Output, code: i32, project: &Path) -> (PathBuf, String) {
    assert_eq!(o.status.code(), Some(code), "{}", describe(o));
    let run = the_run(project);
    let id = run.file_name().unwrap().to_string_lossy().into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(&format!("hint: resume with `dixit run demo --resume {id}`")),
        "{}",
        describe(o)
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains(&format!("run {id} (dixit): interrupted; resumable")),
        "{}",
        describe(o)
    );
    assert_eq!(last_stop(&run)["reason"], "interrupted");
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(page.contains("interrupted"), "report.html names the stop");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["stop"]["reason"], "interrupted");
    let r = dixit(&["replay", run.to_str().unwrap()], project);
    assert!(
        r.status.success() && String::from_utf8_lossy(&r.stdout).contains("reproduced exactly"),
        "an interrupted run replays: {}",
        describe(&r)
    );
    (run, id)
}

/// A signal while tester-1's third call is in flight (or about to start): the run stops there,
/// resumably, and the resume reaches what an uninterrupted run reaches.
fn interrupt_then_resume(signal: Signal, code: i32) {
    let expected = uninterrupted();
    let t = tempfile::tempdir().unwrap();
    let p = demo(t.path());
    stall(&p, "tester-1", 3);
    let child = spawn(t.path(), &["run", "demo"]);
    wait_until("tester-1's second reply", || {
        replied(&records(&p), "tester-1", 1, false)
    });
    send(&child, signal);
    let o = finish(child);
    let (run, id) = check_interrupted(&o, code, &p);
    let j = journal(&run);
    assert!(
        !replied(&j, "tester-1", 2, false),
        "the call in flight was abandoned, not journaled"
    );
    unstall(&p);
    let o = dixit(&["run", "demo", "-q", "--resume", &id], t.path());
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    assert_eq!(last_stop(&run)["reason"], "converged");
    assert_eq!(final_state(&run), expected);
    let r = dixit(&["replay", run.to_str().unwrap()], t.path());
    assert!(r.status.success(), "{}", describe(&r));
}

#[test]
fn sigint_stops_a_run_resumably_and_the_resume_ends_where_an_uninterrupted_run_does() {
    interrupt_then_resume(Signal::INT, 130);
}

#[test]
fn sigterm_stops_a_run_resumably_and_the_resume_ends_where_an_uninterrupted_run_does() {
    interrupt_then_resume(Signal::TERM, 143);
}

/// A resume is interrupted like a run: first SIGINT mid-run, then SIGTERM mid-resume (past the
/// recording), then a resume that ends as an uninterrupted run does.
#[test]
fn an_interrupted_resume_stops_resumably_too() {
    let expected = uninterrupted();
    let t = tempfile::tempdir().unwrap();
    let p = demo(t.path());
    stall(&p, "tester-1", 2);
    let child = spawn(t.path(), &["run", "demo"]);
    wait_until("tester-1's first reply", || {
        replied(&records(&p), "tester-1", 0, false)
    });
    send(&child, Signal::INT);
    let (run, id) = check_interrupted(&finish(child), 130, &p);
    stall(&p, "tester-1", 4);
    let child = spawn(t.path(), &["run", "demo", "--resume", &id]);
    wait_until("tester-1's third reply, asked by the resume", || {
        replied(&records(&p), "tester-1", 2, true)
    });
    send(&child, Signal::TERM);
    let o = finish(child);
    check_interrupted(&o, 143, &p);
    let j = journal(&run);
    assert!(!replied(&j, "tester-1", 3, false));
    assert_eq!(
        j.iter().filter(|r| r["event"] == "resumed").count(),
        1,
        "one resume so far"
    );
    unstall(&p);
    let o = dixit(&["run", "demo", "-q", "--resume", &id], t.path());
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    assert_eq!(final_state(&run), expected);
    let r = dixit(&["replay", run.to_str().unwrap()], t.path());
    assert!(r.status.success(), "{}", describe(&r));
}

/// A resume interrupted before it wrote anything (here every call past the recording stalls, so
/// it never does) is undone: the journal and the outputs are as they were, byte for byte.
#[test]
fn a_resume_interrupted_before_it_goes_past_its_recording_leaves_the_run_as_it_was() {
    let expected = uninterrupted();
    let t = tempfile::tempdir().unwrap();
    let p = demo(t.path());
    stall(&p, "tester-1", 3);
    let child = spawn(t.path(), &["run", "demo"]);
    wait_until("tester-1's second reply", || {
        replied(&records(&p), "tester-1", 1, false)
    });
    send(&child, Signal::INT);
    let (run, id) = check_interrupted(&finish(child), 130, &p);
    let before =
        |run: &Path| ["journal.jsonl", "summary.json"].map(|f| std::fs::read(run.join(f)).unwrap());
    let (recorded, outputs) = (before(&run), final_state(&run));
    stall_all(&p);
    let child = spawn(t.path(), &["run", "demo", "--resume", &id]);
    wait_until("the resume begins", || {
        records(&p).iter().any(|r| r["event"] == "resumed")
    });
    send(&child, Signal::INT);
    let o = finish(child);
    assert_eq!(o.status.code(), Some(130), "{}", describe(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("the run is left as it was")
            && stderr.contains(&format!("hint: resume with `dixit run demo --resume {id}`")),
        "{}",
        describe(&o)
    );
    assert!(
        before(&run) == recorded,
        "the journal and summary are as they were"
    );
    assert_eq!(final_state(&run), outputs);
    unstall(&p);
    let o = dixit(&["run", "demo", "-q", "--resume", &id], t.path());
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    assert_eq!(final_state(&run), expected);
}

/// A second Ctrl-C does not wait for the safe point: here tester-1's first test loops forever
/// (fuel for hours), so the run cannot stop until its classification ends, and the second signal
/// exits at once. The journal has no stop and resumes (with ordinary limits again).
#[test]
fn a_second_sigint_exits_at_once_and_the_run_stays_resumable() {
    let t = tempfile::tempdir().unwrap();
    let p = demo(t.path());
    let script = p.join("script.toml");
    let s = std::fs::read_to_string(&script).unwrap();
    let entry = "[[tester-1]]\ntext = '''\n";
    let at = s.find(entry).unwrap() + entry.len();
    let looping = "```python\nfrom solution import median\nwhile True:\n    pass\n```\n'''\n\n[[tester-1]]\ntext = '''\n";
    std::fs::write(&script, format!("{}{looping}{}", &s[..at], &s[at..])).unwrap();
    let cfg = p.join("dixit.toml");
    let ordinary = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(
        &cfg,
        format!("{ordinary}\n[limits]\nfuel = 1000000000000000\nwall_time_ms = 86400000\n"),
    )
    .unwrap();
    let mut child = spawn(t.path(), &["run", "demo"]);
    wait_until("tester-1's endless test", || {
        replied(&records(&p), "tester-1", 0, false)
    });
    send(&child, Signal::INT);
    // The notice of the first signal, then the second.
    let mut err = child.stderr.take().unwrap();
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while !String::from_utf8_lossy(&seen).contains("press Ctrl-C again") {
        assert_eq!(err.read(&mut byte).unwrap(), 1, "stderr ended: {seen:?}");
        seen.push(byte[0]);
    }
    send(&child, Signal::INT);
    let mut rest = Vec::new();
    err.read_to_end(&mut rest).unwrap();
    seen.extend(rest);
    let status = child.wait().unwrap();
    let stderr = String::from_utf8_lossy(&seen);
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("SIGINT: exiting at once"), "{stderr}");
    let run = the_run(&p);
    assert!(
        journal(&run).iter().all(|r| r["event"] != "stop"),
        "the run never reached its stop"
    );
    assert!(!run.join("report.html").exists());
    // The journal reads, and the run resumes (the endless test now ends at the ordinary fuel).
    std::fs::write(&cfg, ordinary).unwrap();
    let id = run.file_name().unwrap().to_string_lossy().into_owned();
    let o = dixit(&["run", "demo", "-q", "--resume", &id], t.path());
    // Whatever the run decides with its changed script, it runs to a stop.
    assert!(
        matches!(o.status.code(), Some(0 | 1 | 3 | 4)),
        "{}",
        describe(&o)
    );
    assert_eq!(journal(&run).last().unwrap()["event"], "stop");
}

/// `dixit compare` shares the mechanism: SIGTERM stops the running cell (an ordinary run,
/// interrupted and resumable), no other cell runs, and the incomplete comparison is not saved as
/// if it were whole.
#[test]
fn sigterm_stops_a_comparison_without_saving_it() {
    let t = tempfile::tempdir().unwrap();
    let p = crate::support::triangle(t.path(), |c| c);
    stall_in(&p.join("scripts/dixit.toml"), "tester-1", 2);
    let out = t.path().join("out");
    let child = spawn(
        t.path(),
        &[
            "compare",
            p.to_str().unwrap(),
            "--protocols",
            "dixit,single",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    wait_until("tester-1's first reply", || {
        replied(&records(&p), "tester-1", 0, false)
    });
    send(&child, Signal::TERM);
    let o = finish(child);
    assert_eq!(o.status.code(), Some(143), "{}", describe(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("the comparison is incomplete (1 cell ran)"),
        "{}",
        describe(&o)
    );
    assert!(!out.join("compare.json").exists());
    assert!(
        !out.join("report.html").exists(),
        "no page of a cut comparison"
    );
    let run = the_run(&p);
    assert_eq!(last_stop(&run)["reason"], "interrupted");
    assert!(run.join("report.html").is_file());
}

/// A command agent's turn abandoned by an interrupt is killed with the processes it started,
/// and what it changed outside its workspace is undone; the resume asks it again.
#[test]
fn an_interrupt_kills_the_command_turn_in_flight_and_undoes_its_changes() {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("p");
    std::fs::create_dir_all(&p).unwrap();
    let spec = "Write `f(x)` in `solution.py`: it returns 2*x.\n";
    std::fs::write(p.join("spec.md"), spec).unwrap();
    let mark = t.path().join("helper.pid");
    let config = |command: &str| {
        format!(
            "[project]\nlanguage = \"python\"\n[protocol]\nname = \"single\"\n[agents]\nbackend = \"command\"\ncommand = [\"sh\", \"-c\", {}]\n",
            serde_json::to_string(command).unwrap()
        )
    };
    let hanging = format!(
        "echo changed >> {spec}; sleep 3600 & echo $! > {mark}.tmp; mv {mark}.tmp {mark}; wait",
        spec = p.join("spec.md").display(),
        mark = mark.display()
    );
    std::fs::write(p.join("dixit.toml"), config(&hanging)).unwrap();
    let child = spawn(&p, &["run", "."]);
    wait_until("the agent's helper starts", || mark.is_file());
    let helper: i32 = std::fs::read_to_string(&mark)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    send(&child, Signal::INT);
    let o = finish(child);
    assert_eq!(o.status.code(), Some(130), "{}", describe(&o));
    let run = the_run(&p);
    assert_eq!(last_stop(&run)["reason"], "interrupted");
    assert!(!replied(&journal(&run), "coder-1", 0, false));
    assert_eq!(
        std::fs::read_to_string(p.join("spec.md")).unwrap(),
        spec,
        "the change outside the workspace was undone"
    );
    wait_until("the helper is gone", || {
        match std::fs::read_to_string(format!("/proc/{helper}/stat")) {
            // Dead, and perhaps not reaped yet by whoever inherited it.
            Ok(stat) => stat.rsplit(") ").next().unwrap_or("").starts_with('Z'),
            Err(_) => true,
        }
    });
    std::fs::write(
        p.join("dixit.toml"),
        config("printf 'def f(x):\\n    return 2 * x\\n' > solution.py"),
    )
    .unwrap();
    let id = run.file_name().unwrap().to_string_lossy().into_owned();
    let o = dixit(&["run", ".", "--resume", &id], &p);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    assert_eq!(last_stop(&run)["reason"], "finished");
    assert_eq!(
        std::fs::read_to_string(run.join("implementations/coder-1/solution.py")).unwrap(),
        "def f(x):\n    return 2 * x\n"
    );
}

/// No run folder (nor `runs/`) is left by a run that fails before its first agent call: a
/// backend that cannot be made (its key variable is not set), and a protocol that finds late
/// that the project lacks what it needs. The error is reported as always.
#[test]
fn a_run_that_fails_before_its_first_call_leaves_no_run_folder() {
    let t = tempfile::tempdir().unwrap();
    let p = demo(t.path());
    let cfg = p.join("dixit.toml");
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "backend = \"script\"\nscript = \"script.toml\"",
        "backend = \"openai\"\nmodel = \"m\"\nbase_url = \"http://127.0.0.1:9/v1\"\napi_key_env = \"DIXIT_E2E_UNSET_KEY\"",
    );
    std::fs::write(&cfg, text).unwrap();
    let o = dixit(&["run", "demo"], t.path());
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("the API key variable `DIXIT_E2E_UNSET_KEY` is not set"),
        "{}",
        describe(&o)
    );
    assert!(!p.join("runs").exists(), "{}", describe(&o));

    // blind finds no hidden test only once it runs (the folder was made by then).
    let t = tempfile::tempdir().unwrap();
    let p = crate::support::triangle(t.path(), |c| c);
    std::fs::remove_dir_all(p.join("hidden")).unwrap();
    std::fs::create_dir_all(p.join("runs/earlier")).unwrap();
    let o = dixit(&["run", "triangle", "--protocol", "blind"], t.path());
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("needs hidden tests"),
        "{}",
        describe(&o)
    );
    let left: Vec<PathBuf> = std::fs::read_dir(p.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(left, [p.join("runs/earlier")], "only what was there before");
}
