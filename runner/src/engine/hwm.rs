//! The high-water mark (BestTracker, `shared/seeds/test-driven-termination.txt`): retries are a
//! random walk, so keep the best attempt and revert anything worse before the next one. Every
//! protocol that lets a coder retry uses it.

use crate::agents::Checkpoint;

use super::coder::{Coder, Judgement};
use super::ctx::{Ctx, Halt};

/// Which new attempt replaces the best.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Only a better one: more tests passed, or as many with fewer errors.
    Better,
    /// One at least as good ("kept only if it passes at least as many tests").
    AtLeastAsGood,
}

/// What became of an attempt offered to the mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// It is the new best (and saved).
    Kept,
    /// It was worse: the coder's state went back to the best attempt.
    Reverted,
}

/// The best attempt of one coder so far: its judgement and a checkpoint of its state.
pub struct HighWaterMark {
    /// The best attempt's judgement.
    pub best: Judgement,
    /// The coder's state at the best attempt.
    pub checkpoint: Checkpoint,
    keep: Keep,
}

impl HighWaterMark {
    /// Starts from the coder's current attempt (saved as the first best).
    pub fn start(
        ctx: &Ctx,
        coder: &mut Coder,
        judgement: Judgement,
        keep: Keep,
    ) -> Result<HighWaterMark, Halt> {
        Ok(HighWaterMark {
            best: judgement,
            checkpoint: ctx.save(&mut coder.agent)?,
            keep,
        })
    }

    /// Offers a new attempt: kept (and saved) if it beats the best, else the coder is rolled
    /// back to the best, `why` journaled, so the next attempt starts from the best code.
    pub fn offer(
        &mut self,
        ctx: &Ctx,
        coder: &mut Coder,
        judgement: Judgement,
        why: &str,
    ) -> Result<Offer, Halt> {
        let kept = match self.keep {
            Keep::Better => judgement.better_than(&self.best),
            Keep::AtLeastAsGood => judgement.at_least(&self.best),
        };
        if kept {
            self.best = judgement;
            self.checkpoint = ctx.save(&mut coder.agent)?;
            Ok(Offer::Kept)
        } else {
            ctx.rollback(&mut coder.agent, self.checkpoint, why)?;
            coder.refresh(ctx);
            Ok(Offer::Reverted)
        }
    }
}
