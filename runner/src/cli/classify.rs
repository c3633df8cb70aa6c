//! `dixit classify`: one test against several solutions, with reruns.

use std::path::PathBuf;

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::{output, toolchains, GlobalArgs, LimitArgs};
use crate::classify::{run_matrix, Class, Classification, Reruns, DEFAULT_MINORITY};
use crate::sandbox::Limits;

#[derive(Debug, Args)]
pub struct ClassifyArgs {
    /// The test file.
    #[arg(long, value_name = "FILE")]
    pub test: PathBuf,
    /// The solution folders (the pool the test is judged against).
    #[arg(required = true, value_name = "SOLUTION_DIR")]
    pub solutions: Vec<PathBuf>,
    /// Runs per solution: a number, or `auto` (up to 20, but one when the run read no entropy
    /// and no clock), or `auto:N`.
    #[arg(long, default_value = "auto")]
    pub reruns: Reruns,
    /// More than this share of failing solutions makes the test TOO_HARD.
    #[arg(long, default_value_t = DEFAULT_MINORITY, value_parser = parse_minority)]
    pub minority: f64,
    /// Base seed; rerun r uses a seed derived from it (printed for failures).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the classification as JSON.
    #[arg(long)]
    pub json: bool,
    /// What the test may use of the solution: for a Python test, a function it may call
    /// (`NAME`, or `NAME: METHOD, ...` for a class); for a C/C++ test, a header it includes
    /// (`#include "solution.h"`); for a Rust test, a function of the solution's crate with its
    /// type, `NAME: fn(ARGS) -> RESULT`, or a struct it passes, `struct NAME { FIELD: TYPE, ...
    /// }`. Repeat for several. A test never sees a solution's own files or names.
    #[arg(long, value_name = "NAME|HEADER|ITEM")]
    pub interface: Vec<String>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

fn parse_minority(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if (0.0..1.0).contains(&f) => Ok(f),
        _ => Err(format!("`{s}` is not a share between 0 and 1 (e.g. 0.4)")),
    }
}

pub(super) fn run(g: &GlobalArgs, a: &ClassifyArgs) -> CliResult {
    let tc = toolchains(g)?;
    let test = tc.test(&a.test).map_err(|e| CliError::usage(e.message))?;
    let solutions = a
        .solutions
        .iter()
        .map(|d| tc.solution_for(d, test.kind, None))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| CliError::usage(e.message))?;
    let interface = super::exec::interface_for(&tc, &test, &a.interface)?;
    let solutions: Vec<_> = solutions
        .into_iter()
        .map(|s| s.with_interface(interface.clone()))
        .collect();
    let limits = a.limits.apply(Limits::default());
    let started = std::time::Instant::now();
    let c = match tc.check_test(&test) {
        Err(e) if e.is_missing_toolchain() => {
            return Err(CliError::env(e.message).hint("run `dixit toolchain doctor`"))
        }
        Err(e) => {
            let cells = solutions
                .iter()
                .map(|_| crate::classify::PairVerdict {
                    verdict: e.verdict(a.seed),
                    runs: 0,
                    skipped: 0,
                })
                .collect();
            Classification::from_cells(cells, a.minority)
        }
        Ok(()) => {
            let refs: Vec<_> = solutions.iter().collect();
            let row = run_matrix(&tc, &refs, &[&test], a.reruns, a.seed, &limits).remove(0);
            Classification::from_cells(row, a.minority)
        }
    };
    let elapsed = started.elapsed();
    if a.json {
        let mut v = serde_json::to_value(&c).map_err(anyhow::Error::from)?;
        v["test"] = a.test.display().to_string().into();
        v["solutions"] = a
            .solutions
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .into();
        v["reruns"] = serde_json::to_value(a.reruns).map_err(anyhow::Error::from)?;
        v["elapsed_ms"] = (elapsed.as_secs_f64() * 1e3).into();
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(anyhow::Error::from)?
        );
        return Ok(exit::OK);
    }
    println!("{}: {}", a.test.display(), c.class);
    let width = a
        .solutions
        .iter()
        .map(|p| p.display().to_string().len())
        .max()
        .unwrap_or(0);
    for (dir, cell) in a.solutions.iter().zip(&c.cells) {
        let v = &cell.verdict;
        let runs = if cell.skipped > 0 {
            format!(
                "{} run, {} identical reruns skipped",
                cell.runs, cell.skipped
            )
        } else {
            format!("{} run{}", cell.runs, if cell.runs == 1 { "" } else { "s" })
        };
        println!(
            "  {:width$}  {}  {runs}{}",
            dir.display().to_string(),
            output::verdict_name(output::Stream::Stdout, v.verdict, 14),
            if v.passed() {
                String::new()
            } else {
                format!(
                    "  seed {}  {}",
                    v.seed,
                    output::printable(&v.detail.clone().unwrap_or_default())
                )
            },
        );
    }
    let rule = match c.class {
        Class::Invalid => format!(
            "the test does not build:\n{}",
            output::printable(&c.build_error.clone().unwrap_or_default())
        ),
        _ => format!(
            "{} of {} failed; TOO_HARD above {:.1} (minority {})",
            c.failures,
            c.pool,
            c.pool as f64 * c.minority,
            c.minority
        ),
    };
    println!("  {rule}");
    if !g.quiet {
        eprintln!("classified in {:.1} ms", elapsed.as_secs_f64() * 1e3);
    }
    Ok(exit::OK)
}
