//! What a run produced: `summary.json`, each coder's final implementation, the suite as plain
//! files a person can run, and the terminal summary. The [`Summary`] is folded from the run's
//! events, so a replay, or a reader of any journal, computes the same one.

pub mod eval_report;
pub mod html;
pub mod input;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::agents::copy_dir;
use crate::classify::Class;
use crate::journal::{Event, JournalFile, StopReason, RUN_LANE};
use crate::protocol::Ctx;
use crate::toolchain::TestKind;

/// Counts per class.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClassCounts {
    pub too_easy: u32,
    pub ideal: u32,
    pub too_hard: u32,
    pub invalid: u32,
}

/// One tester's history.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TesterStats {
    /// Tests it wrote.
    pub proposed: u32,
    pub accepted: u32,
    /// Classifications of its tests (a hibernated test is classified again each round).
    pub classes: ClassCounts,
    pub hibernations: u32,
    pub revivals: u32,
    pub rollbacks: u32,
}

/// One coder's history.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CoderStats {
    pub replies: u32,
    pub fixes: u32,
    pub rollbacks: u32,
    /// Its verdicts on the suite the last time it was checked.
    pub last_vector: Vec<bool>,
    /// (passed, total) on the hidden tests, if the project has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<(usize, usize)>,
}

/// Tokens and money.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UsageTotals {
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub usd: f64,
}

/// A suite test.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SuiteItem {
    pub number: usize,
    pub author: String,
    pub file: String,
}

/// The run at a glance (`summary.json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub run_id: String,
    pub stop: Option<StopReason>,
    pub rounds: u32,
    /// Suite size at the start of each round.
    pub suite_growth: Vec<usize>,
    pub suite: Vec<SuiteItem>,
    pub classes: ClassCounts,
    pub coders: BTreeMap<String, CoderStats>,
    pub testers: BTreeMap<String, TesterStats>,
    pub usage: UsageTotals,
    pub usage_per_agent: BTreeMap<String, UsageTotals>,
}

fn bump(c: &mut ClassCounts, class: Class) {
    match class {
        Class::TooEasy => c.too_easy += 1,
        Class::Ideal => c.ideal += 1,
        Class::TooHard => c.too_hard += 1,
        Class::Invalid => c.invalid += 1,
    }
}

impl Summary {
    /// Folds one event in.
    pub fn add(&mut self, lane: &str, e: &Event) {
        let is_tester = self.testers.contains_key(lane);
        match e {
            Event::Header { run_id, .. } => self.run_id = run_id.clone(),
            Event::Started {
                coders, testers, ..
            } => {
                for c in coders {
                    self.coders.entry(c.clone()).or_default();
                }
                for t in testers {
                    self.testers.entry(t.clone()).or_default();
                }
            }
            Event::Round { round, suite } => {
                self.rounds = *round;
                self.suite_growth.push(*suite);
            }
            Event::Reply {
                purpose,
                usage,
                cost_usd,
                ..
            } => {
                for u in [
                    &mut self.usage,
                    self.usage_per_agent.entry(lane.to_string()).or_default(),
                ] {
                    u.calls += 1;
                    u.prompt_tokens += usage.prompt_tokens;
                    u.completion_tokens += usage.completion_tokens;
                    u.usd += cost_usd;
                }
                if let Some(c) = self.coders.get_mut(lane) {
                    c.replies += 1;
                    if purpose == "fix" {
                        c.fixes += 1;
                    }
                } else if let Some(t) = self.testers.get_mut(lane) {
                    t.proposed += 1;
                }
            }
            Event::Judged { vector, .. } => {
                if let Some(c) = self.coders.get_mut(lane) {
                    c.last_vector = vector.clone();
                }
            }
            Event::Classified { class, .. } => {
                bump(&mut self.classes, *class);
                if let Some(t) = self.testers.get_mut(lane) {
                    bump(&mut t.classes, *class);
                }
            }
            Event::Rollback { .. } => {
                if let Some(c) = self.coders.get_mut(lane) {
                    c.rollbacks += 1;
                } else if let Some(t) = self.testers.get_mut(lane) {
                    t.rollbacks += 1;
                }
            }
            Event::Hibernated { .. } if is_tester => self
                .testers
                .get_mut(lane)
                .map(|t| t.hibernations += 1)
                .unwrap_or(()),
            Event::Revived if is_tester => self
                .testers
                .get_mut(lane)
                .map(|t| t.revivals += 1)
                .unwrap_or(()),
            Event::Accepted { .. } if is_tester => self
                .testers
                .get_mut(lane)
                .map(|t| t.accepted += 1)
                .unwrap_or(()),
            Event::SuiteChanged { added, .. } => {
                self.suite.extend(added.iter().map(|a| SuiteItem {
                    number: a.number,
                    author: a.author.clone(),
                    file: a.file.clone(),
                }))
            }
            Event::Hidden { passed, total, .. } => {
                if let Some(c) = self.coders.get_mut(lane) {
                    c.hidden = Some((*passed, *total));
                }
            }
            Event::Stop { reason, round } if lane == RUN_LANE => {
                self.stop = Some(reason.clone());
                self.rounds = *round;
            }
            _ => {}
        }
    }

    /// The summary of a recorded run.
    pub fn of_journal(j: &JournalFile) -> Summary {
        let mut s = Summary {
            run_id: j.run_id.clone(),
            ..Default::default()
        };
        for r in j.effective() {
            s.add(&r.lane, &r.event);
        }
        s
    }
}

/// A stop reason in words.
pub fn describe_stop(s: &StopReason) -> String {
    match s {
        StopReason::Converged => "converged: a round added no test".into(),
        StopReason::HumanNeeded { coder, failing } => format!(
            "human judgement needed: {coder} cannot pass test{} {} (perhaps the test is wrong)",
            if failing.len() == 1 { "" } else { "s" },
            failing
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        StopReason::RoundCap { rounds } => {
            format!("round cap reached ({rounds} rounds); resumable")
        }
        StopReason::Budget { agent, cap } => {
            format!("budget cap reached before a call of {agent}: {cap}; resumable")
        }
        StopReason::Error { agent, message } => format!("{agent} failed: {message}; resumable"),
    }
}

/// Writes `implementations/`, `suite/README.md` and `summary.json`; returns the summary.
pub fn write_outputs(
    ctx: &Ctx,
    run_id: &str,
    coders: &[(String, PathBuf)],
) -> Result<Summary, String> {
    let dir = &ctx.run_dir;
    let mut summary = ctx
        .summary
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    summary.run_id = run_id.to_string();
    for (name, ws) in coders {
        let to = dir.join("implementations").join(name);
        if to.exists() {
            std::fs::remove_dir_all(&to).map_err(|e| format!("{}: {e}", to.display()))?;
        }
        copy_dir(ws, &to).map_err(|e| e.to_string())?;
    }
    let suite_dir = dir.join("suite");
    std::fs::create_dir_all(&suite_dir).map_err(|e| format!("{}: {e}", suite_dir.display()))?;
    std::fs::write(
        suite_dir.join("README.md"),
        suite_readme(ctx.test_kind(), &summary),
    )
    .map_err(|e| e.to_string())?;
    let json = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("summary.json"), json + "\n")
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(summary)
}

fn suite_readme(kind: TestKind, s: &Summary) -> String {
    let how = match kind {
        TestKind::Python => "cd ../implementations/coder-1 && for t in ../../suite/test_*.py; do PYTHONPATH=. python3 \"$t\" || echo \"FAIL $t\"; done",
        TestKind::C => "for t in test_*.c; do cc -I ../implementations/coder-1 \"$t\" ../implementations/coder-1/*.c -o t.out -lm && ./t.out || echo \"FAIL $t\"; done",
        TestKind::Cpp => "for t in test_*.cpp; do c++ -I ../implementations/coder-1 \"$t\" ../implementations/coder-1/*.cpp -o t.out && ./t.out || echo \"FAIL $t\"; done",
        TestKind::Rust => "(each test is a program using the crate `solution`; or use dixit: dixit exec --solution ../implementations/coder-1 --test test_001.rs)",
        TestKind::Io => "dixit exec --solution ../implementations/coder-1 --test test_001.toml",
    };
    let mut out = String::from("# The test suite\n\nEach test joined the suite because some implementations failed it but no more than a minority did.\n\n| # | file | written by |\n|---|---|---|\n");
    for t in &s.suite {
        out.push_str(&format!("| {} | {} | {} |\n", t.number, t.file, t.author));
    }
    out.push_str(&format!("\nRun them natively against an implementation, for example:\n\n    {how}\n\nor in dixit's sandbox:\n\n    dixit exec --solution ../implementations/coder-1 --test test_001.{}\n", kind.extension()));
    out
}

/// The terminal summary.
pub fn render(s: &Summary, run_dir: &std::path::Path) -> String {
    let mut o = String::new();
    o.push_str(&format!(
        "run {}: {}\n",
        s.run_id,
        s.stop
            .as_ref()
            .map(describe_stop)
            .unwrap_or_else(|| "did not stop".into())
    ));
    let growth: Vec<String> = s.suite_growth.iter().map(|n| n.to_string()).collect();
    o.push_str(&format!(
        "  rounds: {}   suite: {} tests (size at each round's start: {})\n",
        s.rounds,
        s.suite.len(),
        growth.join(" → ")
    ));
    let c = &s.classes;
    o.push_str(&format!(
        "  classifications: {} IDEAL, {} TOO_EASY, {} TOO_HARD, {} INVALID\n",
        c.ideal, c.too_easy, c.too_hard, c.invalid
    ));
    for (name, t) in &s.testers {
        o.push_str(&format!(
            "  {name:10} proposed {:2}, accepted {:2}, hibernated {}×, revived {}×\n",
            t.proposed, t.accepted, t.hibernations, t.revivals
        ));
    }
    for (name, c) in &s.coders {
        let passing = c.last_vector.iter().filter(|p| **p).count();
        let hidden = c
            .hidden
            .map(|(p, t)| format!(", hidden tests {p}/{t}"))
            .unwrap_or_default();
        o.push_str(&format!(
            "  {name:10} {} replies, {} fixes, {} rollbacks, suite {passing}/{}{hidden}\n",
            c.replies,
            c.fixes,
            c.rollbacks,
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
    o
}
