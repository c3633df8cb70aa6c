//! The benchmark, step by step: guests and native runs, classification, and one load of the
//! Python runtime (for the second-invocation measurement, run in a fresh process by the CLI).

use std::time::{Duration, Instant};

use super::error::BenchError;
use super::report::{PYTHON_PRIVATE_ROW, PYTHON_WRITTEN_ROW};
use super::{
    measure, programs, report, ClassifyRow, GuestRow, LoadRow, Programs, Report, RowResets, Stats,
};
use crate::classify::{run_matrix, Reruns};
use crate::execution::{Executor, Isolation, Row};
use crate::sandbox::{self, Limits, ResetTracking, Sandbox, SandboxConfig, SandboxError};
use crate::toolchain::{python_runtime_key, Toolchains};

/// What to measure and for how long.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Seconds each (program, thread count) measurement runs for.
    pub seconds: f64,
    /// Thread counts to measure throughput on.
    pub threads: Vec<usize>,
    /// Repetitions of each classification (the median is reported).
    pub classify_repeats: usize,
    /// Fresh processes that load the Python runtime (the median is reported).
    pub load_repeats: usize,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            seconds: 1.0,
            threads: vec![1, 2],
            classify_repeats: 15,
            load_repeats: 15,
        }
    }
}

/// Progress messages for the CLI (the library never prints).
pub trait StepProgress: Sync {
    /// Reports a step as it begins.
    fn step(&self, what: &str);
}

/// Measures everything but the second-invocation load (which needs a fresh process: see
/// [`load_python_once`] and the CLI). Fails only when a benchmark program cannot be built or
/// does not pass.
pub fn run(
    tc: &Toolchains,
    opts: &BenchOptions,
    progress: &dyn StepProgress,
) -> Result<Report, BenchError> {
    let load_before = report::load_average();
    progress.step("building the benchmark programs");
    let p = Programs::build(tc)?;
    let limits = Limits::default();
    let mut guests = Vec::new();

    let wasm_row = |name: &str, r: &crate::toolchain::Runnable| -> Result<GuestRow, BenchError> {
        progress.step(name);
        let one = || {
            let v = tc.run_runnable(r, Vec::new(), 1, &limits);
            if v.passed() {
                Ok(())
            } else {
                Err(BenchError::Failed {
                    program: name.to_string(),
                    how: format!("{} ({})", v.verdict, v.detail.unwrap_or_default()),
                })
            }
        };
        measure::row(name, "wasm", opts, &one)
    };
    guests.push(wasm_row("C guest", &p.c_guest)?);
    guests.push(wasm_row("Rust guest", &p.rust_guest)?);
    // The fresh Python guest with each way of resetting its memory, the default first.
    let python_fresh = |name: &str| -> Result<GuestRow, BenchError> {
        let before = p.python_guest.program.reset_stats();
        let mut row = wasm_row(name, &p.python_guest)?;
        row.resets = before
            .zip(p.python_guest.program.reset_stats())
            .map(|(a, b)| RowResets {
                tracking: sandbox::reset_tracking(),
                resets: b.restores - a.restores,
                pages_restored_per_reset: (b.pages_restored - a.pages_restored) as f64
                    / (b.restores - a.restores).max(1) as f64,
                clears: b.clears - a.clears,
                // The first runs after each protection, of this row or (where its slots were
                // all made before it) of the same program earlier.
                pages_written_per_run: (sandbox::reset_tracking() == ResetTracking::Written
                    && b.first_runs > 0)
                    .then(|| {
                        if b.first_runs > a.first_runs {
                            (b.first_run_pages - a.first_run_pages) as f64
                                / (b.first_runs - a.first_runs) as f64
                        } else {
                            b.first_run_pages as f64 / b.first_runs as f64
                        }
                    }),
                protects: b.protects - a.protects,
            });
        Ok(row)
    };
    let default = sandbox::reset_tracking();
    guests.push(python_fresh("Python guest (fresh instance)")?);
    let (other, other_row) = match default {
        ResetTracking::Private => (ResetTracking::Written, PYTHON_WRITTEN_ROW),
        ResetTracking::Written => (ResetTracking::Private, PYTHON_PRIVATE_ROW),
    };
    if sandbox::set_reset_tracking(other) == other {
        let row = python_fresh(other_row);
        sandbox::set_reset_tracking(default);
        guests.push(row?);
    }
    progress.step(SESSION_ROW);
    guests.push(session_row(tc, &p.python_guest, opts, &limits)?);
    for (name, argv) in [
        ("C native (fork/exec)", &p.c_native),
        ("python3 -I -S (fork/exec)", &p.python_native),
    ] {
        progress.step(name);
        let one = || programs::spawn(argv);
        guests.push(measure::row(name, "native", opts, &one)?);
    }
    report::link_baselines(&mut guests);

    progress.step("classify: 1 Python test × 7 solutions × 20 reruns");
    let classify = classify_rows(tc, &p, opts, &limits)?;
    let mut report = Report::new(guests, classify, &p);
    report.pagemap = tc.sandbox().resets_with_pagemap();
    report.python_memory = p.python_guest.program.reset_stats();
    report.load_average = (load_before, report::load_average());
    Ok(report)
}

/// The Python guest at isolation level `solution`: one pair of instances (the test's and the
/// solution's) per thread serves run after run (each call in a fresh namespace, with its own
/// fuel): what instance reuse would buy.
const SESSION_ROW: &str = "Python guest (reused instance)";

fn session_row(
    tc: &Toolchains,
    r: &crate::toolchain::Runnable,
    opts: &BenchOptions,
    limits: &Limits,
) -> Result<GuestRow, BenchError> {
    let row = Row::single(r.program.clone(), r.spec(Vec::new(), 1, limits));
    let executor = Executor::new(tc.sandbox(), Isolation::Solution);
    let idle = std::sync::Mutex::new(Vec::new());
    let one = || {
        let taken = idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut session = match taken {
            Some(s) => s,
            None => executor.session(&row).map_err(|e| BenchError::Failed {
                program: SESSION_ROW.to_string(),
                how: e.to_string(),
            })?,
        };
        let out = executor.call(&mut session, &row.calls[0]);
        idle.lock().unwrap_or_else(|e| e.into_inner()).push(session);
        match out.end {
            crate::sandbox::RunEnd::Returned { code: 0 } => Ok(()),
            end => Err(BenchError::Failed {
                program: SESSION_ROW.to_string(),
                how: format!("{end:?}"),
            }),
        }
    };
    measure::row(SESSION_ROW, "wasm", opts, &one)
}

fn classify_rows(
    tc: &Toolchains,
    p: &Programs,
    opts: &BenchOptions,
    limits: &Limits,
) -> Result<Vec<ClassifyRow>, BenchError> {
    let test = tc
        .test(&p.classify_test)
        .map_err(|e| BenchError::Build(e.message))?;
    let solutions = p
        .classify_solutions
        .iter()
        .map(|d| {
            tc.solution_for(d, test.kind, None)
                .map(|s| s.with_interface(p.python_interface.clone()))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| BenchError::Build(e.message))?;
    let refs: Vec<_> = solutions.iter().collect();
    // Every solution passes or fails the test on its own merits: a refused call would make
    // every row a failure at its first run.
    // Builds and syntax checks happen once per solution and test; they are not classification.
    run_matrix(tc, &refs, &[&test], Reruns::Auto(1), 1, limits);
    let mut rows = Vec::new();
    for reruns in [Reruns::Fixed(20), Reruns::Auto(20)] {
        let mut times = Vec::with_capacity(opts.classify_repeats);
        let mut runs = 0;
        let mut failures = 0;
        for _ in 0..opts.classify_repeats.max(1) {
            let t0 = Instant::now();
            let row = run_matrix(tc, &refs, &[&test], reruns, 1, limits).remove(0);
            times.push(t0.elapsed());
            runs = row.iter().map(|c| c.runs).sum::<u32>();
            failures = row.iter().filter(|c| !c.passed()).count();
        }
        if failures == refs.len() {
            return Err(BenchError::ClassifyFailedAll {
                reruns: reruns.to_string(),
            });
        }
        let time = Stats::from_durations(&mut times);
        rows.push(ClassifyRow {
            reruns: reruns.to_string(),
            solutions: refs.len(),
            runs,
            failures,
            per_core_per_second: 1e6 / time.median_us.max(1e-3),
            time,
        });
    }
    Ok(rows)
}

/// One fresh-process sample of loading the Python runtime: engine set-up, then the runtime from
/// the artifact cache. `compiled` says whether the cache missed (then nothing is compiled here:
/// the sample is reported as a miss).
pub fn load_python_once(config: SandboxConfig) -> Result<LoadRow, SandboxError> {
    let t0 = Instant::now();
    let sandbox = Sandbox::new(config)?;
    let engine = t0.elapsed();
    let mut compiled = false;
    let t1 = Instant::now();
    let loaded = sandbox.load_keyed(&python_runtime_key(), || {
        compiled = true;
        Err(SandboxError::Invalid {
            message: "the Python runtime is not in the artifact cache".into(),
        })
    });
    let load = t1.elapsed();
    if let Err(e) = loaded {
        if !compiled {
            return Err(e);
        }
    }
    Ok(LoadRow {
        engine_us: micros(engine),
        load_us: micros(load),
        compiled,
        samples: 1,
    })
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
