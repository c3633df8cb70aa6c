//! What one run is given besides its program: a [`RunSpec`] (how it is entered, its input,
//! mounts, limits and seed) and, for a unit test, the [`Server`] of its solution.

use std::path::PathBuf;
use std::sync::Arc;

use super::boundary::Interface;
use super::engine::Program;
use super::entry::{CallArgs, Entry, RuntimeMode};
use super::limits::Limits;

/// A host directory made visible to the guest, read-only, under `guest` (e.g. `/solution`).
#[derive(Clone, Debug)]
pub struct Preopen {
    /// The directory on the host.
    pub host: PathBuf,
    /// Where the guest sees it.
    pub guest: String,
}

/// Everything one run needs besides the program.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// How the program is entered.
    pub entry: Entry,
    /// What the guest reads on stdin.
    pub stdin: Arc<[u8]>,
    /// Host directories the guest sees, read-only.
    pub preopens: Vec<Preopen>,
    /// Fuel, memory, output and wall-clock limits.
    pub limits: Limits,
    /// Seeds the RNG and the virtual clock; the run is a pure function of program, input and seed.
    pub seed: u64,
    /// A unit test's solution, run apart in an instance of its own and reached only through the
    /// bridge (see `super::bridge`); `None` for a program or a test that needs no solution.
    pub server: Option<Arc<Server>>,
}

/// The solution's side of a unit-test run: the program (the Python runtime), how it serves the
/// solution, what it mounts, and the interface the host holds the test's calls to. The
/// solution's instance is started with `run(mode, target, args)` (`serve` a directory, or
/// `serve-pair` recorded code) and then answers the test's calls.
#[derive(Clone, Debug)]
pub struct Server {
    /// The program that serves the solution (the Python runtime).
    pub program: Program,
    /// The runtime's mode for the solution's instance (`serve` or `serve-pair`).
    pub mode: RuntimeMode,
    /// What the mode serves: the solution's directory or recorded code.
    pub target: String,
    /// Further arguments for the runtime.
    pub args: Vec<String>,
    /// The solution's cached code (see [`Entry::Call`]).
    pub code: Arc<[u8]>,
    /// Host directories the solution's instance sees, read-only.
    pub preopens: Vec<Preopen>,
    /// How many request/answer pairs to keep in the run's outcome (0: none). The disagreement
    /// finder reads the calls a test made and what the solution answered off this log, so the
    /// solution sees nothing but an ordinary test.
    pub log: usize,
    /// What the test may call: the host refuses every other call (see `super::bridge`).
    pub interface: Arc<Interface>,
}

impl Server {
    /// The `run` call with which the solution's instance serves.
    pub fn call_args(&self) -> CallArgs<'_> {
        (self.mode, &self.target, &self.args, &self.code)
    }
}
