//! Virtual sleeping. wasmtime-wasi implements sleeps with real host timers, so a guest calling
//! `sleep(10**9)` would hold a host thread (the epoch safety net only interrupts running wasm).
//! Here a sleep returns at once and advances the run's virtual clock instead, and is paid for in
//! fuel ([`SLEEP_FUEL_PER_MS`]): sleeping counts against the run's time budget as it would on a
//! judge, deterministically, and a guest that sleeps for longer than its budget allows (or
//! forever) ends with `time_limit` at once. Without the charge, virtual time ran away: CPython's
//! `time.sleep(1e9)` in a loop overflowed its clock arithmetic after a few iterations and the run
//! ended in a misleading `OverflowError`.

use wasmtime::component::{Resource, ResourceTable};
use wasmtime::{AsContextMut, Caller, Extern, Linker, Trap};
use wasmtime_wasi::p2::{subscribe, DynPollable, Pollable};

use super::host::P1Host;
use super::session::P2Host;

/// Fuel charged per millisecond of virtual sleep: 10⁶ per ms (10⁹ per second), about a fifth of
/// a second of guest computation per second slept. The default budget of 4·10⁹ allows about four
/// seconds of sleep in total.
pub(crate) const SLEEP_FUEL_PER_MS: u64 = 1_000_000;

/// Takes the fuel a sleep of `nanos` costs from the store; when the store has less, empties it
/// and ends the run as out of fuel (the guest would have slept past its time limit).
fn charge(mut store: impl AsContextMut, nanos: u64) -> wasmtime::Result<()> {
    let cost = sleep_cost(nanos);
    if cost == 0 {
        return Ok(());
    }
    let mut store = store.as_context_mut();
    let left = store.get_fuel()?;
    if cost > left {
        store.set_fuel(0)?;
        return Err(Trap::OutOfFuel.into());
    }
    store.set_fuel(left - cost)
}

/// The fuel a sleep of `nanos` costs (saturating: sleeping for ever costs all there is).
fn sleep_cost(nanos: u64) -> u64 {
    u64::try_from(u128::from(nanos) * u128::from(SLEEP_FUEL_PER_MS) / 1_000_000).unwrap_or(u64::MAX)
}

/// A pollable that is always ready.
struct Ready;

#[wasmtime_wasi::async_trait]
impl Pollable for Ready {
    async fn ready(&mut self) {}
}

fn ready(table: &mut ResourceTable) -> wasmtime::Result<Resource<DynPollable>> {
    let r = table.push(Ready)?;
    subscribe(table, r)
}

/// The `wasi:clocks/monotonic-clock` version wasmtime-wasi 48 provides (and that we shadow).
const MONOTONIC_CLOCK: &str = "wasi:clocks/monotonic-clock@0.2.12";

/// Shadows `subscribe-duration` and `subscribe-instant` of the component linker.
pub(crate) fn add_p2(linker: &mut wasmtime::component::Linker<P2Host>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut inst = linker.instance(MONOTONIC_CLOCK)?;
    inst.func_wrap(
        "subscribe-duration",
        |mut store: wasmtime::StoreContextMut<'_, P2Host>, (nanos,): (u64,)| {
            charge(&mut store, nanos)?;
            let host = store.data_mut();
            let time = host.clock();
            time.advance_to(time.peek().saturating_add(nanos));
            Ok((ready(&mut host.table)?,))
        },
    )?;
    inst.func_wrap(
        "subscribe-instant",
        |mut store: wasmtime::StoreContextMut<'_, P2Host>, (when,): (u64,)| {
            let now = store.data().clock().peek();
            charge(&mut store, when.saturating_sub(now))?;
            let host = store.data_mut();
            host.clock().advance_to(when);
            Ok((ready(&mut host.table)?,))
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

// WASI preview 1 layout of `subscription` (48 bytes) and `event` (32 bytes).
const SUBSCRIPTION_SIZE: usize = 48;
const EVENT_SIZE: usize = 32;
const EVENTTYPE_CLOCK: u8 = 0;
const SUBCLOCKFLAG_ABSTIME: u16 = 1;
const CLOCKID_REALTIME: u32 = 0;
const ERRNO_SUCCESS: i32 = 0;
const ERRNO_FAULT: i32 = 21;
const ERRNO_INVAL: i32 = 28;

/// Replaces `wasi_snapshot_preview1::poll_oneoff`: file-descriptor subscriptions (stdin and the
/// capture pipes, always ready) are reported ready at once; otherwise the earliest clock
/// subscription fires after advancing virtual time to its deadline.
pub(crate) fn add_p1(linker: &mut Linker<P1Host>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    linker.func_wrap(
        "wasi_snapshot_preview1",
        "poll_oneoff",
        |mut caller: Caller<'_, P1Host>,
         sub_ptr: i32,
         ev_ptr: i32,
         n: i32,
         nev_ptr: i32|
         -> wasmtime::Result<i32> {
            poll_oneoff(
                &mut caller,
                sub_ptr as u32,
                ev_ptr as u32,
                n as u32,
                nev_ptr as u32,
            )
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

struct Sub {
    userdata: u64,
    tag: u8,
    deadline: u64,
}

fn poll_oneoff(
    caller: &mut Caller<'_, P1Host>,
    sub_ptr: u32,
    ev_ptr: u32,
    n: u32,
    nev_ptr: u32,
) -> wasmtime::Result<i32> {
    if n == 0 {
        return Ok(ERRNO_INVAL);
    }
    let Some(Extern::Memory(memory)) = caller.get_export("memory") else {
        return Ok(ERRNO_FAULT);
    };
    let time = caller.data().time.clone();
    let now = time.peek();
    let (mem, _) = memory.data_and_store_mut(&mut *caller);
    let n = n as usize;
    let Some(subs_bytes) = slice(mem, sub_ptr as usize, n * SUBSCRIPTION_SIZE) else {
        return Ok(ERRNO_FAULT);
    };
    let mut subs = Vec::with_capacity(n);
    for s in subs_bytes.chunks_exact(SUBSCRIPTION_SIZE) {
        let userdata = u64::from_le_bytes(s[0..8].try_into().unwrap_or_default());
        let tag = s[8];
        let deadline = if tag == EVENTTYPE_CLOCK {
            let id = u32::from_le_bytes(s[16..20].try_into().unwrap_or_default());
            let timeout = u64::from_le_bytes(s[24..32].try_into().unwrap_or_default());
            let flags = u16::from_le_bytes(s[40..42].try_into().unwrap_or_default());
            if flags & SUBCLOCKFLAG_ABSTIME != 0 {
                if id == CLOCKID_REALTIME {
                    timeout.saturating_sub(time.wall_base_ns())
                } else {
                    timeout
                }
            } else {
                now.saturating_add(timeout)
            }
        } else {
            now
        };
        subs.push(Sub {
            userdata,
            tag,
            deadline,
        });
    }
    let fd_ready = subs.iter().any(|s| s.tag != EVENTTYPE_CLOCK);
    let fire_at = if fd_ready {
        now
    } else {
        subs.iter().map(|s| s.deadline).min().unwrap_or(now)
    };
    charge(&mut *caller, fire_at.saturating_sub(now))?;
    time.advance_to(fire_at);
    let (mem, _) = memory.data_and_store_mut(&mut *caller);
    let fired: Vec<&Sub> = subs
        .iter()
        .filter(|s| {
            if fd_ready {
                s.tag != EVENTTYPE_CLOCK
            } else {
                s.deadline <= fire_at
            }
        })
        .collect();
    let Some(events) = slice_mut(mem, ev_ptr as usize, fired.len() * EVENT_SIZE) else {
        return Ok(ERRNO_FAULT);
    };
    for (e, s) in events.chunks_exact_mut(EVENT_SIZE).zip(&fired) {
        e.fill(0);
        e[0..8].copy_from_slice(&s.userdata.to_le_bytes());
        e[10] = s.tag;
    }
    let count = fired.len() as u32;
    let Some(nev) = slice_mut(mem, nev_ptr as usize, 4) else {
        return Ok(ERRNO_FAULT);
    };
    nev.copy_from_slice(&count.to_le_bytes());
    Ok(ERRNO_SUCCESS)
}

fn slice(mem: &[u8], at: usize, len: usize) -> Option<&[u8]> {
    mem.get(at..at.checked_add(len)?)
}

fn slice_mut(mem: &mut [u8], at: usize, len: usize) -> Option<&mut [u8]> {
    mem.get_mut(at..at.checked_add(len)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleeping_costs_fuel_in_proportion() {
        assert_eq!(sleep_cost(0), 0);
        assert_eq!(sleep_cost(1), 1, "one unit per nanosecond");
        assert_eq!(sleep_cost(1_000_000), SLEEP_FUEL_PER_MS);
        assert_eq!(sleep_cost(500_000_000), 500 * SLEEP_FUEL_PER_MS);
        assert_eq!(sleep_cost(u64::MAX), u64::MAX, "for ever costs everything");
        // The default budget covers a few seconds of sleep, not a day.
        let budget = crate::Limits::default().fuel;
        assert!(sleep_cost(2_000_000_000) < budget);
        assert!(sleep_cost(86_400_000_000_000) > budget);
    }
}
