//! The terminal tables of `dixit eval` and `dixit merge`: pass@1 per strategy side by side, band
//! precision, and how the evaluation was run.

use std::path::Path;

use super::eval_report::STRATEGIES;
use super::format::{bytes, percent, thousands};
use crate::eval::scoring::{ClassCount, Report};
use crate::eval::EvalReport;

/// An eval report: the corpus and setup, `results_table`, the verdict mix and the execution.
pub fn eval_table(r: &EvalReport) -> String {
    let e = &r.execution;
    let c = &e.corpus;
    let setup = &r.setup;
    let mut out = String::new();
    out.push_str(&format!(
        "dixit eval · {} corpus {} · {} problem{}{}\n",
        setup.corpus_format,
        &setup.corpus_hash[..12.min(setup.corpus_hash.len())],
        c.problems,
        if c.problems == 1 { "" } else { "s" },
        r.shard.map(|s| format!(" (shard {s})")).unwrap_or_default(),
    ));
    out.push_str(&format!(
        "{} unique solutions ({} samples) + references · {} unique tests ({} samples) · hidden tests\n",
        thousands(c.solutions),
        thousands(c.solution_samples),
        thousands(c.tests),
        thousands(c.test_samples),
    ));
    out.push_str(&format!(
        "isolation: {} ({})\nlimits: fuel {} per run · memory {} · wasmtime {}\nfuel rule: {}\n\n",
        setup.isolation,
        setup.isolation.describe(),
        thousands(setup.limits.fuel),
        bytes(setup.limits.memory_bytes),
        setup.wasmtime,
        setup.fuel_rule.describe(setup.limits.fuel),
    ));
    out.push_str(&results_table(&r.results));
    let verdicts: Vec<String> = e
        .verdicts
        .iter()
        .map(|(k, v)| format!("{k} {}", thousands(*v)))
        .collect();
    out.push_str(&format!(
        "\nverdicts of {} cells: {}\n",
        thousands(c.cells),
        verdicts.join(" · ")
    ));
    if !e.reference_failures.is_empty() {
        out.push_str(&format!(
            "warning: reference solutions failing their hidden tests: {}\n",
            e.reference_failures.join(", ")
        ));
    }
    if let Some(m) = e.memory.filter(|m| m.stats.restores + m.stats.clears > 0) {
        let s = &m.stats;
        out.push_str(&format!(
            "memory resets: {} pages copied back a reset ({}), {} of {} resets by madvise, {} write-protections again, {} slots\n",
            s.pages_restored / s.restores.max(1),
            match m.tracking {
                crate::sandbox::ResetTracking::Private => "the slot's private pages".to_string(),
                crate::sandbox::ResetTracking::Written => format!(
                    "pages written since protected; a run writes {}",
                    s.first_run_pages / s.first_runs.max(1)
                ),
            },
            thousands(s.clears),
            thousands(s.restores + s.clears),
            thousands(s.protects),
            s.slots
        ));
    }
    let t = &e.seconds;
    out.push_str(&format!(
        "execution: {} runs in {} instances {} · {:.1} s (import {:.1}, compile check {:.1}, matrix {:.1}, scoring {:.1}) · {} of {} matrices from the cache\n",
        thousands(e.runs),
        thousands(e.instances),
        super::format::workers(e.threads, e.workers),
        t.total,
        t.import,
        t.compile_check,
        t.matrix,
        t.scoring,
        e.cached_problems,
        c.problems,
    ));
    out
}

/// Recorded verdicts scored (`dixit eval --score-verdicts`): where they came from, then
/// `results_table`.
pub fn verdicts_table(source: &Path, wall_seconds: Option<f64>, r: &Report) -> String {
    format!(
        "verdicts from {} · {} problems{}\n\n{}",
        source.display(),
        r.summary.problems,
        wall_seconds
            .map(|w| format!(" · harness wall time {w:.1} s"))
            .unwrap_or_default(),
        results_table(r)
    )
}

/// Pass@1 per strategy, side by side, and the band precision table.
fn results_table(r: &Report) -> String {
    let s = &r.summary;
    let cfg = &r.config;
    let mut out = String::new();
    let name = |st: &super::eval_report::Strategy| {
        if st.key == "loop" {
            format!(
                "Dixit loop ({} coders, {} seeds)",
                cfg.dixit_loop.coders, cfg.dixit_loop.seeds
            )
        } else {
            st.name.to_string()
        }
    };
    let width = STRATEGIES
        .iter()
        .map(|st| name(st).chars().count())
        .max()
        .unwrap_or(0);
    out.push_str(&format!("  {:<width$}  pass@1\n", "strategy"));
    let mut missing = Vec::new();
    for st in STRATEGIES {
        match (st.mean)(s) {
            Some(v) => out.push_str(&format!("  {:<width$} {v:>6.2} %\n", name(st))),
            None => missing.push(st.name),
        }
    }
    if !missing.is_empty() {
        out.push_str(&format!(
            "  not scored: {} (no result here: MBR-exec and SRank compare the solutions' answers, which pass/fail verdicts do not hold; a report older than a strategy has none)\n",
            missing.join(", ")
        ));
    }
    out.push_str(&format!(
        "\nband precision: tests classified over the recorded pool (MINORITY {}); correct = the reference solution passes\n",
        cfg.minority
    ));
    out.push_str("  band        tests  correct    share    samples  correct    share\n");
    let p = &s.band_precision;
    out.push_str(&class_line("TOO_EASY", &p.too_easy));
    out.push_str(&class_line("IDEAL", &p.ideal));
    out.push_str(&class_line("TOO_HARD", &p.too_hard));
    out.push_str(&class_line("all", &p.all()));
    out
}

fn class_line(name: &str, c: &ClassCount) -> String {
    format!(
        "  {name:<9} {:>7} {:>8} {:>8}   {:>8} {:>8} {:>8}\n",
        thousands(c.tests),
        thousands(c.correct_tests),
        percent(c.correct_tests, c.tests, 1, "-"),
        thousands(c.samples),
        thousands(c.correct_samples),
        percent(c.correct_samples, c.samples, 1, "-"),
    )
}
