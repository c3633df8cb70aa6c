//! `dixit import`: a benchmark becomes a folder of ordinary dixit projects, one per task.
//!
//! ```text
//! Benchmark::tasks (a reader: humaneval.rs) ─► Vec<Task> ─► check::check (the reference in the
//! sandbox: hidden tests, examples) ─► project::plan (folders, files, template) ─► project::write
//! ```
//!
//! - [`Task`]: what a reader makes of one task, in no benchmark's terms: the spec's code, the
//!   hidden test, the reference solution (used to check, never written into a project) and the
//!   examples read from its docstring.
//! - `humaneval.rs`: [`HumanEval`], the reader of HumanEval's JSON Lines (plain or gzipped),
//!   examples optionally from a second file of the same format.
//! - `mbpp.rs`: [`Mbpp`], MBPP in HumanEval's fields, its reference bodies re-indented (the
//!   one defect of its records that is mechanical to repair), said per task.
//! - `examples.rs`: the docstring's examples as Python assertions ([`Example`]), and the lines
//!   that looked like examples but could not be read ([`Unread`]).
//! - `check.rs`: the reference solution against its hidden test and every example, in the
//!   sandbox (benchmark code never runs on the host); an example it fails is dropped.
//! - `decision.rs`: a person's decision on a flagged project ([`Ruling`]: include or exclude),
//!   journaled beside its `FLAGGED.md`, and where a project stands with comparisons.
//! - `project.rs`: folder names made from task ids, `spec.md`, `dixit.toml` from a
//!   [`Template`], the files of each project, and writing them all or nothing.
//!
//! Another benchmark is another reader: a type implementing [`Benchmark`].

mod check;
mod decision;
mod examples;
mod humaneval;
mod humaneval_x;
mod mbpp;
mod project;
mod refusal;
mod rust_source;
mod source;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use check::{check, run_hidden, Checked};
pub use decision::{
    decide, standing, DecisionError, FlagDecision, Ruling, Standing, DECISIONS_FILE,
};
pub use examples::{Example, Found, Unread};
pub use humaneval::HumanEval;
pub use humaneval_x::HumanEvalX;
pub use mbpp::{mbpp_reference, Mbpp};
pub use project::{
    existing, folder_name, folders, plan, write, Dropped, Flag, ImportReport, Planned,
    ProjectReport, Template, BUILTIN_TEMPLATE, FLAG_FILE, REPORT_FILE,
};
pub use refusal::Refusal;

/// A benchmark's file format: reads every task of a file, checked.
pub trait Benchmark {
    /// The benchmark's name as output says it (`HumanEval`).
    fn name(&self) -> &'static str;

    /// Every task, in file order, and the records refused (each with its line and why). A file
    /// that cannot be read, or whose every record is malformed where the reader stops at the
    /// first, is an error naming the file and the line.
    fn tasks(&self) -> Result<Tasks, ImportError>;
}

/// What a reader made of a file: the tasks, and the records it could not make one of.
#[derive(Clone, Debug, Default)]
pub struct Tasks {
    /// The tasks made.
    pub tasks: Vec<Task>,
    /// The records no task was made of.
    pub refused: Vec<Refused>,
}

/// A record no project is made of, and why: the benchmark's own defect (a test cut off, a
/// reference that does not build) or something dixit cannot run (a library no build has).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refused {
    /// Its task id (empty when the record could not be read at all).
    pub task_id: String,
    /// Where the record is.
    pub at: Place,
    /// Why no project was made of it.
    pub why: String,
}

/// One task of a benchmark, as a project needs it, in one of the languages dixit judges: the
/// solution is the project language's solution file (`solution.py`, `solution.cpp`, `lib.rs`),
/// which the tests reach through the stated interface.
#[derive(Clone, Debug)]
pub struct Task {
    /// The task's id in the benchmark (`HumanEval/0`): data, so never used as a path as is.
    pub id: String,
    /// Where the task's record is.
    pub at: Place,
    /// The language of its code, tests and reference.
    pub language: crate::toolchain::Language,
    /// The function a solution defines.
    pub entry_point: String,
    /// The code the spec shows: imports, helpers, the function's signature and docstring.
    pub prompt: String,
    /// What tests may use of a solution, as the project states it.
    pub interface: TaskInterface,
    /// The hidden test: a test file of the task's language that reaches the function through
    /// the interface.
    pub hidden_test: String,
    /// The benchmark's reference solution, a whole solution file: only for checking the hidden
    /// test and the examples in the sandbox; never written into a project.
    pub reference: String,
    /// Where the examples were read (a record of the examples file, or the task's own).
    pub examples_at: Place,
    /// The examples of the function's docstring, and the lines left unread (Python).
    pub examples: Found,
    /// The benchmark's own test of the prompt's examples, a whole test file (C++, Rust).
    pub example_test: Option<String>,
    /// What a continuation of the prompt follows in the solution file: the prompt (Python), the
    /// declaration (C++; Rust without other crates' `use` lines), as the origin harness joins them.
    pub solution_head: String,
    /// What the reader repaired of the benchmark's record, in words (MBPP: a reference body
    /// indented its own way); empty: taken as it is.
    pub repaired: Vec<String>,
}

impl Task {
    /// The solution file of a model's sample for this task: a whole program as it is, a
    /// continuation after [`Task::solution_head`]; in Rust with each top-level function made
    /// public, as the task's reference is (the interface reaches public items only).
    pub fn solution_file(&self, text: &str, whole_program: bool) -> String {
        let file = if whole_program {
            text.to_string()
        } else {
            format!("{}{text}", self.solution_head)
        };
        match self.language {
            crate::toolchain::Language::Rust => rust_source::publish(&file),
            _ => file,
        }
    }
}

/// What a project states as its interface (`[project] interface`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskInterface {
    /// Python: the functions tests import.
    Names(Vec<String>),
    /// C/C++: the text of `interface/solution.h`, which tests include.
    Header(String),
    /// Rust: the items of the crate `solution`.
    Items(Vec<String>),
}

/// A line of a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// The file.
    pub path: PathBuf,
    /// 1-based.
    pub line: usize,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.path.display(), self.line)
    }
}

/// Why an import could not be done. Nothing is written when there is one.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A file could not be read (or a gzipped one decompressed).
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A file is larger than an import reads.
    #[error("{path}: more than {limit} bytes (decompressed): not read")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The most bytes an import reads.
        limit: u64,
    },
    /// A file holds no record at all.
    #[error("{path}: no task in it")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The template is not a project's dixit.toml this import can use (the message names the
    /// file, the key and its line).
    #[error("template {0}")]
    Template(#[source] crate::config::ConfigError),
    /// Project folders that exist already (without `--force`).
    #[error("{}: already holds {}", .out.display(), listed(.folders))]
    Exists {
        /// The output folder.
        out: PathBuf,
        /// The project folders it already holds.
        folders: Vec<String>,
    },
    /// The output folder could not be written.
    #[error("{path}: cannot write: {source}")]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The sandbox lacks a toolchain (the Python runtime) to check the references with.
    #[error("cannot check the reference solutions in the sandbox: {0}")]
    Toolchain(String),
}

/// Names, the first five of them and how many more.
fn listed(names: &[String]) -> String {
    const SHOWN: usize = 5;
    if names.len() <= SHOWN {
        return crate::english::and_list(names);
    }
    format!(
        "{}, … and {} more",
        names[..SHOWN].join(", "),
        names.len() - SHOWN
    )
}
