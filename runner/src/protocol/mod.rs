//! The protocols, one folder each, every one reading like its seed (`shared/seeds/`):
//!
//! | protocol | seed | roles | what a run produces |
//! |---|---|---|---|
//! | `dixit` | `dixit-orchestrator.txt` | coders, testers | a suite of IDEAL tests every coder passes |
//! | `debate` | `debatecoder.md` | coders (who also write tests) | a winner and the tests that discriminated |
//! | `repair` | `test-driven-termination.txt` | coders, a reviewer | each coder's best attempt against a given suite |
//! | `blind` | `blind-verification.md` | coders (who write their own tests) | code checked by a suite answering pass/fail only |
//!
//! A protocol owns its roles' behaviour, its prompt templates (`assets/prompts/<name>/`) and its
//! forbidden-word policy; everything else (agents, the sandbox, journaling, budget, resume and
//! replay) is the engine's (`crate::engine`).

pub mod blind;
pub mod debate;
pub mod dixit;
pub mod repair;

use crate::config::ProtocolName;
use crate::engine::{Ctx, Halt, Inputs, Team};
use crate::journal::StopReason;

/// The protocols this version runs.
pub const IMPLEMENTED: &[ProtocolName] = &ProtocolName::ALL;

/// How a protocol's run ended: why, and in which round (or epoch).
pub struct Stop {
    pub reason: StopReason,
    pub round: u32,
}

/// Runs the protocol of the run's config with `team` to its stop.
pub async fn run(ctx: &Ctx, team: &mut Team, inputs: &Inputs) -> Result<Stop, Halt> {
    match ctx.protocol() {
        ProtocolName::Dixit => dixit::run(ctx, team).await,
        ProtocolName::Debate => debate::run(ctx, team).await,
        ProtocolName::Repair => repair::run(ctx, team, inputs).await,
        ProtocolName::Blind => blind::run(ctx, team, inputs).await,
    }
}

/// A protocol's own prompt templates (the language instructions are common to all).
pub fn templates(name: ProtocolName) -> &'static [(&'static str, &'static str)] {
    match name {
        ProtocolName::Dixit => dixit::TEMPLATES,
        ProtocolName::Debate => debate::TEMPLATES,
        ProtocolName::Repair => repair::TEMPLATES,
        ProtocolName::Blind => blind::TEMPLATES,
    }
}

/// Words a protocol's prompts must never contain.
pub fn forbidden(name: ProtocolName) -> &'static [&'static str] {
    match name {
        ProtocolName::Dixit => dixit::FORBIDDEN,
        ProtocolName::Debate => debate::FORBIDDEN,
        ProtocolName::Repair => repair::FORBIDDEN,
        ProtocolName::Blind => blind::FORBIDDEN,
    }
}

/// Collects concurrent results; the first halt in agent order wins (a real cause is preferred
/// over `Stopped`, which only means "another agent halted").
pub(crate) fn first_halt<T>(results: Vec<Result<T, Halt>>) -> Result<Vec<T>, Halt> {
    let mut out = Vec::with_capacity(results.len());
    let mut halt: Option<Halt> = None;
    for r in results {
        match r {
            Ok(v) => out.push(v),
            Err(h) => {
                let replace = match (&halt, &h) {
                    (None, _) => true,
                    (Some(Halt::Stopped), Halt::Stopped) => false,
                    (Some(Halt::Stopped), _) => true,
                    (Some(Halt::Fatal(_)), _) => false,
                    (Some(_), Halt::Fatal(_)) => true,
                    _ => false,
                };
                if replace {
                    halt = Some(h);
                }
            }
        }
    }
    match halt {
        Some(h) => Err(h),
        None => Ok(out),
    }
}
