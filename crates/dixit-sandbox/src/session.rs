//! A live component instance: its host state ([`P2Host`]), the [`Session`] that calls it and,
//! in a unit test's run, the [`Partner`], the solution's own instance, which the test's host
//! state holds so that the bridge can hand it the test's requests (`bridge.rs`).
//!
//! These three contain one another (a session's store holds its host state, which holds the
//! partner's session), so they live together. Starting a session takes the
//! [`Sandbox`](super::Sandbox) and a [`RunSpec`](super::RunSpec): `run/` does that.

use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::component::{ResourceTable, TypedFunc};
use wasmtime::Store;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::boundary::{Handles, Interface};
use super::entry::{CallArgs, RuntimeMode};
use super::host::{CappedPipe, MemoryLimiter, Probe, Turn, VirtualTime};
use super::limits::{arm_epoch, Limits};
use super::outcome::{end_from_error, Exchange, RunEnd, RunOutcome, TrapKind};

/// Host state of a component (WASI preview 2) run.
pub(crate) struct P2Host {
    pub wasi: WasiCtx,
    pub table: ResourceTable,
    pub limiter: MemoryLimiter,
    pub time: Arc<VirtualTime>,
    /// A unit test's run: the solution's instance, which the bridge's calls go to.
    pub partner: Option<Box<Partner>>,
    /// Where this instance's failure report goes (the bridge's `failure` import): the run's
    /// own slot for the test's instance, a slot nobody reads for the solution's.
    pub failure: Arc<std::sync::Mutex<Option<String>>>,
    /// A compiled unit test's run (`pair.rs`): the solution's exports the test's imports call.
    pub solution: Vec<wasmtime::component::Func>,
    /// A compiled unit test's run: whose turn it is, and the solution's own virtual time
    /// (`time` is the test's), which its sleeps advance.
    pub turn: Option<(Turn, Arc<VirtualTime>)>,
    /// What the bridge's `code` import returns during the current call (see
    /// [`Entry::Call`](super::Entry::Call)).
    pub code: Arc<[u8]>,
}

impl P2Host {
    /// Whose turn it is in a compiled pair's run (a fresh turn, the test's, otherwise).
    pub(crate) fn current_turn(&self) -> Turn {
        self.turn
            .as_ref()
            .map(|(t, _)| t.clone())
            .unwrap_or_default()
    }

    /// The virtual time of whoever runs now.
    pub(crate) fn clock(&self) -> &Arc<VirtualTime> {
        match &self.turn {
            Some((turn, solution)) if turn.is_solution() => solution,
            _ => &self.time,
        }
    }
}

impl WasiView for P2Host {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// The solution's live instance, owned by the test's host state for the length of one run.
pub(crate) struct Partner {
    pub session: Session,
    /// How the solution's instance serves before each call: `run` in this mode, with this
    /// target, arguments and code ([`Server::call_args`](super::Server::call_args)). Only
    /// what it reads of the [`Server`](super::Server), not its program: a live instance never
    /// holds the program it was made from.
    pub mode: RuntimeMode,
    /// See [`Partner::mode`].
    pub target: String,
    /// See [`Partner::mode`].
    pub args: Vec<String>,
    /// See [`Partner::mode`].
    pub code: Arc<[u8]>,
    /// What the test may call ([`Server::interface`](super::Server::interface)).
    pub interface: Arc<Interface>,
    /// How many exchanges to keep ([`Server::log`](super::Server::log), or what the caller set).
    pub keep: usize,
    /// The objects of the solution's the current run handed out.
    pub handles: Handles,
    /// How the solution's instance ended, when it ended the run.
    pub ended: Option<RunEnd>,
    /// The exchanges of the current run, up to `keep`.
    pub log: Vec<Exchange>,
}

/// The memory of one run: the peak total of its instances' memories and whether a growth was
/// refused (not [`super::ResetStats`], how a program's memories were reset).
#[derive(Default)]
pub(super) struct RunMemory {
    pub peak: usize,
    pub denied: bool,
}

impl RunMemory {
    /// What one instance's (or one pair store's) limiter saw.
    pub(super) fn of(limiter: &MemoryLimiter) -> Self {
        RunMemory {
            peak: limiter.peak,
            denied: limiter.denied,
        }
    }
}

type RunFunc = TypedFunc<(String, String, Vec<String>), (i32,)>;
type AnswerFunc = TypedFunc<(Vec<u8>,), (Vec<u8>,)>;

/// One live component instance that can be called repeatedly (see
/// [`Sandbox::session`](super::Sandbox::session)); `run/` starts it.
pub struct Session {
    pub(super) store: Store<P2Host>,
    pub(super) func: Option<RunFunc>,
    pub(super) answer: Option<AnswerFunc>,
    pub(super) io: RunIo,
    pub(super) limits: Limits,
    pub(super) instantiate_error: Option<RunEnd>,
}

impl Session {
    /// Calls `run(mode, target, args)` with a fresh `fuel` budget; returns how it ended and the
    /// fuel it used. Only a call that returned leaves the instance usable: after a trap or an
    /// exit the session has ended, and calling it again is a host error (never the earlier
    /// outcome again), so the caller must start a fresh session.
    pub fn call(&mut self, (mode, target, args, code): CallArgs<'_>, fuel: u64) -> (RunEnd, u64) {
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
        arm_epoch(&mut self.store, &self.limits);
        self.store.data_mut().code = code.clone();
        let result = func
            .call(
                &mut self.store,
                (mode.wire_name(), target.to_string(), args.to_vec()),
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

    /// How many of the bridge's exchanges the following calls keep (see
    /// [`Server::log`](super::Server::log)); nothing without a served solution.
    pub fn keep_exchanges(&mut self, n: usize) {
        if let Some(p) = self.store.data_mut().partner.as_mut() {
            p.keep = n;
        }
    }

    /// One call as a complete [`RunOutcome`] (output captured since the previous call).
    ///
    /// In a session with a served solution, the solution's session serves afresh first and the
    /// call runs apart from it, as in [`Sandbox::run`](super::Sandbox::run).
    pub fn call_outcome(&mut self, call: CallArgs<'_>, fuel: u64) -> RunOutcome {
        let started = Instant::now();
        self.io.stdout.clear();
        self.io.stderr.clear();
        self.io
            .server_overflow
            .store(false, std::sync::atomic::Ordering::Relaxed);
        *self.io.failure.lock().unwrap_or_else(|e| e.into_inner()) = None;
        if self.store.data().partner.is_some() {
            let (end, used, mem) = self.call_apart(call, fuel);
            return self.io.finish(end, used, mem, started.elapsed());
        }
        let (end, used) = self.call(call, fuel);
        let mem = RunMemory::of(&self.store.data().limiter);
        self.io.finish(end, used, mem, started.elapsed())
    }

    /// One call with the solution served apart: the solution's session serves (with the whole
    /// `fuel`), then this session makes the call with what is left; what the solution spends
    /// answering is taken from the same budget (see [`super::bridge`]).
    pub(super) fn call_apart(&mut self, call: CallArgs<'_>, fuel: u64) -> (RunEnd, u64, RunMemory) {
        let Some(mut partner) = self.store.data_mut().partner.take() else {
            let end = RunEnd::HostError {
                message: "no solution is attached".into(),
            };
            return (end, 0, RunMemory::default());
        };
        partner.session.io.stdout.clear();
        partner.session.io.stderr.clear();
        partner.ended = None;
        partner.log.clear();
        partner.handles.clear();
        let serve = (
            partner.mode,
            &*partner.target,
            &*partner.args,
            &partner.code,
        );
        let (served, serve_fuel) = partner.session.call(serve, fuel);
        let (end, used) = match served {
            RunEnd::Returned { code: 0 } => {
                self.store.data_mut().partner = Some(partner);
                let (end, used) = self.call(call, fuel.saturating_sub(serve_fuel));
                partner = match self.store.data_mut().partner.take() {
                    Some(p) => p,
                    None => {
                        let end = RunEnd::HostError {
                            message: "the solution's instance was lost".into(),
                        };
                        return (end, 0, RunMemory::default());
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
            RunMemory::of(&self.store.data().limiter),
            RunMemory::of(&partner.session.store.data().limiter),
        );
        let mem = RunMemory {
            peak: tl.peak + pl.peak,
            denied: tl.denied || pl.denied,
        };
        // A session whose solution ended cannot serve again: the caller starts afresh.
        self.store.data_mut().partner = Some(partner);
        (end, used, mem)
    }
}

/// The I/O side of one run: capture pipes and the probe/clock shared with WASI (made in
/// `run/`, from the run's spec).
#[derive(Clone)]
pub(super) struct RunIo {
    pub(super) stdout: CappedPipe,
    pub(super) stderr: CappedPipe,
    pub(super) probe: Arc<Probe>,
    pub(super) time: Arc<VirtualTime>,
    /// A served solution wrote past its output cap.
    pub(super) server_overflow: Arc<std::sync::atomic::AtomicBool>,
    /// The bridge's exchanges kept for this run (see [`Server::log`]).
    pub(super) exchanges: Arc<std::sync::Mutex<Vec<Exchange>>>,
    /// The failure report of the run's test instance (see `bridge.rs`).
    pub(super) failure: Arc<std::sync::Mutex<Option<String>>>,
}

impl RunIo {
    /// Adds what a served solution printed to the run's stderr (after the test's, under a
    /// header line, as far as the cap allows) and its overflow to the run's.
    pub(super) fn note_server_output(&self, stdout: &[u8], stderr: &[u8], overflow: bool) {
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

    pub(super) fn finish(
        &self,
        end: RunEnd,
        fuel_used: u64,
        mem: RunMemory,
        wall: Duration,
    ) -> RunOutcome {
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
            failure_report: self
                .failure
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(),
        }
    }
}
