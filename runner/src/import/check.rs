//! The reference solution of each task against its hidden test and each of its examples, in
//! the sandbox: the benchmark's code never runs on the host. An example the reference fails is
//! wrong (HumanEval has a few) or was misread, and stays out of the project; a reference or
//! hidden test that does not build refuses the task, and a hidden test the reference fails
//! flags it (see `project.rs`).

use std::path::Path;

use rayon::prelude::*;

use super::{ImportError, Task, TaskInterface};
use crate::evidence::Evidence;
use crate::sandbox::{Limits, Verdict};
use crate::toolchain::{
    solution_files, Language, LoadedInterface, StatedInterface, TestKind, Toolchains,
};

/// What a task's reference solution did.
#[derive(Clone, Debug)]
pub struct Checked {
    /// Against the hidden test.
    pub hidden: Verdict,
    /// Against each example's test, in the order of `Task::examples`.
    pub examples: Vec<Verdict>,
    /// Against the benchmark's example test, when the task has one.
    pub example_test: Option<Verdict>,
}

/// A test of a task: its hidden test, one of its examples, or its example test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Hidden,
    Example(usize),
    ExampleTest,
}

/// The kind of a task's unit tests, and the extension of their files.
pub(super) fn unit_kind(language: Language) -> (TestKind, &'static str) {
    match language {
        Language::C => (TestKind::C, "c"),
        Language::Cpp => (TestKind::Cpp, "cpp"),
        Language::Rust => (TestKind::Rust, "rs"),
        _ => (TestKind::Python, "py"),
    }
}

/// Runs every task's reference solution against its hidden test and its examples' tests (one
/// sandbox run each, in parallel, with `limits` and `seed`), in task order.
pub fn check(
    tc: &Toolchains,
    tasks: &[Task],
    limits: &Limits,
    seed: u64,
) -> Result<Vec<Checked>, ImportError> {
    if tasks.iter().any(|t| t.language == Language::Python) {
        tc.python_runtime()
            .map_err(|e| ImportError::Toolchain(e.to_string()))?;
    }
    let dir = tempfile::tempdir().map_err(|source| ImportError::Write {
        path: std::env::temp_dir(),
        source,
    })?;
    let mut solutions = Vec::with_capacity(tasks.len());
    let mut jobs: Vec<(usize, Which, std::path::PathBuf)> = Vec::new();
    for (i, task) in tasks.iter().enumerate() {
        let d = dir.path().join(i.to_string());
        let (kind, ext) = unit_kind(task.language);
        let (file, _) = solution_files(task.language, kind);
        write(&d.join("solution").join(file), &task.reference)?;
        let hidden = d.join(format!("tests/test_hidden.{ext}"));
        write(&hidden, &task.hidden_test)?;
        jobs.push((i, Which::Hidden, hidden));
        for (j, e) in task.examples.examples.iter().enumerate() {
            let p = d.join(format!("tests/test_example_{}.py", j + 1));
            write(&p, &e.test_file(&task.entry_point))?;
            jobs.push((i, Which::Example(j), p));
        }
        if let Some(t) = &task.example_test {
            let p = d.join(format!("tests/test_examples.{ext}"));
            write(&p, t)?;
            jobs.push((i, Which::ExampleTest, p));
        }
        let interface = std::sync::Arc::new(stated_interface(tc, task, &d)?);
        let s = tc
            .solution(&d.join("solution"), Some(task.language))
            .map_err(|e| ImportError::Toolchain(e.message))?
            .with_interface(interface);
        solutions.push(s);
    }
    let verdicts: Vec<Result<Verdict, ImportError>> = jobs
        .par_iter()
        .map(|(i, _, path)| {
            let test = match tc.test(path) {
                Ok(t) => t,
                Err(e) => return Ok(e.verdict(seed)),
            };
            match tc.try_run(&solutions[*i], &test, seed, limits) {
                Ok(v) => Ok(v),
                Err(e) if e.is_missing_toolchain() => Err(ImportError::Toolchain(e.message)),
                Err(e) => Ok(e.verdict(seed)),
            }
        })
        .collect();
    let mut hidden: Vec<Option<Verdict>> = vec![None; tasks.len()];
    let mut examples: Vec<Vec<Verdict>> = vec![Vec::new(); tasks.len()];
    let mut example_tests: Vec<Option<Verdict>> = vec![None; tasks.len()];
    for ((i, which, _), v) in jobs.iter().zip(verdicts) {
        let v = v?;
        match which {
            Which::Hidden => hidden[*i] = Some(v),
            Which::Example(_) => examples[*i].push(v),
            Which::ExampleTest => example_tests[*i] = Some(v),
        }
    }
    Ok(hidden
        .into_iter()
        .zip(examples)
        .zip(example_tests)
        .map(|((hidden, examples), example_test)| Checked {
            hidden: hidden.expect("every task's hidden test is a job"),
            examples,
            example_test,
        })
        .collect())
}

/// The interface `task`'s tests compile against, as its project states it (a C/C++ header is
/// written under `dir/interface/`).
fn stated_interface(
    tc: &Toolchains,
    task: &Task,
    dir: &Path,
) -> Result<LoadedInterface, ImportError> {
    match &task.interface {
        TaskInterface::Names(_) => Ok(task_interface(task)),
        TaskInterface::Header(text) => {
            let h = dir.join("interface/solution.h");
            write(&h, text)?;
            load_interface(tc, &StatedInterface::Headers(vec![h]))
        }
        TaskInterface::Items(items) => load_interface(tc, &StatedInterface::Items(items.clone())),
    }
}

/// Runs each solution file of `jobs` (a task's index in `tasks` and the whole text of the
/// task's solution file) against its task's hidden test: one sandbox run each, in parallel,
/// with `limits` and `seed`, in job order. A solution that does not build is its
/// `compile_error` verdict; `progress` is called once per job done.
pub fn run_hidden(
    tc: &Toolchains,
    tasks: &[Task],
    jobs: &[(usize, String)],
    limits: &Limits,
    seed: u64,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<Verdict>, ImportError> {
    let dir = tempfile::tempdir().map_err(|source| ImportError::Write {
        path: std::env::temp_dir(),
        source,
    })?;
    let mut interfaces = Vec::with_capacity(tasks.len());
    let mut hidden = Vec::with_capacity(tasks.len());
    for (i, task) in tasks.iter().enumerate() {
        let d = dir.path().join(format!("task-{i}"));
        let (_, ext) = unit_kind(task.language);
        let path = d.join(format!("tests/test_hidden.{ext}"));
        write(&path, &task.hidden_test)?;
        hidden.push(path);
        interfaces.push(std::sync::Arc::new(stated_interface(tc, task, &d)?));
    }
    let tests: Vec<Result<crate::toolchain::Test, Box<Verdict>>> = hidden
        .iter()
        .map(|p| tc.test(p).map_err(|e| Box::new(e.verdict(seed))))
        .collect();
    jobs.par_iter()
        .enumerate()
        .map(|(j, (i, text))| {
            let task = &tasks[*i];
            let (kind, _) = unit_kind(task.language);
            let (file, _) = solution_files(task.language, kind);
            let d = dir.path().join(format!("solution-{j}"));
            write(&d.join(file), text)?;
            let verdict = match (&tests[*i], tc.solution(&d, Some(task.language))) {
                (Err(v), _) => (**v).clone(),
                (_, Err(e)) => e.verdict(seed),
                (Ok(test), Ok(s)) => {
                    match tc.try_run(
                        &s.with_interface(interfaces[*i].clone()),
                        test,
                        seed,
                        limits,
                    ) {
                        Ok(v) => v,
                        Err(e) if e.is_missing_toolchain() => {
                            return Err(ImportError::Toolchain(e.message))
                        }
                        Err(e) => e.verdict(seed),
                    }
                }
            };
            progress();
            Ok(verdict)
        })
        .collect()
}

/// What an imported Python task's tests may call: its entry point.
pub(super) fn task_interface(task: &Task) -> LoadedInterface {
    LoadedInterface::names(crate::sandbox::boundary::Interface {
        functions: vec![task.entry_point.clone()],
        classes: Vec::new(),
    })
}

/// A C/C++ header or Rust item list as the toolchains compile against it.
fn load_interface(
    tc: &Toolchains,
    stated: &StatedInterface,
) -> Result<LoadedInterface, ImportError> {
    LoadedInterface::load(tc.sandbox().cache(), stated)
        .map_err(|e| ImportError::Toolchain(e.to_string()))
}

/// Why a run failed, in a few words: the verdict, and the exception and its message if any
/// (`wrong_answer (AssertionError)`).
pub(super) fn why(v: &Verdict) -> String {
    let mut s = v.verdict.as_str().to_string();
    if let Some(e) = Evidence::of(v) {
        let message: String = e
            .message
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(120)
            .collect();
        if e.kind != s {
            s.push_str(&format!(" ({}", e.kind));
            if !message.is_empty() {
                s.push_str(&format!(": {message}"));
            }
            s.push(')');
        }
    }
    s
}

fn write(path: &Path, text: &str) -> Result<(), ImportError> {
    let err = |source| ImportError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(err)?;
    }
    std::fs::write(path, text).map_err(err)
}
