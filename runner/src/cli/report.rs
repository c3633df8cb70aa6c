//! `dixit report`: one self-contained HTML report of a run directory (re-rendered from its
//! journal), of an eval output (`dixit eval --out DIR`) or of an import (`dixit import --out
//! DIR`), or the comparison of two eval outputs; `--junit` exports a run's final verdicts. The directory's contents say what it is
//! (`report::input`).

use std::path::{Path, PathBuf};

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::{toolchains, GlobalArgs};
use crate::report::eval_report::{write_comparison, write_eval_report};
use crate::report::import::write_import_page;
use crate::report::input::{ReportError, ReportInput};
use crate::report::run_report::{read_journal, write_run_report};

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A run directory (`runs/<id>/`, with journal.jsonl), an eval output (`dixit eval --out
    /// DIR`) or an import (`dixit import --out DIR`: its page again, with the decisions taken
    /// since); a second eval output compares the two (first: before, second: after).
    #[arg(required = true, num_args = 1..=2, value_name = "DIR")]
    pub inputs: Vec<PathBuf>,
    /// Where to write the page [default: DIR/report.html (an import: DIR/import.html); with two
    /// inputs, the second's compare.html].
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write the run's final suite and hidden tests against every coder as JUnit XML
    /// (run directories only).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Print what was written as JSON on stdout: `{"input": "run"|"eval"|"samples"|"import"|"comparison",
    /// "report": PATH, "junit": PATH|null}`.
    #[arg(long)]
    pub json: bool,
}

pub(super) fn run(g: &GlobalArgs, a: &ReportArgs) -> CliResult {
    let inputs = a
        .inputs
        .iter()
        .map(|d| ReportInput::detect(d))
        .collect::<Result<Vec<_>, _>>()
        .map_err(report_error)?;
    if a.junit.is_some() && !matches!(inputs.as_slice(), [ReportInput::Run(_)]) {
        return Err(
            CliError::usage("--junit exports a run: give one run directory")
                .hint("`dixit report RUN_DIR --junit FILE`"),
        );
    }
    let kind = match inputs.as_slice() {
        [ReportInput::Run(_)] => "run",
        [ReportInput::Import(_)] => "import",
        [ReportInput::Samples(_)] => "samples",
        [_] => "eval",
        _ => "comparison",
    };
    let written = match inputs.as_slice() {
        [ReportInput::Eval(dir)] => write_eval_report(dir, a.output.as_deref()),
        [ReportInput::Run(dir)] => return run_report(g, dir, a),
        [ReportInput::Import(dir)] => write_import_page(dir, a.output.as_deref()),
        [ReportInput::Samples(dir)] => {
            crate::report::samples_page::write_samples_report(dir, a.output.as_deref())
        }
        [ReportInput::Eval(x), ReportInput::Eval(y)] => write_comparison(x, y, a.output.as_deref()),
        [x, y] => Err(ReportError::CompareNeedsEvals {
            dir: match x {
                ReportInput::Eval(_) => y.dir().to_path_buf(),
                _ => x.dir().to_path_buf(),
            },
        }),
        _ => unreachable!("clap takes one or two inputs"),
    }
    .map_err(report_error)?;
    print_written(a, kind, &written)
}

/// The path of the page on stdout, or with `--json` everything written as one JSON object.
fn print_written(a: &ReportArgs, kind: &str, page: &Path) -> CliResult {
    if a.json {
        let value = serde_json::json!({
            "input": kind,
            "report": page,
            "junit": a.junit,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&value).map_err(anyhow::Error::from)?
        );
    } else {
        println!("{}", page.display());
    }
    Ok(exit::OK)
}

/// A run directory: the summary folded from the journal, the disagreements computed again
/// (the same, by construction, as `dixit run` found), the page, and the JUnit file if asked.
fn run_report(g: &GlobalArgs, dir: &Path, a: &ReportArgs) -> CliResult {
    let journal = read_journal(dir).map_err(report_error)?;
    let protocol = crate::protocol::named(&journal.protocol).map_err(|e| {
        CliError::new(
            exit::USAGE,
            anyhow::anyhow!("{}: {e}", journal.path.display()),
        )
    })?;
    let mut summary = protocol.summary_of(&journal);
    summary.disagreements = match toolchains(g) {
        Ok(tc) => crate::consensus::for_run(&tc, &journal, &|e| protocol.named_tests(e), dir),
        Err(e) => Some(crate::consensus::Disagreements {
            error: Some(e.error.to_string()),
            ..Default::default()
        }),
    };
    let page = write_run_report(dir, &journal, &summary, protocol, a.output.as_deref())
        .map_err(report_error)?;
    if let Some(file) = &a.junit {
        crate::report::junit::write_junit(dir, &journal, &summary, protocol, file)
            .map_err(report_error)?;
        if !a.json {
            eprintln!("JUnit XML: {}", file.display());
        }
    }
    print_written(a, "run", &page)
}

/// Bad or missing input is a usage error (exit 2); anything else is dixit's (exit 70).
fn report_error(e: ReportError) -> CliError {
    let hint = match &e {
        ReportError::UnknownInput { .. } | ReportError::NotADirectory { .. } => Some(
            "give a run directory (runs/<id>/, with journal.jsonl) or the directory `dixit eval --out DIR` (with or without --samples) or `dixit import --out DIR` wrote",
        ),
        _ => None,
    };
    let code = if e.is_bad_input() {
        exit::USAGE
    } else {
        exit::INTERNAL
    };
    let mut err = CliError::new(code, e);
    if let Some(h) = hint {
        err = err.hint(h);
    }
    err
}
