//! Per-run host state: the WASI context and everything the host watches during one run. A
//! component's host state, which also holds its partner instance, is `P2Host` in `session.rs`.
//!
//! Everything here is deterministic given the run's seed: the RNG is seeded, the clocks are
//! virtual (they advance a fixed step per read, and by the requested amount on a sleep), and the
//! host records whether the guest read entropy or a clock, so reruns of a run that read neither
//! can be skipped: they would be identical by construction.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use rand::{SeedableRng, TryRng};
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamError};
use wasmtime_wasi::{HostMonotonicClock, HostWallClock};

/// What the host observed during a run, shared with the RNG and clock objects it hands to WASI.
#[derive(Debug, Default)]
pub(crate) struct Probe {
    pub entropy: AtomicBool,
    pub clock: AtomicBool,
}

/// The virtual time of one run, in nanoseconds since the run's start.
#[derive(Debug)]
pub(crate) struct VirtualTime {
    now_ns: AtomicU64,
    wall_base_ns: u64,
    probe: Arc<Probe>,
}

/// Each clock read advances virtual time by this much, so elapsed-time loops terminate and two
/// reads never return the same instant.
const CLOCK_STEP_NS: u64 = 1_000;

impl VirtualTime {
    /// The wall clock starts at 2026-01-01T00:00:00Z plus a seed-dependent offset within a year,
    /// so a test that depends on the date behaves differently across reruns (and is caught).
    pub(crate) fn new(seed: u64, probe: Arc<Probe>) -> Arc<Self> {
        const BASE_S: u64 = 1_767_225_600;
        let offset_s = splitmix64(seed ^ 0xc10c) % (365 * 86_400);
        Arc::new(VirtualTime {
            now_ns: AtomicU64::new(0),
            wall_base_ns: (BASE_S + offset_s) * 1_000_000_000,
            probe,
        })
    }

    fn read(&self) -> u64 {
        self.probe.clock.store(true, Ordering::Relaxed);
        self.now_ns.fetch_add(CLOCK_STEP_NS, Ordering::Relaxed) + CLOCK_STEP_NS
    }

    /// The current monotonic time without recording a read (used by sleeps).
    pub(crate) fn peek(&self) -> u64 {
        self.now_ns.load(Ordering::Relaxed)
    }

    /// Advances virtual time to at least `deadline_ns` (a sleep that returns at once).
    pub(crate) fn advance_to(&self, deadline_ns: u64) {
        self.now_ns.fetch_max(deadline_ns, Ordering::Relaxed);
    }

    /// The wall-clock time in nanoseconds since the Unix epoch that corresponds to `mono_ns`.
    pub(crate) fn wall_base_ns(&self) -> u64 {
        self.wall_base_ns
    }
}

/// A `wasi:clocks` implementation over [`VirtualTime`].
pub(crate) struct VirtualClock(pub Arc<VirtualTime>);

impl HostMonotonicClock for VirtualClock {
    fn resolution(&self) -> u64 {
        CLOCK_STEP_NS
    }
    fn now(&self) -> u64 {
        self.0.read()
    }
}

impl HostWallClock for VirtualClock {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(CLOCK_STEP_NS)
    }
    fn now(&self) -> Duration {
        Duration::from_nanos(self.0.wall_base_ns + self.0.read())
    }
}

/// A seeded RNG that records that it was read.
pub(crate) struct RecordingRng {
    rng: rand::rngs::StdRng,
    probe: Arc<Probe>,
}

impl RecordingRng {
    pub(crate) fn new(seed: u64, stream: u64, probe: Arc<Probe>) -> Self {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        key[8..16].copy_from_slice(&stream.to_le_bytes());
        key[16..24].copy_from_slice(b"dixit-rn");
        RecordingRng {
            rng: rand::rngs::StdRng::from_seed(key),
            probe,
        }
    }
    fn touch(&self) {
        self.probe.entropy.store(true, Ordering::Relaxed);
    }
}

impl TryRng for RecordingRng {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.touch();
        self.rng.try_next_u32()
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        self.touch();
        self.rng.try_next_u64()
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.touch();
        self.rng.try_fill_bytes(dst)
    }
}

/// Whose turn it is in a compiled pair's one store: the solution's while the host forwards a
/// call to it (and while it is instantiated), the test's otherwise. The pair's clocks and RNGs
/// keep one state per side by it, so neither side can see how much the other read.
#[derive(Clone, Debug, Default)]
pub(crate) struct Turn(Arc<AtomicBool>);

impl Turn {
    /// Runs `f` as the solution's turn (turns do not nest: the solution cannot call the test).
    pub(crate) fn solution<R>(&self, f: impl FnOnce() -> R) -> R {
        self.0.store(true, Ordering::Relaxed);
        let r = f();
        self.0.store(false, Ordering::Relaxed);
        r
    }

    pub(crate) fn is_solution(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// A pair's RNG: the test's stream and the solution's, the same seed each, as if each ran alone.
pub(crate) struct SidedRng {
    pub test: RecordingRng,
    pub solution: RecordingRng,
    pub turn: Turn,
}

impl SidedRng {
    fn now(&mut self) -> &mut RecordingRng {
        if self.turn.is_solution() {
            &mut self.solution
        } else {
            &mut self.test
        }
    }
}

impl TryRng for SidedRng {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.now().try_next_u32()
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        self.now().try_next_u64()
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.now().try_fill_bytes(dst)
    }
}

/// A pair's clocks: the test's virtual time and the solution's, each advanced by its own reads.
pub(crate) struct SidedClock {
    pub test: Arc<VirtualTime>,
    pub solution: Arc<VirtualTime>,
    pub turn: Turn,
}

impl SidedClock {
    fn now(&self) -> &VirtualTime {
        if self.turn.is_solution() {
            &self.solution
        } else {
            &self.test
        }
    }
}

impl HostMonotonicClock for SidedClock {
    fn resolution(&self) -> u64 {
        CLOCK_STEP_NS
    }
    fn now(&self) -> u64 {
        SidedClock::now(self).read()
    }
}

impl HostWallClock for SidedClock {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(CLOCK_STEP_NS)
    }
    fn now(&self) -> Duration {
        let t = SidedClock::now(self);
        Duration::from_nanos(t.wall_base_ns + t.read())
    }
}

/// A stdout/stderr pipe that keeps at most `cap` bytes; a write past the cap is refused and
/// ends the run (the host reports `output_limit`). Output written before it is kept.
#[derive(Clone)]
pub(crate) struct CappedPipe(Arc<Mutex<CappedBuf>>);

#[derive(Default)]
struct CappedBuf {
    bytes: Vec<u8>,
    cap: usize,
    overflow: bool,
}

impl CappedPipe {
    pub(crate) fn new(cap: usize) -> Self {
        CappedPipe(Arc::new(Mutex::new(CappedBuf {
            bytes: Vec::new(),
            cap,
            overflow: false,
        })))
    }

    /// Appends what fits; returns false (and records the overflow) when `data` did not fit.
    fn push(&self, data: &[u8]) -> bool {
        let mut b = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let room = b.cap.saturating_sub(b.bytes.len());
        if data.len() > room {
            b.bytes.extend_from_slice(&data[..room]);
            b.overflow = true;
            false
        } else {
            b.bytes.extend_from_slice(data);
            true
        }
    }

    /// Appends what fits of a note the host adds (never an overflow: a note is not the guest's
    /// output).
    pub(crate) fn append_note(&self, data: &[u8]) {
        let mut b = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let room = b.cap.saturating_sub(b.bytes.len());
        let n = data.len().min(room);
        b.bytes.extend_from_slice(&data[..n]);
    }

    /// The bytes kept so far and whether anything was refused.
    pub(crate) fn contents(&self) -> (Vec<u8>, bool) {
        let b = self.0.lock().unwrap_or_else(|e| e.into_inner());
        (b.bytes.clone(), b.overflow)
    }

    /// Forgets everything written so far and any overflow (between calls of a session).
    pub(crate) fn clear(&self) {
        let mut b = self.0.lock().unwrap_or_else(|e| e.into_inner());
        b.bytes.clear();
        b.overflow = false;
    }
}

const OUTPUT_LIMIT_MESSAGE: &str = "output limit exceeded";

impl OutputStream for CappedPipe {
    fn write(&mut self, bytes: bytes::Bytes) -> Result<(), StreamError> {
        if self.push(&bytes) {
            Ok(())
        } else {
            Err(StreamError::Trap(wasmtime::format_err!(
                OUTPUT_LIMIT_MESSAGE
            )))
        }
    }
    fn flush(&mut self) -> Result<(), StreamError> {
        Ok(())
    }
    fn check_write(&mut self) -> Result<usize, StreamError> {
        // Permit everything that still fits, plus one byte: a write within the cap goes through
        // whole (a smaller permit makes guests such as CPython drop the rest of a large write),
        // and the write that crosses the cap is the one that fails, so a flooding guest stops at
        // once instead of polling for room that never comes.
        let b = self.0.lock().unwrap_or_else(|e| e.into_inner());
        Ok(b.cap.saturating_sub(b.bytes.len()).saturating_add(1))
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for CappedPipe {
    async fn ready(&mut self) {}
}

impl tokio::io::AsyncWrite for CappedPipe {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.push(buf) {
            Poll::Ready(Ok(buf.len()))
        } else {
            Poll::Ready(Err(io::Error::other(OUTPUT_LIMIT_MESSAGE)))
        }
    }
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl IsTerminal for CappedPipe {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for CappedPipe {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }
    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

/// Bounds the total size of all linear memories of a store and remembers the peak and whether a
/// growth was refused (so a failure after a refused growth is reported as `memory_limit`). In a
/// compiled pair's one store each side has the whole limit to itself, counted by whose
/// [`Turn`] it is when a memory grows: a test that allocates all it can learns nothing of how
/// much the solution holds, as with Python's two instances.
#[derive(Debug)]
pub(crate) struct MemoryLimiter {
    pub limit: usize,
    /// Bytes of linear memory held: by the test (or the only side), and by the solution.
    pub totals: [usize; 2],
    /// The most both sides held at once.
    pub peak: usize,
    pub denied: bool,
    /// The last growth allowed, and the side it was counted to.
    last_growth: (usize, usize),
    turn: Option<Turn>,
}

/// Table elements allowed per table; bounds host memory spent on tables.
const MAX_TABLE_ELEMENTS: usize = 1 << 20;

impl MemoryLimiter {
    pub(crate) fn new(limit: u64) -> Self {
        MemoryLimiter {
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
            totals: [0, 0],
            peak: 0,
            denied: false,
            last_growth: (0, 0),
            turn: None,
        }
    }

    /// A limiter for a compiled pair: `limit` for each side, told apart by `turn`.
    pub(crate) fn per_side(limit: u64, turn: Turn) -> Self {
        MemoryLimiter {
            turn: Some(turn),
            ..MemoryLimiter::new(limit)
        }
    }

    fn side(&self) -> usize {
        usize::from(self.turn.as_ref().is_some_and(Turn::is_solution))
    }
}

impl wasmtime::ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let side = self.side();
        let growth = desired.saturating_sub(current);
        let total = self.totals[side].saturating_add(growth);
        if total > self.limit {
            self.denied = true;
            return Ok(false);
        }
        self.totals[side] = total;
        self.peak = self.peak.max(self.totals[0].saturating_add(self.totals[1]));
        self.last_growth = (side, growth);
        Ok(true)
    }

    fn memory_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        let (side, growth) = self.last_growth;
        self.totals[side] = self.totals[side].saturating_sub(growth);
        self.last_growth = (side, 0);
        Ok(())
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }
}

/// Host state of a core-module (WASI preview 1) run.
pub(crate) struct P1Host {
    pub wasi: WasiP1Ctx,
    pub limiter: MemoryLimiter,
    pub time: Arc<VirtualTime>,
}

/// SplitMix64: derives independent 64-bit values from a seed (seeds of reruns, clock offsets).
pub fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasmtime::ResourceLimiter;

    #[test]
    fn capped_pipe_keeps_what_fits_and_flags_the_rest() {
        let p = CappedPipe::new(5);
        assert!(p.push(b"abc"));
        assert!(!p.push(b"defg"), "crossing the cap is refused");
        assert_eq!(p.contents(), (b"abcde".to_vec(), true));
        p.clear();
        assert_eq!(p.contents(), (Vec::new(), false));
        assert!(p.push(b"12345"), "exactly the cap fits");
    }

    #[test]
    fn memory_limiter_counts_all_memories_and_remembers_refusals() {
        let mut l = MemoryLimiter::new(100);
        assert!(l.memory_growing(0, 60, None).unwrap());
        assert!(l.memory_growing(0, 30, None).unwrap(), "a second memory");
        assert_eq!((l.totals[0], l.peak, l.denied), (90, 90, false));
        assert!(!l.memory_growing(60, 80, None).unwrap(), "90 + 20 > 100");
        assert!(l.denied);
        assert!(l.memory_growing(30, 40, None).unwrap());
        l.memory_grow_failed(wasmtime::format_err!("no room"))
            .unwrap();
        assert_eq!(l.totals[0], 90, "a growth that failed later is not counted");
        assert!(!l.table_growing(0, MAX_TABLE_ELEMENTS + 1, None).unwrap());
    }

    #[test]
    fn a_pair_has_the_limit_once_per_side() {
        let turn = Turn::default();
        let mut l = MemoryLimiter::per_side(100, turn.clone());
        assert!(turn.solution(|| l.memory_growing(0, 90, None).unwrap()));
        assert!(
            l.memory_growing(0, 100, None).unwrap(),
            "the test's side has all of it, whatever the solution holds"
        );
        assert!(!l.memory_growing(100, 101, None).unwrap());
        assert!(!turn.solution(|| l.memory_growing(90, 101, None).unwrap()));
        assert_eq!((l.totals, l.peak), ([100, 90], 190));
    }

    #[test]
    fn virtual_time_is_seeded_and_recorded() {
        let probe = Arc::new(Probe::default());
        let t = VirtualTime::new(1, probe.clone());
        assert_eq!(t.peek(), 0);
        assert!(
            !probe.clock.load(Ordering::Relaxed),
            "peeking is not reading"
        );
        let a = HostMonotonicClock::now(&VirtualClock(t.clone()));
        let b = HostMonotonicClock::now(&VirtualClock(t.clone()));
        assert!(b > a, "two reads never return the same instant");
        assert!(probe.clock.load(Ordering::Relaxed));
        t.advance_to(5_000_000);
        assert!(HostMonotonicClock::now(&VirtualClock(t.clone())) > 5_000_000);
        t.advance_to(10);
        assert!(t.peek() > 5_000_000, "time never goes back");
        let other = VirtualTime::new(2, Arc::new(Probe::default()));
        assert_ne!(
            t.wall_base_ns(),
            other.wall_base_ns(),
            "the date depends on the seed"
        );
        assert_eq!(
            t.wall_base_ns(),
            VirtualTime::new(1, Arc::new(Probe::default())).wall_base_ns()
        );
    }

    #[test]
    fn rng_is_seeded_per_stream_and_recorded() {
        let probe = Arc::new(Probe::default());
        let draw = |seed, stream| {
            let mut r = RecordingRng::new(seed, stream, probe.clone());
            (r.try_next_u64().unwrap(), r.try_next_u64().unwrap())
        };
        assert!(!probe.entropy.load(Ordering::Relaxed));
        assert_eq!(draw(1, 1), draw(1, 1));
        assert!(probe.entropy.load(Ordering::Relaxed));
        assert_ne!(draw(1, 1), draw(2, 1));
        assert_ne!(draw(1, 1), draw(1, 2));
        assert_ne!(splitmix64(1), splitmix64(2));
    }
}
