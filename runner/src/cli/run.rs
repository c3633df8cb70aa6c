//! `dixit run`: runs (or resumes) the protocol on a project.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::{signals, toolchains, GlobalArgs};
use crate::config::{Project, ProtocolName};
use crate::engine::{self, Interrupt, Observer, ProtocolError};
use crate::journal::{Event, ExitClass};
use crate::report;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The project folder (with dixit.toml and spec.md) [default: .].
    pub project: Option<PathBuf>,
    /// Continue the run with this id (or path) from its journal instead of starting a new one.
    #[arg(long, value_name = "ID")]
    pub resume: Option<String>,
    /// Where runs are kept [default: PROJECT/runs].
    #[arg(long, value_name = "DIR")]
    pub runs_dir: Option<PathBuf>,
    /// Run this protocol instead of the one `[protocol] name` sets (`dixit protocols` lists
    /// them).
    #[arg(long, value_name = "NAME")]
    pub protocol: Option<ProtocolName>,
    /// Print the summary as JSON, with the run's folder (`run_dir`) and page (`report`).
    #[arg(long)]
    pub json: bool,
    /// Also write the final suite and hidden tests against every coder as JUnit XML.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

pub fn run(g: &GlobalArgs, a: &RunArgs) -> CliResult {
    let dir = a.project.clone().unwrap_or_else(|| PathBuf::from("."));
    let mut project = Project::load(&dir).map_err(|e| {
        CliError::usage(e)
            .hint("a project is a folder with dixit.toml and spec.md; `dixit init DIR` makes one")
    })?;
    if let Some(p) = &a.protocol {
        project = project.with_protocol(p.clone());
    }
    let selected = crate::protocol::select(&project.config).map_err(CliError::usage)?;
    let runs_dir = a.runs_dir.clone().unwrap_or_else(|| dir.join("runs"));
    let tc = Arc::new(toolchains(g)?);
    let progress = Progress::new(g.quiet);
    let observer: Arc<dyn Observer> = progress.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::new(exit::INTERNAL, e))?;
    let interrupt = Interrupt::new();
    let outcome = rt.block_on(async {
        let say = progress.clone();
        let signals = signals::install(interrupt.clone(), move |m| say.note(m));
        let outcome = match &a.resume {
            None => {
                engine::start(
                    &project,
                    selected.protocol,
                    tc,
                    &runs_dir,
                    &engine::default_backend,
                    observer,
                    interrupt,
                )
                .await
            }
            Some(id) => {
                let run_dir = resolve_run(&runs_dir, id)?;
                engine::resume(
                    &project,
                    &run_dir,
                    crate::protocol::REGISTRY,
                    tc,
                    &engine::default_backend,
                    observer,
                    interrupt,
                )
                .await
            }
        };
        outcome.map(|o| (o, signals))
    });
    progress.finish();
    let (outcome, signals) = outcome.map_err(protocol_error)?;
    let page = write_page(&outcome)?;
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&with_paths(&outcome, page.as_deref())?)
                .map_err(anyhow::Error::from)?
        );
    } else {
        print!(
            "{}",
            report::render(&outcome.summary, outcome.protocol, &outcome.run_dir)
        );
    }
    if let Some(file) = &a.junit {
        let journal = report::run_report::read_journal(&outcome.run_dir)
            .map_err(|e| CliError::new(exit::INTERNAL, e))?;
        report::junit::write_junit(
            &outcome.run_dir,
            &journal,
            &outcome.summary,
            outcome.protocol,
            file,
        )
        .map_err(|e| CliError::new(exit::INTERNAL, e))?;
        eprintln!("JUnit XML: {}", file.display());
    }
    Ok(match report::exit_class(outcome.protocol, &outcome.stop) {
        ExitClass::Done => exit::OK,
        ExitClass::HumanNeeded => exit::FAILED,
        ExitClass::Capped => {
            eprintln!(
                "\nhint: resume with `dixit run {} --resume {}`",
                dir.display(),
                outcome.run_id
            );
            exit::CAPPED
        }
        ExitClass::Failed => {
            eprintln!(
                "\nhint: fix the cause, then resume with `dixit run {} --resume {}`",
                dir.display(),
                outcome.run_id
            );
            exit::ENVIRONMENT
        }
        ExitClass::Interrupted => {
            if outcome.resume_undone {
                eprintln!(
                    "\ninterrupted before the resumed run went past its recording: the run is \
                     left as it was"
                );
            }
            eprintln!(
                "\nhint: resume with `dixit run {} --resume {}`",
                dir.display(),
                outcome.run_id
            );
            signals.code()
        }
    })
}

/// `--json`'s output: the summary (as `summary.json` holds it) plus where the run is
/// (`run_dir`) and its page (`report`, null if none was written).
fn with_paths(
    outcome: &engine::RunOutcome,
    page: Option<&std::path::Path>,
) -> Result<serde_json::Value, CliError> {
    let mut value = serde_json::to_value(&outcome.summary).map_err(anyhow::Error::from)?;
    if let serde_json::Value::Object(map) = &mut value {
        map.insert("run_dir".into(), serde_json::json!(outcome.run_dir));
        map.insert("report".into(), serde_json::json!(page));
    }
    Ok(value)
}

/// A run given as a path, or as an id under `runs_dir`.
pub fn resolve_run(runs_dir: &std::path::Path, id: &str) -> Result<PathBuf, ProtocolError> {
    let as_path = PathBuf::from(id);
    let dir = if as_path.join("journal.jsonl").is_file() {
        as_path
    } else {
        runs_dir.join(id)
    };
    if !dir.join("journal.jsonl").is_file() {
        return Err(ProtocolError::NoRun {
            id: id.to_string(),
            dir,
        });
    }
    Ok(dir)
}

/// Maps protocol errors to exit codes.
pub fn protocol_error(e: ProtocolError) -> CliError {
    match e {
        ProtocolError::Journal(j @ crate::journal::JournalError::Diverged { .. }) => {
            CliError::new(exit::DIVERGED, j)
        }
        ProtocolError::Journal(j) => CliError::usage(j),
        ProtocolError::Config(c) => CliError::usage(c),
        ProtocolError::Prompt(p) => CliError::usage(p),
        e @ (ProtocolError::Read { .. }
        | ProtocolError::Interface(_)
        | ProtocolError::Test(_)
        | ProtocolError::Backend { .. }
        | ProtocolError::Lacks { .. }
        | ProtocolError::Ended { .. }
        | ProtocolError::NoRun { .. }
        | ProtocolError::UnknownProtocol { .. }
        | ProtocolError::NoRecordedHeader(_)) => CliError::usage(e),
        e @ (ProtocolError::Write { .. }
        | ProtocolError::Outputs(_)
        | ProtocolError::Unexpected(_)) => CliError::new(exit::INTERNAL, e),
        ProtocolError::State(s) => CliError::new(exit::INTERNAL, s),
    }
}

/// A live status line on stderr (only on a terminal, and not with --quiet).
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    state: Mutex<(u32, usize, String)>,
}

impl Progress {
    fn new(quiet: bool) -> Arc<Progress> {
        let bar = (!quiet && std::io::IsTerminal::is_terminal(&std::io::stderr())).then(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.enable_steady_tick(std::time::Duration::from_millis(120));
            b
        });
        Arc::new(Progress {
            bar,
            state: Mutex::new((0, 0, String::new())),
        })
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }

    /// A line on stderr (above the status line, if there is one).
    fn note(&self, line: &str) {
        match &self.bar {
            Some(b) => b.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }
}

impl Observer for Progress {
    fn event(&self, lane: &str, e: &Event) {
        let Some(bar) = &self.bar else { return };
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match e {
            Event::Round { round, suite }
            | Event::Epoch {
                epoch: round,
                suite,
            } => {
                s.0 = *round;
                s.1 = *suite;
            }
            Event::SuiteChanged { size, .. } => s.1 = *size,
            Event::Reply { purpose, .. } => s.2 = format!("{lane}: {purpose}"),
            Event::Classified { class, .. } => s.2 = format!("{lane}: test {class}"),
            Event::Judged { vector, .. } => {
                s.2 = format!(
                    "{lane}: {}/{} tests pass",
                    vector.iter().filter(|p| **p).count(),
                    vector.len()
                )
            }
            Event::Hibernated { .. } => s.2 = format!("{lane}: hibernating"),
            _ => return,
        }
        bar.set_message(format!("round {} · suite {} tests · {}", s.0, s.1, s.2));
    }
}

/// `report.html` of a finished run (the engine runs; reporting is wired here).
pub(super) fn write_page(outcome: &engine::RunOutcome) -> Result<Option<PathBuf>, CliError> {
    let Some(journal) = &outcome.journal else {
        return Ok(None);
    };
    report::run_report::write_run_report(
        &outcome.run_dir,
        journal,
        &outcome.summary,
        outcome.protocol,
        None,
    )
    .map(Some)
    .map_err(|e| CliError::new(exit::INTERNAL, anyhow::anyhow!("report.html: {e}")))
}
