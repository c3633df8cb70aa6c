//! The table of `dixit compare`: one row per (project, protocol), then totals per protocol, for
//! development and held-out projects apart.

use crate::compare::{CellResult, CompareReport};
use crate::config::ProtocolName;

/// Totals of one protocol over a set of projects.
#[derive(Default)]
struct Totals {
    cells: usize,
    coders: usize,
    all_hidden: usize,
    hidden_passed: usize,
    hidden_total: usize,
    calls: u64,
    tokens: u64,
    usd: f64,
    seconds: f64,
    skipped: usize,
}

fn pct(n: usize, d: usize) -> String {
    if d == 0 {
        "-".into()
    } else {
        format!("{:.0} %", 100.0 * n as f64 / d as f64)
    }
}

fn short_stop(stop: &str) -> String {
    let s = stop.split(':').next().unwrap_or(stop);
    s.chars().take(28).collect()
}

/// The comparison as a text table.
pub fn compare_table(r: &CompareReport) -> String {
    let mut o = String::new();
    o.push_str(&format!(
        "{:<16} {:<8} {:>12} {:>13} {:>6} {:>9} {:>8} {:>8}  {}\n",
        "project",
        "protocol",
        "all hidden",
        "hidden tests",
        "calls",
        "tokens",
        "cost $",
        "time s",
        "stop"
    ));
    for c in &r.cells {
        let name = if c.holdout {
            format!("{} (held out)", c.project)
        } else {
            c.project.clone()
        };
        match &c.result {
            CellResult::Ran {
                stop,
                coders,
                all_hidden,
                hidden_passed,
                hidden_total,
                calls,
                prompt_tokens,
                completion_tokens,
                usd,
                seconds,
                ..
            } => o.push_str(&format!(
                "{:<16} {:<8} {:>12} {:>13} {:>6} {:>9} {:>8.4} {:>8.1}  {}\n",
                name,
                c.protocol.as_str(),
                format!("{all_hidden}/{coders} {}", pct(*all_hidden, *coders)),
                format!("{hidden_passed}/{hidden_total}"),
                calls,
                prompt_tokens + completion_tokens,
                usd,
                seconds,
                short_stop(stop)
            )),
            CellResult::Skipped { why } => o.push_str(&format!(
                "{:<16} {:<8} {:>12}  skipped: {why}\n",
                name,
                c.protocol.as_str(),
                "-"
            )),
            CellResult::Failed { error } => o.push_str(&format!(
                "{:<16} {:<8} {:>12}  failed: {error}\n",
                name,
                c.protocol.as_str(),
                "-"
            )),
        }
    }
    let groups: Vec<(&str, bool)> = if r.cells.iter().any(|c| c.holdout) {
        vec![("development", false), ("held out", true)]
    } else {
        vec![("all projects", false)]
    };
    o.push_str("\ntotals per protocol\n");
    o.push_str(&format!(
        "{:<14} {:<8} {:>14} {:>13} {:>6} {:>9} {:>8} {:>8}\n",
        "projects", "protocol", "all hidden", "hidden tests", "calls", "tokens", "cost $", "time s"
    ));
    for (label, holdout) in groups {
        for p in &r.protocols {
            let t = totals(r, p, holdout);
            if t.cells == 0 && t.skipped == 0 {
                continue;
            }
            o.push_str(&format!(
                "{:<14} {:<8} {:>14} {:>13} {:>6} {:>9} {:>8.4} {:>8.1}{}\n",
                label,
                p.as_str(),
                format!(
                    "{}/{} {}",
                    t.all_hidden,
                    t.coders,
                    pct(t.all_hidden, t.coders)
                ),
                format!(
                    "{}/{} {}",
                    t.hidden_passed,
                    t.hidden_total,
                    pct(t.hidden_passed, t.hidden_total)
                ),
                t.calls,
                t.tokens,
                t.usd,
                t.seconds,
                if t.skipped > 0 {
                    format!("  ({} skipped)", t.skipped)
                } else {
                    String::new()
                }
            ));
        }
    }
    o
}

fn totals(r: &CompareReport, protocol: &ProtocolName, holdout: bool) -> Totals {
    let mut t = Totals::default();
    for c in r
        .cells
        .iter()
        .filter(|c| &c.protocol == protocol && c.holdout == holdout)
    {
        match &c.result {
            CellResult::Ran {
                coders,
                all_hidden,
                hidden_passed,
                hidden_total,
                calls,
                prompt_tokens,
                completion_tokens,
                usd,
                seconds,
                ..
            } => {
                t.cells += 1;
                t.coders += coders;
                t.all_hidden += all_hidden;
                t.hidden_passed += hidden_passed;
                t.hidden_total += hidden_total;
                t.calls += calls;
                t.tokens += prompt_tokens + completion_tokens;
                t.usd += usd;
                t.seconds += seconds;
            }
            _ => t.skipped += 1,
        }
    }
    t
}
