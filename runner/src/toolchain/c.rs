//! C and C++: clang targeting `wasm32-wasi`. Found in this order: `$DIXIT_CC` (a clang that can
//! target wasm32-wasi), Debian's clang with wasi-libc (no sysroot flag needed), then wasi-sdk
//! (`$WASI_SDK_PATH`). Objects are compiled once each and linked per pair, the test's first.
//!
//! Every compile and link runs confined (see `process.rs`): the compiler sees the sources, its
//! own binaries and resource directory, the wasm32-wasi headers and libraries, and the shared
//! libraries its binaries load; never `/usr/include`, `/etc` or a home directory. Neither a
//! solution's objects nor a test's may define what the C runtime defines, and a pair is checked
//! as a whole before it is linked (see `symbols.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::builds::{Builds, Toolchain};
use super::component;
use super::error::{
    failed_side, sandbox_message, BuildError, BuildFailure, CompileError, Tool, ToolchainError,
};
use super::host_paths;
use super::process::{
    failure_log, run_tool, shared_libraries, which, Confinement, Policy, ToolError, ToolLimits,
    PROBE,
};
use super::runnable::{once, Runnable, Solution, Test};
use super::snapshot::Snapshot;
use super::symbols::{interposition_error, ObjectSymbols, SymbolsError, SystemSymbols};
use super::wit::Side;
use super::Language;
use crate::sandbox::{hash_parts, CompileSide, Program, SandboxError};

/// C and C++'s toolchain: a solution's objects are compiled once and guarded, a test's object
/// once per interface, and each pair is two components linked by the host (cached per pair).
#[derive(Default)]
pub(super) struct CToolchain {
    compiler: OnceLock<Result<CCompiler, ToolchainError>>,
}

impl CToolchain {
    fn compiler(&self, tc: &dyn Builds, side: CompileSide) -> Result<&CCompiler, BuildError> {
        self.compiler
            .get_or_init(|| {
                CCompiler::discover(tc.sandbox().cache().root()).map_err(|e| {
                    ToolchainError::Missing {
                        tool: Tool::Clang,
                        message: format!("no C/C++ compiler for wasm32-wasi: {e}"),
                    }
                })
            })
            .as_ref()
            .map_err(|e| BuildError::unavailable(side, e))
    }

    fn solution_objects<'s>(
        &self,
        tc: &dyn Builds,
        s: &'s Solution,
    ) -> Result<&'s Vec<PathBuf>, BuildError> {
        once(&s.objects, || {
            let side = CompileSide::Solution;
            let cc = self.compiler(tc, side)?;
            let headers = header_key(&s.snapshot);
            let sources: Vec<&PathBuf> =
                s.snapshot.files.iter().filter(|f| is_c_source(f)).collect();
            if sources.is_empty() {
                return Err(BuildError::new(
                    side,
                    BuildFailure::Sources,
                    "no C/C++ source files in the solution",
                ));
            }
            // Its own folder first, then the project's interface: a solution that includes
            // the interface's header without shipping one gets the project's.
            let mut incs: Vec<&Path> = vec![&s.snapshot.dir];
            incs.extend(s.interface.header_dir());
            let out = tc.build_dir("obj");
            sources
                .iter()
                .map(|f| {
                    cc.compile(
                        &s.snapshot.dir.join(f),
                        &incs,
                        &[headers.as_bytes(), s.interface.key().as_bytes()],
                        &out,
                    )
                    .map_err(|e| BuildError::new(side, BuildFailure::Compile, e.to_string()))
                })
                .collect()
        })
    }

    /// The solution's objects for linking with a unit test: a solution sharing its program with a
    /// test may not define what the C runtime defines (see `symbols.rs`). Programs (I/O
    /// solutions) define `main` and share nothing, so they are not checked.
    fn unit_solution_objects<'s>(
        &self,
        tc: &dyn Builds,
        s: &'s Solution,
    ) -> Result<&'s Vec<PathBuf>, BuildError> {
        let objects = self.solution_objects(tc, s)?;
        s.guarded
            .get_or_init(|| {
                let side = CompileSide::Solution;
                let cc = self.compiler(tc, side)?;
                let sources = s.snapshot.files.iter().filter(|f| is_c_source(f));
                for (obj, f) in objects.iter().zip(sources) {
                    cc.check_object(obj, &f.display().to_string(), "a solution")
                        .map_err(|e| BuildError::new(side, BuildFailure::Guard, e.to_string()))?;
                }
                Ok(())
            })
            .clone()?;
        Ok(objects)
    }

    /// The test's object, compiled against dixit's SDK and the stated interface only: nothing
    /// of any solution is on its include path, so a failure is the test's own. The object may
    /// not define what the C runtime defines (its `main` aside).
    fn test_object(&self, tc: &dyn Builds, t: &Test, s: &Solution) -> Result<PathBuf, BuildError> {
        let interface = &s.interface;
        let mut memo = t.objects.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = memo.get(interface.key()) {
            return r.clone();
        }
        let side = CompileSide::Test;
        let r = (|| {
            let cc = self.compiler(tc, side)?;
            let sdk = tc.sdk_for(side)?;
            let assert_dir = sdk.path("c/assert");
            let include_dir = sdk.path("c/include");
            let mut incs: Vec<&Path> = vec![&assert_dir, &include_dir];
            incs.extend(interface.header_dir());
            let src = t.snapshot.dir.join(&t.file_name);
            let obj = cc
                .compile(
                    &src,
                    &incs,
                    &[interface.key().as_bytes(), sdk.hash.as_bytes()],
                    &tc.build_dir("obj"),
                )
                .map_err(|e| {
                    let log = interface.hint_unstated(e.to_string(), t.kind);
                    BuildError::new(side, BuildFailure::Compile, log)
                })?;
            let guard = |e: GuardError| BuildError::new(side, BuildFailure::Guard, e.to_string());
            cc.check_object(&obj, &t.file_name, "a test")
                .map_err(guard)?;
            cc.check_test_names(
                &obj,
                &t.file_name,
                &interface.header_identifiers(),
                &interface.describe(),
            )
            .map_err(guard)?;
            Ok(obj)
        })();
        memo.insert(interface.key().to_string(), r.clone());
        r
    }

    /// The key of a link of `objects` (whose names are already the hashes of their inputs).
    fn link_key(cc: &CCompiler, objects: &[PathBuf], cxx: bool) -> String {
        hash_parts(
            [
                b"c-link-v3".as_slice(),
                cc.version.as_bytes(),
                &[u8::from(cxx)],
            ]
            .into_iter()
            .chain(objects.iter().map(|o| o.as_os_str().as_encoded_bytes())),
        )
    }

    /// Links C/C++ objects into a program, cached by the objects and the compiler; a failed
    /// link is the sandbox's [`SandboxError::Link`], with the log.
    fn link(
        &self,
        tc: &dyn Builds,
        cc: &CCompiler,
        objects: &[PathBuf],
        cxx: bool,
    ) -> Result<Program, SandboxError> {
        let key = Self::link_key(cc, objects, cxx);
        tc.sandbox().load_keyed(&key, || {
            cc.link(objects, cxx).map_err(|e| SandboxError::Link {
                message: e.to_string(),
            })
        })
    }
}

impl Toolchain for CToolchain {
    fn prepare_solution(&self, tc: &dyn Builds, s: &Solution) -> Result<(), BuildError> {
        self.unit_solution_objects(tc, s).map(|_| ())
    }

    // A test is compiled against the solution's interface: with the solution, in `unit_test`.

    fn unit_test(&self, tc: &dyn Builds, s: &Solution, t: &Test) -> Result<Runnable, BuildError> {
        t.pair_with(s, || self.component_test(tc, s, t))
    }

    fn program(&self, tc: &dyn Builds, s: &Solution) -> Result<Runnable, BuildError> {
        let side = CompileSide::Solution;
        let cc = self.compiler(tc, side)?;
        let objects = self.solution_objects(tc, s)?.clone();
        let program = self
            .link(tc, cc, &objects, s.language == Language::Cpp)
            .map_err(|e| BuildError::new(side, BuildFailure::Link, sandbox_message(e)))?;
        Ok(Runnable::compiled_program(program, s))
    }
}

impl CToolchain {
    /// A C or C++ unit test and its solution as two components (see `sandbox/pair.rs`): the
    /// interface header as a WIT world (`wit.rs`, `wit_cpp.rs`; read as the test's language
    /// reads it), each side linked with the bindings of its world and dixit's glue, made a
    /// component, and the pair linked by the host. Neither side can reach the other's memory:
    /// every argument and result is copied. A C test with a C++ solution (or the reverse) is
    /// such a pair too: the glue is the test's language, and a side with any C++ is linked as
    /// C++.
    fn component_test(
        &self,
        tc: &dyn Builds,
        s: &Solution,
        t: &Test,
    ) -> Result<Runnable, BuildError> {
        let cc = self.compiler(tc, CompileSide::Link)?;
        let cxx = t.kind == super::TestKind::Cpp;
        let solution_cxx = cxx || s.language == Language::Cpp;
        let interface = &s.interface;
        let sigs = interface.signatures(cxx).map_err(|e| {
            BuildError::new(CompileSide::Test, BuildFailure::Interface, e.to_string())
        })?;
        let wit = sigs.world();
        let headers: Vec<String> = interface
            .header_files()
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        let solution_objects = self.unit_solution_objects(tc, s)?.clone();
        let test_object = self.test_object(tc, t, s)?;
        let glue = |side: Side| {
            self.glue_objects(tc, cc, &wit, &sigs, side, &headers, interface.header_dir())
        };
        let mut test_objects = vec![test_object];
        test_objects.extend(glue(Side::Test)?);
        let mut sol_objects = solution_objects;
        sol_objects.extend(glue(Side::Solution)?);
        let key_of = |objects: &[PathBuf], side: &[u8]| {
            hash_parts(
                [
                    b"c-component-v4".as_slice(),
                    side,
                    wit.as_bytes(),
                    cc.version.as_bytes(),
                ]
                .into_iter()
                .chain(objects.iter().map(|o| o.as_os_str().as_encoded_bytes())),
            )
        };
        let test_key = key_of(&test_objects, b"test");
        let sol_key = key_of(&sol_objects, b"solution");
        // What failed, kept out of the sandbox's error so it can be blamed on its side.
        let failed: std::cell::RefCell<Option<BuildError>> = Default::default();
        let build = |objects: &[PathBuf], side: Side| -> Result<Vec<u8>, SandboxError> {
            // Both sides are reactors: their constructors run once, when the component is
            // instantiated (`_initialize`). A command's exports (`cabi_realloc`, which the
            // canonical ABI calls for every string and list) would each run the constructors
            // and destructors again; the test's entry is the glue's `_start` instead.
            let side_cxx = match side {
                Side::Test => cxx,
                Side::Solution => solution_cxx,
            };
            let module = cc.link_with(objects, side_cxx, true).map_err(|e| {
                let log = e.to_string();
                let blame = match side {
                    Side::Test => failed_side(&log, &t.file_name),
                    Side::Solution => CompileSide::Solution,
                };
                let e = if log.contains("signature mismatch") {
                    BuildError::new(
                        blame,
                        BuildFailure::Interface,
                        format!(
                            "a function of the solution does not have the signature the \
                             interface ({}) declares:\n{log}",
                            interface.describe()
                        ),
                    )
                } else {
                    BuildError::new(blame, BuildFailure::Link, log.clone())
                };
                *failed.borrow_mut() = Some(e);
                SandboxError::Link { message: log }
            })?;
            component::componentize(&module, &wit, side).map_err(|e| SandboxError::Invalid {
                message: e.to_string(),
            })
        };
        let mut build_test = || build(&test_objects, Side::Test);
        let program = {
            let mut build_solution = || build(&sol_objects, Side::Solution);
            tc.sandbox().load_pair(
                (&test_key, &mut build_test),
                (&sol_key, &mut build_solution),
            )
        };
        let program = program.map_err(|e| {
            failed.borrow_mut().take().unwrap_or_else(|| {
                BuildError::new(CompileSide::Link, BuildFailure::Link, sandbox_message(e))
            })
        })?;
        Ok(Runnable::compiled_test(program))
    }

    /// The bindings of `side`'s world and dixit's glue for it, compiled (cached by content).
    #[allow(clippy::too_many_arguments)]
    fn glue_objects(
        &self,
        tc: &dyn Builds,
        cc: &CCompiler,
        wit: &str,
        sigs: &super::signatures::Signatures,
        side: Side,
        headers: &[String],
        header_dir: Option<&Path>,
    ) -> Result<Vec<PathBuf>, BuildError> {
        let fail = |m: String| BuildError::new(CompileSide::Link, BuildFailure::Interface, m);
        let files = component::c_bindings(wit, side).map_err(|e| fail(e.to_string()))?;
        let glue = sigs.glue(side, headers);
        let key = hash_parts(
            [b"c-glue-v2".as_slice(), wit.as_bytes(), glue.as_bytes()]
                .into_iter()
                .chain(files.iter().map(|(_, b)| b.as_slice())),
        );
        let dir = tc.build_dir("glue").join(&key);
        let ext = if sigs.is_cpp() { "cpp" } else { "c" };
        let glue_name = match side {
            Side::Test => format!("dixit_test_glue.{ext}"),
            Side::Solution => format!("dixit_solution_glue.{ext}"),
        };
        if !dir.join(&glue_name).is_file() {
            // Written in a folder of its own and renamed into place: builds running at once
            // (a classification's solutions) write the same glue, and whichever renames first
            // wins; the others' folders are removed when they are dropped.
            let write = || -> std::io::Result<()> {
                let root = tc.build_dir("glue");
                std::fs::create_dir_all(&root)?;
                let tmp = tempfile::tempdir_in(&root)?;
                for (n, b) in &files {
                    std::fs::write(tmp.path().join(n), b)?;
                }
                std::fs::write(tmp.path().join(&glue_name), &glue)?;
                let _ = std::fs::rename(tmp.path(), &dir);
                if dir.join(&glue_name).is_file() {
                    Ok(())
                } else {
                    Err(std::io::Error::other("the glue's folder could not be made"))
                }
            };
            write().map_err(|e| fail(format!("writing the interface's glue: {e}")))?;
        }
        let mut incs: Vec<&Path> = vec![&dir];
        incs.extend(header_dir);
        let out = tc.build_dir("obj");
        let mut sources: Vec<PathBuf> = files
            .iter()
            .filter(|(n, _)| n.ends_with(".c"))
            .map(|(n, _)| dir.join(n))
            .collect();
        sources.push(dir.join(&glue_name));
        sources
            .iter()
            .map(|src| {
                cc.compile(src, &incs, &[wit.as_bytes()], &out)
                    .map_err(|log| fail(format!("compiling the interface's glue:\n{log}")))
            })
            .collect()
    }
}

/// A key over the solution's header files (its sources include them).
fn header_key(snap: &Snapshot) -> String {
    let mut parts: Vec<Vec<u8>> = Vec::new();
    for f in snap.files.iter().filter(|f| {
        matches!(
            f.extension().and_then(|e| e.to_str()),
            Some("h" | "hpp" | "hh")
        )
    }) {
        parts.push(f.as_os_str().as_encoded_bytes().to_vec());
        parts.push(std::fs::read(snap.dir.join(f)).unwrap_or_default());
    }
    hash_parts(parts.iter().map(|p| p.as_slice()))
}

/// Linear-memory stack for C/C++ guests (wasm-ld's default is 64 KiB), placed first so an
/// overflow faults instead of silently corrupting data.
const STACK_LINK_ARGS: [&str; 2] = ["-Wl,-z,stack-size=8388608", "-Wl,--stack-first"];

/// Linker warnings are errors: a function whose signature differs between the test (compiled
/// against the interface) and the solution would otherwise be linked to a stub that traps.
const STRICT_LINK_ARG: &str = "-Wl,--fatal-warnings";

/// Seconds of wall time a compile or a link may take (CPU time: see `ToolLimits::compiler`).
const COMPILE_SECONDS: u64 = 60;

/// What discovering a compiler learns, cached on disk (keyed by the compiler's identity) so a
/// later process neither probes nor reads the libraries again.
#[derive(serde::Serialize, serde::Deserialize)]
struct Discovered {
    confinement: Confinement,
    runtime_libs: (Vec<PathBuf>, Vec<PathBuf>),
    symbols: SystemSymbols,
}

/// A working C/C++ → wasm32-wasi compiler.
#[derive(Debug)]
pub struct CCompiler {
    /// How it was found (`debian-clang`, `wasi-sdk`, `DIXIT_CC`).
    pub flavor: &'static str,
    cc: Vec<String>,
    cxx: Vec<String>,
    /// `clang --version` first line; part of every cache key.
    pub version: String,
    /// What its processes may touch (before adding a build's own sources and output).
    confinement: Confinement,
    /// The C runtime's libraries (every symbol they define is reserved) and the C++ libraries
    /// (their strong symbols are).
    runtime_libs: (Vec<PathBuf>, Vec<PathBuf>),
    system_symbols: OnceLock<Result<SystemSymbols, SymbolsError>>,
}

/// Why no C/C++ compiler for wasm32-wasi could be used here.
#[derive(Debug, thiserror::Error)]
pub enum CcDiscoveryError {
    /// No candidate is installed.
    #[error("no clang with wasi-libc, and no wasi-sdk, found")]
    NoneFound,
    /// Every candidate failed its probe: each flavour with why, in the order tried.
    #[error("{}", tried.iter().map(|(flavor, e)| format!("{flavor}: {e}")).collect::<Vec<_>>().join("; "))]
    AllFailed {
        /// Each flavour tried, with why it failed, in the order tried.
        tried: Vec<(&'static str, ProbeError)>,
    },
}

/// Why one candidate compiler failed its probe (it could not build a tiny C program confined,
/// or what the guard needs of its libraries is missing).
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// Asking it about itself failed.
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// Its command is not on the `PATH`.
    #[error("{command} not found")]
    NotFound {
        /// The command.
        command: String,
    },
    /// Its driver does not say which linker it runs.
    #[error("cannot tell which linker clang runs")]
    UnknownLinker,
    /// A C runtime library the guard reads is missing.
    #[error("cannot find the C runtime's {lib} (needed to guard against solutions that replace library functions)")]
    NoRuntimeLibrary {
        /// The library's file name (`libc.a`, ...).
        lib: &'static str,
    },
    /// The probe's temporary files could not be written.
    #[error("{0}")]
    Host(std::io::Error),
    /// The tiny program did not compile or link.
    #[error(transparent)]
    Build(#[from] CompileError),
    /// The runtime libraries' symbols could not be read.
    #[error(transparent)]
    Symbols(#[from] SymbolsError),
}

/// Why the guard refused an object (see `symbols.rs`), or could not read it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GuardError {
    /// The object could not be read.
    #[error("{}: {error}", path.display())]
    Unreadable {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The object's or the runtime's symbols could not be read.
    #[error(transparent)]
    Symbols(#[from] SymbolsError),
    /// The object (of `who`: "a solution" or "a test") from source `file` defines `names`,
    /// which the C runtime defines.
    #[error("{}", interposition_error(file, names, who))]
    Interposes {
        file: PathBuf,
        names: Vec<String>,
        who: &'static str,
    },
    /// The test from `source_name` uses `names`, which neither the runtime nor the interface
    /// (`interface`, described) declares.
    #[error(
        "{source_name}: uses {}, which neither the C/C++ library nor the interface ({interface}) \
         declares: a test may use the library and the interface only, never a solution's \
         other names",
        first_names(names)
    )]
    BeyondInterface {
        source_name: String,
        names: Vec<String>,
        interface: String,
    },
}

/// The first five of `names`, quoted, and how many more there are.
fn first_names(names: &[String]) -> String {
    let shown: Vec<String> = names.iter().take(5).map(|n| format!("`{n}`")).collect();
    format!(
        "{}{}",
        shown.join(", "),
        if names.len() > 5 {
            format!(" and {} more", names.len() - 5)
        } else {
            String::new()
        }
    )
}

impl CCompiler {
    /// Finds a compiler, works out what it needs to read, and proves it by building a tiny C
    /// program, confined. What it learns is cached under `cache_root`.
    pub fn discover(cache_root: &Path) -> Result<CCompiler, CcDiscoveryError> {
        let mut tried = Vec::new();
        for cand in candidates() {
            let flavor = cand.flavor;
            match cand.probe(cache_root) {
                Ok(c) => return Ok(c),
                Err(e) => tried.push((flavor, e)),
            }
        }
        Err(if tried.is_empty() {
            CcDiscoveryError::NoneFound
        } else {
            CcDiscoveryError::AllFailed { tried }
        })
    }

    fn probe(mut self, cache_root: &Path) -> Result<CCompiler, ProbeError> {
        let o = run_tool(
            Command::new(&self.cc[0])
                .args(&self.cc[1..])
                .arg("--version"),
            PROBE,
        )?;
        self.version = o.stdout.lines().next().unwrap_or("").trim().to_string();
        let cached = cache_root
            .join("cc-discovery")
            .join(format!("{}.json", self.identity()));
        if let Some(d) = std::fs::read(&cached)
            .ok()
            .and_then(|b| serde_json::from_slice::<Discovered>(&b).ok())
        {
            self.confinement = d.confinement;
            self.runtime_libs = d.runtime_libs;
            let _ = self.system_symbols.set(Ok(d.symbols));
            return Ok(self);
        }
        self.confinement = self.confinement_of()?;
        self.runtime_libs = self.runtime_libraries()?;
        let dir = tempfile::tempdir().map_err(ProbeError::Host)?;
        let src = dir.path().join("probe.c");
        std::fs::write(
            &src,
            "#include <stdio.h>\nint main(void){puts(\"ok\");return 0;}\n",
        )
        .map_err(ProbeError::Host)?;
        let obj = self.compile(&src, &[], &[], dir.path())?;
        self.link(&[obj], false)?;
        let symbols = SystemSymbols::load(&self.runtime_libs.0, &self.runtime_libs.1)?;
        let d = Discovered {
            confinement: self.confinement.clone(),
            runtime_libs: self.runtime_libs.clone(),
            symbols,
        };
        if let (Some(parent), Ok(json)) = (cached.parent(), serde_json::to_vec(&d)) {
            let _ = std::fs::create_dir_all(parent);
            let tmp = cached.with_extension(format!("tmp{}", std::process::id()));
            if std::fs::write(&tmp, json).is_ok() {
                let _ = std::fs::rename(&tmp, &cached);
            }
        }
        let _ = self.system_symbols.set(Ok(d.symbols));
        Ok(self)
    }

    /// A key for what discovery learns: the compiler's command, version, and the size and
    /// modification time of its binary (an upgrade changes them).
    fn identity(&self) -> String {
        let meta = which(&self.cc[0])
            .and_then(|p| p.canonicalize().ok())
            .and_then(|p| std::fs::metadata(p).ok())
            .map(|m| format!("{}-{:?}", m.len(), m.modified().ok()))
            .unwrap_or_default();
        hash_parts([
            b"cc-discovery-v2".as_slice(),
            self.flavor.as_bytes(),
            self.cc.join(" ").as_bytes(),
            self.cxx.join(" ").as_bytes(),
            self.version.as_bytes(),
            meta.as_bytes(),
        ])
    }

    fn command(&self, cxx: bool) -> Command {
        let argv = if cxx { &self.cxx } else { &self.cc };
        let mut c = Command::new(&argv[0]);
        c.args(&argv[1..]).arg("-O2");
        if cxx {
            // C++17: `std::optional` crosses an interface (as WIT's `option`).
            c.args(["-fno-exceptions", "-std=gnu++17"]);
        }
        c
    }

    /// What a build may touch: the compiler's and linker's binaries (and the shared libraries
    /// they load), its resource directory, and the wasm32-wasi include and library directories.
    fn confinement_of(&self) -> Result<Confinement, ProbeError> {
        let clang = which(&self.cc[0])
            .and_then(|p| p.canonicalize().ok())
            .ok_or_else(|| ProbeError::NotFound {
                command: self.cc[0].clone(),
            })?;
        // The linker, as the driver would run it: the first word of `-###`'s last line.
        let o = run_tool(
            Command::new(&self.cc[0]).args(&self.cc[1..]).args([
                "-###",
                "-x",
                "c",
                "/dev/null",
                "-o",
                "x.wasm",
            ]),
            PROBE,
        )?;
        let linker = o
            .stderr
            .lines()
            .last()
            .and_then(|l| l.trim().split('"').nth(1))
            .and_then(|p| Path::new(p).canonicalize().ok())
            .ok_or(ProbeError::UnknownLinker)?;
        let mut read = Vec::new();
        for cxx in [false, true] {
            let argv = if cxx { &self.cxx } else { &self.cc };
            let lang = if cxx { "c++" } else { "c" };
            let o = run_tool(
                Command::new(&argv[0]).args(&argv[1..]).args([
                    "-E",
                    "-v",
                    "-x",
                    lang,
                    "/dev/null",
                    "-o",
                    "/dev/null",
                ]),
                PROBE,
            )?;
            read.extend(toolchain_include_dirs(&o.stderr));
        }
        let o = run_tool(
            Command::new(&self.cc[0])
                .args(&self.cc[1..])
                .arg("-print-resource-dir"),
            PROBE,
        )?;
        read.push(PathBuf::from(o.stdout.trim()));
        // The library directories, and where their members really live (Debian links libc++.a
        // from the LLVM tree).
        for (cxx, lib) in [
            (false, "crt1-command.o"),
            (false, "libc.a"),
            (true, "libc++.a"),
            (true, "libc++abi.a"),
        ] {
            if let Some(p) = self.print_file(cxx, lib) {
                read.extend(p.parent().map(Path::to_path_buf));
                read.extend(p.canonicalize().ok());
            }
        }
        // The shared libraries, and the dynamic loader, which the kernel opens for execution.
        let mut exec = vec![clang.clone(), linker.clone()];
        exec.extend(shared_libraries(&clang));
        exec.extend(shared_libraries(&linker));
        exec.sort();
        exec.dedup();
        read.retain(|p| p.exists());
        read.sort();
        read.dedup();
        Ok(Confinement {
            exec,
            read,
            write: Vec::new(),
            env: vec![("LC_ALL".into(), "C".into())],
        })
    }

    /// `-print-file-name=NAME` (`-print-libgcc-file-name` for compiler-rt), when it names a file.
    fn print_file(&self, cxx: bool, name: &str) -> Option<PathBuf> {
        let argv = if cxx { &self.cxx } else { &self.cc };
        let mut c = Command::new(&argv[0]);
        c.args(&argv[1..]);
        if name == "compiler-rt" {
            c.arg("-print-libgcc-file-name");
        } else {
            c.arg(format!("-print-file-name={name}"));
        }
        let o = run_tool(&mut c, PROBE).ok()?;
        let p = PathBuf::from(o.stdout.trim());
        (p.is_absolute() && p.is_file()).then_some(p)
    }

    fn runtime_libraries(&self) -> Result<(Vec<PathBuf>, Vec<PathBuf>), ProbeError> {
        let mut c_runtime = Vec::new();
        for lib in ["crt1-command.o", "libc.a", "compiler-rt"] {
            c_runtime.push(
                self.print_file(false, lib)
                    .ok_or(ProbeError::NoRuntimeLibrary { lib })?,
            );
        }
        let cxx_runtime = ["libc++.a", "libc++abi.a"]
            .iter()
            .filter_map(|l| self.print_file(true, l))
            .collect();
        Ok((c_runtime, cxx_runtime))
    }

    fn system_symbols(&self) -> Result<&SystemSymbols, SymbolsError> {
        self.system_symbols
            .get_or_init(|| SystemSymbols::load(&self.runtime_libs.0, &self.runtime_libs.1))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Fails when the object at `path` defines a symbol the runtime defines. `who` is "a
    /// solution" or "a test" (a test's own `main` is allowed).
    pub(crate) fn check_object(
        &self,
        path: &Path,
        source_name: &str,
        who: &'static str,
    ) -> Result<(), GuardError> {
        let bytes = std::fs::read(path).map_err(|error| GuardError::Unreadable {
            path: path.to_path_buf(),
            error,
        })?;
        let symbols = self.system_symbols()?;
        let bad = if who == "a test" {
            symbols.interposed_by_test(&bytes)?
        } else {
            symbols.interposed(&bytes)?
        };
        if bad.is_empty() {
            Ok(())
        } else {
            Err(GuardError::Interposes {
                file: PathBuf::from(source_name),
                names: bad,
                who,
            })
        }
    }

    /// Fails when the test's object at `path` uses a name neither the runtime nor the interface
    /// (`declared`: its headers' identifiers) gives it.
    pub(crate) fn check_test_names(
        &self,
        path: &Path,
        source_name: &str,
        declared: &std::collections::HashSet<String>,
        interface: &str,
    ) -> Result<(), GuardError> {
        let bytes = std::fs::read(path).map_err(|error| GuardError::Unreadable {
            path: path.to_path_buf(),
            error,
        })?;
        let test = ObjectSymbols::read(&bytes)?;
        let bad = self.system_symbols()?.beyond_interface(&test, declared);
        if bad.is_empty() {
            return Ok(());
        }
        Err(GuardError::BeyondInterface {
            source_name: source_name.to_string(),
            names: bad,
            interface: interface.to_string(),
        })
    }

    /// Compiles one source file to an object in `out_dir`, named by the hash of its inputs.
    /// `include_dirs` come first on the include path; `extra_key` are further inputs (headers).
    /// The compiler reads only the source's directory, `include_dirs` and its own files.
    pub fn compile(
        &self,
        src: &Path,
        include_dirs: &[&Path],
        extra_key: &[&[u8]],
        out_dir: &Path,
    ) -> Result<PathBuf, CompileError> {
        let cxx = is_cxx(src);
        let source = std::fs::read(src).map_err(|error| CompileError::Io {
            path: src.to_path_buf(),
            error,
        })?;
        let mut parts: Vec<&[u8]> = vec![b"c-object-v5", self.version.as_bytes(), &source];
        let name = src
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        parts.push(name.as_bytes());
        let incs: Vec<String> = include_dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        parts.extend(incs.iter().map(|s| s.as_bytes()));
        parts.extend_from_slice(extra_key);
        let key = hash_parts(parts);
        let out = out_dir.join(&key[..2]).join(format!("{key}.o"));
        if out.is_file() {
            return Ok(out);
        }
        let failed = out.with_extension("failed");
        if let Ok(log) = std::fs::read_to_string(&failed) {
            // A build that failed (or hit a limit) is not tried again.
            return Err(CompileError::Log(log));
        }
        std::fs::create_dir_all(out.parent().unwrap_or(out_dir)).map_err(CompileError::Host)?;
        let work = tempfile::tempdir().map_err(CompileError::Host)?;
        let tmp = work.path().join("out.o");
        let mut c = self.command(cxx);
        for d in include_dirs {
            c.arg("-I").arg(d);
        }
        // Compile from the file's own directory with a relative name, so diagnostics and
        // assertion messages say `test_add.c:4`, not a cache path.
        let (dir, file) = match (src.parent(), src.file_name()) {
            (Some(d), Some(f)) => (d, Path::new(f)),
            _ => (Path::new("."), src),
        };
        c.current_dir(dir).arg("-c").arg(file).arg("-o").arg(&tmp);
        let confinement = self
            .confinement
            .reading(include_dirs.iter().copied().chain([dir]))
            .writing([work.path()]);
        // The front end sees only what the build may read: a path outside is missing, whether
        // or not it exists (host_paths.rs). The overlay names files by absolute path, so
        // `__FILE__` is mapped back to the name relative to `dir`.
        let overlay = work.path().join("vfs.yaml");
        std::fs::write(&overlay, host_paths::clang_overlay(confinement.paths()))
            .map_err(CompileError::Host)?;
        let abs_dir = std::path::absolute(dir).map_err(CompileError::Host)?;
        c.arg("-ivfsoverlay")
            .arg(&overlay)
            .arg(format!("-fmacro-prefix-map={}/=", abs_dir.display()));
        let limits = ToolLimits::compiler(COMPILE_SECONDS);
        let result = run_tool(
            &mut c,
            Policy::Confined {
                confinement: &confinement,
                limits,
            },
        )
        .map(|o| (o.success, failure_log(&o, &limits, &confinement.scrubs())));
        let log = match result {
            Ok((true, _)) => {
                std::fs::rename(&tmp, &out)
                    .or_else(|_| std::fs::copy(&tmp, &out).map(|_| ()))
                    .map_err(CompileError::Host)?;
                return Ok(out);
            }
            Ok((false, log)) => log,
            Err(ToolError::TimedOut(m)) => format!("{m}\n{}", limits.explain()),
            Err(ToolError::Setup(m)) => return Err(CompileError::Setup(m)),
        };
        let _ = std::fs::write(&failed, &log);
        Err(CompileError::Log(log))
    }

    /// Links objects into a command module (`_start`), confined like a compile.
    pub fn link(&self, objects: &[PathBuf], cxx: bool) -> Result<Vec<u8>, CompileError> {
        self.link_with(objects, cxx, false)
    }

    /// Links `objects` into a command (entered at `_start`) or, with `reactor`, a module
    /// without `main` whose exports are called (a unit test's solution component).
    pub fn link_with(
        &self,
        objects: &[PathBuf],
        cxx: bool,
        reactor: bool,
    ) -> Result<Vec<u8>, CompileError> {
        let work = tempfile::tempdir().map_err(CompileError::Host)?;
        let out = work.path().join("a.wasm");
        let mut c = self.command(cxx);
        c.current_dir(work.path())
            .args(objects)
            .args(STACK_LINK_ARGS)
            .arg(STRICT_LINK_ARG)
            .args(reactor.then_some("-mexec-model=reactor"))
            // A component's exit carries success or failure only: the glue's `__wrap__Exit`
            // keeps any other code a crash, as it was in one module (`wit::EXIT`).
            .args(reactor.then_some("-Wl,--wrap=_Exit"))
            .arg("-o")
            .arg(&out);
        let dirs: Vec<&Path> = objects.iter().filter_map(|o| o.parent()).collect();
        let confinement = self
            .confinement
            .reading(objects)
            .reading(dirs)
            .writing([work.path()]);
        let limits = ToolLimits::compiler(COMPILE_SECONDS);
        let o = run_tool(
            &mut c,
            Policy::Confined {
                confinement: &confinement,
                limits,
            },
        )
        .map_err(|e| match e {
            ToolError::TimedOut(m) => CompileError::Log(format!("{m}\n{}", limits.explain())),
            ToolError::Setup(m) => CompileError::Setup(format!("{m}\n{}", limits.explain())),
        })?;
        if !o.success {
            return Err(CompileError::Log(failure_log(
                &o,
                &limits,
                &confinement.scrubs(),
            )));
        }
        let module = std::fs::read(&out).map_err(CompileError::Host)?;
        Ok(super::heap::with_heap_headroom(&module)?)
    }
}

/// The toolchain's own directories among the include search list clang prints with `-v`: its
/// resource directory and the wasm32-wasi sysroot, never the host's `/usr/include`.
fn toolchain_include_dirs(verbose: &str) -> Vec<PathBuf> {
    verbose
        .lines()
        .skip_while(|l| !l.contains("search starts here"))
        .filter(|l| l.starts_with(' '))
        .map(|l| PathBuf::from(l.trim()))
        .filter(|p| {
            let s = p.display().to_string();
            s.contains("wasm32") || s.contains("wasi") || s.contains("/lib/clang/")
        })
        .collect()
}

/// Whether a file is C++ by its extension.
pub(super) fn is_cxx(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("cc" | "cpp" | "cxx" | "C" | "c++")
    )
}

/// Whether a file is a C or C++ source file.
pub(super) fn is_c_source(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("c")) || is_cxx(p)
}

fn candidates() -> Vec<CCompiler> {
    let mk = |flavor, cc: Vec<String>, cxx: Vec<String>| CCompiler {
        flavor,
        cc,
        cxx,
        version: String::new(),
        confinement: Confinement::default(),
        runtime_libs: (Vec::new(), Vec::new()),
        system_symbols: OnceLock::new(),
    };
    let target = "--target=wasm32-wasi".to_string();
    let mut out = Vec::new();
    if let Ok(cc) = std::env::var("DIXIT_CC") {
        let cxx = std::env::var("DIXIT_CXX").unwrap_or_else(|_| cc.replace("clang", "clang++"));
        out.push(mk(
            "DIXIT_CC",
            vec![cc, target.clone()],
            vec![cxx, target.clone()],
        ));
    }
    if Path::new("/usr/lib/wasm32-wasi").is_dir() || Path::new("/usr/include/wasm32-wasi").is_dir()
    {
        for v in ["", "-19", "-18", "-17", "-16", "-15", "-14"] {
            if let (Some(cc), Some(cxx)) =
                (which(&format!("clang{v}")), which(&format!("clang++{v}")))
            {
                out.push(mk(
                    "debian-clang",
                    vec![cc.display().to_string(), target.clone()],
                    vec![cxx.display().to_string(), target.clone()],
                ));
                break;
            }
        }
    }
    if let Ok(sdk) = std::env::var("WASI_SDK_PATH") {
        let sdk = PathBuf::from(sdk);
        let sysroot = format!("--sysroot={}", sdk.join("share/wasi-sysroot").display());
        out.push(mk(
            "wasi-sdk",
            vec![
                sdk.join("bin/clang").display().to_string(),
                target.clone(),
                sysroot.clone(),
            ],
            vec![
                sdk.join("bin/clang++").display().to_string(),
                target.clone(),
                sysroot,
            ],
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_toolchains_own_include_dirs() {
        let v = "ignoring\n#include <...> search starts here:\n /usr/lib/llvm-14/lib/clang/14.0.6/include\n /usr/local/include\n /usr/include/wasm32-wasi\n /usr/include\nEnd of search list.\n";
        assert_eq!(
            toolchain_include_dirs(v),
            [
                PathBuf::from("/usr/lib/llvm-14/lib/clang/14.0.6/include"),
                PathBuf::from("/usr/include/wasm32-wasi")
            ]
        );
    }
}
