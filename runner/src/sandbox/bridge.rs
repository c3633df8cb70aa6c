//! The bridge: a unit test and the solution it checks, each in an instance of its own, meeting
//! only at the solution's interface.
//!
//! A run with a [`Server`] starts the solution's instance first (its `run("serve", dir)` imports
//! the solution), then runs the test in a fresh instance of its own. The test's only way to the
//! solution is the `dixit:guest/bridge.call` import: the host passes the request bytes to the
//! solution instance's `answer` export and the answer bytes back. Nothing else is shared: not a
//! heap, not a file system (the test instance never mounts the solution; the solution instance
//! never mounts the test), not a clock (each has its own virtual time), so a solution can only
//! answer and a test can only observe answers. The verdict is the host's, from the status the
//! test instance returns, or from how the solution's instance ended when it ended a run (a trap,
//! an exit, fuel).
//!
//! Both sides spend one fuel budget: whatever the solution uses answering a request is taken
//! from the test's remaining fuel, so a run costs what it cost when both shared an instance,
//! plus the requests. Messages are bounded ([`MAX_MESSAGE`]) and otherwise opaque here: each
//! side decodes what it receives as untrusted JSON (`guest-sdk/python/dixit_bridge.py`).

use wasmtime::component::Linker;
use wasmtime::StoreContextMut;

use super::outcome::{Exchange, PartnerEnded, RunEnd, TrapKind};
use super::session::P2Host;

/// The WIT interface of the bridge import.
const BRIDGE: &str = "dixit:guest/bridge@0.1.0";

/// The largest request or answer carried, in bytes (16 MiB). A larger request raises in the
/// test; a larger answer ends the run as the solution's failure.
pub const MAX_MESSAGE: usize = 16 << 20;

/// What the test sees when no solution is being served (a program run through the bridge by
/// mistake): an exception, never a value.
const NO_SERVER: &[u8] =
    br#"{"raise":{"mro":["RuntimeError","Exception","BaseException"],"args":["no solution is being served"]}}"#;
const TOO_LARGE: &[u8] =
    br#"{"raise":{"mro":["ValueError","Exception","BaseException"],"args":["the arguments are too large to pass to the solution"]}}"#;

/// Defines the bridge import for every component.
pub(crate) fn add_to_linker(linker: &mut Linker<P2Host>) -> wasmtime::Result<()> {
    let mut inst = linker.instance(BRIDGE)?;
    inst.func_wrap(
        "call",
        |mut store: StoreContextMut<'_, P2Host>, (request,): (Vec<u8>,)| {
            if request.len() > MAX_MESSAGE {
                return Ok((TOO_LARGE.to_vec(),));
            }
            let remaining = store.get_fuel()?;
            let Some(partner) = store.data_mut().partner.as_mut() else {
                return Ok((NO_SERVER.to_vec(),));
            };
            let kept = (partner.log.len() < partner.keep).then(|| request.clone());
            let (answer, used) = partner.session.answer(request, remaining);
            let request = kept.unwrap_or_default();
            let answer = match answer {
                Ok(a) if a.len() <= MAX_MESSAGE => Ok(a),
                Ok(a) => Err(RunEnd::Trap {
                    kind: TrapKind::Other,
                    message: format!(
                        "the solution's answer is {} bytes, more than the {MAX_MESSAGE} a call may return",
                        a.len()
                    ),
                }),
                Err(end) => Err(end),
            };
            match answer {
                Ok(a) => {
                    if partner.log.len() < partner.keep {
                        partner.log.push(Exchange {
                            request,
                            answer: a.clone(),
                        });
                    }
                    store.set_fuel(remaining.saturating_sub(used))?;
                    Ok((a,))
                }
                Err(end) => {
                    if partner.log.len() < partner.keep {
                        partner.log.push(Exchange {
                            request,
                            answer: Vec::new(),
                        });
                    }
                    partner.ended = Some(end);
                    store.set_fuel(remaining.saturating_sub(used))?;
                    Err(wasmtime::Error::new(PartnerEnded))
                }
            }
        },
    )?;
    Ok(())
}

/// The seed of the solution's instance in a run with `seed`: its own RNG and clock, derived so
/// that every run with the same seed gives the solution the same ones.
pub(crate) fn server_seed(seed: u64) -> u64 {
    super::splitmix64(seed ^ 0x5e12_7e5e_ed00_0001)
}
