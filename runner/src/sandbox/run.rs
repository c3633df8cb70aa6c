//! One run: a fresh store and WASI context, the program instantiated from its `InstancePre`,
//! entered once, and everything observed collected into a [`RunOutcome`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::component::TypedFunc;
use wasmtime::Store;
use wasmtime_wasi::p2::pipe::MemoryInputPipe;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use super::bridge::{server_seed, Partner};
use super::engine::ProgramInner;
use super::engine::{Program, Sandbox};
use super::host::{
    CappedPipe, MemoryLimiter, P1Host, P2Host, Probe, RecordingRng, VirtualClock, VirtualTime,
};
use super::limits::Limits;
use super::limits::{arm, arm_epoch};
use super::memory::{self, Image};
use super::outcome::{
    end_from_error, end_from_instantiate_error, Exchange, RunEnd, RunOutcome, TrapKind,
};
use super::spec::{Entry, RunSpec, Server};

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
        };
        let (end, fuel_used, mem) = match end {
            Ok(x) => x,
            Err(message) => (RunEnd::HostError { message }, 0, MemoryStats::default()),
        };
        io.finish(end, fuel_used, mem, started.elapsed())
    }

    fn run_module(
        &self,
        pre: &wasmtime::InstancePre<P1Host>,
        spec: &RunSpec,
        io: &RunIo,
    ) -> Result<(RunEnd, u64, MemoryStats), String> {
        let Entry::Start { argv } = &spec.entry else {
            return Err("a core module is entered at `_start`, not through a call".into());
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
        let l = &store.data().limiter;
        Ok((
            end,
            fuel,
            MemoryStats {
                peak: l.peak,
                denied: l.denied,
            },
        ))
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
    ) -> Result<(RunEnd, u64, MemoryStats), String> {
        let Entry::Call { mode, target, args } = &spec.entry else {
            return Err("a component is entered through its `run` export, not `_start`".into());
        };
        let mut session = Session::start(self, pre, exports, image, spec, io)?;
        if let Some(server) = &spec.server {
            session.attach(self, spec, server)?;
            return Ok(session.call_apart(mode, target, args, spec.limits.fuel));
        }
        let (end, fuel) = session.call(mode, target, args, spec.limits.fuel);
        let l = &session.store.data().limiter;
        Ok((
            end,
            fuel,
            MemoryStats {
                peak: l.peak,
                denied: l.denied,
            },
        ))
    }

    /// Instantiates a component once for many calls (isolation level `solution`): each call gets
    /// its own fuel budget and output capture, but memory and module state persist between calls,
    /// so the guest runtime must give each call a fresh namespace. With `spec.server`, the
    /// solution's side is a second session: before each call it serves afresh (see
    /// [`Session::call_outcome`]).
    pub fn session(&self, program: &Program, spec: &RunSpec) -> Result<Session, String> {
        let ProgramInner::Component {
            pre,
            run,
            answer,
            image,
        } = &*program.inner
        else {
            return Err("sessions need a component".into());
        };
        let io = RunIo::new(spec);
        let mut session = Session::start(self, pre, (*run, *answer), image.as_ref(), spec, &io)?;
        if let Some(server) = &spec.server {
            session.attach(self, spec, server)?;
        }
        Ok(session)
    }
}

#[derive(Default)]
struct MemoryStats {
    peak: usize,
    denied: bool,
}

type RunFunc = TypedFunc<(String, String, Vec<String>), (i32,)>;
type AnswerFunc = TypedFunc<(Vec<u8>,), (Vec<u8>,)>;

/// A component's `run` export and, when it has one, its `answer` export.
type Exports = (
    wasmtime::component::ComponentExportIndex,
    Option<wasmtime::component::ComponentExportIndex>,
);

/// One live component instance that can be called repeatedly (see [`Sandbox::session`]).
pub struct Session {
    store: Store<P2Host>,
    func: Option<RunFunc>,
    answer: Option<AnswerFunc>,
    io: RunIo,
    limits: Limits,
    instantiate_error: Option<RunEnd>,
}

impl Session {
    fn start(
        sandbox: &Sandbox,
        pre: &wasmtime::component::InstancePre<P2Host>,
        (run, answer): Exports,
        image: Option<&Arc<Image>>,
        spec: &RunSpec,
        io: &RunIo,
    ) -> Result<Session, String> {
        let b = io.wasi_builder(spec)?;
        let host = P2Host {
            wasi: { b }.build(),
            table: wasmtime::component::ResourceTable::new(),
            limiter: MemoryLimiter::new(spec.limits.memory_bytes.min(sandbox.max_memory_bytes)),
            time: io.time.clone(),
            partner: None,
        };
        let mut store = Store::new(&sandbox.components, host);
        store.limiter(|h| &mut h.limiter);
        arm(&mut store, &spec.limits)?;
        // The component's memory starts as its image (see `sandbox::memory`).
        let armed = image.map(memory::arm);
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

    /// Calls `run(mode, target, args)` with a fresh `fuel` budget; returns how it ended and the
    /// fuel it used. Only a call that returned leaves the instance usable: after a trap or an
    /// exit the session has ended, and calling it again is a host error (never the earlier
    /// outcome again), so the caller must start a fresh session.
    pub fn call(&mut self, mode: &str, target: &str, args: &[String], fuel: u64) -> (RunEnd, u64) {
        if let Some(end) = self.instantiate_error.take() {
            self.func = None;
            return (end, 0);
        }
        let Some(func) = self.func else {
            return (
                RunEnd::HostError {
                    message: "the session has ended (a run exited or trapped); start a new one"
                        .into(),
                },
                0,
            );
        };
        if let Err(e) = self.store.set_fuel(fuel) {
            return (
                RunEnd::HostError {
                    message: format!("{e:#}"),
                },
                0,
            );
        }
        if let Err(m) = arm_epoch(&mut self.store, &self.limits) {
            return (RunEnd::HostError { message: m }, 0);
        }
        let result = func
            .call(
                &mut self.store,
                (mode.to_string(), target.to_string(), args.to_vec()),
            )
            .map(|(code,)| code);
        let used = fuel.saturating_sub(self.store.get_fuel().unwrap_or(0));
        let end = match result {
            Ok(code) => RunEnd::Returned { code },
            Err(e) => {
                self.func = None;
                end_from_error(e)
            }
        };
        (end, used)
    }

    /// One request of a test's to the solution this instance serves (its `answer` export), with
    /// at most `fuel` to spend; returns the answer, or how the instance ended, and the fuel used.
    /// The wall-clock net armed when the instance started keeps running: it bounds the whole
    /// run, not each request.
    pub(crate) fn answer(&mut self, request: Vec<u8>, fuel: u64) -> (Result<Vec<u8>, RunEnd>, u64) {
        let (Some(_), Some(answer)) = (self.func, self.answer) else {
            let message = "the solution's instance cannot answer (it ended, or has no `answer`)";
            return (
                Err(RunEnd::HostError {
                    message: message.into(),
                }),
                0,
            );
        };
        if let Err(e) = self.store.set_fuel(fuel) {
            return (
                Err(RunEnd::HostError {
                    message: format!("{e:#}"),
                }),
                0,
            );
        }
        let result = answer.call(&mut self.store, (request,));
        let used = fuel.saturating_sub(self.store.get_fuel().unwrap_or(0));
        match result {
            Ok((a,)) => (Ok(a), used),
            Err(e) => {
                self.func = None;
                (Err(end_from_error(e)), used)
            }
        }
    }

    /// One call as a complete [`RunOutcome`] (output captured since the previous call).
    ///
    /// In a session with a served solution, the solution's session serves afresh first and the
    /// call runs apart from it, as in [`Sandbox::run`].
    pub fn call_outcome(
        &mut self,
        mode: &str,
        target: &str,
        args: &[String],
        fuel: u64,
    ) -> RunOutcome {
        let started = Instant::now();
        self.io.stdout.clear();
        self.io.stderr.clear();
        self.io
            .server_overflow
            .store(false, std::sync::atomic::Ordering::Relaxed);
        if self.store.data().partner.is_some() {
            let (end, used, mem) = self.call_apart(mode, target, args, fuel);
            return self.io.finish(end, used, mem, started.elapsed());
        }
        let (end, used) = self.call(mode, target, args, fuel);
        let l = &self.store.data().limiter;
        let mem = MemoryStats {
            peak: l.peak,
            denied: l.denied,
        };
        self.io.finish(end, used, mem, started.elapsed())
    }

    /// Starts the solution's instance for `server` beside this one (not yet serving).
    fn attach(
        &mut self,
        sandbox: &Sandbox,
        spec: &RunSpec,
        server: &Arc<Server>,
    ) -> Result<(), String> {
        let ProgramInner::Component {
            pre,
            run,
            answer,
            image,
        } = &*server.program.inner
        else {
            return Err("a solution is served by a component".into());
        };
        let server_spec = RunSpec {
            entry: Entry::Call {
                mode: server.mode.clone(),
                target: server.target.clone(),
                args: server.args.clone(),
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
            server: server.clone(),
            ended: None,
            log: Vec::new(),
        }));
        Ok(())
    }

    /// One call with the solution served apart: the solution's session serves (with the whole
    /// `fuel`), then this session makes the call with what is left; what the solution spends
    /// answering is taken from the same budget (see [`super::bridge`]).
    fn call_apart(
        &mut self,
        mode: &str,
        target: &str,
        args: &[String],
        fuel: u64,
    ) -> (RunEnd, u64, MemoryStats) {
        let Some(mut partner) = self.store.data_mut().partner.take() else {
            let end = RunEnd::HostError {
                message: "no solution is attached".into(),
            };
            return (end, 0, MemoryStats::default());
        };
        partner.session.io.stdout.clear();
        partner.session.io.stderr.clear();
        partner.ended = None;
        partner.log.clear();
        let server = partner.server.clone();
        let (served, serve_fuel) =
            partner
                .session
                .call(&server.mode, &server.target, &server.args, fuel);
        let (end, used) = match served {
            RunEnd::Returned { code: 0 } => {
                self.store.data_mut().partner = Some(partner);
                let (end, used) = self.call(mode, target, args, fuel.saturating_sub(serve_fuel));
                partner = match self.store.data_mut().partner.take() {
                    Some(p) => p,
                    None => {
                        let end = RunEnd::HostError {
                            message: "the solution's instance was lost".into(),
                        };
                        return (end, 0, MemoryStats::default());
                    }
                };
                match partner.ended.take() {
                    Some(e) => (e, serve_fuel.saturating_add(used)),
                    None => (end, serve_fuel.saturating_add(used)),
                }
            }
            RunEnd::Returned { code } => (
                RunEnd::Trap {
                    kind: TrapKind::Other,
                    message: format!("the solution's instance failed to start (status {code})"),
                },
                serve_fuel,
            ),
            end => (end, serve_fuel),
        };
        let used = match end {
            RunEnd::Trap {
                kind: TrapKind::OutOfFuel,
                ..
            } => fuel,
            _ => used,
        };
        let (out, o1) = partner.session.io.stdout.contents();
        let (err, o2) = partner.session.io.stderr.contents();
        self.io.note_server_output(&out, &err, o1 || o2);
        *self.io.exchanges.lock().unwrap_or_else(|e| e.into_inner()) =
            std::mem::take(&mut partner.log);
        let (tl, pl) = (
            &self.store.data().limiter,
            &partner.session.store.data().limiter,
        );
        let mem = MemoryStats {
            peak: tl.peak + pl.peak,
            denied: tl.denied || pl.denied,
        };
        // A session whose solution ended cannot serve again: the caller starts afresh.
        self.store.data_mut().partner = Some(partner);
        (end, used, mem)
    }
}

/// The I/O side of one run: capture pipes and the probe/clock shared with WASI.
#[derive(Clone)]
struct RunIo {
    stdout: CappedPipe,
    stderr: CappedPipe,
    probe: Arc<Probe>,
    time: Arc<VirtualTime>,
    /// A served solution wrote past its output cap.
    server_overflow: Arc<std::sync::atomic::AtomicBool>,
    /// The bridge's exchanges kept for this run (see [`Server::log`]).
    exchanges: Arc<std::sync::Mutex<Vec<Exchange>>>,
}

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
        }
    }

    /// Adds what a served solution printed to the run's stderr (after the test's, under a
    /// header line, as far as the cap allows) and its overflow to the run's.
    fn note_server_output(&self, stdout: &[u8], stderr: &[u8], overflow: bool) {
        if overflow {
            self.server_overflow
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        if stdout.is_empty() && stderr.is_empty() {
            return;
        }
        self.stderr.append_note(b"\n[the solution's output]\n");
        self.stderr.append_note(stdout);
        self.stderr.append_note(stderr);
    }

    /// A WASI context with nothing from the host: no env, no network, no inherited stdio;
    /// stdin from memory; read-only preopens; seeded RNGs and the virtual clock.
    fn wasi_builder(&self, spec: &RunSpec) -> Result<WasiCtxBuilder, String> {
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
                .map_err(|e| format!("cannot preopen {}: {e:#}", p.host.display()))?;
        }
        Ok(b)
    }

    fn finish(&self, end: RunEnd, fuel_used: u64, mem: MemoryStats, wall: Duration) -> RunOutcome {
        let (stdout, o1) = self.stdout.contents();
        let (stderr, o2) = self.stderr.contents();
        RunOutcome {
            end,
            stdout,
            stderr,
            output_overflow: o1
                || o2
                || self
                    .server_overflow
                    .load(std::sync::atomic::Ordering::Relaxed),
            fuel_used,
            peak_memory: mem.peak as u64,
            memory_denied: mem.denied,
            wall,
            read_entropy: self
                .probe
                .entropy
                .load(std::sync::atomic::Ordering::Relaxed),
            read_clock: self.probe.clock.load(std::sync::atomic::Ordering::Relaxed),
            exchanges: std::mem::take(
                &mut *self.exchanges.lock().unwrap_or_else(|e| e.into_inner()),
            ),
        }
    }
}
