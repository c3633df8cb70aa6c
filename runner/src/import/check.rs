//! The reference solution of each task against its hidden test and each of its examples, in
//! the sandbox: the benchmark's code never runs on the host. An example the reference fails is
//! wrong (HumanEval has a few) or was misread, and stays out of the project; a hidden test it
//! fails means the task cannot be imported.

use std::path::Path;

use rayon::prelude::*;

use super::{ImportError, Task};
use crate::evidence::Evidence;
use crate::sandbox::{Limits, Verdict};
use crate::toolchain::{Language, Toolchains};

/// What a task's reference solution did.
#[derive(Clone, Debug)]
pub struct Checked {
    /// Against the hidden test.
    pub hidden: Verdict,
    /// Against each example's test, in the order of `Task::examples`.
    pub examples: Vec<Verdict>,
}

/// Runs every task's reference solution against its hidden test and its examples' tests (one
/// sandbox run each, in parallel, with `limits` and `seed`), in task order.
pub fn check(
    tc: &Toolchains,
    tasks: &[Task],
    limits: &Limits,
    seed: u64,
) -> Result<Vec<Checked>, ImportError> {
    tc.python_runtime()
        .map_err(|e| ImportError::Toolchain(e.to_string()))?;
    let dir = tempfile::tempdir().map_err(|source| ImportError::Write {
        path: std::env::temp_dir(),
        source,
    })?;
    let mut solutions = Vec::with_capacity(tasks.len());
    // (task, example or None for the hidden test, test file)
    let mut jobs = Vec::new();
    for (i, task) in tasks.iter().enumerate() {
        let d = dir.path().join(i.to_string());
        write(&d.join("solution/solution.py"), &task.reference)?;
        write(&d.join("tests/test_hidden.py"), &task.hidden_test)?;
        jobs.push((i, None, d.join("tests/test_hidden.py")));
        for (j, e) in task.examples.examples.iter().enumerate() {
            let p = d.join(format!("tests/test_example_{}.py", j + 1));
            write(&p, &e.test_file(&task.entry_point))?;
            jobs.push((i, Some(j), p));
        }
        let s = tc
            .solution(&d.join("solution"), Some(Language::Python))
            .map_err(|e| ImportError::Toolchain(e.message))?
            .with_interface(std::sync::Arc::new(task_interface(task)));
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
    for ((i, example, _), v) in jobs.iter().zip(verdicts) {
        let v = v?;
        match example {
            None => hidden[*i] = Some(v),
            Some(_) => examples[*i].push(v),
        }
    }
    Ok(hidden
        .into_iter()
        .zip(examples)
        .map(|(hidden, examples)| Checked {
            hidden: hidden.expect("every task's hidden test is a job"),
            examples,
        })
        .collect())
}

/// What an imported task's tests may call: its entry point.
pub fn task_interface(task: &Task) -> crate::toolchain::Interface {
    crate::toolchain::Interface::names(crate::sandbox::boundary::Interface {
        functions: vec![task.entry_point.clone()],
        classes: Vec::new(),
    })
}

/// Why a run failed, in a few words: the verdict, and the exception and its message if any
/// (`wrong_answer (AssertionError)`).
pub fn why(v: &Verdict) -> String {
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
