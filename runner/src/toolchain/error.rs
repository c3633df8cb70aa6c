//! What a failed build says, as data: which side failed, at which step, and the log a verdict
//! (and so an agent's next prompt) shows. Callers decide on [`BuildFailure`], never on the text.

use super::process;
use crate::sandbox::{CompileSide, Verdict, VerdictKind};

/// A tool dixit builds with, as `dixit toolchain doctor` checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// componentize-py, which builds the Python runtime (once per machine).
    ComponentizePy,
    /// A clang that targets wasm32-wasi, with wasi-libc.
    Clang,
    /// rustc with the wasm32-wasip1 target.
    Rustc,
}

/// Why a toolchain cannot be used on this machine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ToolchainError {
    /// It is not installed: `dixit toolchain doctor` says how to install it.
    #[error("{message}")]
    Missing { tool: Tool, message: String },
    /// It is installed but does not work (the Python runtime did not build, dixit's SDK could
    /// not be written).
    #[error("{message}")]
    Failed { message: String },
}

/// The step at which a build stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildFailure {
    /// A tool the build needs is not installed here: not the code's fault.
    MissingToolchain { tool: Tool },
    /// The files are not what the language needs (no source file, no `main.py` or `lib.rs`),
    /// or the test takes a solution of another language.
    Sources,
    /// The compiler (for Python, the syntax check) rejected the code.
    Compile,
    /// The guard refused an object: it defines what the C runtime defines, or a test uses a
    /// name beyond the runtime and the interface (see `symbols.rs`).
    Guard,
    /// The solution does not provide the stated interface (an item missing, another type or
    /// signature).
    Interface,
    /// The linker, or the sandbox loading the linked program, refused it.
    Link,
    /// This machine failed: a toolchain that does not work, a temporary file that could not be
    /// written.
    Host,
}

/// A solution or test that did not build: which side, at which step, and the build log.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{side:?} does not build: {message}")]
pub struct BuildError {
    pub side: CompileSide,
    pub failure: BuildFailure,
    /// The build log, capped (see `process::cap_log`) because it may reach an agent's prompt.
    pub message: String,
}

impl BuildError {
    /// A build of `side` that stopped at `failure`, with its log.
    pub(crate) fn new(
        side: CompileSide,
        failure: BuildFailure,
        message: impl Into<String>,
    ) -> Self {
        BuildError {
            side,
            failure,
            message: process::cap_log(&message.into()),
        }
    }

    /// A build of `side` that needed a toolchain this machine cannot provide.
    pub(crate) fn unavailable(side: CompileSide, e: &ToolchainError) -> Self {
        let failure = match e {
            ToolchainError::Missing { tool, .. } => BuildFailure::MissingToolchain { tool: *tool },
            ToolchainError::Failed { .. } => BuildFailure::Host,
        };
        BuildError::new(side, failure, e.to_string())
    }

    /// Whether the build failed because a toolchain is not installed (not because the code is
    /// wrong).
    pub fn is_missing_toolchain(&self) -> bool {
        matches!(self.failure, BuildFailure::MissingToolchain { .. })
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
