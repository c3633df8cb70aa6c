//! The command line: malformed input gets a clear error naming what is wrong and a non-zero
//! exit code (2: usage); `--help` explains; `bench` produces its report; colour is per stream.

use crate::support::{dixit, fixture, Output};

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
    assert!(out.stderr.contains("error"), "{}", out.stderr);
    assert!(out.stdout.is_empty(), "no data on stdout: {}", out.stdout);
}

fn p(rel: &str) -> String {
    fixture(rel).display().to_string()
}

#[test]
fn missing_solution_folder() {
    let out = dixit(&[
        "exec",
        "--solution",
        "/nonexistent/solution",
        "--test",
        &p("classify/python/tests/ideal.py"),
    ]);
    usage_error(&out, &["/nonexistent/solution", "does not exist"]);
    let out = dixit(&[
        "classify",
        "--test",
        &p("classify/python/tests/ideal.py"),
        &p("classify/python/solutions/correct"),
        "/nonexistent/other",
    ]);
    usage_error(&out, &["/nonexistent/other", "does not exist"]);
}

#[test]
fn missing_test_file() {
    let out = dixit(&[
        "exec",
        "--solution",
        &p("classify/python/solutions/correct"),
        "--test",
        "/nonexistent/test.py",
    ]);
    usage_error(&out, &["/nonexistent/test.py"]);
}

#[test]
fn unknown_test_extension() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = dir.path().join("test.txt");
    std::fs::write(&t, "assert True\n").expect("write");
    let out = dixit(&[
        "exec",
        "--solution",
        &p("classify/python/solutions/correct"),
        "--test",
        &t.display().to_string(),
    ]);
    usage_error(&out, &["test.txt", "unknown test kind", ".py"]);
}

#[test]
fn solution_without_sources_or_of_another_language() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("notes.txt"), "nothing to run").expect("write");
    let out = dixit(&[
        "exec",
        "--solution",
        &dir.path().display().to_string(),
        "--test",
        &p("classify/python/tests/ideal.py"),
    ]);
    usage_error(&out, &["no source files"]);
    let out = dixit(&[
        "classify",
        "--test",
        &p("classify/c/tests/ideal.c"),
        &p("classify/python/solutions/correct"),
    ]);
    usage_error(&out, &["is a python solution", "needs a c solution"]);
}

#[test]
fn bad_reruns() {
    for bad in ["banana", "0", "-3", "auto:x"] {
        let out = dixit(&[
            "classify",
            &format!("--reruns={bad}"),
            "--test",
            &p("classify/python/tests/ideal.py"),
            &p("classify/python/solutions/correct"),
        ]);
        usage_error(&out, &["--reruns", bad]);
    }
}

#[test]
fn bad_minority() {
    for bad in ["1.5", "-0.1", "lots"] {
        let out = dixit(&[
            "classify",
            &format!("--minority={bad}"),
            "--test",
            &p("classify/python/tests/ideal.py"),
            &p("classify/python/solutions/correct"),
        ]);
        usage_error(&out, &["--minority", bad, "between 0 and 1"]);
    }
}

#[test]
fn classify_needs_solutions() {
    let out = dixit(&["classify", "--test", &p("classify/python/tests/ideal.py")]);
    usage_error(&out, &["SOLUTION_DIR"]);
}

#[test]
fn malformed_io_tests() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases: &[(&str, &str, &[&str])] = &[
        ("syntax.toml", "stdin = \"1\nexpected = 2", &["syntax.toml"]),
        (
            "nothing_to_compare.toml",
            "stdin = \"1\"\n",
            &["needs `expected`"],
        ),
        (
            "both_stdins.toml",
            "stdin = \"1\"\nstdin_file = \"x.txt\"\nexpected = \"1\"\n",
            &["not both"],
        ),
        (
            "unknown_field.toml",
            "stdin = \"1\"\nexpect = \"1\"\n",
            &["unknown field", "expect"],
        ),
        (
            "bad_compare.toml",
            "expected = \"1\"\ncompare = \"fuzzy\"\n",
            &["fuzzy"],
        ),
        (
            "missing_stdin_file.toml",
            "stdin_file = \"absent.txt\"\nexpected = \"1\"\n",
            &["absent.txt"],
        ),
        (
            "missing_checker.toml",
            "checker = \"absent.py\"\n",
            &["checker", "absent.py", "not found"],
        ),
    ];
    for (name, text, needles) in cases {
        let t = dir.path().join(name);
        std::fs::write(&t, text).expect("write");
        let out = dixit(&[
            "exec",
            "--solution",
            &p("classify/io/solutions/correct_py"),
            "--test",
            &t.display().to_string(),
        ]);
        let mut all = vec![*name];
        all.extend_from_slice(needles);
        usage_error(&out, &all);
    }
}

/// A C/C++/Rust test that needs an interface, run without one, is a usage error naming what is
/// missing: nothing falls back to the solution's own header or crate.
#[test]
fn a_test_without_its_interface_names_what_is_missing() {
    let out = dixit(&[
        "exec",
        "--solution",
        &p("classify/c/solutions/correct"),
        "--test",
        &p("classify/c/tests/ideal.c"),
    ]);
    usage_error(
        &out,
        &["ideal.c", "\"solution.h\"", "no interface", "--interface"],
    );
    let out = dixit(&[
        "classify",
        "--test",
        &p("classify/rust/tests/ideal.rs"),
        &p("classify/rust/solutions/correct"),
    ]);
    usage_error(&out, &["ideal.rs", "crate `solution`", "--interface"]);
    let out = dixit(&[
        "exec",
        "--solution",
        &p("classify/rust/solutions/correct"),
        "--test",
        &p("classify/rust/tests/ideal.rs"),
        "--interface",
        "is_leap: fn(u64) -> bool; fn x() {}",
    ]);
    usage_error(&out, &["--interface", "is_leap"]);
    let out = dixit(&[
        "exec",
        "--solution",
        &p("classify/c/solutions/correct"),
        "--test",
        &p("classify/c/tests/ideal.c"),
        "--interface",
        "/nonexistent/solution.h",
    ]);
    usage_error(&out, &["--interface", "/nonexistent/solution.h"]);
}

#[test]
fn help_explains_the_commands() {
    let out = dixit(&["--help"]);
    out.expect_code(0);
    for cmd in ["exec", "classify", "toolchain", "bench"] {
        assert!(out.stdout.contains(cmd), "{}", out.stdout);
    }
    assert!(
        !out.stdout.contains("bench-load-python"),
        "internal commands stay hidden"
    );
    let out = dixit(&["classify", "--help"]);
    out.expect_code(0);
    for flag in ["--reruns", "--minority", "--seed", "--json", "auto"] {
        assert!(out.stdout.contains(flag), "{}", out.stdout);
    }
}

/// `dixit bench` runs end to end and reports every row, ratio and target (no timing asserted).
#[test]
fn bench_reports_everything() {
    let out = dixit(&["bench", "--seconds", "0.05", "--repeats", "1", "--json"]);
    out.expect_code(0);
    let r = out.json();
    let names: Vec<&str> = r["guests"]
        .as_array()
        .expect("guests")
        .iter()
        .map(|g| g["name"].as_str().expect("name"))
        .collect();
    // The fresh Python guest is measured with the default reset, then with the other where
    // the kernel offers both (the default tracks written pages where it can).
    let fresh = &r["guests"][2];
    let tracking = fresh["resets"]["tracking"].as_str().expect("tracking");
    let mut expected = vec!["C guest", "Rust guest", "Python guest (fresh instance)"];
    if tracking == "written" {
        expected.push("Python guest (fresh, reset private pages)");
    } else {
        assert_eq!(tracking, "private", "{fresh}");
    }
    expected.extend([
        "Python guest (reused instance)",
        "C native (fork/exec)",
        "python3 -I -S (fork/exec)",
    ]);
    assert_eq!(names, expected);
    assert!(
        fresh["resets"]["pages_restored_per_reset"]
            .as_f64()
            .expect("pages")
            > 0.0,
        "{fresh}"
    );
    let written = fresh["resets"]["pages_written_per_run"].as_f64();
    assert_eq!(written.is_some(), tracking == "written", "{fresh}");
    for g in r["guests"].as_array().expect("guests") {
        assert!(g["latency"]["median_us"].as_f64().expect("median") > 0.0);
        assert_eq!(g["throughput"].as_array().expect("throughput").len(), 2);
        if g["kind"] == "wasm" {
            assert!(g["speedup"].as_f64().is_some(), "{g}");
        }
    }
    let classify = r["classify"].as_array().expect("classify");
    assert_eq!(classify.len(), 2);
    assert_eq!(classify[1]["runs"], 7, "auto: one run per solution");
    for c in classify {
        assert!(
            c["per_core_per_second"].as_f64().expect("per core") > 0.0,
            "{c}"
        );
    }
    assert_eq!(r["runtime_load"]["compiled"], false, "nothing recompiled");
    let targets: Vec<&str> = r["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .map(|t| t["what"].as_str().expect("what"))
        .collect();
    assert_eq!(
        targets,
        [
            "C guest: median per run",
            "C guest: faster than native C fork/exec",
            "Rust guest: median per run",
            "Rust guest: faster than native C fork/exec",
            "Python guest (fresh instance): median per run",
            "Python guest: faster than python3 -I -S",
        ]
        .into_iter()
        .chain(
            written
                .is_some_and(|w| w > 0.0)
                .then_some("Python guest: pages copied back a reset / pages a run wrote"),
        )
        .chain([
            "Python guest: runs/s on 2 threads / on 1 thread",
            "Python guest (reused instance): median per run",
            "second invocation: Python runtime load",
            "second invocation: nothing compiled",
        ])
        .collect::<Vec<_>>()
    );
}

/// Colour is decided per stream: with stdout a terminal (a pseudo-terminal here) and stderr a
/// pipe, verdicts on stdout are coloured and stderr has no escape; `TERM=dumb` or `NO_COLOR`
/// turn colour off; with both streams piped there is none at all.
#[test]
fn colour_only_on_a_terminal_stream() {
    let args = [
        "classify",
        "--test",
        &p("classify/python/tests/ideal.py"),
        &p("classify/python/solutions/correct"),
        &p("classify/python/solutions/only_4"),
        "--interface",
        "is_leap",
    ];
    let piped = dixit(&args);
    piped.expect_code(0);
    assert!(piped.stdout.contains("pass"), "{}", piped.stdout);
    assert!(!piped.stdout.contains('\x1b'), "{:?}", piped.stdout);
    assert!(!piped.stderr.contains('\x1b'), "{:?}", piped.stderr);

    let root = crate::support::root();
    let (out, err) = on_a_terminal(&root, &args, &[("TERM", "xterm")], Tty::Stdout);
    assert!(out.contains("\x1b[32mpass\x1b[0m"), "{out:?}");
    assert!(out.contains("\x1b[31mwrong_answer\x1b[0m"), "{out:?}");
    assert!(!err.contains('\x1b'), "stderr is a pipe: {err:?}");
    for env in [[("TERM", "dumb")], [("NO_COLOR", "1")]] {
        let (out, _) = on_a_terminal(&root, &args, &env, Tty::Stdout);
        assert!(out.contains("pass"), "{out:?}");
        assert!(!out.contains('\x1b'), "{env:?}: {out:?}");
    }
}

/// Which stream of [`on_a_terminal`]'s child is the terminal.
#[derive(Clone, Copy, PartialEq)]
enum Tty {
    Stdout,
    Stderr,
}

/// Runs `dixit ARGS` in `cwd` with one stream (`tty`) on a fresh pseudo-terminal and the other
/// piped; returns (stdout, stderr) and asserts success.
fn on_a_terminal(
    cwd: &std::path::Path,
    args: &[&str],
    env: &[(&str, &str)],
    tty: Tty,
) -> (String, String) {
    use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
    use std::io::Read;
    crate::support::warm_up();
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("a pseudo-terminal");
    grantpt(&master).expect("grantpt");
    unlockpt(&master).expect("unlockpt");
    let name = ptsname(&master, Vec::new()).expect("ptsname");
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_str().expect("a path"))
        .expect("the terminal's other end");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_dixit"));
    command
        .args(args)
        .current_dir(cwd)
        .env_remove("NO_COLOR")
        .env_remove("DIXIT_JOBS")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null());
    match tty {
        Tty::Stdout => command.stdout(slave).stderr(std::process::Stdio::piped()),
        Tty::Stderr => command.stderr(slave).stdout(std::process::Stdio::piped()),
    };
    let mut child = command.spawn().expect("the dixit binary starts");
    let mut piped: Box<dyn Read + Send> = match tty {
        Tty::Stdout => Box::new(child.stderr.take().expect("piped")),
        Tty::Stderr => Box::new(child.stdout.take().expect("piped")),
    };
    // The command's own copy of the terminal's other end is closed when `command` is dropped.
    drop(command);
    let reader = std::thread::spawn(move || {
        let mut master = std::fs::File::from(master);
        let mut bytes = Vec::new();
        let mut buf = [0u8; 4096];
        // The master reads EIO once the last holder of the other end has gone.
        while let Ok(n @ 1..) = master.read(&mut buf) {
            bytes.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let mut other = String::new();
    let _ = piped.read_to_string(&mut other);
    let status = child.wait().expect("dixit ends");
    assert!(status.success(), "{status:?}\n{other}");
    let terminal = reader.join().expect("the reader");
    match tty {
        Tty::Stdout => (terminal, other),
        Tty::Stderr => (other, terminal),
    }
}

/// `dixit run` with stderr on a terminal draws a status line there (elapsed time, calls in
/// flight, the last event); not with `--quiet`, `TERM=dumb` or stderr piped. Stdout, piped,
/// gets the summary only.
#[test]
fn run_shows_a_status_line_on_a_terminal_only() {
    let t = tempfile::tempdir().expect("temp dir");
    let out = crate::support::dixit_in(t.path(), &["init", "demo"], &[]);
    out.expect_code(0);
    // Slow replies, so that the line is drawn while calls are in flight.
    let script = t.path().join("demo/script.toml");
    let text = std::fs::read_to_string(&script).expect("script");
    std::fs::write(
        &script,
        text.replace("text = '''", "delay_ms = 150\ntext = '''"),
    )
    .expect("write");
    let (out, err) = on_a_terminal(
        t.path(),
        &["run", "demo"],
        &[("TERM", "xterm")],
        Tty::Stderr,
    );
    assert!(out.contains("converged"), "{out}");
    assert!(!out.contains("in flight"), "{out}");
    assert!(err.contains("in flight"), "{err:?}");
    assert!(err.contains("asked coder-1"), "{err:?}");
    assert!(err.contains("0s · "), "elapsed time: {err:?}");
    assert!(!err.contains("\x1b[1A"), "the line never wraps: {err:?}");
    for (args, env) in [
        (&["run", "demo", "-q"][..], ("TERM", "xterm")),
        (&["run", "demo"][..], ("TERM", "dumb")),
    ] {
        let (out, err) = on_a_terminal(t.path(), args, &[env], Tty::Stderr);
        assert!(out.contains("converged"), "{out}");
        assert!(!err.contains("in flight"), "{args:?} {env:?}: {err:?}");
    }
    let piped = crate::support::dixit_in(t.path(), &["run", "demo"], &[]);
    piped.expect_code(0);
    assert!(!piped.stderr.contains("in flight"), "{}", piped.stderr);
}

/// Issue 40: `dixit manual --out DIR` writes the command-line reference from the parser's own
/// definitions: a Markdown page per public command holding exactly its `--help`, an index, and
/// a man page per command; internal commands stay out. An unwritable folder is a usage error.
#[test]
fn manual_writes_a_page_and_a_man_page_per_command() {
    let t = tempfile::tempdir().unwrap();
    let out = dixit(&["manual", "--out", t.path().to_str().unwrap()]);
    out.expect_code(0);
    let page = std::fs::read_to_string(t.path().join("dixit-run.md")).unwrap();
    let help = dixit(&["run", "--help"]);
    assert!(page.contains(help.stdout.trim_end()), "{page}");
    let nested = std::fs::read_to_string(t.path().join("dixit-toolchain-doctor.md")).unwrap();
    assert!(nested.starts_with("# `dixit toolchain doctor`"), "{nested}");
    let index = std::fs::read_to_string(t.path().join("README.md")).unwrap();
    assert!(
        index.contains("[`dixit decide accept`](dixit-decide-accept.md)"),
        "{index}"
    );
    assert!(
        !index.contains("bench-load-python"),
        "internal commands stay out"
    );
    let man = std::fs::read_to_string(t.path().join("man/dixit-replay.1")).unwrap();
    assert!(man.contains(".TH dixit-replay 1"), "{man}");
    let file = t.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let out = dixit(&["manual", "--out", file.join("sub").to_str().unwrap()]);
    out.expect_code(2);
    assert!(out.stderr.contains("cannot write"), "{}", out.stderr);
    // The reference is the binary's, not the environment's: an environment variable's value
    // never shows in it (the book's check compares it with docs/cli).
    let set = [
        ("DIXIT_CACHE", "/elsewhere"),
        ("DIXIT_JOBS", "7"),
        ("DIXIT_EVAL_CORPUS", "/elsewhere"),
        ("DIXIT_SHARD", "2/7"),
    ];
    let unset = set.map(|(k, _)| k);
    for args in [&["--help"][..], &["eval", "--help"]] {
        let bare = crate::support::dixit_in(&crate::support::root(), args, &unset);
        let with = crate::support::dixit_at(&crate::support::root(), args, &set);
        assert_eq!(
            String::from_utf8_lossy(&with.stdout),
            bare.stdout,
            "{args:?}"
        );
    }
}

/// `dixit completions SHELL` prints a script that knows every public subcommand and flag; bash
/// parses the bash one.
#[test]
fn completions_name_the_subcommands() {
    let out = dixit(&["completions", "bash"]);
    out.expect_code(0);
    for word in [
        "run",
        "compare",
        "replay",
        "report",
        "decide",
        "completions",
        "--resume",
    ] {
        assert!(out.stdout.contains(word), "{word}: {}", out.stdout);
    }
    assert!(
        !out.stdout.contains("bench-load-python"),
        "internal commands stay hidden"
    );
    let script = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(script.path(), &out.stdout).expect("write");
    let syntax = std::process::Command::new("bash")
        .arg("-n")
        .arg(script.path())
        .output()
        .expect("bash runs");
    assert!(syntax.status.success(), "{syntax:?}");
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = dixit(&["completions", shell]);
        out.expect_code(0);
        assert!(out.stdout.contains("replay"), "{shell}: {}", out.stdout);
    }
    let out = dixit(&["completions", "tcsh"]);
    out.expect_code(2);
    assert!(
        out.stderr.contains("bash"),
        "names the shells: {}",
        out.stderr
    );
}
