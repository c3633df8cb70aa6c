//! The tests of a run, read from its journal: every test the run wrote or was given, whether it
//! joined the suite or not (the disagreement finder replays the calls of all of them).

use std::collections::BTreeMap;

use crate::agents::code_blocks;
use crate::journal::{Event, JournalFile, Open};

/// A test's source and how the report names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedTest {
    /// `suite test 3 (test_003.py)`, `tester-1#2 (TOO_HARD)`, `hidden test_edge.py`, ...
    pub label: String,
    /// The test's Python source.
    pub source: String,
    /// Whose test it is.
    pub origin: Origin,
}

/// Where a recorded test came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Written by the run's agents (suite tests, proposals, self-tests).
    Own,
    /// The project's acceptance tests (`tests/`).
    Acceptance,
    /// The project's hidden tests.
    Hidden,
}

/// A test a protocol's own event names: the reply that holds it and how the report labels it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedTest {
    /// The reply's id (`agent#call`).
    pub reply: String,
    /// Which Python code block of the reply's text (from 1); none: the reply's first file.
    pub block: Option<usize>,
    /// How the report labels it.
    pub label: String,
}

/// The Python tests of a run, in this order: the suite, the other proposals (classified, or
/// named by the protocol's own events through `named`), the acceptance suite, the hidden tests.
/// A source that appears twice (an accepted proposal is also a suite test) is kept once, under
/// its first label.
pub fn tests_of_journal(
    j: &JournalFile,
    named: &dyn Fn(&Open) -> Vec<NamedTest>,
) -> Vec<RecordedTest> {
    let records = j.effective();
    // Each reply's files and text, by (agent, call).
    let mut replies: BTreeMap<(&str, u64), (&[crate::agents::FileWrite], &str)> = BTreeMap::new();
    for r in &records {
        if let Event::Reply {
            call, files, text, ..
        } = &r.event
        {
            replies.insert((r.lane.as_str(), *call), (files.as_slice(), text.as_str()));
        }
    }
    let reply_of = |id: &str| -> Option<(&[crate::agents::FileWrite], &str)> {
        let (agent, call) = id.rsplit_once('#')?;
        let call = call.split('.').next()?.parse().ok()?;
        replies.get(&(agent, call)).copied()
    };
    let mut suite = Vec::new();
    let mut proposals = Vec::new();
    for r in &records {
        match &r.event {
            Event::SuiteChanged { added, .. } => {
                for e in added {
                    suite.push(RecordedTest {
                        label: format!("suite test {} ({})", e.number, e.file),
                        source: e.source.clone(),
                        origin: Origin::Own,
                    });
                }
            }
            Event::Classified { test, class, .. } => {
                if let Some(source) = reply_of(test).and_then(|(files, _)| first_file(files)) {
                    proposals.push(RecordedTest {
                        label: format!("{test} ({class})"),
                        source,
                        origin: Origin::Own,
                    });
                }
            }
            Event::Protocol(o) => {
                for t in named(o) {
                    let Some((files, text)) = reply_of(&t.reply) else {
                        continue;
                    };
                    let source = match t.block {
                        None => first_file(files),
                        Some(i) => code_blocks(text, "py")
                            .into_iter()
                            .nth(i.saturating_sub(1))
                            .filter(|_| i > 0),
                    };
                    if let Some(source) = source {
                        proposals.push(RecordedTest {
                            label: t.label,
                            source,
                            origin: Origin::Own,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    let given = |what: &str, origin: Origin, files: &BTreeMap<String, String>| {
        files
            .iter()
            .filter(|(name, _)| name.ends_with(".py"))
            .map(|(name, source)| RecordedTest {
                label: format!("{what} {name}"),
                source: source.clone(),
                origin,
            })
            .collect::<Vec<RecordedTest>>()
    };
    let mut out: Vec<RecordedTest> = Vec::new();
    for t in suite
        .into_iter()
        .chain(proposals)
        .chain(given(
            "acceptance",
            Origin::Acceptance,
            &j.project.acceptance,
        ))
        .chain(given("hidden", Origin::Hidden, &j.project.hidden))
    {
        if !out.iter().any(|o| o.source == t.source) {
            out.push(t);
        }
    }
    out
}

/// The test a reply holds: its first file with contents (as `engine::ask_test` takes it).
fn first_file(files: &[crate::agents::FileWrite]) -> Option<String> {
    files.iter().find_map(|f| f.content.clone())
}
