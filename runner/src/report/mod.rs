//! What a run produced, for people and programs: the data of [`crate::outcome`] (the summary, the
//! stop, the offer, the measures) rendered as the terminal text, the pages, JUnit and the run's
//! output files. Renderers take a run directory, a journal and a summary, never the engine's
//! state; the engine and the protocols never call them (the CLI does, once a run returned).
//!
//! - `protocols/`: each protocol's terminal lines, headline facts, decision evidence and page
//!   section, rendered from the data its folder keeps.
//! - `text.rs`: the terminal summary; `choices.rs`: what a person may do at a stop (the
//!   [`crate::outcome::Offer`]) as commands, the same on the page and in the terminal;
//!   `balance.rs`: what the person reads first there ([`Balance`]).
//! - `metric.rs`: the totals of the seeds' own measures over a comparison.
//! - `format.rs`: numbers and dates in words, for every renderer.
//! - `outputs.rs`: `implementations/`, `suite/README.md` and `summary.json`.
//! - `compare.rs`: what `dixit compare` found ([`CompareReport`](crate::outcome::CompareReport)) and its table;
//!   `compare_page/`: its page (`DIR/report.html` beside `DIR/compare.json`); `eval_table.rs`: the tables of `dixit eval`;
//!   `bench.rs`: the table of `dixit bench`; `import.rs`: the summary of `dixit import`.
//! - `html/`: the pieces every HTML page is built from; `eval_report/`: the page of an eval
//!   output and the comparison of two; `run_report/`: the page of a run (`report.html`);
//!   `junit.rs`: a run's final verdicts as JUnit XML; `input.rs`: what `dixit report` was given.

mod balance;
mod bench;
mod choices;
mod compare;
pub mod compare_page;
pub mod eval_report;
mod eval_table;
pub mod format;
pub mod html;
pub mod import;
pub mod input;
pub mod junit;
pub mod metric;
mod outputs;
mod protocols;
pub mod run_report;
pub mod samples_page;
mod samples_table;
mod text;

pub use balance::{balance, Balance};
pub use bench::bench_table;
pub use compare::{compare_table, one_line};
pub use eval_table::{eval_table, verdicts_table};
pub use import::import_summary;
pub use outputs::{write_outputs, OutputError};
pub use samples_table::samples_table;
pub use text::{describe_shipping, render, shipping_words};
