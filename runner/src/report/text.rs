//! The terminal summary of a run, and a stop in words.

use super::balance::balance;
use super::choices::offer_of;
use super::protocol::ProtocolReport;
use super::summary::Summary;
use crate::english::plural;
use crate::journal::{ExitClass, JournalFile, StopReason};

/// A stop in words: what happened and what it asks of the person (a decision is the protocol's
/// to describe).
pub fn describe_stop(protocol: &dyn ProtocolReport, s: &StopReason) -> String {
    match s {
        StopReason::Decided(d) => protocol.describe(d),
        StopReason::RoundCap { rounds } => {
            format!(
                "{} cap reached ({}); resumable",
                protocol.round_word(),
                plural(
                    *rounds as usize,
                    protocol.round_word(),
                    &format!("{}s", protocol.round_word())
                )
            )
        }
        StopReason::Budget { agent, cap } => {
            format!("budget cap reached before a call of {agent}: {cap}; resumable")
        }
        StopReason::Error { agent, message } => format!("{agent} failed: {message}; resumable"),
        StopReason::Accepted { by } if crate::config::PolicyName::is_decider(by) => {
            format!("accepted by {by}: the run ships what its evidence picks")
        }
        StopReason::Accepted { by } => {
            format!("accepted by {by}: the implementations ship as they are")
        }
        StopReason::Interrupted => "interrupted; resumable".into(),
    }
}

/// How the CLI exits on a stop (a decision's class is the protocol's to say).
pub fn exit_class(protocol: &dyn ProtocolReport, s: &StopReason) -> ExitClass {
    match s {
        StopReason::Decided(d) => protocol.exit_class(d),
        other => other.shared_exit_class().unwrap_or(ExitClass::Failed),
    }
}

/// Which implementation the run ships and why, in a sentence: the coder, the strategy that
/// picked it, and the evidence it read (the strategy's name in backticks).
pub fn describe_shipping(ship: &crate::journal::Shipping) -> String {
    let (head, strategy, tail) = shipping_words(ship);
    format!("{head}`{strategy}`{tail}")
}

/// [`describe_shipping`] in three parts, for a page that sets the strategy's name as code: the
/// words before it, the name, the words after it.
pub fn shipping_words(ship: &crate::journal::Shipping) -> (String, String, String) {
    let strategy = ship
        .strategy
        .parse::<crate::selection::Strategy>()
        .map(|s| s.describe().to_string())
        .unwrap_or_else(|_| ship.strategy.clone());
    let mut tail = format!(
        " ({strategy}) from {}, reading {} and {}",
        plural(
            ship.among.len(),
            "final implementation",
            "final implementations"
        ),
        plural(ship.tests, "test", "tests"),
        plural(ship.calls, "call", "calls"),
    );
    if let Some(from) = &ship.fallback_from {
        tail.push_str(&format!(
            " ({from} compares answers, and the tests made no call)"
        ));
    }
    if ship.tied.len() > 1 {
        tail.push_str(&format!(
            " ({} tied; the first ships)",
            crate::english::and_list(ship.tied.iter().map(String::as_str).collect::<Vec<_>>())
        ));
    }
    (
        format!("{}, picked by ", ship.coder),
        ship.strategy.clone(),
        tail,
    )
}

/// The terminal summary.
pub fn render(s: &Summary, protocol: &dyn ProtocolReport, run_dir: &std::path::Path) -> String {
    let mut o = String::new();
    o.push_str(&format!(
        "run {} ({}): {}\n",
        s.run_id,
        s.protocol,
        s.stop
            .as_ref()
            .map(|stop| describe_stop(protocol, stop))
            .unwrap_or_else(|| "did not stop".into())
    ));
    let doubts = s.doubts();
    if !doubts.is_empty() {
        o.push_str(&format!("  but: {}\n", doubts.join("; ")));
    }
    if let Some(ship) = &s.shipping {
        o.push_str(&format!("  ships: {}\n", describe_shipping(ship)));
    }
    if s.stop.is_some() {
        let journal = JournalFile::read(&run_dir.join("journal.jsonl")).ok();
        let offer = journal
            .as_ref()
            .map(|j| offer_of(protocol, j))
            .unwrap_or_default();
        let resume = journal
            .as_ref()
            .map(|j| {
                let here = std::env::current_dir().ok();
                crate::engine::resume_command(run_dir, j, here.as_deref())
            })
            .unwrap_or_else(|| format!("dixit run . --resume {}", s.run_id));
        let commands = offer.commands(&s.run_id);
        let e = balance(s);
        if !offer.is_empty() && !e.is_empty() {
            o.push_str("  the evidence:\n");
            for (coder, line) in &e.coders {
                o.push_str(&format!("    {coder:10} {line}\n"));
            }
            for line in e.balance.iter().chain(&e.odd) {
                o.push_str(&format!("    {line}\n"));
            }
        }
        if !commands.is_empty() {
            o.push_str(&format!(
                "  what you can do (then `{resume}`, except after accept):\n"
            ));
            for (command, effect) in commands {
                o.push_str(&format!("    {command}\n      {effect}\n"));
            }
        }
    }
    o.push_str(&super::protocols::renderer(protocol.name()).text(s));
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
        "  usage: {}, {} prompt + {} completion tokens, ${:.4}\n",
        plural(s.usage.calls as usize, "call", "calls"),
        s.usage.prompt_tokens,
        s.usage.completion_tokens,
        s.usage.usd
    ));
    o.push_str(&format!(
        "  outputs: {}/{{implementations,suite,summary.json,journal.jsonl}}\n",
        run_dir.display()
    ));
    if let Some(d) = &s.disagreements {
        match &d.error {
            Some(e) => o.push_str(&format!("  disagreements: not computed ({e})\n")),
            None => o.push_str(&format!(
                "  disagreements: the final implementations give different answers to {} of {} the tests made\n",
                d.count(),
                plural(d.calls, "call", "calls")
            )),
        }
    }
    let page = run_dir.join("report.html");
    if page.is_file() {
        o.push_str(&format!("  report: {}\n", page.display()));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A policy's accept ships by evidence; a person's takes the implementations as they are.
    #[test]
    fn an_accept_says_what_ships() {
        let dixit = crate::protocol::REGISTRY
            .iter()
            .find(|p| p.name() == "dixit")
            .unwrap();
        let by = |by: &str| describe_stop(*dixit, &StopReason::Accepted { by: by.to_string() });
        assert_eq!(
            by("policy majority"),
            "accepted by policy majority: the run ships what its evidence picks"
        );
        assert_eq!(
            by("person ada"),
            "accepted by person ada: the implementations ship as they are"
        );
    }
}
