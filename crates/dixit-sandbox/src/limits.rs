//! The limits of one run, and how a store is armed with them.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use wasmtime::Store;

use super::SandboxError;

/// Epoch ticks happen this often; the wall-clock limit is rounded up to a whole tick.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Limits of one run. Each bounds one resource and only that one: fuel bounds executed
/// instructions (deterministically), not wall time spent in the host; the memory limit bounds the
/// total size of the guest's linear memories, not host-side buffers (which the output caps bound);
/// the wall-clock limit is only a safety net and its verdict is flagged as not deterministic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Fuel units (about one per WebAssembly instruction). Default 4·10⁹: about a second of
    /// guest CPU on this class of machine, and several seconds for interpreted Python. Sleeping
    /// is paid from the same budget (10⁶ units per virtual millisecond, see `sleep.rs`), so
    /// the default allows about four seconds of sleep in total.
    pub fuel: u64,
    /// Total bytes of all linear memories of the run. Default 256 MiB.
    pub memory_bytes: u64,
    /// Bytes kept of each of stdout and stderr; writing more ends the run (`output_limit`).
    /// Default 1 MiB.
    pub output_bytes: u64,
    /// Wall-clock safety net in milliseconds (epoch interruption). Default 10 000.
    pub wall_time_ms: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            fuel: 4_000_000_000,
            memory_bytes: 256 << 20,
            output_bytes: 1 << 20,
            wall_time_ms: 10_000,
        }
    }
}

/// Gives `store` the run's fuel and its wall-clock deadline.
pub(crate) fn arm<T>(store: &mut Store<T>, limits: &Limits) -> Result<(), SandboxError> {
    store.set_fuel(limits.fuel).map_err(SandboxError::Fuel)?;
    arm_epoch(store, limits);
    Ok(())
}

/// Sets `store`'s wall-clock deadline: the limit in whole epoch ticks (at least one),
/// plus one.
pub(crate) fn arm_epoch<T>(store: &mut Store<T>, limits: &Limits) {
    let ticks = limits
        .wall_time_ms
        .div_ceil(EPOCH_TICK.as_millis() as u64)
        .max(1)
        + 1;
    store.set_epoch_deadline(ticks);
    store.epoch_deadline_trap();
}
