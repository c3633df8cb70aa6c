//! The terminal summary of a run, and a stop in words.

use super::format::plural;
use super::protocol::ProtocolReport;
use super::summary::Summary;
use crate::journal::{Choice, ExitClass, StopReason};

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
        StopReason::Accepted { by } => {
            format!("accepted by {by}: the implementations ship as they are")
        }
        StopReason::Interrupted => "interrupted; resumable".into(),
    }
}

/// What a person may choose at a stop (`dixit decide`): the protocol's choices at its own
/// stops; at a cap, accepting, and raising a limit (the `bool`).
pub fn choices(protocol: &dyn ProtocolReport, s: &StopReason) -> (Vec<Choice>, bool) {
    match s {
        // A stop that asks nothing of a person offers nothing.
        StopReason::Decided(o) if protocol.exit_class(o) == ExitClass::Done => (Vec::new(), false),
        StopReason::Decided(o) => (protocol.choices(o), false),
        StopReason::RoundCap { .. } | StopReason::Budget { .. } => (vec![Choice::Accept], true),
        StopReason::Error { .. } | StopReason::Interrupted => (vec![Choice::Accept], false),
        StopReason::Accepted { .. } => (Vec::new(), false),
    }
}

/// One line on what a choice will do.
pub fn choice_effect(c: &Choice) -> String {
    match c {
        Choice::DropTest { test } => format!(
            "test {test} is wrong: it leaves the suite, and the coders are judged again without it"
        ),
        Choice::LeaveBehind { coder } => {
            format!("{coder} is wrong: it takes no further part, the others go on")
        }
        Choice::Raise { .. } => {
            "more room: set a limit of dixit.toml (the protocol's table or [budget]) and go on"
                .into()
        }
        Choice::Accept => "accept the implementations as they are: the run ends".into(),
    }
}

/// The choices at `stop` as commands, with what each does.
pub fn choice_commands(
    protocol: &dyn ProtocolReport,
    s: &StopReason,
    run: &str,
) -> Vec<(String, String)> {
    let (list, raise) = choices(protocol, s);
    let mut out: Vec<(String, String)> = list
        .iter()
        .map(|c| {
            (
                format!("dixit decide {run} {} --why \"…\"", c.command()),
                choice_effect(c),
            )
        })
        .collect();
    if raise {
        out.push((
            format!("dixit decide {run} raise TABLE.KEY=VALUE --why \"…\""),
            choice_effect(&Choice::Raise {
                key: String::new(),
                value: 0,
            }),
        ));
    }
    out
}

/// How the CLI exits on a stop (a decision's class is the protocol's to say).
pub fn exit_class(protocol: &dyn ProtocolReport, s: &StopReason) -> ExitClass {
    match s {
        StopReason::Decided(d) => protocol.exit_class(d),
        other => other.shared_exit_class().unwrap_or(ExitClass::Failed),
    }
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
    if let Some(stop) = &s.stop {
        let commands = choice_commands(protocol, stop, &s.run_id);
        if !commands.is_empty() {
            o.push_str(
                "  what you can do (then `dixit run PROJECT --resume ID`, except after accept):\n",
            );
            for (command, effect) in commands {
                o.push_str(&format!("    {command}\n      {effect}\n"));
            }
        }
    }
    if let Some(p) = s.part.get() {
        o.push_str(&p.text(s));
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
