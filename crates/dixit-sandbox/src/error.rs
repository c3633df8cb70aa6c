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
    NotWasm { what: String },
    /// Cranelift rejected the module (corrupt or invalid WebAssembly).
    #[error("invalid WebAssembly: {message}")]
    Invalid { message: String },
    /// The module imports something the sandbox does not provide.
    #[error("cannot link: {message}")]
    Link { message: String },
    /// The artifact cache could not be read or written.
    #[error("artifact cache at {path}")]
    Cache {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}
