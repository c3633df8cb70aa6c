//! `dixit run`: runs (or resumes) the protocol on a project.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::output::{printable, Stream};
use super::{signals, toolchains, GlobalArgs};
use crate::config::{PolicyName, Project, ProtocolName};
use crate::engine::{self, Interrupt, Observer, ProtocolError};
use crate::english::plural;
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
    /// Who answers a stop that asks for a person: `person` (the run stops for `dixit decide`)
    /// or `majority` (the majority of the coders is right, else accept; journaled with its
    /// evidence) [default: `[policy] name`, else person].
    #[arg(long, value_name = "NAME")]
    pub policy: Option<PolicyName>,
    /// Print the summary as JSON, with the run's folder (`run_dir`) and page (`report`).
    #[arg(long)]
    pub json: bool,
    /// Also write the final suite and hidden tests against every coder as JUnit XML.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

pub(super) fn run(g: &GlobalArgs, a: &RunArgs) -> CliResult {
    let dir = a.project.clone().unwrap_or_else(|| PathBuf::from("."));
    let mut project = Project::load(&dir).map_err(|e| {
        CliError::usage(e)
            .hint("a project is a folder with dixit.toml and spec.md; `dixit init DIR` makes one")
    })?;
    if let Some(p) = &a.protocol {
        project = project.with_protocol(p.clone());
    }
    if let Some(p) = a.policy {
        project = project.with_policy(p);
    }
    let selected = crate::protocol::select(&project.config).map_err(CliError::usage)?;
    let runs_dir = a.runs_dir.clone().unwrap_or_else(|| dir.join("runs"));
    let tc = Arc::new(toolchains(g)?);
    let progress = RunProgress::new(g.quiet);
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
    let page = write_reports(&outcome)?;
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
    Ok(
        match crate::outcome::exit_class(outcome.protocol, &outcome.stop) {
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
        },
    )
}

/// `--json`'s output: the summary (as `summary.json` holds it) plus where the run is
/// (`run_dir`) and its page (`report`, null if none was written).
fn with_paths(
    outcome: &crate::outcome::FinishedRun,
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
pub(super) fn resolve_run(runs_dir: &std::path::Path, id: &str) -> Result<PathBuf, ProtocolError> {
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
pub(super) fn protocol_error(e: ProtocolError) -> CliError {
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
        | ProtocolError::Decision(_)
        | ProtocolError::NoRun { .. }
        | ProtocolError::UnknownProtocol { .. }
        | ProtocolError::NoRecordedHeader(_)) => CliError::usage(e),
        e @ (ProtocolError::Write { .. } | ProtocolError::Unexpected(_)) => {
            CliError::new(exit::INTERNAL, e)
        }
        ProtocolError::State(s) => CliError::new(exit::INTERNAL, s),
    }
}

/// A live status line on stderr: elapsed time, agent calls in flight, where the run is (round
/// or epoch, suite size) and the last thing that happened, in a few words. Only on a terminal
/// that can redraw a line (not `TERM=dumb`), and not with `--quiet`.
struct RunProgress {
    bar: Option<indicatif::ProgressBar>,
    status: Mutex<Status>,
}

impl RunProgress {
    fn new(quiet: bool) -> Arc<RunProgress> {
        let bar = (!quiet && Stream::Stderr.live()).then(|| {
            let b = indicatif::ProgressBar::new_spinner();
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{spinner} {elapsed} · {wide_msg}")
            {
                b.set_style(style);
            }
            b.set_message(Status::default().line());
            b.enable_steady_tick(std::time::Duration::from_millis(120));
            b
        });
        Arc::new(RunProgress {
            bar,
            status: Mutex::new(Status::default()),
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

    /// Changes the status and redraws the line.
    fn update(&self, change: impl FnOnce(&mut Status) -> bool) {
        let Some(bar) = &self.bar else { return };
        let mut s = self.status.lock().unwrap_or_else(|e| e.into_inner());
        if change(&mut s) {
            bar.set_message(s.line());
        }
    }
}

impl Observer for RunProgress {
    fn event(&self, lane: &str, e: &Event) {
        self.update(|s| s.event(lane, e));
    }

    fn call_started(&self, lane: &str, purpose: &str) {
        self.update(|s| {
            s.in_flight += 1;
            s.last = format!("asked {lane} ({purpose})");
            true
        });
    }

    fn call_ended(&self, _lane: &str) {
        self.update(|s| {
            s.in_flight = s.in_flight.saturating_sub(1);
            true
        });
    }
}

/// What the status line shows (the elapsed time is the spinner's own).
#[derive(Debug, Default)]
struct Status {
    /// The protocol's unit of progress (`round`, `epoch`) and its number, once one began.
    step: Option<(&'static str, u32)>,
    suite: usize,
    in_flight: usize,
    /// The last event or decision, in a few words.
    last: String,
}

impl Status {
    /// Folds one event in; false if it changes nothing shown.
    fn event(&mut self, lane: &str, e: &Event) -> bool {
        self.last = match e {
            Event::Round { round, suite } => {
                self.step = Some(("round", *round));
                self.suite = *suite;
                format!("round {round} began")
            }
            Event::Epoch { epoch, suite } => {
                self.step = Some(("epoch", *epoch));
                self.suite = *suite;
                format!("epoch {epoch} began")
            }
            Event::SuiteChanged {
                added,
                removed,
                size,
            } => {
                self.suite = *size;
                match (added.len(), removed.as_slice()) {
                    (_, [n, ..]) => format!("test {n} left the suite"),
                    (n, []) => format!("{} joined the suite", plural(n, "test", "tests")),
                }
            }
            Event::Reply { purpose, .. } => format!("{lane} answered ({purpose})"),
            Event::Classified { class, .. } => format!("{lane}'s test is {class}"),
            Event::Judged {
                vector,
                build_error,
                ..
            } => match build_error {
                Some(_) => format!("{lane} does not build"),
                None => format!(
                    "{lane} passes {}/{} tests",
                    vector.iter().filter(|p| **p).count(),
                    vector.len()
                ),
            },
            Event::Attempt {
                attempt,
                passed,
                total,
                ..
            } => format!("{lane} attempt {attempt}: {passed}/{total}"),
            Event::Rollback { .. } => format!("{lane} rolled back"),
            Event::Hibernated { .. } => format!("{lane} hibernates"),
            Event::Revived => format!("{lane} revived"),
            Event::Forgotten { .. } => format!("{lane}'s hibernated tests forgotten"),
            Event::Hidden { passed, total, .. } => {
                format!("{lane} passes {passed}/{total} hidden tests")
            }
            Event::Decision { choice, .. } => format!("decision: {}", choice.command()),
            Event::Resumed => "resumed: re-executing the recording".to_string(),
            Event::Stop { .. } => "stopped: writing the report".to_string(),
            _ => return false,
        };
        true
    }

    /// The status line after the elapsed time.
    fn line(&self) -> String {
        let mut parts = vec![format!(
            "{} in flight",
            plural(self.in_flight, "call", "calls")
        )];
        if let Some((word, n)) = self.step {
            parts.push(format!("{word} {n}"));
            parts.push(format!("suite {}", plural(self.suite, "test", "tests")));
        }
        if !self.last.is_empty() {
            // Agent names and purposes come from the project: never let them drive the terminal.
            parts.push(printable(&self.last).replace(['\n', '\t'], " "));
        }
        parts.join(" · ")
    }
}

/// The outputs (`implementations/`, `suite/`, `summary.json`) and `report.html` of a run that
/// returned (the engine runs; reporting is wired here).
fn write_reports(outcome: &crate::outcome::FinishedRun) -> Result<Option<PathBuf>, CliError> {
    report::write_outputs(outcome).map_err(|e| {
        CliError::new(
            exit::INTERNAL,
            anyhow::anyhow!("writing the run's outputs: {e}"),
        )
    })?;
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

#[cfg(test)]
mod tests {
    use super::Status;
    use crate::journal::{Choice, Event};

    #[test]
    fn the_status_line_says_calls_in_flight_where_the_run_is_and_what_happened_last() {
        let mut s = Status::default();
        assert_eq!(s.line(), "0 calls in flight");
        s.in_flight = 1;
        assert!(s.event("run", &Event::Round { round: 2, suite: 1 }));
        assert_eq!(
            s.line(),
            "1 call in flight · round 2 · suite 1 test · round 2 began"
        );
        assert!(!s.event("coder-1", &Event::Thanks), "not shown");
        s.event(
            "coder-1",
            &Event::Judged {
                vector: vec![true, false, true],
                build_error: None,
                cells: vec![],
            },
        );
        assert!(
            s.line().ends_with("coder-1 passes 2/3 tests"),
            "{}",
            s.line()
        );
        s.event(
            "person",
            &Event::Decision {
                choice: Choice::DropTest { test: 2 },
                why: "wrong".into(),
                by: "ann".into(),
                policy: None,
            },
        );
        assert!(s.line().ends_with("decision: drop-test 2"), "{}", s.line());
        s.event("coder-\x1b[2J", &Event::Revived);
        assert!(!s.line().contains('\x1b'), "{:?}", s.line());
    }
}
