//! A numbered test suite: tests that joined it during a run (admitted by the protocol's rule, or
//! a coder's own tests) or a given one (`Suite::from_dir`: an acceptance suite, the hidden
//! tests).

use std::path::Path;
use std::sync::Arc;

use crate::journal::{Event, SuiteEntry, RUN_LANE};
use crate::toolchain::{Test, TestKind};

use super::ctx::{Ctx, Halt, ProtocolError};
use super::proposal::Proposal;

/// The numbered test suite: test `i` (1-based) is `entries[i - 1]`, runnable as `tests[i - 1]`.
#[derive(Clone, Default)]
pub struct Suite {
    /// The tests' entries, in suite order.
    pub entries: Vec<SuiteEntry>,
    /// The tests, runnable, in suite order.
    pub tests: Vec<Arc<Test>>,
    /// The highest number given so far (a dropped test's number is not given again).
    highest: usize,
}

impl Suite {
    /// How many tests the suite has.
    pub fn len(&self) -> usize {
        self.tests.len()
    }

    /// Whether the suite has no test.
    pub fn is_empty(&self) -> bool {
        self.tests.is_empty()
    }

    /// A given suite: every test file of `dir` (sorted by name, hidden files skipped), written
    /// by `author`. Files of another kind than `kind` are skipped (a checker beside its I/O
    /// test is not a test). A test that cannot be read is an error naming it.
    pub fn from_dir(
        ctx: &Ctx,
        dir: &Path,
        kind: TestKind,
        author: &str,
    ) -> Result<Suite, ProtocolError> {
        let files: Vec<_> = std::fs::read_dir(dir)
            .map_err(|source| ProtocolError::Read {
                path: dir.to_path_buf(),
                source,
            })?
            .flatten()
            .map(|e| e.path())
            .collect();
        Suite::from_files(ctx, &files, kind, author)
    }

    /// A given suite from a list of files (sorted by name; files of another kind, and hidden
    /// files, skipped).
    pub fn from_files(
        ctx: &Ctx,
        files: &[std::path::PathBuf],
        kind: TestKind,
        author: &str,
    ) -> Result<Suite, ProtocolError> {
        let mut files: Vec<_> = files
            .iter()
            .filter(|p| p.is_file())
            .filter(|p| TestKind::from_path(p) == Some(kind))
            .filter(|p| {
                !p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .cloned()
            .collect();
        files.sort();
        let mut suite = Suite::default();
        for path in files {
            let test = ctx
                .test(&path)
                .map_err(|e| ProtocolError::Test(e.message))?;
            let source = std::fs::read_to_string(&path).unwrap_or_default();
            let file = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            suite.highest += 1;
            suite.entries.push(SuiteEntry {
                number: suite.highest,
                author: author.to_string(),
                file,
                source,
            });
            suite.tests.push(Arc::new(test));
        }
        Ok(suite)
    }

    /// The tests as a prompt shows them: each file's name and contents in a fenced block.
    /// Removes test `number` (a person found it wrong); `false` if the suite has none.
    pub fn drop_test(&mut self, number: usize) -> bool {
        match self.entries.iter().position(|e| e.number == number) {
            Some(i) => {
                self.entries.remove(i);
                self.tests.remove(i);
                true
            }
            None => false,
        }
    }

    /// The number of the test at position `i` (from 0).
    pub fn number(&self, i: usize) -> usize {
        self.entries.get(i).map_or(i + 1, |e| e.number)
    }

    /// The suite as a prompt shows it: each test's file name and source.
    pub fn shown(&self) -> String {
        self.entries
            .iter()
            .map(|e| format!("`{}`:\n```\n{}\n```", e.file, e.source.trim_end()))
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// Adds accepted tests (`Suite::add`) and journals the change (`suite_changed`), if any
    /// joined: what every protocol that grows a suite does at the end of a round.
    pub fn admit(
        &mut self,
        ctx: &Ctx,
        accepted: Vec<(String, Proposal)>,
    ) -> Result<Vec<SuiteEntry>, Halt> {
        let added = self.add(ctx, accepted)?;
        if !added.is_empty() {
            ctx.emit(
                RUN_LANE,
                Event::SuiteChanged {
                    added: added.clone(),
                    removed: Vec::new(),
                    size: self.len(),
                },
            )?;
        }
        Ok(added)
    }

    /// Adds accepted tests (in the given order, each with its author), copying each into
    /// `runs/<id>/suite/` as `test_NNN.<ext>`.
    fn add(
        &mut self,
        ctx: &Ctx,
        accepted: Vec<(String, Proposal)>,
    ) -> Result<Vec<SuiteEntry>, Halt> {
        self.add_in(ctx, &ctx.run_dir.join("suite"), accepted)
    }

    /// `Suite::add` into another directory (a coder's own tests).
    pub fn add_in(
        &mut self,
        ctx: &Ctx,
        dir: &Path,
        accepted: Vec<(String, Proposal)>,
    ) -> Result<Vec<SuiteEntry>, Halt> {
        let dir = dir.to_path_buf();
        let fatal = |p: &Path, source: std::io::Error| {
            Halt::Fatal(ProtocolError::Write {
                path: p.to_path_buf(),
                source,
            })
        };
        std::fs::create_dir_all(&dir).map_err(|e| fatal(&dir, e))?;
        let mut added = Vec::new();
        for (author, p) in accepted {
            self.highest += 1;
            let number = self.highest;
            let file = format!("test_{number:03}.{}", ctx.test_kind().extension());
            let source = p.source.clone().unwrap_or_default();
            let path = dir.join(&file);
            std::fs::write(&path, &source).map_err(|e| fatal(&path, e))?;
            let test = ctx
                .test(&path)
                .map_err(|e| Halt::Fatal(ProtocolError::Test(e.message)))?;
            let entry = SuiteEntry {
                number,
                author,
                file,
                source,
            };
            self.entries.push(entry.clone());
            self.tests.push(Arc::new(test));
            added.push(entry);
        }
        Ok(added)
    }
}
