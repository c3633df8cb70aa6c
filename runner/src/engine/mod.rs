//! The protocol-neutral engine: what every protocol runs on.
//!
//! Data flow: [`start`]/[`resume`]/[`replay`] (`run.rs`) build a [`Ctx`] in a [`RunMode`] and
//! a [`Team`] of agents, hand them to the [`Protocol`] they were given (the engine names none:
//! `protocol.rs` is what it asks of one), then run the hidden tests and return a
//! [`crate::outcome::FinishedRun`] (data of [`crate::outcome`]), which the caller writes and
//! renders; the engine imports no renderer. Protocols act through the journaled primitives:
//!
//! - `ctx.rs`: [`Ctx`] — `ask` (and `ask_detached`, `ask_text`), `save`, `rollback`, `thank`,
//!   `emit`, `blocking` (sandbox work on the rayon pool); [`Halt`] and [`ProtocolError`].
//! - `coder.rs`: [`Coder`] — an agent and its solution: `solve`, `judge` a suite, render a
//!   [`Judgement`] at a [`Detail`] level.
//! - `proposal.rs`: [`ask_test`] and [`classify`] (the band rule) for tests agents write.
//! - `suite.rs`: the numbered [`Suite`], grown by a run or given (`Suite::from_dir`).
//! - `hwm.rs`: the [`HighWaterMark`] (BestTracker) the protocols share.
//! - `hidden.rs`: hidden-suite runs at the end of a run.
//! - `person.rs`: [`ask_person`], a stop a person answered (`dixit decide`) met again.
//! - `interrupt.rs`: [`Interrupt`], a request from outside (a signal the CLI caught) to stop a
//!   run at its next agent call.
//! - `prompts.rs`: templates (common + per protocol) and the forbidden-word guard.

mod coder;
mod ctx;
mod hidden;
mod hwm;
mod interrupt;
mod person;
pub mod policy;
pub mod prompts;
mod proposal;
mod protocol;
mod run;
mod ship;
mod suite;

pub use coder::{Coder, Detail, Judgement};
pub use ctx::{Ctx, CtxParts, Halt, Observer, ProtocolError, Quiet, RunMode};
pub use hidden::run_hidden;
pub use hwm::{HighWaterMark, Keep, Offer};
pub use interrupt::Interrupt;
pub use person::{ask_person, decide, resume_command, DecideError, Decided};
pub use prompts::{forbidden_words, Prompts};
pub use proposal::{ask_test, classify, run_test, Classified, Proposal};
pub use protocol::{settings_error, settings_pairs, Protocol, Stop};
pub use run::{
    default_backend, new_run_id, replay, resume, runtime_digests, start, BackendFactory, Inputs,
    ReplayOutcome, Team,
};
pub use suite::Suite;
