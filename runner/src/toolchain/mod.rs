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
//! - `toolchains.rs`: [`Toolchains`], the façade, over one `Toolchain` per language;
//!   `builds.rs`: the `Toolchain` trait and `Builds`, what a language's builds use of the
//!   façade; `runnable.rs`: what the façade hands out ([`Solution`], [`Test`], [`Runnable`]);
//!   `language.rs`: [`Language`] and [`TestKind`]; `error.rs`: [`BuildError`], what failed as
//!   data ([`BuildFailure`]).
//! - `python.rs`: the pre-initialised CPython component; `c.rs`: clang → wasm32-wasi;
//!   `rust.rs`: rustc → wasm32-wasip1; `io.rs`: I/O tests (output comparison, checkers) and
//!   prebuilt programs, `io_case.rs`: an I/O test file, parsed; `snapshot.rs`: private
//!   read-only copies; `sdk.rs`: the embedded guest SDK; `doctor.rs`: what is installed and how
//!   to install what is not.
//! - `process.rs`: build tools as confined subprocesses (Landlock, limits, process groups);
//!   `host_paths.rs`: what a confined build's log may say of host paths (nothing);
//!   `symbols.rs`: the guard that keeps a C/C++ solution from replacing library functions, a
//!   test from replacing them under the solution, and either from reaching the other by name;
//!   `interface.rs`: what a project states a C/C++/Rust test may use of a solution (headers,
//!   or Rust functions with their types), so no solution-authored text is compiled into a
//!   test; `wit.rs`, `wit_cpp.rs`, `wit_rust.rs`: that interface as a WIT world and the glue
//!   of each side, `component.rs`: bindings and components.
//!
//! A pass needs the evidence its [`Completion`](crate::sandbox::Completion) asks for: a unit test's entry returned (the
//! test ran to its end), a program's exit code 0.

mod builds;
mod c;
mod component;
mod doctor;
mod error;
mod files;
mod heap;
mod host_paths;
mod interface;
mod io;
mod io_case;
mod language;
mod process;
mod python;
mod runnable;
mod rust;
mod sdk;
mod signatures;
mod snapshot;
mod symbols;
mod toolchains;
mod wit;
mod wit_cpp;
mod wit_rust;
mod wit_struct;

pub use c::{CCompiler, CcDiscoveryError, ProbeError};
pub use doctor::{doctor, DoctorCheck};
pub use error::{BuildError, BuildFailure, CompileError, Tool, ToolchainError};
pub use files::FileError;
pub use heap::HeadroomError;
pub use interface::{InterfaceError, Item as InterfaceItem, LoadedInterface, StatedInterface};
pub use io_case::{Checker, Compare, IoCase, IoCaseError, IoCaseProblem, Mismatch};
pub use language::{solution_files, Language, TestKind, UnknownLanguage};
pub use process::ToolError;
pub use python::{
    find_componentize_py, runtime_key as python_runtime_key, COMPONENTIZE_PY_VERSION,
};
pub use runnable::{Runnable, Solution, Test};
pub use rust::RustCompiler;
pub use snapshot::{Snapshot, SnapshotError};
pub use symbols::{ArchiveProblem, SymbolsError};
pub use toolchains::Toolchains;
