//! `dixit exec`: one test, one solution, one verdict.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::{output, toolchains, GlobalArgs, LimitArgs};
use crate::sandbox::{Limits, VerdictKind};
use crate::toolchain::{Language, LoadedInterface, StatedInterface, Test, TestKind, Toolchains};

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
    /// What the test may use of the solution: for a Python test, a function it may call
    /// (`NAME`, or `NAME: METHOD, ...` for a class); for a C/C++ test, a header it includes
    /// (`#include "solution.h"`); for a Rust test, a function of the solution's crate with its
    /// type, `NAME: fn(ARGS) -> RESULT`, or a struct it passes, `struct NAME { FIELD: TYPE, ...
    /// }`. Repeat for several. A test never sees a solution's own files or names.
    #[arg(long, value_name = "NAME|HEADER|ITEM")]
    pub interface: Vec<String>,
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

pub(super) fn run(g: &GlobalArgs, a: &ExecArgs) -> CliResult {
    let tc = toolchains(g)?;
    let test = tc.test(&a.test).map_err(|e| CliError::usage(e.message))?;
    let solution = tc
        .solution_for(&a.solution, test.kind, a.language)
        .map_err(|e| CliError::usage(e.message))?;
    let solution = solution.with_interface(interface_for(&tc, &test, &a.interface)?);
    let limits = a.limits.apply(Limits::default());
    let (v, missing_toolchain) = match tc.try_run(&solution, &test, a.seed, &limits) {
        Ok(v) => (v, false),
        Err(e) => (e.verdict(a.seed), e.is_missing_toolchain()),
    };
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
        VerdictKind::CompileError if missing_toolchain => Err(CliError::env(
            v.stderr.lines().next().unwrap_or_default().to_string(),
        )
        .hint("run `dixit toolchain doctor` to see what is missing and how to install it")),
        _ => Ok(exit::FAILED),
    }
}

/// The interface a unit test sees, from `--interface` values. A test that needs one (it
/// includes a header of its own, or names the module or crate `solution`) without one is a
/// usage error naming what is missing: nothing falls back to a solution's own files or names.
pub(crate) fn interface_for(
    tc: &Toolchains,
    test: &Test,
    values: &[String],
) -> Result<Arc<LoadedInterface>, CliError> {
    let source = || std::fs::read_to_string(&test.path).unwrap_or_default();
    let stated = match (test.kind, values.is_empty()) {
        (TestKind::C | TestKind::Cpp, false) => {
            StatedInterface::Headers(values.iter().map(PathBuf::from).collect())
        }
        (TestKind::Rust, false) => StatedInterface::Items(values.to_vec()),
        (TestKind::Python, false) => StatedInterface::Names(values.to_vec()),
        (_, false) => {
            return Err(CliError::usage(
                "--interface is for unit tests (an I/O test talks to a program)",
            ))
        }
        (TestKind::Python, true) => {
            if source().contains("solution") {
                return Err(CliError::usage(format!(
                    "{} uses the module `solution`, but no interface is stated",
                    test.path.display()
                ))
                .hint(
                    "pass --interface NAME for each function the test may call (NAME: METHOD, \
                     ... for a class); a test sees only these names of a solution",
                ));
            }
            StatedInterface::None
        }
        (TestKind::C | TestKind::Cpp, true) => {
            if let Some(h) = own_include(&source()) {
                return Err(CliError::usage(format!(
                    "{} includes \"{h}\", but no interface is stated",
                    test.path.display()
                ))
                .hint(format!(
                    "pass --interface FILE, the header tests compile against (e.g. --interface \
                     interface/{h}); a test never compiles against a solution's own headers"
                )));
            }
            StatedInterface::None
        }
        (TestKind::Rust, true) => {
            if source().contains("solution") {
                return Err(CliError::usage(format!(
                    "{} uses the crate `solution`, but no interface is stated",
                    test.path.display()
                ))
                .hint(
                    "pass --interface \"NAME: fn(ARGS) -> RESULT\" for each function of the \
                     solution's crate the test may call; a test never sees the rest of a \
                     solution's crate",
                ));
            }
            StatedInterface::None
        }
        _ => StatedInterface::None,
    };
    tc.interface(&stated)
        .map(Arc::new)
        .map_err(|e| CliError::usage(format!("--interface: {e}")))
}

/// The first `#include "NAME"` of a C/C++ source that dixit's SDK does not provide.
fn own_include(source: &str) -> Option<String> {
    source.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix('#')?.trim_start();
        let rest = rest.strip_prefix("include")?.trim_start();
        let name = rest.strip_prefix('"')?.split('"').next()?;
        (!matches!(name, "dixit.h" | "assert.h")).then(|| name.to_string())
    })
}
