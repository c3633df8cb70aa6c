//! Judge integrity (issue 9) through `dixit run`: a scripted coder that forges a pass, in each
//! language, fails the suite and is named in the stop; a scripted tester whose test reads host
//! files or the host's environment gets an INVALID test, and nothing of the host reaches the
//! journal (which holds every prompt any agent received).

use std::path::Path;

use serde_json::Value;

use crate::support::{describe, dixit_at};

/// A secret that must never reach a journal.
const SECRET: &str = "HOST-SECRET-5d2b91c7";

/// One language's project: file names, the spec's interface, and code for each role.
struct Lang {
    language: &'static str,
    spec: &'static str,
    /// The right solution, as a reply.
    right: &'static str,
    /// Solutions that are wrong for negative x but try to pass anyway by exiting.
    forgeries: [&'static str; 3],
    /// A test of f(1) == 2 (too easy) and one of f(-1) == 0 (what the forgery gets wrong).
    easy_test: &'static str,
    edge_test: &'static str,
}

const PYTHON: Lang = Lang {
    language: "python",
    spec: "Write `f(x)` in `solution.py`: for an integer x >= 0 it returns 2*x; for x < 0 it returns 0.",
    right: "```python\ndef f(x):\n    return 2 * x if x >= 0 else 0\n```",
    forgeries: [
        "```python\ndef f(x):\n    if x < 0:\n        import os\n        os._exit(0)\n    return 2 * x\n```",
        "```python\ndef f(x):\n    if x < 0:\n        raise SystemExit(0)\n    return 2 * x\n```",
        // Issue 19: walks up the frames to whatever decides the status and rebinds it.
        "```python\nimport sys\n\ndef f(x):\n    if x < 0:\n        fr = sys._getframe()\n        while fr is not None:\n            for k in ('_PASSED', '_FAILED', '_ERROR', '_EXITED'):\n                if k in fr.f_globals:\n                    fr.f_globals[k] = 0\n            fr = fr.f_back\n        return -5\n    return 2 * x\n```",
    ],
    easy_test: "```python\nfrom solution import f\n\nassert f(1) == 2\n```",
    edge_test: "```python\nfrom solution import f\n\nassert f(-1) == 0\n```",
};

const C: Lang = Lang {
    language: "c",
    spec: "Write `int f(int x)` (declared in `solution.h`, defined in `solution.c`): for x >= 0 it returns 2*x; for x < 0 it returns 0.",
    right: "```c solution.h\nint f(int x);\n```\n\n```c solution.c\n#include \"solution.h\"\n\nint f(int x) { return x >= 0 ? 2 * x : 0; }\n```",
    forgeries: [
        "```c solution.h\nint f(int x);\n```\n\n```c solution.c\n#include <stdlib.h>\n#include \"solution.h\"\n\nint f(int x) { if (x < 0) exit(0); return 2 * x; }\n```",
        "```c solution.h\nint f(int x);\n```\n\n```c solution.c\n#include <stdlib.h>\n#include <unistd.h>\n#include \"solution.h\"\n\nstatic void rescue(void) { _exit(0); }\n\nint f(int x) { atexit(rescue); return 2 * x; }\n```",
        "```c solution.h\nint f(int x);\n```\n\n```c solution.c\n#include \"solution.h\"\n\n__attribute__((import_module(\"wasi_snapshot_preview1\"), import_name(\"proc_exit\"))) void proc_exit(int);\nvoid _Exit(int c) { (void)c; proc_exit(0); for (;;) {} }\n\nint f(int x) { return 2 * x; }\n```",
    ],
    easy_test: "```c\n#include <assert.h>\n#include \"solution.h\"\n\nint main(void) {\n    assert(f(1) == 2);\n    return 0;\n}\n```",
    edge_test: "```c\n#include <assert.h>\n#include \"solution.h\"\n\nint main(void) {\n    assert(f(-1) == 0);\n    return 0;\n}\n```",
};

const RUST: Lang = Lang {
    language: "rust",
    spec: "Write `pub fn f(x: i64) -> i64` in the crate `solution` (`lib.rs`): for x >= 0 it returns 2*x; for x < 0 it returns 0.",
    right: "```rust\npub fn f(x: i64) -> i64 {\n    if x >= 0 { 2 * x } else { 0 }\n}\n```",
    forgeries: [
        "```rust\npub fn f(x: i64) -> i64 {\n    if x < 0 {\n        std::process::exit(0)\n    }\n    2 * x\n}\n```",
        "```rust\npub fn f(x: i64) -> i64 {\n    std::panic::set_hook(Box::new(|_| std::process::exit(0)));\n    2 * x\n}\n```",
        "```rust\n#[no_mangle]\npub extern \"C\" fn __main_void() -> i32 { 0 }\n\npub fn f(x: i64) -> i64 {\n    2 * x\n}\n```",
    ],
    easy_test: "```rust\nfn main() {\n    assert_eq!(solution::f(1), 2);\n}\n```",
    edge_test: "```rust\nfn main() {\n    assert_eq!(solution::f(-1), 0);\n}\n```",
};

fn entry(agent: &str, text: &str) -> String {
    format!("[[{agent}]]\ntext = '''\n{text}\n'''\n\n")
}

/// The `[project] interface` line of a language's project (writing the header it names).
fn interface_line(dir: &Path, language: &str) -> &'static str {
    match language {
        "c" => {
            std::fs::create_dir_all(dir.join("interface")).unwrap();
            std::fs::write(dir.join("interface/solution.h"), "int f(int x);\n").unwrap();
            "interface = \"interface/solution.h\"\n"
        }
        "rust" => "interface = [\"f: fn(i64) -> i64\"]\n",
        _ => "",
    }
}

fn write_project(dir: &Path, lang: &Lang, script: &str, hidden: Option<(&str, &str)>) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("dixit.toml"),
        format!(
            "[project]\nlanguage = \"{}\"\n{}[protocol]\ncoders = 3\ntesters = 1\nmax_rounds = 3\nmax_tester_retries = 1\nmax_coder_retries = 2\n[agents]\nbackend = \"script\"\nscript = \"script.toml\"\n",
            lang.language,
            interface_line(dir, lang.language)
        ),
    )
    .unwrap();
    std::fs::write(dir.join("spec.md"), format!("{}\n", lang.spec)).unwrap();
    std::fs::write(dir.join("script.toml"), script).unwrap();
    if let Some((name, body)) = hidden {
        std::fs::create_dir_all(dir.join("hidden")).unwrap();
        std::fs::write(dir.join("hidden").join(name), body).unwrap();
    }
}

fn journal(project: &Path) -> (String, Vec<Value>) {
    let runs: Vec<_> = std::fs::read_dir(project.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let text = std::fs::read_to_string(runs[0].join("journal.jsonl")).unwrap();
    let records = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (text, records)
}

/// The fenced code of a reply, without the fence lines (a hidden test file's contents).
fn body(reply: &str) -> String {
    reply
        .lines()
        .filter(|l| !l.starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A coder whose code exits with status 0 when it would be wrong: before issue 9 its "passes"
/// made the edge test look TOO_EASY and it sailed through the hidden tests. Now the edge test is
/// IDEAL (the forger fails it), the forger cannot pass the suite with any of its tricks, and
/// the run stops for a human, naming it.
#[test]
fn a_forged_pass_fails_the_suite_in_every_language() {
    for lang in [&PYTHON, &C, &RUST] {
        let t = tempfile::tempdir().unwrap();
        let script = [
            entry("coder-1", lang.right),
            entry("coder-2", lang.right),
            entry("coder-3", lang.forgeries[0]),
            entry("coder-3", lang.forgeries[1]),
            entry("coder-3", lang.forgeries[2]),
            entry("tester-1", lang.easy_test),
            entry("tester-1", lang.edge_test),
        ]
        .concat();
        let ext = match lang.language {
            "python" => "py",
            "c" => "c",
            _ => "rs",
        };
        let hidden_name = format!("test_hidden.{ext}");
        write_project(
            t.path(),
            lang,
            &script,
            Some((&hidden_name, &body(lang.edge_test))),
        );
        let o = dixit_at(t.path(), &["run", "."], &[]);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{}: {}",
            lang.language,
            describe(&o)
        );
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains("coder-3 cannot pass test 1"),
            "{}: {out}",
            lang.language
        );
        let (_, j) = journal(t.path());
        let stop = j.iter().rev().find(|r| r["event"] == "stop").unwrap();
        assert_eq!(stop["reason"], "human_needed", "{}: {stop}", lang.language);
        assert!(
            stop.to_string().contains("coder-3"),
            "{}: {stop}",
            lang.language
        );
        let edge = j
            .iter()
            .find(|r| r["event"] == "classified" && r["test"] == "tester-1#1")
            .unwrap();
        assert_eq!(edge["class"], "IDEAL", "{}: {edge}", lang.language);
        assert_eq!(edge["failures"], 1, "{}: {edge}", lang.language);
        // Every attempt of the forger is judged a failure of test 1.
        let forger: Vec<&Value> = j
            .iter()
            .filter(|r| r["lane"] == "coder-3" && r["event"] == "judged")
            .filter(|r| !r["vector"].as_array().unwrap().is_empty())
            .collect();
        assert!(!forger.is_empty(), "{}", lang.language);
        for r in &forger {
            assert_eq!(
                r["vector"],
                serde_json::json!([false]),
                "{}: {r}",
                lang.language
            );
        }
    }
}

/// A tester's test that reads a host file, or the compiler's environment, is INVALID; its
/// author hears why without the host's content, and neither the secret file's content nor the
/// secret variable's value is anywhere in the journal.
#[test]
fn a_host_reading_test_leaks_nothing_into_the_journal() {
    let outside = tempfile::tempdir().unwrap();
    let secret_file = outside.path().join("secret.h");
    std::fs::write(&secret_file, format!("{SECRET}\n")).unwrap();
    let secret = secret_file.display().to_string();
    let cases: Vec<(&Lang, String)> = vec![
        (
            &C,
            format!("```c\n#include \"{secret}\"\n#include \"solution.h\"\n\nint main(void) {{ return f(1) == 2 ? 0 : 1; }}\n```"),
        ),
        (
            &RUST,
            format!("```rust\nconst S: &str = include_str!(\"{secret}\");\nconst K: &str = env!(\"DIXIT_E2E_SECRET\");\n\nfn main() {{\n    assert_eq!(solution::f(1) as usize, S.len() + K.len());\n}}\n```"),
        ),
        (
            &PYTHON,
            format!("```python\nfrom solution import f\n\nwith open({secret:?}) as h:\n    assert f(1) == len(h.read())\n```"),
        ),
    ];
    for (lang, reading) in cases {
        let t = tempfile::tempdir().unwrap();
        let script = [
            entry("coder-1", lang.right),
            entry("coder-2", lang.right),
            entry("coder-3", lang.right),
            entry("tester-1", &reading),
            entry("tester-1", lang.easy_test),
        ]
        .concat();
        write_project(t.path(), lang, &script, None);
        let o = dixit_at(
            t.path(),
            &["run", "."],
            &[("DIXIT_E2E_SECRET", SECRET), ("OPENAI_API_KEY", SECRET)],
        );
        // Converged (the easy test), or stalled on the host-reading test (Python: it fails).
        assert!(
            matches!(o.status.code(), Some(0) | Some(1)),
            "{}: {}",
            lang.language,
            describe(&o)
        );
        let (text, j) = journal(t.path());
        assert!(
            !text.contains(SECRET) && !text.contains("root:x:0"),
            "{}: the journal holds host content",
            lang.language
        );
        let first = j
            .iter()
            .find(|r| r["event"] == "classified" && r["lane"] == "tester-1")
            .unwrap();
        // Python tests run in the sandbox, where the host file does not exist: the test fails
        // every implementation as it fails with none (it never reaches the code); compiled
        // tests do not build. INVALID either way.
        assert_eq!(first["class"], "INVALID", "{}: {first}", lang.language);
    }
}
