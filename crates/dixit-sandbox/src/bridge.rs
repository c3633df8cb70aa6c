//! The bridge: a unit test and the solution it checks, each in an instance of its own, meeting
//! only at the solution's interface, where only data crosses.
//!
//! A run with a [`Server`](super::Server) starts the solution's instance first (its
//! `run("serve", dir)` imports the solution), then runs the test in a fresh instance of its own.
//! The test's only way to the solution is the `dixit:guest/bridge.call` import. The host reads
//! each call ([`boundary::read_call`]: a name of the interface, or a declared method of an
//! object the run handed out, with data arguments), writes it again in canonical form for the
//! solution instance's `answer` export, reads the answer ([`boundary::read_answer`]) and writes
//! that again for the test. So nothing one side sends reaches the other as it was written: no
//! name of the other side's, no object, no request but a call. A call the host refuses is the
//! test's own error (it raises `TypeError` there); an answer that is not data, a name the
//! solution lacks, a failed import or a malformed answer ends the run as the solution's
//! runtime error. What the exchanges record ([`Exchange`]) is exactly what the other side
//! received.
//!
//! Nothing else is shared: not a heap, not a file system (the test instance never mounts the
//! solution; the solution instance never mounts the test), not a clock (each has its own virtual
//! time). The verdict is the host's, from the status the test instance returns, or from how the
//! solution's instance ended when it ended a run (a trap, an exit, fuel, a refused answer).
//! The test's failure report reaches the host through the `failure` import of the test's own
//! instance, never through an output stream the solution could also write.
//!
//! Both sides spend one fuel budget: whatever the solution uses answering a call is taken from
//! the test's remaining fuel, so a run costs what it cost when both shared an instance, plus the
//! calls. Messages are bounded ([`MAX_MESSAGE`]).

use wasmtime::component::Linker;
use wasmtime::StoreContextMut;

use super::boundary::{self, Answer};
use super::outcome::{Exchange, PartnerEnded, RunEnd, TrapKind};
use super::session::P2Host;

/// The WIT interface of the bridge import.
const BRIDGE: &str = "dixit:guest/bridge@0.1.0";

/// The largest call or answer carried, in bytes (16 MiB). A larger call raises in the test; a
/// larger answer ends the run as the solution's failure.
pub const MAX_MESSAGE: usize = 16 << 20;

/// The longest failure report kept, in bytes (the runner writes a few KiB at most).
const MAX_FAILURE_REPORT: usize = 64 << 10;

/// Defines the bridge import for every component.
pub(crate) fn add_to_linker(linker: &mut Linker<P2Host>) -> wasmtime::Result<()> {
    let mut inst = linker.instance(BRIDGE)?;
    inst.func_wrap(
        "call",
        |mut store: StoreContextMut<'_, P2Host>, (request,): (Vec<u8>,)| {
            if request.len() > MAX_MESSAGE {
                let message = "the arguments are too large to pass to the solution";
                return Ok((boundary::raise("ValueError", message),));
            }
            let remaining = store.get_fuel()?;
            let Some(partner) = store.data_mut().partner.as_mut() else {
                let message = "no solution is being served";
                return Ok((boundary::raise("RuntimeError", message),));
            };
            let call = match boundary::read_call(&request, &partner.interface, &partner.handles) {
                Ok(c) => c,
                Err(e) => return Ok((boundary::raise("TypeError", &e.to_string()),)),
            };
            let (answer, used) = partner.session.answer(call.to_bytes(), remaining);
            let answer = match answer {
                Ok(a) if a.len() > MAX_MESSAGE => Answer::Malformed(format!(
                    "{} bytes, more than the {MAX_MESSAGE} a call may return",
                    a.len()
                )),
                Ok(a) => boundary::read_answer(&a, &call, &partner.interface, &mut partner.handles),
                Err(end) => {
                    partner.ended = Some(end);
                    Answer::Ended
                }
            };
            let passed = answer.to_bytes();
            if passed.is_none() && partner.ended.is_none() {
                let message = answer.failure(&call.callee).unwrap_or_default();
                partner.ended = Some(RunEnd::Trap {
                    kind: TrapKind::Boundary,
                    message,
                });
            }
            if partner.log.len() < partner.keep {
                partner.log.push(Exchange { call, answer });
            }
            store.set_fuel(remaining.saturating_sub(used))?;
            match passed {
                Some(bytes) => Ok((bytes,)),
                None => Err(wasmtime::Error::new(PartnerEnded)),
            }
        },
    )?;
    inst.func_wrap(
        "failure",
        |mut store: StoreContextMut<'_, P2Host>, (report,): (String,)| {
            if report.len() <= MAX_FAILURE_REPORT {
                let slot = store.data_mut().failure.clone();
                *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(report);
            }
            Ok(())
        },
    )?;
    inst.func_wrap("code", |store: StoreContextMut<'_, P2Host>, (): ()| {
        Ok((store.data().code.to_vec(),))
    })?;
    Ok(())
}

/// The seed of the solution's instance in a run with `seed`: its own RNG and clock, derived so
/// that every run with the same seed gives the solution the same ones.
pub(crate) fn server_seed(seed: u64) -> u64 {
    super::splitmix64(seed ^ 0x5e12_7e5e_ed00_0001)
}
