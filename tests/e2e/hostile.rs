//! The hostile corpus (`fixtures/hostile/`): each case yields its verdict, the host neither
//! panics nor hangs (see `support::dixit`), and no file outside the runs' own temp dirs changes.
//! Inputs that must exist only at run time (symlinks pointing out, secret and canary
//! directories, a huge stdin, corrupt or oddly linked `.wasm`) are made here.

use std::path::Path;

use crate::support::{dixit, fixture, root, s, toolchains, tree_hash, Output};

/// A case: a solution folder and a test file under `fixtures/hostile/`, the expected verdict,
/// and for `compile_error` the side that failed.
struct Case {
    solution: &'static str,
    test: &'static str,
    verdict: &'static str,
    side: Option<&'static str>,
}

const fn case(solution: &'static str, test: &'static str, verdict: &'static str) -> Case {
    Case {
        solution,
        test,
        verdict,
        side: None,
    }
}

const fn build_fails(solution: &'static str, test: &'static str, side: &'static str) -> Case {
    Case {
        solution,
        test,
        verdict: "compile_error",
        side: Some(side),
    }
}

/// Hostile tests against a benign solution, and hostile solutions against a benign test.
const PYTHON: &[Case] = &[
    case(
        "python/solutions/benign",
        "python/tests/uses_answer.py",
        "pass",
    ),
    case(
        "python/solutions/benign",
        "python/tests/infinite_loop.py",
        "time_limit",
    ),
    case(
        "python/solutions/benign",
        "python/tests/deep_recursion.py",
        "runtime_error",
    ),
    case(
        "python/solutions/benign",
        "python/tests/memory_bomb.py",
        "memory_limit",
    ),
    case(
        "python/solutions/benign",
        "python/tests/output_flood.py",
        "output_limit",
    ),
    case(
        "python/solutions/benign",
        "python/tests/uncaught.py",
        "runtime_error",
    ),
    case(
        "python/solutions/benign",
        "python/tests/sleep_forever.py",
        "time_limit",
    ),
    case(
        "python/solutions/benign",
        "python/tests/sleep_short.py",
        "pass",
    ),
    build_fails(
        "python/solutions/benign",
        "python/tests/syntax_error.py",
        "test",
    ),
    case(
        "python/solutions/loop_on_import",
        "python/tests/uses_answer.py",
        "time_limit",
    ),
    // Python frames live on the heap: unbounded recursion under a huge limit exhausts memory.
    case(
        "python/solutions/deep_recursion",
        "python/tests/uses_answer.py",
        "memory_limit",
    ),
    case(
        "python/solutions/memory_bomb",
        "python/tests/uses_answer.py",
        "memory_limit",
    ),
    case(
        "python/solutions/output_flood",
        "python/tests/uses_answer.py",
        "output_limit",
    ),
    // Both report what they managed (nothing) and then answer correctly.
    case(
        "python/solutions/escape",
        "python/tests/uses_answer.py",
        "pass",
    ),
    case(
        "python/solutions/vandal",
        "python/tests/uses_answer.py",
        "pass",
    ),
    case(
        "python/solutions/sleeper",
        "python/tests/uses_answer.py",
        "time_limit",
    ),
    build_fails(
        "python/solutions/syntax_error",
        "python/tests/uses_answer.py",
        "solution",
    ),
    // Issue 9: a pass means the test ran to its end. Forgeries by exiting are not passes.
    case(
        "python/solutions/wrong",
        "python/tests/uses_answer.py",
        "wrong_answer",
    ),
    case(
        "python/solutions/exit_on_import",
        "python/tests/uses_answer.py",
        "runtime_error",
    ),
    case(
        "python/solutions/sys_exit_on_import",
        "python/tests/uses_answer.py",
        "runtime_error",
    ),
    case(
        "python/solutions/system_exit_in_call",
        "python/tests/uses_answer.py",
        "runtime_error",
    ),
    case(
        "python/solutions/keyboard_interrupt",
        "python/tests/uses_answer.py",
        "runtime_error",
    ),
    // Rebinding the runner's names (and `builtins.AssertionError`) changes nothing it calls.
    case(
        "python/solutions/rebind_runner",
        "python/tests/uses_answer.py",
        "wrong_answer",
    ),
    // The test keeps its own builtins.
    case(
        "python/solutions/benign",
        "python/tests/uses_answer_via_builtins.py",
        "pass",
    ),
    case(
        "python/solutions/patch_builtins",
        "python/tests/uses_answer_via_builtins.py",
        "wrong_answer",
    ),
    // `unittest.main()` ends nothing: the runner runs the test's TestCase classes itself.
    case(
        "python/solutions/benign",
        "python/tests/unittest_main.py",
        "pass",
    ),
    case(
        "python/solutions/wrong",
        "python/tests/unittest_main.py",
        "wrong_answer",
    ),
    // Patching `unittest.main` to exit reaches only the solution's own instance: the test's
    // unittest is untouched, and the wrong answer is judged as one.
    case(
        "python/solutions/exit_through_unittest",
        "python/tests/unittest_main.py",
        "wrong_answer",
    ),
    // Issue 19: the test and the solution run apart. What decides the verdict is out of the
    // solution's reach: walking frames and `__globals__`, patching unittest, forging the status
    // reaches only the solution's own instance (plain asserts, unittest and pytest styles).
    case(
        "python/solutions/benign",
        "python/tests/uses_answer_unittest.py",
        "pass",
    ),
    case(
        "python/solutions/frame_walk",
        "python/tests/uses_answer.py",
        "wrong_answer",
    ),
    case(
        "python/solutions/frame_walk",
        "python/tests/uses_answer_unittest.py",
        "wrong_answer",
    ),
    case(
        "python/solutions/frame_walk",
        "python/tests/uses_answer_strict.py",
        "wrong_answer",
    ),
    case(
        "python/solutions/patch_unittest",
        "python/tests/uses_answer.py",
        "wrong_answer",
    ),
    case(
        "python/solutions/patch_unittest",
        "python/tests/uses_answer_unittest.py",
        "wrong_answer",
    ),
    // Issue 35: only data crosses. An int subclass that is equal to everything arrives as its
    // plain int (41): no comparison it overrides crosses. An object that is not data, a
    // generator, a string that is not Unicode end the run as the solution's runtime error.
    case(
        "python/solutions/always_equal",
        "python/tests/uses_answer_strict.py",
        "wrong_answer",
    ),
    case(
        "python/solutions/always_equal",
        "python/tests/uses_answer.py",
        "wrong_answer",
    ),
    case(
        "python/solutions/always_equal_object",
        "python/tests/uses_answer.py",
        "runtime_error",
    ),
    case(
        "python/solutions/generator",
        "python/tests/uses_answer.py",
        "runtime_error",
    ),
    case(
        "python/solutions/lone_surrogate",
        "python/tests/uses_answer.py",
        "runtime_error",
    ),
    // A solution that takes over its end of the bridge and sends raw answers naming the test's
    // objects: the host reads every answer, and it ends the run as the solution's error.
    case(
        "python/solutions/forge_raw",
        "python/tests/uses_answer.py",
        "runtime_error",
    ),
    // StopIteration crosses as RuntimeError: it cannot end a test's `map` with nothing checked.
    case(
        "python/solutions/benign",
        "python/tests/through_map.py",
        "pass",
    ),
    case(
        "python/solutions/stop_iteration",
        "python/tests/through_map.py",
        "runtime_error",
    ),
    // A solution's own exception class arrives as its nearest built-in (ValueError, uncaught).
    case(
        "python/solutions/custom_exception",
        "python/tests/uses_answer.py",
        "runtime_error",
    ),
    // An exception of a class with two built-in bases is caught by either, as natively.
    case(
        "python/solutions/raises_two_bases",
        "python/tests/catches_type_error.py",
        "pass",
    ),
    // A call with arguments the function does not take: TypeError in the interface's words,
    // however the coder bound it (see `hostile_python_tests_cannot_tell_correct_solutions_apart`).
    case(
        "python/solutions/bound_as_lambda",
        "python/tests/calls_with_wrong_arguments.py",
        "pass",
    ),
    // Issue 51: a declared value class's operators are decided on the test's side from its
    // fields: a Money whose `__eq__`, `__lt__` and `in` say yes to anything is still Money(0)
    // (before: pass), and correct classes written every way Python allows (NotImplemented, a
    // subclass, a dataclass, a namedtuple, a list subclass, `bool` from `__len__`, `in` from
    // `__iter__`) pass alike (before: wrong_answer or runtime_error).
    case(
        "python/solutions/money_forged",
        "python/tests/compares_values.py",
        "wrong_answer",
    ),
    case(
        "python/solutions/money_forged",
        "python/tests/uses_money.py",
        "wrong_answer",
    ),
    case(
        "python/solutions/bag_forged",
        "python/tests/uses_money.py",
        "wrong_answer",
    ),
    case(
        "python/solutions/bag_forged",
        "python/tests/membership.py",
        "wrong_answer",
    ),
    case(
        "python/solutions/money_namedtuple",
        "python/tests/membership.py",
        "pass",
    ),
    case(
        "python/solutions/money_plain",
        "python/tests/compares_values.py",
        "pass",
    ),
    // A declared `__hash__` left to Python's default (the object's address) is missing.
    case(
        "python/solutions/money_address_hash",
        "python/tests/uses_money.py",
        "runtime_error",
    ),
    // An answer no Python could build (a list as a dict key) is the solution's error, decided by
    // the host, never an exception a test's `except Exception` takes (before: pass).
    case(
        "python/solutions/forge_unhashable",
        "python/tests/expects_value_error.py",
        "runtime_error",
    ),
    case(
        "python/solutions/custom_exception",
        "python/tests/expects_value_error.py",
        "pass",
    ),
    // A test cannot pass the solution a function of its own (a spy, a smuggled object).
    case(
        "python/solutions/benign",
        "python/tests/calls_with_objects.py",
        "pass",
    ),
    // Lines shaped like a failure report, written by the solution, are its output, never the
    // evidence (see `hostile_python_evidence_is_the_tests_own`).
    case(
        "python/solutions/forge_evidence",
        "python/tests/uses_answer.py",
        "wrong_answer",
    ),
    // A test cannot see the solution's files, source, private names or heap: it cannot single
    // out a correct coder (it fails when it finds anything).
    case(
        "python/solutions/benign",
        "python/tests/fingerprint.py",
        "pass",
    ),
    case(
        "python/solutions/fingerprint_me",
        "python/tests/fingerprint.py",
        "pass",
    ),
];

const C: &[Case] = &[
    case("c/solutions/benign", "c/tests/uses_answer.c", "pass"),
    case(
        "c/solutions/benign",
        "c/tests/infinite_loop.c",
        "time_limit",
    ),
    case(
        "c/solutions/benign",
        "c/tests/deep_recursion.c",
        "runtime_error",
    ),
    case(
        "c/solutions/benign",
        "c/tests/memory_bomb.c",
        "memory_limit",
    ),
    case(
        "c/solutions/benign",
        "c/tests/output_flood.c",
        "output_limit",
    ),
    case(
        "c/solutions/benign",
        "c/tests/unreachable.c",
        "runtime_error",
    ),
    case("c/solutions/benign", "c/tests/trap.c", "runtime_error"),
    case("c/solutions/benign", "c/tests/div_zero.c", "runtime_error"),
    case("c/solutions/benign", "c/tests/abort.c", "runtime_error"),
    case(
        "c/solutions/benign",
        "c/tests/sleep_forever.c",
        "time_limit",
    ),
    build_fails("c/solutions/benign", "c/tests/syntax_error.c", "test"),
    case("c/solutions/trap", "c/tests/uses_answer.c", "runtime_error"),
    case(
        "c/solutions/div_zero",
        "c/tests/uses_answer.c",
        "runtime_error",
    ),
    case(
        "c/solutions/memory_bomb",
        "c/tests/uses_answer.c",
        "memory_limit",
    ),
    build_fails(
        "c/solutions/syntax_error",
        "c/tests/uses_answer.c",
        "solution",
    ),
    // Issue 9: a pass means `main` returned 0. Exits (by the solution, its atexit handler or
    // constructor) are not passes; a solution may not replace what the C runtime defines.
    case("c/solutions/wrong", "c/tests/uses_answer.c", "wrong_answer"),
    case(
        "c/solutions/exit_zero",
        "c/tests/uses_answer.c",
        "runtime_error",
    ),
    // The solution's handler runs in its own component: the test's `exit(1)` stands.
    case(
        "c/solutions/atexit_exit_zero",
        "c/tests/uses_answer.c",
        "wrong_answer",
    ),
    case(
        "c/solutions/constructor_exit",
        "c/tests/uses_answer.c",
        "runtime_error",
    ),
    build_fails("c/solutions/own_exit", "c/tests/uses_answer.c", "solution"),
    // Issue 51: an exit through WASI directly, from inside the call, is the solution's crash,
    // not the test's failed check (before: wrong_answer, exit code 1).
    case(
        "c/solutions/proc_exit_seven",
        "c/tests/uses_answer.c",
        "runtime_error",
    ),
    // Arrays of 4 MiB and of 15 MiB (3.9 Mi ints) cross to every solution (before: the second
    // failed with runtime_error, "too much data is being copied between the host and the
    // guest", past wasmtime's default of about 4 Mi elements a call).
    case("c/solutions/sums", "c/tests/big_array.c", "pass"),
    case("c/solutions/benign", "c/tests/uses_strcmp.c", "pass"),
    build_fails("c/solutions/interpose", "c/tests/uses_strcmp.c", "solution"),
    // Compilers cannot read the host, and are bounded.
    build_fails(
        "c/solutions/include_host",
        "c/tests/uses_answer.c",
        "solution",
    ),
    build_fails(
        "c/solutions/incbin_host",
        "c/tests/uses_answer.c",
        "solution",
    ),
    build_fails("c/solutions/benign", "c/tests/include_host.c", "test"),
    // … nor tell whether a host path exists (`hostile_build_errors_do_not_tell_existing_from_missing`
    // compares the messages): `__has_include` finds nothing outside what the build may read.
    build_fails(
        "c/solutions/include_missing",
        "c/tests/uses_answer.c",
        "solution",
    ),
    build_fails(
        "c/solutions/incbin_missing",
        "c/tests/uses_answer.c",
        "solution",
    ),
    build_fails("c/solutions/benign", "c/tests/include_missing.c", "test"),
    case(
        "c/solutions/has_include_host",
        "c/tests/uses_answer.c",
        "pass",
    ),
    build_fails(
        "c/solutions/compile_bomb",
        "c/tests/uses_answer.c",
        "solution",
    ),
    case("cpp/solutions/benign", "cpp/tests/uses_answer.cpp", "pass"),
    case(
        "cpp/solutions/exit_zero",
        "cpp/tests/uses_answer.cpp",
        "runtime_error",
    ),
    // Issue 19: no solution-authored text is compiled into a test. A solution header that
    // redefines `assert`, the checks, `exit` and `main` reaches only the solution's own code.
    case(
        "c/solutions/header_forgery",
        "c/tests/uses_answer.c",
        "wrong_answer",
    ),
    case(
        "c/solutions/header_forgery",
        "c/tests/uses_answer_assert.c",
        "wrong_answer",
    ),
    case(
        "c/solutions/header_forgery",
        "c/tests/uses_strcmp.c",
        "wrong_answer",
    ),
    case("c/solutions/benign", "c/tests/uses_answer_assert.c", "pass"),
    case(
        "cpp/solutions/header_forgery",
        "cpp/tests/uses_answer.cpp",
        "wrong_answer",
    ),
    // A solution and its test are two components: a solution cannot replace a function the
    // test defines (its copy stays in its own component), nor read the test's data by name; a
    // test cannot replace library functions under the solution.
    case("c/solutions/benign", "c/tests/weak_helper.c", "pass"),
    case(
        "c/solutions/replace_test_helper",
        "c/tests/weak_helper.c",
        "wrong_answer",
    ),
    case(
        "c/solutions/weak_test_helper",
        "c/tests/weak_helper.c",
        "wrong_answer",
    ),
    case("c/solutions/benign", "c/tests/global_expected.c", "pass"),
    build_fails(
        "c/solutions/reads_test_global",
        "c/tests/global_expected.c",
        "solution",
    ),
    build_fails("c/solutions/benign", "c/tests/defines_malloc.c", "test"),
    build_fails("c/solutions/benign", "c/tests/defines_strcmp.c", "test"),
    // A test that names what only some solutions define (to single out coders) is refused for
    // all: it may use the C library and the interface only.
    build_fails("c/solutions/benign", "c/tests/uses_internal.c", "test"),
    case(
        "cpp/solutions/benign",
        "cpp/tests/inline_expected.cpp",
        "pass",
    ),
    // Its strong copy of the test's inline function stays in its own component.
    case(
        "cpp/solutions/replace_inline",
        "cpp/tests/inline_expected.cpp",
        "wrong_answer",
    ),
    case(
        "cpp/solutions/inline_copy",
        "cpp/tests/inline_expected.cpp",
        "wrong_answer",
    ),
    // A signature other than the interface's fails the solution's link (not a trapping stub).
    build_fails(
        "c/solutions/other_signature",
        "c/tests/uses_answer.c",
        "solution",
    ),
    // A compiled test gets no file system: it cannot fingerprint the solution's source.
    case("c/solutions/benign", "c/tests/read_solution.c", "pass"),
];

const RUST: &[Case] = &[
    case("rust/solutions/benign", "rust/tests/uses_answer.rs", "pass"),
    case(
        "rust/solutions/benign",
        "rust/tests/infinite_loop.rs",
        "time_limit",
    ),
    case(
        "rust/solutions/benign",
        "rust/tests/deep_recursion.rs",
        "runtime_error",
    ),
    case(
        "rust/solutions/benign",
        "rust/tests/memory_bomb.rs",
        "memory_limit",
    ),
    case(
        "rust/solutions/benign",
        "rust/tests/output_flood.rs",
        "output_limit",
    ),
    case(
        "rust/solutions/benign",
        "rust/tests/unreachable.rs",
        "runtime_error",
    ),
    // Rust checks division: the panic is a failed test, not a trap.
    case(
        "rust/solutions/benign",
        "rust/tests/div_zero.rs",
        "wrong_answer",
    ),
    case(
        "rust/solutions/benign",
        "rust/tests/exit_code.rs",
        "runtime_error",
    ),
    // A syntax error is the test's own (type errors could be a mismatch with the solution).
    build_fails(
        "rust/solutions/benign",
        "rust/tests/syntax_error.rs",
        "test",
    ),
    case(
        "rust/solutions/abort",
        "rust/tests/uses_answer.rs",
        "runtime_error",
    ),
    case(
        "rust/solutions/infinite_loop",
        "rust/tests/uses_answer.rs",
        "time_limit",
    ),
    build_fails(
        "rust/solutions/syntax_error",
        "rust/tests/uses_answer.rs",
        "solution",
    ),
    // Issue 9: a pass means `main` returned; a solution is safe Rust (no `#[no_mangle]`).
    case(
        "rust/solutions/wrong",
        "rust/tests/uses_answer.rs",
        "wrong_answer",
    ),
    case(
        "rust/solutions/process_exit",
        "rust/tests/uses_answer.rs",
        "runtime_error",
    ),
    // Its hook is its own component's: the test's failed assertion stands.
    case(
        "rust/solutions/panic_hook",
        "rust/tests/uses_answer.rs",
        "wrong_answer",
    ),
    build_fails(
        "rust/solutions/no_mangle",
        "rust/tests/uses_answer.rs",
        "solution",
    ),
    // Compilers cannot read the host, nor its environment, and are bounded.
    build_fails(
        "rust/solutions/include_host",
        "rust/tests/uses_answer.rs",
        "solution",
    ),
    build_fails(
        "rust/solutions/include_missing",
        "rust/tests/uses_answer.rs",
        "solution",
    ),
    build_fails(
        "rust/solutions/path_host",
        "rust/tests/uses_answer.rs",
        "solution",
    ),
    build_fails(
        "rust/solutions/path_missing",
        "rust/tests/uses_answer.rs",
        "solution",
    ),
    build_fails(
        "rust/solutions/dev_zero",
        "rust/tests/uses_answer.rs",
        "solution",
    ),
    build_fails(
        "rust/solutions/const_panic_host",
        "rust/tests/uses_answer.rs",
        "solution",
    ),
    case(
        "rust/solutions/env_secret",
        "rust/tests/uses_answer.rs",
        "pass",
    ),
    build_fails(
        "rust/solutions/endless_const",
        "rust/tests/uses_answer.rs",
        "solution",
    ),
    build_fails(
        "rust/solutions/macro_bomb",
        "rust/tests/uses_answer.rs",
        "solution",
    ),
    build_fails(
        "rust/solutions/benign",
        "rust/tests/include_host.rs",
        "test",
    ),
    // Issue 19: a test sees only the interface the project states (the crate `solution`), never a
    // solution's macros, its other items, or its crate itself; and no file of it at run time.
    case(
        "rust/solutions/benign",
        "rust/tests/uses_answer_glob.rs",
        "pass",
    ),
    case(
        "rust/solutions/macro_forgery",
        "rust/tests/uses_answer_glob.rs",
        "wrong_answer",
    ),
    case(
        "rust/solutions/macro_forgery",
        "rust/tests/uses_answer.rs",
        "wrong_answer",
    ),
    build_fails(
        "rust/solutions/shadow_primitive",
        "rust/tests/uses_answer.rs",
        "solution",
    ),
    build_fails(
        "rust/solutions/benign",
        "rust/tests/names_real_crate.rs",
        "link",
    ),
    case(
        "rust/solutions/benign",
        "rust/tests/read_solution.rs",
        "pass",
    ),
];

/// Fixture files used by the generated cases below (not in the tables above).
const USED_BY_GENERATED: &[&str] = &[
    "README.md",
    "c/interface",
    "cpp/interface",
    "c/tests/copy_loop.c",
    "c/interface_strings",
    "c/tests/expected_string.c",
    "c/tests/fingerprint_memory.c",
    "c/solutions/scan_memory",
    "c/solutions/marked",
    "cpp/interface_strings",
    "cpp/tests/expected_string.cpp",
    "cpp/solutions/scan_memory",
    "rust/solutions/soundness_scan",
    "c/solutions/reads_clock_and_entropy",
    "c/tests/side_channel.c",
    "rust/solutions/marked",
    "rust/tests/expected_secret.rs",
    "rust/tests/fingerprint_memory.rs",
    "rust/tests/unsafe_read.rs",
    "python/tests/read_outside.py",
    "python/tests/write_readonly.py",
    "python/tests/probe.py",
    "python/tests/exit_codes.py",
    "python/tests/observe_everything.py",
    "python/tests/plain_values.py",
    "python/solutions/written_differently",
    "python/solutions/set_built_backwards",
    "python/solutions/fingerprint_call",
    "python/solutions/stack_list",
    "python/solutions/stack_linked",
    "python/tests/uses_stack.py",
    "python/solutions/money_dataclass",
    "python/solutions/money_namedtuple",
    "c/interface_arrays",
    "c/solutions/big_footprint",
    "c/solutions/guesses_random",
    "c/tests/observe_everything.c",
    "c/tests/random_secret.c",
    "c/tests/read_outside.c",
    "c/tests/write_readonly.c",
    "c/tests/probe.c",
    "rust/tests/read_outside.rs",
    "io/count_bytes_c",
    "io/count_bytes_py",
    "io/exit_code_c",
    "io/exit_code_py",
    "io/exit_code_rs",
    "io/flood_py",
    "io/follow_symlinks_c",
    "io/leftover_memory_c",
];

/// The interface the hostile corpus states for a test, as `dixit exec` takes it: C and C++
/// tests compile against `{c,cpp}/interface/solution.h` (never a solution's header), Rust tests
/// see `answer: fn() -> i32` of the crate `solution` (never the rest of it), Python tests call
/// `answer` (never another name of a solution's).
fn interface_args(test: &Path) -> Vec<String> {
    match test.extension().and_then(|e| e.to_str()) {
        Some("c") => vec![
            "--interface".into(),
            fixture(if test.ends_with("big_array.c") {
                "hostile/c/interface_arrays/solution.h"
            } else {
                "hostile/c/interface/solution.h"
            })
            .display()
            .to_string(),
        ],
        Some("cpp") => vec![
            "--interface".into(),
            fixture("hostile/cpp/interface/solution.h")
                .display()
                .to_string(),
        ],
        Some("rs") => vec!["--interface".into(), "answer: fn() -> i32".into()],
        Some("py") => python_interface(test)
            .iter()
            .flat_map(|n| ["--interface".to_string(), n.to_string()])
            .collect(),
        _ => vec![],
    }
}

/// What a Python test of the corpus may call: `answer`, and the functions a few tests use
/// beyond it (values a solution may build in several ways; what a harness writes into a
/// solution: a secret's path, an exit code).
fn python_interface(test: &Path) -> &'static [&'static str] {
    match test.file_name().and_then(|n| n.to_str()) {
        Some("plain_values.py") => &["answer", "many", "counts", "pair"],
        Some("read_outside.py" | "write_readonly.py") => &["answer", "secret_path"],
        Some("exit_codes.py") => &["answer", "exit_code"],
        Some("uses_stack.py") => &["Stack: push, pop, __len__"],
        Some("uses_money.py" | "compares_values.py" | "membership.py") => &[
            "total",
            "Money: cents, __eq__, __hash__, __lt__",
            "Bag: add, __len__, __iter__, __contains__, __bool__",
        ],
        _ => &["answer"],
    }
}

fn exec(solution: &Path, test: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "exec".to_string(),
        "--json".into(),
        "--solution".into(),
        solution.display().to_string(),
        "--test".into(),
        test.display().to_string(),
    ];
    args.extend(interface_args(test));
    args.extend(extra.iter().map(|a| a.to_string()));
    dixit(&args)
}

/// Runs a case and checks its verdict (and exit code: 0 for pass, 1 for any other verdict).
fn check(solution: &Path, test: &Path, verdict: &str, side: Option<&str>) -> serde_json::Value {
    let out = exec(solution, test, &[]);
    out.expect_code(if verdict == "pass" { 0 } else { 1 });
    let v = out.json();
    assert_eq!(
        s(&v, "verdict"),
        verdict,
        "{} × {}: {v:#}",
        solution.display(),
        test.display()
    );
    assert_eq!(v["side"].as_str(), side, "{}: {v:#}", test.display());
    v
}

/// What must never appear in a verdict: host files' content and the host's environment.
fn host_content() -> Vec<String> {
    let mut needles = vec!["root:x:0:0".to_string()];
    if let Ok(h) = std::fs::read_to_string("/etc/hostname") {
        if h.trim().len() >= 4 {
            needles.push(h.trim().to_string());
        }
    }
    needles.extend(
        std::env::vars()
            .map(|(_, v)| v)
            .filter(|v| v.len() >= 12 && !v.contains('/') && !v.contains(' ')),
    );
    needles
}

/// Runs `cases` with the fixture tree and `canary` hashed before and after; no verdict carries
/// host content.
fn run_table(cases: &[Case]) {
    let before = tree_hash(&fixture("hostile"));
    let needles = host_content();
    for c in cases {
        let v = check(
            &fixture(&format!("hostile/{}", c.solution)),
            &fixture(&format!("hostile/{}", c.test)),
            c.verdict,
            c.side,
        );
        let text = v.to_string();
        for n in &needles {
            assert!(
                !text.contains(n.as_str()),
                "{} × {} leaked host content {n:?}: {v:#}",
                c.solution,
                c.test
            );
        }
        if c.verdict == "runtime_error"
            && c.solution.contains("exit")
            && !c.solution.ends_with("_in_call")
        {
            // An exit before the test's end, or (on import) the solution's import failing.
            let detail = s(&v, "detail");
            assert!(
                detail.contains("before the test finished")
                    || detail.contains("importing the solution raised SystemExit"),
                "{}: {v:#}",
                c.solution
            );
        }
    }
    assert_eq!(before, tree_hash(&fixture("hostile")), "a fixture changed");
}

#[test]
fn hostile_python() {
    run_table(PYTHON);
}

/// Issue 35: a test observes a solution's answers and nothing else. One test looks at
/// everything else a test can reach (the module's names and attributes, the function's repr,
/// hash and code, names beyond the interface, raw messages to the host, its own heap); against
/// correct solutions written differently (helpers, marks, a class-bound cached function,
/// `__all__`, a docstring) it passes for each and prints the same bytes. Values a solution may
/// build in several ways (an enum, a set filled in another order, a Counter, a namedtuple)
/// arrive as the same plain values, printed alike.
#[test]
fn hostile_python_tests_cannot_tell_correct_solutions_apart() {
    let correct = [
        "benign",
        "written_differently",
        "fingerprint_me",
        "fingerprint_call",
        "set_built_backwards",
    ];
    for (test, solutions) in [
        ("observe_everything.py", &correct[..]),
        ("plain_values.py", &["benign", "set_built_backwards"][..]),
        ("uses_stack.py", &["stack_list", "stack_linked"][..]),
        (
            "uses_money.py",
            &["money_plain", "money_dataclass", "money_namedtuple"][..],
        ),
        (
            "calls_with_wrong_arguments.py",
            &["benign", "bound_as_lambda", "written_differently"][..],
        ),
    ] {
        let test = fixture(&format!("hostile/python/tests/{test}"));
        let mut printed: Option<String> = None;
        for sol in solutions {
            let v = check(
                &fixture(&format!("hostile/python/solutions/{sol}")),
                &test,
                "pass",
                None,
            );
            let out = s(&v, "stdout").to_string();
            assert!(!out.is_empty(), "{sol}: {v:#}");
            match &printed {
                None => printed = Some(out),
                Some(first) => assert_eq!(first, &out, "{sol} told apart by {}", test.display()),
            }
        }
    }
    // Nothing of a solution's reached the observing test: no mark, no helper, no source.
    let v = check(
        &fixture("hostile/python/solutions/fingerprint_call"),
        &fixture("hostile/python/tests/observe_everything.py"),
        "pass",
        None,
    );
    let out = s(&v, "stdout");
    for mark in [
        "coder-3",
        "coder-2",
        "FINGERPRINT_7c4e = ",
        "def answer",
        "/solution/",
    ] {
        assert!(!out.contains(mark), "{mark} crossed: {out}");
    }
}

/// Issue 35, in a run: a tester's test that looks for a mark of one correct coder (its helper,
/// its constants, raw messages to the bridge) passes against all three correct coders, written
/// differently: it is TOO_EASY, never IDEAL, and the Dixit rule holds.
#[test]
fn a_fingerprinting_test_is_never_ideal_in_a_run() {
    use crate::support::{dixit_at, journal, the_run};
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let py = |agent: &str, code: &str| {
        format!("[[{agent}]]\ntext = '''\n```python\n{code}\n```\n'''\n\n")
    };
    let fingerprint = "import json\nimport solution\nfrom solution import answer\n\
        from wit_world.imports import bridge\nmarks = []\n\
        for name in ('MARK', 'helper', '__doc__', '__file__'):\n    \
            v = getattr(solution, name, None)\n    if v is not None:\n        marks.append(name)\n\
        for raw in ({'op': 'vars'}, {'call': 'helper'}, {'op': 'getattr', 'h': 0, 'name': 'MARK'}):\n    \
            a = json.loads(bridge.call(json.dumps(raw).encode()))\n    if 'value' in a:\n        marks.append(raw)\n\
        assert answer() == 42\nassert not marks, marks";
    let script = [
        py("coder-1", "def answer():\n    return 42"),
        py(
            "coder-2",
            "\"\"\"coder-2\"\"\"\nMARK = 'coder-2'\n\ndef helper():\n    return 6 * 7\n\ndef answer():\n    return helper()",
        ),
        py("coder-3", "import math\n\nanswer = lambda: math.prod([6, 7])"),
        py("tester-1", fingerprint),
        py("tester-1", "from solution import answer\nassert answer() == 42"),
    ];
    std::fs::write(dir.join("script.toml"), script.concat()).unwrap();
    std::fs::write(
        dir.join("dixit.toml"),
        "[project]\nlanguage = \"python\"\ninterface = [\"answer\"]\n[dixit]\ncoders = 3\n\
         testers = 1\nmax_rounds = 1\nmax_tester_retries = 1\n[agents]\nbackend = \"script\"\n\
         script = \"script.toml\"\n",
    )
    .unwrap();
    std::fs::write(dir.join("spec.md"), "Write `answer()`, which returns 42.\n").unwrap();
    let o = dixit_at(dir, &["run", "."], &[]);
    assert!(o.status.code().is_some(), "{o:?}");
    let j = journal(&the_run(dir));
    let classes: Vec<(String, String)> = j
        .iter()
        .filter(|r| r["event"] == "classified")
        .map(|r| (r["test"].to_string(), r["class"].to_string()))
        .collect();
    assert_eq!(classes.len(), 2, "{classes:?}");
    assert!(
        classes.iter().all(|(_, c)| c == "\"TOO_EASY\""),
        "{classes:?}"
    );
}

/// Issue 51, in a run: three correct coders write the declared classes three ways (a subclass
/// with an idiomatic NotImplemented `__eq__`, a dataclass with a list-subclass bag, a namedtuple
/// subclass). Tests that lean on how one of them built its class (a tuple, a missing `__bool__`,
/// the default hash) and one that compares the way tests do pass against all three: TOO_EASY,
/// never IDEAL.
#[test]
fn a_test_of_declared_classes_never_singles_out_a_coder_in_a_run() {
    use crate::support::{dixit_at, journal, the_run};
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let py = |agent: &str, code: &str| {
        format!("[[{agent}]]\ntext = '''\n```python\n{code}\n```\n'''\n\n")
    };
    let coder = |n: &str| {
        std::fs::read_to_string(fixture(&format!(
            "hostile/python/solutions/{n}/solution.py"
        )))
        .unwrap()
    };
    // Before issue 51 this one was IDEAL: the namedtuple coder's Money crossed as a tuple.
    let leaning = "from solution import Money, total\nm = total([1, 2])\n\
        assert not isinstance(m, tuple)\nassert m == Money(3)";
    let bag = "from solution import Bag\n\
        assert total([1, 2]) != 3 and hash(total([3])) == hash(Money(3))\n\
        b = Bag()\nassert not b and 7 not in b\nb.add(7)\nassert b and 7 in b and list(b) == [7]";
    let compares = "import unittest\nfrom solution import Money, total\n\
        tc = unittest.TestCase()\ntc.assertEqual(total([100, 250]), Money(350))\n\
        tc.assertIn(total([1]), [Money(1)])\n";
    let compares = format!("{compares}{bag}");
    let script = [
        py("coder-1", &coder("money_plain")),
        py("coder-2", &coder("money_dataclass")),
        py("coder-3", &coder("money_namedtuple")),
        py("tester-1", leaning),
        py("tester-1", &compares),
    ];
    std::fs::write(dir.join("script.toml"), script.concat()).unwrap();
    std::fs::write(
        dir.join("dixit.toml"),
        "[project]\nlanguage = \"python\"\ninterface = [\"total\", \"Money: cents, __eq__, \
         __hash__, __lt__\", \"Bag: add, __len__, __iter__, __contains__, __bool__\"]\n\
         [dixit]\ncoders = 3\ntesters = 1\nmax_rounds = 1\nmax_tester_retries = 1\n\
         [agents]\nbackend = \"script\"\nscript = \"script.toml\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("spec.md"),
        "`Money(cents)` is a value: equal, hashed and ordered by `cents`. `total(xs)` is the \
         Money of the sum of `xs`. `Bag()` holds items: `add(x)`, `len`, iteration, `in`, \
         truth.\n",
    )
    .unwrap();
    let o = dixit_at(dir, &["run", "."], &[]);
    assert!(o.status.code().is_some(), "{o:?}");
    let j = journal(&the_run(dir));
    let classes: Vec<String> = j
        .iter()
        .filter(|r| r["event"] == "classified")
        .map(|r| r["class"].to_string())
        .collect();
    assert_eq!(classes.len(), 2, "{classes:?}");
    assert!(classes.iter().all(|c| c == "\"TOO_EASY\""), "{classes:?}");
}

/// Issue 35: the failure a test reports reaches the host through its own instance's bridge,
/// never through a stream: a solution printing lines shaped like the runner's old report, to
/// both streams and straight to the file descriptors, changes nothing of the evidence, and its
/// output stays visible as its output.
#[test]
fn hostile_python_evidence_is_the_tests_own() {
    let v = check(
        &fixture("hostile/python/solutions/forge_evidence"),
        &fixture("hostile/python/tests/uses_answer.py"),
        "wrong_answer",
        None,
    );
    assert_eq!(v["failure"]["type"], "AssertionError", "{v:#}");
    assert_eq!(v["failure"]["file"], "uses_answer.py", "{v:#}");
    assert_eq!(v["failure"]["line"], 3, "{v:#}");
    assert!(s(&v, "stderr").contains("[the solution's output]"), "{v:#}");
    assert!(
        s(&v, "stderr").contains("Forged"),
        "the solution's output is shown: {v:#}"
    );
    // Boundary refusals say what crossed, and name the call.
    for (sol, says) in [
        (
            "always_equal_object",
            "returned an instance of _Anything, which is not data",
        ),
        ("generator", "returned a generator, which is not data"),
        ("lone_surrogate", "not valid Unicode"),
        ("forge_raw", "something that is not an answer"),
    ] {
        let v = check(
            &fixture(&format!("hostile/python/solutions/{sol}")),
            &fixture("hostile/python/tests/uses_answer.py"),
            "runtime_error",
            None,
        );
        assert!(s(&v, "detail").contains(says), "{sol}: {v:#}");
        assert!(s(&v, "detail").contains("`answer`"), "{sol}: {v:#}");
    }
}

#[test]
fn hostile_c() {
    run_table(C);
}

/// The two components share one WASI context but not its clock or its random streams: a test
/// that reads the clock around a call and draws random bytes after it sees the same from a
/// correct solution that reads the clock, draws and sleeps as from one that does none of it.
/// With one clock and one stream the first showed 1,006,000 ns elapsed and other bytes, and
/// failed exactly that solution.
#[test]
fn hostile_pair_clock_and_random_are_per_side() {
    let run = |solution: &str| {
        dixit(&[
            "exec".to_string(),
            "--json".into(),
            "--solution".into(),
            fixture(&format!("hostile/c/solutions/{solution}"))
                .display()
                .to_string(),
            "--test".into(),
            fixture("hostile/c/tests/side_channel.c")
                .display()
                .to_string(),
            "--interface".into(),
            fixture("hostile/c/interface/solution.h")
                .display()
                .to_string(),
        ])
        .json()
    };
    let quiet = run("benign");
    let busy = run("reads_clock_and_entropy");
    assert_eq!(s(&quiet, "verdict"), "pass", "{quiet:#}");
    assert_eq!(s(&busy, "verdict"), "pass", "{busy:#}");
    assert!(
        s(&quiet, "stdout").starts_with("elapsed 1000 ns"),
        "{quiet:#}"
    );
    assert_eq!(s(&quiet, "stdout"), s(&busy, "stdout"));
}

/// Issue 51: each side of a pair has the memory limit and random streams to itself. A test that
/// prints everything it can learn (the clock around the call, random bytes, its next
/// allocation, how much it can still allocate) prints the same beside a correct solution that
/// holds 96 MiB, one that reads the clock, draws and sleeps, and a small one (before: 143 MiB
/// free beside the first, 238 beside the others), and a solution drawing the first random bytes
/// of its run does not draw the test's secret (before: it did, a copy of the test's stream).
#[test]
fn hostile_pair_memory_and_random_are_per_side() {
    let run = |solution: &str, test: &str| {
        dixit(&[
            "exec".to_string(),
            "--json".into(),
            "--solution".into(),
            fixture(&format!("hostile/c/solutions/{solution}"))
                .display()
                .to_string(),
            "--test".into(),
            fixture(&format!("hostile/c/tests/{test}"))
                .display()
                .to_string(),
            "--interface".into(),
            fixture("hostile/c/interface/solution.h")
                .display()
                .to_string(),
        ])
        .json()
    };
    let mut printed: Option<String> = None;
    for sol in ["benign", "big_footprint", "reads_clock_and_entropy"] {
        let v = run(sol, "observe_everything.c");
        assert_eq!(s(&v, "verdict"), "pass", "{sol}: {v:#}");
        let out = s(&v, "stdout").to_string();
        assert!(out.contains(" MiB free"), "{v:#}");
        match &printed {
            None => printed = Some(out),
            Some(first) => assert_eq!(first, &out, "{sol} told apart"),
        }
    }
    let guess = run("guesses_random", "random_secret.c");
    assert_eq!(
        s(&guess, "stdout"),
        "the solution knew the secret: no\n",
        "{guess:#}"
    );
    assert_eq!(s(&run("benign", "random_secret.c"), "verdict"), "pass");
}

/// A Rust solution and its test are two components too. Safe Rust is not a memory boundary:
/// through an open soundness hole of rustc (rust-lang/rust#25860, published as cve-rs) a wrong
/// solution gets a slice over all of linear memory, and so can a test, which is also compiled
/// with unsafe code forbidden. Each probe shows it can read its own memory (`probe works:
/// true`), and finds nothing of the other side's: with one shared memory the first was a forged
/// pass and the second failed exactly the marked coder.
#[test]
fn hostile_rust_memory_is_not_shared() {
    let run = |solution: &str, test: &str| {
        let out = dixit(&[
            "exec".to_string(),
            "--json".into(),
            "--solution".into(),
            fixture(&format!("hostile/rust/solutions/{solution}"))
                .display()
                .to_string(),
            "--test".into(),
            fixture(&format!("hostile/rust/tests/{test}"))
                .display()
                .to_string(),
            "--interface".into(),
            "secret: fn() -> String".into(),
            "--interface".into(),
            "probe_works: fn() -> bool".into(),
        ]);
        out.json()
    };
    let v = run("soundness_scan", "expected_secret.rs");
    assert_eq!(s(&v, "verdict"), "wrong_answer", "{v:#}");
    assert!(s(&v, "stdout").contains("probe works: true"), "{v:#}");
    assert!(s(&v, "stderr").contains("no idea"), "{v:#}");
    let v = run("marked", "expected_secret.rs");
    assert_eq!(s(&v, "verdict"), "pass", "{v:#}");
    let v = run("marked", "fingerprint_memory.rs");
    assert_eq!(s(&v, "verdict"), "pass", "{v:#}");
    assert!(s(&v, "stdout").contains("probe works: true"), "{v:#}");
    // And `unsafe` itself is refused in a test, as in a solution.
    let v = run("marked", "unsafe_read.rs");
    assert_eq!(s(&v, "verdict"), "compile_error", "{v:#}");
    assert!(s(&v, "stderr").contains("unsafe"), "{v:#}");
}

/// A C or C++ solution and its test are two components with their own memories: a wrong
/// solution that scans memory for the test's expected string finds nothing to return, and a test
/// that scans memory for one coder's data cannot single that coder out (with one shared memory
/// the scans were a forged pass and failed exactly the marked coder).
#[test]
fn hostile_c_memory_is_not_shared() {
    let run = |solution: &str, test: &str| {
        let lang = if test.ends_with(".cpp") { "cpp" } else { "c" };
        let (s, t, i) = (
            fixture(&format!("hostile/{lang}/solutions/{solution}")),
            fixture(&format!("hostile/{lang}/tests/{test}")),
            fixture(&format!("hostile/{lang}/interface_strings/solution.h"))
                .display()
                .to_string(),
        );
        let out = dixit(&[
            "exec".to_string(),
            "--json".into(),
            "--solution".into(),
            s.display().to_string(),
            "--test".into(),
            t.display().to_string(),
            "--interface".into(),
            i,
        ]);
        out.json()
    };
    let v = run("scan_memory", "expected_string.c");
    assert_eq!(s(&v, "verdict"), "wrong_answer", "{v:#}");
    assert!(s(&v, "stderr").contains("no idea"), "{v:#}");
    let v = run("marked", "expected_string.c");
    assert_eq!(s(&v, "verdict"), "pass", "{v:#}");
    let v = run("marked", "fingerprint_memory.c");
    assert_eq!(s(&v, "verdict"), "pass", "{v:#}");
    let v = run("scan_memory", "expected_string.cpp");
    assert_eq!(s(&v, "verdict"), "wrong_answer", "{v:#}");
}

#[test]
fn hostile_rust() {
    run_table(RUST);
}

/// A build that names an existing host path and one that names a missing path of the same length
/// fail with the same verdict, byte for byte once the missing path's text is replaced by the
/// existing one's (and the wall time dropped): a build error never tells whether a host path
/// exists. Each pair: (solution, test) naming an existing path, the same naming a missing one,
/// and the two paths.
#[test]
fn hostile_build_errors_do_not_tell_existing_from_missing() {
    type Build = (&'static str, &'static str);
    let pairs: &[(Build, Build, &str, &str)] = &[
        // A C solution, and a C test, that `#include` a host file.
        (
            ("c/solutions/include_host", "c/tests/uses_answer.c"),
            ("c/solutions/include_missing", "c/tests/uses_answer.c"),
            "/etc/passwd",
            "/etc/pa55wd",
        ),
        (
            ("c/solutions/benign", "c/tests/include_host.c"),
            ("c/solutions/benign", "c/tests/include_missing.c"),
            "/etc/passwd",
            "/etc/pa55wd",
        ),
        // The assembler's `.incbin`.
        (
            ("c/solutions/incbin_host", "c/tests/uses_answer.c"),
            ("c/solutions/incbin_missing", "c/tests/uses_answer.c"),
            "/etc/passwd",
            "/etc/pa55wd",
        ),
        // A Rust solution's `include_str!`, and a `#[path]` module naming a host directory.
        (
            ("rust/solutions/include_host", "rust/tests/uses_answer.rs"),
            (
                "rust/solutions/include_missing",
                "rust/tests/uses_answer.rs",
            ),
            "/etc/passwd",
            "/etc/pa55wd",
        ),
        (
            ("rust/solutions/path_host", "rust/tests/uses_answer.rs"),
            ("rust/solutions/path_missing", "rust/tests/uses_answer.rs"),
            "/etc",
            "/et0",
        ),
    ];
    let verdict = |(solution, test): Build| {
        let mut v = exec(
            &fixture(&format!("hostile/{solution}")),
            &fixture(&format!("hostile/{test}")),
            &[],
        )
        .json();
        assert_eq!(
            s(&v, "verdict"),
            "compile_error",
            "{solution} × {test}: {v:#}"
        );
        v.as_object_mut().expect("an object").remove("wall_us");
        serde_json::to_string_pretty(&v).expect("json")
    };
    for &(existing, missing, path, other) in pairs {
        assert!(Path::new(path).exists() && !Path::new(other).exists());
        assert_eq!(path.len(), other.len());
        let seen = verdict(existing);
        assert!(seen.contains(path), "the message names the path: {seen}");
        for word in [
            "Permission denied",
            "No such file",
            "os error",
            "cannot open file",
        ] {
            assert!(!seen.contains(word), "{word:?} in {seen}");
        }
        // The test's file name appears in its messages: `include_missing.c` → `include_host.c`.
        let name = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
        assert_eq!(
            seen,
            verdict(missing)
                .replace(other, path)
                .replace(&name(missing.1), &name(existing.1)),
            "{existing:?} and {missing:?} differ"
        );
    }
}

/// A secret file and a canary in one temp dir; a solution folder (a copy of a benign one) in
/// another, holding the secret's absolute path and symlinks pointing at it, made at run time.
struct Escape {
    outside: tempfile::TempDir,
    solution: tempfile::TempDir,
}

const SECRET: &str = "TOP-SECRET-8c1f5e";

impl Escape {
    fn new(benign: &str) -> Escape {
        let outside = tempfile::tempdir().expect("temp dir");
        std::fs::write(outside.path().join("secret.txt"), SECRET).expect("secret");
        std::fs::write(outside.path().join("canary.txt"), "canary").expect("canary");
        let solution = tempfile::tempdir().expect("temp dir");
        for e in std::fs::read_dir(fixture(&format!("hostile/{benign}"))).expect("benign") {
            let e = e.expect("entry");
            std::fs::copy(e.path(), solution.path().join(e.file_name())).expect("copy");
        }
        let secret = outside.path().join("secret.txt");
        std::fs::write(
            solution.path().join("secret_path.txt"),
            secret.display().to_string(),
        )
        .expect("secret path");
        std::os::unix::fs::symlink(&secret, solution.path().join("leak.txt")).expect("symlink");
        // A Python test reaches the solution only through its interface: the solution reads the
        // secret's path for it.
        let py = solution.path().join("solution.py");
        if let Ok(mut source) = std::fs::read_to_string(&py) {
            source.push_str(
                "\n\ndef secret_path():\n    with open('/solution/secret_path.txt') as f:\n        return f.read().strip()\n",
            );
            std::fs::write(&py, source).expect("solution");
        }
        std::os::unix::fs::symlink(outside.path(), solution.path().join("leak_dir"))
            .expect("symlink");
        Escape { outside, solution }
    }
}

/// Reading outside the preopens (`..`, absolute host paths, symlinks pointing out) and writing
/// into the read-only ones fail, in every language; the secret never shows up and neither the
/// canary, the fixtures nor the solution folder change.
#[test]
fn hostile_escapes_and_writes() {
    let fixtures = tree_hash(&fixture("hostile"));
    for (benign, tests) in [
        (
            "python/solutions/benign",
            &[
                "python/tests/read_outside.py",
                "python/tests/write_readonly.py",
            ][..],
        ),
        (
            "c/solutions/benign",
            &["c/tests/read_outside.c", "c/tests/write_readonly.c"][..],
        ),
        ("rust/solutions/benign", &["rust/tests/read_outside.rs"][..]),
    ] {
        let e = Escape::new(benign);
        let outside = tree_hash(e.outside.path());
        let solution = tree_hash(e.solution.path());
        for t in tests {
            // Compiled tests get no file system: the secret's host path is written into them.
            let source = fixture(&format!("hostile/{t}"));
            let text = std::fs::read_to_string(&source).expect("test");
            let made = tempfile::tempdir().expect("temp dir");
            let test = if text.contains("@SECRET_PATH@") {
                let secret = e.outside.path().join("secret.txt");
                let p = made.path().join(source.file_name().expect("name"));
                std::fs::write(
                    &p,
                    text.replace("@SECRET_PATH@", &secret.display().to_string()),
                )
                .expect("write test");
                p
            } else {
                source
            };
            let v = check(e.solution.path(), &test, "pass", None);
            for stream in ["stdout", "stderr"] {
                assert!(
                    !s(&v, stream).contains(SECRET),
                    "{t} leaked the secret: {v:#}"
                );
                assert!(!s(&v, stream).contains("root:x:0"), "{t} read /etc/passwd");
            }
        }
        assert_eq!(
            outside,
            tree_hash(e.outside.path()),
            "the canary dir changed"
        );
        assert_eq!(
            solution,
            tree_hash(e.solution.path()),
            "the solution changed"
        );
    }
    // The escaping and vandal solutions, too, find nothing and change nothing.
    let v = check(
        &fixture("hostile/python/solutions/escape"),
        &fixture("hostile/python/tests/uses_answer.py"),
        "pass",
        None,
    );
    // What the solution printed is kept after the test's own output, under a header.
    assert!(
        s(&v, "stderr").contains("[the solution's output]\nescape found: []"),
        "{v:#}"
    );
    assert_eq!(
        fixtures,
        tree_hash(&fixture("hostile")),
        "a fixture changed"
    );
}

/// Symlinks pointing out of a preopened directory are refused by the sandbox itself (cap-std),
/// not only by the snapshot (which never copies symlinks): here a host directory with symlinks
/// is preopened directly through the library.
#[test]
fn hostile_symlinks_in_a_preopen() {
    use dixit::sandbox::{Preopen, RunSpec, SandboxConfig};
    use dixit::toolchain::TestKind;
    crate::support::warm_up();

    let outside = tempfile::tempdir().expect("temp dir");
    std::fs::write(outside.path().join("secret.txt"), SECRET).expect("secret");
    let data = tempfile::tempdir().expect("temp dir");
    std::fs::write(data.path().join("plain.txt"), "hello").expect("plain");
    let link = |target: &Path, name: &str| {
        std::os::unix::fs::symlink(target, data.path().join(name)).expect("symlink")
    };
    link(&outside.path().join("secret.txt"), "absolute_link");
    link(
        Path::new("../../../../../../../../etc/passwd"),
        "relative_link",
    );
    link(outside.path(), "dir_link");
    let before = (tree_hash(outside.path()), tree_hash(data.path()));

    let tc = toolchains(SandboxConfig::default().max_concurrent_runs);
    let program = tc
        .solution_for(&fixture("hostile/io/follow_symlinks_c"), TestKind::Io, None)
        .expect("snapshot");
    let runnable = tc.solution_program(&program).expect("builds").clone();
    let mut argv = vec!["main".to_string()];
    argv.extend(
        [
            "/data/plain.txt",
            "/data/absolute_link",
            "/data/relative_link",
            "/data/dir_link/secret.txt",
            "/data/../secret.txt",
        ]
        .map(String::from),
    );
    let spec = RunSpec {
        entry: dixit::sandbox::Entry::Start { argv },
        stdin: std::sync::Arc::from(Vec::new()),
        preopens: vec![Preopen {
            host: data.path().to_path_buf(),
            guest: "/data".into(),
        }],
        limits: Default::default(),
        seed: 1,
        server: None,
    };
    let out = tc.sandbox().run(&runnable.program, &spec);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.end,
        dixit::sandbox::RunEnd::Returned { code: 0 },
        "{stdout}"
    );
    assert!(stdout.contains("read /data/plain.txt: hello"), "{stdout}");
    for blocked in [
        "absolute_link",
        "relative_link",
        "dir_link/secret.txt",
        "../secret.txt",
    ] {
        assert!(
            stdout.contains(&format!("blocked /data/{blocked}")),
            "{blocked} was followed: {stdout}"
        );
    }
    assert!(
        !stdout.contains(SECRET) && !stdout.contains("root:x:0"),
        "{stdout}"
    );
    assert_eq!(before, (tree_hash(outside.path()), tree_hash(data.path())));
}

/// What a guest learns about its host: no environment, no real time, a seeded RNG. The same
/// seed gives the same answers; another seed other random numbers and another date.
#[test]
fn hostile_probes_see_nothing_real() {
    for (sol, test) in [
        ("python/solutions/benign", "python/tests/probe.py"),
        ("c/solutions/benign", "c/tests/probe.c"),
    ] {
        let run = |seed: &str| {
            let out = exec(
                &fixture(&format!("hostile/{sol}")),
                &fixture(&format!("hostile/{test}")),
                &["--seed", seed],
            );
            out.expect_code(0);
            let v = out.json();
            assert_eq!(v["read_entropy"], true, "{test}");
            assert_eq!(v["read_clock"], true, "{test}");
            s(&v, "stdout").to_string()
        };
        let a = run("1");
        assert_eq!(a, run("1"), "{test}: same seed, same answers");
        assert_ne!(a, run("2"), "{test}: another seed, other answers");
        let host_env: Vec<String> = std::env::vars().map(|(k, _)| k).collect();
        for line in a.lines() {
            for k in &host_env {
                assert!(
                    !line.contains(&format!("{k}=")) && !line.contains(&format!("'{k}'")),
                    "{test}: host variable {k} visible: {line}"
                );
            }
        }
        assert!(a.contains("env {}") || !a.contains("env "), "{test}: {a}");
        assert!(!a.contains(&root().display().to_string()), "{test}: {a}");
    }
}

/// Exit codes 0, 1, 2, 255 and -1 through `sys.exit` (a Python test) and through WASI
/// `proc_exit` (C, Python and Rust I/O programs). A program's exit 0 is a pass; a unit test that
/// exits, with any code but 1 (a failed check), did not run to its end: not a pass.
#[test]
fn hostile_exit_codes() {
    let expected = |code: i32| match code {
        0 => "pass",
        1 => "wrong_answer",
        _ => "runtime_error",
    };
    let expected_test = |code: i32| match code {
        1 => "wrong_answer",
        _ => "runtime_error",
    };
    let dir = tempfile::tempdir().expect("temp dir");
    for code in [0, 1, 2, 255, -1] {
        let sol = dir.path().join(format!("py_{code}"));
        std::fs::create_dir(&sol).expect("dir");
        std::fs::copy(
            fixture("hostile/python/solutions/benign/solution.py"),
            sol.join("solution.py"),
        )
        .expect("copy");
        let mut source = std::fs::read_to_string(sol.join("solution.py")).expect("read");
        source.push_str(&format!("\ndef exit_code():\n    return {code}\n"));
        std::fs::write(sol.join("solution.py"), source).expect("code");
        let v = check(
            &sol,
            &fixture("hostile/python/tests/exit_codes.py"),
            expected_test(code),
            None,
        );
        // The runner reports a failed check (1) or an exit before the end (3).
        assert_eq!(v["exit_code"], if code == 1 { 1 } else { 3 }, "{v:#}");
        if code != 1 {
            assert!(
                s(&v, "stderr").contains(&format!("SystemExit({code})")),
                "{v:#}"
            );
        }

        let toml = dir.path().join(format!("exit_{code}.toml"));
        std::fs::write(
            &toml,
            format!("args = [\"{code}\"]\nexpected = \"exiting with {code}\"\n"),
        )
        .expect("toml");
        for program in ["exit_code_c", "exit_code_py", "exit_code_rs"] {
            let v = check(
                &fixture(&format!("hostile/io/{program}")),
                &toml,
                expected(code),
                None,
            );
            assert_eq!(v["exit_code"], code, "{program}: {v:#}");
        }
    }
}

/// Tens of MB on stdin, from a file made at test time, reach the program intact.
#[test]
fn hostile_huge_stdin() {
    let dir = tempfile::tempdir().expect("temp dir");
    let line =
        "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789\n";
    let lines = 400_000;
    let bytes = line.len() * lines;
    std::fs::write(dir.path().join("big.txt"), line.repeat(lines)).expect("stdin file");
    for (program, expected) in [
        ("count_bytes_c", format!("{bytes}")),
        ("count_bytes_py", format!("{bytes} {lines}")),
    ] {
        let toml = dir.path().join(format!("{program}.toml"));
        std::fs::write(
            &toml,
            format!("stdin_file = \"big.txt\"\nexpected = \"{expected}\"\n"),
        )
        .expect("toml");
        check(
            &fixture(&format!("hostile/io/{program}")),
            &toml,
            "pass",
            None,
        );
    }
    assert!(bytes > 30 << 20);
}

/// An I/O solution that answers and then floods is stopped at the output limit.
#[test]
fn hostile_io_flood() {
    let dir = tempfile::tempdir().expect("temp dir");
    let toml = dir.path().join("answer.toml");
    std::fs::write(&toml, "expected = \"42\"\n").expect("toml");
    check(&fixture("hostile/io/flood_py"), &toml, "output_limit", None);
}

/// Fuel does not bound everything: a loop of 64 MiB `memcpy`s (each one `memory.copy`, one fuel
/// unit) would run for years on its 4·10⁹ units. The wall-clock safety net ends it, and says the
/// verdict is not deterministic.
#[test]
fn hostile_cheap_fuel_is_stopped_by_the_wall_clock_net() {
    let out = exec(
        &fixture("hostile/c/solutions/benign"),
        &fixture("hostile/c/tests/copy_loop.c"),
        &["--wall-time", "1000"],
    );
    out.expect_code(1);
    let v = out.json();
    assert_eq!(s(&v, "verdict"), "wall_time_limit", "{v:#}");
    assert!(s(&v, "detail").contains("not deterministic"), "{v:#}");
}

/// A prebuilt `main.wasm` that is corrupt, or imports what the sandbox does not provide, is a
/// solution that does not build.
#[test]
fn hostile_wasm_modules() {
    let dir = tempfile::tempdir().expect("temp dir");
    let toml = dir.path().join("t.toml");
    std::fs::write(&toml, "expected = \"\"\n").expect("toml");
    let module = |name: &str, bytes: &[u8]| {
        let d = dir.path().join(name);
        std::fs::create_dir(&d).expect("dir");
        std::fs::write(d.join("main.wasm"), bytes).expect("wasm");
        d
    };
    // (module (import "env" "launch_missiles" (func)) (func (export "_start") call 0))
    let imports = module(
        "unexpected_import",
        &[
            0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
            0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: () -> ()
            0x02, 0x17, 0x01, 0x03, b'e', b'n', b'v', 0x0f, b'l', b'a', b'u', b'n', b'c', b'h',
            b'_', b'm', b'i', b's', b's', b'i', b'l', b'e', b's', 0x00, 0x00, // import
            0x03, 0x02, 0x01, 0x00, // function section
            0x07, 0x0a, 0x01, 0x06, b'_', b's', b't', b'a', b'r', b't', 0x00, 0x01, // export
            0x0a, 0x06, 0x01, 0x04, 0x00, 0x10, 0x00, 0x0b, // code: call 0
        ],
    );
    let v = check(&imports, &toml, "compile_error", Some("solution"));
    assert!(s(&v, "stderr").contains("launch_missiles"), "{v:#}");

    let mut garbage = b"\0asm\x01\0\0\0".to_vec();
    garbage.extend((0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    let corrupt = module("corrupt", &garbage);
    check(&corrupt, &toml, "compile_error", Some("solution"));
    let not_wasm = module("not_wasm", b"#!/bin/sh\nrm -rf /\n");
    let v = check(&not_wasm, &toml, "compile_error", Some("solution"));
    assert!(s(&v, "detail").contains("WebAssembly"), "{v:#}");
}

/// Every file of `fixtures/hostile/` is exercised by some case here.
#[test]
fn every_hostile_file_is_exercised() {
    let mut used: Vec<String> = [PYTHON, C, RUST]
        .iter()
        .flat_map(|t| t.iter())
        .flat_map(|c| [c.solution.to_string(), c.test.to_string()])
        .collect();
    used.extend(USED_BY_GENERATED.iter().map(|s| s.to_string()));
    let base = fixture("hostile");
    let mut unused = Vec::new();
    let mut stack = vec![base.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p
                .strip_prefix(&base)
                .expect("under base")
                .display()
                .to_string();
            if !used
                .iter()
                .any(|u| rel == *u || rel.starts_with(&format!("{u}/")))
            {
                unused.push(rel);
            }
        }
    }
    unused.sort();
    assert!(unused.is_empty(), "hostile files no test uses: {unused:?}");
}

/// Pages out this process's private writable memory (`MADV_PAGEOUT`): with swap configured, the
/// dirty pages of freed sandbox memories go to swap, as they could under memory pressure.
/// Without swap the kernel keeps anonymous pages, and this changes nothing.
fn page_out_private_memory() {
    let maps = std::fs::read_to_string("/proc/self/maps").expect("/proc/self/maps");
    for line in maps.lines() {
        let mut fields = line.split_whitespace();
        let (Some(range), Some(perms)) = (fields.next(), fields.next()) else {
            continue;
        };
        if !perms.starts_with("rw") || !perms.ends_with('p') {
            continue;
        }
        let Some((start, end)) = range.split_once('-') else {
            continue;
        };
        let (Ok(start), Ok(end)) = (
            usize::from_str_radix(start, 16),
            usize::from_str_radix(end, 16),
        ) else {
            continue;
        };
        // SAFETY: MADV_PAGEOUT only moves pages to swap; their contents stay the same for
        // every reader, so no memory of this process changes meaning.
        #[expect(unsafe_code, reason = "madvise is unsafe by API contract")]
        let _ = unsafe {
            rustix::mm::madvise(
                start as *mut std::ffi::c_void,
                end - start,
                rustix::mm::Advice::LinuxPageOut,
            )
        };
    }
}

/// Runs `f` while another thread keeps paging out this process's memory; the paging stops when
/// `f` returns or panics.
fn while_paging_out<R>(f: impl FnOnce() -> R) -> R {
    use std::sync::atomic::{AtomicBool, Ordering};
    struct Stop<'a>(&'a AtomicBool);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                page_out_private_memory();
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        });
        let _stop = Stop(&done);
        f()
    })
}

/// A run never sees what an earlier run left in memory, even when that run's pages were swapped
/// out while it ran (wasmtime 48's PAGEMAP_SCAN reset skips dirty pages that are not present, so
/// the sandbox does not use it where swap is configured). The guest marks its pages, then spins
/// while another thread pages out this process's memory. Meaningful on machines with swap;
/// without swap the page-out is a no-op and the plain reuse of one memory slot is checked.
#[test]
fn a_run_never_sees_an_earlier_runs_memory_even_after_swap_out() {
    use dixit::sandbox::RunSpec;
    use dixit::toolchain::TestKind;
    crate::support::warm_up();
    // One run slot, so consecutive runs reuse one memory slot.
    let tc = toolchains(1);
    let solution = tc
        .solution_for(&fixture("hostile/io/leftover_memory_c"), TestKind::Io, None)
        .expect("snapshot");
    let runnable = tc.solution_program(&solution).expect("builds").clone();
    let spec = RunSpec {
        entry: dixit::sandbox::Entry::Start {
            argv: vec!["main".into(), "20000000".into()],
        },
        stdin: std::sync::Arc::from(Vec::new()),
        preopens: vec![],
        limits: Default::default(),
        seed: 1,
        server: None,
    };
    let seen: Vec<String> = while_paging_out(|| {
        (0..6)
            .map(|_| {
                let out = tc.sandbox().run(&runnable.program, &spec);
                assert_eq!(out.end, dixit::sandbox::RunEnd::Returned { code: 0 });
                String::from_utf8_lossy(&out.stdout).trim().to_string()
            })
            .collect()
    });
    assert!(
        seen.iter().all(|s| s == "0"),
        "pages of earlier runs seen, per run: {seen:?} (memory reset by {})",
        if tc.sandbox().resets_with_pagemap() {
            "PAGEMAP_SCAN"
        } else {
            "madvise"
        }
    );
}

/// The Python runtime's memories are dixit's own (`sandbox::memory`), reset page by page from the
/// runtime's image: a fresh instance never sees what an earlier run left, not in the interpreter
/// (module attributes, builtins) and not in memory the run grew, even when the earlier run's
/// pages were swapped out before the reset (on machines with swap; elsewhere the page-out is a
/// no-op and plain slot reuse is checked).
#[test]
fn a_python_run_never_sees_an_earlier_runs_state_even_after_swap_out() {
    use dixit::sandbox::Limits;
    crate::support::warm_up();
    let dir = tempfile::tempdir().expect("temp dir");
    let sol = dir.path().join("solution");
    std::fs::create_dir(&sol).expect("mkdir");
    std::fs::write(sol.join("solution.py"), "def answer():\n    return 42\n").expect("write");
    let test = dir.path().join("test_leftover.py");
    std::fs::write(
        &test,
        "import builtins, json\n\
         from solution import answer\n\
         seen = getattr(builtins, 'dixit_leftover', 0) + hasattr(json, 'dixit_leftover')\n\
         big = bytearray(16 << 20)\n\
         seen += big.count(0xAB)\n\
         big[::4096] = bytes([0xAB]) * len(big[::4096])\n\
         builtins.dixit_leftover = 1\n\
         json.dixit_leftover = 1\n\
         assert seen == 0 and answer() == 42, seen\n",
    )
    .expect("write");
    // One run slot, so consecutive runs reuse one memory slot.
    let tc = toolchains(1);
    let t = tc.test(&test).expect("test");
    let interface = tc
        .interface(&dixit::toolchain::StatedInterface::Names(vec![
            "answer".into()
        ]))
        .expect("interface");
    let s = tc
        .solution_for(&sol, t.kind, None)
        .expect("solution")
        .with_interface(std::sync::Arc::new(interface));
    let verdicts: Vec<String> = while_paging_out(|| {
        (0..6)
            .map(|seed| {
                let v = tc.run(&s, &t, seed, &Limits::default());
                format!("{} {}", v.verdict, v.detail.unwrap_or_default())
            })
            .collect()
    });
    assert!(
        verdicts.iter().all(|v| v.starts_with("pass")),
        "state of earlier runs seen: {verdicts:?}"
    );
}

/// Issue 9: an I/O test names files in its own folder only: relative, no `..`, no symlinks,
/// regular files, size-capped before reading. Anything else is refused with a message that names
/// the key and never shows the file.
#[test]
fn hostile_io_test_paths_stay_in_the_tests_folder() {
    let outside = tempfile::tempdir().expect("temp dir");
    std::fs::write(outside.path().join("secret.txt"), SECRET).expect("secret");
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("in.txt"), "42\n").expect("input");
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        dir.path().join("link.txt"),
    )
    .expect("symlink");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).expect("symlink");
    let sparse = std::fs::File::create(dir.path().join("huge.txt")).expect("sparse");
    sparse.set_len(1 << 30).expect("1 GiB, sparse");
    let fifo = dir.path().join("fifo");
    let _ = std::process::Command::new("mkfifo").arg(&fifo).status();
    let secret_rel = format!(
        "../{}/secret.txt",
        outside.path().file_name().unwrap().to_string_lossy()
    );
    let cases: Vec<(&str, String)> = vec![
        ("stdin_file", "/etc/passwd".into()),
        ("stdin_file", "/proc/self/environ".into()),
        ("stdin_file", "/dev/zero".into()),
        ("stdin_file", "/dev/stdin".into()),
        ("stdin_file", secret_rel),
        ("stdin_file", "link.txt".into()),
        ("stdin_file", "out/secret.txt".into()),
        ("stdin_file", "huge.txt".into()),
        ("stdin_file", "fifo".into()),
        ("expected_file", "../../../../etc/passwd".into()),
        ("checker", "/etc/passwd".into()),
        ("checker", "link.txt".into()),
    ];
    for (key, path) in cases {
        let toml = dir.path().join("t.toml");
        let body = if key == "stdin_file" {
            format!("stdin_file = {path:?}\nexpected = \"42\"\n")
        } else if key == "checker" {
            format!("checker = {path:?}\n")
        } else {
            format!("{key} = {path:?}\n")
        };
        std::fs::write(&toml, body).expect("toml");
        let out = exec(&fixture("hostile/io/count_bytes_py"), &toml, &[]);
        out.expect_code(2);
        assert!(
            out.stderr.contains(&format!("`{key}`")),
            "{key} = {path}: {}",
            out.stderr
        );
        for leaked in [SECRET, "root:x:0"] {
            assert!(
                !out.stderr.contains(leaked) && !out.stdout.contains(leaked),
                "{key} = {path} leaked: {}",
                out.stderr
            );
        }
    }
    // The same file, inside the folder, is fine.
    let toml = dir.path().join("ok.toml");
    std::fs::write(&toml, "stdin_file = \"in.txt\"\nexpected = \"3 1\"\n").expect("toml");
    check(&fixture("hostile/io/count_bytes_py"), &toml, "pass", None);
}

/// Issue 9: sizes are checked before reading: a sparse 1 GiB file in a solution folder, or a
/// sparse 1 GiB test file, is refused at once (without reading, so without 1 GiB of memory).
#[test]
fn hostile_sizes_are_checked_before_reading() {
    let sol = tempfile::tempdir().expect("temp dir");
    std::fs::copy(
        fixture("hostile/python/solutions/benign/solution.py"),
        sol.path().join("solution.py"),
    )
    .expect("copy");
    let f = std::fs::File::create(sol.path().join("data.bin")).expect("sparse");
    f.set_len(1 << 30).expect("1 GiB");
    let out = exec(
        sol.path(),
        &fixture("hostile/python/tests/uses_answer.py"),
        &[],
    );
    out.expect_code(2);
    assert!(out.stderr.contains("MiB of files"), "{}", out.stderr);

    let t = tempfile::tempdir().expect("temp dir");
    let test = t.path().join("test_big.py");
    std::fs::File::create(&test)
        .expect("sparse")
        .set_len(1 << 30)
        .expect("1 GiB");
    let out = exec(&fixture("hostile/python/solutions/benign"), &test, &[]);
    out.expect_code(2);
    assert!(out.stderr.contains("at most"), "{}", out.stderr);
}

/// The processes of session `sid`, with their command lines.
fn processes_in_session(sid: u32) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp session ...; comm may contain spaces: split after ')'.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().collect())
            .unwrap_or_default();
        if fields.get(3).and_then(|f| f.parse::<u32>().ok()) == Some(sid) {
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            found.push(format!(
                "{name}: {}",
                String::from_utf8_lossy(&cmd).replace('\0', " ")
            ));
        }
    }
    found
}

/// Starts `dixit ARGS` in a session of its own: everything it starts, even in other process
/// groups, stays in that session, so the test can find what outlives it.
fn dixit_in_new_session(args: &[&str]) -> std::process::Child {
    crate::support::warm_up();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_dixit"));
    cmd.args(args)
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    // SAFETY: setsid is async-signal-safe and allocates nothing.
    #[expect(unsafe_code, reason = "pre_exec is unsafe by API contract")]
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            rustix::process::setsid()?;
            Ok(())
        });
    }
    cmd.spawn().expect("dixit")
}

/// Issue 9: a compile bomb ends in `compile_error` within the compiler's limits, leaves no
/// process behind, and is not compiled a second time.
#[test]
fn hostile_compile_bombs_leave_nothing_behind() {
    for (solution, test) in [
        ("c/solutions/compile_bomb", "c/tests/uses_answer.c"),
        ("rust/solutions/macro_bomb", "rust/tests/uses_answer.rs"),
    ] {
        let (sol, test) = (
            fixture(&format!("hostile/{solution}")),
            fixture(&format!("hostile/{test}")),
        );
        let (s_arg, t_arg) = (sol.display().to_string(), test.display().to_string());
        let mut args = vec!["exec", "--json", "--solution", &s_arg, "--test", &t_arg];
        let interface = interface_args(&test);
        args.extend(interface.iter().map(String::as_str));
        let child = dixit_in_new_session(&args);
        let sid = child.id();
        let out = child.wait_with_output().expect("dixit");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{solution}: no JSON ({e}): {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert_eq!(s(&v, "verdict"), "compile_error", "{solution}: {v:#}");
        assert_eq!(v["side"], "solution", "{solution}: {v:#}");
        assert!(
            s(&v, "stderr").contains("limits"),
            "{solution}: the log should say a limit stopped the compiler: {v:#}"
        );
        let left = processes_in_session(sid);
        assert!(left.is_empty(), "{solution}: left behind: {left:?}");
        // The failure is remembered: a second exec does not compile again (it returns at once
        // with the same log, where a compile would take its full time limit).
        let again = exec(&sol, &test, &[]);
        assert_eq!(again.json()["stderr"], v["stderr"], "{solution}");
    }
}

/// Issue 9: a compiler dies with the dixit that started it (`kill -9` of dixit mid-build).
#[test]
fn hostile_compilers_die_with_dixit() {
    // A build that would run for its whole CPU limit (30 s) in little memory; a fresh copy, so
    // the build is not a remembered failure.
    let dir = tempfile::tempdir().expect("temp dir");
    let bomb = std::fs::read_to_string(fixture("hostile/rust/solutions/endless_const/lib.rs"))
        .expect("fixture");
    let nonce = format!("{:?}", std::time::SystemTime::now());
    std::fs::write(dir.path().join("lib.rs"), format!("{bomb}\n// {nonce}\n")).expect("copy");
    let (s_arg, t_arg) = (
        dir.path().display().to_string(),
        fixture("hostile/rust/tests/uses_answer.rs")
            .display()
            .to_string(),
    );
    let interface = interface_args(Path::new(&t_arg));
    let mut args = vec!["exec", "--solution", &s_arg, "--test", &t_arg];
    args.extend(interface.iter().map(String::as_str));
    let mut child = dixit_in_new_session(&args);
    let sid = child.id();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    // The solution's build (not the version probes dixit makes first).
    let compiling = || {
        processes_in_session(sid)
            .iter()
            .any(|p| p.contains("rustc") && p.contains("--crate-name dixit_solution"))
    };
    let mut started = false;
    while !started && std::time::Instant::now() < deadline {
        started = compiling();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        started,
        "rustc never started: {:?}",
        processes_in_session(sid)
    );
    child.kill().expect("kill -9 dixit");
    child.wait().expect("reaped");
    // Well before its CPU limit could end it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !processes_in_session(sid).is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let left = processes_in_session(sid);
    assert!(left.is_empty(), "outlived dixit: {left:?}");
}
