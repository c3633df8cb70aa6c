//! [`Toolchains`], the façade the rest of dixit uses, and what it hands out: a snapshotted
//! [`Solution`] or [`Test`], and a [`Runnable`]. Each language's builds are a [`Toolchain`]
//! (`python.rs`, `c.rs`, `rust.rs`, `io.rs`); what every language does the same way (snapshots,
//! memoized builds, the check that a pair's languages go together, running) is here, once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::c::CToolchain;
use super::error::{BuildError, BuildFailure, ToolchainError};
use super::interface::{Interface, InterfaceError, StatedInterface};
use super::io::IoToolchain;
use super::io_case::IoCase;
use super::python::PythonToolchain;
use super::rust::RustToolchain;
use super::sdk::Sdk;
use super::snapshot::{self, Snapshot};
use super::{Language, TestKind};
use crate::sandbox::{
    CompileSide, Completion, Entry, Limits, Preopen, Program, RunOutcome, RunSpec, Sandbox, Server,
    Verdict,
};

/// How one language turns a solution and a test into runnables. Tests are dispatched by their
/// kind, solutions by their language; the façade memoizes and runs what these build.
pub(super) trait Toolchain: Sync {
    /// Builds what a solution of this language needs before unit tests link with it (its
    /// syntax check, objects, or crate).
    fn prepare_solution(&self, tc: &Toolchains, s: &Solution) -> Result<(), BuildError>;

    /// Builds what a test of this kind needs on its own. Compiled tests build with their
    /// solution, in [`Toolchain::unit_test`].
    fn prepare_test(&self, _tc: &Toolchains, _t: &Test) -> Result<(), BuildError> {
        Ok(())
    }

    /// A unit test of this kind against a prepared solution.
    fn unit_test(&self, tc: &Toolchains, s: &Solution, t: &Test) -> Result<Runnable, BuildError>;

    /// A solution of this language as a standalone program (for I/O tests and checkers).
    fn program(&self, tc: &Toolchains, s: &Solution) -> Result<Runnable, BuildError>;

    /// Runs a test of this kind against a prepared solution once: a unit test unless the kind
    /// says otherwise (an I/O test runs the solution's program and judges its output).
    fn run(
        &self,
        tc: &Toolchains,
        s: &Solution,
        t: &Test,
        seed: u64,
        limits: &Limits,
    ) -> Result<Verdict, BuildError> {
        let r = self.unit_test(tc, s, t)?;
        Ok(tc.run_runnable(&r, Vec::new(), seed, limits))
    }
}

/// A solution folder, snapshotted; its artifacts are built on first need and memoized.
pub struct Solution {
    /// Where it came from.
    pub dir: PathBuf,
    pub snapshot: Snapshot,
    pub language: Language,
    /// What tests may use of it (C/C++/Rust unit tests compile against this, never against
    /// the solution's own files).
    pub(super) interface: Arc<Interface>,
    /// Python: the syntax check, and the directory of the cached compiled code if any.
    pub(super) checked: OnceLock<Result<Option<PathBuf>, BuildError>>,
    pub(super) objects: OnceLock<Result<Vec<PathBuf>, BuildError>>,
    /// C/C++ unit tests: whether the objects passed the interposition guard.
    pub(super) guarded: OnceLock<Result<(), BuildError>>,
    pub(super) rlib: OnceLock<Result<PathBuf, BuildError>>,
    /// Rust unit tests: the facade crate `solution` (the interface's items only).
    pub(super) facade: OnceLock<Result<PathBuf, BuildError>>,
    program: OnceLock<Result<Runnable, BuildError>>,
}

impl Solution {
    /// A snapshot of `language` sources from `dir`, with nothing built yet and no interface.
    pub(super) fn new(dir: PathBuf, snapshot: Snapshot, language: Language) -> Solution {
        Solution {
            dir,
            snapshot,
            language,
            interface: Arc::default(),
            checked: OnceLock::new(),
            objects: OnceLock::new(),
            guarded: OnceLock::new(),
            rlib: OnceLock::new(),
            facade: OnceLock::new(),
            program: OnceLock::new(),
        }
    }

    /// This solution under the project's interface (set before anything is built).
    pub fn with_interface(mut self, interface: Arc<Interface>) -> Solution {
        self.interface = interface;
        self
    }

    /// The interface tests compile against.
    pub fn interface(&self) -> &Interface {
        &self.interface
    }

    /// Where a run sees the solution's files.
    pub(super) fn preopen(&self) -> Preopen {
        Preopen {
            host: self.snapshot.dir.clone(),
            guest: "/solution".into(),
        }
    }
}

/// A test file, snapshotted (alone in its own directory).
pub struct Test {
    /// Where it came from.
    pub path: PathBuf,
    pub kind: TestKind,
    pub snapshot: Snapshot,
    pub(super) file_name: String,
    pub(super) io: Option<IoCase>,
    /// Python: the syntax check, and the directory of the cached compiled code if any.
    pub(super) checked: OnceLock<Result<Option<PathBuf>, BuildError>>,
    /// C/C++: the test's object, per interface key.
    pub(super) objects: Mutex<HashMap<String, Result<PathBuf, BuildError>>>,
    pub(super) checker: OnceLock<Result<Runnable, BuildError>>,
}

impl Test {
    /// The parsed I/O case, for I/O tests.
    pub fn io_case(&self) -> Option<&IoCase> {
        self.io.as_ref()
    }

    /// Where a run sees the test's file.
    pub(super) fn preopen(&self) -> Preopen {
        Preopen {
            host: self.snapshot.dir.clone(),
            guest: "/test".into(),
        }
    }
}

/// A program plus how to enter it, what it sees, and what counts as its pass.
#[derive(Clone, Debug)]
pub struct Runnable {
    pub program: Program,
    pub entry: Entry,
    pub preopens: Vec<Preopen>,
    pub completion: Completion,
    /// A Python unit test's solution, served in an instance of its own (see
    /// `sandbox::bridge`); `None` for programs and compiled tests.
    pub server: Option<Arc<Server>>,
}

impl Runnable {
    /// This runnable with `extra` arguments appended.
    pub fn with_args(&self, extra: &[String]) -> Runnable {
        let mut r = self.clone();
        match &mut r.entry {
            Entry::Start { argv } => argv.extend_from_slice(extra),
            Entry::Call { args, .. } => args.extend_from_slice(extra),
        }
        r
    }

    /// One run of this runnable.
    fn spec(&self, stdin: Vec<u8>, seed: u64, limits: &Limits) -> RunSpec {
        RunSpec {
            entry: self.entry.clone(),
            stdin: stdin.into(),
            preopens: self.preopens.clone(),
            limits: limits.clone(),
            seed,
            server: self.server.clone(),
        }
    }

    /// A compiled solution run as a program: `_start` as `main`, the solution's files at
    /// `/solution`, a pass on exit code 0.
    pub(super) fn compiled_program(program: Program, s: &Solution) -> Runnable {
        Runnable {
            program,
            entry: Entry::Start {
                argv: vec!["main".into()],
            },
            preopens: vec![s.preopen()],
            completion: Completion::ExitZero,
            server: None,
        }
    }

    /// A compiled unit test, the test and the solution linked into one module: `_start` as
    /// `test`, and a pass only when the test's `main` returned. Neither's source is mounted, so
    /// the solution cannot read the test, nor the test the solution.
    pub(super) fn compiled_test(program: Program) -> Runnable {
        Runnable {
            program,
            entry: Entry::Start {
                argv: vec!["test".into()],
            },
            preopens: vec![],
            completion: Completion::Returned,
            server: None,
        }
    }
}

/// All toolchains over one sandbox. Compilers and the Python runtime are found (or built) on
/// first use and kept for the life of the value; `&Toolchains` is shared by worker threads.
pub struct Toolchains {
    sandbox: Arc<Sandbox>,
    sdk: OnceLock<Result<Sdk, String>>,
    python: PythonToolchain,
    c: CToolchain,
    rust: RustToolchain,
    io: IoToolchain,
}

impl Toolchains {
    /// Toolchains running on `sandbox`.
    pub fn new(sandbox: Arc<Sandbox>) -> Self {
        Toolchains {
            sandbox,
            sdk: OnceLock::new(),
            python: PythonToolchain::default(),
            c: CToolchain::default(),
            rust: RustToolchain::default(),
            io: IoToolchain,
        }
    }

    /// The toolchain that builds and runs tests of `kind`.
    fn for_test(&self, kind: TestKind) -> &dyn Toolchain {
        match kind {
            TestKind::Python => &self.python,
            TestKind::C | TestKind::Cpp => &self.c,
            TestKind::Rust => &self.rust,
            TestKind::Io => &self.io,
        }
    }

    /// The toolchain that builds solutions in `language` (a prebuilt program is an I/O test's).
    fn for_solution(&self, language: Language) -> &dyn Toolchain {
        match language {
            Language::Python => &self.python,
            Language::C | Language::Cpp => &self.c,
            Language::Rust => &self.rust,
            Language::Wasm => &self.io,
        }
    }

    /// Reads a stated interface (headers snapshotted, items parsed).
    pub fn interface(&self, stated: &StatedInterface) -> Result<Interface, InterfaceError> {
        Interface::load(self.sandbox.cache(), stated)
    }

    /// The sandbox runs go to.
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// The Python runtime (built once per machine, loaded once per process).
    pub fn python_runtime(&self) -> Result<&Program, ToolchainError> {
        self.python.runtime(&self.sandbox)
    }

    /// dixit's guest SDK, written to the cache on first use.
    pub(super) fn sdk(&self) -> Result<&Sdk, String> {
        once(&self.sdk, || Sdk::materialize(self.sandbox.cache()))
    }

    /// The SDK for a build of `side`: dixit's own files that could not be written are this
    /// machine's failure.
    pub(super) fn sdk_for(&self, side: CompileSide) -> Result<&Sdk, BuildError> {
        self.sdk()
            .map_err(|e| BuildError::new(side, BuildFailure::Host, e))
    }

    /// The directory holding `dixit.h` (for building a test natively, as the benchmark does).
    pub fn c_include_dir(&self) -> Result<PathBuf, String> {
        Ok(self.sdk()?.path("c/include"))
    }

    /// Where builds of one kind (`obj`, `rlib`) keep their outputs.
    pub(super) fn build_dir(&self, what: &str) -> PathBuf {
        self.sandbox.cache().root().join(what)
    }

    /// Snapshots a solution folder. `language` overrides detection from file extensions.
    pub fn solution(&self, dir: &Path, language: Option<Language>) -> Result<Solution, String> {
        if !dir.exists() {
            return Err(format!("solution folder {} does not exist", dir.display()));
        }
        if !dir.is_dir() {
            return Err(format!(
                "{} is not a folder (a solution is a folder of source files)",
                dir.display()
            ));
        }
        let snapshot = snapshot::snapshot_dir(self.sandbox.cache(), dir)?;
        let language = match language {
            Some(l) => l,
            None => Language::detect(&snapshot.files).ok_or_else(|| {
                format!(
                    "{}: no source files (.py, .c, .cpp, .rs, .wasm) found",
                    dir.display()
                )
            })?,
        };
        Ok(Solution::new(dir.to_path_buf(), snapshot, language))
    }

    /// Snapshots a solution folder for tests of `kind`: the solution's language (detected, unless
    /// given) must be the one the test needs. C and C++ mix: a C++ test may use a C solution.
    pub fn solution_for(
        &self,
        dir: &Path,
        kind: TestKind,
        language: Option<Language>,
    ) -> Result<Solution, String> {
        let mut s = self.solution(dir, language)?;
        match kind.language() {
            Some(needed) if !kind.accepts(s.language) => Err(format!(
                "{} is a {} solution, but a .{} test needs a {} solution",
                dir.display(),
                s.language.as_str(),
                kind.extension(),
                needed.as_str()
            )),
            _ => {
                if kind == TestKind::Cpp {
                    s.language = Language::Cpp;
                }
                Ok(s)
            }
        }
    }

    /// Snapshots a test file; its kind comes from its extension. I/O tests are parsed here.
    pub fn test(&self, path: &Path) -> Result<Test, String> {
        let kind = TestKind::from_path(path).ok_or_else(|| {
            format!(
                "{}: unknown test kind (expected .py, .c, .cpp, .rs or .toml)",
                path.display()
            )
        })?;
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| format!("{}: not a file", path.display()))?;
        let io = if kind == TestKind::Io {
            Some(IoCase::parse(path)?)
        } else {
            None
        };
        let snapshot = snapshot::snapshot_file(self.sandbox.cache(), path, &file_name)?;
        Ok(Test {
            path: path.to_path_buf(),
            kind,
            snapshot,
            file_name,
            io,
            checked: OnceLock::new(),
            objects: Mutex::new(HashMap::new()),
            checker: OnceLock::new(),
        })
    }

    /// Builds what a solution needs for tests of `kind`, reporting the build error if any.
    pub fn check_solution(&self, s: &Solution, kind: TestKind) -> Result<(), BuildError> {
        match kind {
            TestKind::Io => self.solution_program(s).map(|_| ()),
            _ => self.for_solution(s.language).prepare_solution(self, s),
        }
    }

    /// Builds what a test needs on its own (syntax check, checker).
    pub fn check_test(&self, t: &Test) -> Result<(), BuildError> {
        self.for_test(t.kind).prepare_test(self, t)
    }

    /// Checks that the pair's languages go together, then builds what each side needs.
    fn prepare(&self, s: &Solution, t: &Test) -> Result<(), BuildError> {
        if let Some(lang) = t.kind.language().filter(|_| !t.kind.accepts(s.language)) {
            return Err(BuildError::new(
                CompileSide::Link,
                BuildFailure::Sources,
                format!(
                    "a {} test needs a {} solution, not {}",
                    t.kind.extension(),
                    lang.as_str(),
                    s.language.as_str()
                ),
            ));
        }
        self.check_test(t)?;
        self.check_solution(s, t.kind)
    }

    /// Runs `test` against `solution` once with `seed`. Build failures are `compile_error`
    /// verdicts; nothing here returns an error.
    pub fn run(&self, s: &Solution, t: &Test, seed: u64, limits: &Limits) -> Verdict {
        self.try_run(s, t, seed, limits)
            .unwrap_or_else(|e| e.verdict(seed))
    }

    /// [`Toolchains::run`] for callers that decide on a build failure (a missing toolchain is
    /// not the code's fault); `e.verdict(seed)` is what `run` returns for it.
    pub fn try_run(
        &self,
        s: &Solution,
        t: &Test,
        seed: u64,
        limits: &Limits,
    ) -> Result<Verdict, BuildError> {
        self.prepare(s, t)?;
        self.for_test(t.kind).run(self, s, t, seed, limits)
    }

    /// Runs a Python unit test against a solution once, keeping up to `log` of the bridge's
    /// exchanges (the test's requests and the solution's answers) in the outcome: the
    /// disagreement finder's view of an ordinary run. Builds must already have succeeded.
    pub fn run_observed(
        &self,
        s: &Solution,
        t: &Test,
        seed: u64,
        limits: &Limits,
        log: usize,
    ) -> Result<RunOutcome, BuildError> {
        self.prepare(s, t)?;
        let r = self.unit_runnable(s, t)?;
        let mut spec = r.spec(Vec::new(), seed, limits);
        spec.server = r.server.map(|srv| {
            Arc::new(Server {
                log,
                ..(*srv).clone()
            })
        });
        Ok(self.sandbox.run(&r.program, &spec))
    }

    /// Runs a prepared [`Runnable`] once (the hot path of every run; `run` finds the runnable).
    pub fn run_runnable(
        &self,
        r: &Runnable,
        stdin: Vec<u8>,
        seed: u64,
        limits: &Limits,
    ) -> Verdict {
        let outcome = self.sandbox.run(&r.program, &r.spec(stdin, seed, limits));
        Verdict::from_outcome(&outcome, seed, r.completion)
    }

    /// A Python file of dixit's own run as a program (mode `main`, mounted at `/test` like a
    /// test, its compiled code cached like a test's): the disagreement finder's guest side.
    pub fn python_program(&self, t: &Test) -> Result<Runnable, BuildError> {
        self.check_test(t)?;
        self.python.own_program(self, t)
    }

    /// The runnable program for a unit test against a solution (same language).
    pub fn unit_runnable(&self, s: &Solution, t: &Test) -> Result<Runnable, BuildError> {
        self.for_test(t.kind).unit_test(self, s, t)
    }

    /// A solution as a standalone program (for I/O tests), built once.
    pub fn solution_program<'s>(&self, s: &'s Solution) -> Result<&'s Runnable, BuildError> {
        once(&s.program, || {
            self.for_solution(s.language).program(self, s)
        })
    }
}

/// What `cell` holds, computed by `build` on first need: a build, or its failure, is memoized.
pub(super) fn once<T, E: Clone>(
    cell: &OnceLock<Result<T, E>>,
    build: impl FnOnce() -> Result<T, E>,
) -> Result<&T, E> {
    cell.get_or_init(build).as_ref().map_err(Clone::clone)
}
