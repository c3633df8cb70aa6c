//! How one language builds: the [`Toolchain`] trait each language implements (`python.rs`,
//! `c.rs`, `rust.rs`, `io.rs`), which returns what to run ([`Plan`]) and never runs it, and
//! [`Builds`], what those builds use of the whole: the sandbox and its cache, dixit's SDK,
//! build directories, and programs of any language. `Toolchains` runs every plan.

use std::path::PathBuf;

use super::error::BuildError;
use super::io_case::IoCase;
use super::runnable::{Runnable, Solution, Test};
use super::sdk::Sdk;
use crate::sandbox::{CompileSide, Program, RunOutcome, RunSpec, Sandbox};

/// How one language turns a solution and a test into runnables. Tests are dispatched by their
/// kind, solutions by their language; the façade memoizes and runs what these build.
pub(super) trait Toolchain: Sync {
    /// Builds what a solution of this language needs before unit tests link with it (its
    /// syntax check, objects, or crate).
    fn prepare_solution(&self, tc: &dyn Builds, s: &Solution) -> Result<(), BuildError>;

    /// Builds what a test of this kind needs on its own. Compiled tests build with their
    /// solution, in [`Toolchain::unit_test`].
    fn prepare_test(&self, _tc: &dyn Builds, _t: &Test) -> Result<(), BuildError> {
        Ok(())
    }

    /// A unit test of this kind against a prepared solution.
    fn unit_test(&self, tc: &dyn Builds, s: &Solution, t: &Test) -> Result<Runnable, BuildError>;

    /// A solution of this language as a standalone program (for I/O tests and checkers).
    fn program(&self, tc: &dyn Builds, s: &Solution) -> Result<Runnable, BuildError>;

    /// What running a test of this kind against a prepared solution takes: a unit test unless
    /// the kind says otherwise (an I/O test runs the solution's program and judges its output).
    /// The toolchains run it: a language builds, it never runs what it built.
    fn plan<'t>(
        &self,
        tc: &'t dyn Builds,
        s: &'t Solution,
        t: &'t Test,
    ) -> Result<Plan<'t>, BuildError> {
        Ok(Plan::Unit(self.unit_test(tc, s, t)?))
    }
}

/// How a test runs against a solution, as its language built it ([`Toolchain::plan`]).
pub(super) enum Plan<'t> {
    /// A unit test: its verdict is the pair's.
    Unit(Runnable),
    /// An I/O case: the solution's program on the case's input, its output judged by
    /// comparison, or by the case's checker program (testlib exit codes).
    Io {
        /// The solution's program, with the case's arguments.
        program: Runnable,
        /// The case: input, arguments, expected output and how to compare.
        case: &'t IoCase,
        /// The checker program, when the case has one.
        checker: Option<&'t Runnable>,
    },
    /// Nothing can run: the test is malformed in a way dixit should have refused earlier (an
    /// internal error, with why).
    Broken(&'static str),
}

/// What a language's builds use of the whole set of toolchains, which the
/// [`Toolchains`](super::Toolchains) façade provides: the languages stay below the façade that
/// picks among them, and still reach another language's program (an I/O test's solution, a
/// checker).
pub(super) trait Builds {
    /// The sandbox runs go to; its artifact cache keeps the builds too.
    fn sandbox(&self) -> &Sandbox;

    /// The SDK for a build of `side`: dixit's own files that could not be written are this
    /// machine's failure.
    fn sdk_for(&self, side: CompileSide) -> Result<&Sdk, BuildError>;

    /// Where builds of one kind (`obj`, `rlib`) keep their outputs.
    fn build_dir(&self, what: &str) -> PathBuf;

    /// Runs `spec` on `program` once, through the one road every run takes (the executor the
    /// toolchains count runs with). Only Python's build uses it: its syntax check and compile
    /// run in dixit's runtime, as C's run in clang; a language never runs what it built.
    fn run_spec(&self, program: &Program, spec: &RunSpec) -> RunOutcome;

    /// A solution as a standalone program, built once by its language's toolchain.
    fn solution_program<'s>(&self, s: &'s Solution) -> Result<&'s Runnable, BuildError>;
}
