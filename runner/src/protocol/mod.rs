//! The protocol `dixit`: coders implement the spec, testers propose tests one at a time, and a
//! test joins the suite only if it is IDEAL. The orchestrator is plain code; `dixit.rs` reads
//! side by side with the seed's pseudocode.
//!
//! - `dixit.rs`: `main`, `ensure_passes`, `propose_test`, `attempt_revival`.
//! - `roles.rs`: coders, testers, the suite, `judge` and `classify`.
//! - `context.rs`: the journaled primitives (`ask`, `save`, `rollback`, `thank`) and halts.
//! - `prompts.rs`: the prompt templates and the forbidden-words guard.
//!
//! A run lives in `runs/<id>/`: `journal.jsonl`, `agents/`, `checkpoints/`, `suite/`,
//! `implementations/`, `summary.json`. [`start`] begins one, [`resume`] continues one from its
//! journal (recorded replies are reused, not asked again), [`replay`] re-executes one offline and
//! checks every decision against the recording.

mod context;
mod dixit;
pub mod prompts;
mod roles;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use context::{Ctx, Halt, Observer, ProtocolError, Quiet};
pub use prompts::{forbidden_words, Prompts};
pub use roles::solution_files;

use crate::agents::{Agent, AgentDir, Backend, ReplayBackend, Script, ScriptBackend};
use crate::budget::Budget;
use crate::classify::run_matrix;
use crate::config::{AgentSpec, Config, Project, Role};
use crate::journal::{
    CellRecord, Event, Journal, JournalFile, ProjectSnapshot, StopReason, RUN_LANE,
};
use crate::report::{write_outputs, Summary};
use crate::toolchain::{Solution, Test, Toolchains};
use roles::{Coder, Suite, Tester};

/// How a run ended.
#[derive(Debug)]
pub struct RunOutcome {
    pub run_id: String,
    pub run_dir: PathBuf,
    pub stop: StopReason,
    pub round: u32,
    pub summary: Summary,
}

/// Makes the live backend of an agent from its spec, the project folder and the run's seed.
pub type BackendFactory =
    dyn Fn(&AgentSpec, &Path, u64) -> Result<Arc<dyn Backend>, String> + Send + Sync;

/// The backends of this build: `script`, and the live ones of [`crate::agents::live_backend`].
pub fn default_backend(
    spec: &AgentSpec,
    project_dir: &Path,
    seed: u64,
) -> Result<Arc<dyn Backend>, String> {
    match spec.settings.backend.as_deref() {
        Some("script") => {
            let path = project_dir.join(spec.settings.script.clone().unwrap_or_default());
            Ok(Arc::new(ScriptBackend::new(Script::load(&path)?)))
        }
        other => crate::agents::live_backend(spec, other, project_dir, seed),
    }
}

/// A new run id: the UTC time and a random suffix (ids are names, never inputs to decisions).
pub fn new_run_id() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (d, s) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = d as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let suffix: u16 = rand::random();
    format!(
        "{year:04}{month:02}{day:02}-{:02}{:02}{:02}-{suffix:04x}",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// Starts a new run of `project` in `runs_dir/<id>/`.
pub async fn start(
    project: &Project,
    toolchains: Arc<Toolchains>,
    runs_dir: &Path,
    backends: &BackendFactory,
    observer: Arc<dyn Observer>,
) -> Result<RunOutcome, ProtocolError> {
    let prompts = Prompts::load(&project.dir, &project.config)?;
    let run_id = new_run_id();
    // Absolute: command agents run in their workspaces, and paths handed to them must hold there.
    let runs_dir = std::path::absolute(runs_dir)
        .map_err(|e| ProtocolError::Setup(format!("{}: {e}", runs_dir.display())))?;
    let run_dir = runs_dir.join(&run_id);
    let snapshot = ProjectSnapshot {
        config: project.config_text.clone(),
        spec: project.spec.clone(),
        prompts: prompts.templates().clone(),
        hidden: read_hidden(&project.hidden)?,
    };
    let runtimes = runtime_digests(&project.config, &toolchains);
    let journal = Journal::create(&run_dir.join("journal.jsonl"), &run_id, snapshot, runtimes)?;
    let budget = Budget::new(project.config.budget.clone(), project.config.prices.clone());
    let mut live = BTreeMap::new();
    for spec in project.config.agent_specs() {
        live.insert(
            spec.name.clone(),
            backends(&spec, &project.dir, project.config.project.seed)
                .map_err(ProtocolError::Setup)?,
        );
    }
    let ctx = Ctx::new(
        project.config.clone(),
        project.spec.clone(),
        prompts,
        toolchains,
        journal,
        budget,
        observer,
        run_dir.clone(),
        false,
    );
    execute(&ctx, &run_id, live, &project.hidden).await
}

/// Continues a stopped or crashed run from its journal: recorded replies are reused, the
/// sandbox re-derives every decision (checked against the journal), and the run goes on live
/// from where it ended. `project` supplies the current config (e.g. a raised budget cap).
pub async fn resume(
    project: &Project,
    run_dir: &Path,
    toolchains: Arc<Toolchains>,
    backends: &BackendFactory,
    observer: Arc<dyn Observer>,
) -> Result<RunOutcome, ProtocolError> {
    let run_dir = &std::path::absolute(run_dir)
        .map_err(|e| ProtocolError::Setup(format!("{}: {e}", run_dir.display())))?;
    let recorded = JournalFile::read(&run_dir.join("journal.jsonl"))?;
    if let Some((stop, round)) = recorded.stop() {
        if !stop.resumable() {
            return Err(ProtocolError::Setup(format!(
                "run {} already ended in round {round} ({}); nothing to resume",
                recorded.run_id,
                crate::report::describe_stop(&stop)
            )));
        }
    }
    let prompts = Prompts::from_templates(recorded.project.prompts.clone(), &project.config)?;
    let recording = Arc::new(recorded.recording());
    let mut agents = BTreeMap::new();
    for spec in project.config.agent_specs() {
        let live = backends(&spec, &project.dir, project.config.project.seed)
            .map_err(ProtocolError::Setup)?;
        agents.insert(
            spec.name.clone(),
            Arc::new(ReplayBackend::new(recording.clone(), Some(live))) as Arc<dyn Backend>,
        );
    }
    let journal = Journal::resume(&recorded)?;
    let budget = Budget::new(project.config.budget.clone(), project.config.prices.clone());
    let ctx = Ctx::new(
        project.config.clone(),
        recorded.project.spec.clone(),
        prompts,
        toolchains,
        journal,
        budget,
        observer,
        run_dir.to_path_buf(),
        false,
    );
    execute(&ctx, &recorded.run_id, agents, &project.hidden).await
}

/// What a replay found.
#[derive(Debug)]
pub struct ReplayOutcome {
    pub run_id: String,
    pub events: usize,
    pub stop: StopReason,
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
    toolchains: Arc<Toolchains>,
    work_dir: &Path,
) -> Result<ReplayOutcome, ProtocolError> {
    let recorded = JournalFile::read(&run_dir.join("journal.jsonl"))?;
    let config = Config::parse(
        &recorded.project.config,
        &run_dir.join("journal.jsonl (recorded dixit.toml)"),
    )?;
    let prompts = Prompts::from_templates(recorded.project.prompts.clone(), &config)?;
    let hidden_dir = work_dir.join("hidden");
    std::fs::create_dir_all(&hidden_dir)
        .map_err(|e| ProtocolError::Setup(format!("{}: {e}", hidden_dir.display())))?;
    let mut hidden = Vec::new();
    for (name, text) in &recorded.project.hidden {
        let p = hidden_dir.join(name);
        std::fs::write(&p, text)
            .map_err(|e| ProtocolError::Setup(format!("{}: {e}", p.display())))?;
        hidden.push(p);
    }
    let recording = Arc::new(recorded.recording());
    let agents = config
        .agent_specs()
        .into_iter()
        .map(|s| {
            (
                s.name,
                Arc::new(ReplayBackend::new(recording.clone(), None)) as Arc<dyn Backend>,
            )
        })
        .collect();
    let may_end = matches!(
        recorded.stop(),
        Some((StopReason::Budget { .. } | StopReason::Error { .. }, _))
    );
    let fuel_compared = runtime_digests(&config, &toolchains) == recorded.runtimes;
    let ctx = Ctx::new(
        config,
        recorded.project.spec.clone(),
        prompts,
        toolchains,
        Journal::verify(&recorded, !fuel_compared),
        Budget::replaying(recorded.refusals()),
        Arc::new(Quiet),
        work_dir.to_path_buf(),
        may_end,
    );
    let out = execute(&ctx, &recorded.run_id, agents, &hidden).await?;
    ctx.journal.finish()?;
    Ok(ReplayOutcome {
        run_id: recorded.run_id.clone(),
        events: recorded.effective().len(),
        stop: out.stop,
        round: out.round,
        fuel_compared,
    })
}

/// Digests of the guest runtimes a project's runs use (the Python runtime, for Python projects).
/// componentize-py's pre-initialisation is not byte-reproducible across machines (file times
/// are baked in), so a journal records these and a replay compares fuel only on a match.
pub fn runtime_digests(config: &Config, toolchains: &Toolchains) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if config.language() == crate::toolchain::Language::Python
        && toolchains.python_runtime().is_ok()
    {
        if let Some(d) = crate::toolchain::python_runtime_digest(toolchains.sandbox()) {
            out.insert("python".to_string(), d);
        }
    }
    out
}

fn read_hidden(files: &[PathBuf]) -> Result<BTreeMap<String, String>, ProtocolError> {
    files
        .iter()
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            std::fs::read_to_string(p)
                .map(|t| (name, t))
                .map_err(|e| ProtocolError::Setup(format!("{}: {e}", p.display())))
        })
        .collect()
}

/// Creates the agents and runs the loop to its stop; then hidden tests, the stop event and the
/// run's outputs.
async fn execute(
    ctx: &Ctx,
    run_id: &str,
    mut backends: BTreeMap<String, Arc<dyn Backend>>,
    hidden: &[PathBuf],
) -> Result<RunOutcome, ProtocolError> {
    let mut coders = Vec::new();
    let mut testers = Vec::new();
    for spec in ctx.config.agent_specs() {
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
            .ok_or_else(|| ProtocolError::Setup(format!("no backend for {}", spec.name)))?;
        let agent = Agent {
            name: spec.name.clone(),
            role: spec.role,
            settings: spec.settings.clone(),
            state,
            backend,
            calls: 0,
        };
        match spec.role {
            Role::Coder => coders.push(Coder {
                agent,
                solution: Err("no code yet".into()),
                last_had_code: false,
                last_truncated: false,
            }),
            Role::Tester => testers.push(Tester {
                agent,
                before_test_1: None,
                before_test_2: None,
                too_hard_tests: None,
            }),
        }
    }
    let emit = |lane: &str, e: Event| ctx.emit(lane, e).map_err(halt_to_error);
    emit(
        RUN_LANE,
        Event::Started {
            coders: coders.iter().map(|c| c.agent.name.clone()).collect(),
            testers: testers.iter().map(|t| t.agent.name.clone()).collect(),
            seed: ctx.seed(),
        },
    )?;
    let mut suite = Suite::default();
    let result = dixit::main(ctx, &mut coders, &mut testers, &mut suite).await;
    let (stop, round) = match result {
        Ok(x) => x,
        Err(Halt::Fatal(e)) => return Err(e),
        Err(h) => (halt_reason(h, &coders, &testers), current_round(ctx)),
    };
    if matches!(
        stop,
        StopReason::Converged | StopReason::HumanNeeded { .. } | StopReason::RoundCap { .. }
    ) && !hidden.is_empty()
    {
        run_hidden(ctx, &coders, hidden)
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
    for c in &mut coders {
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
    let summary = write_outputs(
        ctx,
        run_id,
        &coders
            .iter()
            .map(|c| (c.agent.name.clone(), c.agent.state.workspace()))
            .collect::<Vec<_>>(),
    )
    .map_err(ProtocolError::Setup)?;
    Ok(RunOutcome {
        run_id: run_id.to_string(),
        run_dir: ctx.run_dir.clone(),
        stop,
        round,
        summary,
    })
}

fn halt_to_error(h: Halt) -> ProtocolError {
    match h {
        Halt::Fatal(e) => e,
        other => ProtocolError::Setup(format!("unexpected halt: {other:?}")),
    }
}

/// The stop a halt means (`Stopped` only happens together with a real cause, which wins).
fn halt_reason(h: Halt, _coders: &[Coder], _testers: &[Tester]) -> StopReason {
    match h {
        Halt::Budget { agent, cap } => StopReason::Budget { agent, cap },
        Halt::Backend { agent, message } => StopReason::Error { agent, message },
        Halt::Stopped | Halt::Fatal(_) => StopReason::Error {
            agent: String::new(),
            message: "stopped".into(),
        },
    }
}

fn current_round(ctx: &Ctx) -> u32 {
    ctx.round.load(std::sync::atomic::Ordering::SeqCst)
}

/// Hidden tests: never shown to any agent, run against every coder's final code.
async fn run_hidden(ctx: &Ctx, coders: &[Coder], hidden: &[PathBuf]) -> Result<(), Halt> {
    let tests: Vec<Arc<Test>> = hidden
        .iter()
        .filter_map(|p| ctx.toolchains.test(p).ok().map(Arc::new))
        .collect();
    for c in coders {
        let Ok(sol) = c.solution.clone() else {
            continue;
        };
        let (tests, reruns, seed, limits) = (tests.clone(), ctx.reruns(), ctx.seed(), ctx.limits());
        let cells = ctx
            .blocking(move |tc| {
                let refs: Vec<&Test> = tests.iter().map(|t| &**t).collect();
                let s: &Solution = &sol;
                run_matrix(tc, &[s], &refs, reruns, seed, &limits)
                    .into_iter()
                    .map(|mut r| r.remove(0))
                    .collect::<Vec<_>>()
            })
            .await;
        let passed = cells.iter().filter(|c| c.passed()).count();
        ctx.emit(
            &c.agent.name,
            Event::Hidden {
                passed,
                total: cells.len(),
                cells: cells.iter().map(CellRecord::from).collect(),
            },
        )?;
    }
    Ok(())
}
