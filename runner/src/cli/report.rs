//! `dixit report`: one self-contained HTML report of an eval output (`dixit eval --out DIR`),
//! or the comparison of two. The directory's contents say what it is (`report::input`).

use std::path::PathBuf;

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::GlobalArgs;
use crate::report::eval_report::{write_comparison, write_eval_report};
use crate::report::input::{ReportError, ReportInput};

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// An eval output (`dixit eval --out DIR`); a second one compares the two (first: before,
    /// second: after).
    #[arg(required = true, num_args = 1..=2, value_name = "DIR")]
    pub inputs: Vec<PathBuf>,
    /// Where to write the page [default: DIR/report.html; with two inputs, the second's
    /// compare.html].
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(_g: &GlobalArgs, a: &ReportArgs) -> CliResult {
    let inputs = a
        .inputs
        .iter()
        .map(|d| ReportInput::detect(d))
        .collect::<Result<Vec<_>, _>>()
        .map_err(report_error)?;
    let written = match inputs.as_slice() {
        [ReportInput::Eval(dir)] => write_eval_report(dir, a.output.as_deref()),
        [ReportInput::Run(dir)] => Err(ReportError::RunNotSupported { dir: dir.clone() }),
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
    println!("{}", written.display());
    Ok(exit::OK)
}

/// Bad or missing input is a usage error (exit 2); anything else is dixit's (exit 70).
fn report_error(e: ReportError) -> CliError {
    let hint = match &e {
        ReportError::UnknownInput { .. } | ReportError::NotADirectory { .. } => {
            Some("give the directory `dixit eval --out DIR` wrote")
        }
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
