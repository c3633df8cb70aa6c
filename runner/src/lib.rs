//! dixit: isolated coder and tester agents implement one spec; a test joins the suite only if it
//! is IDEAL (some coders fail it, no more than a minority); every solution and test runs as
//! WebAssembly under wasmtime with fuel, memory and output limits.
//!
//! Modules, one per concept: [`sandbox`] runs WebAssembly; [`toolchain`] turns solutions and
//! tests into runnable artifacts; [`eval`] scores recorded corpora offline.

pub mod classify;
pub mod cli;
pub mod eval;
pub mod sandbox;
pub mod toolchain;
