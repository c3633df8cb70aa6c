//! dixit: isolated coder and tester agents implement one spec; a test joins the suite only if it
//! is IDEAL (some coders fail it, no more than a minority); every solution and test runs as
//! WebAssembly under wasmtime with fuel, memory and output limits.
//!
//! Modules, one per concept: [`sandbox`] runs WebAssembly and [`execution`] is the one road into
//! it (rows of calls at an isolation level), both from the `dixit-sandbox` crate, which depends on
//! nothing of this one; [`toolchain`] turns solutions and
//! tests into runnable artifacts; [`classify`] runs the (test × solution × rerun) matrix and
//! classifies tests; [`evidence`] is what a failing run showed (journaled with its cell); [`agents`], [`engine`] (protocol-neutral run machinery), [`protocol`] (one
//! folder per protocol), [`journal`], [`budget`], [`outcome`] (what a run produced, as data) and
//! [`report`] (which renders it) make up the orchestrator;
//! [`compare`] runs several protocols over several projects; [`import`] makes a benchmark's
//! tasks into projects; [`selection`] chooses the implementation to ship (the strategies
//! [`eval`] scores on recorded corpora offline); [`scaleout`] spreads a job over a batch scheduler's array (Slurm) and joins the
//! parts; `bench` measures the sandbox against native runs; [`cli`] is the binary. Small
//! shared pieces: [`config`] (a project's `dixit.toml`), [`consensus`] (where final
//! implementations disagree), [`stats`] (intervals and paired tests), [`calendar`],
//! [`english`], [`file_name`], [`shell`] and [`bounded_read`]. See ARCHITECTURE.md for the
//! data flow.

pub mod agents;
pub mod bench;
pub mod bounded_read;
pub mod budget;
pub mod calendar;
pub mod classify;
pub mod cli;
pub mod compare;
pub mod config;
pub mod consensus;
pub mod engine;
pub mod english;
pub mod eval;
pub mod evidence;
pub use dixit_sandbox::execution;
pub mod file_name;
pub mod import;
pub mod journal;
pub mod outcome;
pub mod protocol;
pub mod report;
pub use dixit_sandbox as sandbox;
pub mod scaleout;
pub mod selection;
pub mod shell;
pub mod stats;
pub mod toolchain;
pub mod workers;
