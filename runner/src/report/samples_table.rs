//! The terminal table of `dixit eval --samples`: pass@k, how many samples passed, the verdict mix,
//! what was not scored, and how it was run.

use super::format::{bytes, thousands};
use crate::eval::samples::SamplesReport;

/// A samples report as text: pass@k first (the number people compare), then the rest.
pub fn samples_table(r: &SamplesReport) -> String {
    let s = &r.setup;
    let mut out = String::new();
    out.push_str(&format!(
        "dixit eval --samples · {} ({}) · benchmark {} · {} tasks · {} samples\n",
        s.samples_file.display(),
        s.samples_format,
        s.benchmark,
        r.tasks,
        thousands(r.samples as u64),
    ));
    for (k, v) in &r.pass_at_k {
        out.push_str(&format!("{k:>9}  {v:.4}\n"));
    }
    out.push_str(&format!(
        "   passed  {} of {} samples\n",
        thousands(r.passed as u64),
        thousands(r.samples as u64)
    ));
    let verdicts: Vec<String> = r
        .verdicts
        .iter()
        .map(|(k, v)| format!("{k} {}", thousands(*v as u64)))
        .collect();
    out.push_str(&format!("verdicts: {}\n", verdicts.join(" · ")));
    if s.sanitize {
        out.push_str(&format!(
            "sanitized: {} of {} samples changed\n",
            r.sanitized, r.samples
        ));
    }
    if !r.input_problems.is_empty() {
        out.push_str(&format!(
            "not scored: {} (listed in the report)\n",
            crate::english::plural(r.input_problems.len(), "record or task", "records or tasks")
        ));
    }
    if !r.reference_failures.is_empty() {
        out.push_str(&format!(
            "warning: the benchmark's reference fails its own check in {}\n",
            r.reference_failures.join(", ")
        ));
    }
    out.push_str(&format!(
        "limits: fuel {} per run · memory {} · wasmtime {}\nfuel rule: {}\n",
        thousands(s.limits.fuel),
        bytes(s.limits.memory_bytes),
        s.wasmtime,
        s.fuel_rule.describe(s.limits.fuel),
    ));
    out
}
