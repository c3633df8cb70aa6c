//! The table of `dixit bench`: the machine, per-run latency and runs per second of each program
//! beside its native baseline, classification timings, the second invocation, and the targets.

use super::format::thousands;
use crate::bench::Report;

/// The report of `dixit bench`, measured for `seconds` per measurement.
pub fn bench_table(r: &Report, seconds: f64) -> String {
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
    s.push_str(&format!("{:<42} {:>10} {:>10}", "per run", "median", "p90"));
    for t in &threads {
        s.push_str(&format!(" {:>12}", format!("runs/s ×{t}")));
    }
    s.push_str("  vs native\n");
    for g in &r.guests {
        s.push_str(&format!(
            "{:<42} {:>10} {:>10}",
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
    let most = threads.iter().copied().max().unwrap_or(1);
    s.push_str(&format!(
        "\n{:<42} {:>10} {:>14}   {}\n",
        "memory a run",
        "faults",
        format!("TLB IPIs ×{most}"),
        "pages back a reset"
    ));
    for g in r.guests.iter().filter(|g| g.kind == "wasm") {
        let tlb = g
            .throughput
            .iter()
            .find(|x| x.threads == most)
            .and_then(|x| x.tlb_shootdowns_per_run)
            .map(|v| format!("{v:.2}"))
            .unwrap_or_else(|| "-".into());
        let resets = g
            .resets
            .as_ref()
            .map(|m| {
                let how = match m.tracking {
                    crate::sandbox::ResetTracking::Private => "private",
                    crate::sandbox::ResetTracking::Written => "written",
                };
                match m.pages_written_per_run {
                    Some(w) => format!(
                        "{:.0} ({how}; a run writes {w:.0})",
                        m.pages_restored_per_reset
                    ),
                    None => format!("{:.0} ({how})", m.pages_restored_per_reset),
                }
            })
            .unwrap_or_else(|| "-".into());
        let faults = g
            .faults_per_run
            .map(|f| format!("{f:.0}"))
            .unwrap_or_else(|| "-".into());
        s.push_str(&format!(
            "{:<42} {faults:>10} {tlb:>14}   {resets}\n",
            g.name
        ));
    }
    s.push_str(&format!(
        "\n{:<31} {:>10} {:>10} {:>12} {:>12} {:>14}\n",
        "classify 1 Python test", "median", "p90", "solutions", "runs", "per s per core"
    ));
    for c in &r.classify {
        s.push_str(&format!(
            "{:<31} {:>10} {:>10} {:>12} {:>12} {:>14.1}\n",
            format!("  reruns {}", c.reruns),
            per_run(c.time.median_us),
            per_run(c.time.p90_us),
            c.solutions,
            c.runs,
            c.per_core_per_second
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
