//! `dixit decide`: what a person decides at a run's stop, journaled; `dixit run PROJECT --resume
//! ID` goes on from it (accepting ends the run at once). Also what a person decides about a
//! project an import flagged (`include`, `exclude`), journaled in the project.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::exit::{self, CliError, CliResult};
use super::run::{protocol_error, resolve_run};
use crate::engine::{self, DecideError};
use crate::import::{self, DecisionError, Ruling};
use crate::journal::Choice;

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  dixit decide runs/20261124-1 drop-test 2 --why \"it expects 'IIII' for 4\"
  dixit decide runs/20261124-1 leave-behind coder-4 --why \"misreads the spec's range\"
  dixit decide runs/20261124-1 wake tester-2 --why \"its tests follow the spec's table\"
  dixit decide runs/20261124-1 raise dixit.max_rounds=12 --why \"still finding bugs\"
  dixit decide runs/20261124-1 accept --why \"all three agree with the hidden tests\"
  dixit decide runs/20261124-1 --at 2 wake tester-1 --why \"its tests follow the spec\"   # fork at decision 2
Then, except after accept, the command it prints (dixit run PROJECT_DIR --resume 20261124-1)

A project an import flagged (its FLAGGED.md: the reference fails its own hidden test):
  dixit decide humaneval/HumanEval_32 include --why \"the test is right: the prompt asks for the first\"
  dixit decide humaneval-x/CPP_32 exclude --why \"the test asserts a count the prompt contradicts\"")]
pub struct DecideArgs {
    /// The run: its directory (holding journal.jsonl), or its id under ./runs; for include and
    /// exclude, the directory of a project an import flagged.
    pub run: String,
    #[command(subcommand)]
    pub choice: ChoiceArg,
    /// Why, in your words (journaled with the decision; never shown to an agent).
    #[arg(long, global = true)]
    pub why: Option<String>,
    /// Who decides [default: $USER].
    #[arg(long, global = true)]
    pub by: Option<String>,
    /// Decide again at the stop of the run's decision N (1-based, as the report lists them,
    /// e.g. one its policy made): the run is forked there into a new run beside it, and the
    /// original is kept.
    #[arg(long, global = true, value_name = "N")]
    pub at: Option<usize>,
}

#[derive(Debug, Subcommand)]
pub enum ChoiceArg {
    /// The test is wrong: it leaves the suite and the coders are judged again without it.
    DropTest {
        /// The test's number (as the report and the stop name it).
        test: usize,
    },
    /// The coder is wrong: it takes no further part (its code stays in the record).
    LeaveBehind { coder: String },
    /// A hibernating tester's too-hard tests are right: they join the suite, the coders must
    /// pass them, and the tester proposes again.
    Wake { tester: String },
    /// A hibernating tester's too-hard tests are wrong: they are forgotten, and the tester
    /// proposes afresh.
    Discard { tester: String },
    /// More room: set a limit of dixit.toml (`table.key=value`, e.g. dixit.max_rounds=12 or
    /// budget.max_calls=400) for the rest of the run.
    Raise {
        #[arg(value_name = "TABLE.KEY=VALUE")]
        limit: String,
    },
    /// Accept the implementations as they are: the run ends as accepted.
    Accept,
    /// A flagged project's hidden test is right (its reference is wrong): the project takes
    /// part in `dixit compare`.
    Include,
    /// A flagged project's hidden test is wrong: the project stays out of `dixit compare`.
    Exclude,
}

pub(super) fn run(a: &DecideArgs) -> CliResult {
    let by =
        a.by.clone()
            .or_else(|| std::env::var("USER").ok())
            .filter(|b| !b.trim().is_empty())
            .unwrap_or_else(|| "a person".into());
    let choice = match &a.choice {
        ChoiceArg::Include => return flag(a, Ruling::Include, &by),
        ChoiceArg::Exclude => return flag(a, Ruling::Exclude, &by),
        ChoiceArg::DropTest { test } => Choice::DropTest { test: *test },
        ChoiceArg::LeaveBehind { coder } => Choice::LeaveBehind {
            coder: coder.clone(),
        },
        ChoiceArg::Wake { tester } => Choice::Wake {
            tester: tester.clone(),
        },
        ChoiceArg::Discard { tester } => Choice::Discard {
            tester: tester.clone(),
        },
        ChoiceArg::Raise { limit } => {
            let parsed = limit
                .split_once('=')
                .and_then(|(k, v)| Some((k.trim().to_string(), v.trim().parse::<i64>().ok()?)));
            let Some((key, value)) = parsed else {
                return Err(CliError::new(
                    exit::USAGE,
                    anyhow::anyhow!("raise: expected TABLE.KEY=NUMBER, got `{limit}`"),
                ));
            };
            Choice::Raise { key, value }
        }
        ChoiceArg::Accept => Choice::Accept,
    };
    let run_dir = resolve_run(&PathBuf::from("runs"), &a.run).map_err(protocol_error)?;
    let why = a.why.clone().unwrap_or_default();
    let d = engine::decide(
        &run_dir,
        crate::protocol::REGISTRY,
        choice.clone(),
        &why,
        &by,
        a.at,
    )
    .map_err(|e| {
        let code = match e {
            DecideError::Journal(_) => exit::INTERNAL,
            _ => exit::USAGE,
        };
        CliError::new(code, anyhow::anyhow!("{}: {e}", run_dir.display()))
    })?;
    if let Some((from, k)) = &d.forked_from {
        println!(
            "run {from} forked at its decision {k} into run {} (run {from} is kept as it is)",
            d.run_id
        );
    }
    println!(
        "run {}: at \"{}\", {by} decided: {}",
        d.run_id,
        d.stop,
        choice.command()
    );
    if d.goes_on {
        println!("continue with: {}", d.resume);
    } else {
        println!("the run ends as accepted");
    }
    Ok(exit::OK)
}

/// A person's ruling on a project an import flagged, journaled in the project.
fn flag(a: &DecideArgs, ruling: Ruling, by: &str) -> CliResult {
    let project = PathBuf::from(&a.run);
    if a.at.is_some() {
        return Err(CliError::usage(
            "--at forks a run at one of its decisions: a flagged project has none",
        ));
    }
    if !project.join("dixit.toml").is_file() {
        return Err(CliError::usage(format!(
            "{}: not a project (no dixit.toml); include and exclude decide about a project an \
             import flagged",
            project.display()
        )));
    }
    let d = import::decide(&project, ruling, a.why.as_deref().unwrap_or(""), by).map_err(|e| {
        let code = match e {
            DecisionError::Io { .. } => exit::INTERNAL,
            _ => exit::USAGE,
        };
        CliError::new(code, anyhow::anyhow!(e))
    })?;
    println!(
        "{}: {by} decided: {} ({}); journaled in {}",
        project.display(),
        ruling.word(),
        match d.ruling {
            Ruling::Include => "the hidden test is right: it takes part in dixit compare",
            Ruling::Exclude => "the hidden test is wrong: it stays out of dixit compare",
        },
        project.join(import::DECISIONS_FILE).display()
    );
    Ok(exit::OK)
}
