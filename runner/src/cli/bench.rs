//! `dixit bench`: the sandbox's speed side by side with native runs, and the targets.

use std::process::Command;

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::{toolchains, GlobalArgs};
use crate::bench::{self, BenchOptions, LoadRow, Report};
use crate::report::format::thousands;
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

impl bench::Progress for Stderr {
    fn step(&self, what: &str) {
        if !self.quiet {
            eprintln!("bench: {what}");
        }
    }
}

pub fn run(g: &GlobalArgs, a: &BenchArgs) -> CliResult {
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
    bench::Progress::step(
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
        print!("{}", table(&report, a.seconds));
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
pub fn load_python(g: &GlobalArgs) -> CliResult {
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

fn per_run(us: f64) -> String {
    if us < 1_000.0 {
        format!("{us:.1} µs")
    } else {
        format!("{:.2} ms", us / 1e3)
    }
}

fn rate(r: f64) -> String {
    thousands(r.round() as u64)
}

/// The human-readable report.
pub fn table(r: &Report, seconds: f64) -> String {
    let load = match r.load_average {
        (Some(a), Some(b)) => format!(", load average {a:.1} → {b:.1}"),
        _ => String::new(),
    };
    let mut s = format!(
        "dixit bench: wasmtime {}, {} CPUs{load}, {seconds} s per measurement\n\
         memory reset: compiled guests by wasmtime's {}; the Python runtime by dixit's own{}\n\
         native Python: {}\n\n",
        r.wasmtime,
        r.cpus,
        if r.pagemap {
            "PAGEMAP_SCAN"
        } else {
            "madvise (no PAGEMAP_SCAN, or swap is on)"
        },
        match &r.python_memory {
            Some(m) if m.restores + m.clears > 0 => format!(
                " ({:.0} pages copied back per reset, {} slots, {} of {} resets by madvise)",
                m.pages_restored as f64 / m.restores.max(1) as f64,
                m.slots,
                m.clears,
                m.restores + m.clears
            ),
            _ => String::new(),
        },
        r.python
    );
    let threads: Vec<usize> = r
        .guests
        .first()
        .map(|g| g.throughput.iter().map(|t| t.threads).collect())
        .unwrap_or_default();
    s.push_str(&format!("{:<31} {:>10} {:>10}", "per run", "median", "p90"));
    for t in &threads {
        s.push_str(&format!(" {:>12}", format!("runs/s ×{t}")));
    }
    s.push_str("  vs native\n");
    for g in &r.guests {
        s.push_str(&format!(
            "{:<31} {:>10} {:>10}",
            g.name,
            per_run(g.latency.median_us),
            per_run(g.latency.p90_us)
        ));
        for t in &threads {
            let v = g
                .throughput
                .iter()
                .find(|x| x.threads == *t)
                .map(|x| rate(x.runs_per_sec))
                .unwrap_or_default();
            s.push_str(&format!(" {v:>12}"));
        }
        if let (Some(b), Some(x)) = (&g.baseline, g.speedup) {
            s.push_str(&format!("  {x:.0}× faster than {b}"));
        }
        s.push('\n');
    }
    s.push_str(&format!(
        "\n{:<31} {:>10} {:>10} {:>12} {:>12}\n",
        "classify 1 Python test", "median", "p90", "solutions", "runs"
    ));
    for c in &r.classify {
        s.push_str(&format!(
            "{:<31} {:>10} {:>10} {:>12} {:>12}\n",
            format!("  reruns {}", c.reruns),
            per_run(c.time.median_us),
            per_run(c.time.p90_us),
            c.solutions,
            c.runs
        ));
    }
    if let Some(l) = &r.runtime_load {
        s.push_str(&format!(
            "\nsecond invocation (fresh process, {} samples): engine {}, Python runtime load {}, compiled: {}\n",
            l.samples,
            per_run(l.engine_us),
            per_run(l.load_us),
            if l.compiled { "YES" } else { "nothing" }
        ));
    }
    s.push_str("\ntargets\n");
    for t in &r.targets {
        let fmt = |v: f64| {
            if t.unit == "×" && v < 10.0 {
                format!("{v:.1}×")
            } else if t.unit == "×" {
                format!("{v:.0}×")
            } else if t.unit == "compilations" {
                format!("{v:.0}")
            } else {
                format!("{v:.2} {}", t.unit)
            }
        };
        s.push_str(&format!(
            "  {:<7} {:<62} {} {} {}\n",
            if t.met { "met" } else { "MISSED" },
            t.what,
            fmt(t.measured),
            t.op,
            fmt(t.limit)
        ));
    }
    s
}
