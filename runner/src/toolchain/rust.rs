//! Rust: rustup's `wasm32-wasip1` target. A solution is a library crate (`lib.rs` or
//! `src/lib.rs`), compiled as `dixit_solution` with unsafe code forbidden. A unit test and its
//! solution are two components with their own memories, meeting at the interface's WIT world
//! (`wit_rust.rs`): the solution's crate with dixit's glue exports it, and the test, compiled
//! with unsafe code forbidden too, uses the crate `solution`, whose functions have the stated
//! types and call the import. dixit's guest crate installs a panic hook before `main`, so a
//! failed `assert!` is a wrong answer rather than a crash.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::builds::{Builds, Toolchain};
use super::component::{self, ComponentError};
use super::error::{
    failed_side, sandbox_message, BuildError, BuildFailure, CompileError, Tool, ToolchainError,
};
use super::heap;
use super::interface::Item as InterfaceItem;
use super::process::{
    failure_log, run_tool, shared_libraries, which, Confinement, Policy, ToolError, ToolLimits,
    PROBE,
};
use super::runnable::{once, Runnable, Solution, Test};
use super::wit::Side;
use super::wit_rust::{self, RustInterface};
use crate::sandbox::{hash_parts, CompileSide, Program, SandboxError};

const TARGET: &str = "wasm32-wasip1";

/// The crate name a solution's own crate is compiled under. Tests never see it: it is linked
/// only into the solution's component.
pub(crate) const SOLUTION_CRATE: &str = "dixit_solution";

/// Rust's toolchain: a solution's crate and glue are compiled once; each test is a binary built
/// with the interface's `solution` crate and dixit's guest crate.
#[derive(Default)]
pub(super) struct RustToolchain {
    compiler: OnceLock<Result<RustCompiler, ToolchainError>>,
}

impl RustToolchain {
    fn compiler(&self, side: CompileSide) -> Result<&RustCompiler, BuildError> {
        self.compiler
            .get_or_init(RustCompiler::discover)
            .as_ref()
            .map_err(|e| BuildError::unavailable(side, e))
    }

    /// The interface's structs and functions (checked when the interface was read).
    fn signatures(s: &Solution) -> Result<RustInterface, BuildError> {
        let items = s.interface.items();
        InterfaceItem::interface(items).map_err(|(k, e)| {
            let name = items.get(k).map_or("", |i| i.name.as_str());
            BuildError::new(
                CompileSide::Link,
                BuildFailure::Interface,
                format!("interface item `{name}`: {e}"),
            )
        })
    }

    /// The solution's own crate, compiled as `dixit_solution` (safe Rust only).
    fn solution_rlib<'s>(
        &self,
        tc: &dyn Builds,
        s: &'s Solution,
    ) -> Result<&'s PathBuf, BuildError> {
        once(&s.rlib, || {
            let side = CompileSide::Solution;
            let rustc = self.compiler(side)?;
            let root = crate_root(s, ["lib.rs", "src/lib.rs"]).ok_or_else(|| {
                BuildError::new(
                    side,
                    BuildFailure::Sources,
                    "a Rust solution needs lib.rs or src/lib.rs",
                )
            })?;
            rustc
                .library(
                    &root,
                    SOLUTION_CRATE,
                    &[s.snapshot.hash.as_bytes()],
                    &tc.build_dir("rlib"),
                    &LibOptions {
                        crate_type: CrateType::Rlib,
                        safe: true,
                        externs: &[],
                    },
                )
                .map_err(|e| BuildError::new(side, BuildFailure::Compile, e.to_string()))
        })
    }

    /// The solution's core module: its crate and dixit's glue, which calls each of the
    /// interface's functions through a pointer of the stated type. A solution that lacks a
    /// function or gives it another type fails here.
    fn solution_module<'s>(
        &self,
        tc: &dyn Builds,
        s: &'s Solution,
    ) -> Result<&'s PathBuf, BuildError> {
        once(&s.glue, || {
            let side = CompileSide::Solution;
            let sigs = Self::signatures(s)?;
            let real = self.solution_rlib(tc, s)?.clone();
            let rustc = self.compiler(side)?;
            let wit = wit_rust::rust_world(&sigs);
            let bindings = component::rust_bindings(&wit, Side::Solution).map_err(glue_failed)?;
            let src = wit_rust::solution_glue(&sigs, SOLUTION_CRATE, &bindings);
            let host = |e: std::io::Error| BuildError::new(side, BuildFailure::Host, e.to_string());
            let dir = tempfile::tempdir().map_err(host)?;
            let root = dir.path().join("dixit_solution_glue.rs");
            std::fs::write(&root, &src).map_err(host)?;
            rustc
                .library(
                    &root,
                    "dixit_solution_glue",
                    &[real.as_os_str().as_encoded_bytes(), src.as_bytes()],
                    &tc.build_dir("rlib"),
                    &LibOptions {
                        crate_type: CrateType::Cdylib,
                        safe: false,
                        externs: &[(SOLUTION_CRATE, &real)],
                    },
                )
                .map_err(|e| {
                    let log = format!(
                        "the solution does not provide the project's interface ({}):\n{e}",
                        s.interface.describe()
                    );
                    BuildError::new(side, BuildFailure::Interface, log)
                })
        })
    }

    /// The crate `solution` a test uses: the interface's functions, calling the import.
    fn test_facade(
        &self,
        tc: &dyn Builds,
        sigs: &RustInterface,
        wit: &str,
    ) -> Result<PathBuf, BuildError> {
        let side = CompileSide::Link;
        let rustc = self.compiler(side)?;
        let bindings = component::rust_bindings(wit, Side::Test).map_err(glue_failed)?;
        let src = wit_rust::test_facade(sigs, &bindings);
        let host = |e: std::io::Error| BuildError::new(side, BuildFailure::Host, e.to_string());
        let dir = tempfile::tempdir().map_err(host)?;
        let root = dir.path().join("solution.rs");
        std::fs::write(&root, &src).map_err(host)?;
        rustc
            .library(
                &root,
                "solution",
                &[src.as_bytes()],
                &tc.build_dir("rlib"),
                &LibOptions {
                    crate_type: CrateType::Rlib,
                    safe: false,
                    externs: &[],
                },
            )
            .map_err(|e| BuildError::new(side, BuildFailure::Interface, e.to_string()))
    }

    /// dixit's guest crate (`dixit`: the panic hook tests install).
    fn guest_rlib(&self, tc: &dyn Builds) -> Result<PathBuf, BuildError> {
        let side = CompileSide::Link;
        let rustc = self.compiler(side)?;
        let sdk = tc.sdk_for(side)?;
        rustc
            .library(
                &sdk.path("rust/lib.rs"),
                "dixit",
                &[sdk.hash.as_bytes()],
                &tc.build_dir("rlib"),
                &LibOptions {
                    crate_type: CrateType::Rlib,
                    safe: false,
                    externs: &[],
                },
            )
            .map_err(|e| BuildError::new(side, BuildFailure::Host, e.to_string()))
    }

    /// The binary cached under `key`, built by `build` (given where a failed build's log is
    /// kept) on a miss; a failed build is the sandbox's [`SandboxError::Link`], with the log.
    fn binary(
        tc: &dyn Builds,
        key: &str,
        build: impl FnOnce(&Path) -> Result<Vec<u8>, CompileError>,
    ) -> Result<Program, SandboxError> {
        let failed = tc.sandbox().cache().path("buildfail", key, "log");
        tc.sandbox().load_keyed(key, || {
            build(&failed).map_err(|e| SandboxError::Link {
                message: e.to_string(),
            })
        })
    }
}

/// A failure of dixit's own glue generation (the world was checked when the interface was read).
fn glue_failed(e: ComponentError) -> BuildError {
    BuildError::new(CompileSide::Link, BuildFailure::Interface, e.to_string())
}

impl Toolchain for RustToolchain {
    fn prepare_solution(&self, tc: &dyn Builds, s: &Solution) -> Result<(), BuildError> {
        self.solution_module(tc, s).map(|_| ())
    }

    // A test builds against the interface's `solution` crate: with the solution, in `unit_test`.

    fn unit_test(&self, tc: &dyn Builds, s: &Solution, t: &Test) -> Result<Runnable, BuildError> {
        t.pair_with(s, || self.component_test(tc, s, t))
    }

    fn program(&self, tc: &dyn Builds, s: &Solution) -> Result<Runnable, BuildError> {
        let side = CompileSide::Solution;
        let rustc = self.compiler(side)?;
        let root = crate_root(s, ["main.rs", "src/main.rs"]).ok_or_else(|| {
            BuildError::new(
                side,
                BuildFailure::Sources,
                "a Rust program needs main.rs or src/main.rs",
            )
        })?;
        let key = hash_parts([
            b"rust-bin-v4".as_slice(),
            rustc.version.as_bytes(),
            s.snapshot.hash.as_bytes(),
        ]);
        let program = Self::binary(tc, &key, |failed| {
            rustc.binary(&root, &s.snapshot.dir, &[], failed)
        })
        .map_err(|e| BuildError::new(side, BuildFailure::Compile, sandbox_message(e)))?;
        Ok(Runnable::compiled_program(program, s))
    }
}

impl RustToolchain {
    /// The test and its solution as two components linked by the host (see `wit_rust.rs`).
    fn component_test(
        &self,
        tc: &dyn Builds,
        s: &Solution,
        t: &Test,
    ) -> Result<Runnable, BuildError> {
        let rustc = self.compiler(CompileSide::Link)?;
        let sigs = Self::signatures(s)?;
        let wit = wit_rust::rust_world(&sigs);
        let module = self.solution_module(tc, s)?.clone();
        let facade = self.test_facade(tc, &sigs, &wit)?;
        let guest = self.guest_rlib(tc)?;
        let test_path = t.snapshot.dir.join(&t.file_name);
        let test_key = hash_parts([
            b"rust-test-v6".as_slice(),
            rustc.version.as_bytes(),
            wit.as_bytes(),
            t.snapshot.hash.as_bytes(),
            guest.as_os_str().as_encoded_bytes(),
            facade.as_os_str().as_encoded_bytes(),
        ]);
        let sol_key = hash_parts([
            b"rust-solution-v2".as_slice(),
            wit.as_bytes(),
            module.as_os_str().as_encoded_bytes(),
        ]);
        let failed_log = tc.sandbox().cache().path("buildfail", &test_key, "log");
        // What failed, kept out of the sandbox's error so it can be blamed on its side.
        let failed: std::cell::RefCell<Option<BuildError>> = Default::default();
        let mut build_test = || -> Result<Vec<u8>, SandboxError> {
            let built = (|| {
                let dir = tempfile::tempdir().map_err(CompileError::Host)?;
                let root = dir.path().join("dixit_test_main.rs");
                std::fs::write(&root, test_root(&test_path)).map_err(CompileError::Host)?;
                rustc.binary(
                    &root,
                    &t.snapshot.dir,
                    &[("solution", &facade), ("dixit", &guest)],
                    &failed_log,
                )
            })();
            let bytes = built.map_err(|e| {
                let log = s.interface.hint_unstated(e.to_string(), t.kind);
                let side = failed_side(&log, &t.file_name);
                *failed.borrow_mut() =
                    Some(BuildError::new(side, BuildFailure::Compile, log.clone()));
                SandboxError::Link { message: log }
            })?;
            component::componentize(&bytes, &wit, Side::Test).map_err(|e| SandboxError::Invalid {
                message: e.to_string(),
            })
        };
        let mut build_solution = || -> Result<Vec<u8>, SandboxError> {
            let bytes = std::fs::read(&module).map_err(|e| SandboxError::Invalid {
                message: format!("{}: {e}", module.display()),
            })?;
            component::componentize(&bytes, &wit, Side::Solution).map_err(|e| {
                SandboxError::Invalid {
                    message: e.to_string(),
                }
            })
        };
        let program = tc
            .sandbox()
            .load_pair(
                (&test_key, &mut build_test),
                (&sol_key, &mut build_solution),
            )
            .map_err(|e| {
                failed.borrow_mut().take().unwrap_or_else(|| {
                    BuildError::new(CompileSide::Link, BuildFailure::Link, sandbox_message(e))
                })
            })?;
        Ok(Runnable::compiled_test(program))
    }
}

/// The first of `candidates` that is a file of the solution.
fn crate_root(s: &Solution, candidates: [&str; 2]) -> Option<PathBuf> {
    candidates
        .iter()
        .map(|r| s.snapshot.dir.join(r))
        .find(|p| p.is_file())
}

/// What kind of library crate to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CrateType {
    /// A crate others link (`lib{name}.rlib`).
    Rlib,
    /// A core module that exports functions (`{name}.wasm`): a solution's component.
    Cdylib,
}

/// How to compile a library crate.
pub(crate) struct LibOptions<'a> {
    pub crate_type: CrateType,
    /// Code a coder or tester wrote: safe Rust only (`-F unsafe_code`).
    pub safe: bool,
    /// Crates it uses (`--extern name=rlib`).
    pub externs: &'a [(&'a str, &'a Path)],
}
const STACK_ARG: &str = "link-arg=-zstack-size=8388608";

/// Each side of a pair exits through the glue's `__wrap__Exit` (`guest-sdk/rust/pair.rs`).
const EXIT_WRAP_ARG: &str = "link-arg=--wrap=_Exit";

/// Seconds of wall time one rustc invocation may take (CPU time: see `ToolLimits::compiler`).
const RUSTC_SECONDS: u64 = 90;

/// rustc with the wasm32-wasip1 standard library installed.
#[derive(Clone, Debug)]
pub struct RustCompiler {
    /// The toolchain's own rustc binary (not rustup's proxy, which reads `~/.rustup`).
    rustc: PathBuf,
    /// `rustc --version`; part of every cache key.
    pub version: String,
    /// What its processes may touch: the sysroot (std for the target, the linker) and the
    /// shared libraries rustc and rust-lld load.
    confinement: Confinement,
}

impl RustCompiler {
    /// Finds rustc and checks that the wasm32-wasip1 target is installed.
    pub fn discover() -> Result<RustCompiler, ToolchainError> {
        let missing = |message: String| ToolchainError::Missing {
            tool: Tool::Rustc,
            message,
        };
        let failed = |e: ToolError| ToolchainError::Failed {
            message: e.to_string(),
        };
        let proxy = std::env::var_os("DIXIT_RUSTC")
            .map(PathBuf::from)
            .or_else(|| which("rustc"))
            .ok_or_else(|| missing("rustc not found (install rustup)".into()))?;
        let o = run_tool(Command::new(&proxy).arg("--version"), PROBE).map_err(failed)?;
        let version = o.stdout.trim().to_string();
        let o =
            run_tool(Command::new(&proxy).args(["--print", "sysroot"]), PROBE).map_err(failed)?;
        let sysroot = PathBuf::from(o.stdout.trim());
        if !sysroot.join("lib/rustlib").join(TARGET).is_dir() {
            return Err(missing(format!(
                "the {TARGET} target is not installed (rustup target add {TARGET})"
            )));
        }
        let rustc = sysroot.join("bin/rustc");
        if !rustc.is_file() {
            return Err(ToolchainError::Failed {
                message: format!("{}: not found", rustc.display()),
            });
        }
        // The shared libraries, and the dynamic loader, which the kernel opens for execution.
        let mut exec = vec![sysroot.clone()];
        exec.extend(shared_libraries(&rustc));
        let host_bin = sysroot.join("lib/rustlib");
        if let Ok(rd) = std::fs::read_dir(&host_bin) {
            for e in rd.flatten() {
                let lld = e.path().join("bin/rust-lld");
                if lld.is_file() {
                    exec.extend(shared_libraries(&lld));
                }
            }
        }
        exec.sort();
        exec.dedup();
        Ok(RustCompiler {
            rustc,
            version,
            confinement: Confinement {
                exec,
                read: Vec::new(),
                write: Vec::new(),
                env: vec![("LC_ALL".into(), "C".into())],
            },
        })
    }

    fn rustc(&self) -> Command {
        let mut c = Command::new(&self.rustc);
        c.args([
            "--edition",
            "2021",
            "--target",
            TARGET,
            "-C",
            "opt-level=2",
            "-C",
            "debuginfo=0",
            // Warnings are noise in a build log; deny-by-default lints stay errors, and the
            // const-evaluation limit cannot be switched off by the code itself.
            "-A",
            "warnings",
            "-F",
            "long_running_const_eval",
        ]);
        c
    }

    /// Runs rustc confined, reading `reads` and writing `work`. A build that fails or runs out
    /// of time is a verdict on its input: it is recorded at `failed` and from then on returned
    /// without running again.
    fn run(
        &self,
        c: &mut Command,
        reads: &[&Path],
        work: &Path,
        failed: &Path,
    ) -> Result<(), CompileError> {
        if let Ok(log) = std::fs::read_to_string(failed) {
            return Err(CompileError::Log(log));
        }
        let confinement = self
            .confinement
            .reading(reads.iter().copied())
            .writing([work]);
        let limits = ToolLimits::compiler(RUSTC_SECONDS);
        c.env("TMPDIR", work);
        let policy = Policy::Confined {
            confinement: &confinement,
            limits,
        };
        let log = match run_tool(c, policy) {
            Ok(o) if o.success => return Ok(()),
            Ok(o) => trim(&failure_log(&o, &limits, &confinement.scrubs())),
            Err(ToolError::TimedOut(m)) => format!("{m}\n{}", limits.explain()),
            Err(ToolError::Setup(m)) => return Err(CompileError::Setup(m)),
        };
        if let Some(d) = failed.parent() {
            let _ = std::fs::create_dir_all(d);
        }
        let _ = std::fs::write(failed, &log);
        Err(CompileError::Log(log))
    }

    /// Compiles a library crate `name` from `root` into `out_dir` (cached by `key_parts`). A
    /// solution is safe Rust: `unsafe_code` is forbidden, which also forbids `#[no_mangle]`,
    /// `#[export_name]` and `#[link_section]`, so it cannot replace a symbol its glue or the C
    /// runtime defines, nor run code before `main`.
    pub(crate) fn library(
        &self,
        root: &Path,
        name: &str,
        key_parts: &[&[u8]],
        out_dir: &Path,
        opts: &LibOptions,
    ) -> Result<PathBuf, CompileError> {
        let kind = [u8::from(opts.safe), opts.crate_type as u8];
        let mut parts: Vec<&[u8]> = vec![
            b"rust-lib-v7",
            self.version.as_bytes(),
            name.as_bytes(),
            &kind,
        ];
        for (n, p) in opts.externs {
            parts.push(n.as_bytes());
            parts.push(p.as_os_str().as_encoded_bytes());
        }
        parts.extend_from_slice(key_parts);
        let key = hash_parts(parts);
        let dir = out_dir.join(&key[..2]).join(&key);
        let (crate_type, file) = match opts.crate_type {
            CrateType::Rlib => ("rlib", format!("lib{name}.rlib")),
            CrateType::Cdylib => ("cdylib", format!("{name}.wasm")),
        };
        let out = dir.join(&file);
        if out.is_file() {
            return Ok(out);
        }
        let failed = out_dir.join(&key[..2]).join(format!("{key}.failed"));
        std::fs::create_dir_all(out_dir).map_err(|error| CompileError::Io {
            path: out_dir.to_path_buf(),
            error,
        })?;
        let tmp = tempfile::tempdir_in(out_dir).map_err(CompileError::Host)?;
        let mut c = self.rustc();
        c.args(["--crate-type", crate_type, "--crate-name", name]);
        if opts.safe {
            c.args(["-F", "unsafe_code"]);
        }
        if opts.crate_type == CrateType::Cdylib {
            c.args([
                "-C",
                STACK_ARG,
                "-C",
                heap::RUST_LINK_ARG,
                "-C",
                EXIT_WRAP_ARG,
            ]);
        } else {
            // One object: a crate's `.init_array` entry is linked whenever the crate is.
            c.args(["-C", "codegen-units=1"]);
        }
        let src_dir = root.parent().unwrap_or(Path::new("/"));
        let mut reads: Vec<&Path> = vec![src_dir];
        for (n, rlib) in opts.externs {
            c.arg("--extern").arg(format!("{n}={}", rlib.display()));
            reads.extend(rlib.parent());
        }
        c.arg(remap(root))
            .arg(root)
            .arg("-o")
            .arg(tmp.path().join(&file));
        self.run(&mut c, &reads, tmp.path(), &failed)?;
        std::fs::create_dir_all(dir.parent().unwrap_or(out_dir)).map_err(CompileError::Host)?;
        let kept = tmp.keep();
        if std::fs::rename(&kept, &dir).is_err() {
            let _ = std::fs::remove_dir_all(&kept);
        }
        Ok(out)
    }

    /// Compiles a binary from `root` with the given `--extern name=rlib` crates. `sources` is
    /// the directory of the user's file, stripped from paths in messages. With externs (a
    /// test), unsafe code is forbidden. A build that fails or runs out of time is recorded in
    /// `failed` and not tried again.
    pub fn binary(
        &self,
        root: &Path,
        sources: &Path,
        externs: &[(&str, &Path)],
        failed: &Path,
    ) -> Result<Vec<u8>, CompileError> {
        let dir = tempfile::tempdir().map_err(CompileError::Host)?;
        let out = dir.path().join("bin.wasm");
        let mut c = self.rustc();
        c.args(["-C", STACK_ARG, "-C", heap::RUST_LINK_ARG])
            .arg(remap(&sources.join("x")));
        let mut reads: Vec<&Path> = vec![sources];
        if let Some(d) = root.parent() {
            reads.push(d);
        }
        for (name, rlib) in externs {
            c.arg("--extern").arg(format!("{name}={}", rlib.display()));
            if let Some(d) = rlib.parent() {
                c.arg("-L").arg(format!("dependency={}", d.display()));
                reads.push(d);
            }
        }
        if !externs.is_empty() {
            c.args(["-F", "unsafe_code", "-C", EXIT_WRAP_ARG]);
        }
        c.arg(root).arg("-o").arg(&out);
        self.run(&mut c, &reads, dir.path(), failed)?;
        std::fs::read(&out).map_err(CompileError::Host)
    }
}

/// The generated crate root for a test: the test's own source (spans still point at its file),
/// dixit's guest crate, whose static constructor installs its panic hook before `main`, and the
/// crate `solution` linked even when the test names nothing of it (its runtime holds the
/// `_Exit` wrapper every pair links with).
fn test_root(test_path: &Path) -> String {
    format!(
        "extern crate dixit;\nextern crate solution as __dixit_interface;\ninclude!({path:?});\n",
        path = test_path.display().to_string()
    )
}

/// `--remap-path-prefix DIR/=`: diagnostics and panic messages name `lib.rs:3`, not a cache path.
fn remap(file: &Path) -> String {
    let dir = file
        .parent()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    format!("--remap-path-prefix={dir}/=")
}

fn trim(log: &str) -> String {
    if log == "the compiler failed without a message" {
        "rustc failed without a message".into()
    } else {
        log.to_string()
    }
}
