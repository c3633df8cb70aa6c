//! A person's turn: at a stop that asks one, the run ends, and `dixit decide` journals what the
//! person chose; `--resume` re-executes the run, meets the same stop, and goes on from the
//! choice. The agents never hear of it: they see only what the choice changes (a shorter
//! judgement vector, fewer others' solutions).

use std::path::Path;

use super::{run_hidden, Coder, Ctx, Halt, Inputs, Protocol};
use crate::config::ConfigError;
use crate::journal::{
    append_decision, Choice, Event, JournalError, JournalFile, StopReason, RUN_LANE,
};

/// At a protocol's stop for a person: the person's recorded answer, if any (the stop is then
/// journaled as it happened the first time: the hidden tests, then the stop), else `None`: the
/// protocol returns the stop and the run ends there. An acceptance ends the run as accepted
/// (`Halt::Accepted`, which the protocol passes on with `?`).
pub async fn ask_person(
    ctx: &Ctx,
    coders: &[&Coder],
    inputs: &Inputs,
    reason: &StopReason,
    round: u32,
) -> Result<Option<Choice>, Halt> {
    let Some((choice, by)) = ctx.take_answer() else {
        return Ok(None);
    };
    ctx.summary
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .decided(&choice);
    if !inputs.hidden.is_empty() {
        run_hidden(ctx, coders, &inputs.hidden).await?;
    }
    ctx.emit(
        RUN_LANE,
        Event::Stop {
            reason: reason.clone(),
            round,
        },
    )?;
    match choice {
        Choice::Accept => Err(Halt::Accepted { by }),
        other => Ok(Some(other)),
    }
}

/// Why a decision cannot be recorded.
#[derive(Debug, thiserror::Error)]
pub enum DecideError {
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("run {run_id} ran protocol `{protocol}`, which this version does not have")]
    UnknownProtocol { run_id: String, protocol: String },
    #[error("run {run_id} has not stopped (its journal holds no stop)")]
    NotStopped { run_id: String },
    #[error("run {run_id} has ended ({stop}): there is nothing to decide")]
    Ended { run_id: String, stop: String },
    #[error("a decision is already recorded at this stop of run {run_id}: continue it with `dixit run PROJECT --resume {run_id}`")]
    Pending { run_id: String },
    #[error("`{choice}` is not a choice at this stop ({stop}); the choices are: {offered}")]
    NotOffered {
        choice: String,
        stop: String,
        offered: String,
    },
    #[error("leaving {coder} behind would leave {left} coder(s): a test is IDEAL only when some but no more than a minority of coders fail it, which takes at least two; accept instead")]
    TooFew { coder: String, left: usize },
    #[error("why: say in a few words why (it is journaled with the decision)")]
    NoReason,
}

/// A decision recorded: the stop it answers and whether the run goes on (`--resume`).
pub struct Decided {
    pub run_id: String,
    pub stop: String,
    pub goes_on: bool,
}

/// Records a person's `choice` (with `why`, `by` whom) at the last stop of the run in
/// `run_dir`, after checking it is one the stop offers. Accepting ends the run at once; any other
/// choice is met by `dixit run PROJECT --resume ID`.
pub fn decide(
    run_dir: &Path,
    protocols: &[&'static dyn Protocol],
    choice: Choice,
    why: &str,
    by: &str,
) -> Result<Decided, DecideError> {
    if why.trim().is_empty() {
        return Err(DecideError::NoReason);
    }
    let recorded = JournalFile::read(&run_dir.join("journal.jsonl"))?;
    let run_id = recorded.run_id.clone();
    let protocol = protocols
        .iter()
        .copied()
        .find(|p| p.name() == recorded.protocol.as_str())
        .ok_or_else(|| DecideError::UnknownProtocol {
            run_id: run_id.clone(),
            protocol: recorded.protocol.to_string(),
        })?;
    let (stop, round) = recorded.stop().ok_or_else(|| DecideError::NotStopped {
        run_id: run_id.clone(),
    })?;
    let described = crate::report::describe_stop(protocol, &stop);
    if recorded.decision_pending() {
        return Err(DecideError::Pending { run_id });
    }
    let config = crate::report::recorded_config(&recorded)?;
    let offer = crate::report::offer(protocol, &stop, Some(&config));
    if offer.is_empty() {
        return Err(DecideError::Ended {
            run_id,
            stop: described,
        });
    }
    if !offer.allows(&choice) {
        return Err(DecideError::NotOffered {
            choice: choice.command(),
            stop: described,
            offered: offer.listed(),
        });
    }
    if let Choice::Raise { key, value } = &choice {
        // The raised config must still be one the protocol runs.
        protocol.team(&config.with_raised(key, *value)?)?;
    }
    if let Choice::LeaveBehind { coder } = &choice {
        let started = recorded
            .records
            .iter()
            .find_map(|r| match &r.event {
                Event::Started { coders, .. } => Some(coders.len()),
                _ => None,
            })
            .unwrap_or(0);
        let gone = recorded
            .decisions()
            .iter()
            .filter(|(c, _)| matches!(c, Choice::LeaveBehind { .. }))
            .count();
        let left = started.saturating_sub(gone + 1);
        if left < 2 {
            return Err(DecideError::TooFew {
                coder: coder.clone(),
                left,
            });
        }
    }
    let goes_on = choice != Choice::Accept;
    append_decision(&recorded, choice, why.trim(), by, round)?;
    Ok(Decided {
        run_id,
        stop: described,
        goes_on,
    })
}
