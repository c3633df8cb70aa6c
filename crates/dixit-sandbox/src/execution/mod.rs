//! One road into the sandbox. Every caller that runs guest code — a live run's classification
//! through the toolchains, `dixit eval`'s verdict matrix, `dixit bench` — hands the
//! [`Executor`] a [`Row`] (one program with its solution, and the calls to make of it) and gets a
//! [`RunOutcome`](crate::RunOutcome) per call. How much state the calls of one row share
//! is the executor's [`Isolation`]; languages only build the runnables (dixit's `toolchain`).
//!
//! - `isolation.rs`: [`Isolation`], a fresh instance per run or one per row.
//! - `row.rs`: [`Row`] and [`RowCall`], what one row runs.
//! - `executor.rs`: [`Executor`], which runs rows at its isolation level and counts what it
//!   starts.

mod executor;
mod isolation;
mod row;

pub use executor::Executor;
pub use isolation::{Isolation, UnknownIsolation};
pub use row::{Row, RowCall};
