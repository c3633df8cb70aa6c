//! The one shared engine: Cranelift, fuel, epoch interruption, the pooling allocator with
//! copy-on-write memory images, and the WASI linkers. An Engine is created once per process and
//! shared across threads; each run gets its own Store.

use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Arc;

use wasmtime::component::{self, Component, ComponentExportIndex};
use wasmtime::{
    Config, Engine, InstanceAllocationStrategy, Linker, Module, OptLevel, PoolingAllocationConfig,
};

use super::cache::{hash_parts, ArtifactCache};
use super::host::P1Host;
use super::limits::EPOCH_TICK;
use super::memory::{Image, Memories, ResetStats};
use super::pair::Pair;
use super::session::P2Host;
use super::{bridge, exit, image, pair, sleep, SandboxError};

/// How the engine is set up.
#[derive(Clone, Debug)]
pub struct SandboxConfig {
    /// Where compiled artifacts are cached.
    pub cache_dir: std::path::PathBuf,
    /// The largest memory limit any run may ask for (sizes the pooling allocator's slots).
    pub max_memory_bytes: u64,
    /// Runs that may be alive at once (sizes the pools); normally the worker thread count.
    pub max_concurrent_runs: u32,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            cache_dir: ArtifactCache::default_root(),
            max_memory_bytes: 1 << 30,
            max_concurrent_runs: 64,
        }
    }
}

/// The engines, their linkers and the artifact cache. Cheap to share (`&Sandbox` is `Sync`).
pub struct Sandbox {
    /// Core modules (C, C++, Rust, I/O programs): wasmtime's pooling allocator.
    pub(crate) engine: Engine,
    /// Components (the Python runtime): dixit's own memories ([`super::memory`]).
    pub(crate) components: Engine,
    pub(crate) p1: Linker<P1Host>,
    pub(crate) p2: component::Linker<P2Host>,
    /// Compiled unit tests and their solutions as components on the pooling engine (`pair.rs`).
    pair: component::Linker<P2Host>,
    cache: ArtifactCache,
    engine_hash: String,
    components_hash: String,
    pagemap: bool,
    pub(crate) max_memory_bytes: u64,
    memo: std::sync::Mutex<std::collections::HashMap<String, Program>>,
}

/// Whether a program is a core module (WASI preview 1, entered at `_start`) or a component
/// (WASI preview 2, entered through its `run` export).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProgramKind {
    /// A core module (WASI preview 1), entered at `_start`.
    Module,
    /// A component (WASI preview 2), entered through its `run` export.
    Component,
    /// A compiled unit test and its solution, two components linked by the host.
    Pair,
}

/// A compiled, linked program ready to instantiate many times.
#[derive(Clone)]
pub struct Program {
    /// The key it was loaded by: the content hash of its bytes, or a hash of what built them.
    pub id: String,
    /// SHA-256 of the WebAssembly it was compiled from (none for a linked pair). Stored beside
    /// the compiled artifact, so it names the bytes that run even where a build of the same
    /// sources is not byte-identical (see `toolchain::python`).
    pub wasm_digest: Option<Arc<str>>,
    pub(crate) inner: Arc<ProgramInner>,
}

pub(crate) enum ProgramInner {
    Module(wasmtime::InstancePre<P1Host>),
    Component {
        pre: component::InstancePre<P2Host>,
        run: ComponentExportIndex,
        /// The `answer` export of a runtime that can serve a solution (see `sandbox::bridge`).
        answer: Option<ComponentExportIndex>,
        /// The memory image each instance starts from, when it was moved out of the
        /// component's data segments ([`super::image`]).
        image: Option<Arc<Image>>,
    },
    Pair(Pair),
}

impl Program {
    /// What names the bytes that run: the digest of its WebAssembly where known, else its key.
    /// Results cached or compared by fuel are keyed by it.
    pub fn build(&self) -> &str {
        self.wasm_digest.as_deref().unwrap_or(&self.id)
    }

    /// Module or component.
    pub fn kind(&self) -> ProgramKind {
        match &*self.inner {
            ProgramInner::Module(_) => ProgramKind::Module,
            ProgramInner::Component { .. } => ProgramKind::Component,
            ProgramInner::Pair(_) => ProgramKind::Pair,
        }
    }

    /// How the memories of this program's instances were reset so far, for a component whose
    /// memory starts from an image of its own (see `sandbox::memory`); `None` otherwise.
    pub fn reset_stats(&self) -> Option<ResetStats> {
        match &*self.inner {
            ProgramInner::Component {
                image: Some(image), ..
            } => Some(image.stats.snapshot()),
            _ => None,
        }
    }
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("id", &self.id)
            .field("kind", &self.kind())
            .finish()
    }
}

impl Sandbox {
    /// Creates the engine and linkers and starts the epoch ticker.
    pub fn new(config: SandboxConfig) -> Result<Self, SandboxError> {
        // Resetting memories with the PAGEMAP_SCAN ioctl (Linux ≥ 6.7) is worth having: fall
        // back to plain madvise where the kernel lacks it, and where swap is configured (see
        // `swap_configured`: there it could hand one run's data to the next).
        let try_pagemap = !swap_configured();
        let (engine, pagemap) = match Engine::new(&engine_config(&config, try_pagemap)) {
            Ok(e) => (e, try_pagemap),
            Err(_) if try_pagemap => (
                Engine::new(&engine_config(&config, false)).map_err(SandboxError::Engine)?,
                false,
            ),
            Err(e) => return Err(SandboxError::Engine(e)),
        };

        let components = Engine::new(&components_config()).map_err(SandboxError::Engine)?;
        let mut p1 = Linker::new(&engine);
        wasmtime_wasi::p1::add_to_linker_sync(&mut p1, |h: &mut P1Host| &mut h.wasi)
            .map_err(SandboxError::Engine)?;
        sleep::add_p1(&mut p1).map_err(SandboxError::Engine)?;
        exit::add_p1(&mut p1).map_err(SandboxError::Engine)?;
        let mut p2 = component::Linker::new(&components);
        wasmtime_wasi::p2::add_to_linker_sync(&mut p2).map_err(SandboxError::Engine)?;
        sleep::add_p2(&mut p2).map_err(SandboxError::Engine)?;
        bridge::add_to_linker(&mut p2).map_err(SandboxError::Engine)?;
        let pair = pair::base_linker(&engine).map_err(SandboxError::Engine)?;

        let engine_hash = compatibility_hash(&engine, "");
        let components_hash = compatibility_hash(&components, "-image-memory");

        start_epoch_ticker(&[&engine, &components]);
        Ok(Sandbox {
            engine,
            components,
            p1,
            p2,
            pair,
            cache: ArtifactCache::open(&config.cache_dir)?,
            engine_hash,
            components_hash,
            pagemap,
            max_memory_bytes: config.max_memory_bytes,
            memo: Default::default(),
        })
    }

    /// Whether freed instances are reset with the `PAGEMAP_SCAN` ioctl (only dirty pages are
    /// restored, and stay resident) rather than `madvise` (every page faults in again): only on
    /// kernels that have it and machines without swap.
    pub fn resets_with_pagemap(&self) -> bool {
        self.pagemap
    }

    /// The artifact cache this sandbox uses (toolchains keep their build outputs there too).
    pub fn cache(&self) -> &ArtifactCache {
        &self.cache
    }

    /// Loads WebAssembly from a file; see [`Sandbox::load`].
    pub fn load_file(&self, path: &Path) -> Result<Program, SandboxError> {
        let bytes = std::fs::read(path).map_err(|source| SandboxError::Cache {
            path: path.to_path_buf(),
            source,
        })?;
        self.load(&bytes)
    }

    /// Compiles (or finds in the cache) and links a module or component, keyed by the hash of
    /// its bytes. See [`Sandbox::load_keyed`].
    pub fn load(&self, wasm: &[u8]) -> Result<Program, SandboxError> {
        let id = hash_parts([wasm]);
        self.load_keyed(&id, || Ok(wasm.to_vec()))
    }

    /// Loads the program identified by `key`, a hash of everything that determines its bytes
    /// (sources, toolchain version, flags). Only when no compiled artifact exists for `key` (and
    /// this engine configuration) is `produce` called to build the WebAssembly, which is then
    /// compiled and written to the cache. Either way the code is loaded back by mmap, so cold and
    /// warm loads take the same path and a second process compiles nothing. Loaded programs are
    /// also kept in memory for the life of the sandbox.
    pub fn load_keyed(
        &self,
        key: &str,
        produce: impl FnOnce() -> Result<Vec<u8>, SandboxError>,
    ) -> Result<Program, SandboxError> {
        if let Some(p) = self.memo.lock().unwrap_or_else(|e| e.into_inner()).get(key) {
            return Ok(p.clone());
        }
        let file_key = hash_parts([self.engine_hash.as_bytes(), key.as_bytes()]);
        let module_path = self.cache.path("cwasm", &file_key, "module.cwasm");
        let ckey = hash_parts([self.components_hash.as_bytes(), key.as_bytes()]);
        let component_path = self.cache.path("cwasm", &ckey, "component.cwasm");
        let imaged_path = self.cache.path("cwasm", &ckey, "component-image.cwasm");
        let image_path = self.cache.path("cwasm", &ckey, "image.bin");
        // The digest of the source is written before the artifact: an artifact without its
        // digest is never found (it is built again).
        let module_digest = self.cache.path("cwasm", &file_key, "wasm-sha256");
        let component_digest = self.cache.path("cwasm", &ckey, "wasm-sha256");
        let kind = if module_path.exists() && module_digest.exists() {
            Stored::Module
        } else if imaged_path.exists() && component_digest.exists() {
            Stored::ComponentWithImage
        } else if component_path.exists() && component_digest.exists() {
            Stored::Component
        } else {
            let wasm = produce()?;
            let digest = hash_parts([wasm.as_slice()]);
            let invalid = |e: wasmtime::Error| SandboxError::Invalid {
                message: format!("{e:#}"),
            };
            match detect(&wasm)? {
                ProgramKind::Module => {
                    let compiled = self.engine.precompile_module(&wasm).map_err(invalid)?;
                    self.cache.write_atomic(&module_digest, digest.as_bytes())?;
                    self.cache.write_atomic(&module_path, &compiled)?;
                    Stored::Module
                }
                ProgramKind::Pair => {
                    return Err(SandboxError::NotWasm {
                        what: "a pair of components is loaded with `load_pair`".into(),
                    })
                }
                ProgramKind::Component => match image::strip_memory_image(&wasm) {
                    Some(stripped) => {
                        let compiled = self
                            .components
                            .precompile_component(&stripped.wasm)
                            .map_err(invalid)?;
                        // The image first: a component without its image must never be found.
                        self.cache.write_atomic(&image_path, &stripped.image)?;
                        self.cache
                            .write_atomic(&component_digest, digest.as_bytes())?;
                        self.cache.write_atomic(&imaged_path, &compiled)?;
                        Stored::ComponentWithImage
                    }
                    None => {
                        let compiled = self
                            .components
                            .precompile_component(&wasm)
                            .map_err(invalid)?;
                        self.cache
                            .write_atomic(&component_digest, digest.as_bytes())?;
                        self.cache.write_atomic(&component_path, &compiled)?;
                        Stored::Component
                    }
                },
            }
        };
        let inner = match kind {
            Stored::Module => {
                let module = deserialize_module(&self.engine, &module_path)?;
                let pre = self
                    .p1
                    .instantiate_pre(&module)
                    .map_err(|e| SandboxError::Link {
                        message: format!("{e:#}"),
                    })?;
                ProgramInner::Module(pre)
            }
            Stored::Component | Stored::ComponentWithImage => {
                let (path, image) = if kind == Stored::ComponentWithImage {
                    let image = Image::open(&image_path).map_err(|source| SandboxError::Cache {
                        path: image_path.clone(),
                        source,
                    })?;
                    (&imaged_path, Some(image))
                } else {
                    (&component_path, None)
                };
                let component = deserialize_component(&self.components, path)?;
                let run =
                    component
                        .get_export_index(None, "run")
                        .ok_or_else(|| SandboxError::Link {
                            message: "the component has no `run` export".into(),
                        })?;
                let answer = component.get_export_index(None, "answer");
                let pre = self
                    .p2
                    .instantiate_pre(&component)
                    .map_err(|e| SandboxError::Link {
                        message: format!("{e:#}"),
                    })?;
                ProgramInner::Component {
                    pre,
                    run,
                    answer,
                    image,
                }
            }
        };
        let digest_path = match kind {
            Stored::Module => &module_digest,
            Stored::Component | Stored::ComponentWithImage => &component_digest,
        };
        let wasm_digest =
            std::fs::read_to_string(digest_path).map_err(|source| SandboxError::Cache {
                path: digest_path.clone(),
                source,
            })?;
        let program = Program {
            id: key.to_string(),
            wasm_digest: Some(Arc::from(wasm_digest.trim())),
            inner: Arc::new(inner),
        };
        self.memo
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.to_string(), program.clone());
        Ok(program)
    }
}

impl Sandbox {
    /// A compiled unit test and its solution, each a component (compiled once per key and
    /// cached like every artifact), linked so that the test's imports of the interface call
    /// the solution's exports (see `pair.rs`). `produce_*` build the components' bytes only
    /// when no compiled artifact exists for their key.
    pub fn load_pair(
        &self,
        test: (&str, &mut dyn FnMut() -> Result<Vec<u8>, SandboxError>),
        solution: (&str, &mut dyn FnMut() -> Result<Vec<u8>, SandboxError>),
    ) -> Result<Program, SandboxError> {
        let key = hash_parts([
            b"pair-v1".as_slice(),
            test.0.as_bytes(),
            solution.0.as_bytes(),
        ]);
        if let Some(p) = self
            .memo
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return Ok(p.clone());
        }
        let t = self.pooled_component(test.0, test.1)?;
        let s = self.pooled_component(solution.0, solution.1)?;
        let pair = Pair::link(&self.engine, &self.pair, &t, &s)?;
        let program = Program {
            id: key.clone(),
            wasm_digest: None,
            inner: Arc::new(ProgramInner::Pair(pair)),
        };
        self.memo
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, program.clone());
        Ok(program)
    }

    /// A component compiled for the pooling engine, from the cache or built by `produce`.
    fn pooled_component(
        &self,
        key: &str,
        produce: &mut dyn FnMut() -> Result<Vec<u8>, SandboxError>,
    ) -> Result<Component, SandboxError> {
        let file_key = hash_parts([self.engine_hash.as_bytes(), key.as_bytes()]);
        let path = self
            .cache
            .path("cwasm", &file_key, "pooled-component.cwasm");
        if !path.exists() {
            let wasm = produce()?;
            let compiled =
                self.engine
                    .precompile_component(&wasm)
                    .map_err(|e| SandboxError::Invalid {
                        message: format!("{e:#}"),
                    })?;
            self.cache.write_atomic(&path, &compiled)?;
        }
        deserialize_component(&self.engine, &path)
    }
}

/// How a program is stored in the artifact cache.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stored {
    Module,
    Component,
    /// A component whose memory's data segments were moved into `image.bin`.
    ComponentWithImage,
}

/// The cache-key prefix of an engine's compiled code: the wasmtime version, the engine's
/// compatibility hash, dixit's version and `variant` (what else changes how artifacts are
/// stored).
fn compatibility_hash(engine: &Engine, variant: &str) -> String {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    format!(
        "wasmtime-{}-{:016x}-dixit-{}{variant}",
        wasmtime_version(),
        hasher.finish(),
        env!("CARGO_PKG_VERSION")
    )
}

/// The settings both engines share: Cranelift, fuel, the epoch safety net, determinism.
fn common_config() -> Config {
    let mut c = Config::new();
    c.strategy(wasmtime::Strategy::Cranelift)
        .cranelift_opt_level(OptLevel::Speed)
        .consume_fuel(true)
        .epoch_interruption(true)
        .parallel_compilation(true)
        .cranelift_nan_canonicalization(true)
        .relaxed_simd_deterministic(true)
        .wasm_threads(false)
        .max_wasm_stack(1 << 20);
    // For profiling the guests' compiled code with `perf`: it then names each Wasm function
    // (from /tmp/perf-PID.map). Only what the profiler sees changes, never a result.
    if std::env::var_os("DIXIT_PERF_MAP").is_some() {
        c.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    c
}

/// The component engine: instances allocated on demand, memories from [`Memories`] (which
/// start the Python runtime's memory from its image and reset it without wasmtime's cap on
/// dirty regions), no copy-on-write images of wasmtime's own (the image is ours).
fn components_config() -> Config {
    let mut c = common_config();
    c.memory_init_cow(false)
        .with_host_memory(Arc::new(Memories))
        .allocation_strategy(InstanceAllocationStrategy::OnDemand);
    c
}

/// The core-module engine's configuration. Tuned for many short runs (measured with
/// `dixit bench`):
/// - Pooling allocator with copy-on-write memory images: instantiation maps, never copies.
/// - With `pagemap`, freed memories keep up to 64 MiB of dirty pages resident and restore just
///   those from the image: the next run of the same program takes no page faults on them
///   (C/Rust guests: 8–10 µs → 5 µs per run). This reset restores at most 32 dirty regions
///   (wasmtime 48's `MAX_REGIONS`) and decommits the rest, which is why components (the Python
///   runtime, whose runs dirty ~250 scattered regions) have their own engine and memories
///   ([`components_config`]). Without `pagemap` nothing is kept: a `memset` of a fixed prefix is
///   wasted on C guests, whose 8 MiB stack comes first.
/// - Lazy table initialisation (the default) stays: eager initialisation made the Rust guest
///   40 % slower.
/// - Page-table changes cost TLB-shootdown IPIs on every core running this process: a memory
///   that grew is made inaccessible again (`mprotect`) when its slot is reused, so compiled
///   modules start with heap headroom (`toolchain/heap.rs`) and a typical run never grows (2
///   threads: 1.2× → 1.9× the runs of one). `decommit_batch_size` did not measurably help.
fn engine_config(config: &SandboxConfig, pagemap: bool) -> Config {
    let mut pool = PoolingAllocationConfig::default();
    let slots = config.max_concurrent_runs.max(1);
    // A compiled unit test is two components (`pair.rs`), each with its module's memory and
    // table and the WASI adapter's.
    pool.total_memories(slots * 6)
        .total_tables(slots * 6)
        .total_core_instances(slots * 16)
        .total_component_instances(slots * 2)
        .max_memory_size(config.max_memory_bytes as usize)
        .table_elements(100_000)
        .max_core_instance_size(16 << 20)
        .max_component_instance_size(1 << 20)
        .max_core_instances_per_component(64)
        .max_memories_per_component(16)
        .max_tables_per_component(16)
        // Async support is off, so no run takes a fiber stack: wasmtime's default pool of
        // 1,000 stacks (a guard page `mprotect`ed for each at start-up) would go unused.
        .total_stacks(0);
    if pagemap {
        pool.pagemap_scan(wasmtime::Enabled::Yes)
            .linear_memory_keep_resident(64 << 20)
            .table_keep_resident(1 << 20);
    } else {
        pool.linear_memory_keep_resident(0)
            .table_keep_resident(64 << 10);
    }
    let mut c = common_config();
    c.memory_init_cow(true)
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    c
}

/// Whether this machine has swap (or cannot tell). wasmtime 48's PAGEMAP_SCAN reset restores only
/// dirty pages that are present: a dirty page swapped out is neither restored nor dropped, so the
/// next instance in that slot would read the previous run's data (wasmtime PR #14357, open).
/// Isolation comes first, so memories are then reset with madvise, which drops swapped pages too.
fn swap_configured() -> bool {
    match std::fs::read_to_string("/proc/swaps") {
        Ok(table) => swaps_listed(&table),
        Err(_) => true,
    }
}

/// Whether a `/proc/swaps` table lists any device or file below its header line.
fn swaps_listed(table: &str) -> bool {
    table.lines().skip(1).any(|l| !l.trim().is_empty())
}

/// The wasmtime version compiled in (recorded with results: fuel units are version-specific).
pub fn wasmtime_version() -> &'static str {
    "48.0.8"
}

fn detect(wasm: &[u8]) -> Result<ProgramKind, SandboxError> {
    if wasm.len() < 8 || &wasm[..4] != b"\0asm" {
        return Err(SandboxError::NotWasm {
            what: "missing the \\0asm magic number".into(),
        });
    }
    match wasm[4..8] {
        [1, 0, 0, 0] => Ok(ProgramKind::Module),
        [0x0d, 0, 1, 0] => Ok(ProgramKind::Component),
        _ => Err(SandboxError::NotWasm {
            what: format!("unknown version/layer bytes {:02x?}", &wasm[4..8]),
        }),
    }
}

#[expect(
    unsafe_code,
    reason = "deserializing precompiled code is unsafe by API contract"
)]
fn deserialize_module(engine: &Engine, path: &Path) -> Result<Module, SandboxError> {
    // SAFETY: the file was produced by `Engine::precompile_module` of an engine with the same
    // compatibility hash (it is part of the file name), written atomically into our own cache, and
    // wasmtime re-checks the header and engine compatibility while loading.
    unsafe { Module::deserialize_file(engine, path) }.map_err(|e| SandboxError::Invalid {
        message: format!("cached artifact {} unusable: {e:#}", path.display()),
    })
}

#[expect(
    unsafe_code,
    reason = "deserializing precompiled code is unsafe by API contract"
)]
fn deserialize_component(engine: &Engine, path: &Path) -> Result<Component, SandboxError> {
    // SAFETY: as in `deserialize_module`.
    unsafe { Component::deserialize_file(engine, path) }.map_err(|e| SandboxError::Invalid {
        message: format!("cached artifact {} unusable: {e:#}", path.display()),
    })
}

/// Increments the engines' epochs every [`EPOCH_TICK`] until they are dropped.
fn start_epoch_ticker(engines: &[&Engine]) {
    let weak: Vec<_> = engines.iter().map(|e| e.weak()).collect();
    std::thread::Builder::new()
        .name("dixit-epoch".into())
        .spawn(move || loop {
            std::thread::sleep(EPOCH_TICK);
            let mut alive = false;
            for w in &weak {
                if let Some(e) = w.upgrade() {
                    e.increment_epoch();
                    alive = true;
                }
            }
            if !alive {
                return;
            }
        })
        .expect("spawning the epoch thread");
}

#[cfg(test)]
mod tests {
    use super::swaps_listed;

    #[test]
    fn a_swap_table_with_only_its_header_lists_no_swap() {
        let header = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
        assert!(!swaps_listed(header));
        assert!(!swaps_listed(""));
        let zram = format!(
            "{header}/dev/zram0                              partition\t8388604\t\t0\t\t100\n"
        );
        assert!(swaps_listed(&zram));
    }
}
