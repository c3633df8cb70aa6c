//! dixit's sandbox: runs untrusted WebAssembly (solutions, tests, checkers) with fuel, memory,
//! output and wall-clock limits, a seeded RNG and a virtual clock, so a run is a pure function of
//! (artifact, input, seed). A crate of its own, depending on nothing of dixit's: the compiler
//! keeps everything above it from reaching in, and it from reaching up.
//!
//! Its road in is [`execution::Executor`]: rows of runs at an isolation level, in parallel.
//!
//! Data flow: wasm bytes → [`Sandbox::load`] (compiled once, cached on disk, mmap-loaded) →
//! [`Program`] → [`Sandbox::run`] with a [`RunSpec`] → [`RunOutcome`] → [`Verdict`].
//!
//! - `engine.rs`: the two engines (core modules; components), their linkers and the epoch ticker.
//! - `image.rs`: moves a component's initial memory out of its data segments into an image.
//! - `memory.rs`: dixit's own memories for components with an image, reset without a cap.
//! - `pair.rs`: a compiled unit test and its solution as two components, linked by the host.
//! - `bridge.rs`: a unit test and its solution in two instances, meeting only at the interface.
//! - `boundary/`: what crosses there: the value grammar, calls and answers, read and written by
//!   the host.
//! - `cache.rs`: the content-addressed artifact cache.
//! - `host.rs`: per-run host state: a core module's WASI context, memory limiter, capped output,
//!   seeded RNG, clock.
//! - `sleep.rs`: virtual sleeping, so a guest that sleeps never stalls the host.
//! - `exit.rs`: `proc_exit` with any status, reported as that exit code.
//! - `limits.rs`: the limits of one run, what each does not bound, and arming them on a store.
//! - `entry.rs`: how a program is entered ([`Entry`]: `_start`, or `run` in a [`RuntimeMode`]).
//! - `spec.rs`: what a run is given ([`RunSpec`]), and the [`Server`] of a unit test's solution.
//! - `outcome.rs`: how a run ended and what it observed ([`RunOutcome`]).
//! - `session.rs`: a live component instance ([`Session`]), its host state, and the solution's
//!   instance beside it in a unit test's run.
//! - `run/`: one run, start to finish (`run/pair.rs`: a compiled pair's), and starting a
//!   [`Session`] for the `solution` isolation level.
//! - `verdict.rs`: judge-style verdicts; the one place outcomes become verdicts.

pub mod boundary;
mod bridge;
mod cache;
mod engine;
mod entry;
mod error;
pub mod execution;
mod exit;
mod flatten;
mod host;
mod image;
mod limits;
mod memory;
mod outcome;
mod pair;
mod run;
mod session;
mod sleep;
mod spec;
mod verdict;

pub use boundary::Value;
pub use bridge::MAX_MESSAGE;
pub use cache::{dixit_home, hash_parts, ArtifactCache};
pub use engine::{wasmtime_version, Program, ProgramKind, Sandbox, SandboxConfig};
pub use entry::{CallArgs, Entry, RuntimeMode};
pub use error::SandboxError;
pub use flatten::{core_modules, flatten, FlattenError};
pub use host::splitmix64;
pub use limits::Limits;
pub use memory::{reset_tracking, set_reset_tracking, ResetStats, ResetTracking};
pub use outcome::{Exchange, RunEnd, RunOutcome, TrapKind};
pub use session::Session;
pub use spec::{Preopen, RunSpec, Server};
pub use verdict::{CompileSide, Completion, GuestFailure, Verdict, VerdictKind, RUNNER_EXITED};
