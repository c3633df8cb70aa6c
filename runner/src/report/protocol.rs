//! What the report asks of a protocol: its own part of the summary, its decisions in words and
//! on the page, and what its own events mean to the shared views (the matrix, the tests the
//! disagreement finder replays). Each protocol implements [`ProtocolReport`] in its folder; the
//! report names none, and the CLI hands it the protocol the journal names.

use std::collections::BTreeMap;
use std::path::PathBuf;

use maud::Markup;

use super::html::Section;
use super::run_report::RunView;
use super::summary::{CoderStats, Summary};
use crate::config::{Config, ConfigError};
use crate::consensus::NamedTest;
use crate::journal::{CellRecord, Event, ExitClass, Open};

/// A protocol as the report sees it.
pub trait ProtocolReport: Send + Sync {
    /// The name `[protocol] name`, journals and output use.
    fn name(&self) -> &'static str;

    /// An empty part of its own for a summary, to fold the run's events into (none: the shared
    /// fields say everything about its runs).
    fn part(&self) -> Option<Box<dyn Part>> {
        None
    }

    /// One of its decisions in words: what happened and what it asks of the person.
    fn describe(&self, stop: &Open) -> String;

    /// How the CLI exits on one of its decisions.
    fn exit_class(&self, stop: &Open) -> ExitClass;

    /// The page's paragraphs under the headline of one of its decisions: the evidence to read.
    fn explain(&self, stop: &Open, v: &RunView) -> Markup;

    /// The test one of its events ran against every coder, if the event is one (a row of the
    /// page's proposals and, when kept, of its suite).
    fn trial(&self, _event: &Open) -> Option<Trial> {
        None
    }

    /// The tests one of its events names that the disagreement finder replays (by default the
    /// event's trial).
    fn named_tests(&self, event: &Open) -> Vec<NamedTest> {
        self.trial(event)
            .map(|t| NamedTest {
                label: format!("{} ({})", t.test, if t.kept { "kept" } else { "not kept" }),
                reply: t.test,
                block: None,
            })
            .into_iter()
            .collect()
    }

    /// Why a test is in its suite, one sentence for people (none: it keeps no suite).
    fn suite_reason(&self) -> Option<&'static str>;

    /// The project folder whose tests are the acceptance suite coders are shown, if it has one.
    fn acceptance(&self, _config: &Config) -> Result<Option<PathBuf>, ConfigError> {
        Ok(None)
    }

    /// Brings one of its entries written by an older journal format to its current shape (a
    /// resume or replay compares what it re-executes with the recording in that shape).
    fn upgrade(&self, _entry: &mut Open) {}

    /// What it calls one turn of its loop (`round`, `epoch`).
    fn round_word(&self) -> &'static str {
        "round"
    }
}

/// A test one of a protocol's events ran against every coder, and whether it was kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// Its id (`agent#call`).
    pub test: String,
    pub kept: bool,
    /// The coders whose code failed it.
    pub failed_by: Vec<String>,
    pub build_error: Option<String>,
    pub cells: Vec<CellRecord>,
}

/// A protocol's own part of a summary, folded from the run's events one at a time.
pub trait Part: Send + Sync {
    /// Folds one event in (after the shared fields took it: `coders` is up to date).
    fn add(&mut self, lane: &str, event: &Event, coders: &BTreeMap<String, CoderStats>);

    /// The part in `summary.json`, under the protocol's name.
    fn to_json(&self) -> serde_json::Value;

    /// Its lines of the terminal summary (each ends with a newline).
    fn text(&self, summary: &Summary) -> String;

    /// Facts for the page's headline box (label, value).
    fn facts(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// Its section of the run's page.
    fn section(&self, v: &RunView) -> Option<Section>;

    /// A copy (a summary is cloned).
    fn boxed(&self) -> Box<dyn Part>;
}
