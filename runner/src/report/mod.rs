//! What a run produced, for people and programs: the [`Summary`] (folded from the run's events,
//! so a replay, or a reader of any journal, computes the same one), the terminal text, and the
//! run's output files. Renderers take a run directory and a summary, never the engine's state.
//!
//! - `summary.rs`: [`Summary`]: common fields plus the protocol's own part.
//! - `protocol.rs`: [`ProtocolReport`], what the report asks of a protocol (its part, its
//!   decisions in words); the protocols implement it. `protocols/`: each protocol's terminal
//!   lines, headline facts, decision evidence and page section, rendered from its data.
//! - `text.rs`: the terminal summary and [`describe_stop`]; `choices.rs`: what a person may do
//!   at a stop ([`Offer`]), the same on the page, in the terminal and for `dixit decide`;
//!   `balance.rs`: what the person reads first there ([`Balance`]).
//! - `metric.rs`: the seeds' own measures of a run ([`metric::Metric`]) and their totals over a
//!   comparison.
//! - `format.rs`: numbers, dates and lists in words, for every renderer.
//! - `outputs.rs`: `implementations/`, `suite/README.md` and `summary.json`.
//! - `compare.rs`: what `dixit compare` found ([`CompareReport`]) and its table;
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
mod import;
pub mod input;
pub mod junit;
pub mod metric;
mod outputs;
mod protocol;
mod protocols;
pub mod run_report;
mod summary;
mod text;

pub use balance::{balance, Balance};
pub use bench::bench_table;
pub use choices::{offer, offer_of, recorded_config, Offer};
pub use compare::{
    compare_table, one_line, Cell, CellResult, CellRun, CompareReport, COMPARE_FORMAT,
};
pub use eval_table::{eval_table, verdicts_table};
pub use import::import_summary;
pub use outputs::{write_outputs, OutputError};
pub use protocol::{ProtocolReport, Room};
pub use run_report::Trial;
pub use summary::{
    bump, ClassCounts, CoderStats, Part, ProtocolPart, SuiteItem, Summary, UsageTotals,
};
pub use text::{describe_shipping, describe_stop, exit_class, render, shipping_words};
