//! `dixit exec`: one verdict per (solution, test, seed), its exit code, and determinism.

use crate::support::{classify_interface, dixit, fixture, n, s};

/// (kind, solution, test, verdict, compile side): one pair per interesting verdict per kind.
const PAIRS: &[(&str, &str, &str, &str, Option<&str>)] = &[
    ("python", "correct", "too_hard.py", "pass", None),
    ("python", "only_4", "ideal.py", "wrong_answer", None),
    ("python", "date_arith", "too_hard.py", "runtime_error", None),
    (
        "python",
        "correct",
        "invalid.py",
        "compile_error",
        Some("test"),
    ),
    ("c", "nested_if", "too_hard.c", "pass", None),
    ("c", "no_400", "too_hard.c", "wrong_answer", None),
    ("c", "table", "too_hard.c", "runtime_error", None),
    ("c", "correct", "invalid.c", "compile_error", Some("test")),
    ("cpp", "rules_table", "too_hard.cpp", "pass", None),
    ("cpp", "only_4", "too_easy.cpp", "pass", None),
    ("cpp", "only_4", "ideal.cpp", "wrong_answer", None),
    ("cpp", "vector_at", "too_hard.cpp", "runtime_error", None),
    (
        "cpp",
        "correct",
        "invalid.cpp",
        "compile_error",
        Some("test"),
    ),
    ("rust", "match_rem", "too_hard.rs", "pass", None),
    // A panic in a Rust solution ends its component: a crash, its message on stderr.
    ("rust", "table", "too_hard.rs", "runtime_error", None),
    (
        "rust",
        "correct",
        "invalid.rs",
        "compile_error",
        Some("link"),
    ),
    ("io", "correct_rs", "too_hard.toml", "pass", None),
    ("io", "four_digits_c", "too_hard.toml", "wrong_answer", None),
    ("io", "no_400_cpp", "ideal.toml", "pass", None),
    (
        "io",
        "correct_py",
        "invalid.toml",
        "compile_error",
        Some("test"),
    ),
];

fn exec(kind: &str, solution: &str, test: &str, extra: &[&str]) -> crate::support::Output {
    let sol = fixture(&format!("classify/{kind}/solutions/{solution}"));
    let t = fixture(&format!("classify/{kind}/tests/{test}"));
    let mut args = vec![
        "exec".to_string(),
        "--json".into(),
        "--solution".into(),
        sol.display().to_string(),
        "--test".into(),
        t.display().to_string(),
    ];
    args.extend(classify_interface(kind));
    args.extend(extra.iter().map(|a| a.to_string()));
    dixit(&args)
}

#[test]
fn verdicts_in_every_kind() {
    for &(kind, sol, test, verdict, side) in PAIRS {
        let out = exec(kind, sol, test, &[]);
        out.expect_code(if verdict == "pass" { 0 } else { 1 });
        let v = out.json();
        assert_eq!(s(&v, "verdict"), verdict, "{kind} {sol} {test}: {v:#}");
        assert_eq!(v["side"].as_str(), side, "{kind} {sol} {test}: {v:#}");
        if verdict != "compile_error" {
            assert!(n(&v, "fuel") > 0, "{kind} {sol} {test}: fuel is reported");
            assert!(
                n(&v, "peak_memory") > 0,
                "{kind} {sol} {test}: memory is reported"
            );
        } else {
            assert!(!s(&v, "stderr").is_empty(), "the build log is kept");
        }
    }
}

/// The human-readable verdict names the verdict, the failing check and its location.
#[test]
fn human_output_explains_a_failure() {
    let sol = fixture("classify/c/solutions/no_400");
    let t = fixture("classify/c/tests/too_hard.c");
    let interface = classify_interface("c");
    let out = dixit(&[
        "exec",
        "--solution",
        &sol.display().to_string(),
        "--test",
        &t.display().to_string(),
        &interface[0],
        &interface[1],
    ]);
    out.expect_code(1);
    assert!(out.stdout.starts_with("wrong_answer"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("too_hard.c:5: check failed: is_leap(2000) == 1 (left: 0, right: 1)"),
        "{}",
        out.stdout
    );
}

/// A run is a pure function of (program, input, seed): everything but the wall time repeats.
#[test]
fn runs_are_deterministic_per_seed() {
    let strip = |mut v: serde_json::Value| {
        v.as_object_mut().expect("object").remove("wall_us");
        v
    };
    for (kind, sol, test) in [
        ("python", "correct", "flaky.py"),
        ("c", "no_400", "flaky.c"),
        ("rust", "only_4", "flaky.rs"),
        ("io", "only_4_py", "flaky.toml"),
    ] {
        let a = strip(exec(kind, sol, test, &["--seed", "42"]).json());
        let b = strip(exec(kind, sol, test, &["--seed", "42"]).json());
        assert_eq!(a, b, "{kind}: same seed, same run");
    }
}

/// A guest that writes more than 64 KiB in one call gets all of it captured (regression: a fixed
/// write permit made CPython drop the rest of a large write, silently).
#[test]
fn a_large_single_write_is_captured_whole() {
    let dir = tempfile::tempdir().unwrap();
    let test = dir.path().join("big_write.py");
    std::fs::write(
        &test,
        "import sys\nsys.stdout.write('a' * 200000 + 'END')\n",
    )
    .unwrap();
    let solution = fixture("classify/python/solutions/correct");
    let v = dixit(&[
        "exec",
        "--json",
        "--solution",
        solution.to_str().unwrap(),
        "--test",
        test.to_str().unwrap(),
    ])
    .expect_code(0)
    .json();
    assert_eq!(s(&v, "verdict"), "pass");
    let out = v["stdout"].as_str().unwrap();
    assert_eq!(out.len(), 200_003);
    assert!(out.ends_with("END"));
    let v = dixit(&[
        "exec",
        "--json",
        "--output-limit",
        "100000",
        "--solution",
        solution.to_str().unwrap(),
        "--test",
        test.to_str().unwrap(),
    ])
    .expect_code(1)
    .json();
    assert_eq!(s(&v, "verdict"), "output_limit");
}

/// A C++ test and solution with static objects and the standard streams, run as two
/// components: each side's constructors run once, at instantiation, and the test's destructors
/// after its `main` (linked as a command, every string the canonical ABI copied ran them again
/// and destroyed `std::cout`: "uninitialized element").
#[test]
fn cpp_streams_and_static_objects_on_both_sides() {
    let out = dixit(&[
        "exec".to_string(),
        "--json".into(),
        "--solution".into(),
        fixture("pair/cpp/solutions/streams").display().to_string(),
        "--test".into(),
        fixture("pair/cpp/tests/streams.cpp").display().to_string(),
        "--interface".into(),
        fixture("pair/cpp/solutions/streams/solution.hpp")
            .display()
            .to_string(),
    ]);
    let v = out.json();
    assert_eq!(s(&v, "verdict"), "pass", "{v:#}");
    let stdout = s(&v, "stdout");
    for line in [
        "solution: 2000",
        "solution: 1900",
        "test done",
        "test destructor ran",
    ] {
        assert!(stdout.contains(line), "{line:?} missing from {stdout:?}");
    }
    assert_eq!(stdout.matches("test done").count(), 1, "{stdout:?}");
    assert!(s(&v, "stderr").contains("checking"), "{v:#}");
}

/// A C test with a C++ solution, and a C++ test with a C solution, are two components too (the
/// glue is the test's language; a side with any C++ is linked as C++): no pair of compiled
/// languages shares a memory.
#[test]
fn mixed_c_and_cpp_pairs_run_as_two_components() {
    let m = |p: &str| fixture(&format!("pair/mixed/{p}")).display().to_string();
    for (solution, test) in [
        ("cpp_solution", "leap.c"),
        ("c_solution", "leap.cpp"),
        ("c_solution", "leap.c"),
        ("cpp_solution", "leap.cpp"),
    ] {
        let out = dixit(&[
            "exec".to_string(),
            "--json".into(),
            "--solution".into(),
            m(solution),
            "--test".into(),
            m(&format!("tests/{test}")),
            "--interface".into(),
            m("interface/solution.h"),
        ]);
        let v = out.json();
        assert_eq!(s(&v, "verdict"), "pass", "{solution} × {test}: {v:#}");
        // Two instances, each with its own memory, are in the run's peak.
        assert!(n(&v, "peak_memory") > 16_000_000, "{v:#}");
    }
}

/// `std::optional` crosses a C++ interface as WIT's `option`: at the top of a parameter or a
/// result (the bindings' nullable pointer and `bool` result) and nested in a vector, present and
/// absent; a solution that answers one case wrongly is caught.
#[test]
fn cpp_optional_crosses_both_ways() {
    let run = |solution: &std::path::Path| {
        dixit(&[
            "exec".to_string(),
            "--json".into(),
            "--solution".into(),
            solution.display().to_string(),
            "--test".into(),
            fixture("pair/optional/tests/optional.cpp")
                .display()
                .to_string(),
            "--interface".into(),
            fixture("pair/optional/solution.hpp").display().to_string(),
        ])
        .json()
    };
    let v = run(&fixture("pair/optional/solution"));
    assert_eq!(s(&v, "verdict"), "pass", "{v:#}");
    assert!(
        s(&v, "stdout").contains("all optional checks passed"),
        "{v:#}"
    );
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(fixture("pair/optional/solution/solution.cpp"))
        .unwrap()
        .replace("return \"ada\";", "return \"bob\";");
    std::fs::write(dir.path().join("solution.cpp"), source).unwrap();
    std::fs::copy(
        fixture("pair/optional/solution.hpp"),
        dir.path().join("solution.hpp"),
    )
    .unwrap();
    let v = run(dir.path());
    assert_eq!(s(&v, "verdict"), "wrong_answer", "{v:#}");
}

/// Plain structs cross as WIT records, field by field, in C, C++ and Rust: the reference passes
/// its test, a solution wrong in one field fails it, and a struct the interface cannot copy is
/// refused before anything runs, naming the field.
#[test]
fn structs_cross_as_records_in_c_cpp_and_rust() {
    let rust_interface = [
        "struct Point { x: i32, y: i32 }",
        "pub struct Route { pub name: String, pub stops: Vec<Point>, pub depot: Option<Point> }",
        "shifted: fn(&Route, Point) -> Route",
        "names: fn(&[Route]) -> Vec<String>",
        "furthest: fn(&Route) -> Option<Point>",
    ];
    // (solution folder, its source, test, interface, a change that breaks one field)
    type Case<'a> = (&'a str, &'a str, &'a str, Vec<String>, (&'a str, &'a str));
    let cases: [Case; 3] = [
        (
            "pair/records/c/solution",
            "solution.c",
            "pair/records/c/tests/geometry.c",
            vec![fixture("pair/records/c/interface/geometry.h")
                .display()
                .to_string()],
            (
                "segment r = {s.to, s.from, s.closed};",
                "segment r = {s.to, s.from, false};",
            ),
        ),
        (
            "pair/records/cpp/solution",
            "solution.cpp",
            "pair/records/cpp/tests/routes.cpp",
            vec![fixture("pair/records/cpp/routes.hpp").display().to_string()],
            ("out.depot->y += by.y;", "out.depot->y += by.x;"),
        ),
        (
            "pair/records/rust/solution",
            "lib.rs",
            "pair/records/rust/tests/routes.rs",
            rust_interface.iter().map(|s| s.to_string()).collect(),
            ("y: p.y + by.y,", "y: p.y - by.y,"),
        ),
    ];
    for (solution, source, test, interface, (from, to)) in &cases {
        let run = |dir: &std::path::Path| {
            let mut args = vec![
                "exec".to_string(),
                "--json".into(),
                "--solution".into(),
                dir.display().to_string(),
                "--test".into(),
                fixture(test).display().to_string(),
            ];
            for i in interface {
                args.extend(["--interface".to_string(), i.clone()]);
            }
            dixit(&args).json()
        };
        let v = run(&fixture(solution));
        assert_eq!(s(&v, "verdict"), "pass", "{solution}: {v:#}");
        assert!(
            s(&v, "stdout").contains("all struct checks passed"),
            "{v:#}"
        );
        let dir = tempfile::tempdir().unwrap();
        let text = std::fs::read_to_string(fixture(solution).join(source)).unwrap();
        assert!(text.contains(from), "{solution}: `{from}` not found");
        std::fs::write(dir.path().join(source), text.replace(from, to)).unwrap();
        let v = run(dir.path());
        assert_eq!(s(&v, "verdict"), "wrong_answer", "{solution}: {v:#}");
    }

    // A struct with a pointer field is refused when the interface is read, the field named.
    let dir = tempfile::tempdir().unwrap();
    let (sol, tests) = (dir.path().join("solution"), dir.path().join("tests"));
    std::fs::create_dir_all(&sol).unwrap();
    std::fs::create_dir_all(&tests).unwrap();
    let header = dir.path().join("names.h");
    std::fs::write(
        &header,
        "struct person { const char *name; int age; };\nint age_of(struct person p);\n",
    )
    .unwrap();
    std::fs::write(
        sol.join("solution.c"),
        "#include \"names.h\"\nint age_of(struct person p) { return p.age; }\n",
    )
    .unwrap();
    std::fs::write(
        tests.join("test.c"),
        "#include \"names.h\"\nint main(void) { struct person p = {\"ada\", 36}; return age_of(p) != 36; }\n",
    )
    .unwrap();
    let out = dixit(&[
        "exec".to_string(),
        "--json".into(),
        "--solution".into(),
        sol.display().to_string(),
        "--test".into(),
        tests.join("test.c").display().to_string(),
        "--interface".into(),
        header.display().to_string(),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v = out.json();
    assert_eq!(s(&v, "verdict"), "compile_error", "{v:#}");
    assert!(
        s(&v, "detail").contains("parameter `p` `struct person` cannot be copied")
            && s(&v, "detail").contains("its field `name` (`const char *`)"),
        "{v:#}"
    );
}
