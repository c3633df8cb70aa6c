//! Verdict matrices in worker processes (`--workers processes`), the parent's side: each problem
//! goes to the next free worker of a [`ProcessPool`], which builds its matrix with a harness of
//! its own on one thread (`worker.rs`). A problem's matrix depends only on the problem and the settings, never on where
//! it ran, so both ways give the same verdicts and fuel.

use serde::{Deserialize, Serialize};

use super::corpus::Problem;
use super::error::EvalError;
use super::fuel_rule::FuelRule;
use super::verdicts::{MemoryResets, ProblemVerdicts};
use super::Progress;
use crate::execution::Isolation;
use crate::sandbox::Limits;
use crate::workers::ProcessPool;

/// What a worker is told first: the settings of the parent's harness.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct MatrixSetup {
    /// Isolation level.
    pub(super) isolation: Isolation,
    /// Limits of each run.
    pub(super) limits: Limits,
    /// The fuel a solution may spend on a test.
    pub(super) fuel_rule: FuelRule,
}

/// What a worker counted over its problems (summed over the workers by the parent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct WorkerCounts {
    /// Guest runs.
    pub(super) runs: u64,
    /// Instances started.
    pub(super) instances: u64,
    /// Its runtime's memory resets.
    pub(super) memory: Option<MemoryResets>,
    /// Worker processes these counts come from (one per worker; 0 for this process's own).
    #[serde(default)]
    pub(super) workers: u64,
}

impl WorkerCounts {
    fn add(self, o: WorkerCounts) -> WorkerCounts {
        WorkerCounts {
            runs: self.runs + o.runs,
            instances: self.instances + o.instances,
            memory: MemoryResets::join(self.memory, o.memory),
            workers: self.workers + o.workers,
        }
    }
}

/// The matrices of `problems` built by `pool`'s workers, in `problems`' order, and what the
/// workers counted. The problems with the most cells go out first, so the last to finish are
/// small ones.
pub(super) fn in_processes(
    pool: &ProcessPool,
    setup: MatrixSetup,
    problems: &[&Problem],
    progress: &dyn Progress,
) -> Result<(Vec<ProblemVerdicts>, WorkerCounts), EvalError> {
    let cells = |p: &Problem| ((p.solutions.len() + 1) * (p.tests.len() + 1)) as u64;
    let mut order: Vec<usize> = (0..problems.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(cells(problems[k])));
    progress.start("verdict matrix", problems.iter().map(|p| cells(p)).sum());
    let done = |k: usize, _: &ProblemVerdicts| progress.advance(cells(problems[k]));
    let mapped = pool.map::<_, _, ProblemVerdicts, WorkerCounts>(&setup, problems, &order, &done);
    progress.finish();
    let (matrices, counts) = mapped.map_err(|e| EvalError::Workers {
        problem: match &e {
            crate::workers::PoolError::Job { job, .. } => problems.get(*job).map(|p| p.id.clone()),
            crate::workers::PoolError::Ended { job: Some(job), .. } => {
                problems.get(*job).map(|p| p.id.clone())
            }
            _ => None,
        },
        source: e,
    })?;
    let counts = counts
        .into_iter()
        .map(|c| WorkerCounts { workers: 1, ..c })
        .fold(WorkerCounts::default(), WorkerCounts::add);
    Ok((matrices, counts))
}
