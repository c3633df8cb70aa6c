//! What one run is given besides its program: a [`RunSpec`] (how it is entered, its input,
//! mounts, limits and seed) and, for a unit test, the [`Server`] of its solution.

use std::path::PathBuf;
use std::sync::Arc;

use super::boundary::Interface;
use super::engine::Program;
use super::limits::Limits;

/// A host directory made visible to the guest, read-only, under `guest` (e.g. `/solution`).
#[derive(Clone, Debug)]
pub struct Preopen {
    pub host: PathBuf,
    pub guest: String,
}

/// How the program is entered.
#[derive(Clone, Debug)]
pub enum Entry {
    /// A core module's `_start` with these `argv` (argv\[0\] included).
    Start { argv: Vec<String> },
    /// A component's `run: func(mode: string, target: string, args: list<string>) -> s32` export
    /// (the contract of dixit's guest runtimes, e.g. the Python one).
    Call {
        mode: String,
        target: String,
        args: Vec<String>,
        /// What the runtime's `bridge.code` import returns during the call: the run's files'
        /// compiled code, cached when they were checked (empty: none, the files are compiled).
        code: Arc<[u8]>,
    },
}

/// The arguments of a call of a component's `run` (mode, target, args) and the code its
/// `bridge.code` import returns meanwhile (see [`Entry::Call`]).
pub type CallArgs<'a> = (&'a str, &'a str, &'a [String], &'a Arc<[u8]>);

impl Entry {
    /// The arguments of the `run` call this entry makes; `None` for a core module's `_start`.
    pub fn call_args(&self) -> Option<CallArgs<'_>> {
        match self {
            Entry::Call {
                mode,
                target,
                args,
                code,
            } => Some((mode, target, args, code)),
            Entry::Start { .. } => None,
        }
    }
}

/// Everything one run needs besides the program.
#[derive(Clone, Debug)]
pub struct RunSpec {
    pub entry: Entry,
    pub stdin: Arc<[u8]>,
    pub preopens: Vec<Preopen>,
    pub limits: Limits,
    /// Seeds the RNG and the virtual clock; the run is a pure function of program, input and seed.
    pub seed: u64,
    /// A unit test's solution, run apart in an instance of its own and reached only through the
    /// bridge (see [`super::bridge`]); `None` for a program or a test that needs no solution.
    pub server: Option<Arc<Server>>,
}

/// The solution's side of a unit-test run: the program (the Python runtime), how it serves the
/// solution, what it mounts, and the interface the host holds the test's calls to. The
/// solution's instance is started with `run(mode, target, args)` (`serve` a directory, or
/// `serve-pair` recorded code) and then answers the test's calls.
#[derive(Clone, Debug)]
pub struct Server {
    pub program: Program,
    pub mode: String,
    pub target: String,
    pub args: Vec<String>,
    /// The solution's cached code (see [`Entry::Call`]).
    pub code: Arc<[u8]>,
    pub preopens: Vec<Preopen>,
    /// How many request/answer pairs to keep in the run's outcome (0: none). The disagreement
    /// finder reads the calls a test made and what the solution answered off this log, so the
    /// solution sees nothing but an ordinary test.
    pub log: usize,
    /// What the test may call: the host refuses every other call (see [`super::bridge`]).
    pub interface: Arc<Interface>,
}

impl Server {
    /// The `run` call with which the solution's instance serves.
    pub fn call_args(&self) -> CallArgs<'_> {
        (&self.mode, &self.target, &self.args, &self.code)
    }
}
