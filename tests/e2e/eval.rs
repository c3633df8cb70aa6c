//! `dixit eval` (issue 5), through the library and the binary: the CodeT importer with the
//! compile check in the sandbox, the verdict matrix at both isolation levels, the cache, shards
//! and their merge, agreement with the native reference harness, and the CLI's handling of a
//! malformed corpus.
//!
//! They need dixit's Python runtime (componentize-py, see `toolchains/setup`); the tests on real
//! data also need the shared CodeT half (`shared/data/codet-humaneval` above the checkout) and
//! are skipped, saying so, without it.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use dixit::eval::codet::{load_codet, ImportOptions};
use dixit::eval::scoring::ScoringConfig;
use dixit::eval::{
    evaluate, EvalOptions, EvalReport, Evaluation, FuelRule, Harness, Isolation, NoProgress, Shard,
};
use dixit::sandbox::Limits;
use dixit::toolchain::Toolchains;

use crate::support::{dixit, root, shared_data, toolchains, write_codet, CodetProblem};

fn options(
    corpus: &Path,
    only: &[&str],
    isolation: Isolation,
    cache: Option<&Path>,
) -> EvalOptions {
    EvalOptions {
        corpus: corpus.to_path_buf(),
        import: ImportOptions {
            only: Some(only.iter().map(|s| s.to_string()).collect()),
            ..ImportOptions::default()
        },
        isolation,
        limits: Limits {
            fuel: 1_000_000_000,
            ..Limits::default()
        },
        fuel_rule: FuelRule::Flat,
        scoring: ScoringConfig::default(),
        processes: None,
        cache_dir: cache.map(Path::to_path_buf),
    }
}

fn run_eval(tc: &Toolchains, o: &EvalOptions) -> Evaluation {
    let runtime = tc
        .python_runtime()
        .expect("dixit's Python runtime (run toolchains/setup)");
    evaluate(tc.sandbox(), runtime, o, &NoProgress).expect("evaluation")
}

/// Exact counts after CodeT's post-processing, compile check in the sandbox. Computed with
/// CodeT's own `postprocess.py` logic (python 3.11) and, for HumanEval/2, by hand: its 100 test
/// samples have 3 that mention `truncate_number`; they give 3 tests (`assert ____, '...'`
/// compiles: `____` is a name), 5 (the first five of eight; `____ == truncate_number(123.456)`
/// twice) and 1, so 9 samples and 8 unique tests.
#[test]
fn import_counts_match_codet_postprocessing() {
    let Some(data) = shared_data() else { return };
    let tc = toolchains(16);
    let runtime = tc.python_runtime().expect("python runtime");
    let import = ImportOptions {
        only: Some(
            ["HumanEval/0", "HumanEval/2", "HumanEval/4", "HumanEval/30"]
                .map(String::from)
                .to_vec(),
        ),
        ..ImportOptions::default()
    };
    let pending = load_codet(&data, &import).unwrap();
    let harness = Harness::new(tc.sandbox(), runtime, Limits::default(), Isolation::Run);
    let compiles = harness
        .compile_check(pending.probes(), &NoProgress)
        .unwrap();
    assert!(harness.runs() > 0);
    let corpus = pending.finish(&compiles).unwrap();
    let got: Vec<(&str, u64, usize, u64, usize)> = corpus
        .problems
        .iter()
        .map(|p| {
            (
                p.id.as_str(),
                p.solution_samples(),
                p.solutions.len(),
                p.test_samples(),
                p.tests.len(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("HumanEval/0", 100, 79, 137, 129),
            ("HumanEval/2", 100, 65, 9, 8),
            ("HumanEval/4", 100, 80, 24, 23),
            ("HumanEval/30", 100, 50, 0, 0),
        ]
    );
    let two = &corpus.problems[1];
    assert_eq!(
        two.tests[0].source,
        "assert ____, 'truncate_number(7.8) is wrong'"
    );
    let dup = two
        .tests
        .iter()
        .find(|t| t.source == "assert ____ == truncate_number(123.456)")
        .unwrap();
    assert_eq!(dup.count, 2);
}

/// A tiny CodeT-format directory whose solutions exercise each verdict the harness must tell
/// apart.
fn synthetic_corpus(dir: &Path) {
    write_codet(
        dir,
        &[CodetProblem {
            id: "T/0",
            prompt: "def f(x):\n",
            entry: "f",
            canonical: "    return x + 1\n",
            check: "def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(5) == 6\n",
            solutions: &[
                "    return x + 1\n",
                "    return x\n",
                "    while True:\n        pass\n",
                "    for _ in range(3000):\n        print('spam' * 250)\n    return x + 1\n",
                "    raise SystemExit(0)\n",
                "    return f(x)\n",
                "    return x + 1\n",
                "    return x + (1 if input() else 1)\n",
                "    import os\n    os._exit(0)\n",
                // Issue 19: walks up the frames to the harness's status codes and rebinds them.
                "    import sys\n    fr = sys._getframe()\n    while fr is not None:\n        for k in ('_PASSED', '_FAILED', '_ERROR', '_EXITED'):\n            if k in fr.f_globals:\n                fr.f_globals[k] = 0\n        fr = fr.f_back\n    return -1\n",
            ],
            tests: &[
                "f(1) == 2\nassert f(2) == 3\n",
                "f(0) == 0\n# a comment ends the test\n",
            ],
        }],
    );
}

/// Issue 35: the hidden check and the generated tests run in the reference's namespace (the
/// prompt's helpers, the builtins) with only the entry point bound to the solution, at both
/// isolation levels. A completion that redefines `abs` or the prompt's helper, where the check
/// runs `helper(abs(-3))`, changes only its own module: it fails the check (before, the check ran
/// among the solution's names and passed).
#[test]
fn the_hidden_check_runs_in_the_references_namespace() {
    let dir = tempfile::tempdir().unwrap();
    write_codet(
        dir.path(),
        &[CodetProblem {
            id: "T/1",
            prompt: "def helper(x):\n    return 2 * x\n\n\ndef f(x):\n",
            entry: "f",
            canonical: "    return helper(abs(x))\n",
            check: "def check(candidate):\n    assert candidate(-3) == helper(abs(-3))\n",
            solutions: &[
                "    return helper(abs(x))\n",
                "    return 0\n\n\ndef abs(x):\n    return 0\n",
                "    return 1\n\n\ndef helper(x):\n    return 1\n",
            ],
            tests: &["f(-1) == helper(abs(-1))\n"],
        }],
    );
    let tc = toolchains(16);
    for isolation in [Isolation::Run, Isolation::Solution] {
        let e = run_eval(&tc, &options(dir.path(), &["T/1"], isolation, None));
        let m = &e.matrices[0];
        assert_eq!(m.hidden, "PWW", "{isolation}");
        assert_eq!(m.rows, ["P", "W", "W"], "{isolation}");
        assert_eq!((m.reference_hidden, m.reference_row.as_str()), ('P', "P"));
    }
}

/// Every verdict of the synthetic corpus, at both isolation levels: output is discarded (3 MB of
/// prints pass), `SystemExit(0)` is a failure, not a pass, an endless loop runs out of fuel and
/// does not disturb the next test of its instance, unbounded recursion and reading stdin fail.
/// Issue 9: a solution that ends the process (`os._exit(0)`) passes nothing, and its session is
/// never asked again (before, the ended session answered "exit 0" for every later test).
/// Issue 19: a solution that rebinds the status codes it finds up its frames fails its tests
/// (it runs apart from them: before, it passed every test and the hidden check).
/// Issue 24: what each solution answered to each call of the generated tests is read off the
/// same runs' bridge, alike at both levels, and the hidden check's calls are not among them.
#[test]
fn harness_verdicts_on_a_synthetic_corpus() {
    let dir = tempfile::tempdir().unwrap();
    synthetic_corpus(dir.path());
    let tc = toolchains(16);
    let mut results = Vec::new();
    for isolation in [Isolation::Run, Isolation::Solution] {
        let mut o = options(dir.path(), &["T/0"], isolation, None);
        o.limits.fuel = 200_000_000;
        let e = run_eval(&tc, &o);
        let m = &e.matrices[0];
        let tests: Vec<&str> = m.tests.iter().map(|t| t.source.as_str()).collect();
        assert_eq!(
            tests,
            ["assert f(1) == 2", "assert f(2) == 3", "assert f(0) == 0"]
        );
        assert_eq!(m.solutions[0].count, 2);
        assert_eq!(m.reference_row, "PPW");
        assert_eq!(m.reference_hidden, 'P');
        assert_eq!(
            m.rows,
            ["PPW", "WWP", "TTT", "PPW", "RRR", "RRR", "RRR", "RRR", "WWW"],
            "{isolation}"
        );
        assert_eq!(m.hidden, "PWTPRRRRW", "{isolation}");
        let notes: Vec<(Option<usize>, Option<usize>, &str)> = m
            .notes
            .iter()
            .filter(|n| n.solution == Some(4))
            .map(|n| (n.solution, n.test, n.note.as_str()))
            .collect();
        // The solution's SystemExit crosses as RuntimeError: it cannot end the test.
        assert_eq!(notes[0], (Some(4), None, "RuntimeError"));
        assert!(m
            .notes
            .iter()
            .any(|n| n.solution == Some(5) && n.note.contains("Recursion")));
        assert_eq!(e.report.setup.isolation, isolation);

        let o = m.outputs.as_ref().expect("answers are recorded");
        // f(5) is the hidden check's call: selection never sees it.
        assert_eq!(o.calls, ["f(1)", "f(2)", "f(0)"], "{isolation}");
        let shown = |i: usize| -> Vec<&str> {
            o.rows[i]
                .iter()
                .map(|&a| o.answers[a as usize].shown.as_str())
                .collect()
        };
        let none = "no answer (the solution's instance ended)";
        assert_eq!(shown(0), ["2", "3", "1"]);
        assert_eq!(shown(1), ["1", "2", "0"]);
        assert_eq!(shown(2), [none; 3], "an endless loop");
        assert_eq!(shown(3), ["2", "3", "1"], "its prints do not matter");
        assert_eq!(
            shown(4),
            ["raises RuntimeError"; 3],
            "SystemExit crosses as RuntimeError"
        );
        assert_eq!(shown(5), ["raises RecursionError"; 3]);
        assert_eq!(shown(6), ["raises OSError"; 3], "stdin is closed");
        assert_eq!(shown(7), [none; 3], "os._exit ends its instance");
        assert_eq!(shown(8), ["-1"; 3]);
        let p = &e.report.results.problems[0];
        // MBR-exec: s0 (x2) and s3 answer alike and only with values: 3 samples, both right.
        assert_eq!(p.mbr_exec.map(|f| (f.num, f.den)), Some((3, 3)));
        results.push((e.report.results, o.clone()));
    }
    assert_eq!(results[0], results[1]);
}

/// Issue 37: under the fuel rule the endless loop of the synthetic corpus stops at the rule's
/// cap instead of at the limit: with a floor at half the limit every verdict is the same as
/// with the flat limit, at both isolation levels, the evaluation spends at least the saved
/// half-limits less fuel, and the report records the rule. A floor far below it also stops the
/// slow solution that ends (3,000 prints): the floor is what keeps such solutions passing.
#[test]
fn the_fuel_rule_stops_an_endless_loop_early_and_changes_no_verdict() {
    let dir = tempfile::tempdir().unwrap();
    synthetic_corpus(dir.path());
    let tc = toolchains(16);
    let limit = 200_000_000;
    for isolation in [Isolation::Run, Isolation::Solution] {
        let mut flat = options(dir.path(), &["T/0"], isolation, None);
        flat.limits.fuel = limit;
        let ruled = |floor: u64| EvalOptions {
            fuel_rule: FuelRule::Reference { factor: 10, floor },
            ..flat.clone()
        };
        let (a, b) = (run_eval(&tc, &flat), run_eval(&tc, &ruled(limit / 2)));
        let (ma, mb) = (&a.matrices[0], &b.matrices[0]);
        assert_eq!(
            (&ma.rows, &ma.hidden, &ma.reference_row),
            (&mb.rows, &mb.hidden, &mb.reference_row),
            "{isolation}"
        );
        assert_eq!(mb.rows[2], "TTT", "the endless loop still runs out of fuel");
        // Its three tests and its hidden check each stop half a limit earlier.
        assert!(
            ma.fuel >= mb.fuel + 4 * (limit / 2) - limit / 10,
            "{isolation}: fuel {} under the rule, {} flat",
            mb.fuel,
            ma.fuel
        );
        assert_eq!(a.report.setup.fuel_rule, FuelRule::Flat);
        assert_eq!(b.report.setup.fuel_rule, ruled(limit / 2).fuel_rule);
        assert_eq!(a.report.results, b.report.results);

        let low = run_eval(&tc, &ruled(1_000_000));
        let ml = &low.matrices[0];
        assert_eq!(ml.rows[3], "TTT", "{isolation}: the slow solution, stopped");
        assert_eq!(
            ml.rows[0], ma.rows[0],
            "{isolation}: the right one still passes"
        );
    }
}

/// A second evaluation with the same cache executes nothing and reports the same results; the
/// matrices are identical at both isolation levels on real data.
#[test]
fn cached_rescore_performs_no_runs() {
    let Some(data) = shared_data() else { return };
    let cache = tempfile::tempdir().unwrap();
    let tc = toolchains(16);
    let only = ["HumanEval/2", "HumanEval/30", "HumanEval/42"];
    let o = options(&data, &only, Isolation::Solution, Some(cache.path()));
    let first = run_eval(&tc, &o);
    assert!(
        first.report.execution.runs > 500,
        "{:?}",
        first.report.execution
    );
    assert!(!first.report.execution.corpus_cached);
    assert_eq!(first.report.execution.cached_problems, 0);
    assert!(first.report.execution.reference_failures.is_empty());

    let second = run_eval(&tc, &o);
    let e = &second.report.execution;
    assert_eq!(
        (e.runs, e.instances),
        (0, 0),
        "a cached re-score ran something"
    );
    assert!(e.corpus_cached);
    assert_eq!(e.cached_problems, 3);
    assert_eq!(second.report.results, first.report.results);
    assert_eq!(second.matrices, first.matrices);

    // Another scoring setting re-scores from the cache too.
    let mut o3 = o.clone();
    o3.scoring.minority = 0.3;
    let third = run_eval(&tc, &o3);
    assert_eq!(third.report.execution.runs, 0);

    // The `run` level builds the same matrices (uncached: a different key).
    let run_level = run_eval(&tc, &options(&data, &only, Isolation::Run, None));
    assert!(run_level.report.execution.runs > 0);
    for (a, b) in run_level.matrices.iter().zip(&first.matrices) {
        assert_eq!((&a.rows, &a.hidden), (&b.rows, &b.hidden), "{}", a.id);
    }
}

/// The shards of an evaluation, merged, give exactly the unsharded report (setup and results;
/// execution counts summed), also after a JSON round trip; a merge names what is missing,
/// repeated or set up differently.
#[test]
fn shards_merged_equal_unsharded() {
    let Some(data) = shared_data() else { return };
    let cache = tempfile::tempdir().unwrap();
    let tc = toolchains(16);
    let only = [
        "HumanEval/2",
        "HumanEval/30",
        "HumanEval/42",
        "HumanEval/50",
        "HumanEval/52",
        "HumanEval/60",
    ];
    let whole = run_eval(
        &tc,
        &options(&data, &only, Isolation::Solution, Some(cache.path())),
    )
    .report;
    assert_eq!(whole.setup.problems, 6);
    let mut parts = Vec::new();
    for index in [2, 3, 1] {
        let mut o = options(&data, &only, Isolation::Solution, Some(cache.path()));
        o.import.shard = Some(Shard { index, count: 3 });
        let r = run_eval(&tc, &o).report;
        // The shard's own import is compile-checked (a shard checks only its problems); its
        // matrices come from the unsharded run's cache.
        assert_eq!(
            r.execution.cached_problems, r.execution.corpus.problems,
            "shards reuse the cached matrices"
        );
        assert!(r.execution.runs < 10, "{:?}", r.execution);
        assert_eq!(
            r.setup, whole.setup,
            "a shard records the whole evaluation's setup"
        );
        let text = serde_json::to_string(&r).unwrap();
        parts.push(serde_json::from_str::<EvalReport>(&text).unwrap());
    }
    let sizes: u64 = parts.iter().map(|p| p.execution.corpus.problems).sum();
    assert_eq!(sizes, 6);
    let merged = EvalReport::merge(parts.clone()).unwrap();
    assert_eq!(merged.format, whole.format);
    assert_eq!(merged.setup, whole.setup);
    assert_eq!(merged.results, whole.results);
    assert_eq!(merged.shard, None);
    assert_eq!(merged.execution.corpus, whole.execution.corpus);
    assert_eq!(merged.execution.verdicts, whole.execution.verdicts);
    assert_eq!(merged.execution.fuel, whole.execution.fuel);
    assert_eq!(
        merged.execution.reference_failures,
        whole.execution.reference_failures
    );

    let err = |parts: Vec<EvalReport>| EvalReport::merge(parts).unwrap_err().to_string();
    // parts are shards 2, 3, 1 of 3.
    assert_eq!(
        err(vec![parts[0].clone()]),
        "cannot merge: 2 of 3 shards missing: 1 and 3"
    );
    assert_eq!(
        err(vec![
            parts[0].clone(),
            parts[1].clone(),
            parts[0].clone(),
            parts[2].clone()
        ]),
        "cannot merge: shard 2 of 3 given more than once"
    );
    let mut other_fuel = parts[1].clone();
    other_fuel.setup.limits.fuel += 1;
    let msg = err(vec![parts[0].clone(), other_fuel, parts[2].clone()]);
    assert!(
        msg.contains("shard 3/3 was evaluated with another setup than shard 2/3")
            && msg.contains("setup.limits.fuel: 1000000000 vs 1000000001"),
        "{msg}"
    );
    let mut other_scoring = parts[1].clone();
    other_scoring.results.config.minority = 0.3;
    let msg = err(vec![parts[0].clone(), other_scoring, parts[2].clone()]);
    assert!(msg.contains("scoring.minority: 0.4 vs 0.3"), "{msg}");
    let mut fewer = parts[1].clone();
    fewer.execution.corpus.problems -= 1;
    let msg = err(vec![parts[0].clone(), fewer, parts[2].clone()]);
    assert_eq!(
        msg,
        "cannot merge: the shards hold 5 problems, the evaluation selected 6"
    );
    assert_eq!(
        err(vec![parts[0].clone(), whole.clone()]),
        "cannot merge: a report is not a shard (it was evaluated whole)"
    );
}

/// On the shared CodeT half, the shards of every split hold each problem exactly once and
/// balance the expected work (solutions × tests): the heaviest shard outweighs the lightest by
/// at most the heaviest problem, far closer than the old round robin. The same split is
/// computed twice alike.
#[test]
fn shards_partition_the_corpus_exactly_and_balance_expected_work() {
    let Some(data) = shared_data() else { return };
    let whole = load_codet(&data, &ImportOptions::default()).unwrap();
    let weights: std::collections::HashMap<String, u64> = whole
        .expected_cells()
        .into_iter()
        .map(|(id, w)| (id.to_string(), w))
        .collect();
    let ids: Vec<String> = whole
        .expected_cells()
        .iter()
        .map(|(id, _)| id.to_string())
        .collect();
    assert_eq!(ids.len(), 82);
    let heaviest = *weights.values().max().unwrap();
    for count in [2u32, 6, 8, 16, 100] {
        let mut seen: Vec<String> = Vec::new();
        let mut loads = Vec::new();
        for index in 1..=count {
            let options = ImportOptions {
                shard: Some(Shard { index, count }),
                ..ImportOptions::default()
            };
            let part = load_codet(&data, &options).unwrap();
            assert_eq!(part.selected_problems(), 82);
            if count == 8 {
                let again = load_codet(&data, &options).unwrap();
                assert_eq!(
                    part.expected_cells(),
                    again.expected_cells(),
                    "deterministic"
                );
            }
            let cells: Vec<(&str, u64)> = part.expected_cells();
            for (id, w) in &cells {
                assert_eq!(weights[*id], *w);
            }
            loads.push(cells.iter().map(|(_, w)| w).sum::<u64>());
            seen.extend(cells.iter().map(|(id, _)| id.to_string()));
        }
        // Exactly once each; each shard keeps data order, so sorting by position restores it.
        seen.sort_by_key(|id| ids.iter().position(|x| x == id));
        assert_eq!(seen, ids, "{count} shards");
        let (lo, hi) = (loads.iter().min().unwrap(), loads.iter().max().unwrap());
        assert!(hi - lo <= heaviest, "{count} shards: {loads:?}");
        if count <= 16 {
            let mut rr = vec![0u64; count as usize];
            for (k, id) in ids.iter().enumerate() {
                rr[k % count as usize] += weights[id];
            }
            let rr_spread = rr.iter().max().unwrap() - rr.iter().min().unwrap();
            eprintln!("{count} shards: cells per shard {lo}..{hi}; round robin spread {rr_spread}");
            assert!(
                hi - lo < rr_spread,
                "{count} shards: {loads:?} vs round robin {rr:?}"
            );
        }
    }
}

/// A malformed corpus line is an error naming the file and the line, and the CLI exits with the
/// usage code (2).
#[test]
fn malformed_corpus_line_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    synthetic_corpus(dir.path());
    let mut solutions = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join("X_code_solution.jsonl"))
        .unwrap();
    writeln!(
        solutions,
        "{{\"prompt\": \"def f(x):\\n\", \"samples\": [1]}}"
    )
    .unwrap();
    let out = dixit(&[
        "eval",
        "--no-cache",
        "--corpus",
        dir.path().to_str().unwrap(),
    ]);
    out.expect_code(2);
    assert!(
        out.stderr
            .contains("X_code_solution.jsonl:2: malformed jsonl line"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "{}", out.stdout);
}

/// The CLI on one real problem: the table states the isolation level, `--json` parses back as a
/// report, and `--out` saves the matrices.
#[test]
fn cli_table_json_and_out() {
    let Some(data) = shared_data() else { return };
    let out_dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["eval", "--quiet", "--no-cache", "--isolation", "solution"];
        args.extend(["--only", "HumanEval/2", "--corpus", data.to_str().unwrap()]);
        args.extend(extra);
        let out = dixit(&args);
        out.expect_code(0);
        out.stdout
    };
    let table = run(&[]);
    assert!(table.contains("isolation: solution"), "{table}");
    for strategy in [
        "random baseline",
        "MaxPass",
        "CodeT dual agreement",
        "MBR-exec",
        "B4",
        "SRank",
        "Dixit band",
        "Dixit loop",
        "band → CodeT",
        "band → B4",
        "band → SRank",
    ] {
        assert!(
            table
                .lines()
                .any(|l| l.contains(strategy) && l.ends_with('%')),
            "{strategy} has no pass@1 in\n{table}"
        );
    }
    assert!(!table.contains("not scored"), "{table}");
    assert!(table.contains("TOO_HARD"), "{table}");
    let json = run(&["--json", "--out", out_dir.path().to_str().unwrap()]);
    let report: EvalReport = serde_json::from_str(&json).unwrap();
    assert_eq!(report.setup.isolation, Isolation::Solution);
    assert_eq!(report.results.problems.len(), 1);
    assert!(out_dir.path().join("problems/HumanEval%2F2.json").is_file());
    assert!(out_dir.path().join("verdicts.json").is_file());
    let saved = EvalReport::read(&out_dir.path().join("report.json")).unwrap();
    assert_eq!(saved.results, report.results);
    let summary = &report.results.summary;
    for (name, mean) in [
        ("max_pass", summary.max_pass_pct),
        ("mbr_exec", summary.mbr_exec_pct),
        ("b4", summary.b4_pct),
        ("srank", summary.srank_pct),
        ("codet_ideal_tests", summary.codet_ideal_tests_pct),
        ("b4_ideal_tests", summary.b4_ideal_tests_pct),
        ("srank_ideal_tests", summary.srank_ideal_tests_pct),
        ("codet_ideal_passers", summary.codet_ideal_passers_pct),
        ("b4_ideal_passers", summary.b4_ideal_passers_pct),
        ("srank_ideal_passers", summary.srank_ideal_passers_pct),
    ] {
        assert!(mean.is_some_and(|m| (0.0..=100.0).contains(&m)), "{name}");
    }

    // The saved pass/fail verdicts score every strategy that needs no more than pass/fail,
    // with the same figures, and say which they cannot.
    let verdicts = out_dir.path().join("verdicts.json");
    let scored = dixit(&[
        "eval",
        "--score-verdicts",
        verdicts.to_str().unwrap(),
        "--json",
    ]);
    scored.expect_code(0);
    let scored: dixit::eval::scoring::Report = serde_json::from_str(&scored.stdout).unwrap();
    let s = &scored.summary;
    assert_eq!(s.max_pass_pct, summary.max_pass_pct);
    assert_eq!(s.b4_pct, summary.b4_pct);
    assert_eq!(s.codet_ideal_tests_pct, summary.codet_ideal_tests_pct);
    assert_eq!(s.b4_ideal_tests_pct, summary.b4_ideal_tests_pct);
    assert_eq!(s.codet_ideal_passers_pct, summary.codet_ideal_passers_pct);
    assert_eq!(s.b4_ideal_passers_pct, summary.b4_ideal_passers_pct);
    assert_eq!(
        (
            s.mbr_exec_pct,
            s.srank_pct,
            s.srank_ideal_tests_pct,
            s.srank_ideal_passers_pct
        ),
        (None, None, None, None)
    );
    let table = dixit(&["eval", "--score-verdicts", verdicts.to_str().unwrap()]);
    table.expect_code(0);
    assert!(
        table.stdout.contains("not scored: MBR-exec") && table.stdout.contains("SRank"),
        "{}",
        table.stdout
    );
}

/// The native reference harness (`scripts/native_eval.py`) and the sandbox give the same
/// pass/fail matrices on a few real problems, from the same exported corpus. The native side
/// judges by wall time: at its default 0.1 s a loaded machine (tests beside it) failed a correct
/// solution's hidden check, so it gets 2 s here; no run on these problems needs more than a
/// fraction of that, and the sandbox's verdicts depend on no clock.
#[test]
fn native_harness_agrees_on_a_few_problems() {
    let Some(data) = shared_data() else { return };
    let work = tempfile::tempdir().unwrap();
    let tc = toolchains(16);
    let only = ["HumanEval/2", "HumanEval/42", "HumanEval/50"];
    let e = run_eval(&tc, &options(&data, &only, Isolation::Solution, None));
    let corpus = work.path().join("corpus.json");
    let native = work.path().join("native.json");
    e.corpus.write(&corpus).unwrap();
    let script = root().join("scripts/native_eval.py");
    let status = Command::new("python3")
        .arg(&script)
        .arg(&corpus)
        .arg(&native)
        .args(["--workers", "2", "--timeout", "2"])
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let native = dixit::eval::scoring::VerdictFile::read(&native).unwrap();
    assert_eq!(native.problems.len(), 3);
    for (n, m) in native.problems.iter().zip(&e.matrices) {
        let d = m.recorded();
        assert_eq!(n.id, d.id);
        assert_eq!(n.solutions, d.solutions);
        assert_eq!(n.tests, d.tests);
        assert_eq!(n.hidden, d.hidden, "{}", n.id);
        assert_eq!(n.passes, d.passes, "{}", n.id);
        assert_eq!(n.reference_passes, d.reference_passes, "{}", n.id);
        assert_eq!(n.reference_hidden, Some(true));
    }
}

/// `--workers processes` (issue 52): worker processes build the same matrices as threads, cell
/// by cell with the same fuel, and the report says where they ran. At isolation `run`, where
/// every run resets memories, on problems whose rows fail in every way.
#[test]
fn worker_processes_give_the_verdicts_and_fuel_of_threads() {
    let Some(data) = shared_data() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let run = |workers: &str| {
        let out_dir = tmp.path().join(workers);
        let out = dixit(&[
            "-j",
            "2",
            "eval",
            "--quiet",
            "--no-cache",
            "--json",
            "--workers",
            workers,
            "--only",
            "HumanEval/0,HumanEval/2,HumanEval/4",
            "--corpus",
            data.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        out.expect_code(0);
        let report: EvalReport = serde_json::from_str(&out.stdout).unwrap();
        let matrices: Vec<serde_json::Value> = ["HumanEval%2F0", "HumanEval%2F2", "HumanEval%2F4"]
            .iter()
            .map(|id| {
                let text = std::fs::read_to_string(out_dir.join(format!("problems/{id}.json")));
                serde_json::from_str(&text.unwrap()).unwrap()
            })
            .collect();
        (report, matrices)
    };
    let (threads, threads_matrices) = run("threads");
    let (processes, processes_matrices) = run("processes");
    // Field by field first, so that a difference is named without printing whole matrices.
    for (t, p) in threads_matrices.iter().zip(&processes_matrices) {
        for field in [
            "rows",
            "hidden",
            "reference_row",
            "fuel",
            "hidden_fuel",
            "notes",
        ] {
            assert!(t[field] == p[field], "{} differs in {field}", t["id"]);
        }
    }
    assert!(
        threads_matrices == processes_matrices,
        "the saved matrices differ"
    );
    assert_eq!(threads.results, processes.results);
    let (t, p) = (&threads.execution, &processes.execution);
    assert_eq!((t.fuel, &t.verdicts), (p.fuel, &p.verdicts));
    assert_eq!(t.workers, dixit::workers::Workers::Threads);
    assert_eq!(
        (p.workers, p.threads),
        (dixit::workers::Workers::Processes, 2)
    );
    // The workers' runs and resets reach the report (each worker builds its own programs, so
    // it runs a few more build batches than one process does).
    assert!(
        p.runs >= t.runs && p.runs < t.runs + 20,
        "{} {}",
        p.runs,
        t.runs
    );
    let resets = |e: &dixit::eval::Execution| e.memory.map_or(0, |m| m.stats.restores);
    assert!(resets(p) >= resets(t) && resets(t) > 0, "{t:?} {p:?}");
}
