//! What one row runs: a program with everything its runs share, and the calls to make of it.

use crate::{Entry, Program, RunSpec, Server};
use std::sync::Arc;

/// One call of a row: how the program is entered this time, with what fuel, and how many of the
/// bridge's exchanges (the test's requests, the solution's answers) the run keeps.
#[derive(Clone, Debug)]
pub struct RowCall {
    /// How the program is entered for this call.
    pub entry: Entry,
    /// The fuel this call may spend.
    pub fuel: u64,
    /// Exchanges to keep (see [`Server::log`]); 0 for none, and ignored without a server.
    pub log: usize,
}

/// Runs that share a program and everything but their entry: typically one solution, served
/// apart ([`RunSpec::server`]), against many tests. At [`super::Isolation::Solution`] its calls
/// share one instance (pair); at [`super::Isolation::Run`] each gets fresh ones.
#[derive(Clone, Debug)]
pub struct Row {
    /// The program every call runs.
    pub program: Program,
    /// What every call shares: input, mounts, limits, seed, the served solution. Its `entry`
    /// and fuel are each call's own.
    pub spec: RunSpec,
    /// The calls to make, in order.
    pub calls: Vec<RowCall>,
}

impl Row {
    /// A row of one call: `spec` as it is.
    pub fn single(program: Program, spec: RunSpec) -> Row {
        let call = RowCall {
            entry: spec.entry.clone(),
            fuel: spec.limits.fuel,
            log: spec.server.as_ref().map_or(0, |s| s.log),
        };
        Row {
            program,
            spec,
            calls: vec![call],
        }
    }

    /// The complete spec of one of this row's calls, as a fresh run takes it.
    pub fn spec_of(&self, call: &RowCall) -> RunSpec {
        let mut spec = self.spec.clone();
        spec.entry = call.entry.clone();
        spec.limits.fuel = call.fuel;
        if let Some(server) = &spec.server {
            if server.log != call.log {
                spec.server = Some(Arc::new(Server {
                    log: call.log,
                    ..(**server).clone()
                }));
            }
        }
        spec
    }
}
