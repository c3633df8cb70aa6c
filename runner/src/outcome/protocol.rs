//! What a protocol's runs mean, as data: its own part of the summary, its decisions in words,
//! what a person may choose at them, and what its own events mean to the shared views (the
//! matrix, the tests the disagreement finder replays). Each protocol implements
//! [`ProtocolData`] in its folder (`outcome.rs`); the engine reads it and the report renders it.

use std::path::PathBuf;

use super::room::Room;
use super::summary::{Part, Summary};
use crate::config::{Config, ConfigError};
use crate::consensus::NamedTest;
use crate::journal::{CellRecord, Choice, ExitClass, JournalFile, Open};

/// A protocol's runs as data: its name, its own events and stops, its part of the summary.
/// `engine::Protocol` extends it with how a run goes.
pub trait ProtocolData: Send + Sync {
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

    /// What a person may choose at one of its stops (`dixit decide`), each a command. By
    /// default the implementations can be accepted as they are.
    fn choices(&self, _stop: &Open) -> Vec<Choice> {
        vec![Choice::Accept]
    }

    /// The limits (with their values in `config`) whose raise lets the run go on from one of
    /// its stops: more attempts, more epochs. By default none.
    fn room(&self, _stop: &Open, _config: &Config) -> Vec<Room> {
        Vec::new()
    }

    /// The `table.key` of its round limit, which a round-cap stop offers to raise.
    fn round_limit(&self) -> Option<&'static str> {
        None
    }

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

    /// Which implementation one of its runs ships, the one `dixit compare` judges a problem
    /// by ([`Summary::shipped_one`]), in one phrase for people: the comparison page states it.
    fn shipped_rule(&self) -> &'static str;

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

    /// An empty summary of one of its runs, with its own part.
    fn summary(&self) -> Summary {
        Summary::new(self.name(), self.part())
    }

    /// The summary of a recorded run of it.
    fn summary_of(&self, journal: &JournalFile) -> Summary {
        self.summary().fold(journal)
    }
}

/// A test one of a protocol's own events ran against every coder, and whether it was kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// Its id (`agent#call`).
    pub test: String,
    /// Whether it was kept (joined the suite).
    pub kept: bool,
    /// The coders whose code failed it.
    pub failed_by: Vec<String>,
    /// Why it could not be run against the coders' code (it was not taken, or did not build).
    pub build_error: Option<String>,
    /// One cell per coder.
    pub cells: Vec<CellRecord>,
}
