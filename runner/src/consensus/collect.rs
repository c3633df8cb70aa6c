//! The tests of a run, read from its journal: every test the run wrote or was given, whether it
//! joined the suite or not (the disagreement finder replays the calls of all of them).

use std::collections::BTreeMap;

use crate::agents::code_blocks;
use crate::journal::{Event, JournalFile};

/// A test's source and how the report names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedTest {
    /// `suite test 3 (test_003.py)`, `tester-1#2 (TOO_HARD)`, `hidden test_edge.py`, ...
    pub label: String,
    /// The test's Python source.
    pub source: String,
}

/// The Python tests of a run, in this order: the suite, the other proposals (rejected, or not
/// kept by debate), blind self-tests, the acceptance suite, the hidden tests. A source that
/// appears twice (an accepted proposal is also a suite test) is kept once, under its first
/// label.
pub fn tests_of_journal(j: &JournalFile) -> Vec<RecordedTest> {
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
    let mut self_tests = Vec::new();
    for r in &records {
        match &r.event {
            Event::SuiteChanged { added, .. } => {
                for e in added {
                    suite.push(RecordedTest {
                        label: format!("suite test {} ({})", e.number, e.file),
                        source: e.source.clone(),
                    });
                }
            }
            Event::Classified { test, class, .. } => {
                if let Some(source) = reply_of(test).and_then(|(files, _)| first_file(files)) {
                    proposals.push(RecordedTest {
                        label: format!("{test} ({class})"),
                        source,
                    });
                }
            }
            Event::DebateTest { test, kept, .. } => {
                if let Some(source) = reply_of(test).and_then(|(files, _)| first_file(files)) {
                    proposals.push(RecordedTest {
                        label: format!("{test} ({})", if *kept { "kept" } else { "not kept" }),
                        source,
                    });
                }
            }
            Event::SelfTests { tests } => {
                for t in tests {
                    let nth =
                        t.id.rsplit_once('.')
                            .and_then(|(_, i)| i.parse::<usize>().ok());
                    let body = reply_of(&t.id).zip(nth).and_then(|((_, text), i)| {
                        code_blocks(text, "py").into_iter().nth(i.checked_sub(1)?)
                    });
                    if let Some(source) = body {
                        self_tests.push(RecordedTest {
                            label: format!("{} (self-test)", t.id),
                            source,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    let given = |what: &str, files: &BTreeMap<String, String>| -> Vec<RecordedTest> {
        files
            .iter()
            .filter(|(name, _)| name.ends_with(".py"))
            .map(|(name, source)| RecordedTest {
                label: format!("{what} {name}"),
                source: source.clone(),
            })
            .collect()
    };
    let mut out: Vec<RecordedTest> = Vec::new();
    for t in suite
        .into_iter()
        .chain(proposals)
        .chain(self_tests)
        .chain(given("acceptance", &j.project.acceptance))
        .chain(given("hidden", &j.project.hidden))
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
