//! What every step of a protocol shares: the project, the sandbox, the journal, the budget, and
//! the journaled primitives every agent interaction goes through (`ask`, `save`, `rollback`,
//! `thank`). A [`RunMode`] says whether the run is live, resumed or replayed; the protocols never
//! need to know.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::sync::Mutex;

use crate::agents::{Agent, AskError, BackendError, Checkpoint, Turn};
use crate::budget::Budget;
use crate::classify::Reruns;
use crate::config::{AgentSpec, Config, ProtocolName};
use crate::journal::{Answered, Event, Journal, JournalError, NAMES_BOUND_SINCE_MINOR};
use crate::outcome::Summary;
use crate::sandbox::Limits;
use crate::toolchain::{BuildError, Language, LoadedInterface, Test, TestKind, Toolchains};

use super::interrupt::Interrupt;
use super::prompts::{PromptError, Prompts};
use super::protocol::Protocol;

/// How a run executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunMode {
    /// A new run: agents are asked, events are written.
    Live,
    /// A stopped or crashed run continued (`dixit run --resume`): recorded replies are reused,
    /// re-derived events are checked against the journal, then the run goes on live.
    Resume,
    /// A recorded run re-executed offline (`dixit replay`): every reply comes from the journal,
    /// every event is checked, nothing is written. `may_end`: the recording stopped on a cap, an
    /// error or an interrupt, so an agent asked past its recording was stopped there too (not a
    /// divergence). `interrupted`: it was an interrupt, which is what stopped such an agent.
    Replay {
        /// The recording stopped on a cap, an error or an interrupt.
        may_end: bool,
        /// It stopped on an interrupt.
        interrupted: bool,
    },
}

/// Receives every event as it is journaled (progress display, live reports).
pub trait Observer: Send + Sync {
    /// An event was journaled in `lane`.
    fn event(&self, lane: &str, event: &Event);
    /// An agent call begins (live or answered from a recording). Every call that begins ends
    /// with one [`Observer::call_ended`], however it ends (a reply, an error, an abandoned call).
    fn call_started(&self, _lane: &str, _purpose: &str) {}
    /// An agent call that began has ended.
    fn call_ended(&self, _lane: &str) {}
}

/// Tells the observer that a call ended when dropped, so that an abandoned call counts too.
struct CallInFlight<'a> {
    observer: &'a dyn Observer,
    lane: &'a str,
}

impl<'a> CallInFlight<'a> {
    fn new(observer: &'a dyn Observer, lane: &'a str, purpose: &str) -> Self {
        observer.call_started(lane, purpose);
        CallInFlight { observer, lane }
    }
}

impl Drop for CallInFlight<'_> {
    fn drop(&mut self) {
        self.observer.call_ended(self.lane);
    }
}

/// An observer that ignores everything.
pub struct Quiet;

impl Observer for Quiet {
    fn event(&self, _: &str, _: &Event) {}
}

/// Why a protocol could not go on. All but `Fatal` end the run with a journaled stop; `Fatal`
/// is an error of dixit itself (or a replay divergence).
#[derive(Debug)]
pub enum Halt {
    /// A budget cap would be exceeded by the agent's next call.
    Budget {
        /// The agent whose call was refused.
        agent: String,
        /// The cap the call would have passed.
        cap: String,
    },
    /// An agent's backend failed after its retries.
    Backend {
        /// The agent whose call failed.
        agent: String,
        /// The backend's error.
        message: String,
    },
    /// The run's [`Interrupt`] was raised: no call is started, calls in flight are abandoned.
    Interrupted,
    /// Another agent halted first (or a replay reached the end of its recording).
    Stopped,
    /// A person accepted the implementations at a stop (`by` whom).
    Accepted {
        /// Who accepted.
        by: String,
    },
    /// An error of dixit itself, or a replay divergence.
    Fatal(ProtocolError),
}

/// Errors of the run machinery (not of the agents or their code, which are data).
#[derive(Debug, thiserror::Error)]
pub enum ProtocolError {
    /// Reading or writing the journal failed, or a replay diverged.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// A prompt template is missing, or lacks a placeholder.
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// An agent's state directory could not be read or written.
    #[error(transparent)]
    State(#[from] crate::agents::StateError),
    /// The project's config could not be loaded.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// A project file or a run's folder could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The project's stated interface could not be loaded.
    #[error("[project] interface: {0}")]
    Interface(#[from] crate::toolchain::InterfaceError),
    /// A test the project gives is not one dixit can run (its kind, its file).
    #[error("{0}")]
    Test(String),
    /// An agent's backend could not be made (its script, its command, its settings).
    #[error("{message}")]
    Backend {
        /// The agent.
        agent: String,
        /// Why its backend could not be made.
        message: String,
    },
    /// The project lacks what the protocol needs (hidden tests, an acceptance suite).
    #[error("{protocol} needs {what}")]
    Lacks {
        /// The protocol's name.
        protocol: &'static str,
        /// What it needs.
        what: String,
    },
    /// `--resume` of a run that ended in a decision.
    #[error("run {run_id} already ended in round {round} ({stop}); nothing to resume")]
    Ended {
        /// The run's id.
        run_id: String,
        /// The round it ended in.
        round: u32,
        /// The stop it ended on, described.
        stop: String,
    },
    /// No run has that id (or path).
    #[error("no run `{id}`: {} has no journal.jsonl", dir.display())]
    NoRun {
        /// The id (or path) asked for.
        id: String,
        /// The folder where its journal was looked for.
        dir: PathBuf,
    },
    /// A recorded run names a protocol this version does not have.
    #[error("run {run_id} ran protocol `{protocol}`, which this version does not have")]
    UnknownProtocol {
        /// The run's id.
        run_id: String,
        /// The protocol it recorded.
        protocol: String,
    },
    /// A recorded run lacks an interface header its config states.
    #[error(
        "the journal records no interface header `{0}` (a run recorded before `[project] \
         interface` cannot be replayed under it)"
    )]
    NoRecordedHeader(String),
    /// Writing the run's outputs failed (a full disk, a permission): not bad input.
    #[error("writing the run's outputs: {}: {source}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A person's recorded decision does not fit the run it answers (a journal edited by hand).
    #[error("the recorded decision does not fit the run: {0}")]
    Decision(String),
    /// A halt that only a protocol's own logic causes reached the engine (a bug of dixit).
    #[error("unexpected halt: {0}")]
    Unexpected(String),
}

impl From<ProtocolError> for Halt {
    fn from(e: ProtocolError) -> Self {
        Halt::Fatal(e)
    }
}

impl From<JournalError> for Halt {
    fn from(e: JournalError) -> Self {
        Halt::Fatal(e.into())
    }
}

impl From<PromptError> for Halt {
    fn from(e: PromptError) -> Self {
        Halt::Fatal(e.into())
    }
}

impl From<crate::agents::StateError> for Halt {
    fn from(e: crate::agents::StateError) -> Self {
        Halt::Fatal(e.into())
    }
}

/// What a [`Ctx`] is made of.
pub struct CtxParts {
    /// How the run runs: live, resumed or replayed.
    pub mode: RunMode,
    /// The protocol that runs.
    pub protocol: &'static dyn Protocol,
    /// The project's config.
    pub config: Config,
    /// The run's agents, as the protocol's team and the config make them.
    pub agents: Vec<AgentSpec>,
    /// The project's spec.
    pub spec: String,
    /// The prompt templates in effect.
    pub prompts: Prompts,
    /// The toolchains that build and run solutions and tests.
    pub toolchains: Arc<Toolchains>,
    /// What C/C++/Rust tests may use of a solution (`[project] interface`).
    pub interface: Arc<LoadedInterface>,
    /// The run's journal.
    pub journal: Journal,
    /// The caps, prices and what has been spent.
    pub budget: Budget,
    /// Receives every event as it is journaled.
    pub observer: Arc<dyn Observer>,
    /// The run's folder.
    pub run_dir: PathBuf,
    /// A person's answers to the run's stops, in order (resume and replay; see
    /// [`crate::journal::JournalFile::answers`]).
    pub answers: Vec<Answered>,
    /// Raised from outside to stop the run (never in a replay).
    pub interrupt: Interrupt,
}

/// Shared state of one run.
pub struct Ctx {
    /// How the run runs: live, resumed or replayed.
    pub mode: RunMode,
    /// The protocol that runs.
    pub protocol: &'static dyn Protocol,
    /// The project's config.
    pub config: Config,
    /// The run's agents, as the protocol's team and the config make them.
    pub agents: Vec<AgentSpec>,
    /// The project's spec.
    pub spec: String,
    /// The prompt templates in effect.
    pub prompts: Prompts,
    /// The toolchains that build and run solutions and tests.
    pub toolchains: Arc<Toolchains>,
    /// What C/C++/Rust tests may use of a solution: every solution of the run is built under it.
    pub interface: Arc<LoadedInterface>,
    /// The run's journal.
    pub journal: Journal,
    /// The caps, prices and what has been spent.
    pub budget: Budget,
    /// Receives every event as it is journaled.
    pub observer: Arc<dyn Observer>,
    /// The run's folder.
    pub run_dir: PathBuf,
    /// Raised from outside to stop the run at its next agent call.
    pub interrupt: Interrupt,
    /// Set by the first halt, so other agents start no new call (not in a replay, where each
    /// agent goes exactly as far as its recording).
    halted: AtomicBool,
    /// The current round or epoch (0 before the first).
    pub round: AtomicU32,
    /// Statistics of the run so far, folded from its events.
    pub summary: Mutex<Summary>,
    /// The person's answers not yet met, in order.
    answers: Mutex<VecDeque<Answered>>,
}

impl Ctx {
    /// The shared state of a run, made of its parts.
    pub fn new(p: CtxParts) -> Ctx {
        Ctx {
            mode: p.mode,
            protocol: p.protocol,
            config: p.config,
            agents: p.agents,
            spec: p.spec,
            prompts: p.prompts,
            toolchains: p.toolchains,
            interface: p.interface,
            journal: p.journal,
            budget: p.budget,
            observer: p.observer,
            run_dir: p.run_dir,
            interrupt: p.interrupt,
            halted: AtomicBool::new(false),
            round: AtomicU32::new(0),
            summary: Mutex::new(p.protocol.summary()),
            answers: Mutex::new(p.answers.into()),
        }
    }

    /// The person's answer to the stop the run has reached, if one is recorded (taken: the
    /// next stop meets the next answer).
    pub fn take_answer(&self) -> Option<Answered> {
        self.answers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front()
    }

    /// The name of the protocol that runs.
    pub fn protocol_name(&self) -> ProtocolName {
        ProtocolName::new(self.protocol.name())
    }

    /// The sandbox limits of each run (`[limits]`).
    pub fn limits(&self) -> Limits {
        self.config.limits.limits()
    }

    /// Runs per (solution, test) pair (`[protocol] reruns`).
    pub fn reruns(&self) -> Reruns {
        self.config.protocol.reruns
    }

    /// The run's base seed (`[project] seed`).
    pub fn seed(&self) -> u64 {
        self.config.project.seed
    }

    /// The language coders write.
    pub fn language(&self) -> Language {
        self.config.language()
    }

    /// The kind of the tests testers write.
    pub fn test_kind(&self) -> TestKind {
        self.config.test_kind()
    }

    /// A test file as this run reads it: a run recorded before journal 1.8 runs its Python
    /// tests without the interface's names bound, as it did then.
    pub fn test(&self, path: &Path) -> Result<Test, BuildError> {
        let bound = self.journal.minor() >= NAMES_BOUND_SINCE_MINOR;
        self.toolchains
            .test(path)
            .map(|t| t.with_names_bound(bound))
    }

    /// Journals an event and shows it to the observer.
    pub fn emit(&self, lane: &str, event: Event) -> Result<(), Halt> {
        self.journal.emit(lane, event.clone())?;
        self.summary
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add(lane, &event);
        self.observer.event(lane, &event);
        Ok(())
    }

    /// One agent turn: budget check, the call, transcript and workspace updates, cost, journal.
    pub async fn ask(
        &self,
        agent: &mut Agent,
        purpose: &str,
        prompt: &str,
        default_file: &str,
        exts: &[&str],
    ) -> Result<Turn, Halt> {
        self.turn(agent, purpose, prompt, default_file, exts, true)
            .await
    }

    /// [`Ctx::ask`] whose reply's files are returned but not written to the workspace.
    pub async fn ask_detached(
        &self,
        agent: &mut Agent,
        purpose: &str,
        prompt: &str,
        default_file: &str,
        exts: &[&str],
    ) -> Result<Turn, Halt> {
        self.turn(agent, purpose, prompt, default_file, exts, false)
            .await
    }

    /// [`Ctx::ask`] for a reply that is not code (a review): nothing is extracted.
    pub async fn ask_text(
        &self,
        agent: &mut Agent,
        purpose: &str,
        prompt: &str,
    ) -> Result<Turn, Halt> {
        self.turn(agent, purpose, prompt, "", &[], false).await
    }

    async fn turn(
        &self,
        agent: &mut Agent,
        purpose: &str,
        prompt: &str,
        default_file: &str,
        exts: &[&str],
        apply: bool,
    ) -> Result<Turn, Halt> {
        let replay = matches!(self.mode, RunMode::Replay { .. });
        if !replay && self.halted.load(Ordering::SeqCst) {
            return Err(Halt::Stopped);
        }
        if !replay && self.interrupt.is_raised() {
            return Err(Halt::Interrupted);
        }
        let call = agent.calls;
        if let Err(cap) = self.budget.check(&agent.name, call) {
            self.halted.store(true, Ordering::SeqCst);
            self.emit(
                &agent.name,
                Event::Refused {
                    call,
                    cap: cap.clone(),
                },
            )?;
            return Err(Halt::Budget {
                agent: agent.name.clone(),
                cap,
            });
        }
        let name = agent.name.clone();
        let in_flight = CallInFlight::new(self.observer.as_ref(), &name, purpose);
        let asking = async {
            if apply {
                agent.ask(prompt, default_file, exts).await
            } else {
                agent.ask_detached(prompt, default_file, exts).await
            }
        };
        // An interrupt abandons the call in flight: nothing of it is journaled, and a resume asks
        // again. A reply that is already there is kept.
        let asked = tokio::select! {
            biased;
            asked = asking => Some(asked),
            () = self.interrupt.raised() => None,
        };
        drop(in_flight);
        let Some(asked) = asked else {
            return Err(Halt::Interrupted);
        };
        let turn = match asked {
            Ok(t) => t,
            Err(AskError::Backend(BackendError::EndOfRecording { .. }))
                if matches!(self.mode, RunMode::Replay { may_end: true, .. }) =>
            {
                return Err(match self.mode {
                    RunMode::Replay {
                        interrupted: true, ..
                    } => Halt::Interrupted,
                    _ => Halt::Stopped,
                });
            }
            Err(AskError::Backend(
                e @ (BackendError::Diverged { .. } | BackendError::EndOfRecording { .. }),
            )) => {
                return Err(Halt::Fatal(ProtocolError::Journal(
                    JournalError::Diverged {
                        lane: agent.name.clone(),
                        index: call,
                        detail: e.to_string(),
                    },
                )))
            }
            // A failure that comes with an interrupt may be its doing (a signal that reached the
            // agent's process too): abandoned like a call in flight, not journaled.
            Err(AskError::Backend(BackendError::Failed { .. }))
                if !replay && self.interrupt.is_raised() =>
            {
                return Err(Halt::Interrupted);
            }
            Err(AskError::Backend(BackendError::Failed { message, .. })) => {
                self.halted.store(true, Ordering::SeqCst);
                self.emit(
                    &agent.name,
                    Event::Failed {
                        call,
                        message: message.clone(),
                    },
                )?;
                return Err(Halt::Backend {
                    agent: agent.name.clone(),
                    message,
                });
            }
            Err(AskError::State(e)) => return Err(e.into()),
        };
        let cost = turn
            .cost_usd
            .unwrap_or_else(|| self.budget.price(&turn.model, turn.usage));
        self.budget.record(&agent.name, turn.usage, cost);
        self.emit(
            &agent.name,
            Event::Reply {
                call,
                purpose: purpose.into(),
                prompt: turn.prompt.clone(),
                text: turn.text.clone(),
                files: turn.files.clone(),
                usage: turn.usage,
                cost_usd: cost,
                model: turn.model.clone(),
                violations: turn.violations.clone(),
                truncated: turn.truncated,
            },
        )?;
        Ok(turn)
    }

    /// `agent.save()`, journaled.
    pub fn save(&self, agent: &mut Agent) -> Result<Checkpoint, Halt> {
        let cp = agent.state.save()?;
        self.emit(&agent.name, Event::Checkpoint { id: cp.0 })?;
        Ok(cp)
    }

    /// `agent.rollback(cp)`, journaled with the reason.
    pub fn rollback(&self, agent: &mut Agent, cp: Checkpoint, why: &str) -> Result<(), Halt> {
        agent.state.rollback(cp)?;
        self.emit(
            &agent.name,
            Event::Rollback {
                to: cp.0,
                why: why.into(),
            },
        )
    }

    /// Thanks the agent (a message sent along with its next request).
    pub fn thank(&self, agent: &mut Agent, template: &str) -> Result<(), Halt> {
        let text = self.prompts.render(template, &[])?;
        agent.tell(&text)?;
        self.emit(&agent.name, Event::Thanks)
    }

    /// Runs CPU-bound sandbox work off the async runtime (on the blocking pool, which hands it
    /// to rayon).
    pub async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Toolchains) -> T + Send + 'static,
    ) -> T {
        let tc = self.toolchains.clone();
        tokio::task::spawn_blocking(move || f(&tc))
            .await
            .expect("sandbox work panicked")
    }
}
