//! What a failed build says, as data: which side failed, at which step, and the log a verdict
//! (and so an agent's next prompt) shows. Callers decide on [`BuildFailure`], never on the text.
//! The helpers every language's builds share to say it are here too: which side a build log
//! blames ([`failed_side`]), and the log of a program the sandbox refused ([`sandbox_message`]).

use std::path::PathBuf;

use super::heap::HeadroomError;
use super::process;
use crate::sandbox::{CompileSide, SandboxError, Verdict, VerdictKind};

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
    Missing {
        /// The tool.
        tool: Tool,
        /// What was not found.
        message: String,
    },
    /// It is installed but does not work (the Python runtime did not build, dixit's SDK could
    /// not be written).
    #[error("{message}")]
    Failed {
        /// What failed.
        message: String,
    },
}

/// Why a compiler or linker run gave no output: the tool's log, or this machine failing around
/// it. Callers blame the code for [`CompileError::Log`] only.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The tool failed on its input or ran past its limits: its log (kept, so the same input
    /// is not built again).
    #[error("{0}")]
    Log(String),
    /// The tool could not be started or confined (see `process.rs`).
    #[error("{0}")]
    Setup(String),
    /// A file of the build could not be read or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// A temporary file or folder of the build could not be made, written or moved.
    #[error("{0}")]
    Host(std::io::Error),
    /// The linked module could not be given its heap headroom.
    #[error(transparent)]
    Heap(#[from] HeadroomError),
}

/// The step at which a build stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildFailure {
    /// A tool the build needs is not installed here: not the code's fault.
    MissingToolchain {
        /// The tool.
        tool: Tool,
    },
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
    /// The side that did not build.
    pub side: CompileSide,
    /// The step at which the build stopped.
    pub failure: BuildFailure,
    /// The build log, capped (see `process::cap_log`) because it may reach an agent's prompt;
    /// why a solution or test could not be taken at all is kept whole (`BuildError::not_taken`).
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

    /// A solution or test that could not be taken at all (missing, unreadable, of no known
    /// kind, an invalid I/O test), with its message whole: a path and the problem.
    pub(crate) fn not_taken(side: CompileSide, message: String) -> Self {
        BuildError {
            side,
            failure: BuildFailure::Sources,
            message,
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

/// Which side a failed test build is: a Rust test only builds together with the solution crate,
/// so a failure is the pair's, except for syntax errors in the test file (rustc gives parse
/// errors no error code), which no solution could fix.
pub(super) fn failed_side(log: &str, test_file: &str) -> CompileSide {
    let at_test = format!("--> {test_file}:");
    let mut lines = log.lines().peekable();
    while let Some(line) = lines.next() {
        let uncoded = line.starts_with("error: ") && !line.starts_with("error: aborting");
        if uncoded
            && lines
                .peek()
                .is_some_and(|l| l.trim_start().starts_with(&at_test))
        {
            return CompileSide::Test;
        }
    }
    CompileSide::Link
}

/// The log of a program the sandbox could not load: a tool's own log as it is, any other
/// failure with its causes.
pub(super) fn sandbox_message(e: SandboxError) -> String {
    match e {
        SandboxError::Link { message } => message,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_are_the_tests_type_errors_the_pairs() {
        let parse = "error: expected `;`, found `println`\n --> t.rs:2:39\n  |\nerror: aborting due to 1 previous error\n";
        assert_eq!(failed_side(parse, "t.rs"), CompileSide::Test);
        assert_eq!(failed_side(parse, "other.rs"), CompileSide::Link);
        let types = "error[E0308]: mismatched types\n --> t.rs:4:21\n";
        assert_eq!(failed_side(types, "t.rs"), CompileSide::Link);
        let link = "error: linking with `rust-lld` failed: exit status: 1\n  |\n";
        assert_eq!(failed_side(link, "t.rs"), CompileSide::Link);
    }
}
