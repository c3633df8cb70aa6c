//! The benchmark's report: one row per program, the classification timings, the second
//! invocation, and the targets with whether each was met.

use serde::{Deserialize, Serialize};

use super::{Programs, Stats};

/// Runs per second on a number of threads.
#[derive(Clone, Debug, Serialize)]
pub struct Throughput {
    /// Threads running at once.
    pub threads: usize,
    /// Runs per second, all threads together.
    pub runs_per_sec: f64,
    /// TLB-shootdown interrupts a run, counted on every CPU while these runs went on (the `TLB`
    /// line of `/proc/interrupts`, where the system has one; other processes add to it).
    pub tlb_shootdowns_per_run: Option<f64>,
}

/// One program measured: a sandbox guest (`wasm`) or a native process (`native`).
#[derive(Clone, Debug, Serialize)]
pub struct GuestRow {
    /// The row's name (e.g. `C guest`).
    pub name: String,
    /// `wasm` or `native`.
    pub kind: String,
    /// Per-run latency on one thread.
    pub latency: Stats,
    /// Runs per second on each number of threads measured.
    pub throughput: Vec<Throughput>,
    /// The native row this one is compared with.
    pub baseline: Option<String>,
    /// Baseline median latency / this median latency.
    pub speedup: Option<f64>,
    /// Page faults a run, on one thread (minor ones: copy-on-write, first touches, writes to
    /// write-protected pages; `/proc/thread-self/stat`).
    pub faults_per_run: Option<f64>,
    /// How the memories of this row's instances were reset (Python guests).
    pub resets: Option<RowResets>,
}

/// The memory resets of one row's runs (a Python guest's memories are dixit's own).
#[derive(Clone, Debug, Serialize)]
pub struct RowResets {
    /// How a reset found the pages to copy back.
    pub tracking: crate::sandbox::ResetTracking,
    /// Resets that copied the written pages back from the image.
    pub resets: u64,
    /// Pages copied back (or zeroed) per reset that copied.
    pub pages_restored_per_reset: f64,
    /// Resets that dropped all of a slot's pages at once (`madvise`) instead.
    pub clears: u64,
    /// Pages a run wrote, where the reset tracks written pages (the first runs since each
    /// protection: see `ResetStats::first_run_pages`).
    pub pages_written_per_run: Option<f64>,
    /// Resets that write-protected written pages again (each changes page tables).
    pub protects: u64,
}

/// One classification of the Python test against the seven solutions.
#[derive(Clone, Debug, Serialize)]
pub struct ClassifyRow {
    /// `20` (fixed) or `auto`.
    pub reruns: String,
    /// Solutions the test ran against.
    pub solutions: usize,
    /// Runs performed (a failing solution stops at its first failure).
    pub runs: u32,
    /// Solutions that failed it.
    pub failures: usize,
    /// Wall time of the whole matrix, in microseconds.
    pub time: Stats,
    /// Classifications (whole matrices) per second on one core: the matrix runs on one thread,
    /// so this is the median's reciprocal.
    pub per_core_per_second: f64,
}

/// Loading the cached Python runtime in a fresh process (medians over the samples).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LoadRow {
    /// Creating the engine and linkers (`Sandbox::new`).
    pub engine_us: f64,
    /// Loading the runtime from the artifact cache (`load_keyed`: mmap + link).
    pub load_us: f64,
    /// Whether any sample found the runtime missing from the cache (would have compiled).
    pub compiled: bool,
    /// Samples the medians are taken over.
    pub samples: usize,
}

impl LoadRow {
    /// The medians of several samples.
    pub fn median(samples: &[LoadRow]) -> LoadRow {
        let med = |f: fn(&LoadRow) -> f64| {
            let mut v: Vec<f64> = samples.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(0.0)
        };
        LoadRow {
            engine_us: med(|r| r.engine_us),
            load_us: med(|r| r.load_us),
            compiled: samples.iter().any(|r| r.compiled),
            samples: samples.len(),
        }
    }
}

/// A target from the issue and the measured value.
#[derive(Clone, Debug, Serialize)]
pub struct Target {
    /// What is measured.
    pub what: String,
    /// The measured value.
    pub measured: f64,
    /// The target's bound.
    pub limit: f64,
    /// `≤` or `≥`.
    pub op: String,
    /// The unit of `measured` and `limit`.
    pub unit: String,
    /// Whether the measured value meets the bound.
    pub met: bool,
}

impl Target {
    fn at_most(what: &str, measured: f64, limit: f64, unit: &str) -> Target {
        Target {
            what: what.into(),
            measured,
            limit,
            op: "≤".into(),
            unit: unit.into(),
            met: measured <= limit,
        }
    }
    fn at_least(what: &str, measured: f64, limit: f64, unit: &str) -> Target {
        Target {
            what: what.into(),
            measured,
            limit,
            op: "≥".into(),
            unit: unit.into(),
            met: measured >= limit,
        }
    }
}

/// Everything `dixit bench` measured.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The wasmtime version.
    pub wasmtime: &'static str,
    /// CPUs available.
    pub cpus: usize,
    /// Whether freed instances are reset with `PAGEMAP_SCAN` (see `Sandbox::resets_with_pagemap`).
    pub pagemap: bool,
    /// The interpreter of the native Python baseline.
    pub python: String,
    /// The 1-minute load average before and after (Linux): other processes share the CPUs.
    pub load_average: (Option<f64>, Option<f64>),
    /// One row per program measured.
    pub guests: Vec<GuestRow>,
    /// One row per reruns setting.
    pub classify: Vec<ClassifyRow>,
    /// Loading the Python runtime in a second invocation, when measured.
    pub runtime_load: Option<LoadRow>,
    /// How the Python runtime's memories were reset during the benchmark (dixit's own reset,
    /// `sandbox::memory`), when it has a memory image.
    pub python_memory: Option<crate::sandbox::ResetStats>,
    /// The targets, each with its measured value.
    pub targets: Vec<Target>,
}

/// The 1-minute load average, where the system says (`/proc/loadavg`).
pub(super) fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The native row each guest is compared with.
const BASELINES: &[(&str, &str)] = &[
    ("C guest", "C native (fork/exec)"),
    ("Rust guest", "C native (fork/exec)"),
    ("Python guest (fresh instance)", "python3 -I -S (fork/exec)"),
    (PYTHON_PRIVATE_ROW, "python3 -I -S (fork/exec)"),
    (PYTHON_WRITTEN_ROW, "python3 -I -S (fork/exec)"),
    (
        "Python guest (reused instance)",
        "python3 -I -S (fork/exec)",
    ),
];

/// The fresh Python guest again with the reset that is not the default, side by side.
pub(crate) const PYTHON_PRIVATE_ROW: &str = "Python guest (fresh, reset private pages)";
/// As [`PYTHON_PRIVATE_ROW`].
pub(crate) const PYTHON_WRITTEN_ROW: &str = "Python guest (fresh, reset written pages)";

/// Fills in `baseline` and `speedup` of the guest rows.
pub(crate) fn link_baselines(rows: &mut [GuestRow]) {
    for (guest, native) in BASELINES {
        let Some(base) = rows
            .iter()
            .find(|r| r.name == *native)
            .map(|r| r.latency.median_us)
        else {
            continue;
        };
        if let Some(r) = rows.iter_mut().find(|r| r.name == *guest) {
            r.baseline = Some(native.to_string());
            r.speedup = Some(base / r.latency.median_us.max(1e-3));
        }
    }
}

impl Report {
    pub(crate) fn new(guests: Vec<GuestRow>, classify: Vec<ClassifyRow>, p: &Programs) -> Report {
        Report {
            wasmtime: crate::sandbox::wasmtime_version(),
            cpus: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            pagemap: false,
            python: p.python.clone(),
            load_average: (None, None),
            guests,
            classify,
            runtime_load: None,
            python_memory: None,
            targets: Vec::new(),
        }
    }

    /// The row of the program named `name`, if it was measured.
    fn guest(&self, name: &str) -> Option<&GuestRow> {
        self.guests.iter().find(|r| r.name == name)
    }

    /// Sets the second-invocation measurement and evaluates the targets.
    pub fn finish(&mut self, load: Option<LoadRow>) {
        self.runtime_load = load;
        let mut t = Vec::new();
        // A C or Rust unit test and its solution are two components (a pair of instances per
        // run, linked by the host): at most 50 µs a run.
        for (name, most_us, least) in [("C guest", 50.0, 10.0), ("Rust guest", 50.0, 10.0)] {
            if let Some(r) = self.guest(name) {
                t.push(Target::at_most(
                    &format!("{name}: median per run"),
                    r.latency.median_us,
                    most_us,
                    "µs",
                ));
                if let Some(s) = r.speedup {
                    t.push(Target::at_least(
                        &format!("{name}: faster than native C fork/exec"),
                        s,
                        least,
                        "×",
                    ));
                }
            }
        }
        if let Some(r) = self.guest("Python guest (fresh instance)") {
            t.push(Target::at_most(
                "Python guest (fresh instance): median per run",
                r.latency.median_us / 1e3,
                1.0,
                "ms",
            ));
            if let Some(s) = r.speedup {
                t.push(Target::at_least(
                    "Python guest: faster than python3 -I -S",
                    s,
                    16.0,
                    "×",
                ));
            }
            if let Some(m) = &r.resets {
                if let Some(w) = m.pages_written_per_run.filter(|w| *w > 0.0) {
                    t.push(Target::at_most(
                        "Python guest: pages copied back a reset / pages a run wrote",
                        m.pages_restored_per_reset / w,
                        1.5,
                        "×",
                    ));
                }
            }
            let rate = |n: usize| {
                r.throughput
                    .iter()
                    .find(|x| x.threads == n)
                    .map(|x| x.runs_per_sec)
            };
            if let (Some(one), Some(two)) = (rate(1), rate(2)) {
                t.push(Target::at_least(
                    "Python guest: runs/s on 2 threads / on 1 thread",
                    two / one.max(1e-9),
                    1.9,
                    "×",
                ));
            }
        }
        if let Some(r) = self.guest("Python guest (reused instance)") {
            t.push(Target::at_most(
                "Python guest (reused instance): median per run",
                r.latency.median_us / 1e3,
                0.6,
                "ms",
            ));
        }
        if let Some(l) = &self.runtime_load {
            t.push(Target::at_most(
                "second invocation: Python runtime load",
                l.load_us / 1e3,
                5.0,
                "ms",
            ));
            t.push(Target {
                what: "second invocation: nothing compiled".into(),
                measured: if l.compiled { 1.0 } else { 0.0 },
                limit: 0.0,
                op: "=".into(),
                unit: "compilations".into(),
                met: !l.compiled,
            });
        }
        self.targets = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, median_us: f64) -> GuestRow {
        GuestRow {
            name: name.into(),
            kind: "wasm".into(),
            latency: Stats {
                median_us,
                p90_us: median_us,
                mean_us: median_us,
                samples: 1,
            },
            throughput: vec![],
            baseline: None,
            speedup: None,
            faults_per_run: None,
            resets: None,
        }
    }

    #[test]
    fn ratios_and_targets() {
        let mut rows = vec![
            row("C guest", 5.0),
            row("Rust guest", 62.5),
            row("Python guest (fresh instance)", 1_000.0),
            row("C native (fork/exec)", 500.0),
            row("python3 -I -S (fork/exec)", 48_000.0),
        ];
        link_baselines(&mut rows);
        assert_eq!(rows[0].speedup, Some(100.0));
        assert_eq!(rows[1].speedup, Some(8.0));
        assert_eq!(rows[2].speedup, Some(48.0));
        assert_eq!(rows[3].speedup, None);
        let mut r = Report {
            wasmtime: "x",
            cpus: 2,
            pagemap: true,
            python: "python3".into(),
            load_average: (None, None),
            guests: rows,
            classify: vec![],
            runtime_load: None,
            python_memory: None,
            targets: vec![],
        };
        r.finish(Some(LoadRow {
            engine_us: 1_000.0,
            load_us: 2_000.0,
            compiled: false,
            samples: 3,
        }));
        let met = |what: &str| {
            r.targets
                .iter()
                .find(|t| t.what == what)
                .unwrap_or_else(|| panic!("no target {what}"))
                .met
        };
        assert!(met("C guest: median per run"));
        assert!(met("C guest: faster than native C fork/exec"));
        assert!(!met("Rust guest: median per run"));
        assert!(!met("Rust guest: faster than native C fork/exec"));
        assert!(met("Python guest: faster than python3 -I -S"));
        assert!(met("second invocation: Python runtime load"));
        assert!(met("second invocation: nothing compiled"));
    }

    #[test]
    fn load_medians() {
        let s = |e, l, c| LoadRow {
            engine_us: e,
            load_us: l,
            compiled: c,
            samples: 1,
        };
        let m = LoadRow::median(&[s(3.0, 1.0, false), s(1.0, 9.0, false), s(2.0, 5.0, true)]);
        assert_eq!(
            (m.engine_us, m.load_us, m.compiled, m.samples),
            (2.0, 5.0, true, 3)
        );
    }
}
