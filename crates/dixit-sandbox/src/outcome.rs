//! How a run ended and what it observed: [`RunEnd`], [`TrapKind`] and [`RunOutcome`] (with the
//! bridge's [`Exchange`]s), and the one place a wasmtime error becomes a [`RunEnd`].

use std::time::Duration;

use serde::Serialize;
use wasmtime::Trap;
use wasmtime_wasi::I32Exit;

/// How a trap ended a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TrapKind {
    /// Fuel exhausted (deterministic).
    OutOfFuel,
    /// The wall-clock safety net fired (not deterministic).
    Interrupt,
    /// The guest's call stack was exhausted.
    StackOverflow,
    /// The solution's instance answered a call with something that does not cross the
    /// boundary (a value that is not data, a name it lacks, a failed import, a malformed
    /// answer): the host ended the run (see `bridge.rs`).
    Boundary,
    /// Any other trap (`unreachable`, division by zero, out-of-bounds access, ...).
    Other,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "end")]
pub enum RunEnd {
    /// The entry returned: a core module's `_start` (code 0: a C or Rust `main` that returned 0
    /// returns from `_start`), or a component's `run` export with the code it returned. Guest
    /// code that ends the process instead never produces this, which is why a unit test's pass
    /// requires it (see [`crate::Completion`]).
    Returned {
        /// The code the entry returned.
        code: i32,
    },
    /// The guest ended the process with WASI `proc_exit` (C's `exit`, Rust's
    /// `std::process::exit`, Python's `os._exit`) with this code.
    Exit {
        /// The code passed to `proc_exit`.
        code: i32,
    },
    /// The guest trapped.
    Trap {
        /// How the trap ended the run.
        kind: TrapKind,
        /// The trap's message.
        message: String,
    },
    /// The host failed to set up or finish the run (a dixit problem, not the guest's).
    HostError {
        /// What failed.
        message: String,
    },
}

/// Everything observed during one run.
#[derive(Clone, Debug, Serialize)]
pub struct RunOutcome {
    /// How the run ended.
    pub end: RunEnd,
    /// Everything the guest wrote to stdout (up to the output limit).
    pub stdout: Vec<u8>,
    /// Everything the guest wrote to stderr (up to the output limit).
    pub stderr: Vec<u8>,
    /// The guest tried to write more than the output limit.
    pub output_overflow: bool,
    /// Fuel the run spent.
    pub fuel_used: u64,
    /// The peak total of the run's instances' memories, in bytes.
    pub peak_memory: u64,
    /// A memory growth was refused by the memory limit.
    pub memory_denied: bool,
    /// Wall-clock time the run took.
    pub wall: Duration,
    /// The guest read entropy (so another seed could change the run).
    pub read_entropy: bool,
    /// The guest read a clock (so another seed could change the run).
    pub read_clock: bool,
    /// The test's calls and the solution's answers, when the run's [`Server`](super::Server)
    /// asked to keep them.
    #[serde(skip)]
    pub exchanges: Vec<Exchange>,
    /// How the test said it failed, reported by the test's own instance through the bridge's
    /// `failure` import (dixit's Python runner does; see `bridge.rs`): guest text, JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_report: Option<String>,
}

impl RunOutcome {
    /// The outcome of a run the host could not set up (nothing of the guest's ran).
    pub fn host_error(message: String) -> RunOutcome {
        RunOutcome {
            end: RunEnd::HostError { message },
            stdout: Vec::new(),
            stderr: Vec::new(),
            output_overflow: false,
            fuel_used: 0,
            peak_memory: 0,
            memory_denied: false,
            wall: Duration::ZERO,
            read_entropy: false,
            read_clock: false,
            exchanges: Vec::new(),
            failure_report: None,
        }
    }
}

/// One call of a test's and the solution's answer, as the host read them (and passed them on,
/// when the answer is one the test receives). An answer that ended the run is its last exchange.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    /// The test's call.
    pub call: super::boundary::Call,
    /// The solution's answer.
    pub answer: super::boundary::Answer,
}

/// Why the test's instance was stopped: the solution's instance ended (see `Partner::ended`).
#[derive(Debug, thiserror::Error)]
#[error("the solution's instance ended while answering")]
pub(crate) struct PartnerEnded;

/// A compiled pair's solution exited (its code) while it answered a call or while its instance
/// was made: the solution's crash, never the test's exit code (see `pair::solution_ended`).
#[derive(Debug, thiserror::Error)]
#[error("the solution exited (exit code {0}) before the test finished, instead of returning")]
pub(crate) struct SolutionExited(pub i32);

/// Instantiation fails either because the guest trapped in its start code (a verdict) or because
/// the host could not allocate the instance, e.g. an exhausted pool (a dixit problem).
pub(crate) fn end_from_instantiate_error(e: wasmtime::Error) -> RunEnd {
    if e.downcast_ref::<Trap>().is_some()
        || e.downcast_ref::<I32Exit>().is_some()
        || e.downcast_ref::<SolutionExited>().is_some()
    {
        end_from_error(e)
    } else {
        RunEnd::HostError {
            message: format!("cannot instantiate: {e:#}"),
        }
    }
}

/// The one place a wasmtime error becomes a [`RunEnd`].
pub(crate) fn end_from_error(e: wasmtime::Error) -> RunEnd {
    if e.downcast_ref::<PartnerEnded>().is_some() {
        // Replaced by how the solution's instance ended (`Session::call_apart`).
        return RunEnd::HostError {
            message: e.to_string(),
        };
    }
    if let Some(exit) = e.downcast_ref::<I32Exit>() {
        return RunEnd::Exit { code: exit.0 };
    }
    if let Some(exited) = e.downcast_ref::<SolutionExited>() {
        return RunEnd::Trap {
            kind: TrapKind::Boundary,
            message: exited.to_string(),
        };
    }
    if let Some(trap) = e.downcast_ref::<Trap>() {
        let kind = match trap {
            Trap::OutOfFuel => TrapKind::OutOfFuel,
            Trap::Interrupt => TrapKind::Interrupt,
            Trap::StackOverflow => TrapKind::StackOverflow,
            _ => TrapKind::Other,
        };
        return RunEnd::Trap {
            kind,
            message: trap.to_string(),
        };
    }
    // Errors raised by host functions on the guest's behalf (e.g. a refused write past the output
    // limit, an invalid argument) end the guest like a trap does. The root cause is the message;
    // the outer layers only carry a wasm backtrace.
    RunEnd::Trap {
        kind: TrapKind::Other,
        message: e.root_cause().to_string(),
    }
}
