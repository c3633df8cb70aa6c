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
use wasmtime::{Engine, StoreContextMut};
use wasmtime_wasi::I32Exit;

use super::outcome::SolutionExited;
use super::session::P2Host;
use super::SandboxError;

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
    let turn = store.data().current_turn();
    turn.solution(|| func.call(&mut store, params, results))
        .map_err(solution_ended)
}

/// An exit of the solution's during a call or its instantiation (C's `exit`, a direct WASI
/// `proc_exit`, Rust's `process::exit`) is the solution's crash: with the exit passed on, its
/// code would read as the test's own (a nonzero code as a failed check).
pub(crate) fn solution_ended(e: wasmtime::Error) -> wasmtime::Error {
    match e.downcast_ref::<I32Exit>() {
        Some(exit) => SolutionExited(exit.0).into(),
        None => e,
    }
}
