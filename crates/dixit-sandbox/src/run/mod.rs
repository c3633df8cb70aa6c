//! One run: a fresh store and WASI context, the program instantiated from its `InstancePre`,
//! entered once, and everything observed collected into a [`RunOutcome`]; also how a
//! [`Session`] is started from a [`RunSpec`], with its solution's instance beside it.

mod pair;

use std::sync::Arc;
use std::time::Instant;

use wasmtime::Store;
use wasmtime_wasi::p2::pipe::MemoryInputPipe;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use crate::bridge::server_seed;
use crate::engine::{Program, ProgramInner, Sandbox};
use crate::entry::Entry;
use crate::host::{
    CappedPipe, MemoryLimiter, P1Host, Probe, RecordingRng, VirtualClock, VirtualTime,
};
use crate::limits::arm;
use crate::memory::{self, Image};
use crate::outcome::{end_from_error, end_from_instantiate_error, RunEnd, RunOutcome};
use crate::session::{P2Host, Partner, RunIo, RunMemory, Session};
use crate::spec::{RunSpec, Server};
use crate::SandboxError;

impl Sandbox {
    /// Runs `program` once under `spec`. Never fails: host problems come back as
    /// [`RunEnd::HostError`], so one broken run cannot stop a matrix.
    pub fn run(&self, program: &Program, spec: &RunSpec) -> RunOutcome {
        let started = Instant::now();
        let io = RunIo::new(spec);
        let end = match &*program.inner {
            ProgramInner::Module(pre) => self.run_module(pre, spec, &io),
            ProgramInner::Component {
                pre,
                run,
                answer,
                image,
            } => self.run_component(pre, (*run, *answer), image.as_ref(), spec, &io),
            ProgramInner::Pair(pair) => self.run_pair(pair, spec, &io),
        };
        let (end, fuel_used, mem) = match end {
            Ok(x) => x,
            Err(e) => (
                RunEnd::HostError {
                    message: e.to_string(),
                },
                0,
                RunMemory::default(),
            ),
        };
        io.finish(end, fuel_used, mem, started.elapsed())
    }

    fn run_module(
        &self,
        pre: &wasmtime::InstancePre<P1Host>,
        spec: &RunSpec,
        io: &RunIo,
    ) -> Result<(RunEnd, u64, RunMemory), SandboxError> {
        let Entry::Start { argv } = &spec.entry else {
            return Err(SandboxError::Entry(
                "a core module is entered at `_start`, not through a call",
            ));
        };
        let mut b = io.wasi_builder(spec)?;
        b.args(argv);
        let host = P1Host {
            wasi: b.build_p1(),
            limiter: MemoryLimiter::new(spec.limits.memory_bytes.min(self.max_memory_bytes)),
            time: io.time.clone(),
        };
        let mut store = Store::new(&self.engine, host);
        store.limiter(|h| &mut h.limiter);
        arm(&mut store, &spec.limits)?;
        let end = match pre.instantiate(&mut store) {
            Err(e) => end_from_instantiate_error(e),
            Ok(inst) => match inst
                .get_typed_func::<(), ()>(&mut store, "_start")
                .and_then(|start| start.call(&mut store, ()))
            {
                Ok(()) => RunEnd::Returned { code: 0 },
                Err(e) => end_from_error(e),
            },
        };
        let fuel = spec
            .limits
            .fuel
            .saturating_sub(store.get_fuel().unwrap_or(0));
        Ok((end, fuel, RunMemory::of(&store.data().limiter)))
    }

    /// A component run. With `spec.server`, a unit test runs apart from its solution (see
    /// [`super::bridge`]): the solution's instance is started and serves first, then the test
    /// runs in an instance of its own whose requests the solution's instance answers; one fuel
    /// budget covers both, and how the solution's instance ended decides the run when it ended
    /// it.
    fn run_component(
        &self,
        pre: &wasmtime::component::InstancePre<P2Host>,
        exports: Exports,
        image: Option<&Arc<Image>>,
        spec: &RunSpec,
        io: &RunIo,
    ) -> Result<(RunEnd, u64, RunMemory), SandboxError> {
        let Some(call) = spec.entry.call_args() else {
            return Err(SandboxError::Entry(
                "a component is entered through its `run` export, not `_start`",
            ));
        };
        let mut session = Session::start(self, pre, exports, image, spec, io)?;
        if let Some(server) = &spec.server {
            session.attach(self, spec, server)?;
            return Ok(session.call_apart(call, spec.limits.fuel));
        }
        let (end, fuel) = session.call(call, spec.limits.fuel);
        Ok((end, fuel, RunMemory::of(&session.store.data().limiter)))
    }

    /// Instantiates a component once for many calls (isolation level `solution`): each call gets
    /// its own fuel budget and output capture, but memory and module state persist between calls,
    /// so the guest runtime must give each call a fresh namespace. With `spec.server`, the
    /// solution's side is a second session: before each call it serves afresh (see
    /// [`Session::call_outcome`]).
    pub fn session(&self, program: &Program, spec: &RunSpec) -> Result<Session, SandboxError> {
        let ProgramInner::Component {
            pre,
            run,
            answer,
            image,
        } = &*program.inner
        else {
            return Err(SandboxError::Entry("sessions need a component"));
        };
        let io = RunIo::new(spec);
        let mut session = Session::start(self, pre, (*run, *answer), image.as_ref(), spec, &io)?;
        if let Some(server) = &spec.server {
            session.attach(self, spec, server)?;
        }
        Ok(session)
    }
}

/// A component's `run` export and, when it has one, its `answer` export.
type Exports = (
    wasmtime::component::ComponentExportIndex,
    Option<wasmtime::component::ComponentExportIndex>,
);

// Starting a session takes the sandbox and a run spec, which `session.rs` does not know.
impl Session {
    fn start(
        sandbox: &Sandbox,
        pre: &wasmtime::component::InstancePre<P2Host>,
        (run, answer): Exports,
        image: Option<&Arc<Image>>,
        spec: &RunSpec,
        io: &RunIo,
    ) -> Result<Session, SandboxError> {
        let b = io.wasi_builder(spec)?;
        let host = P2Host {
            wasi: { b }.build(),
            table: wasmtime::component::ResourceTable::new(),
            limiter: MemoryLimiter::new(spec.limits.memory_bytes.min(sandbox.max_memory_bytes)),
            time: io.time.clone(),
            partner: None,
            failure: io.failure.clone(),
            solution: Vec::new(),
            turn: None,
            code: Arc::from(Vec::new()),
        };
        let mut store = Store::new(&sandbox.components, host);
        store.limiter(|h| &mut h.limiter);
        arm(&mut store, &spec.limits)?;
        // The component's memory starts as its image (see `sandbox::memory`).
        let lane = match &spec.entry {
            Entry::Call { mode, .. } => memory::Lane::of(Some(*mode)),
            Entry::Start { .. } => memory::Lane::of(None),
        };
        let armed = image.map(|i| memory::arm(i, lane));
        let instance = pre.instantiate(&mut store);
        drop(armed);
        let (func, answer, instantiate_error) = match instance {
            Err(e) => (None, None, Some(end_from_instantiate_error(e))),
            Ok(inst) => match inst
                .get_typed_func::<(String, String, Vec<String>), (i32,)>(&mut store, &run)
            {
                Ok(f) => {
                    let answer = answer.and_then(|a| {
                        inst.get_typed_func::<(Vec<u8>,), (Vec<u8>,)>(&mut store, &a)
                            .ok()
                    });
                    (Some(f), answer, None)
                }
                Err(e) => (
                    None,
                    None,
                    Some(RunEnd::HostError {
                        message: format!("{e:#}"),
                    }),
                ),
            },
        };
        Ok(Session {
            store,
            func,
            answer,
            io: io.clone(),
            limits: spec.limits.clone(),
            instantiate_error,
        })
    }

    /// Starts the solution's instance for `server` beside this one (not yet serving).
    fn attach(
        &mut self,
        sandbox: &Sandbox,
        spec: &RunSpec,
        server: &Arc<Server>,
    ) -> Result<(), SandboxError> {
        let ProgramInner::Component {
            pre,
            run,
            answer,
            image,
        } = &*server.program.inner
        else {
            return Err(SandboxError::Entry("a solution is served by a component"));
        };
        let server_spec = RunSpec {
            entry: Entry::Call {
                mode: server.mode,
                target: server.target.clone(),
                args: server.args.clone(),
                code: server.code.clone(),
            },
            stdin: Arc::from(Vec::new()),
            preopens: server.preopens.clone(),
            limits: spec.limits.clone(),
            seed: server_seed(spec.seed),
            server: None,
        };
        let io = RunIo::sharing_probe(&server_spec, self.io.probe.clone());
        let session = Session::start(
            sandbox,
            pre,
            (*run, *answer),
            image.as_ref(),
            &server_spec,
            &io,
        )?;
        self.store.data_mut().partner = Some(Box::new(Partner {
            session,
            mode: server.mode,
            target: server.target.clone(),
            args: server.args.clone(),
            code: server.code.clone(),
            interface: server.interface.clone(),
            keep: server.log,
            handles: Default::default(),
            ended: None,
            log: Vec::new(),
        }));
        Ok(())
    }
}

// A run's I/O as its spec sets it up; `session.rs` collects what it captured.
impl RunIo {
    fn new(spec: &RunSpec) -> Self {
        Self::sharing_probe(spec, Arc::new(Probe::default()))
    }

    /// The I/O of a run's second instance (a solution served apart): its own pipes and virtual
    /// time, the run's probe (a read of entropy or a clock on either side makes the run
    /// seed-dependent).
    fn sharing_probe(spec: &RunSpec, probe: Arc<Probe>) -> Self {
        let cap = usize::try_from(spec.limits.output_bytes).unwrap_or(usize::MAX);
        RunIo {
            stdout: CappedPipe::new(cap),
            stderr: CappedPipe::new(cap),
            time: VirtualTime::new(spec.seed, probe.clone()),
            probe,
            server_overflow: Default::default(),
            exchanges: Default::default(),
            failure: Default::default(),
        }
    }

    /// A WASI context with nothing from the host: no env, no network, no inherited stdio;
    /// stdin from memory; read-only preopens; seeded RNGs and the virtual clock.
    pub(super) fn wasi_builder(&self, spec: &RunSpec) -> Result<WasiCtxBuilder, SandboxError> {
        let mut b = WasiCtxBuilder::new();
        b.stdin(MemoryInputPipe::new(bytes::Bytes::copy_from_slice(
            &spec.stdin,
        )))
        .stdout(self.stdout.clone())
        .stderr(self.stderr.clone())
        .secure_random(RecordingRng::new(spec.seed, 1, self.probe.clone()))
        .insecure_random(RecordingRng::new(spec.seed, 2, self.probe.clone()))
        .insecure_random_seed(0x6469_7869_745f_7365_6564_5f76_3100_0000)
        .wall_clock(VirtualClock(self.time.clone()))
        .monotonic_clock(VirtualClock(self.time.clone()))
        .allow_blocking_current_thread(true);
        for p in &spec.preopens {
            b.preopened_dir(&p.host, &p.guest, FsPerms::ReadOnly)
                .map_err(|error| SandboxError::Preopen {
                    path: p.host.clone(),
                    error,
                })?;
        }
        Ok(b)
    }
}
