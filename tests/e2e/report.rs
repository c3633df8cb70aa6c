//! `dixit report` (issue 11): the eval report and the comparison page, the run reports of
//! a converged run, a run that needs human judgement and a stalled one, and the page of
//! `dixit compare --out DIR` (with a click from its grid into a run's page), opened in Debian's
//! chromium by `tests/browser/check_reports.mjs` (Playwright), which clicks as a reader would
//! and prints what the page showed; the assertions are here. The eval outputs come from real
//! `dixit eval --out` runs on a small corpus written into a temporary directory: two problems,
//! a solution whose text is hostile HTML, a test with a hostile comment, a wrong test, and a
//! slow solution that passes with the default fuel and runs out of a small budget (so the
//! comparison of the two evaluations has changed cells and a changed pick). The runs are
//! `fixtures/projects/median` (converged, with a disagreement no test checks), the recorded
//! real run `fixtures/runs/to_roman-qwen1.5b`, and a stalled project with hostile agent output
//! written here. Also: the disagreement finder on the fixture and on the real run, every
//! protocol's report, and the JUnit export (read by python3's XML parser).
//!
//! Needs `node` and `chromium` and `npm ci` in `tests/browser` (`scripts/test` installs them);
//! without them the browser test fails, saying what to install.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{
    copy_tree, dixit, dixit_at, fixture, root, the_run, triangle, write_codet, CodetProblem,
    Output, Redactor,
};

const HOSTILE_SOLUTION: &str = "    return '</script><img src=x onerror=alert(1)>' and x + 1\n";

/// The corpus: CodeT's four files for two problems (see the module doc).
fn write_corpus(dir: &Path) {
    write_corpus_with_ids(dir, ["T/0", "T/1"]);
}

/// The corpus of [`write_corpus`] with its two problems named `ids`.
fn write_corpus_with_ids(dir: &Path, ids: [&str; 2]) {
    write_codet(
        dir,
        &[
            CodetProblem {
                id: ids[0],
                prompt: "def f(x):\n",
                entry: "f",
                canonical: "    return x + 1\n",
                check: "def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(5) == 6\n",
                solutions: &[
                    "    return x + 1\n",
                    "    return x + 1\n",
                    "    return x\n",
                    HOSTILE_SOLUTION,
                    "    s = 0\n    for i in range(200000):\n        s += i\n    return x + 1\n",
                ],
                tests: &[
                    "f(1) == 2\nassert f(2) == 3\n",
                    "f(0) == 0\n",
                    "f(3) == 4  # </script><script>alert(2)</script>\n",
                ],
            },
            CodetProblem {
                id: ids[1],
                prompt: "def g(s):\n",
                entry: "g",
                canonical: "    return s[::-1]\n",
                check: "def check(candidate):\n    assert candidate('ab') == 'ba'\n    assert candidate('') == ''\n",
                solutions: &[
                    "    return s[::-1]\n",
                    "    return s\n",
                    "    return ''.join(reversed(s))\n",
                ],
                tests: &["g('ab') == 'ba'\n", "g('') == ''\n"],
            },
        ],
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
pub(super) fn browser_driver() -> PathBuf {
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
        ("MaxPass (most tests passed)", "max_pass_pct"),
        ("CodeT dual agreement", "dual_agreement_pct"),
        (
            "dual agreement, unique tests",
            "dual_agreement_unique_tests_pct",
        ),
        ("MBR-exec (most samples answering alike)", "mbr_exec_pct"),
        ("B4 (Beta-Bernoulli posterior)", "b4_pct"),
        ("SRank (answer clusters × agreement)", "srank_pct"),
        ("Dixit band (most IDEAL tests)", "dixit_band_pct"),
        ("Dixit band, unique tests", "dixit_band_unique_tests_pct"),
        ("Dixit loop simulation", "dixit_loop_pct"),
        ("band → CodeT, IDEAL tests only", "codet_ideal_tests_pct"),
        ("band → B4, IDEAL tests only", "b4_ideal_tests_pct"),
        (
            "band → SRank, IDEAL tests' pass rate",
            "srank_ideal_tests_pct",
        ),
        (
            "band → CodeT among IDEAL passers",
            "codet_ideal_passers_pct",
        ),
        ("band → B4 among IDEAL passers", "b4_ideal_passers_pct"),
        (
            "band → SRank among IDEAL passers",
            "srank_ideal_passers_pct",
        ),
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
    let problem = json(&a.join("problems/T%2F0.json"));
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
    let p = json(&out.join("problems/T%2F0.json"));
    let k = p["solutions"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["source"].as_str().unwrap().contains("onerror"))
        .expect("the hostile solution survived the import");
    format!("s{}", k + 1)
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

    let outs: Vec<Output> = [
        vec!["report", empty.to_str().unwrap()],
        vec!["report", run.to_str().unwrap()],
        vec!["report", w.join("missing").to_str().unwrap()],
    ]
    .iter()
    .map(|args| dixit(args))
    .collect();
    for o in &outs {
        o.expect_code(2);
        assert!(o.stdout.is_empty(), "{}", o.stdout);
    }
    insta::assert_snapshot!(Redactor::new().path(w, "[TMP]").transcripts(&outs));
    // --junit exports runs only.
    dixit(&["report", empty.to_str().unwrap(), "--junit", "x.xml"]).expect_code(2);

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
    let file = eval.join("problems/T%2F1.json");
    let intact = std::fs::read_to_string(&file).unwrap();
    let mut damaged: Value = serde_json::from_str(&intact).unwrap();
    damaged["rows"][0] = Value::from("P");
    std::fs::write(&file, damaged.to_string()).unwrap();
    let o = dixit(&["report", eval.to_str().unwrap()]);
    o.expect_code(2);
    assert!(
        o.stderr
            .contains("problems/T%2F1.json: row 0 has 1 verdicts for 2 tests"),
        "{}",
        o.stderr
    );
    std::fs::write(&file, "{").unwrap();
    let o = dixit(&["report", eval.to_str().unwrap()]);
    o.expect_code(2);
    assert!(
        o.stderr
            .contains("problems/T%2F1.json is not a problem matrix"),
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

/// Two problem ids that once shared a file name (`T/0` and `T_0` were both `T_0.json`) each keep
/// their own file under `--out`, and the report renders both. An output whose files are named
/// the older way still renders (files are matched by the id they hold), and a leftover of the
/// older naming beside the current file is ignored.
#[test]
fn problem_ids_that_look_alike_keep_their_own_files() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let corpus = w.join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    write_corpus_with_ids(&corpus, ["T/0", "T_0"]);
    let out = w.join("out");
    dixit(&[
        "eval",
        "--quiet",
        "--corpus",
        corpus.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ])
    .expect_code(0);
    let mut files: Vec<String> = std::fs::read_dir(out.join("problems"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["T%2F0.json", "T_0.json"]);
    assert_eq!(json(&out.join("problems/T%2F0.json"))["id"], "T/0");
    assert_eq!(json(&out.join("problems/T_0.json"))["id"], "T_0");
    let report = json(&out.join("report.json"));
    let ids: Vec<&str> = report["results"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["T/0", "T_0"]);
    dixit(&["report", out.to_str().unwrap()]).expect_code(0);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains(r#""problems":["T/0","T_0"]"#),
        "both problems are drawn"
    );

    // Older naming: `T/0` alone, its file renamed as earlier versions named it.
    let old = w.join("old");
    dixit(&[
        "eval",
        "--quiet",
        "--corpus",
        corpus.to_str().unwrap(),
        "--only",
        "T/0",
        "--out",
        old.to_str().unwrap(),
    ])
    .expect_code(0);
    let current = old.join("problems/T%2F0.json");
    let older = old.join("problems/T_0.json");
    std::fs::copy(&current, &older).unwrap();
    dixit(&["report", old.to_str().unwrap()]).expect_code(0);
    std::fs::remove_file(&current).unwrap();
    dixit(&["report", old.to_str().unwrap()]).expect_code(0);
    let html = std::fs::read_to_string(old.join("report.html")).unwrap();
    assert!(html.contains(r#""problems":["T/0"]"#));
}

// ---- run reports ----

/// `dixit ARGS` in `cwd`: (exit code, stdout, stderr).
fn run_in(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let o = dixit_at(cwd, args, &[]);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The report path `dixit run` printed (`  report: PATH`).
fn printed_report(stdout: &str) -> PathBuf {
    let line = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("report: "))
        .unwrap_or_else(|| panic!("no report line in:\n{stdout}"));
    PathBuf::from(line)
}

/// A hidden test whose file name is hostile markup (it reaches the page and the JUnit file).
const HOSTILE_HIDDEN: &str = "test_a&b\"<c>'.py";

/// A script entry whose reply is one Python code block.
fn block(agent: &str, code: &str) -> String {
    format!("[[{agent}]]\ntext = '''\n```python\n{code}\n```\n'''\n\n")
}

/// A project whose run stalls in round 1, with hostile text wherever an agent writes: coder-1's
/// code (a comment that closes a script and opens an img, an exception class named as markup),
/// the testers' tests (hostile comments), and a hidden test with a hostile file name. tester-1's
/// two tests expect wrong values (TOO_HARD twice: it hibernates); tester-2's first test is
/// failed by two coders of three (TOO_HARD), its second does not build (INVALID).
fn stalled_project(dir: &Path) -> PathBuf {
    let p = dir.join("stalled");
    std::fs::create_dir_all(p.join("hidden")).unwrap();
    std::fs::write(
        p.join("dixit.toml"),
        "[project]\nlanguage = \"python\"\n[protocol]\ncoders = 3\ntesters = 2\n\
         max_tester_retries = 1\nmax_rounds = 3\n[agents]\nbackend = \"script\"\nscript = \"script.toml\"\n",
    )
    .unwrap();
    std::fs::write(
        p.join("spec.md"),
        "Write `f(x)` in `solution.py`: for x >= 0 it returns 2*x; for x < 0 it returns 0.\n",
    )
    .unwrap();
    std::fs::write(
        p.join("hidden").join(HOSTILE_HIDDEN),
        "from solution import f\nassert f(0) == 0\n",
    )
    .unwrap();
    let script = [
        block(
            "coder-1",
            "# </script><img src=x onerror=alert(1)> is a comment, never markup\n\
             Weird = type(\"<img src=x onerror=alert(1)>\", (ValueError,), {})\n\n\n\
             def f(x):\n    if x < 0:\n        raise Weird(\"</b>negative\")\n    return 2 * x",
        ),
        block("coder-2", "def f(x):\n    return 2 * x"),
        block("coder-3", "def f(x):\n    return 2 * x if x >= 0 else 0"),
        block("tester-1", "from solution import f\n\nassert f(2) == 5"),
        block(
            "tester-1",
            "from solution import f\n\nassert f(3) == 7  # '<script>alert(3)</script>'",
        ),
        block(
            "tester-2",
            "from solution import f\n\nassert f(-1) == 0 and f(2) == 4  # <img src=x onerror=alert(2)>",
        ),
        block("tester-2", "from solution import f\n\ndef broken(:\n    pass"),
    ]
    .concat();
    std::fs::write(p.join("script.toml"), script).unwrap();
    p
}

/// The JUnit XML at `path` as python3's XML parser reads it: the root's tag and attributes and,
/// per testsuite, its attributes and its testcases (name, class, the tags of their children
/// and those children's messages).
fn junit(path: &Path) -> Value {
    const READ: &str = "import json, sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
print(json.dumps({'tag': r.tag, 'attrs': r.attrib, 'suites': [
    {'attrs': s.attrib, 'cases': [{'name': c.get('name'), 'classname': c.get('classname'),
        'result': [x.tag for x in c], 'message': [x.get('message') for x in c]}
        for c in s.findall('testcase')]} for s in r.findall('testsuite')]}))";
    let o = Command::new("python3")
        .args(["-c", READ])
        .arg(path)
        .output()
        .expect("python3 runs");
    assert!(
        o.status.success(),
        "{} is not well-formed XML: {}",
        path.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// One testsuite of a parsed JUnit file, by coder.
fn suite_of<'a>(j: &'a Value, coder: &str) -> &'a Value {
    j["suites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["attrs"]["name"] == coder)
        .unwrap_or_else(|| panic!("no testsuite {coder} in {j}"))
}

/// The answers the summary records for `call`, as `answer ← coders`.
fn answers_for(disagreements: &Value, call: &str) -> Vec<String> {
    let input = disagreements["functions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["inputs"].as_array().unwrap())
        .find(|i| i["call"] == call)
        .unwrap_or_else(|| panic!("{call} is not among the disagreements: {disagreements}"));
    input["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let coders: Vec<&str> = a["coders"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect();
            format!("{} ← {}", a["answer"].as_str().unwrap(), coders.join(", "))
        })
        .collect()
}

/// A page without its footer (the generation time), to compare two renderings.
fn without_footer(html: &str) -> String {
    let a = html.find("<footer").unwrap();
    let b = html[a..].find("</footer>").unwrap() + a;
    format!("{}{}", &html[..a], &html[b..])
}

/// The three kinds of run report in chromium: the decision sentence, the test count, the
/// drill-down of the final matrix on click, links from the decision into collapsed tests,
/// hostile agent output shown as text, no request but the file; screenshots in
/// `target/report-screenshots/`. And their JUnit files, read by a real XML parser.
#[test]
fn run_reports_in_chromium() {
    let driver = browser_driver();
    let work = tempfile::tempdir().unwrap();
    let w = work.path();

    let median = w.join("median");
    copy_tree(&fixture("projects/median"), &median);
    let (code, out, err) = run_in(w, &["run", "median"]);
    assert_eq!(code, 0, "converged: {out}{err}");
    let converged = the_run(&median);
    assert_eq!(printed_report(&out), converged.join("report.html"));

    let human = w.join("to_roman");
    copy_tree(&fixture("runs/to_roman-qwen1.5b"), &human);
    let human_junit = w.join("to_roman.xml");
    let (code, out, err) = run_in(
        w,
        &[
            "report",
            "to_roman",
            "--junit",
            human_junit.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.trim(), "to_roman/report.html");

    let stalled_p = stalled_project(w);
    let stalled_junit = w.join("stalled.xml");
    let (code, out, err) = run_in(
        w,
        &["run", "stalled", "--junit", stalled_junit.to_str().unwrap()],
    );
    assert_eq!(code, 1, "a stall is a stop for human judgement: {out}{err}");
    let stalled = the_run(&stalled_p);
    assert_eq!(printed_report(&out), stalled.join("report.html"));
    for run in [&converged, &human, &stalled] {
        let html = std::fs::read_to_string(run.join("report.html")).unwrap();
        assert!(
            !html.contains("<img"),
            "hostile text reached the markup of {}",
            run.display()
        );
    }

    // Recorded runs whose protocol's own verdict is good but something known disagrees.
    let mut doubtful = Vec::new();
    for (label, run) in [
        ("debate", "ipv4-debate-qwen1.5b"),
        ("blind", "compress-blind-qwen1.5b"),
    ] {
        let dir = w.join(label);
        copy_tree(&fixture(&format!("runs/{run}")), &dir);
        let (code, out, err) = run_in(w, &["report", label]);
        assert_eq!(code, 0, "{out}{err}");
        doubtful.push((label, dir));
    }

    let shots = root().join("target/report-screenshots");
    let page = |label: &str, dir: &Path| format!("{label}={}", dir.join("report.html").display());
    let o = Command::new("node")
        .arg(&driver)
        .args(["--run", &page("converged", &converged)])
        .args(["--run", &page("human", &human)])
        .args(["--run", &page("stalled", &stalled)])
        .args(["--run", &page(doubtful[0].0, &doubtful[0].1)])
        .args(["--run", &page(doubtful[1].0, &doubtful[1].1)])
        .args(["--shots", shots.to_str().unwrap()])
        .output()
        .expect("node runs");
    assert!(
        o.status.success(),
        "the browser driver failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let seen: Value = serde_json::from_slice(&o.stdout).unwrap();
    for r in seen["requests"].as_array().unwrap() {
        assert!(r.as_str().unwrap().starts_with("file:"), "request to {r}");
    }
    for k in ["blocked", "pageErrors", "consoleErrors", "dialogs"] {
        assert_eq!(seen[k], Value::Array(vec![]), "{k}");
    }
    let runs = &seen["runs"];
    for label in ["converged", "human", "stalled"] {
        let r = &runs[label];
        assert_eq!(r["imgElements"], 0, "{label}");
        assert!(r["csp"].as_str().unwrap().starts_with("default-src 'none'"));
        assert!(
            r["toc"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t == "Disagreements"),
            "{label}"
        );
    }

    // Green only when everything known agrees: a debate winner failing the hidden tests, a
    // blind "verified" whose own tests fail.
    for (label, fact) in [
        ("debate", "coder-1 fails hidden tests (0/1 pass)"),
        ("blind", "coder-1's own tests fail (0/2 pass)"),
    ] {
        let r = &runs[label];
        let class = r["leadClass"].as_str().unwrap();
        assert!(!class.contains("dx-good"), "{label}: {class}");
        assert!(
            r["doubts"].as_str().unwrap_or_default().contains(fact),
            "{label}: {}",
            r["doubts"]
        );
    }
    // The stop for a person offers its choices as commands.
    let choices: Vec<&str> = runs["human"]["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    for c in [
        "leave-behind coder-4",
        "drop-test 1",
        "drop-test 2",
        "accept",
    ] {
        assert!(
            choices
                .iter()
                .any(|x| x.contains("dixit decide") && x.contains(c)),
            "{c}: {choices:?}"
        );
    }
    assert!(runs["converged"]["choices"].as_array().unwrap().is_empty());
    // It leads with the evidence: per coder the suite and the hidden results, the balance, and
    // the disagreements grouped by the odd one out; then the choices.
    let e = &runs["human"]["evidence"];
    assert_eq!(
        e["coders"][3], "coder-4: fails tests 1 and 2 of 2 · hidden tests 0/1",
        "{e}"
    );
    assert_eq!(
        e["coders"][0], "coder-1: passes all 2 suite tests · hidden tests 1/1",
        "{e}"
    );
    assert_eq!(
        e["balance"],
        serde_json::json!([
            "3 of 4 coders and the hidden tests agree with tests 1 and 2; coder-4 alone fails them."
        ])
    );
    assert_eq!(
        e["odd"],
        serde_json::json!([
            "coder-4 alone answers differently on 32 of the 36 calls the tests made."
        ])
    );
    let order: Vec<&str> = runs["human"]["leadOrder"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    let at = |id: &str| order.iter().position(|x| *x == id).unwrap_or(usize::MAX);
    assert!(
        at("dx-stop") < at("dx-evidence") && at("dx-evidence") < at("dx-choices"),
        "{order:?}"
    );
    assert!(runs["converged"]["evidence"]["coders"]
        .as_array()
        .unwrap()
        .is_empty());

    // Converged, with one admitted test; the disagreement no test checks is named.
    let c = &runs["converged"];
    let summary = json(&converged.join("summary.json"));
    assert!(
        c["stop"].as_str().unwrap().starts_with("Converged"),
        "{}",
        c["stop"]
    );
    assert_eq!(c["suiteCount"], summary["suite"].as_array().unwrap().len());
    assert_eq!(c["suiteCount"], 1);
    assert_eq!(c["suiteRows"], 1);
    assert!(
        c["lead"]
            .as_str()
            .unwrap()
            .contains("different answers to 2 calls"),
        "{}",
        c["lead"]
    );
    let shown = &c["disagreements"][0];
    assert_eq!(shown["call"], "median([4, 1, 3, 2])");
    assert_eq!(
        shown["answers"],
        serde_json::json!(["2.5 ← coder-1, coder-3", "2 ← coder-2"])
    );
    assert_eq!(c["drillHiddenBefore"], true);
    let drill = &c["drill"];
    assert_eq!(drill["hidden"], false);
    let suite_test = std::fs::read_to_string(converged.join("suite/test_001.py")).unwrap();
    assert_eq!(
        drill["code"].as_str().unwrap().trim_end(),
        suite_test.trim_end()
    );
    assert!(drill["heading"]
        .as_str()
        .unwrap()
        .contains("test 1 (test_001.py by tester-1"));
    assert_eq!(c["charts"], 3, "suite size, classifications, tokens");

    // Human judgement: coder-4 and the two tests it cannot pass; a click on its failing cell.
    let h = &runs["human"];
    assert!(
        h["stop"]
            .as_str()
            .unwrap()
            .contains("coder-4 cannot pass tests 1, 2"),
        "{}",
        h["stop"]
    );
    assert_eq!(h["suiteCount"], 2);
    assert!(h["drill"]["heading"]
        .as_str()
        .unwrap()
        .starts_with("coder-4 × test 1"));
    assert!(h["drill"]["verdict"]
        .as_str()
        .unwrap()
        .contains("wrong_answer"));
    // A journal of format 1.0 kept no evidence; the command to run the cell again is there.
    assert_eq!(h["drill"]["evidence"], Value::Null);
    assert!(h["drill"]["again"].as_str().unwrap().starts_with(
        "dixit exec --solution implementations/coder-4 --test suite/test_001.py --seed "
    ));
    assert!(h["hoverInfo"].as_str().unwrap().contains("wrong_answer"));
    assert_eq!(h["openedBefore"], false);
    assert_eq!(h["opened"]["id"], "test-1");
    assert_eq!(h["opened"]["open"], true);
    assert!(h["opened"]["code"]
        .as_str()
        .unwrap()
        .contains("to_roman(1) == \"I\""));
    assert_eq!(
        h["diffShown"],
        serde_json::json!(["0"]),
        "coder-2 against coder-1"
    );

    // Stalled: four rejected classifications, the decision links into them, hostile text as
    // text.
    let s = &runs["stalled"];
    assert!(
        s["stop"].as_str().unwrap().contains("stalled"),
        "{}",
        s["stop"]
    );
    assert_eq!(s["suiteCount"], 0);
    let classes: Vec<&str> = s["rejectedRows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[1].as_str().unwrap())
        .collect();
    assert_eq!(
        classes.iter().filter(|c| c.ends_with("TOO_HARD")).count(),
        3,
        "{classes:?}"
    );
    assert_eq!(
        classes.iter().filter(|c| c.ends_with("INVALID")).count(),
        1,
        "{classes:?}"
    );
    assert_eq!(s["opened"]["open"], true);
    // The stalled run's evidence names who fails the hibernating tester's tests, and the
    // choices wake it or discard them.
    let balance = s["evidence"]["balance"].as_array().unwrap();
    assert!(
        balance.iter().any(|b| b
            .as_str()
            .unwrap()
            .starts_with("tester-1 hibernates with tester-1#")),
        "{balance:?}"
    );
    let choices: Vec<&str> = s["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    for c in ["wake tester-1", "discard tester-1", "accept"] {
        assert!(choices.iter().any(|x| x.contains(c)), "{c}: {choices:?}");
    }
    // The first link is tester-2's TOO_HARD test (tester-1's are named with its hibernation).
    assert!(s["opened"]["code"]
        .as_str()
        .unwrap()
        .contains("assert f(-1) == 0"));
    // The solution's exception class named like markup crosses as its built-in base.
    assert_eq!(
        s["disagreements"][0]["answers"],
        serde_json::json!(["raises ValueError ← coder-1", "-2 ← coder-2", "0 ← coder-3"])
    );

    // JUnit: one testsuite per coder; the escaping survives a real XML parser.
    let j = junit(&human_junit);
    assert_eq!(j["tag"], "testsuites");
    assert_eq!(j["suites"].as_array().unwrap().len(), 4);
    let c4 = suite_of(&j, "coder-4");
    assert_eq!(
        c4["attrs"]["tests"], "3",
        "two suite tests and the hidden one"
    );
    assert_eq!(c4["attrs"]["failures"], "3");
    assert_eq!(c4["cases"][0]["result"], serde_json::json!(["failure"]));
    assert!(c4["cases"][0]["message"][0]
        .as_str()
        .unwrap()
        .starts_with("wrong_answer"));
    assert_eq!(suite_of(&j, "coder-1")["attrs"]["failures"], "0");
    let j = junit(&stalled_junit);
    let c1 = suite_of(&j, "coder-1");
    assert_eq!(c1["cases"][0]["name"], HOSTILE_HIDDEN);
    assert_eq!(c1["cases"][0]["classname"], "coder-1.hidden");
    assert_eq!(c1["cases"][0]["result"], serde_json::json!([]), "passed");

    for name in [
        "run-converged.png",
        "run-human.png",
        "run-stalled.png",
        "run-human-matrix.png",
        "run-converged-disagreements.png",
    ] {
        assert!(shots.join(name).is_file(), "no screenshot {name}");
    }
}

/// The fixture `median` converges, yet coder-2 answers median([4, 1, 3, 2]) with 2 where the
/// others answer 2.5: the only test that calls it (tester-2's, TOO_EASY) checks just that the
/// answer is a number. summary.json and the report name that input; `dixit report` renders
/// the same page again; [7, 7] (7 and 7.0) is not a disagreement. And on the recorded real run.
#[test]
fn the_disagreement_finder_names_an_input_no_test_checks() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let median = w.join("median");
    copy_tree(&fixture("projects/median"), &median);
    let (code, out, err) = run_in(w, &["run", "median"]);
    assert_eq!(code, 0, "{out}{err}");
    let run = the_run(&median);
    let summary = json(&run.join("summary.json"));
    let d = &summary["disagreements"];
    assert_eq!(
        d["implementations"],
        serde_json::json!(["coder-1", "coder-2", "coder-3"])
    );
    assert_eq!(
        answers_for(d, "median([4, 1, 3, 2])"),
        ["2.5 ← coder-1, coder-3", "2 ← coder-2"]
    );
    let input = &d["functions"][0]["inputs"][0];
    assert_eq!(
        input["args"],
        serde_json::json!([[{"int": "4"}, {"int": "1"}, {"int": "3"}, {"int": "2"}]])
    );
    let made_by: Vec<&str> = input["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(made_by.contains(&"tester-2#0 (TOO_EASY)"), "{made_by:?}");
    // No admitted test calls it.
    let suite: Vec<String> = summary["suite"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            std::fs::read_to_string(run.join("suite").join(t["file"].as_str().unwrap())).unwrap()
        })
        .collect();
    assert!(!suite.is_empty() && suite.iter().all(|s| !s.contains("[4, 1, 3, 2]")));
    let calls: Vec<&str> = d["functions"][0]["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["call"].as_str().unwrap())
        .collect();
    assert!(!calls.contains(&"median([7, 7])"), "7 == 7.0: {calls:?}");
    assert!(d["agreed"].as_u64().unwrap() >= 1 && d["calls"].as_u64().unwrap() >= 3);
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(page.contains("<code>median([4, 1, 3, 2])</code>"));
    assert!(page.contains("<code>2</code> ← coder-2"));

    // Replayable: the report of the recorded run is the same page, and the run replays exactly.
    let again = w.join("again.html");
    let (code, out, err) = run_in(
        w,
        &[
            "report",
            run.to_str().unwrap(),
            "-o",
            again.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        without_footer(&std::fs::read_to_string(&again).unwrap()),
        without_footer(&page),
        "dixit report renders the page dixit run wrote"
    );
    let (code, out, err) = run_in(w, &["replay", run.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("reproduced exactly"), "{out}");

    // The recorded real run: coder-4 answers differently where the hidden test asks for a
    // ValueError on "7" and on 2.5, inputs no suite test exercises.
    let real = w.join("to_roman");
    copy_tree(&fixture("runs/to_roman-qwen1.5b"), &real);
    let (code, out, err) = run_in(w, &["report", "to_roman"]);
    assert_eq!(code, 0, "{out}{err}");
    let page = std::fs::read_to_string(real.join("report.html")).unwrap();
    assert!(
        page.contains("<code>raises TypeError</code> ← coder-4"),
        "to_roman('7')"
    );
    assert!(page.contains("<code>raises ValueError</code> ← coder-1, coder-2, coder-3"));
    assert!(page.contains("<code>''</code> ← coder-4"), "to_roman(1)");

    // Issue 19: an implementation that answers honestly only when it thinks it is probed (by
    // the finder's program, its argv, its modules) cannot hide: the finder runs ordinary tests.
    let liar = w.join("liar");
    copy_tree(&fixture("runs/to_roman-qwen1.5b"), &liar);
    let sol = liar.join("implementations/coder-1/solution.py");
    let mut source = std::fs::read_to_string(&sol).unwrap();
    source.push_str(concat!(
        "\nimport sys as _sys\n",
        "_watched = any('consensus' in str(getattr(m, '__file__', '')) or 'probe' in str(getattr(m, '__file__', ''))\n",
        "               for m in list(_sys.modules.values())) or any('consensus' in a or 'probe' in a for a in _sys.argv)\n",
        "_real = to_roman\n\n",
        "def to_roman(n):\n",
        "    if not _watched and n == 1:\n",
        "        return 'i'\n",
        "    return _real(n)\n",
    ));
    std::fs::write(&sol, source).unwrap();
    let (code, out, err) = run_in(w, &["report", "liar"]);
    assert_eq!(code, 0, "{out}{err}");
    let page = std::fs::read_to_string(liar.join("report.html")).unwrap();
    assert!(
        page.contains("<code>'i'</code> ← coder-1"),
        "the liar is found"
    );
}

/// Every protocol writes a report with its own section, and its JUnit file has a testsuite per
/// coder holding the suite (repair: the acceptance suite; blind: none) and the hidden test.
#[test]
fn every_protocol_writes_its_report_and_junit() {
    for (protocol, section, coders, suite) in [
        ("debate", "<h2>Debate</h2>", 3, None),
        ("repair", "<h2>Repair</h2>", 2, Some(3)),
        ("blind", "<h2>Blind verification</h2>", 2, Some(0)),
        ("codet", "<h2>Dual agreement</h2>", 3, None),
    ] {
        let work = tempfile::tempdir().unwrap();
        let w = work.path();
        let p = w.join("triangle");
        copy_tree(&fixture("projects/triangle"), &p);
        let xml = w.join("junit.xml");
        let (code, out, err) = run_in(
            w,
            &[
                "run",
                "triangle",
                "--protocol",
                protocol,
                "--junit",
                xml.to_str().unwrap(),
            ],
        );
        assert!(code == 0 || code == 1, "{protocol}: {out}{err}");
        let run = the_run(&p);
        let page = std::fs::read_to_string(printed_report(&out)).unwrap();
        assert!(page.contains(section), "{protocol}: no {section}");
        assert!(page.contains("class=\"dx-stop\""), "{protocol}");
        let summary = json(&run.join("summary.json"));
        let j = junit(&xml);
        let suites = j["suites"].as_array().unwrap();
        assert_eq!(suites.len(), coders, "{protocol}");
        let suite = suite.unwrap_or_else(|| summary["suite"].as_array().unwrap().len());
        for s in suites {
            assert_eq!(
                s["attrs"]["tests"],
                (suite + 1).to_string(),
                "{protocol}: {s}"
            );
            let hidden = s["cases"].as_array().unwrap().last().unwrap();
            assert_eq!(hidden["name"], "test_hidden.py", "{protocol}");
        }
        // The same page again from the journal.
        let (code, out, err) = run_in(w, &["report", run.to_str().unwrap()]);
        assert_eq!(code, 0, "{protocol}: {out}{err}");
        assert_eq!(
            without_footer(&std::fs::read_to_string(run.join("report.html")).unwrap()),
            without_footer(&page),
            "{protocol}"
        );
    }
}

// ---- the comparison of protocols ----

/// What the grid shows for a cell of `compare.json`: `pass`, `fail` or `unjudged` for a run,
/// else `skipped` or `failed`.
fn expected_mark(cell: &Value) -> &'static str {
    let r = &cell["result"];
    match r["status"].as_str().unwrap() {
        "ran" => match r["shipped_passes"].as_bool() {
            Some(true) => "pass",
            Some(false) => "fail",
            None => "unjudged",
        },
        "skipped" => "skipped",
        _ => "failed",
    }
}

/// `dixit compare --out DIR` of single, dixit and repair over three copies of the triangle
/// fixture (scripted agents; one named with characters a URL must encode, one without an
/// acceptance suite, so `repair` skips it) writes DIR/report.html; `--merge DIR --out DIR`
/// writes it again without running anything. In chromium: one point per protocol in the rate
/// plot, the grid's marks are compare.json's, and a click on a cell opens that cell's run page.
#[test]
fn protocol_comparison_page_in_chromium() {
    let driver = browser_driver();
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let names = ["tri1", "tri #2 <b>&%20", "tri3"];
    for (k, name) in names.iter().enumerate() {
        let p = triangle(&w.join(format!("src{k}")), |c| c);
        std::fs::rename(&p, w.join(name)).unwrap();
    }
    std::fs::remove_dir_all(w.join("tri3/tests")).unwrap();
    let mut args = vec!["compare"];
    args.extend(names);
    args.extend(["--protocols", "single,dixit,repair", "--out", "cmp"]);
    let (code, out, err) = run_in(w, &args);
    assert_eq!(code, 0, "{out}{err}");
    let cmp = w.join("cmp");
    let page = cmp.join("report.html");
    assert!(page.is_file(), "no report.html beside compare.json");
    let report = json(&cmp.join("compare.json"));
    let cells = report["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 9);
    assert!(
        cells.iter().any(|c| c["result"]["status"] == "skipped"),
        "repair skips the project without tests/"
    );

    // The page again from the saved comparison: no run is made.
    let runs = || -> usize {
        names
            .iter()
            .map(|n| std::fs::read_dir(w.join(n).join("runs")).unwrap().count())
            .sum()
    };
    let before = runs();
    std::fs::remove_file(&page).unwrap();
    let (code, out, err) = run_in(w, &["compare", "--merge", "cmp", "--out", "cmp"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(page.is_file(), "--merge DIR --out DIR wrote no page");
    assert_eq!(runs(), before, "rendering ran a cell");
    assert_eq!(json(&cmp.join("compare.json")), report);

    let shots = root().join("target/report-screenshots");
    let o = Command::new("node")
        .arg(&driver)
        .args(["--protocols-page", page.to_str().unwrap()])
        .args(["--shots", shots.to_str().unwrap()])
        .output()
        .expect("node runs");
    assert!(
        o.status.success(),
        "the browser driver failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let seen: Value = serde_json::from_slice(&o.stdout).unwrap();
    for r in seen["requests"].as_array().unwrap() {
        assert!(r.as_str().unwrap().starts_with("file:"), "request to {r}");
    }
    for k in ["blocked", "pageErrors", "consoleErrors", "dialogs"] {
        assert_eq!(seen[k], Value::Array(vec![]), "{k}");
    }
    let c = &seen["protocolsPage"];
    assert_eq!(c["title"], "dixit comparison");
    assert!(c["csp"].as_str().unwrap().starts_with("default-src 'none'"));
    assert_eq!(c["imgElements"], 0);

    // One point per protocol, in the comparison's order.
    let protocols: Vec<&str> = report["protocols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    let plot: Vec<(&str, u64)> = c["ratePlot"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["key"].as_str().unwrap(), r["points"].as_u64().unwrap()))
        .collect();
    assert_eq!(plot, protocols.iter().map(|p| (*p, 1)).collect::<Vec<_>>());
    assert_eq!(
        c["costPoints"],
        serde_json::json!(protocols),
        "one cost point per protocol"
    );

    // The grid: one cell per cell of compare.json, each with its mark; a link exactly when a
    // run was made; as many ✓ and ✗ as compare.json has passes and failures.
    let grid = c["grid"].as_array().unwrap();
    let key =
        |project: &Value, protocol: &Value, mark: &str| format!("{project}|{protocol}|{mark}");
    let mut shown: Vec<String> = grid
        .iter()
        .map(|g| key(&g["project"], &g["protocol"], g["mark"].as_str().unwrap()))
        .collect();
    let mut expected: Vec<String> = cells
        .iter()
        .map(|c| key(&c["project"], &c["protocol"], expected_mark(c)))
        .collect();
    shown.sort();
    expected.sort();
    assert_eq!(shown, expected);
    let count = |sym: &str| grid.iter().filter(|g| g["text"] == sym).count();
    let passes = |v: bool| {
        cells
            .iter()
            .filter(|c| c["result"]["shipped_passes"] == v)
            .count()
    };
    assert_eq!((count("✓"), count("✗")), (passes(true), passes(false)));
    assert!(passes(true) > 0 && passes(false) > 0, "{report}");
    for g in grid {
        assert_eq!(
            g["href"].is_string(),
            g["stop"].is_string(),
            "a link exactly for a run: {g}"
        );
    }

    // Each project's first linked cell opens that cell's run page.
    let followed = c["followed"].as_array().unwrap();
    assert_eq!(followed.len(), names.len(), "{followed:?}");
    for f in followed {
        let cell = cells
            .iter()
            .find(|c| c["project"] == f["project"] && c["protocol"] == f["protocol"])
            .unwrap();
        let run = &cell["result"];
        let run_dir = std::fs::canonicalize(w.join(run["run_dir"].as_str().unwrap())).unwrap();
        assert_eq!(
            f["path"].as_str().unwrap(),
            run_dir.join("report.html").to_str().unwrap()
        );
        let title = format!("dixit run {}", run["run_id"].as_str().unwrap());
        assert_eq!(f["title"].as_str().unwrap(), title);
        assert_eq!(f["heading"].as_str().unwrap(), title);
    }
    assert!(shots.join("compare-page.png").is_file());
}
