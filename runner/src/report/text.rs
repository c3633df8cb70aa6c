//! The terminal summary of a run, and a stop in words.

use super::format::{plural, repair_attempts};
use super::summary::{ProtocolPart, Summary};
use crate::english::and_list;
use crate::journal::{CannotPass, StopReason};

fn numbers(n: &[usize]) -> String {
    n.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A stop in words: what happened and what it asks of the person.
pub fn describe_stop(s: &StopReason) -> String {
    match s {
        StopReason::Converged => {
            "converged: a round's proposals were all too easy, the coders agree on everything asked"
                .into()
        }
        StopReason::Stalled {
            too_hard,
            invalid,
            hibernated,
        } => {
            let mut why = Vec::new();
            if !too_hard.is_empty() {
                why.push(format!(
                    "{} TOO_HARD ({})",
                    plural(too_hard.len(), "test was", "tests were"),
                    too_hard.join(", ")
                ));
            }
            if !invalid.is_empty() {
                why.push(format!(
                    "{} not build ({})",
                    plural(invalid.len(), "test did", "tests did"),
                    invalid.join(", ")
                ));
            }
            if !hibernated.is_empty() {
                why.push(format!("{} hibernating", hibernated.join(", ")));
            }
            format!(
                "human judgement needed: stalled, a round added no test ({}): either these tests or the coders are wrong",
                if why.is_empty() { "no test fit".to_string() } else { why.join("; ") }
            )
        }
        StopReason::HumanNeeded { cannot_pass } => {
            let who: Vec<String> = cannot_pass
                .iter()
                .map(|CannotPass { coder, failing }| {
                    format!(
                        "{coder} cannot pass {} {}",
                        if failing.len() == 1 { "test" } else { "tests" },
                        numbers(failing)
                    )
                })
                .collect();
            format!(
                "human judgement needed: {} (perhaps the {} wrong)",
                who.join("; "),
                if cannot_pass.iter().map(|c| c.failing.len()).sum::<usize>() == 1 {
                    "test is"
                } else {
                    "tests are"
                }
            )
        }
        StopReason::RoundCap { rounds } => {
            format!("round cap reached ({rounds} rounds); resumable")
        }
        StopReason::Debated {
            winner,
            why,
            standings,
            tie_break,
        } => {
            let table: Vec<String> = standings
                .iter()
                .map(|s| format!("{} {}/{}", s.coder, s.passed, s.total))
                .collect();
            format!(
                "debate over ({why}): {winner} passes the most tests ({}){}",
                table.join(", "),
                tie_break
                    .as_ref()
                    .map(|t| format!("; tie broken by {t}"))
                    .unwrap_or_default()
            )
        }
        StopReason::Repaired { standings } => {
            let table: Vec<String> = standings
                .iter()
                .map(|s| format!("{} {}/{}", s.coder, s.passed, s.total))
                .collect();
            let all = standings.iter().all(|s| s.passed == s.total);
            format!(
                "{}: best attempts shipped ({})",
                if all {
                    "repaired, every acceptance test passes"
                } else {
                    "human judgement needed: acceptance tests still fail"
                },
                table.join(", ")
            )
        }
        StopReason::Verified { passed, failed } => {
            if failed.is_empty() {
                format!(
                    "verified: the hidden suite passes for {}",
                    passed.join(", ")
                )
            } else {
                format!(
                    "human judgement needed: the hidden suite fails for {}{}",
                    failed.join(", "),
                    if passed.is_empty() {
                        String::new()
                    } else {
                        format!(" (passes for {})", passed.join(", "))
                    }
                )
            }
        }
        StopReason::Finished => "finished: what each coder wrote is shipped as it is".into(),
        StopReason::Budget { agent, cap } => {
            format!("budget cap reached before a call of {agent}: {cap}; resumable")
        }
        StopReason::Error { agent, message } => format!("{agent} failed: {message}; resumable"),
    }
}

/// The terminal summary.
pub fn render(s: &Summary, run_dir: &std::path::Path) -> String {
    let mut o = String::new();
    o.push_str(&format!(
        "run {} ({}): {}\n",
        s.run_id,
        s.protocol,
        s.stop
            .as_ref()
            .map(describe_stop)
            .unwrap_or_else(|| "did not stop".into())
    ));
    match &s.part {
        ProtocolPart::Dixit(d) => {
            let growth: Vec<String> = d.suite_growth.iter().map(|n| n.to_string()).collect();
            o.push_str(&format!(
                "  rounds: {}   suite: {} tests (size at each round's start: {})\n",
                s.rounds,
                s.suite.len(),
                growth.join(" → ")
            ));
            let c = &d.classes;
            o.push_str(&format!(
                "  classifications: {} IDEAL, {} TOO_EASY, {} TOO_HARD, {} INVALID\n",
                c.ideal, c.too_easy, c.too_hard, c.invalid
            ));
            for (name, t) in &d.testers {
                o.push_str(&format!(
                    "  {name:10} proposed {:2}, accepted {:2}, hibernated {}×, revived {}×\n",
                    t.proposed, t.accepted, t.hibernations, t.revivals
                ));
            }
        }
        ProtocolPart::Debate(d) => {
            o.push_str(&format!(
                "  epochs: {}   suite: {} tests that discriminated\n",
                s.rounds,
                s.suite.len()
            ));
            for e in &d.epochs {
                let passed: Vec<String> = e
                    .passed
                    .iter()
                    .map(|(c, (p, t))| format!("{c} {p}/{t}"))
                    .collect();
                let best = e.passed.values().map(|(p, _)| *p).max().unwrap_or(0);
                let leaders: Vec<&str> = e
                    .passed
                    .iter()
                    .filter(|(_, (p, _))| *p == best)
                    .map(|(c, _)| c.as_str())
                    .collect();
                o.push_str(&format!(
                    "  epoch {}: {} tests, {} broke some solution; {}; leading: {}\n",
                    e.epoch,
                    e.tests,
                    e.breaking,
                    passed.join(", "),
                    and_list(&leaders)
                ));
            }
        }
        ProtocolPart::Repair(r) => {
            for (name, c) in &r.coders {
                o.push_str(&format!(
                    "  {name:10} attempts: {}; shipped attempt {}{}\n",
                    repair_attempts(&c.attempts),
                    c.shipped.map(|a| a.to_string()).unwrap_or("-".into()),
                    c.review
                        .as_ref()
                        .map(|r| format!("; review: {r}"))
                        .unwrap_or_default()
                ));
            }
        }
        ProtocolPart::Blind(b) => {
            for (name, c) in &b.coders {
                let cats: Vec<String> = c
                    .categories
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect();
                let blind: Vec<&str> = c
                    .blind
                    .iter()
                    .map(|p| if *p { "pass" } else { "fail" })
                    .collect();
                o.push_str(&format!(
                    "  {name:10} self-tests {} ({}), passing {}/{}; hidden suite: {}\n",
                    c.self_tests,
                    cats.join(", "),
                    c.self_passed.0,
                    c.self_passed.1,
                    if blind.is_empty() {
                        "not run".to_string()
                    } else {
                        blind.join(" → ")
                    }
                ));
            }
        }
        ProtocolPart::None => {}
    }
    for (name, c) in &s.coders {
        let passing = c.last_vector.iter().filter(|p| **p).count();
        let hidden = c
            .hidden
            .map(|(p, t)| format!(", hidden tests {p}/{t}"))
            .unwrap_or_default();
        o.push_str(&format!(
            "  {name:10} {}, {}, {}, last check {passing}/{}{hidden}\n",
            plural(c.replies as usize, "reply", "replies"),
            plural(c.fixes as usize, "fix", "fixes"),
            plural(c.rollbacks as usize, "rollback", "rollbacks"),
            c.last_vector.len()
        ));
    }
    o.push_str(&format!(
        "  usage: {} calls, {} prompt + {} completion tokens, ${:.4}\n",
        s.usage.calls, s.usage.prompt_tokens, s.usage.completion_tokens, s.usage.usd
    ));
    o.push_str(&format!(
        "  outputs: {}/{{implementations,suite,summary.json,journal.jsonl}}\n",
        run_dir.display()
    ));
    if let Some(d) = &s.disagreements {
        match &d.error {
            Some(e) => o.push_str(&format!("  disagreements: not computed ({e})\n")),
            None => o.push_str(&format!(
                "  disagreements: the final implementations give different answers to {} of {} calls the tests made\n",
                d.count(),
                d.calls
            )),
        }
    }
    let page = run_dir.join("report.html");
    if page.is_file() {
        o.push_str(&format!("  report: {}\n", page.display()));
    }
    o
}
