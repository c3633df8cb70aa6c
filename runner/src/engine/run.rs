//! Starting, resuming and replaying a run of any protocol.
//!
//! A run lives in `runs/<id>/`: `journal.jsonl`, `agents/`, `checkpoints/`, `tests/`, `suite/`,
//! `implementations/`, `summary.json`. [`start`] begins one, [`resume`] continues one from its
//! journal (recorded replies are reused, not asked again), [`replay`] re-executes one offline and
//! checks every decision against the recording. All three build a [`Ctx`] (in the matching
//! [`RunMode`]) and hand it to [`execute`], which creates the agents, runs the [`Protocol`] it
//! was given (a new run's from the caller, a recorded run's by the name its journal records)
//! and the hidden tests, and returns a [`FinishedRun`]: the caller writes the run's outputs
//! (`implementations/`, `suite/`, `summary.json`) and its reports (the page, JUnit) from it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::agents::{Agent, AgentDir, AgentError, Backend, ReplayBackend, Script, ScriptBackend};
use crate::budget::Budget;
use crate::config::{AgentSpec, Config, Project, ProtocolName, Role};
use crate::journal::{
    Choice, Event, ExitClass, Journal, JournalFile, ProjectSnapshot, StopReason, RUN_LANE,
};
use crate::outcome::FinishedRun;
use crate::toolchain::{LoadedInterface, StatedInterface, Toolchains};

use super::coder::Coder;
use super::ctx::{Ctx, CtxParts, Halt, Observer, ProtocolError, Quiet, RunMode};
use super::hidden::run_hidden;
use super::interrupt::Interrupt;
use super::prompts::Prompts;
use super::protocol::Protocol;

impl std::fmt::Debug for ReplayOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplayOutcome")
            .field("run_id", &self.run_id)
            .field("protocol", &self.protocol.name())
            .field("events", &self.events)
            .field("stop", &self.stop)
            .finish_non_exhaustive()
    }
}

/// The agents of a run, by role, as the protocol receives them (and hands them back).
#[derive(Default)]
pub struct Team {
    /// The coders.
    pub coders: Vec<Coder>,
    /// The testers.
    pub testers: Vec<Agent>,
    /// The reviewers.
    pub reviewers: Vec<Agent>,
}

/// Project files a protocol may need besides the spec, as paths this process can read (in a
/// replay, copies written from the journal).
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// Tests no agent ever sees.
    pub hidden: Vec<PathBuf>,
    /// The acceptance suite, if the protocol has one: shown to coders, never changed by them.
    pub acceptance: Vec<PathBuf>,
}

/// Makes the live backend of an agent from its spec, the project folder, the run's seed and
/// protocol name.
pub type BackendFactory =
    dyn Fn(&AgentSpec, &Path, u64, &str) -> Result<Arc<dyn Backend>, AgentError> + Send + Sync;

/// The backends of this build: `script` (its file may name `{protocol}`, so one project can
/// script each protocol), and the live ones of [`crate::agents::live_backend`].
pub fn default_backend(
    spec: &AgentSpec,
    project_dir: &Path,
    seed: u64,
    protocol: &str,
) -> Result<Arc<dyn Backend>, AgentError> {
    match spec.settings.backend.as_deref() {
        Some("script") => {
            let file = spec
                .settings
                .script
                .clone()
                .unwrap_or_default()
                .display()
                .to_string()
                .replace("{protocol}", protocol);
            let path = project_dir.join(file);
            Ok(Arc::new(ScriptBackend::new(Script::load(&path)?)))
        }
        other => crate::agents::live_backend(spec, other, project_dir, seed),
    }
}

/// A new run id: the UTC time and a random suffix (ids are names, never inputs to decisions).
pub fn new_run_id() -> String {
    let (year, month, day, s) = crate::calendar::civil(std::time::SystemTime::now());
    let suffix: u16 = rand::random();
    format!(
        "{year:04}{month:02}{day:02}-{:02}{:02}{:02}-{suffix:04x}",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// Starts a new run of `project` with `protocol` (the caller's choice, usually the one its
/// config names) in `runs_dir/<id>/`. Raising `interrupt` stops it at its next agent call
/// (resumably). A run that fails before its first agent call leaves no folder behind.
pub async fn start(
    project: &Project,
    protocol: &'static dyn Protocol,
    toolchains: Arc<Toolchains>,
    runs_dir: &Path,
    backends: &BackendFactory,
    observer: Arc<dyn Observer>,
    interrupt: Interrupt,
) -> Result<FinishedRun, ProtocolError> {
    let config = &project.config;
    let agents = config.agent_specs(&protocol.team(config)?)?;
    let stated = config.stated_interface(&project.dir, &project.spec);
    let prompts = Prompts::load(&project.dir, config, protocol, &agents)?
        .with_interface(&python_names(&stated));
    // Absolute: command agents run in their workspaces, and paths handed to them must hold there.
    let runs_dir = std::path::absolute(runs_dir).map_err(|source| ProtocolError::Read {
        path: runs_dir.to_path_buf(),
        source,
    })?;
    let acceptance = match protocol.acceptance(config)? {
        Some(dir) => project.files_in(&dir),
        None => Vec::new(),
    };
    let interface = Arc::new(toolchains.interface(&stated)?);
    let snapshot = ProjectSnapshot {
        config: project.config_text.clone(),
        spec: project.spec.clone(),
        prompts: prompts.templates().clone(),
        hidden: read_files(&project.hidden)?,
        acceptance: read_files(&acceptance)?,
        interface: interface.header_files().into_iter().collect(),
        dir: std::path::absolute(&project.dir).ok(),
    };
    let runtimes = runtime_digests(config, &toolchains);
    // The backends before the run's folder: one that cannot be made (a key not set, a command
    // not given) is reported with nothing created.
    let mut live = BTreeMap::new();
    for spec in &agents {
        live.insert(
            spec.name.clone(),
            backends(spec, &project.dir, config.project.seed, protocol.name()).map_err(|e| {
                ProtocolError::Backend {
                    agent: spec.name.clone(),
                    message: e.to_string(),
                }
            })?,
        );
    }
    let runs_existed = runs_dir.exists();
    let (run_id, run_dir) = new_run_dir(&runs_dir)?;
    let outcome = async {
        let journal = Journal::create(
            &run_dir.join("journal.jsonl"),
            &run_id,
            ProtocolName::new(protocol.name()),
            snapshot,
            runtimes,
        )?;
        let budget = Budget::new(config.budget.clone(), config.prices.clone());
        let ctx = Ctx::new(CtxParts {
            mode: RunMode::Live,
            protocol,
            config: config.clone(),
            agents,
            spec: project.spec.clone(),
            prompts,
            toolchains,
            interface,
            journal,
            budget,
            observer,
            run_dir: run_dir.clone(),
            interrupt,
            answers: Vec::new(),
        });
        let inputs = Inputs {
            hidden: project.hidden.clone(),
            acceptance,
        };
        execute(&ctx, &run_id, live, &inputs).await
    }
    .await;
    if outcome.is_err() {
        discard_unstarted(&run_dir, &runs_dir, runs_existed);
    }
    outcome
}

/// A new run's id and its folder under `runs_dir`, made here (so it is this run's alone).
fn new_run_dir(runs_dir: &Path) -> Result<(String, PathBuf), ProtocolError> {
    let write = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ProtocolError::Write { path, source }
    };
    std::fs::create_dir_all(runs_dir).map_err(write(runs_dir))?;
    loop {
        let id = new_run_id();
        let dir = runs_dir.join(&id);
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok((id, dir)),
            // Another run took this id in the same second.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(write(&dir)(e)),
        }
    }
}

/// Removes the folder of a new run that failed before its first agent call (a backend that
/// failed at its first use, a setting only the protocol checks, a file it could not write):
/// nothing in it is worth resuming, and a half-made run would only mislead. A run whose journal
/// records a call (or cannot be read) is kept. `runs_dir` goes too if this run created it and
/// it is empty.
fn discard_unstarted(run_dir: &Path, runs_dir: &Path, runs_existed: bool) {
    let path = run_dir.join("journal.jsonl");
    let unstarted = match JournalFile::read(&path) {
        Ok(j) => !j.records.iter().any(|r| {
            matches!(
                r.event,
                Event::Reply { .. }
                    | Event::Refused { .. }
                    | Event::Failed { .. }
                    | Event::Stop { .. }
            )
        }),
        // No journal, or not one complete line of it (the header could not be written).
        Err(_) => !std::fs::read(&path).is_ok_and(|b| b.contains(&b'\n')),
    };
    if !unstarted {
        return;
    }
    if let Err(e) = std::fs::remove_dir_all(run_dir) {
        tracing::warn!("{}: {e}", run_dir.display());
        return;
    }
    if !runs_existed {
        let _ = std::fs::remove_dir(runs_dir);
    }
}

/// Continues a stopped or crashed run from its journal: recorded replies are reused, the
/// sandbox re-derives every decision (checked against the journal), and the run goes on live
/// from where it ended. `project` supplies the current config (e.g. a raised budget cap); the
/// protocol is the one of `protocols` the journal names.
pub async fn resume(
    project: &Project,
    run_dir: &Path,
    protocols: &[&'static dyn Protocol],
    toolchains: Arc<Toolchains>,
    backends: &BackendFactory,
    observer: Arc<dyn Observer>,
    interrupt: Interrupt,
) -> Result<FinishedRun, ProtocolError> {
    let run_dir = &std::path::absolute(run_dir).map_err(|source| ProtocolError::Read {
        path: run_dir.to_path_buf(),
        source,
    })?;
    let mut recorded = JournalFile::read(&run_dir.join("journal.jsonl"))?;
    let config = raised(
        project.config.with_protocol(recorded.protocol.clone()),
        &recorded,
    )?;
    let (protocol, specs, prompts) = recorded_setup(protocols, &recorded, &config)?;
    recorded.upgrade(&|o| protocol.upgrade(o));
    if let Some((stop, round)) = recorded.stop() {
        if !stop.resumable() && !recorded.decision_pending() {
            return Err(ProtocolError::Ended {
                run_id: recorded.run_id.clone(),
                round,
                stop: crate::outcome::describe_stop(protocol, &stop),
            });
        }
    }
    let recording = Arc::new(recorded.recording());
    let mut agents = BTreeMap::new();
    for spec in &specs {
        let live =
            backends(spec, &project.dir, config.project.seed, protocol.name()).map_err(|e| {
                ProtocolError::Backend {
                    agent: spec.name.clone(),
                    message: e.to_string(),
                }
            })?;
        agents.insert(
            spec.name.clone(),
            Arc::new(ReplayBackend::new(recording.clone(), Some(live))) as Arc<dyn Backend>,
        );
    }
    let inputs = recorded_inputs(&recorded, &run_dir.join("inputs"))?;
    let interface = recorded_interface(&config, &recorded, &run_dir.join("inputs"), &toolchains)?;
    let journal = Journal::resume(&recorded)?;
    let budget = Budget::new(config.budget.clone(), config.prices.clone());
    let ctx = Ctx::new(CtxParts {
        mode: RunMode::Resume,
        protocol,
        config,
        agents: specs,
        spec: recorded.project.spec.clone(),
        prompts,
        toolchains,
        interface,
        journal,
        budget,
        observer,
        run_dir: run_dir.to_path_buf(),
        answers: recorded.answers(),
        interrupt,
    });
    execute(&ctx, &recorded.run_id, agents, &inputs).await
}

/// What a replay found.
pub struct ReplayOutcome {
    /// The run's id.
    pub run_id: String,
    /// The protocol it ran.
    pub protocol: &'static dyn Protocol,
    /// The recording's events that describe the run (superseded stops and refusals left out).
    pub events: usize,
    /// Why the run stopped.
    pub stop: StopReason,
    /// The round (or epoch) it stopped in.
    pub round: u32,
    /// Whether fuel was compared too: only when the guest runtimes are byte-identical to the
    /// recording's (see [`runtime_digests`]); verdicts and decisions always are.
    pub fuel_compared: bool,
}

/// Re-executes a recorded run offline in `work_dir` (agents answer from the journal, the
/// sandbox re-runs everything) and checks that every event equals the recorded one. A
/// divergence is an error naming the first differing event.
pub async fn replay(
    run_dir: &Path,
    protocols: &[&'static dyn Protocol],
    toolchains: Arc<Toolchains>,
    work_dir: &Path,
) -> Result<ReplayOutcome, ProtocolError> {
    // A decision no run has met yet (a person decided, nobody resumed): the replay reproduces
    // the run as it stopped.
    let mut recorded =
        JournalFile::read(&run_dir.join("journal.jsonl"))?.without_pending_decision();
    let config = Config::parse(
        &recorded.project.config,
        &run_dir.join("journal.jsonl (recorded dixit.toml)"),
    )?
    .with_protocol(recorded.protocol.clone());
    let config = raised(config, &recorded)?;
    let (protocol, specs, prompts) = recorded_setup(protocols, &recorded, &config)?;
    recorded.upgrade(&|o| protocol.upgrade(o));
    let inputs = recorded_inputs(&recorded, &work_dir.join("inputs"))?;
    let interface = recorded_interface(&config, &recorded, &work_dir.join("inputs"), &toolchains)?;
    let recording = Arc::new(recorded.recording());
    let agents = specs
        .iter()
        .map(|s| {
            (
                s.name.clone(),
                Arc::new(ReplayBackend::new(recording.clone(), None)) as Arc<dyn Backend>,
            )
        })
        .collect();
    let may_end = matches!(
        recorded.stop(),
        Some((
            StopReason::Budget { .. } | StopReason::Error { .. } | StopReason::Interrupted,
            _
        ))
    );
    let interrupted = matches!(recorded.stop(), Some((StopReason::Interrupted, _)));
    let fuel_compared = runtime_digests(&config, &toolchains) == recorded.runtimes;
    let ctx = Ctx::new(CtxParts {
        mode: RunMode::Replay {
            may_end,
            interrupted,
        },
        protocol,
        config,
        agents: specs,
        spec: recorded.project.spec.clone(),
        prompts,
        toolchains,
        interface,
        journal: Journal::verify(&recorded, !fuel_compared),
        budget: Budget::replaying(recorded.refusals()),
        observer: Arc::new(Quiet),
        run_dir: work_dir.to_path_buf(),
        answers: recorded.answers(),
        interrupt: Interrupt::new(),
    });
    let out = execute(&ctx, &recorded.run_id, agents, &inputs).await?;
    ctx.journal.finish()?;
    Ok(ReplayOutcome {
        run_id: recorded.run_id.clone(),
        protocol: ctx.protocol,
        events: recorded.effective().len(),
        stop: out.stop,
        round: out.round,
        fuel_compared,
    })
}

/// The protocol of `protocols` a recorded run names, its agents under `config`, and the
/// prompts the journal recorded.
fn recorded_setup(
    protocols: &[&'static dyn Protocol],
    recorded: &JournalFile,
    config: &Config,
) -> Result<(&'static dyn Protocol, Vec<AgentSpec>, Prompts), ProtocolError> {
    let protocol = protocols
        .iter()
        .copied()
        .find(|p| p.name() == recorded.protocol.as_str())
        .ok_or_else(|| ProtocolError::UnknownProtocol {
            run_id: recorded.run_id.clone(),
            protocol: recorded.protocol.to_string(),
        })?;
    let specs = config.agent_specs(&protocol.team(config)?)?;
    let stated = config.stated_interface(Path::new(""), &recorded.project.spec);
    let prompts = Prompts::from_templates(
        recorded.project.prompts.clone(),
        config,
        protocol.name(),
        &specs,
    )?
    .with_interface(&python_names(&stated));
    Ok((protocol, specs, prompts))
}

/// The names a Python test imports from `solution`: the functions and classes of the stated
/// interface (none for another language).
fn python_names(stated: &StatedInterface) -> Vec<String> {
    match stated {
        StatedInterface::Names(entries) => crate::sandbox::boundary::Interface::parse(entries)
            .map(|i| i.names().map(str::to_string).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Digests of the guest runtimes a project's runs use (the Python runtime, for Python projects).
/// componentize-py's pre-initialisation is not byte-reproducible (two builds of the same sources,
/// even on one machine, differ in bytes and, on some runs, in fuel), so a journal records the
/// digest of the build that ran and a replay compares fuel only on a match.
pub fn runtime_digests(config: &Config, toolchains: &Toolchains) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if config.language() == crate::toolchain::Language::Python {
        if let Some(d) = toolchains
            .python_runtime()
            .ok()
            .and_then(|p| p.wasm_digest.clone())
        {
            out.insert("python".to_string(), d.to_string());
        }
    }
    out
}

fn read_files(files: &[PathBuf]) -> Result<BTreeMap<String, String>, ProtocolError> {
    files
        .iter()
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            std::fs::read_to_string(p)
                .map(|t| (name, t))
                .map_err(|source| ProtocolError::Read {
                    path: p.clone(),
                    source,
                })
        })
        .collect()
}

/// The hidden and acceptance tests of a recorded run, written from its journal under `dir`.
fn recorded_inputs(recorded: &JournalFile, dir: &Path) -> Result<Inputs, ProtocolError> {
    let write = |sub: &str, files: &BTreeMap<String, String>| {
        let d = dir.join(sub);
        std::fs::create_dir_all(&d).map_err(|source| ProtocolError::Write {
            path: d.to_path_buf(),
            source,
        })?;
        files
            .iter()
            .map(|(name, text)| {
                let p = d.join(name);
                std::fs::write(&p, text)
                    .map(|()| p.clone())
                    .map_err(|source| ProtocolError::Write {
                        path: p.to_path_buf(),
                        source,
                    })
            })
            .collect::<Result<Vec<PathBuf>, ProtocolError>>()
    };
    Ok(Inputs {
        hidden: write("hidden", &recorded.project.hidden)?,
        acceptance: write("acceptance", &recorded.project.acceptance)?,
    })
}

/// The interface of a recorded run: Rust items from its config, C/C++ headers from its journal
/// (written under `dir/interface/`), so a resume or replay needs nothing of the project's files.
fn recorded_interface(
    config: &Config,
    recorded: &JournalFile,
    dir: &Path,
    toolchains: &Toolchains,
) -> Result<Arc<LoadedInterface>, ProtocolError> {
    let d = dir.join("interface");
    let stated = match config.stated_interface(&d, &recorded.project.spec) {
        StatedInterface::Headers(paths) => {
            std::fs::create_dir_all(&d).map_err(|source| ProtocolError::Write {
                path: d.to_path_buf(),
                source,
            })?;
            let mut written = Vec::new();
            for p in paths {
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let text = recorded
                    .project
                    .interface
                    .get(&name)
                    .ok_or_else(|| ProtocolError::NoRecordedHeader(name.clone()))?;
                let at = d.join(&name);
                std::fs::write(&at, text).map_err(|source| ProtocolError::Write {
                    path: at.to_path_buf(),
                    source,
                })?;
                written.push(at);
            }
            StatedInterface::Headers(written)
        }
        other => other,
    };
    toolchains
        .interface(&stated)
        .map(Arc::new)
        .map_err(ProtocolError::from)
}

/// Creates the agents, runs the protocol to its stop; then the hidden tests, the stop event and
/// the run's outputs.
async fn execute(
    ctx: &Ctx,
    run_id: &str,
    mut backends: BTreeMap<String, Arc<dyn Backend>>,
    inputs: &Inputs,
) -> Result<FinishedRun, ProtocolError> {
    let mut team = Team::default();
    for spec in &ctx.agents {
        let system = ctx
            .prompts
            .system(spec.role, spec.settings.prompt_variant.as_deref())?;
        let state = AgentDir::create(
            ctx.run_dir.join("agents").join(&spec.name),
            ctx.run_dir.join("checkpoints").join(&spec.name),
            &system,
        )?;
        let backend = backends
            .remove(&spec.name)
            .ok_or_else(|| ProtocolError::Backend {
                agent: spec.name.clone(),
                message: format!("no backend for {}", spec.name),
            })?;
        let agent = Agent {
            name: spec.name.clone(),
            role: spec.role,
            settings: spec.settings.clone(),
            state,
            backend,
            calls: 0,
        };
        match spec.role {
            Role::Coder => team.coders.push(Coder::new(agent)),
            Role::Tester => team.testers.push(agent),
            Role::Reviewer => team.reviewers.push(agent),
        }
    }
    let names = |agents: &[&Agent]| agents.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
    let emit = |lane: &str, e: Event| ctx.emit(lane, e).map_err(halt_to_error);
    emit(
        RUN_LANE,
        Event::Started {
            coders: names(&team.coders.iter().map(|c| &c.agent).collect::<Vec<_>>()),
            testers: names(&team.testers.iter().collect::<Vec<_>>()),
            reviewers: names(&team.reviewers.iter().collect::<Vec<_>>()),
            seed: ctx.seed(),
        },
    )?;
    // An interrupt that comes after the protocol decided still stops the run before its hidden
    // tests (a resume decides again); a replay stops where its recording did.
    let interrupted = || match ctx.mode {
        RunMode::Replay { interrupted, .. } => interrupted,
        _ => ctx.interrupt.is_raised(),
    };
    let (mut stop, round) = match ctx.protocol.run(ctx, &mut team, inputs).await {
        Ok(s) if interrupted() => (StopReason::Interrupted, s.round),
        Ok(s) => (s.reason, s.round),
        Err(Halt::Fatal(e)) => return Err(e),
        Err(h) => (halt_reason(h), current_round(ctx)),
    };
    if stop == StopReason::Interrupted && ctx.journal.nothing_resumed() {
        return undo_resume(ctx, run_id);
    }
    for c in &mut team.coders {
        // A final implementation is what the coder wrote, whatever another process did since.
        let restored = c.agent.state.verify_workspace()?;
        if !restored.is_empty() {
            let what = restored.join(", ");
            tracing::warn!(
                "{}: workspace changed from outside; restored {what}",
                c.agent.name
            );
        }
    }
    let implementations: Vec<(String, PathBuf)> = team
        .coders
        .iter()
        .map(|c| (c.agent.name.clone(), c.agent.state.workspace()))
        .collect();
    // The implementation the run ships, by evidence, before its final stop (a run that was
    // interrupted or failed, or waits for a person, has not ended: it ships when it does; a
    // person who accepts takes the implementations as they are).
    let ends_here = match &stop {
        StopReason::Interrupted | StopReason::Error { .. } => false,
        StopReason::Accepted { by } => crate::config::PolicyName::is_decider(by),
        other => crate::outcome::exit_class(ctx.protocol, other) != ExitClass::HumanNeeded,
    };
    if ends_here {
        super::ship::ship(ctx, &implementations)
            .await
            .map_err(halt_to_error)?;
    }
    if stop.is_decision() && !inputs.hidden.is_empty() {
        let coders: Vec<&Coder> = team.coders.iter().collect();
        run_hidden(ctx, &coders, &inputs.hidden)
            .await
            .map_err(halt_to_error)?;
    }
    emit(
        RUN_LANE,
        Event::Stop {
            reason: stop.clone(),
            round,
        },
    )?;
    // A stop the protocol does not ask a person about may still be accepted by one, or by the
    // run's policy (a cap, a protocol's final stop; never an interrupt or a failure, which are
    // resumable as they are).
    let answerable = stop.is_decision()
        || matches!(
            stop,
            StopReason::RoundCap { .. } | StopReason::Budget { .. }
        );
    if answerable {
        if let Some(answer) = super::person::answer_at(ctx, &stop).map_err(halt_to_error)? {
            if answer.choice == Choice::Accept {
                answer.journal(ctx).map_err(halt_to_error)?;
                stop = StopReason::Accepted { by: answer.by };
                emit(
                    RUN_LANE,
                    Event::Stop {
                        reason: stop.clone(),
                        round,
                    },
                )?;
            }
        }
    }
    let mut summary = ctx
        .summary
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    summary.run_id = run_id.to_string();
    let recorded = if matches!(ctx.mode, RunMode::Replay { .. }) {
        None
    } else {
        Some(JournalFile::read(&ctx.run_dir.join("journal.jsonl"))?)
    };
    if let (Some(j), RunMode::Resume, StopReason::Interrupted) = (&recorded, ctx.mode, &stop) {
        // Interrupted while some lanes were still re-executed: the journal holds more than this
        // process re-derived.
        summary = ctx.protocol.summary_of(j);
    }
    // An interrupted run is left as soon as it can be: it has no final implementations to
    // compare yet.
    if let (Some(j), false) = (&recorded, stop == StopReason::Interrupted) {
        summary.disagreements = disagreements(ctx, j, &implementations).await;
    }
    Ok(FinishedRun {
        run_id: run_id.to_string(),
        run_dir: ctx.run_dir.clone(),
        protocol: ctx.protocol,
        stop,
        round,
        summary,
        journal: recorded,
        implementations,
        test_kind: ctx.test_kind(),
        resume_undone: false,
    })
}

/// A resume interrupted before it went past its recording: the journal goes back to what it
/// was (its `Resumed` marker removed), and nothing else is written.
fn undo_resume(ctx: &Ctx, run_id: &str) -> Result<FinishedRun, ProtocolError> {
    ctx.journal.undo_resume()?;
    let journal = JournalFile::read(&ctx.run_dir.join("journal.jsonl"))?;
    let summary = ctx.protocol.summary_of(&journal);
    let round = journal.stop().map_or(summary.rounds, |(_, round)| round);
    Ok(FinishedRun {
        run_id: run_id.to_string(),
        run_dir: ctx.run_dir.clone(),
        protocol: ctx.protocol,
        stop: StopReason::Interrupted,
        round,
        summary,
        journal: Some(journal),
        implementations: Vec::new(),
        test_kind: ctx.test_kind(),
        resume_undone: true,
    })
}

/// Where the final implementations disagree on the calls the run's tests made (Python unit
/// tests only; see `consensus`). Runs after the protocol stopped; never shown to an agent.
async fn disagreements(
    ctx: &Ctx,
    journal: &JournalFile,
    implementations: &[(String, PathBuf)],
) -> Option<crate::consensus::Disagreements> {
    if ctx.language() != crate::toolchain::Language::Python
        || ctx.test_kind() != crate::toolchain::TestKind::Python
    {
        return None;
    }
    let protocol = ctx.protocol;
    let tests = crate::consensus::tests_of_journal(journal, &|e| protocol.named_tests(e));
    let impls: Vec<(String, PathBuf)> = implementations
        .iter()
        .filter(|(_, dir)| crate::consensus::has_python(dir))
        .cloned()
        .collect();
    let (seed, limits, interface) = (ctx.seed(), ctx.limits(), ctx.interface.clone());
    Some(
        ctx.blocking(move |tc| {
            crate::consensus::find(tc, &tests, &impls, &interface, seed, &limits)
        })
        .await,
    )
}

fn halt_to_error(h: Halt) -> ProtocolError {
    match h {
        Halt::Fatal(e) => e,
        other => ProtocolError::Unexpected(format!("{other:?}")),
    }
}

/// The stop a halt means (`Stopped` only happens together with a real cause, which wins).
fn halt_reason(h: Halt) -> StopReason {
    match h {
        Halt::Accepted { by } => StopReason::Accepted { by },
        Halt::Budget { agent, cap } => StopReason::Budget { agent, cap },
        Halt::Backend { agent, message } => StopReason::Error { agent, message },
        Halt::Interrupted => StopReason::Interrupted,
        Halt::Stopped | Halt::Fatal(_) => StopReason::Error {
            agent: String::new(),
            message: "stopped".into(),
        },
    }
}

/// `config` with the limits a person raised at the run's stops (`dixit decide … raise`).
fn raised(config: Config, recorded: &JournalFile) -> Result<Config, ProtocolError> {
    recorded
        .raised()
        .into_iter()
        .try_fold(config, |c, (key, value)| Ok(c.with_raised(key, value)?))
}

fn current_round(ctx: &Ctx) -> u32 {
    ctx.round.load(std::sync::atomic::Ordering::SeqCst)
}
