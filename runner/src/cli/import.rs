//! `dixit import`: a benchmark file becomes a folder of projects, one per task (see
//! `crate::import`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::exit::{self, CliError, CliResult};
use super::{toolchains, GlobalArgs};
use crate::english::plural;
use crate::import::{self as imp, Benchmark, ImportError, ImportReport, Template};

/// The benchmark formats `dixit import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BenchmarkKind {
    /// HumanEval's JSON Lines (openai/human-eval, CodeT's `HumanEval_for_code_generation.jsonl`).
    Humaneval,
    /// HumanEval-X's JSON Lines in C++ or Rust (THUDM/CodeGeeX's `humaneval_cpp.jsonl.gz`,
    /// `humaneval_rust.jsonl.gz`).
    HumanevalX,
    /// MBPP in HumanEval's fields (CodeT's `mbpp_sanitized_for_code_generation.jsonl`): the
    /// reference bodies re-indented where the record's indentation breaks them, said per task.
    Mbpp,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The benchmark's format.
    #[arg(value_enum)]
    pub benchmark: BenchmarkKind,
    /// The benchmark's file (JSON Lines, plain or gzipped).
    pub file: PathBuf,
    /// Where the project folders go (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Read each task's docstring examples (its acceptance tests, `tests/`) from the prompts of
    /// this file, of the same format, matched by task id, instead of FILE's own (CodeT's file
    /// has them taken out; human-eval's `HumanEval.jsonl.gz` has them).
    #[arg(long, value_name = "FILE")]
    pub examples: Option<PathBuf>,
    /// The dixit.toml of every project (its `[project] name` set to the task's id) [default: a
    /// Python project for the local model with a table per protocol].
    #[arg(long, value_name = "TOML")]
    pub template: Option<PathBuf>,
    /// Replace project folders that already exist in DIR (with their runs).
    #[arg(long)]
    pub force: bool,
    /// Print what was imported as JSON (every project, clean or flagged with its evidence, its
    /// tests, dropped examples and unread lines; every record refused, with its line and why).
    #[arg(long)]
    pub json: bool,
}

pub(super) fn run(g: &GlobalArgs, a: &ImportArgs) -> CliResult {
    let template = match &a.template {
        Some(p) => Template::load(p),
        None => Template::builtin(),
    }
    .map_err(bad_input)?;
    let reader: Box<dyn Benchmark> = match a.benchmark {
        BenchmarkKind::Humaneval => Box::new(imp::HumanEval {
            file: a.file.clone(),
            examples: a.examples.clone(),
        }),
        BenchmarkKind::HumanevalX => Box::new(imp::HumanEvalX {
            file: a.file.clone(),
        }),
        BenchmarkKind::Mbpp => Box::new(imp::Mbpp {
            file: a.file.clone(),
        }),
    };
    let imp::Tasks {
        tasks,
        refused: mut refused_records,
    } = reader.tasks().map_err(bad_input)?;
    // Folder names first, so a refused id or a folder in the way costs no sandbox run.
    let (tasks, folders, unnamed) = imp::folders(tasks);
    refused_records.extend(unnamed);
    let there = imp::existing(&a.out, &folders);
    if !a.force && !there.is_empty() {
        return Err(bad_input(ImportError::Exists {
            out: a.out.clone(),
            folders: there,
        }));
    }
    if !g.quiet && !tasks.is_empty() {
        let examples: usize = tasks.iter().map(|t| t.examples.examples.len()).sum();
        eprintln!(
            "checking the reference solutions of {} against their hidden tests and {} in the \
             sandbox",
            plural(tasks.len(), "task", "tasks"),
            plural(examples, "example", "examples")
        );
    }
    let tc = toolchains(g)?;
    let checked =
        imp::check(&tc, &tasks, &template.limits(), template.seed()).map_err(|e| match e {
            ImportError::Toolchain(_) => CliError::new(exit::ENVIRONMENT, e)
                .hint("run `dixit toolchain doctor` to see what is missing and how to install it"),
            e => bad_input(e),
        })?;
    let (planned, refused) = imp::plan(&tasks, &folders, &checked, &template).map_err(bad_input)?;
    refused_records.extend(refused);
    let report = ImportReport::new(
        reader.name(),
        a.file.clone(),
        a.examples.clone(),
        template.path.clone(),
        a.out.clone(),
        planned.iter().map(|p| p.report.clone()).collect(),
        refused_records,
    );
    if planned.is_empty() {
        // Every record refused: nothing is written, and the summary says why, record by record.
        eprint!("{}", crate::report::import_summary(&report));
        return Err(CliError::usage(format!(
            "{}: every record was refused, so no project was made (nothing written)",
            a.file.display()
        )));
    }
    imp::write(&a.out, &planned, a.force).map_err(bad_input)?;
    report.save().map_err(bad_input)?;
    crate::report::import::write_import_page(&a.out, None)
        .map_err(|e| CliError::new(exit::INTERNAL, e))?;
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)?
        );
    } else {
        print!("{}", crate::report::import_summary(&report));
    }
    Ok(exit::OK)
}

/// An import error as the CLI reports it: bad input (exit 2), with a hint where one helps.
fn bad_input(e: ImportError) -> CliError {
    let hint = match &e {
        ImportError::Exists { .. } => Some("pass --force to replace them, or another --out"),
        ImportError::Template(_) => Some(
            "a template is a project's dixit.toml (docs/project-format.md); without \
             --template the built-in one is used",
        ),
        _ => None,
    };
    let code = match &e {
        ImportError::Write { .. } => exit::INTERNAL,
        _ => exit::USAGE,
    };
    let mut err = CliError::new(code, e);
    if let Some(h) = hint {
        err = err.hint(h);
    }
    err
}
