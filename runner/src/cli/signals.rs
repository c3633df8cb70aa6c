//! SIGINT and SIGTERM while a run (or a comparison) goes on: the first raises the engine's
//! [`Interrupt`], so the run stops at its next safe point and stays resumable; a second exits at
//! once (the journal stays resumable: its reader drops a half-written last line).

use std::sync::{Arc, OnceLock};

use tokio::signal::unix::{signal, SignalKind};

use super::exit;
use crate::engine::Interrupt;

/// The signals a run stops on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Caught {
    Int,
    Term,
}

impl Caught {
    /// The exit code of a process ended by this signal, as shells report it (128 + number).
    pub(super) fn code(self) -> u8 {
        match self {
            Caught::Int => exit::INTERRUPTED,
            Caught::Term => exit::TERMINATED,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Caught::Int => "SIGINT",
            Caught::Term => "SIGTERM",
        }
    }
}

/// What the handlers saw: the first signal, if any.
#[derive(Clone, Debug, Default)]
pub(super) struct Signals {
    first: Arc<OnceLock<Caught>>,
}

impl Signals {
    /// The first signal caught, if one was.
    pub(super) fn caught(&self) -> Option<Caught> {
        self.first.get().copied()
    }

    /// The exit code of an interrupted run: its signal's (130 if none was caught here).
    pub(super) fn code(&self) -> u8 {
        self.caught().map_or(exit::INTERRUPTED, Caught::code)
    }
}

/// Handles SIGINT and SIGTERM from now on (call it inside the runtime that runs the engine): the
/// first raises `interrupt` and prints `notice` through `say`; the next one kills the command
/// agents still running and exits with its code. Without handlers (an error of the system)
/// signals keep their default action.
pub(super) fn install(interrupt: Interrupt, say: impl Fn(&str) + Send + 'static) -> Signals {
    let signals = Signals::default();
    let (mut int, mut term) = match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) {
        (Ok(i), Ok(t)) => (i, t),
        (Err(e), _) | (_, Err(e)) => {
            tracing::warn!("cannot handle SIGINT and SIGTERM: {e}");
            return signals;
        }
    };
    let first = signals.first.clone();
    tokio::spawn(async move {
        loop {
            let caught = tokio::select! {
                _ = int.recv() => Caught::Int,
                _ = term.recv() => Caught::Term,
            };
            if first.set(caught).is_ok() {
                interrupt.raise();
                say(&format!(
                    "\n{}: stopping at the next safe point (agent calls in flight are abandoned); \
                     press Ctrl-C again to exit at once",
                    caught.name()
                ));
            } else {
                crate::agents::kill_running_commands();
                eprintln!(
                    "\n{}: exiting at once; the run can be resumed",
                    caught.name()
                );
                std::process::exit(i32::from(caught.code()));
            }
        }
    });
    signals
}
