//! A person's turn: at a stop that asks one, the run ends, and `dixit decide` journals what the
//! person chose; `--resume` re-executes the run, meets the same stop, and goes on from the
//! choice. The agents never hear of it: they see only what the choice changes (a shorter
//! judgement vector, fewer others' solutions).

use std::path::Path;

use super::{run_hidden, Coder, Ctx, Halt, Inputs, Protocol, ProtocolError};
use crate::config::{ConfigError, PolicyName};
use crate::journal::{
    append_decision, fork_journal, Answered, Choice, Event, JournalError, JournalFile, PolicyNote,
    StopReason, PERSON_LANE, RUN_LANE,
};
use crate::shell::shell_word;

/// At a protocol's stop for a person: the answer, if there is one (the stop is then journaled
/// as it happened the first time: the hidden tests, then the stop), else `None`: the protocol
/// returns the stop and the run ends there. The answer is a recorded one (a person's, or the
/// policy's when the run is resumed or replayed: decided again and checked), else the run's
/// decision policy's, decided now from the evidence and journaled after the stop. An
/// acceptance ends the run as accepted (`Halt::Accepted`, which the protocol passes on with
/// `?`).
pub async fn ask_person(
    ctx: &Ctx,
    coders: &[&Coder],
    inputs: &Inputs,
    reason: &StopReason,
    round: u32,
) -> Result<Option<Choice>, Halt> {
    let Some(answer) = answer_at(ctx, reason)? else {
        return Ok(None);
    };
    ctx.summary
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .decided(&answer.choice);
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
    answer.journal(ctx)?;
    match answer.choice {
        Choice::Accept => Err(Halt::Accepted { by: answer.by }),
        other => Ok(Some(other)),
    }
}

/// An answer to a stop: who gave it, and, when the run's policy gave it just now, its note
/// (still to be journaled, after the stop).
pub(crate) struct Answer {
    pub choice: Choice,
    pub by: String,
    fresh: Option<PolicyNote>,
}

impl Answer {
    /// Journals a decision the policy made just now (on the person's lane); a recorded answer
    /// is in the journal already.
    pub(crate) fn journal(&self, ctx: &Ctx) -> Result<(), Halt> {
        let Some(note) = &self.fresh else {
            return Ok(());
        };
        let why = note.evidence.last().cloned().unwrap_or_default();
        ctx.emit(
            PERSON_LANE,
            Event::Decision {
                choice: self.choice.clone(),
                why,
                by: self.by.clone(),
                policy: Some(note.clone()),
            },
        )
    }
}

/// Who decides for a policy, as the journal names it (`by`).
fn policy_by(name: PolicyName) -> String {
    format!("policy {name}")
}

/// The answer at `stop`: the next recorded one, or the run's policy's (none: wait for a
/// person). A recorded decision of a policy's is decided again from the same evidence, and a
/// different choice is an error: every decision replays.
pub(crate) fn answer_at(ctx: &Ctx, stop: &StopReason) -> Result<Option<Answer>, Halt> {
    let offered = || crate::outcome::offer(ctx.protocol, stop, Some(&ctx.config)).choices;
    let evidence = || {
        ctx.summary
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    };
    if let Some(Answered { choice, by, rule }) = ctx.take_answer() {
        let recorded_policy = by
            .strip_prefix("policy ")
            .and_then(|n| n.parse::<PolicyName>().ok());
        if let Some(policy) = recorded_policy {
            let rule = rule.as_deref().unwrap_or(super::policy::MAJORITY_RULE);
            let again =
                super::policy::decide_under(policy, rule, &offered(), &evidence()).map(|(c, _)| c);
            if again.as_ref() != Some(&choice) {
                return Err(Halt::Fatal(ProtocolError::Decision(format!(
                    "the journal records that policy {policy} chose `{}` here, but on the same \
                     evidence it chooses `{}` now",
                    choice.command(),
                    again.map_or_else(|| "nothing".into(), |c| c.command())
                ))));
            }
        }
        return Ok(Some(Answer {
            choice,
            by,
            fresh: None,
        }));
    }
    // A replay decides nothing the recording did not: a stop it holds no answer to ends it, as
    // it ended the run (a decision a person made there and no run met yet included).
    if matches!(ctx.mode, super::RunMode::Replay { .. }) {
        return Ok(None);
    }
    let policy = ctx.config.policy.name;
    Ok(
        super::policy::decide(policy, &offered(), &evidence()).map(|(choice, note)| Answer {
            choice,
            by: policy_by(policy),
            fresh: Some(note),
        }),
    )
}

/// Why a decision cannot be recorded.
#[derive(Debug, thiserror::Error)]
pub enum DecideError {
    /// The journal could not be read or written.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The recorded config could not be loaded, or the raised one is refused.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The run recorded a protocol this version does not have.
    #[error("run {run_id} ran protocol `{protocol}`, which this version does not have")]
    UnknownProtocol {
        /// The run's id.
        run_id: String,
        /// The protocol it recorded.
        protocol: String,
    },
    /// The run has not stopped.
    #[error("run {run_id} has not stopped (its journal holds no stop)")]
    NotStopped {
        /// The run's id.
        run_id: String,
    },
    /// The run has ended: its stop offers no choice.
    #[error("run {run_id} has ended ({stop}): there is nothing to decide")]
    Ended {
        /// The run's id.
        run_id: String,
        /// The stop it ended on, described.
        stop: String,
    },
    /// A decision is already recorded at this stop; the run is to be continued.
    #[error(
        "a decision is already recorded at this stop of run {run_id}: continue it with `{resume}`"
    )]
    Pending {
        /// The run's id.
        run_id: String,
        /// The command that continues it.
        resume: String,
    },
    /// The choice is not one this stop offers.
    #[error("`{choice}` is not a choice at this stop ({stop}); the choices are: {offered}")]
    NotOffered {
        /// The choice, as a command.
        choice: String,
        /// The stop, described.
        stop: String,
        /// The choices it offers.
        offered: String,
    },
    /// Leaving the coder behind would leave fewer than two coders.
    #[error("leaving {coder} behind would leave {left} coder(s): a test is IDEAL only when some but no more than a minority of coders fail it, which takes at least two; accept instead")]
    TooFew {
        /// The coder to leave behind.
        coder: String,
        /// Coders that would be left.
        left: usize,
    },
    /// No reason was given.
    #[error("why: say in a few words why (it is journaled with the decision)")]
    NoReason,
    /// The run has no decision of that number to decide again.
    #[error("run {run_id} has no decision {at} to decide again (it has {made}; `dixit report` lists them)")]
    NoDecision {
        /// The run's id.
        run_id: String,
        /// The decision asked for (1-based).
        at: usize,
        /// Decisions the run has.
        made: usize,
    },
}

/// A decision recorded: the stop it answers, whether the run goes on, the command that goes on
/// with it, and, for a decision made again at an earlier stop, the run and decision it forked.
pub struct Decided {
    /// The run's id (a new one, for a decision made again at an earlier stop).
    pub run_id: String,
    /// The stop it answers, described.
    pub stop: String,
    /// Whether the run goes on (every choice but accept).
    pub goes_on: bool,
    /// The command that goes on with the run.
    pub resume: String,
    /// The run and the decision (1-based) it forked, for a decision made again.
    pub forked_from: Option<(String, usize)>,
}

/// The command that goes on with the run in `run_dir`: `dixit run PROJECT --resume ID` naming
/// the project's folder as the run recorded it (or, for a run recorded before it was, the folder
/// above the run's `runs/` when that is a project; else the word PROJECT, which the person
/// replaces), with `--runs-dir` when the run lies elsewhere than `PROJECT/runs`.
/// Paths under `from` (the folder it is typed in) are written relative to it, others absolute;
/// every word is quoted for a POSIX shell where it must be.
pub fn resume_command(run_dir: &Path, recorded: &JournalFile, from: Option<&Path>) -> String {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let run_dir = abs(run_dir);
    let runs = run_dir.parent().map(Path::to_path_buf).unwrap_or_default();
    // A run recorded before journals named the project's folder: the folder above its `runs/`,
    // when that is a project.
    let project = recorded.project.dir.clone().or_else(|| {
        runs.parent()
            .filter(|_| runs.file_name().is_some_and(|n| n == "runs"))
            .filter(|p| p.join("dixit.toml").is_file())
            .map(Path::to_path_buf)
    });
    let shown = |p: &Path| -> String {
        let rel = from.and_then(|h| p.strip_prefix(abs(h)).ok()).map(|r| {
            if r.as_os_str().is_empty() {
                Path::new(".")
            } else {
                r
            }
        });
        shell_word(&rel.unwrap_or(p).display().to_string())
    };
    let id = run_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| recorded.run_id.clone());
    match project {
        Some(p) if p.join("runs") == runs => {
            format!("dixit run {} --resume {}", shown(&p), shell_word(&id))
        }
        Some(p) => format!(
            "dixit run {} --runs-dir {} --resume {}",
            shown(&p),
            shown(&runs),
            shell_word(&id)
        ),
        None => format!(
            "dixit run PROJECT --resume {}",
            shell_word(&recorded.run_id)
        ),
    }
}

/// Records a person's `choice` (with `why`, `by` whom) at the last stop of the run in
/// `run_dir`, after checking it is one the stop offers. Accepting ends the run at once; any other
/// choice is met by the command [`resume_command`] writes.
///
/// With `at` (1-based, in the order the run met its decisions), the person decides again at the
/// stop of an earlier decision (the policy's, or a person's) that the run went on from: the run
/// is forked there into a new run beside it (`ID-bN`), whose journal is the original's up to that
/// stop, and the decision is recorded in the fork; the original run is kept as it is. The
/// command that goes on with the fork is [`Decided::resume`].
pub fn decide(
    run_dir: &Path,
    protocols: &[&'static dyn Protocol],
    choice: Choice,
    why: &str,
    by: &str,
    at: Option<usize>,
) -> Result<Decided, DecideError> {
    if why.trim().is_empty() {
        return Err(DecideError::NoReason);
    }
    let original = JournalFile::read(&run_dir.join("journal.jsonl"))?;
    let (fork, recorded) = match at {
        None => (None, original),
        Some(k) => {
            let (upto, dir, id) = fork_point(run_dir, &original, k)?;
            let mut j = original.clone();
            j.records.truncate(upto + 1);
            j.run_id = id;
            j.path = dir.join("journal.jsonl");
            (Some((original, upto, k, dir)), j)
        }
    };
    let run_dir = match &fork {
        Some((_, _, _, dir)) => dir.clone(),
        None => run_dir.to_path_buf(),
    };
    let run_dir = run_dir.as_path();
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
    let described = crate::outcome::describe_stop(protocol, &stop);
    if recorded.decision_pending() {
        let here = std::env::current_dir().ok();
        let resume = resume_command(run_dir, &recorded, here.as_deref());
        return Err(DecideError::Pending { run_id, resume });
    }
    let config = crate::outcome::recorded_config(&recorded)?;
    let offer = crate::outcome::offer(protocol, &stop, Some(&config));
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
    let here = std::env::current_dir().ok();
    let resume = resume_command(run_dir, &recorded, here.as_deref());
    let recorded = match &fork {
        None => recorded,
        Some((original, upto, k, dir)) => {
            let path = dir.join("journal.jsonl");
            fork_journal(original, *upto, *k, &run_id, &path)?;
            JournalFile::read(&path)?
        }
    };
    append_decision(&recorded, choice, why.trim(), by, round)?;
    Ok(Decided {
        run_id,
        stop: described,
        goes_on,
        resume,
        forked_from: fork.map(|(o, _, k, _)| (o.run_id, k)),
    })
}

/// Where decision `k` (1-based) of the run in `run_dir` can be made again: the index of the
/// stop it answered, and the folder and id of a new fork beside the run (`ID-b2`, `ID-b3`, …:
/// the first that is free).
fn fork_point(
    run_dir: &Path,
    recorded: &JournalFile,
    k: usize,
) -> Result<(usize, std::path::PathBuf, String), DecideError> {
    let decisions: Vec<usize> = recorded
        .records
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r.event, Event::Decision { .. }))
        .map(|(i, _)| i)
        .collect();
    let no = || DecideError::NoDecision {
        run_id: recorded.run_id.clone(),
        at: k,
        made: decisions.len(),
    };
    let at = *decisions
        .get(k.checked_sub(1).ok_or_else(no)?)
        .ok_or_else(no)?;
    let upto = recorded.records[..at]
        .iter()
        .rposition(|r| matches!(r.event, Event::Stop { .. }))
        .ok_or_else(no)?;
    let last_stop = recorded
        .records
        .iter()
        .rposition(|r| matches!(r.event, Event::Stop { .. }));
    if Some(upto) == last_stop && recorded.decision_pending() {
        // The run has not gone on from it: decide there as at any last stop (refused as pending).
        let here = std::env::current_dir().ok();
        return Err(DecideError::Pending {
            run_id: recorded.run_id.clone(),
            resume: resume_command(run_dir, recorded, here.as_deref()),
        });
    }
    let parent = run_dir.parent().unwrap_or(Path::new("."));
    let base = run_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| recorded.run_id.clone());
    let (dir, id) = (2..)
        .map(|n| {
            let id = format!("{base}-b{n}");
            (parent.join(&id), id)
        })
        .find(|(d, _)| !d.exists())
        .expect("a free fork name");
    Ok((upto, dir, id))
}
