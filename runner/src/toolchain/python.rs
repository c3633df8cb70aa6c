//! Python: a pre-initialised CPython component built once by componentize-py from
//! `guest-sdk/python/` (`dixit_runner.py`, the entry, and `dixit_runtime.py`), then cached like
//! any other artifact. Solutions and tests
//! are plain files the runtime reads from read-only preopened directories.

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::builds::{Builds, Toolchain};
use super::error::{BuildError, BuildFailure, Tool, ToolchainError};
use super::process::{run_tool, which, Policy, ToolError};
use super::runnable::{once, Runnable, Solution, Test};
use super::sdk;
use super::snapshot::{Snapshot, SnapshotError};
use crate::sandbox::{
    dixit_home, flatten, hash_parts, CompileSide, Completion, Entry, Preopen, Program, RuntimeMode,
    Sandbox, SandboxError, Server,
};

/// Python's toolchain: the runtime, loaded once, checks the syntax of each side and runs it.
#[derive(Default)]
pub(super) struct PythonToolchain {
    runtime: OnceLock<Result<Program, ToolchainError>>,
}

impl PythonToolchain {
    /// The Python runtime (built once per machine, loaded once per process).
    pub(super) fn runtime(&self, sandbox: &Sandbox) -> Result<&Program, ToolchainError> {
        once(&self.runtime, || load_runtime(sandbox))
    }

    fn runtime_for(&self, tc: &dyn Builds, side: CompileSide) -> Result<&Program, BuildError> {
        self.runtime(tc.sandbox())
            .map_err(|e| BuildError::unavailable(side, &e))
    }

    /// The syntax check of `snap` mounted at `guest`, memoized in `cell` (see [`check`]).
    fn checked(
        &self,
        tc: &dyn Builds,
        cell: &OnceLock<Result<Option<Arc<[u8]>>, BuildError>>,
        snap: &Snapshot,
        guest: &str,
        side: CompileSide,
    ) -> Result<Option<Arc<[u8]>>, BuildError> {
        cell.get_or_init(|| {
            let rt = self.runtime_for(tc, side)?;
            check(tc, rt, snap, guest, side)
        })
        .clone()
    }

    /// A Python file of dixit's own (a checked test) run as a program in mode `main`.
    pub(super) fn own_program(&self, tc: &dyn Builds, t: &Test) -> Result<Runnable, BuildError> {
        let rt = self.runtime_for(tc, CompileSide::Test)?;
        let target = format!("/test/{}", t.file_name);
        Ok(call(rt, RuntimeMode::Main, target, t.preopen(), &t.checked))
    }
}

impl Toolchain for PythonToolchain {
    fn prepare_solution(&self, tc: &dyn Builds, s: &Solution) -> Result<(), BuildError> {
        let side = CompileSide::Solution;
        self.checked(tc, &s.checked, &s.snapshot, "/solution", side)
            .map(|_| ())
    }

    fn prepare_test(&self, tc: &dyn Builds, t: &Test) -> Result<(), BuildError> {
        self.checked(tc, &t.checked, &t.snapshot, "/test", CompileSide::Test)
            .map(|_| ())
    }

    /// The test and the solution run apart: the test's instance mounts only the test, the
    /// solution's only the solution, and they meet at the bridge, where the host holds the
    /// test's calls to the interface (both sides are told it).
    fn unit_test(&self, tc: &dyn Builds, s: &Solution, t: &Test) -> Result<Runnable, BuildError> {
        let rt = self.runtime_for(tc, CompileSide::Test)?;
        let interface = s.interface().python();
        let shown = interface.to_json();
        let server = Server {
            program: rt.clone(),
            mode: RuntimeMode::Serve,
            target: "/solution".into(),
            args: vec![shown.clone()],
            code: cached_code(&s.checked),
            preopens: vec![s.preopen()],
            log: 0,
            interface,
        };
        let target = format!("/test/{}", t.file_name);
        let test = call(rt, RuntimeMode::Test, target, t.preopen(), &t.checked);
        let mut args = vec![shown];
        if t.names_bound {
            args.push("bind".into());
        }
        Ok(Runnable {
            completion: Completion::Returned,
            server: Some(Arc::new(server)),
            ..test.with_args(&args)
        })
    }

    fn program(&self, tc: &dyn Builds, s: &Solution) -> Result<Runnable, BuildError> {
        let side = CompileSide::Solution;
        let main = python_main(&s.snapshot).ok_or_else(|| {
            let log = "a Python program needs main.py (or exactly one .py file)";
            BuildError::new(side, BuildFailure::Sources, log)
        })?;
        self.checked(tc, &s.checked, &s.snapshot, "/solution", side)?;
        let rt = self.runtime_for(tc, side)?;
        let target = format!("/solution/{}", main.display());
        Ok(call(rt, RuntimeMode::Main, target, s.preopen(), &s.checked))
    }
}

/// The runtime entered in `mode` on `target`, seeing `preopen`, with one side's cached code
/// (see [`cached_code`]); a program's pass (exit code 0).
fn call(
    rt: &Program,
    mode: RuntimeMode,
    target: String,
    preopen: Preopen,
    checked: &OnceLock<Result<Option<Arc<[u8]>>, BuildError>>,
) -> Runnable {
    Runnable {
        program: rt.clone(),
        entry: Entry::Call {
            mode,
            target,
            args: Vec::new(),
            code: cached_code(checked),
        },
        preopens: vec![preopen],
        completion: Completion::ExitZero,
        server: None,
    }
}

/// The compiled code of one side's files from its check, which the runtime gets through
/// `bridge.code` (empty when there is none: the runtime compiles the files).
fn cached_code(checked: &OnceLock<Result<Option<Arc<[u8]>>, BuildError>>) -> Arc<[u8]> {
    match checked.get() {
        Some(Ok(Some(code))) => code.clone(),
        _ => Arc::from(Vec::new()),
    }
}

/// A Python program's entry file: `main.py`, or its only `.py` file.
fn python_main(snap: &Snapshot) -> Option<PathBuf> {
    let py: Vec<&PathBuf> = snap
        .files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "py"))
        .collect();
    py.iter()
        .find(|f| f.as_os_str() == "main.py")
        .map(|f| (*f).clone())
        .or_else(|| (py.len() == 1).then(|| py[0].clone()))
}

/// The componentize-py version `toolchains/setup` installs; part of the runtime's cache key.
pub const COMPONENTIZE_PY_VERSION: &str = "0.25.1";

/// Finds componentize-py: `$DIXIT_COMPONENTIZE_PY`, the venv `toolchains/setup` makes, or `PATH`.
pub fn find_componentize_py() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("DIXIT_COMPONENTIZE_PY") {
        return Some(PathBuf::from(p));
    }
    let venv = dixit_home()
        .join("venv")
        .join("bin")
        .join("componentize-py");
    if venv.is_file() {
        return Some(venv);
    }
    which("componentize-py")
}

/// The cache key of the Python runtime: the runner source, its WIT world, componentize-py.
pub fn runtime_key() -> String {
    hash_parts([
        b"dixit-python-runtime-v5".as_slice(),
        sdk::file("python/dixit_runner.py").as_bytes(),
        sdk::file("python/dixit_runtime.py").as_bytes(),
        sdk::file("python/dixit_bridge.py").as_bytes(),
        sdk::file("python/wit/world.wit").as_bytes(),
        sdk::file("build/reproducible.c").as_bytes(),
        COMPONENTIZE_PY_VERSION.as_bytes(),
    ])
}

/// Loads the Python runtime, building it with componentize-py only if no compiled copy is cached.
fn load_runtime(sandbox: &Sandbox) -> Result<Program, ToolchainError> {
    let mut missing = false;
    let loaded = sandbox.load_keyed(&runtime_key(), || {
        let Some(tool) = find_componentize_py() else {
            missing = true;
            return Err(SandboxError::Invalid {
                message: String::new(),
            });
        };
        build_runtime(sandbox, &tool).map_err(|e| SandboxError::Invalid {
            message: e.to_string(),
        })
    });
    match loaded {
        Ok(p) => Ok(p),
        Err(_) if missing => Err(ToolchainError::Missing {
            tool: Tool::ComponentizePy,
            message: "python runtime: componentize-py not found (run toolchains/setup, or set \
                      DIXIT_COMPONENTIZE_PY)"
                .into(),
        }),
        Err(e) => Err(ToolchainError::Failed {
            message: format!("python runtime: {e}"),
        }),
    }
}

/// Why componentize-py did not build the Python runtime.
#[derive(Debug, thiserror::Error)]
enum RuntimeBuildError {
    /// dixit's SDK (the runner the runtime is built from) could not be written.
    #[error(transparent)]
    Sdk(#[from] SnapshotError),
    /// The build's temporary folder could not be made.
    #[error("temp dir: {0}")]
    TempDir(std::io::Error),
    /// componentize-py could not be started or ran past its time.
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// componentize-py failed: its output.
    #[error("componentize-py failed:\n{log}")]
    Componentize { log: String },
    /// What componentize-py wrote could not be read.
    #[error("{}: {error}", path.display())]
    Output {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// Why the reproducibility shim was not built (the runtime is then built without it).
#[derive(Debug, thiserror::Error)]
enum ShimError {
    /// No C compiler for the host is on the `PATH`.
    #[error("no host C compiler (cc, gcc, clang)")]
    NoHostCompiler,
    /// The compiler could not be started or ran past its time.
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// The compiler failed: its diagnostics.
    #[error("{stderr}")]
    Failed { stderr: String },
}

/// Builds the runtime with componentize-py and merges its core modules (see
/// [`crate::sandbox::flatten`]); the sandbox records the digest of what it compiles.
fn build_runtime(sandbox: &Sandbox, tool: &std::path::Path) -> Result<Vec<u8>, RuntimeBuildError> {
    let bytes = componentize(sandbox, tool)?;
    Ok(match flatten(&bytes) {
        Ok(flat) => flat,
        Err(e) => {
            tracing::warn!(
                "the Python runtime's core modules were not merged ({e}): fresh instances cost more"
            );
            bytes
        }
    })
}

/// The runtime component as componentize-py writes it.
fn componentize(sandbox: &Sandbox, tool: &std::path::Path) -> Result<Vec<u8>, RuntimeBuildError> {
    let sdk = sdk::Sdk::materialize(sandbox.cache())?;
    let work = tempfile::tempdir().map_err(RuntimeBuildError::TempDir)?;
    let out = work.path().join("runtime.wasm");
    tracing::info!("building the Python runtime with {} (once)", tool.display());
    let mut cmd = Command::new(tool);
    cmd.current_dir(work.path())
        .arg("-q")
        .arg("-d")
        .arg(sdk.path("python/wit"))
        .args(["-w", "runner", "componentize", "-p"])
        .arg(sdk.path("python"))
        .arg("dixit_runner")
        .arg("-o")
        .arg(&out)
        .env("PYTHONDONTWRITEBYTECODE", "1");
    match reproducible_shim(&sdk, work.path()) {
        Ok(shim) => {
            cmd.env("LD_PRELOAD", shim);
        }
        Err(e) => {
            tracing::warn!("building the Python runtime without the reproducibility shim: {e}")
        }
    }
    let o = run_tool(
        &mut cmd,
        Policy::Trusted {
            timeout: Duration::from_secs(600),
        },
    )?;
    if !o.success {
        return Err(RuntimeBuildError::Componentize {
            log: format!("{}{}", o.stdout, o.stderr),
        });
    }
    std::fs::read(&out).map_err(|error| RuntimeBuildError::Output { path: out, error })
}

/// Compiles `guest-sdk/build/reproducible.c` (see there) into a shared library with the host's C
/// compiler.
fn reproducible_shim(sdk: &sdk::Sdk, dir: &std::path::Path) -> Result<PathBuf, ShimError> {
    let src = sdk.path("build/reproducible.c");
    let lib = dir.join("libdixit_reproducible.so");
    let cc = ["cc", "gcc", "clang"]
        .into_iter()
        .find_map(which)
        .ok_or(ShimError::NoHostCompiler)?;
    let o = run_tool(
        Command::new(cc)
            .args(["-O2", "-shared", "-fPIC", "-o"])
            .arg(&lib)
            .arg(&src)
            .arg("-ldl"),
        Policy::Trusted {
            timeout: Duration::from_secs(120),
        },
    )?;
    if !o.success {
        return Err(ShimError::Failed { stderr: o.stderr });
    }
    Ok(lib)
}

/// Checks the syntax of every `.py` file of a snapshot (mounted at `guest`) and caches the
/// compiled code, so runs skip compiling: for a HumanEval-sized test, compiling the test and
/// the solution is over half of a run's instructions. Both outcomes are cached on disk, keyed by
/// the runtime and the snapshot, so a later process neither checks nor compiles again. Returns
/// the code (read once, kept in memory for every run; none when it was too large to pass back).
fn check(
    tc: &dyn Builds,
    rt: &Program,
    snap: &Snapshot,
    guest: &str,
    side: CompileSide,
) -> Result<Option<Arc<[u8]>>, BuildError> {
    use crate::sandbox::{Limits, RunSpec, Verdict, VerdictKind};

    let key = hash_parts([
        b"python-check-v1".as_slice(),
        runtime_key().as_bytes(),
        snap.hash.as_bytes(),
        guest.as_bytes(),
    ]);
    let sandbox = tc.sandbox();
    let dir = sandbox.cache().path("pycheck", &key, "d");
    let code = dir.join(CODE_FILE);
    let error = dir.join("error.txt");
    if let Ok(bytes) = std::fs::read(&code) {
        return Ok(Some(Arc::from(bytes)));
    }
    if let Ok(message) = std::fs::read_to_string(&error) {
        return Err(BuildError::new(side, BuildFailure::Compile, message));
    }
    let spec = RunSpec {
        entry: Entry::Call {
            mode: RuntimeMode::Check,
            target: guest.into(),
            args: vec!["--emit-code".into()],
            code: Arc::from(Vec::new()),
        },
        stdin: std::sync::Arc::from(Vec::new()),
        preopens: vec![Preopen {
            host: snap.dir.clone(),
            guest: guest.into(),
        }],
        limits: Limits {
            // Room for the marshalled code of a snapshot's worth of sources.
            output_bytes: 64 << 20,
            ..Limits::default()
        },
        seed: 0,
        server: None,
    };
    let outcome = tc.run_spec(rt, &spec);
    let v = Verdict::from_outcome(&outcome, 0, Completion::Returned);
    match v.verdict {
        VerdictKind::Pass => {
            if outcome.stdout.is_empty() {
                return Ok(None);
            }
            // Unwritten, the cache costs a later process a check; this one has the code.
            let _ = sandbox.cache().write_atomic(&code, &outcome.stdout);
            Ok(Some(Arc::from(outcome.stdout.as_slice())))
        }
        // Too much code to pass back: the files are fine, runs compile them.
        VerdictKind::OutputLimit => Ok(None),
        // exit 1: the files do not compile; the messages are the build error (cached).
        VerdictKind::WrongAnswer => {
            let message = if v.stderr.is_empty() {
                v.detail.unwrap_or_default()
            } else {
                v.stderr
            };
            let _ = sandbox.cache().write_atomic(&error, message.as_bytes());
            Err(BuildError::new(side, BuildFailure::Compile, message))
        }
        _ => Err(BuildError::new(
            side,
            BuildFailure::Compile,
            format!(
                "python check failed ({}): {}",
                v.verdict,
                v.detail.unwrap_or_default()
            ),
        )),
    }
}

const CODE_FILE: &str = "code.marshal";

#[cfg(test)]
mod tests {
    use super::*;

    /// The pinned componentize-py's output is one the flattener handles: if a new version
    /// changed its shape, the runtime would silently keep its 14 modules and cost twice as much.
    #[test]
    fn the_runtime_componentize_py_builds_is_flattened() {
        let tool = find_componentize_py().expect("componentize-py (toolchains/setup)");
        let dir = tempfile::tempdir().unwrap();
        let sandbox = Sandbox::new(crate::sandbox::SandboxConfig {
            cache_dir: dir.path().to_path_buf(),
            ..Default::default()
        })
        .unwrap();
        let built = componentize(&sandbox, &tool).unwrap();
        let flat = flatten(&built).expect("flattened");
        // libc, libpython, … and wit-component's glue in one; the "fixup" apart.
        assert_eq!(crate::sandbox::core_modules(&built), 14);
        assert_eq!(crate::sandbox::core_modules(&flat), 2);
    }

    /// The code a side's check cached reaches the runtime through `bridge.code` and is used:
    /// the same run handed no code compiles both files itself, and spends more fuel on it.
    #[test]
    fn runs_use_the_code_their_check_cached() {
        use crate::sandbox::{Limits, SandboxConfig};
        use crate::toolchain::{StatedInterface, Toolchains};
        let tc = Toolchains::new(Arc::new(Sandbox::new(SandboxConfig::default()).unwrap()));
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/classify");
        let t = tc.test(&root.join("python/tests/ideal.py")).unwrap();
        let stated = StatedInterface::Names(vec!["is_leap".into()]);
        let s = tc
            .solution_for(&root.join("python/solutions/correct"), t.kind, None)
            .unwrap()
            .with_interface(Arc::new(tc.interface(&stated).unwrap()));
        let limits = Limits::default();
        tc.run_observed(&s, &t, 1, &limits, 0).unwrap(); // checks both sides
        let cached = tc.unit_runnable(&s, &t).unwrap();
        let mut bare = cached.clone();
        let Entry::Call { code, .. } = &mut bare.entry else {
            panic!("a Python test is entered through `run`")
        };
        assert!(!code.is_empty(), "the test's check cached its code");
        *code = Arc::from(Vec::new());
        let server = bare
            .server
            .as_deref()
            .expect("the solution is served")
            .clone();
        assert!(
            !server.code.is_empty(),
            "the solution's check cached its code"
        );
        bare.server = Some(Arc::new(Server {
            code: Arc::from(Vec::new()),
            ..server
        }));
        let with = tc.run_runnable(&cached, Vec::new(), 1, &limits);
        let without = tc.run_runnable(&bare, Vec::new(), 1, &limits);
        assert!(with.passed() && without.passed(), "{with:?} / {without:?}");
        assert!(
            with.fuel < without.fuel,
            "with the cached code {} fuel, compiling {}",
            with.fuel,
            without.fuel
        );
    }

    #[test]
    fn python_program_entry() {
        let snap = |files: &[&str]| Snapshot {
            dir: PathBuf::new(),
            hash: String::new(),
            files: files.iter().map(PathBuf::from).collect(),
        };
        assert_eq!(
            python_main(&snap(&["main.py", "util.py"])),
            Some(PathBuf::from("main.py"))
        );
        assert_eq!(
            python_main(&snap(&["solve.py", "data.txt"])),
            Some(PathBuf::from("solve.py"))
        );
        assert_eq!(python_main(&snap(&["a.py", "b.py"])), None);
    }
}
