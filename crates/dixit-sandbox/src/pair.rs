//! A compiled unit test and its solution as two components in one run (C, C++): the
//! solution's component exports the interface `dixit:unit/api`, the test's imports it, and the
//! host links the two. Each component has its own linear memories; every call the test makes
//! is a host function that lifts the arguments out of the test's memory into host values and
//! lowers them into the solution's (the canonical ABI), and the result back. Neither side
//! holds a pointer into the other's memory, so neither can read or write the other's data.
//!
//! Both instances live in one store: one fuel budget covers the run, as it did when test and
//! solution shared an instance (the solution's work on a call is paid from the run's budget),
//! and each side has the memory limit to itself (`MemoryLimiter::per_side`). The solution's instance is made first (its constructors run then),
//! then the test's, whose `wasi:cli/run` export is the entry: it returns only when the test's
//! `main` returned 0 (`Completion::Returned`). The two share the run's WASI context (stdout and
//! stderr), which holds no memory of either side; each has its own virtual clock and random
//! streams. Any exit of the solution's is its crash, never the test's exit code.

use wasmtime::component::{self, Component, ComponentExportIndex, Func, Val};
use wasmtime::{Engine, Store, StoreContextMut};
use wasmtime_wasi::I32Exit;

use super::host::{MemoryLimiter, RecordingRng, SidedClock, SidedRng, Turn, VirtualTime};
use super::limits::arm;
use super::outcome::{end_from_error, end_from_instantiate_error, RunEnd, SolutionExited};
use super::session::{P2Host, RunIo, RunMemory};
use super::spec::{Entry, RunSpec};
use super::{Sandbox, SandboxError};

/// The interface a test imports and its solution exports.
pub(crate) const API: &str = "dixit:unit/api";

/// How many list elements (or string bytes) one call may carry each way between the sides: 16 Mi,
/// as a Python call carries 16 MiB, the same for every solution. Each crosses the host as one
/// `Val`, which wasmtime counts against a call's host-call fuel (128 MiB by default: about 4 Mi
/// elements, so a 4 MiB array of ints failed every solution).
pub(crate) const MAX_CALL_ELEMENTS: usize = 16 << 20;

/// The test's entry: WASI's command world.
const RUN: &str = "wasi:cli/run";

/// A linked pair, ready to instantiate many times.
pub(crate) struct Pair {
    pub test: component::InstancePre<P2Host>,
    pub solution: component::InstancePre<P2Host>,
    /// The test's `wasi:cli/run#run`.
    pub run: ComponentExportIndex,
    /// The solution's exports of [`API`], in the order of the host functions that forward to
    /// them.
    pub exports: Vec<ComponentExportIndex>,
}

/// The linker both sides of a pair start from: WASI preview 2 and virtual sleep.
pub(crate) fn base_linker(engine: &Engine) -> wasmtime::Result<component::Linker<P2Host>> {
    let mut l = component::Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut l)?;
    super::sleep::add_p2(&mut l)?;
    Ok(l)
}

/// The names of the functions of instance `name` that `c` imports, in its order.
fn imported_functions(engine: &Engine, c: &Component, name: &str) -> Vec<String> {
    let ty = c.component_type();
    for (import, item) in ty.imports(engine) {
        if import == name {
            if let component::types::ComponentItem::ComponentInstance(i) = item.ty {
                return i
                    .exports(engine)
                    .filter(|(_, item)| {
                        matches!(item.ty, component::types::ComponentItem::ComponentFunc(_))
                    })
                    .map(|(n, _)| n.to_string())
                    .collect();
            }
        }
    }
    Vec::new()
}

/// The export index of `name` in the instance of `c` whose name starts with `prefix`.
fn export_instance(c: &Component, engine: &Engine, prefix: &str) -> Option<ComponentExportIndex> {
    let ty = c.component_type();
    let name = ty
        .exports(engine)
        .map(|(n, _)| n.to_string())
        .find(|n| n == prefix || n.starts_with(&format!("{prefix}@")))?;
    c.get_export_index(None, &name)
}

impl Pair {
    /// Links `test` to `solution`: each function of [`API`] the test imports becomes a host
    /// function calling the solution's export of that name. A function the test imports that
    /// the solution does not export is a link error (the solution does not have the
    /// interface).
    pub(crate) fn link(
        engine: &Engine,
        base: &component::Linker<P2Host>,
        test: &Component,
        solution: &Component,
    ) -> Result<Pair, SandboxError> {
        let link = |message: String| SandboxError::Link { message };
        let names = imported_functions(engine, test, API);
        let api = solution.get_export_index(None, API);
        let mut exports = Vec::new();
        for n in &names {
            let idx = api
                .as_ref()
                .and_then(|a| solution.get_export_index(Some(a), n))
                .ok_or_else(|| {
                    link(format!(
                        "the solution's component does not export `{API}#{n}`"
                    ))
                })?;
            exports.push(idx);
        }
        let mut linker = base.clone();
        {
            let mut inst = linker.instance(API).map_err(|e| link(format!("{e:#}")))?;
            for (i, n) in names.iter().enumerate() {
                inst.func_new(n, move |store, _ty, params, results| {
                    forward(store, i, params, results)
                })
                .map_err(|e| link(format!("{e:#}")))?;
            }
        }
        let run_instance = export_instance(test, engine, RUN)
            .ok_or_else(|| link("the test's component has no `wasi:cli/run` export".into()))?;
        let run = test
            .get_export_index(Some(&run_instance), "run")
            .ok_or_else(|| link("the test's component has no `wasi:cli/run#run`".into()))?;
        let test = linker
            .instantiate_pre(test)
            .map_err(|e| link(format!("the test's component: {e:#}")))?;
        let solution = base
            .instantiate_pre(solution)
            .map_err(|e| link(format!("the solution's component: {e:#}")))?;
        Ok(Pair {
            test,
            solution,
            run,
            exports,
        })
    }
}

/// The host function behind the test's import `i`: the same call on the solution's instance.
/// The arguments arrive lifted out of the test's memory; the call lowers them into the
/// solution's, and its results come back the same way.
fn forward(
    mut store: StoreContextMut<'_, P2Host>,
    i: usize,
    params: &[Val],
    results: &mut [Val],
) -> wasmtime::Result<()> {
    let func: Func = *store
        .data()
        .solution
        .get(i)
        .ok_or_else(|| wasmtime::Error::msg("the solution's instance is not linked"))?;
    let turn = store
        .data()
        .turn
        .as_ref()
        .map(|(t, _)| t.clone())
        .unwrap_or_default();
    turn.solution(|| func.call(&mut store, params, results))
        .map_err(solution_ended)
}

/// An exit of the solution's during a call or its instantiation (C's `exit`, a direct WASI
/// `proc_exit`, Rust's `process::exit`) is the solution's crash: with the exit passed on, its
/// code would read as the test's own (a nonzero code as a failed check).
fn solution_ended(e: wasmtime::Error) -> wasmtime::Error {
    match e.downcast_ref::<I32Exit>() {
        Some(exit) => SolutionExited(exit.0).into(),
        None => e,
    }
}

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
        let l = &store.data().limiter;
        Ok((
            end,
            fuel,
            RunMemory {
                peak: l.peak,
                denied: l.denied,
            },
        ))
    }
}

fn run_pair_in(store: &mut Store<P2Host>, pair: &Pair) -> RunEnd {
    let turn = store
        .data()
        .turn
        .as_ref()
        .map(|(t, _)| t.clone())
        .unwrap_or_default();
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
