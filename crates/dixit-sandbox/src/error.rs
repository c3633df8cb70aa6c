//! Errors of the sandbox itself (never of the guest: a guest's failure is a verdict).

use std::path::PathBuf;

/// Why the sandbox could not do what was asked. Guest misbehaviour is not an error: it is data
/// in a [`RunOutcome`](super::RunOutcome).
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The engine could not be configured (an invalid pooling or limit setting).
    #[error("failed to configure the wasmtime engine")]
    Engine(#[source] wasmtime::Error),
    /// The bytes are not a WebAssembly module or component.
    #[error("not a WebAssembly module or component ({what})")]
    NotWasm {
        /// Why not (the bytes' header, or what was asked of them).
        what: String,
    },
    /// Cranelift rejected the module (corrupt or invalid WebAssembly).
    #[error("invalid WebAssembly: {message}")]
    Invalid {
        /// What was rejected, and why.
        message: String,
    },
    /// The module imports something the sandbox does not provide.
    #[error("cannot link: {message}")]
    Link {
        /// What could not be linked, and why.
        message: String,
    },
    /// A program was asked to start the way it is not entered (a core module at `_start`, a
    /// component through its `run` export), or a session of what is not a component.
    #[error("{0}")]
    Entry(&'static str),
    /// A directory the run spec preopens could not be opened.
    #[error("cannot preopen {}: {error:#}", path.display())]
    Preopen {
        /// The host directory.
        path: PathBuf,
        /// Why it could not be opened.
        error: wasmtime::Error,
    },
    /// The store refused the run's fuel (an engine built without fuel metering).
    #[error("cannot give the run its fuel: {0:#}")]
    Fuel(wasmtime::Error),
    /// The artifact cache could not be read or written.
    #[error("artifact cache at {path}")]
    Cache {
        /// The cache's path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}
