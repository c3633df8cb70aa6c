//! Protocol `debate`, after `shared/seeds/debatecoder.md` (DebateCoder, ACL 2025): disagreement
//! is settled by executable evidence, not by a judge.
//!
//! ```text
//! epoch 0: every coder writes a solution
//! epoch 1..max_epochs:
//!     every coder sees the others' current solutions and writes a test meant to break them
//!     all new tests run against all solutions; a test that passes some and fails others
//!     discriminated: it joins the suite (a test everyone passes breaks nothing; one everyone
//!     fails is more likely wrong than right)
//!     no new breaking test                         → stop (converged)
//!     every coder refines from its own failures; a refinement is kept only if it passes at
//!     least as many tests as before (the high-water mark)
//!     every coder passes every test                → stop
//!     early_stop epochs in a row without a coder improving → stop
//! winner = most tests passed (ties: fewer errors, then agent order — reported)
//! ```

use std::sync::Arc;

use futures::future::join_all;

use crate::agents::Agent;
use crate::engine::{
    ask_test, run_test, Coder, Ctx, Detail, Halt, HighWaterMark, Judgement, Keep, Proposal, Suite,
    Team,
};
use crate::english::and_list;
use crate::journal::{CellRecord, Event, Standing, StopReason, RUN_LANE};
use crate::toolchain::Solution;

use futures::future::BoxFuture;

use super::{first_halt, Stop};
use crate::config::{Config, ConfigError, TeamShape};
use crate::engine::{Inputs, Protocol};

pub mod events;
pub mod part;
mod settings;
use events::{DebateTest, Debated};
pub use settings::Settings;

/// Why a debate that ran all its epochs ended (journaled in its stop).
const MAX_EPOCHS_REACHED: &str = "max_epochs reached";

/// The protocol's name in `[protocol] name`, journals and output.
pub const NAME: &str = "debate";

/// The prompt templates of this protocol (`prompts/`, beside this file).
pub const TEMPLATES: &[(&str, &str)] = templates![
    "coder_break",
    "coder_refine",
    "coder_solve",
    "coder_system",
    "coder_system_defensive",
    "coder_system_terse",
];

/// A debate shows other implementations (that is the protocol), but never keeps score aloud.
pub const FORBIDDEN: &[&str] = &[
    "game",
    "games",
    "score",
    "scores",
    "scoring",
    "win",
    "wins",
    "winner",
    "winning",
    "judge",
    "judges",
    "opponent",
    "opponents",
    "compete",
    "competition",
    "points",
    "reward",
    "debate",
];

/// The protocol, for the registry.
pub struct Debate;

impl Protocol for Debate {
    fn about(&self) -> &'static str {
        "coders write tests against each other's code; tests that discriminate join the suite"
    }

    fn team(&self, config: &Config) -> Result<TeamShape, ConfigError> {
        Settings::team(config)
    }

    fn settings(&self, config: &Config) -> Result<Vec<(String, String)>, ConfigError> {
        Ok(crate::engine::settings_pairs(
            &config.section::<Settings>(settings::TABLE)?,
        ))
    }

    /// Ships by evidence (`[debate] ship`): every test the coders wrote against each other, and
    /// their answers.
    fn shipping(
        &self,
        config: &Config,
    ) -> Result<
        Option<(
            crate::selection::Strategy,
            crate::selection::SelectionConfig,
        )>,
        ConfigError,
    > {
        let s = config.section::<Settings>(settings::TABLE)?;
        Ok(Some((s.ship, crate::selection::SelectionConfig::default())))
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        TEMPLATES
    }

    fn forbidden(&self) -> &'static [&'static str] {
        FORBIDDEN
    }

    fn run<'a>(
        &'a self,
        ctx: &'a Ctx,
        team: &'a mut Team,
        _inputs: &'a Inputs,
    ) -> BoxFuture<'a, Result<Stop, Halt>> {
        Box::pin(run(ctx, team))
    }
}

/// Runs the protocol with the run's coders.
pub async fn run(ctx: &Ctx, team: &mut Team) -> Result<Stop, Halt> {
    let coders = &mut team.coders;
    let solve = ctx
        .prompts
        .render("coder_solve", &[("spec", ctx.spec.trim())])?;
    first_halt(join_all(coders.iter_mut().map(|c| c.solve(ctx, "solve", &solve))).await)?;

    let mut suite = Suite::default();
    let mut standings: Vec<Judgement> = Vec::new();
    let mut quiet_epochs = 0;
    let settings = Settings::of(ctx)?;
    let max = settings.max_epochs;
    for epoch in 1..=max {
        ctx.round.store(epoch, std::sync::atomic::Ordering::SeqCst);
        ctx.emit(
            RUN_LANE,
            Event::Epoch {
                epoch,
                suite: suite.len(),
            },
        )?;
        // Every coder writes a test against the others' current solutions.
        let shown: Vec<String> = coders.iter().map(|c| c.code_text()).collect();
        let proposals = first_halt(
            join_all(coders.iter_mut().enumerate().map(|(i, c)| {
                let others = others_text(&shown, i);
                async move { break_them(ctx, &mut c.agent, &others).await }
            }))
            .await,
        )?;
        // All new tests against all solutions; the ones that discriminate join the suite.
        let pool: Vec<Arc<Solution>> = coders
            .iter()
            .filter_map(|c| c.solution.clone().ok())
            .collect();
        let names: Vec<String> = coders
            .iter()
            .filter(|c| c.solution.is_ok())
            .map(|c| c.agent.name.clone())
            .collect();
        let mut breaking = Vec::new();
        for (author, p) in coders.iter().map(|c| c.agent.name.clone()).zip(proposals) {
            if discriminates(ctx, &author, &p, &pool, &names).await? {
                breaking.push((author, p));
            }
        }
        if breaking.is_empty() {
            return Ok(decide(coders, &standings, "no new breaking test", epoch));
        }
        suite.admit(ctx, breaking)?;
        // Every coder refines from its own failures; a refinement that passes fewer tests is
        // undone.
        let before_after =
            first_halt(join_all(coders.iter_mut().map(|c| refine(ctx, c, &suite))).await)?;
        // Improvement: a refinement made some coder pass more of the suite than before it.
        let improved = before_after
            .iter()
            .any(|(before, after)| after.passes() > before.passes());
        standings = before_after.into_iter().map(|(_, after)| after).collect();
        if standings.iter().all(Judgement::all_pass) {
            return Ok(decide(
                coders,
                &standings,
                "every coder passes every test",
                epoch,
            ));
        }
        quiet_epochs = if improved { 0 } else { quiet_epochs + 1 };
        if quiet_epochs >= settings.early_stop {
            return Ok(decide(
                coders,
                &standings,
                &format!("{quiet_epochs} epochs without improvement"),
                epoch,
            ));
        }
    }
    Ok(decide(coders, &standings, MAX_EPOCHS_REACHED, max))
}

/// The others' code, labelled A, B, … (never by who wrote it).
fn others_text(shown: &[String], me: usize) -> String {
    shown
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != me)
        .zip('A'..='Z')
        .map(|((_, code), label)| {
            if code.is_empty() {
                format!("Implementation {label}: (no code yet)")
            } else {
                format!("Implementation {label}:\n\n{code}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// "Write a test that breaks them".
async fn break_them(ctx: &Ctx, agent: &mut Agent, others: &str) -> Result<Proposal, Halt> {
    let prompt = ctx.prompts.render("coder_break", &[("others", others)])?;
    ask_test(ctx, agent, "break", &prompt).await
}

/// Runs a new test against every solution and journals whom it broke; true when it
/// discriminated (some solutions pass it, some fail it).
async fn discriminates(
    ctx: &Ctx,
    author: &str,
    p: &Proposal,
    pool: &[Arc<Solution>],
    names: &[String],
) -> Result<bool, Halt> {
    let outcome = match &p.test {
        Err(reason) => Err(reason.clone()),
        Ok(test) => run_test(ctx, test, pool).await,
    };
    let (failed_by, kept, build_error, cells) = match outcome {
        Err(e) => (Vec::new(), false, Some(e), Vec::new()),
        Ok(cells) => {
            let failed_by: Vec<String> = names
                .iter()
                .zip(&cells)
                .filter(|(_, c)| !c.passed())
                .map(|(n, _)| n.clone())
                .collect();
            let kept = !failed_by.is_empty() && failed_by.len() < cells.len();
            (
                failed_by,
                kept,
                None,
                cells.iter().map(CellRecord::from).collect(),
            )
        }
    };
    ctx.emit(
        author,
        Event::own(&DebateTest {
            test: p.id.clone(),
            failed_by,
            kept,
            build_error,
            cells,
        }),
    )?;
    Ok(kept)
}

/// A coder against the suite; if it fails some tests, one refinement from its own failures, kept
/// only if it passes at least as many. Returns its judgements before and after.
async fn refine(
    ctx: &Ctx,
    coder: &mut Coder,
    suite: &Suite,
) -> Result<(Judgement, Judgement), Halt> {
    let before = coder.judge(ctx, suite).await?;
    if before.all_pass() {
        return Ok((before.clone(), before));
    }
    let mut best = HighWaterMark::start(ctx, coder, before.clone(), Keep::AtLeastAsGood)?;
    let prompt = ctx.prompts.render(
        "coder_refine",
        &[("failures", &before.feedback(suite, Detail::Failures))],
    )?;
    coder.solve(ctx, "refine", &prompt).await?;
    let judgement = coder.judge(ctx, suite).await?;
    best.offer(
        ctx,
        coder,
        judgement,
        "the refinement passed fewer tests than the previous solution",
    )?;
    Ok((before, best.best))
}

/// The stop: the winner passes the most tests of the final suite; ties go to fewer errors, then
/// to agent order, and the stop says which rule decided.
fn decide(coders: &[Coder], standings: &[Judgement], why: &str, epoch: u32) -> Stop {
    let mut ranked: Vec<(usize, &Coder, Option<&Judgement>)> = coders
        .iter()
        .enumerate()
        .map(|(i, c)| (i, c, standings.get(i)))
        .collect();
    let key = |j: Option<&Judgement>| {
        j.map(|j| (j.passes(), std::cmp::Reverse(j.errors)))
            .unwrap_or((0, std::cmp::Reverse(0)))
    };
    ranked.sort_by(|a, b| key(b.2).cmp(&key(a.2)).then(a.0.cmp(&b.0)));
    // Everyone level with the leader on passes, and on passes and errors.
    let top = ranked.first().map(|r| key(r.2));
    let level = |same: &dyn Fn((usize, std::cmp::Reverse<usize>)) -> bool| -> Vec<&str> {
        ranked
            .iter()
            .filter(|r| same(key(r.2)))
            .map(|r| r.1.agent.name.as_str())
            .collect()
    };
    let tie_break = top.and_then(|top| {
        let tied = level(&|k| k == top);
        let on_passes = level(&|k| k.0 == top.0);
        if tied.len() > 1 {
            Some(format!(
                "agent order ({} pass as many tests with as many errors)",
                and_list(&tied)
            ))
        } else if on_passes.len() > 1 {
            Some(format!(
                "fewer errors ({} pass as many tests)",
                and_list(&on_passes)
            ))
        } else {
            None
        }
    });
    let standings = ranked
        .iter()
        .map(|(_, c, j)| Standing {
            coder: c.agent.name.clone(),
            passed: j.map(|j| j.passes()).unwrap_or(0),
            total: j.map(|j| j.vector.len()).unwrap_or(0),
        })
        .collect::<Vec<_>>();
    Stop {
        reason: StopReason::own(&Debated {
            winner: ranked
                .first()
                .map(|(_, c, _)| c.agent.name.clone())
                .unwrap_or_default(),
            why: why.to_string(),
            standings,
            tie_break,
        }),
        round: epoch,
    }
}
