//! The [`Executor`]: runs rows at an isolation level, in parallel on the rayon pool, and counts
//! the runs and instances it starts (so a cached evaluation can prove it ran nothing).

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::isolation::Isolation;
use super::row::{Row, RowCall};
use crate::{
    Entry, Program, ProgramKind, RunEnd, RunOutcome, RunSpec, Sandbox, SandboxError, Session,
};

/// Runs rows on a sandbox at one isolation level.
pub struct Executor<'s> {
    sandbox: &'s Sandbox,
    isolation: Isolation,
    runs: AtomicU64,
    instances: AtomicU64,
}

impl<'s> Executor<'s> {
    /// An executor on `sandbox` at `isolation`.
    pub fn new(sandbox: &'s Sandbox, isolation: Isolation) -> Self {
        Executor {
            sandbox,
            isolation,
            runs: AtomicU64::new(0),
            instances: AtomicU64::new(0),
        }
    }

    /// The sandbox it runs on.
    pub fn sandbox(&self) -> &'s Sandbox {
        self.sandbox
    }

    /// Its isolation level.
    pub fn isolation(&self) -> Isolation {
        self.isolation
    }

    /// Guest runs (calls into a program) so far.
    pub fn runs(&self) -> u64 {
        self.runs.load(Ordering::Relaxed)
    }

    /// Instances started so far (a test served its solution apart counts two).
    pub fn instances(&self) -> u64 {
        self.instances.load(Ordering::Relaxed)
    }

    /// One run in fresh instances, whatever the level.
    pub fn run(&self, program: &Program, spec: &RunSpec) -> RunOutcome {
        self.runs.fetch_add(1, Ordering::Relaxed);
        self.instances
            .fetch_add(instances_of(spec), Ordering::Relaxed);
        self.sandbox.run(program, spec)
    }

    /// An instance (pair) for `row`'s calls, made one by one with [`Executor::call`]: how the
    /// `solution` level runs a row, and how `dixit bench` times a reused instance.
    pub fn session(&self, row: &Row) -> Result<Session, SandboxError> {
        self.instances
            .fetch_add(instances_of(&row.spec), Ordering::Relaxed);
        self.sandbox.session(&row.program, &row.spec)
    }

    /// One call in `session` (a row's, from [`Executor::session`]), with the call's own fuel
    /// and bridge log. A call that is not a component's `run` is a host error.
    pub fn call(&self, session: &mut Session, call: &RowCall) -> RunOutcome {
        let Some(args) = call.entry.call_args() else {
            return RunOutcome::host_error(
                "a session is called through `run`, not `_start`".into(),
            );
        };
        self.runs.fetch_add(1, Ordering::Relaxed);
        session.keep_exchanges(call.log);
        session.call_outcome(args, call.fuel)
    }

    /// Every call of `row`, in order, at this executor's level. A core module (a compiled test
    /// linked with its solution, a program) has nothing to share: its calls always run fresh.
    pub fn row(&self, row: &Row) -> Vec<RunOutcome> {
        match self.isolation {
            Isolation::Solution if row.program.kind() == ProgramKind::Component => {
                self.in_sessions(row, &row.calls)
            }
            // Runs are independent: let idle workers take them one by one.
            _ => row
                .calls
                .par_iter()
                .map(|c| self.run(&row.program, &row.spec_of(c)))
                .collect(),
        }
    }

    /// The `solution` level: `calls` one after another in one instance (pair). An instance that
    /// ended (an exit, a trap, a refused memory growth) is not used again; the remaining calls
    /// are then split in two halves, each run in a fresh instance, so an idle worker can take
    /// one half: a solution that exhausts its fuel on many tests is spread over the workers.
    /// Where the splits happen depends only on the outcomes, so the result does not depend on
    /// scheduling.
    fn in_sessions(&self, row: &Row, calls: &[RowCall]) -> Vec<RunOutcome> {
        let mut session = None;
        let mut out = Vec::with_capacity(calls.len());
        for (k, call) in calls.iter().enumerate() {
            if !matches!(call.entry, Entry::Call { .. }) {
                out.push(self.run(&row.program, &row.spec_of(call)));
                continue;
            }
            let s = match &mut session {
                Some(s) => s,
                None => match self.session(row) {
                    Ok(s) => session.insert(s),
                    Err(e) => {
                        out.push(RunOutcome::host_error(e.to_string()));
                        continue;
                    }
                },
            };
            let outcome = self.call(s, call);
            // Only a run that returned leaves the instance usable: after an exit or a trap the
            // session has ended (a solution that calls `os._exit(0)` must not answer for the
            // tests after it), and after a refused memory growth the instance's limiter would
            // mark every later run as a memory failure. Start afresh.
            let ended = !matches!(outcome.end, RunEnd::Returned { .. }) || outcome.memory_denied;
            out.push(outcome);
            if ended {
                session = None;
                let rest = &calls[k + 1..];
                if rest.len() >= 2 {
                    let (a, b) = rest.split_at(rest.len() / 2);
                    let (x, y) =
                        rayon::join(|| self.in_sessions(row, a), || self.in_sessions(row, b));
                    out.extend(x);
                    out.extend(y);
                    return out;
                }
            }
        }
        out
    }
}

/// Instances a run (or a session) of `spec` starts: the test's, and the solution's when it is
/// served apart.
fn instances_of(spec: &RunSpec) -> u64 {
    1 + u64::from(spec.server.is_some())
}
