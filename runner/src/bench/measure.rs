//! Timing loops and statistics.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::error::BenchError;
use super::{BenchOptions, GuestRow, Throughput};

/// Summary of a set of timings, in microseconds.
#[derive(Clone, Debug, Serialize)]
pub struct Stats {
    /// The median.
    pub median_us: f64,
    /// The 90th percentile.
    pub p90_us: f64,
    /// The mean.
    pub mean_us: f64,
    /// Timings taken.
    pub samples: usize,
}

impl Stats {
    /// Sorts `d` and summarises it.
    pub fn from_durations(d: &mut [Duration]) -> Stats {
        d.sort_unstable();
        let us = |x: Duration| x.as_secs_f64() * 1e6;
        let pick = |q: f64| {
            if d.is_empty() {
                0.0
            } else {
                us(d[((d.len() - 1) as f64 * q).round() as usize])
            }
        };
        let total: Duration = d.iter().sum();
        Stats {
            median_us: pick(0.5),
            p90_us: pick(0.9),
            mean_us: if d.is_empty() {
                0.0
            } else {
                us(total) / d.len() as f64
            },
            samples: d.len(),
        }
    }
}

/// A run of the program being measured; `Err` stops the benchmark (the program must pass).
pub(crate) type One<'a> = dyn Fn() -> Result<(), BenchError> + Sync + 'a;

/// Measures one program: per-run latency on one thread, runs per second on each thread count.
pub(crate) fn row(
    name: &str,
    kind: &str,
    opts: &BenchOptions,
    one: &One<'_>,
) -> Result<GuestRow, BenchError> {
    for _ in 0..3 {
        one()?;
    }
    let mut latency = None;
    let mut throughput = Vec::new();
    let mut threads = opts.threads.clone();
    if !threads.contains(&1) {
        threads.insert(0, 1);
    }
    for t in threads {
        let tlb_before = tlb_shootdowns();
        let (mut lat, wall) = run_for(t, opts.seconds, one)?;
        let runs = lat.len();
        let tlb = tlb_before
            .zip(tlb_shootdowns())
            .map(|(a, b)| b.saturating_sub(a) as f64 / runs.max(1) as f64);
        if t == 1 {
            latency = Some(Stats::from_durations(&mut lat));
        }
        if opts.threads.contains(&t) {
            throughput.push(Throughput {
                threads: t,
                runs_per_sec: runs as f64 / wall.as_secs_f64(),
                tlb_shootdowns_per_run: tlb,
            });
        }
    }
    Ok(GuestRow {
        name: name.to_string(),
        kind: kind.to_string(),
        latency: latency.expect("one thread is always measured"),
        throughput,
        baseline: None,
        speedup: None,
        faults_per_run: faults_per_run(one)?,
        resets: None,
    })
}

/// Runs `one` a few more times on this thread and counts its page faults.
fn faults_per_run(one: &One<'_>) -> Result<Option<f64>, BenchError> {
    const RUNS: u64 = 20;
    let Some(before) = minor_faults() else {
        return Ok(None);
    };
    for _ in 0..RUNS {
        one()?;
    }
    Ok(minor_faults().map(|after| after.saturating_sub(before) as f64 / RUNS as f64))
}

/// This thread's minor page faults so far (field 10 of `/proc/thread-self/stat`).
fn minor_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // The command name (field 2) may hold spaces; the fields after it are plain numbers.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(7)?.parse().ok()
}

/// TLB-shootdown interrupts so far, summed over the CPUs (`/proc/interrupts` on x86 Linux).
fn tlb_shootdowns() -> Option<u64> {
    let table = std::fs::read_to_string("/proc/interrupts").ok()?;
    let line = table.lines().find(|l| l.trim_start().starts_with("TLB:"))?;
    Some(
        line.split_whitespace()
            .skip(1)
            .map_while(|w| w.parse::<u64>().ok())
            .sum(),
    )
}

/// Runs `one` on `threads` threads until `seconds` have passed; returns every run's latency and
/// the wall time from start to the last thread's end.
fn run_for(
    threads: usize,
    seconds: f64,
    one: &One<'_>,
) -> Result<(Vec<Duration>, Duration), BenchError> {
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(seconds);
    let per_thread: Vec<Result<Vec<Duration>, BenchError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                s.spawn(move || {
                    let mut lat = Vec::new();
                    loop {
                        let t0 = Instant::now();
                        one()?;
                        let t1 = Instant::now();
                        lat.push(t1 - t0);
                        if t1 >= deadline {
                            return Ok(lat);
                        }
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Err(BenchError::Panicked)))
            .collect()
    });
    let wall = start.elapsed();
    let mut all = Vec::new();
    for r in per_thread {
        all.extend(r?);
    }
    Ok((all, wall))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_p90() {
        let mut d: Vec<Duration> = (1..=10).rev().map(Duration::from_micros).collect();
        let s = Stats::from_durations(&mut d);
        assert_eq!(s.samples, 10);
        assert_eq!(s.median_us, 6.0, "index round(4.5) = 5 of 1..=10");
        assert_eq!(s.p90_us, 9.0);
        assert!((s.mean_us - 5.5).abs() < 1e-9);
        assert_eq!(Stats::from_durations(&mut []).median_us, 0.0);
    }
}
