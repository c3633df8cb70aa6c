//! Why `dixit bench` could not measure: a benchmark program that cannot be written, built or
//! run, or one that does not pass (the bench times passing runs only).

use std::path::PathBuf;

/// A benchmark that could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The temporary folder or a benchmark program's file could not be written.
    #[error("{}: {error}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// A benchmark program did not build for the sandbox (the toolchain's message).
    #[error("{0}")]
    Build(String),
    /// No native C compiler starts here (each one tried, with why).
    #[error("no native C compiler for the fork/exec baseline ({})", tried.join("; "))]
    NoCompiler {
        /// `compiler: error` for each one tried.
        tried: Vec<String>,
    },
    /// The native C compiler rejected the baseline.
    #[error("native C build with `{compiler}` failed: {stderr}")]
    NativeBuild {
        /// The compiler.
        compiler: String,
        /// What it printed.
        stderr: String,
    },
    /// No python3 interpreter for the native baseline (or only a shim).
    #[error("{0}")]
    NoPython(String),
    /// A native program could not be started.
    #[error("cannot run {program}: {error}")]
    Spawn {
        /// The program.
        program: String,
        /// What the system said.
        error: std::io::Error,
    },
    /// A native program exited with a failure.
    #[error("{command} failed: {status}")]
    Exit {
        /// The command line.
        command: String,
        /// How it exited.
        status: std::process::ExitStatus,
    },
    /// A measured run did not pass: the program, and how it ended.
    #[error("{program}: {how}")]
    Failed {
        /// The program or row.
        program: String,
        /// Its verdict or exit.
        how: String,
    },
    /// The classification's test failed every solution, so the bench would time failures.
    #[error("the classification's test failed every solution ({reruns} reruns): the bench would time failures, not classifications")]
    ClassifyFailedAll {
        /// The rerun setting.
        reruns: String,
    },
    /// A benchmark thread panicked.
    #[error("a benchmark thread panicked")]
    Panicked,
}
