//! `dixit bench`: the sandbox's speed side by side with native runs, and the targets.

use std::process::Command;

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::{toolchains, GlobalArgs};
use crate::bench::{self, BenchOptions, LoadRow};
use crate::report::bench_table;
use crate::sandbox::SandboxConfig;

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Seconds each measurement runs for (per program and thread count).
    #[arg(long, default_value_t = 1.0, value_parser = parse_seconds)]
    pub seconds: f64,
    /// Thread counts to measure runs per second on, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2", value_parser = clap::value_parser!(usize))]
    pub threads: Vec<usize>,
    /// Repetitions of each classification and fresh processes for the second-invocation load.
    #[arg(long, default_value_t = 15)]
    pub repeats: usize,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if f > 0.0 && f <= 600.0 => Ok(f),
        _ => Err(format!(
            "`{s}` is not a duration in seconds between 0 and 600"
        )),
    }
}

struct Stderr {
    quiet: bool,
}

impl bench::StepProgress for Stderr {
    fn step(&self, what: &str) {
        if !self.quiet {
            eprintln!("bench: {what}");
        }
    }
}

pub(super) fn run(g: &GlobalArgs, a: &BenchArgs) -> CliResult {
    if a.threads.contains(&0) {
        return Err(CliError::usage("--threads: thread counts start at 1"));
    }
    let tc = toolchains(g)?;
    let opts = BenchOptions {
        seconds: a.seconds,
        threads: a.threads.clone(),
        classify_repeats: a.repeats,
        load_repeats: a.repeats,
    };
    let progress = Stderr { quiet: g.quiet };
    let mut report = bench::run(&tc, &opts, &progress).map_err(|e| {
        CliError::env(e).hint("run `dixit toolchain doctor` to check the toolchains")
    })?;
    bench::StepProgress::step(
        &progress,
        "second invocation: loading the cached Python runtime in fresh processes",
    );
    let load = second_invocation(tc.sandbox().cache().root(), opts.load_repeats)?;
    report.finish(Some(load));
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)?
        );
    } else {
        print!("{}", bench_table(&report, a.seconds));
    }
    Ok(exit::OK)
}

/// Spawns this binary `n` times with the hidden `bench-load-python` command.
fn second_invocation(cache: &std::path::Path, n: usize) -> Result<LoadRow, CliError> {
    let exe = std::env::current_exe().map_err(anyhow::Error::from)?;
    let mut samples = Vec::new();
    for _ in 0..n.max(1) {
        let out = Command::new(&exe)
            .arg("--cache-dir")
            .arg(cache)
            .arg("bench-load-python")
            .output()
            .map_err(anyhow::Error::from)?;
        if !out.status.success() {
            return Err(CliError::new(
                exit::INTERNAL,
                anyhow::anyhow!(
                    "the second-invocation probe failed: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            ));
        }
        let row: LoadRow = serde_json::from_slice(&out.stdout).map_err(anyhow::Error::from)?;
        samples.push(row);
    }
    Ok(LoadRow::median(&samples))
}

/// The hidden child of the second-invocation measurement: one load, as JSON on stdout.
pub(super) fn load_python(g: &GlobalArgs) -> CliResult {
    let mut config = SandboxConfig::default();
    if let Some(c) = &g.cache_dir {
        config.cache_dir = c.clone();
    }
    let row = bench::load_python_once(config).map_err(|e| CliError::new(exit::INTERNAL, e))?;
    println!(
        "{}",
        serde_json::to_string(&row).map_err(anyhow::Error::from)?
    );
    Ok(exit::OK)
}
