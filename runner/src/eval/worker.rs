//! A worker process of `--workers processes` (`dixit eval-worker`): it reads its parent's
//! settings, then builds one problem's verdict matrix a job with a [`Harness`] of its own.

use super::corpus::Problem;
use super::error::EvalError;
use super::matrix::Harness;
use super::processes::{MatrixSetup, WorkerCounts};
use super::verdicts::ProblemVerdicts;
use super::NoProgress;
use crate::sandbox::{Program, Sandbox};
use crate::workers::{serve, ServeError, Work};

/// A worker's side: one problem's matrix a job.
struct MatrixWork<'a> {
    harness: Harness<'a>,
}

impl Work for MatrixWork<'_> {
    type Job = Problem;
    type Reply = ProblemVerdicts;
    type Summary = WorkerCounts;
    type Error = EvalError;

    fn run(&mut self, problem: Problem) -> Result<ProblemVerdicts, EvalError> {
        let mut built = self.harness.matrices(&[&problem], &NoProgress)?;
        built.pop().ok_or_else(|| EvalError::Sandbox {
            doing: format!("running {}", problem.id),
            message: "no matrix came back".into(),
        })
    }

    fn summary(&self) -> WorkerCounts {
        self.harness.counts()
    }
}

/// Serves as one worker of `--workers processes`: reads the setup and then problems on `input`, and
/// answers each with its matrix on `output` (what `dixit eval-worker` runs).
pub fn serve_matrices(
    sandbox: &Sandbox,
    runtime: &Program,
    input: impl std::io::BufRead,
    output: impl std::io::Write,
) -> Result<(), ServeError> {
    serve(input, output, |setup: MatrixSetup| {
        let harness = Harness::new(sandbox, runtime, setup.limits, setup.isolation)
            .with_fuel_rule(setup.fuel_rule);
        Ok::<_, EvalError>(MatrixWork { harness })
    })
}
