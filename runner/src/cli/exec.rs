//! `dixit exec`: one test, one solution, one verdict.

use std::path::PathBuf;

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::{output, toolchains, GlobalArgs, LimitArgs};
use crate::sandbox::{Limits, VerdictKind};
use crate::toolchain::Language;

#[derive(Debug, Args)]
pub struct ExecArgs {
    /// The solution folder.
    #[arg(long, value_name = "DIR")]
    pub solution: PathBuf,
    /// The test file (.py, .c, .cpp, .rs, or .toml for an I/O test).
    #[arg(long, value_name = "FILE")]
    pub test: PathBuf,
    /// The run's seed (RNG and clock). A failing rerun reported by `classify` names its seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The solution's language, when its files do not say.
    #[arg(long)]
    pub language: Option<Language>,
    /// Print the verdict as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

impl clap::ValueEnum for Language {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            Language::Python,
            Language::C,
            Language::Cpp,
            Language::Rust,
            Language::Wasm,
        ]
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()))
    }
}

pub fn run(g: &GlobalArgs, a: &ExecArgs) -> CliResult {
    let tc = toolchains(g)?;
    let test = tc.test(&a.test).map_err(CliError::usage)?;
    let solution = tc
        .solution_for(&a.solution, test.kind, a.language)
        .map_err(CliError::usage)?;
    let limits = a.limits.apply(Limits::default());
    let v = tc.run(&solution, &test, a.seed, &limits);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(anyhow::Error::from)?
        );
    } else {
        print!("{}", output::verdict_block(&v));
    }
    match v.verdict {
        VerdictKind::Pass => Ok(exit::OK),
        VerdictKind::InternalError => Err(CliError::new(
            exit::INTERNAL,
            anyhow::anyhow!("the sandbox failed: {}", v.detail.unwrap_or_default()),
        )),
        VerdictKind::CompileError if is_missing_toolchain(&v.stderr) => Err(CliError::env(
            v.stderr.lines().next().unwrap_or_default().to_string(),
        )
        .hint("run `dixit toolchain doctor` to see what is missing and how to install it")),
        _ => Ok(exit::FAILED),
    }
}

/// Whether a build failed because a toolchain is absent (not because the code is wrong).
pub(crate) fn is_missing_toolchain(log: &str) -> bool {
    [
        "componentize-py not found",
        "no C/C++ compiler",
        "rustc not found",
        "target is not installed",
    ]
    .iter()
    .any(|m| log.contains(m))
}
