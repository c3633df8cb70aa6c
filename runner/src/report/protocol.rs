//! What the report asks of a protocol: its own part of the summary, its decisions in words, and
//! what its own events mean to the shared views (the matrix, the tests the disagreement finder
//! replays). Each protocol implements [`ProtocolReport`] in its folder; its page section and
//! terminal lines are rendered by `protocols/`, and the CLI hands the report the protocol the
//! journal names.

use std::path::{Path, PathBuf};

use super::run_report::model::{RunView, Trial};
use super::summary::{Part, Summary};
use crate::config::{Config, ConfigError};
use crate::consensus::NamedTest;
use crate::journal::{Choice, ExitClass, JournalFile, Open};

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

    /// The run of `journal` folded for the page and the JUnit export, its trials and its
    /// acceptance suite read as this protocol says.
    fn view<'a>(
        &self,
        journal: &'a JournalFile,
        summary: &'a Summary,
        run_dir: &Path,
    ) -> RunView<'a> {
        RunView::new(journal, summary, run_dir, &|e| self.trial(e), &|c| {
            self.acceptance(c).ok().flatten()
        })
    }
}

/// A limit a person may raise at a stop (`dixit decide … raise KEY=VALUE`): its `table.key` in
/// `dixit.toml` and its value now. Any larger value goes; the page suggests twice it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Room {
    pub key: String,
    pub now: i64,
}

impl Room {
    /// Limit `key`, `now` at `now`.
    pub fn new(key: &str, now: impl Into<i64>) -> Room {
        Room {
            key: key.to_string(),
            now: now.into(),
        }
    }

    /// The value a command suggests: twice the limit (at least one more).
    pub fn suggested(&self) -> i64 {
        self.now.saturating_mul(2).max(self.now.saturating_add(1))
    }
}
