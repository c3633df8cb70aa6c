//! `dixit classify` on `fixtures/classify/<kind>/`: every class in every test kind, failing
//! reruns reproducible by seed, and `--reruns auto` skipping the reruns of deterministic runs.

use crate::support::{dixit, fixture, n, s};

/// The test kinds and their test-file extension.
const KINDS: &[(&str, &str)] = &[
    ("python", "py"),
    ("c", "c"),
    ("cpp", "cpp"),
    ("rust", "rs"),
    ("io", "toml"),
];

/// Every kind has these tests, each landing in its class against the kind's five solutions
/// (two correct, three with different bugs) with 20 reruns: (test, class, failing solutions).
const EXPECTED: &[(&str, &str, u64)] = &[
    ("too_easy", "TOO_EASY", 0),
    ("ideal", "IDEAL", 1),
    ("too_hard", "TOO_HARD", 3),
    // Depends on `random`: two buggy solutions fail for some draws only.
    ("flaky", "IDEAL", 2),
    ("invalid", "INVALID", 5),
];

fn solutions(kind: &str) -> Vec<String> {
    let dir = fixture(&format!("classify/{kind}/solutions"));
    let mut v: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path().display().to_string())
        .collect();
    v.sort();
    assert_eq!(v.len(), 5, "{kind}: five solutions");
    v
}

fn test_path(kind: &str, ext: &str, test: &str) -> String {
    fixture(&format!("classify/{kind}/tests/{test}.{ext}"))
        .display()
        .to_string()
}

/// Classifies `test` of `kind` with extra args; returns the JSON classification.
fn classify(kind: &str, ext: &str, test: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "classify".to_string(),
        "--json".into(),
        "--test".into(),
        test_path(kind, ext, test),
    ];
    args.extend(crate::support::classify_interface(kind));
    args.extend(extra.iter().map(|a| a.to_string()));
    args.extend(solutions(kind));
    let out = dixit(&args);
    out.expect_code(0);
    out.json()
}

fn classes_of(kind: &str) {
    let ext = KINDS.iter().find(|k| k.0 == kind).expect("known kind").1;
    for &(test, class, failures) in EXPECTED {
        let c = classify(kind, ext, test, &["--reruns", "20"]);
        assert_eq!(s(&c, "class"), class, "{kind}/{test}: {c:#}");
        assert_eq!(n(&c, "failures"), failures, "{kind}/{test}: {c:#}");
        assert_eq!(n(&c, "pool"), 5);
        if class == "INVALID" {
            let err = s(&c, "build_error");
            assert!(
                !err.trim().is_empty(),
                "{kind}/{test}: INVALID names its build error"
            );
            for cell in c["cells"].as_array().expect("cells") {
                assert_eq!(s(&cell["verdict"], "verdict"), "compile_error");
                assert_eq!(n(cell, "runs"), 0, "nothing ran");
            }
        }
    }
}

#[test]
fn python_tests_land_in_every_class() {
    classes_of("python");
}

#[test]
fn c_tests_land_in_every_class() {
    classes_of("c");
}

#[test]
fn cpp_tests_land_in_every_class() {
    classes_of("cpp");
}

#[test]
fn rust_tests_land_in_every_class() {
    classes_of("rust");
}

#[test]
fn io_tests_land_in_every_class() {
    classes_of("io");
}

/// A failing rerun reports its seed, and `dixit exec --seed S` reproduces that run exactly:
/// same verdict, output, exit code and fuel.
#[test]
fn failing_reruns_are_reproducible_by_seed() {
    for &(kind, ext) in KINDS {
        let c = classify(kind, ext, "flaky", &["--reruns", "20", "--seed", "7"]);
        let sols = solutions(kind);
        let mut reproduced = 0;
        for (cell, sol) in c["cells"].as_array().expect("cells").iter().zip(&sols) {
            let v = &cell["verdict"];
            if s(v, "verdict") == "pass" {
                continue;
            }
            let seed = n(v, "seed").to_string();
            let mut args = vec![
                "exec".to_string(),
                "--json".into(),
                "--solution".into(),
                sol.clone(),
                "--test".into(),
                test_path(kind, ext, "flaky"),
                "--seed".into(),
                seed.clone(),
            ];
            args.extend(crate::support::classify_interface(kind));
            let out = dixit(&args);
            out.expect_code(1);
            let e = out.json();
            for key in [
                "verdict",
                "exit_code",
                "fuel",
                "stdout",
                "stderr",
                "seed",
                "detail",
            ] {
                assert_eq!(e[key], v[key], "{kind} {sol} seed {seed}: `{key}` differs");
            }
            reproduced += 1;
        }
        assert_eq!(
            reproduced, 2,
            "{kind}: both buggy solutions fail some rerun"
        );
    }
}

/// Reruns matter for the flaky test: for some base seed, one run per solution misses a bug
/// that twenty runs find.
#[test]
fn reruns_find_what_one_run_misses() {
    for &(kind, ext) in KINDS {
        let twenty = n(
            &classify(kind, ext, "flaky", &["--reruns", "20"]),
            "failures",
        );
        let found = (1..=12).any(|seed| {
            let seed = seed.to_string();
            let one = classify(kind, ext, "flaky", &["--reruns", "1", "--seed", &seed]);
            n(&one, "failures") < twenty
        });
        assert!(
            found,
            "{kind}: a single run per solution always found every bug"
        );
    }
}

/// `--reruns auto` runs a deterministic pair once (its reruns would be identical) but reruns a
/// pair whose run read entropy or a clock.
#[test]
fn reruns_auto_skips_only_deterministic_runs() {
    for &(kind, ext) in KINDS {
        let easy = classify(kind, ext, "too_easy", &["--reruns", "auto"]);
        for cell in easy["cells"].as_array().expect("cells") {
            assert_eq!(n(cell, "runs"), 1, "{kind}/too_easy: {cell}");
            assert_eq!(n(cell, "skipped"), 19, "{kind}/too_easy: {cell}");
            assert_eq!(cell["verdict"]["read_entropy"], false);
            assert_eq!(cell["verdict"]["read_clock"], false);
        }
        let flaky = classify(kind, ext, "flaky", &["--reruns", "auto"]);
        for cell in flaky["cells"].as_array().expect("cells") {
            assert_eq!(
                cell["verdict"]["read_entropy"], true,
                "{kind}/flaky: {cell}"
            );
            if s(&cell["verdict"], "verdict") == "pass" {
                assert_eq!(
                    n(cell, "runs"),
                    20,
                    "{kind}/flaky: a passing random run is rerun"
                );
                assert_eq!(n(cell, "skipped"), 0);
            }
        }
        assert_eq!(s(&flaky, "class"), "IDEAL", "{kind}/flaky with auto");
    }
}
