//! The terminal summary of a run, and what it ships in words.

use super::balance::balance;
use super::choices::commands;
use crate::english::plural;
use crate::journal::JournalFile;
use crate::outcome::{describe_stop, offer_of, ProtocolData, Summary};

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
pub fn render(s: &Summary, protocol: &dyn ProtocolData, run_dir: &std::path::Path) -> String {
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
        let commands = commands(&offer, &s.run_id);
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
