//! One run of a compiled unit test and its solution ([`Pair`]): a fresh store holding both
//! instances, the solution's made first, then the test's, entered at `wasi:cli/run`. Each side
//! has its own memory limit, clock and random streams (see `crate::pair`).

use wasmtime::component::{self, Val};
use wasmtime::Store;

use crate::entry::Entry;
use crate::host::{MemoryLimiter, RecordingRng, SidedClock, SidedRng, Turn, VirtualTime};
use crate::limits::arm;
use crate::outcome::{end_from_error, end_from_instantiate_error, RunEnd};
use crate::pair::{solution_ended, Pair, MAX_CALL_ELEMENTS};
use crate::session::{P2Host, RunIo, RunMemory};
use crate::spec::RunSpec;
use crate::{Sandbox, SandboxError};

impl Sandbox {
    /// One run of a pair: a fresh store, the solution's instance, then the test's, entered at
    /// `wasi:cli/run`.
    pub(super) fn run_pair(
        &self,
        pair: &Pair,
        spec: &RunSpec,
        io: &RunIo,
    ) -> Result<(RunEnd, u64, RunMemory), SandboxError> {
        let Entry::Start { argv } = &spec.entry else {
            return Err(SandboxError::Entry(
                "a compiled test is entered at its `main`, not through a call",
            ));
        };
        let mut b = io.wasi_builder(spec)?;
        b.args(argv);
        // One WASI context serves both instances, but each side has its own clock and RNG
        // streams (as if it ran alone), so neither can see how much the other read of them.
        let turn = Turn::default();
        let solution_time = VirtualTime::new(spec.seed, io.probe.clone());
        // Streams of their own per side (1, 2 the test's; 3, 4 the solution's): with the same
        // stream a solution would draw exactly the test's random inputs.
        let rng = |stream| SidedRng {
            test: RecordingRng::new(spec.seed, stream, io.probe.clone()),
            solution: RecordingRng::new(spec.seed, stream + 2, io.probe.clone()),
            turn: turn.clone(),
        };
        let clock = || SidedClock {
            test: io.time.clone(),
            solution: solution_time.clone(),
            turn: turn.clone(),
        };
        b.secure_random(rng(1))
            .insecure_random(rng(2))
            .wall_clock(clock())
            .monotonic_clock(clock());
        let host = P2Host {
            wasi: b.build(),
            table: component::ResourceTable::new(),
            limiter: MemoryLimiter::per_side(
                spec.limits.memory_bytes.min(self.max_memory_bytes),
                turn.clone(),
            ),
            time: io.time.clone(),
            partner: None,
            failure: io.failure.clone(),
            solution: Vec::new(),
            turn: Some((turn, solution_time)),
            code: std::sync::Arc::from(Vec::new()),
        };
        let mut store = Store::new(&self.engine, host);
        store.set_hostcall_fuel(MAX_CALL_ELEMENTS * std::mem::size_of::<Val>());
        store.limiter(|h| &mut h.limiter);
        arm(&mut store, &spec.limits)?;
        let end = run_pair_in(&mut store, pair);
        let fuel = spec
            .limits
            .fuel
            .saturating_sub(store.get_fuel().unwrap_or(0));
        Ok((end, fuel, RunMemory::of(&store.data().limiter)))
    }
}

fn run_pair_in(store: &mut Store<P2Host>, pair: &Pair) -> RunEnd {
    let turn = store.data().current_turn();
    let solution = match turn.solution(|| pair.solution.instantiate(&mut *store)) {
        Ok(i) => i,
        Err(e) => return end_from_instantiate_error(solution_ended(e)),
    };
    let mut funcs = Vec::with_capacity(pair.exports.len());
    for idx in &pair.exports {
        match solution.get_func(&mut *store, idx) {
            Some(f) => funcs.push(f),
            None => {
                return RunEnd::HostError {
                    message: "the solution's instance lacks an export it was linked with".into(),
                }
            }
        }
    }
    store.data_mut().solution = funcs;
    let test = match pair.test.instantiate(&mut *store) {
        Ok(i) => i,
        Err(e) => return end_from_instantiate_error(e),
    };
    let run = match test.get_typed_func::<(), (Result<(), ()>,)>(&mut *store, pair.run) {
        Ok(f) => f,
        Err(e) => {
            return RunEnd::HostError {
                message: format!("{e:#}"),
            }
        }
    };
    match run.call(&mut *store, ()) {
        Ok((Ok(()),)) => RunEnd::Returned { code: 0 },
        // The command adapter returns an error only where `main`'s caller exited.
        Ok((Err(()),)) => RunEnd::Exit { code: 1 },
        Err(e) => end_from_error(e),
    }
}
