//! What the toolchains take and hand out: a snapshotted [`Solution`] or [`Test`], each holding
//! its builds once made ([`once`]), and a [`Runnable`], a program with what a run of it needs.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use super::error::BuildError;
use super::interface::LoadedInterface;
use super::io_case::IoCase;
use super::language::{Language, TestKind};
use super::snapshot::Snapshot;
use crate::sandbox::{Completion, Entry, Limits, Preopen, Program, RunSpec, Server};

/// A solution folder, snapshotted; its artifacts are built on first need and memoized.
pub struct Solution {
    /// Where it came from.
    pub dir: PathBuf,
    /// Its files, snapshotted.
    pub snapshot: Snapshot,
    /// The language it is written in.
    pub language: Language,
    /// What tests may use of it (C/C++/Rust unit tests compile against this, never against
    /// the solution's own files).
    pub(super) interface: Arc<LoadedInterface>,
    /// Python: the syntax check, and the cached compiled code if any.
    pub(super) checked: OnceLock<Result<Option<Arc<[u8]>>, BuildError>>,
    pub(super) objects: OnceLock<Result<Vec<PathBuf>, BuildError>>,
    /// C/C++ unit tests: whether the objects passed the interposition guard.
    pub(super) guarded: OnceLock<Result<(), BuildError>>,
    pub(super) rlib: OnceLock<Result<PathBuf, BuildError>>,
    /// Rust unit tests: the solution's core module (its crate and dixit's glue, which checks
    /// each function against the interface), made a component for each pair.
    pub(super) glue: OnceLock<Result<PathBuf, BuildError>>,
    pub(super) program: OnceLock<Result<Runnable, BuildError>>,
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
            glue: OnceLock::new(),
            program: OnceLock::new(),
        }
    }

    /// This solution under the project's interface (set before anything is built).
    pub fn with_interface(mut self, interface: Arc<LoadedInterface>) -> Solution {
        self.interface = interface;
        self
    }

    /// The interface tests compile against.
    pub fn interface(&self) -> &LoadedInterface {
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
    /// What kind of test it is.
    pub kind: TestKind,
    /// Its file, snapshotted alone.
    pub snapshot: Snapshot,
    pub(super) file_name: String,
    pub(super) io: Option<IoCase>,
    /// Python: the syntax check, and the cached compiled code if any.
    pub(super) checked: OnceLock<Result<Option<Arc<[u8]>>, BuildError>>,
    /// C/C++: the test's object, per interface key.
    pub(super) objects: Mutex<HashMap<String, Result<PathBuf, BuildError>>>,
    /// C, C++, Rust: the pair of components built with each solution (keyed by the solution's
    /// snapshot and interface), so reruns do not generate the glue again.
    pub(super) pairs: Mutex<HashMap<String, Result<Runnable, BuildError>>>,
    pub(super) checker: OnceLock<Result<Runnable, BuildError>>,
    /// Python unit tests: the interface's names are bound in the test's namespace before it runs,
    /// as `from solution import *` would bind them, so a test that forgot its import still
    /// reaches the code (off for runs recorded before journal 1.8, which replay as they ran).
    pub(super) names_bound: bool,
}

impl Test {
    /// The runnable of this test with `s`, built by `build` once per solution.
    pub(super) fn pair_with(
        &self,
        s: &Solution,
        build: impl FnOnce() -> Result<Runnable, BuildError>,
    ) -> Result<Runnable, BuildError> {
        let key = format!("{}:{}", s.snapshot.hash, s.interface.key());
        let memo = || self.pairs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = memo().get(&key) {
            return r.clone();
        }
        let r = build();
        memo().insert(key, r.clone());
        r
    }

    /// The same test with the interface's names bound in its namespace, or not (see
    /// `names_bound`): runs recorded before the rule replay under their own.
    pub fn with_names_bound(mut self, bound: bool) -> Test {
        self.names_bound = bound;
        self
    }

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
    /// The program to run.
    pub program: Program,
    /// How it is entered.
    pub entry: Entry,
    /// Folders it sees, read-only.
    pub preopens: Vec<Preopen>,
    /// What counts as its pass.
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
    pub(crate) fn spec(&self, stdin: Vec<u8>, seed: u64, limits: &Limits) -> RunSpec {
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

/// What `cell` holds, computed by `build` on first need: a build, or its failure, is memoized.
pub(super) fn once<T, E: Clone>(
    cell: &OnceLock<Result<T, E>>,
    build: impl FnOnce() -> Result<T, E>,
) -> Result<&T, E> {
    cell.get_or_init(build).as_ref().map_err(Clone::clone)
}
