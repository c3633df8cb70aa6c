//! `dixit report` (issue 11): the eval report and the comparison page, opened in Debian's
//! chromium by `tests/browser/check_reports.mjs` (Playwright), which clicks as a reader would
//! and prints what the page showed; the assertions are here. The eval outputs come from real
//! `dixit eval --out` runs on a small corpus written into a temporary directory: two problems,
//! a solution whose text is hostile HTML, a test with a hostile comment, a wrong test, and a
//! slow solution that passes with the default fuel and runs out of a small budget (so the
//! comparison of the two evaluations has changed cells and a changed pick).
//!
//! Needs `node` and `chromium` and `npm ci` in `tests/browser` (`scripts/test` installs them);
//! without them the browser test fails, saying what to install.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{dixit, root};

const HOSTILE_SOLUTION: &str = "    return '</script><img src=x onerror=alert(1)>' and x + 1\n";

/// The corpus: CodeT's four files for two problems (see the module doc).
fn write_corpus(dir: &Path) {
    let problems = [
        (
            "T/0",
            "def f(x):\n",
            "f",
            "    return x + 1\n",
            "def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(5) == 6\n",
        ),
        (
            "T/1",
            "def g(s):\n",
            "g",
            "    return s[::-1]\n",
            "def check(candidate):\n    assert candidate('ab') == 'ba'\n    assert candidate('') == ''\n",
        ),
    ];
    let solutions: [&[&str]; 2] = [
        &[
            "    return x + 1\n",
            "    return x + 1\n",
            "    return x\n",
            HOSTILE_SOLUTION,
            "    s = 0\n    for i in range(200000):\n        s += i\n    return x + 1\n",
        ],
        &[
            "    return s[::-1]\n",
            "    return s\n",
            "    return ''.join(reversed(s))\n",
        ],
    ];
    let tests: [&[&str]; 2] = [
        &[
            "f(1) == 2\nassert f(2) == 3\n",
            "f(0) == 0\n",
            "f(3) == 4  # </script><script>alert(2)</script>\n",
        ],
        &["g('ab') == 'ba'\n", "g('') == ''\n"],
    ];
    let test_prompt = |prompt: &str, entry: &str| {
        format!("{prompt}    pass\n\n# check the correctness of {entry}\nassert ")
    };
    let lines = |f: &dyn Fn(usize) -> Value| -> String {
        (0..problems.len()).map(|k| format!("{}\n", f(k))).collect()
    };
    let write = |name: &str, text: String| std::fs::write(dir.join(name), text).unwrap();
    write(
        "X_for_code_generation.jsonl",
        lines(&|k| {
            let (id, prompt, entry, canonical, test) = problems[k];
            serde_json::json!({"task_id": id, "prompt": prompt, "entry_point": entry,
                "canonical_solution": canonical, "test": test})
        }),
    );
    write(
        "X_for_test_case_generation.jsonl",
        lines(&|k| {
            let (id, prompt, entry, canonical, test) = problems[k];
            serde_json::json!({"task_id": id, "prompt": test_prompt(prompt, entry),
                "entry_point": entry, "canonical_solution": canonical, "test": test})
        }),
    );
    write(
        "X_code_solution.jsonl",
        lines(&|k| serde_json::json!({"prompt": problems[k].1, "samples": solutions[k]})),
    );
    write(
        "X_test_case.jsonl",
        lines(&|k| {
            let (_, prompt, entry, ..) = problems[k];
            serde_json::json!({"prompt": test_prompt(prompt, entry), "samples": tests[k]})
        }),
    );
}

/// `dixit eval --out DIR` of the corpus with `fuel` per run.
fn eval_out(corpus: &Path, out: &Path, fuel: &str) {
    let (c, o) = (corpus.to_str().unwrap(), out.to_str().unwrap());
    dixit(&[
        "eval",
        "--quiet",
        "--corpus",
        c,
        "--isolation",
        "solution",
        "--fuel",
        fuel,
        "--out",
        o,
    ])
    .expect_code(0);
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `node` and `tests/browser/node_modules`, or a panic that says how to get them.
fn browser_driver() -> PathBuf {
    let dir = root().join("tests/browser");
    let has = |cmd: &str, arg: &str| {
        Command::new(cmd)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    assert!(
        has("node", "--version"),
        "node is missing: the browser test needs Node.js ≥ 20 (scripts/test installs it)"
    );
    assert!(
        Path::new("/usr/bin/chromium").is_file(),
        "chromium is missing: apt-get install chromium (scripts/test does)"
    );
    assert!(
        dir.join("node_modules/playwright-core").is_dir(),
        "playwright-core is missing: run `npm ci --prefix tests/browser` (scripts/test does)"
    );
    dir.join("check_reports.mjs")
}

/// The eval report and the comparison page in chromium: right numbers, a drill-down that
/// opens on click with the heatmap and the code, hostile text shown as text, no request but
/// the file itself, a CSP that refuses injected scripts; screenshots kept in
/// `target/report-screenshots/`.
#[test]
fn eval_report_and_comparison_in_chromium() {
    let driver = browser_driver();
    let work = tempfile::tempdir().unwrap();
    let corpus = work.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    write_corpus(&corpus);
    let (a, b) = (work.path().join("a"), work.path().join("b"));
    eval_out(&corpus, &a, "4000000000");
    eval_out(&corpus, &b, "30000000");

    let out = dixit(&["report", a.to_str().unwrap()]);
    out.expect_code(0);
    let page = a.join("report.html");
    assert_eq!(out.stdout.trim(), page.to_str().unwrap());
    let out = dixit(&["report", a.to_str().unwrap(), b.to_str().unwrap()]);
    out.expect_code(0);
    let compare = b.join("compare.html");
    assert_eq!(out.stdout.trim(), compare.to_str().unwrap());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<img"), "hostile text reached the markup");

    let shots = root().join("target/report-screenshots");
    let run = Command::new("node")
        .arg(&driver)
        .args(["--eval", page.to_str().unwrap(), "--problem", "T/0"])
        .args(["--compare", compare.to_str().unwrap()])
        .args(["--solution", &hostile_label(&a)])
        .args(["--shots", shots.to_str().unwrap()])
        .output()
        .expect("node runs");
    assert!(
        run.status.success(),
        "the browser driver failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let seen: Value = serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "the driver printed no JSON ({e}):\n{}",
            String::from_utf8_lossy(&run.stdout)
        )
    });
    eprintln!("screenshots in {}", shots.display());

    // Nothing but the file itself was requested; nothing ran that should not have.
    for r in seen["requests"].as_array().unwrap() {
        let url = r.as_str().unwrap();
        assert!(
            url.starts_with("file:") || url.starts_with("data:"),
            "request to {url}"
        );
    }
    assert_eq!(seen["blocked"], Value::Array(vec![]), "blocked requests");
    assert_eq!(seen["pageErrors"], Value::Array(vec![]), "script errors");
    assert_eq!(
        seen["consoleErrors"],
        Value::Array(vec![]),
        "console errors"
    );
    assert_eq!(
        seen["dialogs"],
        Value::Array(vec![]),
        "a hostile script ran"
    );
    let e = &seen["eval"];
    assert_eq!(
        e["injectedScriptRan"], false,
        "the CSP let an injected script run"
    );
    assert_eq!(
        e["injectionRefused"], true,
        "the browser did not report a CSP refusal"
    );
    assert!(e["csp"].as_str().unwrap().starts_with("default-src 'none'"));
    assert_eq!(e["imgElements"], 0);

    // The strategies table says what report.json says.
    let report = json(&a.join("report.json"));
    let summary = &report["results"]["summary"];
    let expected: Vec<(String, String)> = [
        ("random baseline", "random_pct"),
        ("CodeT dual agreement", "dual_agreement_pct"),
        (
            "dual agreement, unique tests",
            "dual_agreement_unique_tests_pct",
        ),
        ("Dixit band (most IDEAL tests)", "dixit_band_pct"),
        ("Dixit band, unique tests", "dixit_band_unique_tests_pct"),
        ("Dixit loop simulation", "dixit_loop_pct"),
    ]
    .iter()
    .map(|(name, key)| {
        (
            name.to_string(),
            format!("{:.2}", summary[key].as_f64().unwrap()),
        )
    })
    .collect();
    let shown: Vec<(String, String)> = e["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r[0].as_str().unwrap().into(), r[1].as_str().unwrap().into()))
        .collect();
    assert_eq!(shown, expected);
    assert_eq!(
        expected[0].1, "73.33",
        "the corpus changed: 11 of 15 samples are correct"
    );
    let ideal = &e["bandPrecision"][1];
    let p = &summary["band_precision"]["ideal"];
    assert_eq!(ideal[1].as_str().unwrap(), p["tests"].to_string());
    assert_eq!(ideal[2].as_str().unwrap(), p["correct_tests"].to_string());
    assert_eq!(
        e["charts"], 4,
        "strategy bars, per-problem dots, tests-passed histogram, verdict mix"
    );
    assert_eq!(e["problems"].as_array().unwrap().len(), 2);

    // Sorting and filtering the problem table.
    let values = |k: &str| -> Vec<f64> {
        e[k].as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().parse().unwrap())
            .collect()
    };
    let (asc, desc) = (values("sortedAscending"), values("sortedDescending"));
    assert!(asc.windows(2).all(|w| w[0] <= w[1]), "{asc:?}");
    assert!(desc.windows(2).all(|w| w[0] >= w[1]), "{desc:?}");
    assert_ne!(
        asc, desc,
        "the two problems have different random baselines"
    );
    assert_eq!(e["ariaSortAfterFirstClick"], "ascending");
    assert_eq!(e["filtered"], serde_json::json!(["T/0"]));
    assert_eq!(e["filterCount"], "1 of 2 rows");

    // The drill-down: one row per unique solution (plus band and reference), one column per
    // unique test (plus the hidden tests); the clicked cell's codes are the solution's and
    // the test's.
    let problem = json(&a.join("problems/T_0.json"));
    let sols = problem["solutions"].as_array().unwrap();
    let tests = problem["tests"].as_array().unwrap();
    let heat = &e["heatmap"];
    assert_eq!(e["hash"], "#problem/T/0");
    assert_eq!(heat["rows"], sols.len() + 2);
    assert_eq!(heat["cols"], 1 + 1 + tests.len());
    assert_eq!(heat["rowLabels"][0], "band");
    assert_eq!(heat["rowLabels"][1], "reference");
    assert_eq!(heat["colLabels"][1], "H");
    let letters: String = heat["cells"][1].as_str().unwrap().chars().collect();
    assert_eq!(
        letters.len(),
        1 + tests.len(),
        "reference row: hidden + one per test"
    );
    let detail = &e["cellDetail"];
    let heading = detail["heading"].as_str().unwrap();
    assert_eq!(e["hoverInfo"].as_str().unwrap(), heading);
    assert!(
        heading.starts_with('s') && heading.contains(" × t"),
        "{heading}"
    );
    let codes = detail["codes"].as_array().unwrap();
    assert_eq!(codes.len(), 2, "{detail}");
    assert!(
        sols.iter()
            .any(|s| s["source"].as_str().unwrap().trim_end()
                == codes[0].as_str().unwrap().trim_end())
    );
    assert!(
        tests.iter().any(|t| t["source"] == codes[1]),
        "{}",
        codes[1]
    );
    assert!(detail["lineNumbers"].as_u64().unwrap() >= 3);
    // The hostile solution is shown, as text, and nothing in it ran.
    assert!(
        e["solutionCode"]
            .as_str()
            .unwrap()
            .contains(HOSTILE_SOLUTION.trim_end()),
        "{}",
        e["solutionCode"]
    );
    assert_eq!(e["printHidesToc"], true, "print CSS");

    // The comparison: the slow solution ran out of fuel in B.
    let c = &seen["compare"];
    assert!(
        c["lead"].as_str().unwrap().contains("2 problems in both"),
        "{}",
        c["lead"]
    );
    let flips = c["flips"].as_array().unwrap();
    assert!(
        flips.iter().any(|r| r[0] == "T/0"
            && r[1] == "random baseline"
            && r[4].as_str().unwrap().starts_with('▼')),
        "{flips:?}"
    );
    let changed = c["changedCells"].as_array().unwrap();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(changed[0][0], "T/0");
    assert_eq!(
        changed[0][2],
        (1 + tests.len()).to_string(),
        "hidden + every test of one solution"
    );
    assert!(
        changed[0][3].as_str().unwrap().contains("P→T"),
        "{changed:?}"
    );
    assert_eq!(c["drill"]["changed"], 1 + tests.len());
    assert!(
        c["hoverInfo"]
            .as_str()
            .unwrap()
            .contains("A pass → B time_limit"),
        "{}",
        c["hoverInfo"]
    );
    assert!(c["codes"][0].as_str().unwrap().contains("range(200000)"));
    assert!(
        c["setupDiff"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().contains("30000000")),
        "the setup diff shows B's fuel: {}",
        c["setupDiff"]
    );
    let layout = &c["diffLayout"];
    assert_eq!(layout["layout"], "unified", "{layout}");
    assert_eq!(
        (
            layout["unifiedShown"].as_bool(),
            layout["splitShown"].as_bool()
        ),
        (Some(true), Some(false))
    );
    assert!(
        layout["removed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().contains("4000000000")),
        "the unified diff shows A's fuel removed: {layout}"
    );
    for name in ["eval-report.png", "eval-drilldown.png", "compare.png"] {
        assert!(shots.join(name).is_file(), "no screenshot {name}");
    }
}

/// The row label (`s4`) of the hostile solution in `out`'s T/0.
fn hostile_label(out: &Path) -> String {
    let p = json(&out.join("problems/T_0.json"));
    let k = p["solutions"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["source"].as_str().unwrap().contains("onerror"))
        .expect("the hostile solution survived the import");
    format!("s{}", k + 1)
}

/// Stderr with the temporary directory replaced, for snapshots.
fn redact(text: &str, dir: &Path) -> String {
    text.replace(dir.to_str().unwrap(), "[TMP]")
}

/// Not an eval output, a run directory, and a damaged eval output: exit 2 and a message that
/// names the directory or the file.
#[test]
fn report_refuses_what_it_cannot_render() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let empty = w.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let run = w.join("run");
    std::fs::create_dir(&run).unwrap();
    std::fs::write(run.join("journal.jsonl"), "").unwrap();

    let mut transcript = String::new();
    for args in [
        vec!["report", empty.to_str().unwrap()],
        vec!["report", run.to_str().unwrap()],
        vec!["report", w.join("missing").to_str().unwrap()],
    ] {
        let o = dixit(&args);
        o.expect_code(2);
        assert!(o.stdout.is_empty(), "{}", o.stdout);
        transcript.push_str(&format!(
            "$ dixit {}\n{}\n",
            redact(&args.join(" "), w),
            redact(&o.stderr, w)
        ));
    }
    insta::assert_snapshot!(transcript);

    // A problem file that does not fit its report names the file.
    let corpus = w.join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    write_corpus(&corpus);
    let eval = w.join("eval");
    let (c, o) = (corpus.to_str().unwrap(), eval.to_str().unwrap());
    dixit(&[
        "eval", "--quiet", "--corpus", c, "--only", "T/1", "--out", o,
    ])
    .expect_code(0);
    let file = eval.join("problems/T_1.json");
    let intact = std::fs::read_to_string(&file).unwrap();
    let mut damaged: Value = serde_json::from_str(&intact).unwrap();
    damaged["rows"][0] = Value::from("P");
    std::fs::write(&file, damaged.to_string()).unwrap();
    let o = dixit(&["report", eval.to_str().unwrap()]);
    o.expect_code(2);
    assert!(
        o.stderr
            .contains("problems/T_1.json: row 0 has 1 verdicts for 2 tests"),
        "{}",
        o.stderr
    );
    std::fs::write(&file, "{").unwrap();
    let o = dixit(&["report", eval.to_str().unwrap()]);
    o.expect_code(2);
    assert!(
        o.stderr
            .contains("problems/T_1.json is not a problem matrix"),
        "{}",
        o.stderr
    );
    std::fs::remove_file(&file).unwrap();
    let o = dixit(&["report", eval.to_str().unwrap()]);
    o.expect_code(2);
    assert!(
        o.stderr
            .contains("no file holds T/1, which report.json lists"),
        "{}",
        o.stderr
    );
    // And the intact one renders.
    std::fs::write(&file, intact).unwrap();
    dixit(&["report", eval.to_str().unwrap()]).expect_code(0);
    assert!(eval.join("report.html").is_file());
}
