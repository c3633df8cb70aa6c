//! [`Toolchains`], the façade the rest of dixit uses. It picks one language's [`Toolchain`]
//! (`builds.rs`) by test kind or solution language, and does what every language does the same
//! way (snapshots, memoized builds, the check that a pair's languages go together, running)
//! here, once; the languages reach it as [`Builds`]. What it hands out is in `runnable.rs`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::builds::{Builds, Plan, Toolchain};
use super::c::CToolchain;
use super::error::{BuildError, BuildFailure, ToolchainError};
use super::interface::{InterfaceError, LoadedInterface, StatedInterface};
use super::io::{self, IoToolchain};
use super::io_case::IoCase;
use super::python::PythonToolchain;
use super::runnable::{once, Runnable, Solution, Test};
use super::rust::RustToolchain;
use super::sdk::Sdk;
use super::snapshot::{self, SnapshotError};
use super::{Language, TestKind};
use crate::execution::{Executor, Isolation};
use crate::sandbox::{
    CompileSide, Limits, Program, RunEnd, RunOutcome, RunSpec, Sandbox, Server, Verdict,
    VerdictKind,
};

/// All toolchains over one sandbox. Compilers and the Python runtime are found (or built) on
/// first use and kept for the life of the value; `&Toolchains` is shared by worker threads.
pub struct Toolchains {
    sandbox: Arc<Sandbox>,
    sdk: OnceLock<Result<Sdk, SnapshotError>>,
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
    pub fn interface(&self, stated: &StatedInterface) -> Result<LoadedInterface, InterfaceError> {
        LoadedInterface::load(self.sandbox.cache(), stated)
    }

    /// The sandbox runs go to.
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// The road every run of a live run takes into the sandbox: a fresh instance per run (each
    /// rerun has a seed of its own), counted by the executor.
    pub fn executor(&self) -> Executor<'_> {
        Executor::new(&self.sandbox, Isolation::Run)
    }

    /// The Python runtime (built once per machine, loaded once per process).
    pub fn python_runtime(&self) -> Result<&Program, ToolchainError> {
        self.python.runtime(&self.sandbox)
    }

    /// dixit's guest SDK, written to the cache on first use.
    pub(super) fn sdk(&self) -> Result<&Sdk, SnapshotError> {
        once(&self.sdk, || Sdk::materialize(self.sandbox.cache()))
    }

    /// The directory holding `dixit.h` (for building a test natively, as the benchmark does).
    pub fn c_include_dir(&self) -> Result<PathBuf, SnapshotError> {
        Ok(self.sdk()?.path("c/include"))
    }

    /// Snapshots a solution folder. `language` overrides detection from file extensions. A
    /// folder that is missing, unreadable or without source files is a [`BuildFailure::Sources`]
    /// of the solution's side.
    pub fn solution(&self, dir: &Path, language: Option<Language>) -> Result<Solution, BuildError> {
        let sources = |message| BuildError::not_taken(CompileSide::Solution, message);
        if !dir.exists() {
            return Err(sources(format!(
                "solution folder {} does not exist",
                dir.display()
            )));
        }
        if !dir.is_dir() {
            return Err(sources(format!(
                "{} is not a folder (a solution is a folder of source files)",
                dir.display()
            )));
        }
        let snapshot = snapshot::snapshot_dir(self.sandbox.cache(), dir)
            .map_err(|e| sources(e.to_string()))?;
        let language = match language {
            Some(l) => l,
            None => Language::detect(&snapshot.files).ok_or_else(|| {
                sources(format!(
                    "{}: no source files (.py, .c, .cpp, .rs, .wasm) found",
                    dir.display()
                ))
            })?,
        };
        Ok(Solution::new(dir.to_path_buf(), snapshot, language))
    }

    /// Snapshots a solution folder for tests of `kind`: the solution's language (detected, unless
    /// given) must be the one the test needs. C and C++ mix: a C++ test may use a C solution.
    /// Another language is a [`BuildFailure::Sources`] of the pair, as in a run.
    pub fn solution_for(
        &self,
        dir: &Path,
        kind: TestKind,
        language: Option<Language>,
    ) -> Result<Solution, BuildError> {
        let mut s = self.solution(dir, language)?;
        match kind.language() {
            Some(needed) if !kind.accepts(s.language) => Err(BuildError::not_taken(
                CompileSide::Link,
                format!(
                    "{} is a {} solution, but a .{} test needs a {} solution",
                    dir.display(),
                    s.language.as_str(),
                    kind.extension(),
                    needed.as_str()
                ),
            )),
            _ => {
                if kind == TestKind::Cpp {
                    s.language = Language::Cpp;
                }
                Ok(s)
            }
        }
    }

    /// Snapshots a test file; its kind comes from its extension. I/O tests are parsed here. A
    /// file of no known kind, unreadable, or (an I/O test) invalid is a
    /// [`BuildFailure::Sources`] of the test's side.
    pub fn test(&self, path: &Path) -> Result<Test, BuildError> {
        let sources = |message| BuildError::not_taken(CompileSide::Test, message);
        let kind = TestKind::from_path(path).ok_or_else(|| {
            sources(format!(
                "{}: unknown test kind (expected .py, .c, .cpp, .rs or .toml)",
                path.display()
            ))
        })?;
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| sources(format!("{}: not a file", path.display())))?;
        let io = if kind == TestKind::Io {
            Some(IoCase::parse(path).map_err(|e| sources(e.to_string()))?)
        } else {
            None
        };
        let snapshot = snapshot::snapshot_file(self.sandbox.cache(), path, &file_name)
            .map_err(|e| sources(e.to_string()))?;
        Ok(Test {
            path: path.to_path_buf(),
            kind,
            snapshot,
            file_name,
            io,
            checked: OnceLock::new(),
            objects: Mutex::new(HashMap::new()),
            pairs: Mutex::new(HashMap::new()),
            checker: OnceLock::new(),
            names_bound: true,
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
        Ok(match self.for_test(t.kind).plan(self, s, t)? {
            Plan::Unit(r) => self.run_runnable(&r, Vec::new(), seed, limits),
            Plan::Io {
                program,
                case,
                checker,
            } => self.run_io(&program, case, checker, seed, limits),
            Plan::Broken(why) => Verdict::not_run(VerdictKind::InternalError, None, why, seed),
        })
    }

    /// An I/O case: the solution's program on the case's input; its output judged by
    /// comparison, or by the checker's run (whose use of entropy or a clock makes the pair's
    /// verdict seed-dependent too: without that, `reruns = auto` would skip the reruns of a
    /// random checker).
    fn run_io(
        &self,
        program: &Runnable,
        case: &IoCase,
        checker: Option<&Runnable>,
        seed: u64,
        limits: &Limits,
    ) -> Verdict {
        let mut v = self.run_runnable(program, case.stdin.clone(), seed, limits);
        if v.verdict != VerdictKind::Pass {
            return v;
        }
        let judged = match checker {
            None => case
                .compare(v.stdout.as_bytes())
                .map_err(|d| (VerdictKind::WrongAnswer, d.to_string())),
            Some(c) => match io::checker_run(c, case, v.stdout.as_bytes()) {
                Err(e) => Err((VerdictKind::InternalError, e)),
                Ok((run, _files)) => {
                    let checked = self.run_runnable(&run, Vec::new(), seed, limits);
                    v.read_entropy |= checked.read_entropy;
                    v.read_clock |= checked.read_clock;
                    io::checker_verdict(&checked)
                }
            },
        };
        if let Err((kind, detail)) = judged {
            v.verdict = kind;
            v.detail = Some(detail);
        }
        v
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
        Ok(self.executor().run(&r.program, &spec))
    }

    /// Runs a prepared [`Runnable`] once (the hot path of every run; `run` finds the runnable).
    pub fn run_runnable(
        &self,
        r: &Runnable,
        stdin: Vec<u8>,
        seed: u64,
        limits: &Limits,
    ) -> Verdict {
        let outcome = self
            .executor()
            .run(&r.program, &r.spec(stdin, seed, limits));
        let mut v = Verdict::from_outcome(&outcome, seed, r.completion);
        // A Python unit test (the one runnable with a server) whose runner returned a failure
        // reported it through the bridge.
        if r.server.is_some() && matches!(outcome.end, RunEnd::Returned { code } if code != 0) {
            v.note_failure(outcome.failure_report.as_deref());
        }
        v
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

impl Builds for Toolchains {
    fn sandbox(&self) -> &Sandbox {
        Toolchains::sandbox(self)
    }

    fn sdk_for(&self, side: CompileSide) -> Result<&Sdk, BuildError> {
        self.sdk()
            .map_err(|e| BuildError::new(side, BuildFailure::Host, e.to_string()))
    }

    fn build_dir(&self, what: &str) -> PathBuf {
        self.sandbox.cache().root().join(what)
    }

    fn run_spec(&self, program: &Program, spec: &RunSpec) -> RunOutcome {
        self.executor().run(program, spec)
    }

    fn solution_program<'s>(&self, s: &'s Solution) -> Result<&'s Runnable, BuildError> {
        Toolchains::solution_program(self, s)
    }
}
