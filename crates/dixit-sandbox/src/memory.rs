//! dixit's own linear memories for components whose initial memory was moved out of their data
//! segments into an image ([`super::image`]): the Python runtime.
//!
//! Why: wasmtime 48's pooling allocator resets a freed memory by restoring at most 32 dirty
//! regions (`MAX_REGIONS` in its `pagemap.rs`) and decommitting everything after the 32nd. A
//! Python run writes ~370 pages scattered over the 16 MB heap snapshot (~250 regions: reference
//! counts, dicts, the allocator's free lists), so every fresh instance faulted ~400 pages back in
//! (copy-on-write and file faults) and every reset zapped page tables, which on two threads also
//! costs TLB-shootdown interrupts. Here the reset has no such cap.
//!
//! How: each memory is a slot of its own virtual reservation (the size and guard wasmtime asks
//! for, so compiled code keeps eliding bounds checks), whose first bytes map the image file
//! copy-on-write (`MAP_PRIVATE`). When the store drops the memory, the `PAGEMAP_SCAN` ioctl
//! (Linux ≥ 6.7) lists the pages to copy back from a read-only mapping of the image (or zero
//! past it), by the slot's [`ResetTracking`]:
//!
//! - `Written` (the default where userfaultfd's asynchronous write-protection works): the image
//!   part is write-protected; a run's first write to a page clears its protection in the kernel
//!   (a minor fault, no handler), and the reset lists exactly the pages written since they were
//!   last protected. They are protected again only when they pass 1.5× what one run wrote
//!   ([`REPROTECT_ABOVE`]): protecting changes page tables (a TLB shootdown on every core running
//!   this process), so runs that write the same pages never pay it, and runs that write
//!   different ones copy back at most about 1.5× their own pages.
//! - `Private`: the slot's private pages, i.e. everything any run in it wrote since it was last
//!   cleared, so a slot used by varied runs copies back the union of their writes.
//!
//! Either way the pages stay mapped and writable, so the next run takes no copy-on-write fault on
//! them. Slots wait in free lists, one per image, [`Lane`] (kind of run) and tracking. A reset
//! with more than [`CLEAR_ABOVE_PAGES`] pages to copy clears the slot with
//! `madvise(MADV_DONTNEED)` instead, back to the file's pages. Without `PAGEMAP_SCAN` every reset
//! is that `madvise`. A run that grew the memory has the growth dropped and made inaccessible
//! again.
//!
//! Isolation: after a reset, every byte of the slot's minimum size equals the image (zero past
//! it), and nothing past the minimum is accessible: exactly a fresh instance's memory. A slot
//! whose reset fails is unmapped, never reused.

use std::cell::RefCell;
use std::ffi::c_void;
use std::fs::File;
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use rustix::mm::{Advice, MapFlags, MprotectFlags, ProtFlags};
use wasmtime::{LinearMemory, MemoryCreator, MemoryType};

/// Host page size the slots are managed in (x86-64 and aarch64 Linux with 4 KiB pages; checked
/// at start-up).
const PAGE: usize = 4096;

/// A slot whose private pages exceed this many is cleared with `madvise` instead of restored
/// page by page (copying 16 MB back costs more than faulting a run's working set in again).
pub(crate) const CLEAR_ABOVE_PAGES: usize = 2048;

/// A tracking slot write-protects its written pages again once they pass this multiple of
/// what one run wrote ([`Image::reset_written`]).
const REPROTECT_ABOVE: f64 = 1.5;

/// What kind of run a memory serves (the runtime's entry mode: a test, a served solution, a
/// program). A slot keeps as private every page any run in it ever wrote, and every reset scans
/// and copies back all of them; runs of one kind write much the same pages, so a slot reused by
/// runs of its own kind restores about one run's pages instead of the union of every kind's
/// (`dixit eval --isolation run`: 651 → 380 pages a reset). Lanes choose slots, never what a
/// slot holds: every slot is the image again before any run gets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lane(u64);

impl Lane {
    /// The lane of runs entered in `mode` (`None`: a core module's `_start`).
    pub(crate) fn of(mode: Option<super::RuntimeMode>) -> Lane {
        use std::hash::{Hash, Hasher};
        let mut h = std::hash::DefaultHasher::new();
        mode.hash(&mut h);
        Lane(h.finish())
    }
}

/// How a reset finds the pages to copy back into a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResetTracking {
    /// Every private page of the slot (`PAGEMAP_SCAN`): all that any run in it ever wrote.
    Private,
    /// The pages the last run wrote (userfaultfd's asynchronous write-protection): a fault on
    /// a run's first write to each page, and page-table changes at every reset.
    Written,
}

/// The tracking of new slots: 0 not chosen yet, 1 [`ResetTracking::Private`], 2
/// [`ResetTracking::Written`].
static TRACKING: AtomicU8 = AtomicU8::new(0);

/// Which tracking slots use when `DIXIT_RESET_TRACKING` does not say.
const DEFAULT_TRACKING: ResetTracking = ResetTracking::Written;

/// Chooses how slots created from now on are reset, and returns what they will use: `Written`
/// needs userfaultfd's asynchronous write-protection, and falls back to `Private` without it.
/// Slots already made keep theirs.
pub fn set_reset_tracking(tracking: ResetTracking) -> ResetTracking {
    let effective = match tracking {
        ResetTracking::Written if !uffd::available() => ResetTracking::Private,
        t => t,
    };
    let code = match effective {
        ResetTracking::Private => 1,
        ResetTracking::Written => 2,
    };
    TRACKING.store(code, Ordering::Relaxed);
    effective
}

/// How slots created now are reset: what [`set_reset_tracking`] chose, else
/// `DIXIT_RESET_TRACKING` (`private` or `written`, for measuring one against the other), else
/// the default.
pub fn reset_tracking() -> ResetTracking {
    match TRACKING.load(Ordering::Relaxed) {
        1 => ResetTracking::Private,
        2 => ResetTracking::Written,
        _ => {
            let wanted = match std::env::var("DIXIT_RESET_TRACKING").as_deref() {
                Ok("private") => ResetTracking::Private,
                Ok("written") => ResetTracking::Written,
                _ => DEFAULT_TRACKING,
            };
            set_reset_tracking(wanted)
        }
    }
}

/// Set once a slot could not track written pages (logged once).
static TRACK_REFUSED: AtomicBool = AtomicBool::new(false);

/// Set once a tracking slot's reset failed (logged once; tracking is then turned off).
static TRACKED_RESET_FAILED: AtomicBool = AtomicBool::new(false);

fn warn_once(flag: &AtomicBool, message: &str) {
    if !flag.swap(true, Ordering::Relaxed) {
        tracing::warn!("{message}");
    }
}

/// Which free list a slot waits in: the kind of run that used it, and whether it tracks
/// written pages.
type SlotKind = (Lane, bool);

/// A memory image: the bytes a component's memory holds right after instantiation (see
/// [`super::image`]), mapped from a file in the artifact cache, plus its free slots.
pub(crate) struct Image {
    file: File,
    /// Image bytes (whole host pages).
    len: usize,
    /// The memory's declared minimum size: the memory to give this image to. Equal to `len` for
    /// images from the cache; the code allows a shorter image (zeros past it).
    min_bytes: usize,
    /// A read-only shared mapping of the image, the source of every restore.
    pristine: NonNull<u8>,
    /// Free slots, apart by [`Lane`] and by whether they track written pages.
    free: Mutex<Vec<(SlotKind, Vec<Slot>)>>,
    pub(crate) stats: ImageStats,
}

/// Counters of one image's slots (for benchmarks and tests).
#[derive(Debug, Default)]
pub(crate) struct ImageStats {
    /// Slots created (each a fresh mapping).
    pub slots: AtomicU64,
    /// Resets that restored pages from the image.
    pub restores: AtomicU64,
    /// Pages restored or zeroed by those resets.
    pub pages_restored: AtomicU64,
    /// Resets that cleared the slot with `madvise`.
    pub clears: AtomicU64,
    /// Resets that write-protected a tracking slot's written pages again (page-table changes).
    pub protects: AtomicU64,
    /// Resets of a tracking slot's first run since its pages were protected ...
    pub first_runs: AtomicU64,
    /// ... and the pages those runs wrote.
    pub first_run_pages: AtomicU64,
}

// SAFETY: `pristine` points to a read-only shared mapping owned by the `Image` for its whole life
// and only ever read; everything else is `Send + Sync` already.
#[expect(unsafe_code, reason = "a raw pointer to an immutable mapping")]
unsafe impl Send for Image {}
// SAFETY: as for `Send`.
#[expect(unsafe_code, reason = "a raw pointer to an immutable mapping")]
unsafe impl Sync for Image {}

impl ImageStats {
    pub(crate) fn snapshot(&self) -> ResetStats {
        ResetStats {
            slots: self.slots.load(Ordering::Relaxed),
            restores: self.restores.load(Ordering::Relaxed),
            pages_restored: self.pages_restored.load(Ordering::Relaxed),
            clears: self.clears.load(Ordering::Relaxed),
            protects: self.protects.load(Ordering::Relaxed),
            first_runs: self.first_runs.load(Ordering::Relaxed),
            first_run_pages: self.first_run_pages.load(Ordering::Relaxed),
        }
    }
}

/// How a program's memories were reset so far ([`crate::Program::reset_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ResetStats {
    /// Memory slots created (each one mapping of the image).
    pub slots: u64,
    /// Resets that copied the written pages back from the image.
    pub restores: u64,
    /// Pages those resets copied back (or zeroed).
    pub pages_restored: u64,
    /// Resets that dropped all of a slot's written pages at once (`madvise`).
    pub clears: u64,
    /// Resets that write-protected the written pages of a slot again
    /// ([`ResetTracking::Written`]): each changes page tables.
    #[serde(default)]
    pub protects: u64,
    /// Resets after the first run since a tracking slot was protected: the only runs whose
    /// own writes are known exactly ...
    #[serde(default)]
    pub first_runs: u64,
    /// ... and the pages they wrote (`first_run_pages / first_runs`: what a run writes).
    #[serde(default)]
    pub first_run_pages: u64,
}

impl std::ops::Add for ResetStats {
    type Output = ResetStats;

    /// The counts of two processes (shards of one evaluation) together.
    fn add(self, b: ResetStats) -> ResetStats {
        ResetStats {
            slots: self.slots + b.slots,
            restores: self.restores + b.restores,
            pages_restored: self.pages_restored + b.pages_restored,
            clears: self.clears + b.clears,
            protects: self.protects + b.protects,
            first_runs: self.first_runs + b.first_runs,
            first_run_pages: self.first_run_pages + b.first_run_pages,
        }
    }
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("len", &self.len)
            .field("min_bytes", &self.min_bytes)
            .finish()
    }
}

impl Image {
    /// Opens an image file written by the artifact cache: the whole initial memory (its length
    /// is the memory's minimum size, which identifies the memory when it is created).
    pub(crate) fn open(path: &std::path::Path) -> std::io::Result<Arc<Image>> {
        let file = File::open(path)?;
        let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
        let min_bytes = len;
        if len == 0 || !len.is_multiple_of(PAGE) {
            return Err(std::io::Error::other(format!(
                "memory image {} has {len} bytes for a memory of {min_bytes}",
                path.display()
            )));
        }
        // SAFETY: a new read-only shared mapping of a file we opened; nothing else is mapped at
        // the address the kernel picks.
        #[expect(unsafe_code, reason = "mmap is unsafe by API contract")]
        let pristine = unsafe {
            rustix::mm::mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ,
                MapFlags::SHARED,
                &file,
                0,
            )
        }?;
        Ok(Arc::new(Image {
            file,
            len,
            min_bytes,
            pristine: NonNull::new(pristine.cast()).ok_or_else(|| std::io::Error::other("null"))?,
            free: Mutex::new(Vec::new()),
            stats: ImageStats::default(),
        }))
    }

    fn take_slot(&self, lane: Lane, capacity: usize, guard: usize) -> std::io::Result<Slot> {
        let tracked = reset_tracking() == ResetTracking::Written;
        let reused = {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            free.iter_mut()
                .find(|(k, _)| *k == (lane, tracked))
                .and_then(|(_, slots)| slots.pop())
        };
        match reused {
            Some(s) if s.capacity == capacity && s.guard == guard => Ok(s),
            _ => {
                self.stats.slots.fetch_add(1, Ordering::Relaxed);
                Slot::new(self, capacity, guard, tracked)
            }
        }
    }

    /// Hands a reset slot back to `lane`'s free list.
    fn put_slot(&self, lane: Lane, slot: Slot) {
        let key = (lane, slot.tracked);
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        match free.iter_mut().find(|(k, _)| *k == key) {
            Some((_, slots)) => slots.push(slot),
            None => free.push((key, vec![slot])),
        }
    }

    /// Returns `slot` to the state of a fresh instance: the image, zeros past it, nothing
    /// accessible past the minimum size.
    fn reset(&self, slot: &mut Slot) -> std::io::Result<()> {
        let base = slot.base.as_ptr();
        if slot.accessible > self.min_bytes {
            let extra = slot.accessible - self.min_bytes;
            // SAFETY: the range lies inside the slot's reservation, which no one else uses while
            // the slot is being reset (the memory that owned it has been dropped).
            #[expect(unsafe_code, reason = "madvise/mprotect on our own reservation")]
            unsafe {
                let p = base.add(self.min_bytes).cast::<c_void>();
                rustix::mm::madvise(p, extra, Advice::LinuxDontNeed)?;
                rustix::mm::mprotect(p, extra, MprotectFlags::empty())?;
            }
            slot.accessible = self.min_bytes;
        }
        if slot.tracked {
            return self.reset_written(slot);
        }
        let Some(regions) = private_pages(base, self.min_bytes) else {
            return self.clear(slot);
        };
        let pages: usize = regions.iter().map(|r| r.len).sum::<usize>() / PAGE;
        if pages > CLEAR_ABOVE_PAGES {
            return self.clear(slot);
        }
        self.copy_back(base, &regions);
        self.stats.restores.fetch_add(1, Ordering::Relaxed);
        self.stats
            .pages_restored
            .fetch_add(pages as u64, Ordering::Relaxed);
        Ok(())
    }

    /// [`Image::reset`] of a slot that tracks written pages: copies back the pages written
    /// since they were last write-protected. Protecting them again changes page tables (a TLB
    /// shootdown on every core running this process) and costs the next run a fault on each,
    /// so it waits until they pass [`REPROTECT_ABOVE`] times what the first run since the last
    /// protection wrote: runs that write the same pages never pay it.
    fn reset_written(&self, slot: &mut Slot) -> std::io::Result<()> {
        let base = slot.base.as_ptr();
        let regions = scan::regions(base, self.min_bytes, scan::Query::Written)?;
        let pages: usize = regions.iter().map(|r| r.len).sum::<usize>() / PAGE;
        if pages > CLEAR_ABOVE_PAGES {
            self.clear(slot)?;
            slot.first_run_pages = None;
            self.stats.protects.fetch_add(1, Ordering::Relaxed);
            return uffd::protect(base, self.min_bytes);
        }
        self.copy_back(base, &regions);
        match slot.first_run_pages {
            None => {
                slot.first_run_pages = Some(pages);
                self.stats.first_runs.fetch_add(1, Ordering::Relaxed);
                self.stats
                    .first_run_pages
                    .fetch_add(pages as u64, Ordering::Relaxed);
            }
            Some(first) if pages as f64 > first as f64 * REPROTECT_ABOVE => {
                if let (Some(a), Some(z)) = (regions.first(), regions.last()) {
                    // SAFETY: `a.offset` lies inside the slot.
                    #[expect(unsafe_code, reason = "an offset inside our own reservation")]
                    let from = unsafe { base.add(a.offset) };
                    let span = z.offset + z.len - a.offset;
                    scan::regions(from, span, scan::Query::WrittenProtect)?;
                }
                slot.first_run_pages = None;
                self.stats.protects.fetch_add(1, Ordering::Relaxed);
            }
            Some(_) => {}
        }
        self.stats.restores.fetch_add(1, Ordering::Relaxed);
        self.stats
            .pages_restored
            .fetch_add(pages as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Copies `regions` of the slot at `base` back from the image (zeros past it).
    fn copy_back(&self, base: *mut u8, regions: &[Region]) {
        for r in regions {
            let (start, end) = (r.offset, r.offset + r.len);
            let copy_end = end.min(self.len);
            // SAFETY: both ranges lie inside mappings we own (the slot's accessible bytes and the
            // pristine image); they never overlap, and no one else uses the slot now.
            #[expect(unsafe_code, reason = "restoring our own mapping")]
            unsafe {
                if start < copy_end {
                    std::ptr::copy_nonoverlapping(
                        self.pristine.as_ptr().add(start),
                        base.add(start),
                        copy_end - start,
                    );
                }
                let zero_start = start.max(self.len);
                if zero_start < end {
                    std::ptr::write_bytes(base.add(zero_start), 0, end - zero_start);
                }
            }
        }
    }

    /// Drops every private page of the slot: the image part maps the file again, the rest reads
    /// as zeros.
    fn clear(&self, slot: &mut Slot) -> std::io::Result<()> {
        // SAFETY: as in `reset`.
        #[expect(unsafe_code, reason = "madvise on our own reservation")]
        unsafe {
            rustix::mm::madvise(
                slot.base.as_ptr().cast(),
                self.min_bytes,
                Advice::LinuxDontNeed,
            )?;
        }
        self.stats.clears.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: the mapping was made in `open` with this length and is not used after this.
        #[expect(unsafe_code, reason = "munmap of our own mapping")]
        unsafe {
            let _ = rustix::mm::munmap(self.pristine.as_ptr().cast(), self.len);
        }
    }
}

/// One memory's virtual reservation: `capacity` bytes the memory may grow into, then `guard`
/// bytes that are never accessible.
struct Slot {
    base: NonNull<u8>,
    capacity: usize,
    guard: usize,
    /// Bytes from `base` that are readable and writable.
    accessible: usize,
    /// Whether the image part is under write-protection, so a reset copies back only the
    /// pages written since they were protected ([`ResetTracking::Written`]).
    tracked: bool,
    /// Pages the first run since the last protection wrote (`None`: none has run since).
    first_run_pages: Option<usize>,
}

// SAFETY: a slot is an exclusively owned reservation; moving it between threads is fine.
#[expect(unsafe_code, reason = "a raw pointer to an exclusively owned mapping")]
unsafe impl Send for Slot {}
// SAFETY: `&Slot` gives no access to the memory behind the pointer.
#[expect(unsafe_code, reason = "a raw pointer to an exclusively owned mapping")]
unsafe impl Sync for Slot {}

impl Slot {
    /// Reserves `capacity + guard` bytes, none of them accessible yet.
    fn reserve(capacity: usize, guard: usize) -> std::io::Result<Slot> {
        let total = capacity
            .checked_add(guard)
            .ok_or_else(|| std::io::Error::other("reservation overflows"))?;
        // SAFETY: a new private reservation at an address the kernel picks.
        #[expect(unsafe_code, reason = "mmap is unsafe by API contract")]
        let base = unsafe {
            rustix::mm::mmap_anonymous(
                std::ptr::null_mut(),
                total,
                ProtFlags::empty(),
                MapFlags::PRIVATE | MapFlags::NORESERVE,
            )
        }?;
        Ok(Slot {
            base: NonNull::new(base.cast()).ok_or_else(|| std::io::Error::other("null"))?,
            capacity,
            guard,
            accessible: 0,
            tracked: false,
            first_run_pages: None,
        })
    }

    /// Makes the first `new_size` bytes accessible (fresh pages read as zeros: a reset drops
    /// grown pages before making them inaccessible again).
    fn grow_to(&mut self, new_size: usize) -> wasmtime::Result<()> {
        if new_size > self.capacity {
            wasmtime::bail!("memory cannot grow past its reservation");
        }
        if new_size > self.accessible {
            let start = self.accessible;
            // SAFETY: inside the slot's reservation, past what is accessible.
            #[expect(unsafe_code, reason = "mprotect inside our own reservation")]
            unsafe {
                rustix::mm::mprotect(
                    self.base.as_ptr().add(start).cast(),
                    new_size - start,
                    MprotectFlags::READ | MprotectFlags::WRITE,
                )?;
            }
            self.accessible = new_size;
        }
        Ok(())
    }

    /// Reserves `capacity + guard` bytes, maps the image at the start and makes the minimum size
    /// accessible; with `track`, puts the minimum size under write-protection (where the
    /// kernel refuses, the slot does not track).
    fn new(image: &Image, capacity: usize, guard: usize, track: bool) -> std::io::Result<Slot> {
        let mut slot = Slot::reserve(capacity, guard)?;
        let base = slot.base.as_ptr().cast::<c_void>();
        slot.accessible = image.min_bytes;
        // SAFETY: every range below lies inside the reservation just made, which nothing else
        // uses; the image file stays open (and is never modified: cache files are replaced,
        // never rewritten) for as long as the `Image`, which outlives its slots' use.
        #[expect(unsafe_code, reason = "mapping inside our own reservation")]
        unsafe {
            // One huge page would turn a one-byte write into 2 MB to restore.
            let _ = rustix::mm::madvise(base, capacity + guard, Advice::LinuxNoHugepage);
            rustix::mm::mmap(
                base,
                image.len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE | MapFlags::FIXED,
                &image.file,
                0,
            )?;
            if image.min_bytes > image.len {
                rustix::mm::mprotect(
                    base.cast::<u8>().add(image.len).cast(),
                    image.min_bytes - image.len,
                    MprotectFlags::READ | MprotectFlags::WRITE,
                )?;
            }
        }
        if track {
            match uffd::track(slot.base.as_ptr(), image.min_bytes) {
                Ok(()) => slot.tracked = true,
                Err(e) => warn_once(&TRACK_REFUSED, &format!("a memory slot cannot track written pages ({e}): it resets its private pages")),
            }
        }
        Ok(slot)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        // SAFETY: the whole reservation was mapped in `Slot::reserve`; nothing uses it any more.
        #[expect(unsafe_code, reason = "munmap of our own reservation")]
        unsafe {
            let _ = rustix::mm::munmap(self.base.as_ptr().cast(), self.capacity + self.guard);
        }
    }
}

/// A memory that starts as an image, handed to wasmtime; reset and returned to its image's free
/// list when wasmtime drops it.
struct ImageMemory {
    image: Arc<Image>,
    lane: Lane,
    slot: Option<Slot>,
    size: usize,
}

impl ImageMemory {
    fn slot(&self) -> &Slot {
        self.slot.as_ref().expect("a live memory has its slot")
    }
}

// SAFETY: `as_ptr` is the base of a reservation of `byte_capacity() + guard` bytes whose first
// `byte_size()` bytes are accessible and the rest not; the base never moves.
#[expect(unsafe_code, reason = "wasmtime's custom memory trait is unsafe")]
unsafe impl LinearMemory for ImageMemory {
    fn byte_size(&self) -> usize {
        self.size
    }

    fn byte_capacity(&self) -> usize {
        self.slot().capacity
    }

    fn grow_to(&mut self, new_size: usize) -> wasmtime::Result<()> {
        self.slot
            .as_mut()
            .expect("a live memory has its slot")
            .grow_to(new_size)?;
        self.size = new_size;
        Ok(())
    }

    fn as_ptr(&self) -> *mut u8 {
        self.slot().base.as_ptr()
    }
}

impl Drop for ImageMemory {
    fn drop(&mut self) {
        let Some(mut slot) = self.slot.take() else {
            return;
        };
        match self.image.reset(&mut slot) {
            Ok(()) => self.image.put_slot(self.lane, slot),
            Err(e) if slot.tracked => {
                // The kernel took the write-protection but will not report on it: new slots
                // reset their private pages instead of each failing in turn.
                set_reset_tracking(ResetTracking::Private);
                warn_once(
                    &TRACKED_RESET_FAILED,
                    &format!("a memory slot could not list its written pages ({e}): slots reset their private pages from now on"),
                );
            }
            Err(e) => tracing::warn!("dropping a memory slot whose reset failed: {e}"),
        }
    }
}

/// A plain memory for components without an image: a fresh zeroed reservation per memory.
struct PlainMemory {
    slot: Slot,
    size: usize,
}

// SAFETY: as for `ImageMemory`.
#[expect(unsafe_code, reason = "wasmtime's custom memory trait is unsafe")]
unsafe impl LinearMemory for PlainMemory {
    fn byte_size(&self) -> usize {
        self.size
    }

    fn byte_capacity(&self) -> usize {
        self.slot.capacity
    }

    fn grow_to(&mut self, new_size: usize) -> wasmtime::Result<()> {
        self.slot.grow_to(new_size)?;
        self.size = new_size;
        Ok(())
    }

    fn as_ptr(&self) -> *mut u8 {
        self.slot.base.as_ptr()
    }
}

impl PlainMemory {
    fn new(minimum: usize, capacity: usize, guard: usize) -> std::io::Result<PlainMemory> {
        let slot = Slot::reserve(capacity, guard)?;
        let mut m = PlainMemory { slot, size: 0 };
        if minimum > 0 {
            m.grow_to(minimum).map_err(std::io::Error::other)?;
        }
        Ok(m)
    }
}

thread_local! {
    /// The image the next memory created on this thread starts from (see [`arm`]).
    static ARMED: RefCell<Option<(Arc<Image>, Lane)>> = const { RefCell::new(None) };
}

/// While the returned guard lives, the first memory of `image`'s minimum size that this thread
/// creates starts as `image`. Instantiation is synchronous, so arming around
/// `InstancePre::instantiate` gives the image to exactly that instance's memory.
pub(crate) fn arm(image: &Arc<Image>, lane: Lane) -> Armed {
    ARMED.with(|a| *a.borrow_mut() = Some((image.clone(), lane)));
    Armed(())
}

/// Disarms [`arm`] when dropped.
pub(crate) struct Armed(());

impl Drop for Armed {
    fn drop(&mut self) {
        ARMED.with(|a| *a.borrow_mut() = None);
    }
}

/// The memory creator of the component engine.
pub(crate) struct Memories;

/// What a memory may grow to when wasmtime does not say: 4 GiB, a 32-bit memory's limit.
const DEFAULT_CAPACITY: usize = 1 << 32;

// SAFETY: every memory returned honours `reserved_size_in_bytes` (its base never moves and it
// can grow to that size in place) and `guard_size_in_bytes` (that many inaccessible bytes
// follow the reservation), as the trait requires.
#[expect(unsafe_code, reason = "wasmtime's custom memory trait is unsafe")]
unsafe impl MemoryCreator for Memories {
    fn new_memory(
        &self,
        ty: MemoryType,
        minimum: usize,
        maximum: Option<usize>,
        reserved_size_in_bytes: Option<usize>,
        guard_size_in_bytes: usize,
    ) -> Result<Box<dyn LinearMemory>, String> {
        if ty.is_shared() || ty.is_64() || host_page_size() != PAGE {
            return Err("dixit's memories are 32-bit, unshared, on 4 KiB host pages".into());
        }
        let capacity = reserved_size_in_bytes
            .unwrap_or_else(|| maximum.unwrap_or(DEFAULT_CAPACITY).min(DEFAULT_CAPACITY))
            .max(minimum);
        let image = ARMED.with(|a| {
            let mut a = a.borrow_mut();
            match &*a {
                Some((i, _)) if i.min_bytes == minimum => a.take(),
                _ => None,
            }
        });
        match image {
            Some((image, lane)) => {
                let slot = image
                    .take_slot(lane, capacity, guard_size_in_bytes)
                    .map_err(|e| format!("cannot map a memory slot: {e}"))?;
                Ok(Box::new(ImageMemory {
                    image,
                    lane,
                    slot: Some(slot),
                    size: minimum,
                }))
            }
            None => PlainMemory::new(minimum, capacity, guard_size_in_bytes)
                .map(|m| Box::new(m) as Box<dyn LinearMemory>)
                .map_err(|e| format!("cannot reserve a memory: {e}")),
        }
    }
}

fn host_page_size() -> usize {
    static SIZE: LazyLock<usize> = LazyLock::new(rustix::param::page_size);
    *SIZE
}

/// A run of private pages: byte offset from the slot's base and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Region {
    offset: usize,
    len: usize,
}

/// Whether `PAGEMAP_SCAN` works here: 0 unknown, 1 yes, 2 no.
static SCAN: AtomicU8 = AtomicU8::new(0);

/// The private pages (present or swapped out, not file pages, not the shared zero page) of
/// `[base, base + len)`, or `None` where the kernel cannot tell (no `PAGEMAP_SCAN`).
fn private_pages(base: *mut u8, len: usize) -> Option<Vec<Region>> {
    if SCAN.load(Ordering::Relaxed) == 2 {
        return None;
    }
    let result = scan::regions(base, len, scan::Query::Private);
    match result {
        Ok(r) => {
            SCAN.store(1, Ordering::Relaxed);
            Some(r)
        }
        Err(e) => {
            if SCAN.swap(2, Ordering::Relaxed) != 2 {
                tracing::info!("PAGEMAP_SCAN unavailable ({e}): memories are reset with madvise");
            }
            None
        }
    }
}

mod scan {
    //! The `PAGEMAP_SCAN` ioctl on `/proc/self/pagemap` (Linux ≥ 6.7).

    use super::*;

    /// Page categories (`PAGE_IS_*` in `linux/fs.h`).
    const WRITTEN: u64 = 1 << 1;
    const FILE: u64 = 1 << 2;
    const PRESENT: u64 = 1 << 3;
    const SWAPPED: u64 = 1 << 4;
    const PFNZERO: u64 = 1 << 5;
    /// `PM_SCAN_WP_MATCHING`: write-protect the pages listed.
    const WP_MATCHING: u64 = 1 << 0;
    /// `PM_SCAN_CHECK_WPASYNC`: fail unless the range is under asynchronous write-protection.
    const CHECK_WPASYNC: u64 = 1 << 1;

    #[repr(C)]
    struct PmScanArg {
        size: u64,
        flags: u64,
        start: u64,
        end: u64,
        walk_end: u64,
        vec: u64,
        vec_len: u64,
        max_pages: u64,
        category_inverted: u64,
        category_mask: u64,
        category_anyof_mask: u64,
        return_mask: u64,
    }

    #[repr(C)]
    #[derive(Clone, Copy)]
    struct PageRegion {
        start: u64,
        end: u64,
        categories: u64,
    }

    struct Scan<'a>(&'a mut PmScanArg);

    // SAFETY: PAGEMAP_SCAN is `_IOWR('f', 16, struct pm_scan_arg)`; the argument is a
    // `pm_scan_arg` laid out as the kernel's, and its `vec` points to `vec_len` writable
    // `page_region`s for the duration of the call.
    #[expect(unsafe_code, reason = "an ioctl binding")]
    unsafe impl rustix::ioctl::Ioctl for Scan<'_> {
        type Output = usize;
        const IS_MUTATING: bool = true;

        fn opcode(&self) -> rustix::ioctl::Opcode {
            rustix::ioctl::opcode::read_write::<PmScanArg>(b'f', 16)
        }

        fn as_ptr(&mut self) -> *mut c_void {
            std::ptr::from_mut(self.0).cast()
        }

        unsafe fn output_from_ptr(
            out: rustix::ioctl::IoctlOutput,
            _: *mut c_void,
        ) -> rustix::io::Result<usize> {
            usize::try_from(out).map_err(|_| rustix::io::Errno::INVAL)
        }
    }

    static PAGEMAP: LazyLock<std::io::Result<File>> =
        LazyLock::new(|| File::open("/proc/self/pagemap"));

    /// What a scan lists (and whether it write-protects what it lists).
    #[derive(Clone, Copy)]
    pub(super) enum Query {
        /// Private pages: present or swapped out, neither file pages nor the zero page.
        Private,
        /// Pages written since they were last write-protected (userfaultfd's asynchronous
        /// write-protection must cover the range).
        Written,
        /// As `Written`, and write-protects them again in the same walk.
        WrittenProtect,
    }

    /// The regions of `[base, base + len)` that `query` selects.
    pub(super) fn regions(base: *mut u8, len: usize, query: Query) -> std::io::Result<Vec<Region>> {
        let file = PAGEMAP
            .as_ref()
            .map_err(|e| std::io::Error::new(e.kind(), e.to_string()))?;
        let (flags, inverted, mask, anyof) = match query {
            // Not a file page and not the zero page, and present or swapped out.
            Query::Private => (0, FILE | PFNZERO, FILE | PFNZERO, PRESENT | SWAPPED),
            Query::Written => (0, 0, WRITTEN, 0),
            Query::WrittenProtect => (WP_MATCHING | CHECK_WPASYNC, 0, WRITTEN, 0),
        };
        let mut out = Vec::new();
        let mut buf = [MaybeUninit::<PageRegion>::uninit(); 256];
        let end = base as u64 + len as u64;
        let mut start = base as u64;
        while start < end {
            let mut arg = PmScanArg {
                size: std::mem::size_of::<PmScanArg>() as u64,
                flags,
                start,
                end,
                walk_end: 0,
                vec: buf.as_mut_ptr() as u64,
                vec_len: buf.len() as u64,
                max_pages: 0,
                category_inverted: inverted,
                category_mask: mask,
                category_anyof_mask: anyof,
                return_mask: 0,
            };
            // SAFETY: see the `Ioctl` impl; `buf` outlives the call.
            #[expect(unsafe_code, reason = "an ioctl call")]
            let n = unsafe { rustix::ioctl::ioctl(file, Scan(&mut arg)) }?;
            for r in buf.iter().take(n.min(buf.len())) {
                // SAFETY: the kernel wrote the first `n` entries.
                #[expect(unsafe_code, reason = "reading what the kernel wrote")]
                let r = unsafe { r.assume_init() };
                out.push(Region {
                    offset: (r.start - base as u64) as usize,
                    len: (r.end - r.start) as usize,
                });
            }
            if arg.walk_end <= start {
                return Err(std::io::Error::other("PAGEMAP_SCAN made no progress"));
            }
            start = arg.walk_end;
        }
        Ok(out)
    }
}

mod uffd {
    //! userfaultfd's asynchronous write-protection (Linux ≥ 6.7): the kernel resolves a write
    //! to a protected page itself (no handler thread), clearing the page's protection, so
    //! `PAGEMAP_SCAN` can list the pages written since they were last protected.

    use rustix::fd::OwnedFd;
    use rustix::ioctl::{opcode, Updater};
    use rustix::mm::UserfaultfdFlags;

    use super::*;

    const UFFD_API: u64 = 0xAA;
    /// `UFFD_FEATURE_WP_UNPOPULATED`: protecting a page never touched protects it too.
    const WP_UNPOPULATED: u64 = 1 << 13;
    /// `UFFD_FEATURE_WP_ASYNC`.
    const WP_ASYNC: u64 = 1 << 15;
    const REGISTER_MODE_WP: u64 = 1 << 1;
    const WRITEPROTECT_MODE_WP: u64 = 1 << 0;
    /// `UFFD_USER_MODE_ONLY`: what an unprivileged process may create
    /// (`vm.unprivileged_userfaultfd = 0`); asynchronous faults never reach a handler anyway.
    const USER_MODE_ONLY: u32 = 1;

    #[repr(C)]
    struct Api {
        api: u64,
        features: u64,
        ioctls: u64,
    }

    #[repr(C)]
    struct Range {
        start: u64,
        len: u64,
    }

    #[repr(C)]
    struct Register {
        range: Range,
        mode: u64,
        ioctls: u64,
    }

    #[repr(C)]
    struct WriteProtect {
        range: Range,
        mode: u64,
    }

    const API: rustix::ioctl::Opcode = opcode::read_write::<Api>(0xAA, 0x3F);
    const REGISTER: rustix::ioctl::Opcode = opcode::read_write::<Register>(0xAA, 0x00);
    const WRITEPROTECT: rustix::ioctl::Opcode = opcode::read_write::<WriteProtect>(0xAA, 0x06);

    /// The process's userfaultfd with asynchronous write-protection, or why there is none.
    static FD: LazyLock<std::io::Result<OwnedFd>> = LazyLock::new(open);

    fn open() -> std::io::Result<OwnedFd> {
        let flags = UserfaultfdFlags::CLOEXEC
            | UserfaultfdFlags::NONBLOCK
            | UserfaultfdFlags::from_bits_retain(USER_MODE_ONLY);
        // SAFETY: the descriptor only ever write-protects ranges of our own slots.
        #[expect(unsafe_code, reason = "userfaultfd is unsafe by API contract")]
        let fd = unsafe { rustix::mm::userfaultfd(flags) }?;
        let mut api = Api {
            api: UFFD_API,
            features: WP_ASYNC | WP_UNPOPULATED,
            ioctls: 0,
        };
        // SAFETY: UFFDIO_API takes a `struct uffdio_api`, laid out as `Api`.
        #[expect(unsafe_code, reason = "an ioctl call")]
        unsafe { rustix::ioctl::ioctl(&fd, Updater::<API, Api>::new(&mut api)) }?;
        Ok(fd)
    }

    fn fd() -> std::io::Result<&'static OwnedFd> {
        FD.as_ref()
            .map_err(|e| std::io::Error::new(e.kind(), e.to_string()))
    }

    /// Whether this process can track written pages.
    pub(super) fn available() -> bool {
        FD.is_ok()
    }

    /// Registers `[base, base + len)` for write-protection and protects all of it.
    pub(super) fn track(base: *mut u8, len: usize) -> std::io::Result<()> {
        let fd = fd()?;
        let mut reg = Register {
            range: Range {
                start: base as u64,
                len: len as u64,
            },
            mode: REGISTER_MODE_WP,
            ioctls: 0,
        };
        // SAFETY: UFFDIO_REGISTER takes a `struct uffdio_register`, laid out as `Register`.
        #[expect(unsafe_code, reason = "an ioctl call")]
        unsafe { rustix::ioctl::ioctl(fd, Updater::<REGISTER, Register>::new(&mut reg)) }?;
        protect(base, len)
    }

    /// Write-protects all of `[base, base + len)`, pages never touched included.
    pub(super) fn protect(base: *mut u8, len: usize) -> std::io::Result<()> {
        let mut wp = WriteProtect {
            range: Range {
                start: base as u64,
                len: len as u64,
            },
            mode: WRITEPROTECT_MODE_WP,
        };
        // SAFETY: UFFDIO_WRITEPROTECT takes a `struct uffdio_writeprotect`, laid out as
        // `WriteProtect`.
        #[expect(unsafe_code, reason = "an ioctl call")]
        unsafe {
            rustix::ioctl::ioctl(fd()?, Updater::<WRITEPROTECT, WriteProtect>::new(&mut wp))
        }?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Held by the tests that choose the tracking (a process-wide setting) while they run.
    static TRACKING_CHOSEN: Mutex<()> = Mutex::new(());

    fn choose(tracking: ResetTracking) -> (std::sync::MutexGuard<'static, ()>, ResetTracking) {
        let guard = TRACKING_CHOSEN.lock().unwrap_or_else(|e| e.into_inner());
        (guard, set_reset_tracking(tracking))
    }

    fn image_file(bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("image.bin");
        std::fs::write(&p, bytes).unwrap();
        (dir, p)
    }

    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 + i / 4096) as u8).collect()
    }

    /// Writes garbage all over a memory (image part, zero part, grown part), drops it, and
    /// checks that the next memory from the same slot is exactly the image again.
    #[test]
    fn a_reused_slot_is_exactly_the_image_again() {
        let _chosen = choose(ResetTracking::Private);
        reused_slot_round_trips();
    }

    /// As [`a_reused_slot_is_exactly_the_image_again`], with slots that track written pages.
    #[test]
    fn a_reused_tracking_slot_is_exactly_the_image_again() {
        let (_chosen, tracking) = choose(ResetTracking::Written);
        if tracking != ResetTracking::Written {
            eprintln!("no userfaultfd write-protection here: nothing to test");
            return;
        }
        reused_slot_round_trips();
    }

    fn reused_slot_round_trips() {
        let img = pattern(64 * PAGE);
        let (_d, path) = image_file(&img);
        let min = 96 * PAGE;
        let mut image = Image::open(&path).unwrap();
        Arc::get_mut(&mut image).unwrap().min_bytes = min;
        let creator = Memories;
        let ty = MemoryType::new(1, None);
        for round in 0..4 {
            let _armed = arm(&image, Lane::of(Some(crate::RuntimeMode::Test)));
            let mut m = creator
                .new_memory(ty.clone(), min, None, Some(1 << 32), 1 << 16)
                .unwrap();
            assert_eq!(m.byte_size(), min);
            let base = m.as_ptr();
            // SAFETY: inside the memory's accessible bytes.
            #[expect(unsafe_code, reason = "test writes into the memory")]
            let before = unsafe { std::slice::from_raw_parts(base, min).to_vec() };
            assert_eq!(&before[..img.len()], &img[..], "round {round}: image part");
            assert!(before[img.len()..].iter().all(|&b| b == 0), "round {round}");
            m.grow_to(min + 8 * PAGE).unwrap();
            for i in (0..min + 8 * PAGE).step_by(PAGE * 3 + 17) {
                // SAFETY: inside the grown memory.
                #[expect(unsafe_code, reason = "test writes into the memory")]
                unsafe {
                    *base.add(i) = 0xa5 ^ round as u8;
                }
            }
            // With swap configured, the written pages go to swap before the reset (a no-op
            // without swap): the reset must restore swapped-out pages too.
            // SAFETY: MADV_PAGEOUT keeps the contents of the pages for every reader.
            #[expect(unsafe_code, reason = "madvise on the test's own memory")]
            unsafe {
                let _ = rustix::mm::madvise(base.cast(), min + 8 * PAGE, Advice::LinuxPageOut);
            }
            drop(m);
        }
        assert_eq!(
            image.stats.slots.load(Ordering::Relaxed),
            1,
            "one slot, reused"
        );
        // The grown part is inaccessible again: a fresh memory reports the minimum size.
        let _armed = arm(&image, Lane::of(Some(crate::RuntimeMode::Test)));
        let m = creator
            .new_memory(ty, min, None, Some(1 << 32), 1 << 16)
            .unwrap();
        assert_eq!(m.byte_size(), min);
    }

    /// A run that wrote more pages than [`CLEAR_ABOVE_PAGES`] has its slot cleared with
    /// `madvise` instead: the next memory is the image all the same.
    #[test]
    fn a_slot_with_many_private_pages_is_cleared() {
        let _chosen = choose(ResetTracking::Private);
        let pages = CLEAR_ABOVE_PAGES + 64;
        let img = pattern(pages * PAGE);
        let (_d, path) = image_file(&img);
        let image = Image::open(&path).unwrap();
        let creator = Memories;
        for _ in 0..2 {
            let _armed = arm(&image, Lane::of(Some(crate::RuntimeMode::Test)));
            let m = creator
                .new_memory(
                    MemoryType::new(1, None),
                    pages * PAGE,
                    None,
                    Some(1 << 32),
                    1 << 16,
                )
                .unwrap();
            // SAFETY: inside the memory's accessible bytes.
            #[expect(unsafe_code, reason = "test reads and writes the memory")]
            unsafe {
                let bytes = std::slice::from_raw_parts_mut(m.as_ptr(), pages * PAGE);
                assert_eq!(bytes, &img[..]);
                for p in 0..pages {
                    bytes[p * PAGE + 1] ^= 0xff;
                }
            }
            drop(m);
        }
        assert_eq!(image.stats.slots.load(Ordering::Relaxed), 1);
        if SCAN.load(Ordering::Relaxed) == 1 {
            assert_eq!(image.stats.clears.load(Ordering::Relaxed), 2);
        }
    }

    /// A slot that tracks written pages copies back the pages written since they were last
    /// protected (reads do not count), and protects them again once they pass 1.5× what the
    /// first run since then wrote: after that, a page written before is not copied again.
    #[test]
    fn a_tracked_reset_restores_what_the_run_wrote() {
        let (_chosen, tracking) = choose(ResetTracking::Written);
        if tracking != ResetTracking::Written {
            eprintln!("no userfaultfd write-protection here: nothing to test");
            return;
        }
        let img = pattern(64 * PAGE);
        let (_d, path) = image_file(&img);
        let image = Image::open(&path).unwrap();
        let creator = Memories;
        let lane = Lane::of(Some(crate::RuntimeMode::Test));
        // (pages written, pages copied back, protections so far)
        let rounds: [(&[usize], u64, u64); 6] = [
            (&[1, 5, 9], 3, 0),
            (&[2], 4, 0),
            (&[], 4, 0),
            (&[0, 1, 2, 3, 63], 7, 1),
            (&[7], 1, 1),
            (&[7], 1, 1),
        ];
        for (round, (written, copied, protects)) in rounds.iter().enumerate() {
            let _armed = arm(&image, lane);
            let m = creator
                .new_memory(
                    MemoryType::new(1, None),
                    64 * PAGE,
                    None,
                    Some(1 << 32),
                    1 << 16,
                )
                .unwrap();
            // SAFETY: inside the memory's accessible bytes.
            #[expect(unsafe_code, reason = "test reads and writes the memory")]
            let bytes = unsafe { std::slice::from_raw_parts_mut(m.as_ptr(), 64 * PAGE) };
            assert_eq!(
                bytes,
                &img[..],
                "round {round}: every page is the image again"
            );
            for &p in *written {
                bytes[p * PAGE + 100] ^= 0x5a;
            }
            let before = image.stats.snapshot();
            drop(m);
            let after = image.stats.snapshot();
            assert_eq!(
                after.pages_restored - before.pages_restored,
                *copied,
                "round {round}"
            );
            assert_eq!(after.protects, *protects, "round {round}");
        }
        assert_eq!(image.stats.slots.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn an_unarmed_memory_is_plain_and_zeroed() {
        let creator = Memories;
        let mut m = creator
            .new_memory(
                MemoryType::new(1, None),
                65_536,
                None,
                Some(1 << 32),
                1 << 16,
            )
            .unwrap();
        m.grow_to(2 * 65_536).unwrap();
        // SAFETY: inside the memory's accessible bytes.
        #[expect(unsafe_code, reason = "test reads the memory")]
        let bytes = unsafe { std::slice::from_raw_parts(m.as_ptr(), 2 * 65_536) };
        assert!(bytes.iter().all(|&b| b == 0));
    }
}
