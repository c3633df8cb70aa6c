//! Toolchains turn a solution (a folder) and a test (a file) into something the sandbox can run,
//! and say how to judge the run.
//!
//! | test file | test kind | solution                        | pass means                    |
//! |-----------|-----------|---------------------------------|-------------------------------|
//! | `*.py`    | python    | Python files (`solution.py`)    | the test exits normally       |
//! | `*.c`     | c         | C sources (+ headers)           | the test's `main` returns 0   |
//! | `*.cpp`   | cpp       | C++ sources (+ headers)         | the test's `main` returns 0   |
//! | `*.rs`    | rust      | `lib.rs` (crate `solution`)     | the test's `main` returns     |
//! | `*.toml`  | io        | a program in any of the above   | output matches / checker OK   |
//!
//! - `python.rs`: the pre-initialised CPython component; `c.rs`: clang → wasm32-wasi;
//!   `rust.rs`: rustc → wasm32-wasip1; `io.rs`: I/O test files and output comparison;
//!   `snapshot.rs`: private read-only copies; `sdk.rs`: the embedded guest SDK;
//!   `doctor.rs`: what is installed and how to install what is not.
//! - `process.rs`: build tools as confined subprocesses (Landlock, limits, process groups);
//!   `symbols.rs`: the guard that keeps a C/C++ solution from replacing library functions, a
//!   test from replacing them under the solution, and either from reaching the other by name;
//!   `interface.rs`: what a project states a C/C++/Rust test may use of a solution (headers,
//!   or a Rust facade crate), so no solution-authored text is compiled into a test.
//!
//! A pass needs the evidence its [`Completion`] asks for: a unit test's entry returned (the
//! test ran to its end), a program's exit code 0.

mod c;
mod doctor;
mod files;
mod host_paths;
mod interface;
mod io;
mod process;
mod python;
mod rust;
mod sdk;
mod snapshot;
mod symbols;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};

pub use c::CCompiler;
pub use doctor::{doctor, DoctorCheck};
pub use files::FileError;
pub use interface::{Interface, InterfaceError, Item as InterfaceItem, StatedInterface};
pub use io::{Checker, Compare, IoCase};
pub use python::{
    find_componentize_py, runtime_digest as python_runtime_digest,
    runtime_key as python_runtime_key, COMPONENTIZE_PY_VERSION,
};
pub use rust::RustCompiler;
pub use snapshot::Snapshot;

use crate::sandbox::{
    hash_parts, CompileSide, Completion, Entry, Limits, Preopen, Program, RunSpec, Sandbox, Server,
    Verdict, VerdictKind,
};

/// A language coders write solutions in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    Python,
    C,
    Cpp,
    Rust,
    /// A prebuilt WebAssembly command module (`main.wasm`): I/O tests only.
    Wasm,
}

impl Language {
    /// The name used in config files and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Rust => "rust",
            Language::Wasm => "wasm",
        }
    }

    /// Guesses the language of a solution folder from its files.
    pub fn detect(files: &[PathBuf]) -> Option<Language> {
        let has = |exts: &[&str]| {
            files.iter().any(|f| {
                f.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| exts.contains(&e))
            })
        };
        if has(&["py"]) {
            Some(Language::Python)
        } else if has(&["rs"]) {
            Some(Language::Rust)
        } else if has(&["cpp", "cc", "cxx"]) {
            Some(Language::Cpp)
        } else if has(&["c"]) {
            Some(Language::C)
        } else if has(&["wasm"]) {
            Some(Language::Wasm)
        } else {
            None
        }
    }
}

impl std::str::FromStr for Language {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "python" => Ok(Language::Python),
            "c" => Ok(Language::C),
            "cpp" | "c++" => Ok(Language::Cpp),
            "rust" => Ok(Language::Rust),
            "wasm" => Ok(Language::Wasm),
            _ => Err(format!(
                "unknown language `{s}` (expected python, c, cpp, rust or wasm)"
            )),
        }
    }
}

/// What kind of test a file is, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestKind {
    Python,
    C,
    Cpp,
    Rust,
    Io,
}

impl TestKind {
    /// The kind of a test file, by extension.
    pub fn from_path(p: &Path) -> Option<TestKind> {
        match p.extension().and_then(|e| e.to_str())? {
            "py" => Some(TestKind::Python),
            "c" => Some(TestKind::C),
            "cpp" | "cc" | "cxx" => Some(TestKind::Cpp),
            "rs" => Some(TestKind::Rust),
            "toml" => Some(TestKind::Io),
            _ => None,
        }
    }

    /// The language a solution needs for this test kind (`None` for I/O: any).
    pub fn language(self) -> Option<Language> {
        match self {
            TestKind::Python => Some(Language::Python),
            TestKind::C => Some(Language::C),
            TestKind::Cpp => Some(Language::Cpp),
            TestKind::Rust => Some(Language::Rust),
            TestKind::Io => None,
        }
    }

    /// The file extension tests of this kind use.
    pub fn extension(self) -> &'static str {
        match self {
            TestKind::Python => "py",
            TestKind::C => "c",
            TestKind::Cpp => "cpp",
            TestKind::Rust => "rs",
            TestKind::Io => "toml",
        }
    }
}

/// A solution or test that did not build: which side, and the build log.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{side:?} does not build: {message}")]
pub struct BuildError {
    pub side: CompileSide,
    pub message: String,
}

impl BuildError {
    /// A build failure; its log is capped (see `process::cap_log`) because it may reach an
    /// agent's next prompt.
    fn new(side: CompileSide, message: impl Into<String>) -> Self {
        BuildError {
            side,
            message: process::cap_log(&message.into()),
        }
    }

    /// The `compile_error` verdict for this failure (the log goes in `stderr`).
    pub fn verdict(&self, seed: u64) -> Verdict {
        let mut v = Verdict::not_run(
            VerdictKind::CompileError,
            Some(self.side),
            process::first_error_line(&self.message),
            seed,
        );
        v.stderr = self.message.clone();
        v
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
    interface: Arc<Interface>,
    /// Python: the syntax check, and the directory of the cached compiled code if any.
    checked: OnceLock<Result<Option<PathBuf>, BuildError>>,
    objects: OnceLock<Result<Vec<PathBuf>, BuildError>>,
    /// C/C++ unit tests: whether the objects passed the interposition guard.
    guarded: OnceLock<Result<(), BuildError>>,
    rlib: OnceLock<Result<PathBuf, BuildError>>,
    /// Rust unit tests: the facade crate `solution` (the interface's items only).
    facade: OnceLock<Result<PathBuf, BuildError>>,
    program: OnceLock<Result<Runnable, BuildError>>,
}

impl Solution {
    /// This solution under the project's interface (set before anything is built).
    pub fn with_interface(mut self, interface: Arc<Interface>) -> Solution {
        self.interface = interface;
        self
    }

    /// The interface tests compile against.
    pub fn interface(&self) -> &Interface {
        &self.interface
    }
}

/// A test file, snapshotted (alone in its own directory).
pub struct Test {
    /// Where it came from.
    pub path: PathBuf,
    pub kind: TestKind,
    pub snapshot: Snapshot,
    file_name: String,
    io: Option<IoCase>,
    /// Python: the syntax check, and the directory of the cached compiled code if any.
    checked: OnceLock<Result<Option<PathBuf>, BuildError>>,
    /// C/C++: the test's object, per interface key.
    objects: Mutex<HashMap<String, Result<PathBuf, BuildError>>>,
    checker: OnceLock<Result<Runnable, BuildError>>,
}

impl Test {
    /// The parsed I/O case, for I/O tests.
    pub fn io_case(&self) -> Option<&IoCase> {
        self.io.as_ref()
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
}

/// All toolchains over one sandbox. Compilers and the Python runtime are found (or built) on
/// first use and kept for the life of the value; `&Toolchains` is shared by worker threads.
pub struct Toolchains {
    sandbox: Arc<Sandbox>,
    python: OnceLock<Result<Program, String>>,
    c: OnceLock<Result<CCompiler, String>>,
    rust: OnceLock<Result<RustCompiler, String>>,
    sdk: OnceLock<Result<sdk::Sdk, String>>,
    /// C/C++ pairs whose symbols were checked before linking, by link key.
    checked_links: Mutex<HashMap<String, Result<(), BuildError>>>,
}

impl Toolchains {
    /// Toolchains running on `sandbox`.
    pub fn new(sandbox: Arc<Sandbox>) -> Self {
        Toolchains {
            sandbox,
            python: OnceLock::new(),
            c: OnceLock::new(),
            rust: OnceLock::new(),
            sdk: OnceLock::new(),
            checked_links: Mutex::new(HashMap::new()),
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
    pub fn python_runtime(&self) -> Result<&Program, String> {
        self.python
            .get_or_init(|| python::load_runtime(&self.sandbox))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn cc(&self) -> Result<&CCompiler, String> {
        self.c
            .get_or_init(|| CCompiler::discover(self.sandbox.cache().root()))
            .as_ref()
            .map_err(|e| format!("no C/C++ compiler for wasm32-wasi: {e}"))
    }

    fn rustc(&self) -> Result<&RustCompiler, String> {
        self.rust
            .get_or_init(RustCompiler::discover)
            .as_ref()
            .map_err(Clone::clone)
    }

    fn sdk(&self) -> Result<&sdk::Sdk, String> {
        self.sdk
            .get_or_init(|| sdk::Sdk::materialize(self.sandbox.cache()))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The directory holding `dixit.h` (for building a test natively, as the benchmark does).
    pub fn c_include_dir(&self) -> Result<PathBuf, String> {
        Ok(self.sdk()?.path("c/include"))
    }

    fn build_dir(&self, what: &str) -> PathBuf {
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
        Ok(Solution {
            dir: dir.to_path_buf(),
            snapshot,
            language,
            interface: Arc::default(),
            checked: OnceLock::new(),
            objects: OnceLock::new(),
            guarded: OnceLock::new(),
            rlib: OnceLock::new(),
            facade: OnceLock::new(),
            program: OnceLock::new(),
        })
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
        let Some(needed) = kind.language() else {
            return Ok(s);
        };
        let c_family = |l| matches!(l, Language::C | Language::Cpp);
        if c_family(needed) && c_family(s.language) {
            s.language = if kind == TestKind::Cpp {
                Language::Cpp
            } else {
                s.language
            };
            return Ok(s);
        }
        if s.language != needed {
            return Err(format!(
                "{} is a {} solution, but a .{} test needs a {} solution",
                dir.display(),
                s.language.as_str(),
                kind.extension(),
                needed.as_str()
            ));
        }
        Ok(s)
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
        if kind == TestKind::Io {
            return self.solution_program(s).map(|_| ());
        }
        match s.language {
            Language::Python => self
                .python_check(&s.checked, &s.snapshot, "/solution", CompileSide::Solution)
                .map(|_| ()),
            Language::C | Language::Cpp => self.unit_solution_objects(s).map(|_| ()),
            Language::Rust => self.solution_facade(s).map(|_| ()),
            Language::Wasm => Err(BuildError::new(
                CompileSide::Solution,
                "a prebuilt .wasm solution can only take I/O tests",
            )),
        }
    }

    /// Builds what a test needs on its own (syntax check, object file, checker).
    pub fn check_test(&self, t: &Test) -> Result<(), BuildError> {
        match t.kind {
            TestKind::Python => self
                .python_check(&t.checked, &t.snapshot, "/test", CompileSide::Test)
                .map(|_| ()),
            // C/C++ tests are compiled against the solution's interface and a Rust test against
            // its facade crate: both are built with the solution (`unit_runnable`).
            TestKind::C | TestKind::Cpp | TestKind::Rust => Ok(()),
            TestKind::Io => match t.io.as_ref().and_then(|c| c.checker.as_ref()) {
                Some(c) => self.checker(t, c).map(|_| ()),
                None => Ok(()),
            },
        }
    }

    /// Runs `test` against `solution` once with `seed`. Build failures are `compile_error`
    /// verdicts; nothing here returns an error.
    pub fn run(&self, s: &Solution, t: &Test, seed: u64, limits: &Limits) -> Verdict {
        if let Some(lang) = t.kind.language() {
            let c_family = |l| matches!(l, Language::C | Language::Cpp);
            if lang != s.language && !(c_family(lang) && c_family(s.language)) {
                return BuildError::new(
                    CompileSide::Link,
                    format!(
                        "a {} test needs a {} solution, not {}",
                        t.kind.extension(),
                        lang.as_str(),
                        s.language.as_str()
                    ),
                )
                .verdict(seed);
            }
        }
        if let Err(e) = self.check_test(t) {
            return e.verdict(seed);
        }
        if let Err(e) = self.check_solution(s, t.kind) {
            return e.verdict(seed);
        }
        match t.kind {
            TestKind::Io => self.run_io(s, t, seed, limits),
            _ => match self.unit_runnable(s, t) {
                Ok(r) => self.run_runnable(&r, Vec::new(), seed, limits),
                Err(e) => e.verdict(seed),
            },
        }
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
    ) -> Result<crate::sandbox::RunOutcome, BuildError> {
        self.check_test(t)?;
        self.check_solution(s, t.kind)?;
        let r = self.unit_runnable(s, t)?;
        let server = r.server.as_ref().map(|srv| {
            Arc::new(Server {
                log,
                ..(**srv).clone()
            })
        });
        let spec = RunSpec {
            entry: r.entry.clone(),
            stdin: Arc::from(Vec::new()),
            preopens: r.preopens.clone(),
            limits: limits.clone(),
            seed,
            server,
        };
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
        let spec = RunSpec {
            entry: r.entry.clone(),
            stdin: stdin.into(),
            preopens: r.preopens.clone(),
            limits: limits.clone(),
            seed,
            server: r.server.clone(),
        };
        let outcome = self.sandbox.run(&r.program, &spec);
        Verdict::from_outcome(&outcome, seed, r.completion)
    }

    fn python_check(
        &self,
        cell: &OnceLock<Result<Option<PathBuf>, BuildError>>,
        snap: &Snapshot,
        guest: &str,
        side: CompileSide,
    ) -> Result<Option<PathBuf>, BuildError> {
        cell.get_or_init(|| {
            let rt = self
                .python_runtime()
                .map_err(|e| BuildError::new(side, e))?;
            python::check(&self.sandbox, rt, snap, guest, side)
        })
        .clone()
    }

    fn solution_objects<'s>(&self, s: &'s Solution) -> Result<&'s Vec<PathBuf>, BuildError> {
        s.objects
            .get_or_init(|| {
                let side = CompileSide::Solution;
                let cc = self.cc().map_err(|e| BuildError::new(side, e))?;
                let headers = header_key(&s.snapshot);
                let sources: Vec<&PathBuf> = s
                    .snapshot
                    .files
                    .iter()
                    .filter(|f| c::is_c_source(f))
                    .collect();
                if sources.is_empty() {
                    return Err(BuildError::new(
                        side,
                        "no C/C++ source files in the solution",
                    ));
                }
                // Its own folder first, then the project's interface: a solution that includes
                // the interface's header without shipping one gets the project's.
                let mut incs: Vec<&Path> = vec![&s.snapshot.dir];
                incs.extend(s.interface.header_dir());
                let out = self.build_dir("obj");
                sources
                    .iter()
                    .map(|f| {
                        cc.compile(
                            &s.snapshot.dir.join(f),
                            &incs,
                            &[headers.as_bytes(), s.interface.key().as_bytes()],
                            &out,
                        )
                        .map_err(|e| BuildError::new(side, e))
                    })
                    .collect()
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The solution's objects for linking with a unit test: a solution sharing its program with a
    /// test may not define what the C runtime defines (see `symbols.rs`). Programs (I/O
    /// solutions) define `main` and share nothing, so they are not checked.
    fn unit_solution_objects<'s>(&self, s: &'s Solution) -> Result<&'s Vec<PathBuf>, BuildError> {
        let objects = self.solution_objects(s)?;
        s.guarded
            .get_or_init(|| {
                let side = CompileSide::Solution;
                let cc = self.cc().map_err(|e| BuildError::new(side, e))?;
                let sources = s.snapshot.files.iter().filter(|f| c::is_c_source(f));
                for (obj, f) in objects.iter().zip(sources) {
                    cc.check_object(obj, &f.display().to_string(), "a solution")
                        .map_err(|e| BuildError::new(side, e))?;
                }
                Ok(())
            })
            .clone()?;
        Ok(objects)
    }

    /// The test's object, compiled against dixit's SDK and the stated interface only: nothing
    /// of any solution is on its include path, so a failure is the test's own. The object may
    /// not define what the C runtime defines (its `main` aside).
    fn test_object(&self, t: &Test, interface: &Interface) -> Result<PathBuf, BuildError> {
        let mut memo = t.objects.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = memo.get(interface.key()) {
            return r.clone();
        }
        let side = CompileSide::Test;
        let r = (|| {
            let cc = self.cc().map_err(|e| BuildError::new(side, e))?;
            let sdk = self.sdk().map_err(|e| BuildError::new(side, e))?;
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
                    &self.build_dir("obj"),
                )
                .map_err(|e| BuildError::new(side, with_interface_hint(e, interface, t.kind)))?;
            cc.check_object(&obj, &t.file_name, "a test")
                .map_err(|e| BuildError::new(side, e))?;
            cc.check_test_names(
                &obj,
                &t.file_name,
                &interface.header_identifiers(),
                &interface.describe(),
            )
            .map_err(|e| BuildError::new(side, e))?;
            Ok(obj)
        })();
        memo.insert(interface.key().to_string(), r.clone());
        r
    }

    /// The solution's own crate, compiled as `dixit_solution` (safe Rust only).
    fn solution_rlib<'s>(&self, s: &'s Solution) -> Result<&'s PathBuf, BuildError> {
        s.rlib
            .get_or_init(|| {
                let side = CompileSide::Solution;
                let rustc = self.rustc().map_err(|e| BuildError::new(side, e))?;
                let root = ["lib.rs", "src/lib.rs"]
                    .iter()
                    .map(|r| s.snapshot.dir.join(r))
                    .find(|p| p.is_file())
                    .ok_or_else(|| {
                        BuildError::new(side, "a Rust solution needs lib.rs or src/lib.rs")
                    })?;
                rustc
                    .rlib(
                        &root,
                        rust::SOLUTION_CRATE,
                        &[s.snapshot.hash.as_bytes()],
                        &self.build_dir("rlib"),
                        &rust::RlibOptions {
                            solution: true,
                            externs: &[],
                        },
                    )
                    .map_err(|e| BuildError::new(side, e))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The facade crate `solution` a Rust test links against: the interface's items
    /// re-exported from the solution's crate, no macro of the solution's, each stated type
    /// checked. A solution that lacks an item or gives it another type fails here.
    fn solution_facade<'s>(&self, s: &'s Solution) -> Result<&'s PathBuf, BuildError> {
        s.facade
            .get_or_init(|| {
                let side = CompileSide::Solution;
                let real = self.solution_rlib(s)?.clone();
                let rustc = self.rustc().map_err(|e| BuildError::new(side, e))?;
                let dir = tempfile::tempdir().map_err(|e| BuildError::new(side, e.to_string()))?;
                let root = dir.path().join("interface.rs");
                let src = interface::rust_facade(rust::SOLUTION_CRATE, s.interface.items());
                std::fs::write(&root, &src).map_err(|e| BuildError::new(side, e.to_string()))?;
                rustc
                    .rlib(
                        &root,
                        "solution",
                        &[real.as_os_str().as_encoded_bytes(), src.as_bytes()],
                        &self.build_dir("rlib"),
                        &rust::RlibOptions {
                            solution: false,
                            externs: &[(rust::SOLUTION_CRATE, &real)],
                        },
                    )
                    .map_err(|e| {
                        BuildError::new(
                            side,
                            format!(
                                "the solution does not provide the project's interface ({}):\n{e}",
                                s.interface.describe()
                            ),
                        )
                    })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn guest_rlib(&self) -> Result<PathBuf, String> {
        let rustc = self.rustc()?;
        let sdk = self.sdk()?;
        rustc.rlib(
            &sdk.path("rust/lib.rs"),
            "dixit",
            &[sdk.hash.as_bytes()],
            &self.build_dir("rlib"),
            &rust::RlibOptions {
                solution: false,
                externs: &[],
            },
        )
    }

    /// A Python file of dixit's own run as a program (mode `main`, mounted at `/test` like a
    /// test, its compiled code cached like a test's): the disagreement finder's guest side.
    pub fn python_program(&self, t: &Test) -> Result<Runnable, BuildError> {
        self.check_test(t)?;
        let rt = self
            .python_runtime()
            .map_err(|e| BuildError::new(CompileSide::Test, e))?;
        let mut r = Runnable {
            program: rt.clone(),
            entry: Entry::Call {
                mode: "main".into(),
                target: format!("/test/{}", t.file_name),
                args: vec![],
            },
            preopens: vec![test_preopen(t)],
            completion: Completion::ExitZero,
            server: None,
        };
        python::use_code(&mut r, &t.checked, "test");
        Ok(r)
    }

    /// The runnable program for a unit test against a solution (same language).
    pub fn unit_runnable(&self, s: &Solution, t: &Test) -> Result<Runnable, BuildError> {
        match t.kind {
            TestKind::Python => {
                let rt = self
                    .python_runtime()
                    .map_err(|e| BuildError::new(CompileSide::Test, e))?;
                // The test and the solution run apart: the test's instance mounts only the test,
                // the solution's only the solution, and they meet at the bridge.
                let mut server = Server {
                    program: rt.clone(),
                    mode: "serve".into(),
                    target: "/solution".into(),
                    args: vec![],
                    preopens: vec![solution_preopen(s)],
                    log: 0,
                };
                python::use_code_in(
                    &mut server.args,
                    &mut server.preopens,
                    &s.checked,
                    "solution",
                );
                let mut r = Runnable {
                    program: rt.clone(),
                    entry: Entry::Call {
                        mode: "test".into(),
                        target: format!("/test/{}", t.file_name),
                        args: vec![],
                    },
                    preopens: vec![test_preopen(t)],
                    completion: Completion::Returned,
                    server: Some(Arc::new(server)),
                };
                python::use_code(&mut r, &t.checked, "test");
                Ok(r)
            }
            TestKind::C | TestKind::Cpp => {
                let cc = self
                    .cc()
                    .map_err(|e| BuildError::new(CompileSide::Link, e))?;
                let solution_objects = self.unit_solution_objects(s)?;
                // The test's object first: where both define a weak symbol (an inline function,
                // a template instance), the linker keeps the first, the test's.
                let mut objects = vec![self.test_object(t, &s.interface)?];
                objects.extend(solution_objects.iter().cloned());
                let cxx = t.kind == TestKind::Cpp || s.language == Language::Cpp;
                self.check_link(cc, &objects, cxx)?;
                let program = self.link_c(cc, &objects, cxx).map_err(|e| {
                    let mut log = sandbox_message(e);
                    if log.contains("signature mismatch") {
                        log = format!(
                            "a function of the solution does not have the signature the \
                             interface ({}) declares:\n{log}",
                            s.interface.describe()
                        );
                    }
                    BuildError::new(rust::failed_side(&log, &t.file_name), log)
                })?;
                Ok(Runnable {
                    program,
                    entry: Entry::Start {
                        argv: vec!["test".into()],
                    },
                    // The test is compiled in and the solution too: neither's source is
                    // mounted, so the solution cannot read the test, nor the test the solution.
                    preopens: vec![],
                    completion: Completion::Returned,
                    server: None,
                })
            }
            TestKind::Rust => {
                let rustc = self
                    .rustc()
                    .map_err(|e| BuildError::new(CompileSide::Link, e))?;
                let facade = self.solution_facade(s)?.clone();
                let real = self.solution_rlib(s)?.clone();
                let guest = self
                    .guest_rlib()
                    .map_err(|e| BuildError::new(CompileSide::Link, e))?;
                let test_path = t.snapshot.dir.join(&t.file_name);
                let key = hash_parts([
                    b"rust-test-v4".as_slice(),
                    rustc.version.as_bytes(),
                    s.snapshot.hash.as_bytes(),
                    s.interface.key().as_bytes(),
                    t.snapshot.hash.as_bytes(),
                    guest.as_os_str().as_encoded_bytes(),
                    facade.as_os_str().as_encoded_bytes(),
                ]);
                let program = self
                    .sandbox
                    .load_keyed(&key, || {
                        let dir = tempfile::tempdir().map_err(|e| {
                            crate::sandbox::SandboxError::Link {
                                message: e.to_string(),
                            }
                        })?;
                        let root = dir.path().join("dixit_test_main.rs");
                        std::fs::write(&root, rust::test_root(&test_path)).map_err(|e| {
                            crate::sandbox::SandboxError::Link {
                                message: e.to_string(),
                            }
                        })?;
                        // The facade is the crate `solution`; the solution's own crate is only
                        // a dependency of it, which a test cannot name.
                        rustc
                            .binary(
                                &root,
                                &t.snapshot.dir,
                                &[("solution", &facade), ("dixit", &guest)],
                                &[&real],
                                &self.sandbox.cache().path("buildfail", &key, "log"),
                            )
                            .map_err(|message| crate::sandbox::SandboxError::Link { message })
                    })
                    .map_err(|e| {
                        let log = with_interface_hint(sandbox_message(e), &s.interface, t.kind);
                        BuildError::new(rust::failed_side(&log, &t.file_name), log)
                    })?;
                Ok(Runnable {
                    program,
                    entry: Entry::Start {
                        argv: vec!["test".into()],
                    },
                    // Both compiled in: neither's source is mounted.
                    preopens: vec![],
                    completion: Completion::Returned,
                    server: None,
                })
            }
            TestKind::Io => Err(BuildError::new(
                CompileSide::Test,
                "an I/O test is not a unit test",
            )),
        }
    }

    /// The key of a link of `objects` (whose names are already the hashes of their inputs).
    fn link_key(cc: &CCompiler, objects: &[PathBuf], cxx: bool) -> String {
        hash_parts(
            [
                b"c-link-v2".as_slice(),
                cc.version.as_bytes(),
                &[u8::from(cxx)],
            ]
            .into_iter()
            .chain(objects.iter().map(|o| o.as_os_str().as_encoded_bytes())),
        )
    }

    /// Checks a unit test's link before it is made (`objects`: the test's first, then the
    /// solution's): see `SystemSymbols::link_conflicts`. Memoized per link.
    fn check_link(&self, cc: &CCompiler, objects: &[PathBuf], cxx: bool) -> Result<(), BuildError> {
        let key = Self::link_key(cc, objects, cxx);
        if let Some(r) = self
            .checked_links
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return r.clone();
        }
        let r = match cc.check_link(&objects[0], &objects[1..]) {
            Ok(()) => Ok(()),
            Err((symbols::Blame::Solution, m)) => Err(BuildError::new(CompileSide::Solution, m)),
            Err((symbols::Blame::Test, m)) => Err(BuildError::new(CompileSide::Link, m)),
        };
        self.checked_links
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, r.clone());
        r
    }

    /// Links C/C++ objects into a program, cached by the objects and the compiler.
    fn link_c(
        &self,
        cc: &CCompiler,
        objects: &[PathBuf],
        cxx: bool,
    ) -> Result<Program, crate::sandbox::SandboxError> {
        let key = Self::link_key(cc, objects, cxx);
        self.sandbox.load_keyed(&key, || {
            cc.link(objects, cxx)
                .map_err(|message| crate::sandbox::SandboxError::Link { message })
        })
    }

    /// A solution as a standalone program (for I/O tests).
    pub fn solution_program<'s>(&self, s: &'s Solution) -> Result<&'s Runnable, BuildError> {
        s.program
            .get_or_init(|| {
                let side = CompileSide::Solution;
                match s.language {
                    Language::Python => {
                        let main = python_main(&s.snapshot).ok_or_else(|| {
                            BuildError::new(
                                side,
                                "a Python program needs main.py (or exactly one .py file)",
                            )
                        })?;
                        self.python_check(&s.checked, &s.snapshot, "/solution", side)?;
                        let rt = self
                            .python_runtime()
                            .map_err(|e| BuildError::new(side, e))?;
                        let mut r = Runnable {
                            program: rt.clone(),
                            entry: Entry::Call {
                                mode: "main".into(),
                                target: format!("/solution/{}", main.display()),
                                args: vec![],
                            },
                            preopens: vec![solution_preopen(s)],
                            completion: Completion::ExitZero,
                            server: None,
                        };
                        python::use_code(&mut r, &s.checked, "solution");
                        Ok(r)
                    }
                    Language::C | Language::Cpp => {
                        let cc = self.cc().map_err(|e| BuildError::new(side, e))?;
                        let objects = self.solution_objects(s)?.clone();
                        let program = self
                            .link_c(cc, &objects, s.language == Language::Cpp)
                            .map_err(|e| BuildError::new(side, sandbox_message(e)))?;
                        Ok(Runnable {
                            program,
                            entry: Entry::Start {
                                argv: vec!["main".into()],
                            },
                            preopens: vec![solution_preopen(s)],
                            completion: Completion::ExitZero,
                            server: None,
                        })
                    }
                    Language::Rust => {
                        let rustc = self.rustc().map_err(|e| BuildError::new(side, e))?;
                        let root = ["main.rs", "src/main.rs"]
                            .iter()
                            .map(|r| s.snapshot.dir.join(r))
                            .find(|p| p.is_file())
                            .ok_or_else(|| {
                                BuildError::new(side, "a Rust program needs main.rs or src/main.rs")
                            })?;
                        let key = hash_parts([
                            b"rust-bin-v3".as_slice(),
                            rustc.version.as_bytes(),
                            s.snapshot.hash.as_bytes(),
                        ]);
                        let program = self
                            .sandbox
                            .load_keyed(&key, || {
                                rustc
                                    .binary(
                                        &root,
                                        &s.snapshot.dir,
                                        &[],
                                        &[],
                                        &self.sandbox.cache().path("buildfail", &key, "log"),
                                    )
                                    .map_err(|message| crate::sandbox::SandboxError::Link {
                                        message,
                                    })
                            })
                            .map_err(|e| BuildError::new(side, sandbox_message(e)))?;
                        Ok(Runnable {
                            program,
                            entry: Entry::Start {
                                argv: vec!["main".into()],
                            },
                            preopens: vec![solution_preopen(s)],
                            completion: Completion::ExitZero,
                            server: None,
                        })
                    }
                    Language::Wasm => {
                        let f = s
                            .snapshot
                            .files
                            .iter()
                            .find(|f| f.extension().is_some_and(|e| e == "wasm"))
                            .ok_or_else(|| BuildError::new(side, "no .wasm file"))?;
                        let program = self
                            .sandbox
                            .load_file(&s.snapshot.dir.join(f))
                            .map_err(|e| BuildError::new(side, sandbox_message(e)))?;
                        let entry = match program.kind() {
                            crate::sandbox::ProgramKind::Module => Entry::Start {
                                argv: vec!["main".into()],
                            },
                            crate::sandbox::ProgramKind::Component => Entry::Call {
                                mode: "main".into(),
                                target: String::new(),
                                args: vec![],
                            },
                        };
                        Ok(Runnable {
                            program,
                            entry,
                            preopens: vec![],
                            completion: Completion::ExitZero,
                            server: None,
                        })
                    }
                }
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// A checker program for an I/O test, built from its one source file.
    fn checker<'t>(&self, t: &'t Test, c: &io::Checker) -> Result<&'t Runnable, BuildError> {
        t.checker
            .get_or_init(|| {
                let side = CompileSide::Test;
                let name = &c.name;
                let snap = snapshot::snapshot_bytes(
                    self.sandbox.cache(),
                    vec![(PathBuf::from(name), c.source.clone())],
                )
                .map_err(|e| BuildError::new(side, e))?;
                let lang = Language::detect(std::slice::from_ref(&PathBuf::from(name)))
                    .ok_or_else(|| {
                        BuildError::new(side, format!("checker {name}: unknown language"))
                    })?;
                let checker = Solution {
                    dir: t.path.clone(),
                    snapshot: snap,
                    language: lang,
                    interface: Arc::default(),
                    checked: OnceLock::new(),
                    objects: OnceLock::new(),
                    guarded: OnceLock::new(),
                    rlib: OnceLock::new(),
                    facade: OnceLock::new(),
                    program: OnceLock::new(),
                };
                let mut r = self
                    .solution_program(&checker)
                    .map_err(|e| BuildError::new(side, format!("checker: {}", e.message)))?
                    .clone();
                if let Entry::Call { target, .. } = &mut r.entry {
                    *target = format!("/checker/{name}");
                }
                for p in r.preopens.iter_mut().filter(|p| p.guest == "/solution") {
                    p.guest = "/checker".into();
                }
                Ok(r)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn run_io(&self, s: &Solution, t: &Test, seed: u64, limits: &Limits) -> Verdict {
        let Some(case) = t.io.as_ref() else {
            return Verdict::not_run(
                VerdictKind::InternalError,
                None,
                "I/O test without a case",
                seed,
            );
        };
        let prog = match self.solution_program(s) {
            Ok(p) => p.with_args(&case.args),
            Err(e) => return e.verdict(seed),
        };
        let mut v = self.run_runnable(&prog, case.stdin.clone(), seed, limits);
        if v.verdict != VerdictKind::Pass {
            return v;
        }
        let judged = match &case.checker {
            None => case
                .compare(v.stdout.as_bytes())
                .map_err(|d| (VerdictKind::WrongAnswer, d)),
            Some(c) => {
                let (judged, checker) =
                    self.run_checker(t, c, case, v.stdout.as_bytes(), seed, limits);
                // The checker's use of entropy or a clock makes the pair's verdict seed-dependent
                // too: without this, `reruns = auto` would skip the reruns of a random checker.
                if let Some(c) = checker {
                    v.read_entropy |= c.read_entropy;
                    v.read_clock |= c.read_clock;
                }
                judged
            }
        };
        if let Err((kind, detail)) = judged {
            v.verdict = kind;
            v.detail = Some(detail);
        }
        v
    }

    fn run_checker(
        &self,
        t: &Test,
        path: &io::Checker,
        case: &IoCase,
        output: &[u8],
        seed: u64,
        limits: &Limits,
    ) -> (Result<(), (VerdictKind, String)>, Option<Verdict>) {
        let checker = match self.checker(t, path) {
            Ok(c) => c,
            Err(e) => return (Err((VerdictKind::CompileError, e.message)), None),
        };
        let files = match tempfile::tempdir() {
            Ok(f) => f,
            Err(e) => return (Err((VerdictKind::InternalError, e.to_string())), None),
        };
        for (name, bytes) in [
            ("input.txt", &case.stdin[..]),
            ("output.txt", output),
            ("answer.txt", case.expected.as_deref().unwrap_or_default()),
        ] {
            if let Err(e) = std::fs::write(files.path().join(name), bytes) {
                return (Err((VerdictKind::InternalError, e.to_string())), None);
            }
        }
        let mut r = checker.with_args(&[
            "/io/input.txt".into(),
            "/io/output.txt".into(),
            "/io/answer.txt".into(),
        ]);
        r.preopens.push(Preopen {
            host: files.path().to_path_buf(),
            guest: "/io".into(),
        });
        let v = self.run_runnable(&r, Vec::new(), seed, limits);
        let msg = || {
            let s = v.stderr.trim();
            if s.is_empty() {
                v.stdout.trim().chars().take(300).collect()
            } else {
                s.chars().take(300).collect::<String>()
            }
        };
        let judged = match (v.verdict, v.exit_code) {
            (VerdictKind::Pass, _) => Ok(()),
            (_, Some(1)) => Err((
                VerdictKind::WrongAnswer,
                format!("checker: wrong answer: {}", msg()),
            )),
            (_, Some(2)) => Err((
                VerdictKind::WrongAnswer,
                format!("checker: presentation error: {}", msg()),
            )),
            (_, Some(3)) => Err((
                VerdictKind::RuntimeError,
                format!("checker failure: {}", msg()),
            )),
            (kind, _) => Err((
                VerdictKind::RuntimeError,
                format!(
                    "checker crashed ({kind}): {}",
                    v.detail.clone().unwrap_or_default()
                ),
            )),
        };
        (judged, Some(v))
    }
}

fn solution_preopen(s: &Solution) -> Preopen {
    Preopen {
        host: s.snapshot.dir.clone(),
        guest: "/solution".into(),
    }
}

fn test_preopen(t: &Test) -> Preopen {
    Preopen {
        host: t.snapshot.dir.clone(),
        guest: "/test".into(),
    }
}

fn sandbox_message(e: crate::sandbox::SandboxError) -> String {
    match e {
        crate::sandbox::SandboxError::Link { message } => message,
        other => {
            let mut s = other.to_string();
            let mut src = std::error::Error::source(&other);
            while let Some(e) = src {
                s.push_str(": ");
                s.push_str(&e.to_string());
                src = e.source();
            }
            s
        }
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

/// A build log with a note when no interface is stated and the test looked for one: tests
/// compile against the project's interface, never against a solution's own files.
fn with_interface_hint(log: String, interface: &Interface, kind: TestKind) -> String {
    if !interface.is_none() {
        return log;
    }
    let missing = match kind {
        TestKind::C | TestKind::Cpp => log.contains("file not found"),
        TestKind::Rust => log.contains("solution"),
        _ => false,
    };
    if !missing {
        return log;
    }
    let how = match kind {
        TestKind::Rust => {
            "the items tests may use: `[project] interface = [\"NAME\", ...]` in dixit.toml, \
             or `--interface NAME` for dixit exec and classify"
        }
        _ => {
            "the header tests include: `[project] interface = \"interface/solution.h\"` in \
             dixit.toml, or `--interface FILE` for dixit exec and classify"
        }
    };
    format!(
        "no interface is stated ({how}); a test never compiles against a solution's own \
         files\n{log}"
    )
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_kinds_by_extension() {
        let kind = |p: &str| TestKind::from_path(Path::new(p));
        assert_eq!(kind("t.py"), Some(TestKind::Python));
        assert_eq!(kind("dir/t.c"), Some(TestKind::C));
        assert_eq!(kind("t.cc"), Some(TestKind::Cpp));
        assert_eq!(kind("t.rs"), Some(TestKind::Rust));
        assert_eq!(kind("t.toml"), Some(TestKind::Io));
        assert_eq!(kind("t.txt"), None);
        assert_eq!(kind("Makefile"), None);
    }

    #[test]
    fn solution_languages_by_files() {
        let detect =
            |files: &[&str]| Language::detect(&files.iter().map(PathBuf::from).collect::<Vec<_>>());
        assert_eq!(detect(&["solution.py"]), Some(Language::Python));
        assert_eq!(detect(&["solution.c", "solution.h"]), Some(Language::C));
        assert_eq!(detect(&["a.c", "b.cpp"]), Some(Language::Cpp));
        assert_eq!(detect(&["src/lib.rs"]), Some(Language::Rust));
        assert_eq!(detect(&["main.wasm"]), Some(Language::Wasm));
        assert_eq!(detect(&["notes.txt"]), None);
        assert_eq!("c++".parse::<Language>(), Ok(Language::Cpp));
        assert!("cobol".parse::<Language>().is_err());
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
