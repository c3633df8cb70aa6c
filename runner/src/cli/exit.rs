//! Exit codes of the `dixit` binary, and the error type that carries one.

/// Success: `exec` passed, `classify`/`eval`/`bench` finished, `run` converged.
pub const OK: u8 = 0;
/// The outcome is a failure: `exec`'s verdict is not pass; `run` stopped for human judgement.
pub const FAILED: u8 = 1;
/// Bad arguments or bad input (a missing file, a malformed config, journal or corpus).
pub const USAGE: u8 = 2;
/// Something the machine lacks: a toolchain, the model server, a network service.
pub const ENVIRONMENT: u8 = 3;
/// A run stopped at a cap (rounds, budget); it can be resumed.
pub const CAPPED: u8 = 4;
/// A replay diverged from its recording.
pub const DIVERGED: u8 = 5;
/// SIGINT (Ctrl-C) stopped a run; it can be resumed (128 + 2, as a shell reports the signal).
pub const INTERRUPTED: u8 = 130;
/// SIGTERM stopped a run; it can be resumed (128 + 15).
pub const TERMINATED: u8 = 143;
/// dixit itself failed.
pub const INTERNAL: u8 = 70;

/// An error with the exit code it should produce and an optional hint for the user.
#[derive(Debug)]
pub struct CliError {
    /// The exit code.
    pub code: u8,
    /// The error.
    pub error: anyhow::Error,
    /// What the user could do about it, if there is something.
    pub hint: Option<String>,
}

impl CliError {
    /// An error that exits with `code`.
    pub fn new(code: u8, error: impl Into<anyhow::Error>) -> Self {
        CliError {
            code,
            error: error.into(),
            hint: None,
        }
    }

    /// Bad arguments or bad input (exit `USAGE`).
    pub fn usage(msg: impl std::fmt::Display) -> Self {
        CliError::new(USAGE, anyhow::anyhow!("{msg}"))
    }

    /// Something the machine lacks (exit `ENVIRONMENT`).
    pub fn env(msg: impl std::fmt::Display) -> Self {
        CliError::new(ENVIRONMENT, anyhow::anyhow!("{msg}"))
    }

    /// `self` with `hint`.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl From<anyhow::Error> for CliError {
    fn from(error: anyhow::Error) -> Self {
        CliError {
            code: INTERNAL,
            error,
            hint: None,
        }
    }
}

/// What a command returns: the exit code on success (a failing verdict is not an error).
pub type CliResult = Result<u8, CliError>;
