//! Coders, testers and the suite: the state the loop manipulates, and the two measurements it
//! takes — `judge` (a coder against the suite) and `classify` (a test against the coders).

use std::path::Path;
use std::sync::Arc;

use crate::agents::{Agent, Checkpoint};
use crate::classify::{run_matrix, Class, Classification};
use crate::journal::{CellRecord, Event, SuiteEntry};
use crate::sandbox::{CompileSide, VerdictKind};
use crate::toolchain::{Language, Solution, Test, TestKind};

use super::context::{Ctx, Halt};

/// The file a coder's unnamed code block goes to, and the extensions it may write.
pub fn solution_files(lang: Language, kind: TestKind) -> (&'static str, &'static [&'static str]) {
    match (lang, kind) {
        (Language::Python, TestKind::Io) => ("main.py", &["py"]),
        (Language::Python, _) => ("solution.py", &["py"]),
        (Language::C, TestKind::Io) => ("main.c", &["c", "h"]),
        (Language::C, _) => ("solution.c", &["c", "h"]),
        (Language::Cpp, TestKind::Io) => ("main.cpp", &["cpp", "h", "hpp"]),
        (Language::Cpp, _) => ("solution.cpp", &["cpp", "h", "hpp"]),
        (Language::Rust, TestKind::Io) => ("main.rs", &["rs"]),
        (Language::Rust, _) => ("lib.rs", &["rs"]),
        (Language::Wasm, _) => ("main.wasm", &[]),
    }
}

/// A coder and its current solution.
pub struct Coder {
    pub agent: Agent,
    /// The snapshot of its workspace after its last turn (`Err`: why there is none).
    pub solution: Result<Arc<Solution>, String>,
    /// Whether its last reply contained code.
    pub last_had_code: bool,
    /// Whether its last reply was cut off at the length limit.
    pub last_truncated: bool,
}

/// How a coder's solution fared against the suite.
#[derive(Clone, Debug)]
pub struct Judgement {
    pub vector: Vec<bool>,
    pub build_error: Option<String>,
    /// Failures that are not wrong answers (crashes, limits): worse than a wrong answer.
    pub errors: usize,
}

impl Judgement {
    pub fn all_pass(&self) -> bool {
        self.build_error.is_none() && self.vector.iter().all(|p| *p)
    }

    pub fn passes(&self) -> usize {
        if self.build_error.is_some() {
            0
        } else {
            self.vector.iter().filter(|p| **p).count()
        }
    }

    /// The high-water-mark order: more tests passed; on a tie, fewer crashes (as BestTracker).
    pub fn better_than(&self, other: &Judgement) -> bool {
        (self.passes(), std::cmp::Reverse(self.errors))
            > (other.passes(), std::cmp::Reverse(other.errors))
    }

    /// 1-based numbers of the failing tests.
    pub fn failing(&self) -> Vec<usize> {
        self.vector
            .iter()
            .enumerate()
            .filter(|(_, p)| self.build_error.is_some() || !**p)
            .map(|(i, _)| i + 1)
            .collect()
    }
}

impl Coder {
    /// Sends `prompt` and takes the reply as the coder's new code.
    pub async fn solve(&mut self, ctx: &Ctx, purpose: &str, prompt: &str) -> Result<(), Halt> {
        let (default_file, exts) = solution_files(ctx.language(), ctx.test_kind());
        let turn = ctx
            .ask(&mut self.agent, purpose, prompt, default_file, exts)
            .await?;
        self.last_had_code = !turn.files.is_empty();
        self.last_truncated = turn.truncated;
        self.refresh(ctx);
        Ok(())
    }

    /// Re-snapshots the workspace (after a turn or a rollback).
    pub fn refresh(&mut self, ctx: &Ctx) {
        let ws = self.agent.state.workspace();
        self.solution = ctx
            .toolchains
            .solution(&ws, Some(ctx.language()))
            .map(Arc::new);
    }

    /// `run_tests(coder, test_suite)`: the coder's verdicts on the suite (journaled).
    pub async fn judge(&self, ctx: &Ctx, suite: &Suite) -> Result<Judgement, Halt> {
        let judgement = match &self.solution {
            Err(e) => Judgement {
                vector: vec![false; suite.len()],
                build_error: Some(no_code_message(e)),
                errors: suite.len(),
            },
            Ok(sol) => {
                let (sol, tests, kind) = (sol.clone(), suite.tests.clone(), ctx.test_kind());
                let (reruns, seed, limits) = (ctx.reruns(), ctx.seed(), ctx.limits());
                let (built, row) = ctx
                    .blocking(move |tc| match tc.check_solution(&sol, kind) {
                        Err(e) => (Err(e.message), Vec::new()),
                        Ok(()) => {
                            let refs: Vec<&Test> = tests.iter().map(|t| &**t).collect();
                            let cells = run_matrix(tc, &[&sol], &refs, reruns, seed, &limits);
                            (Ok(()), cells.into_iter().map(|mut r| r.remove(0)).collect())
                        }
                    })
                    .await;
                match built {
                    Err(msg) => Judgement {
                        vector: vec![false; suite.len()],
                        build_error: Some(msg),
                        errors: suite.len() + 1,
                    },
                    Ok(()) => {
                        let cells: Vec<crate::classify::Cell> = row;
                        let errors = cells
                            .iter()
                            .filter(|c| {
                                !c.passed() && c.verdict.verdict != VerdictKind::WrongAnswer
                            })
                            .count();
                        let j = Judgement {
                            vector: cells.iter().map(|c| c.passed()).collect(),
                            build_error: None,
                            errors,
                        };
                        ctx.emit(
                            &self.agent.name,
                            Event::Judged {
                                vector: j.vector.clone(),
                                build_error: None,
                                cells: cells.iter().map(CellRecord::from).collect(),
                            },
                        )?;
                        return Ok(j);
                    }
                }
            }
        };
        ctx.emit(
            &self.agent.name,
            Event::Judged {
                vector: judgement.vector.clone(),
                build_error: judgement.build_error.clone(),
                cells: vec![],
            },
        )?;
        Ok(judgement)
    }
}

fn no_code_message(snapshot_error: &str) -> String {
    if snapshot_error.contains("no source files") {
        "no source file was found".into()
    } else {
        snapshot_error.to_string()
    }
}

/// A proposed test: where it came from and, if the reply had one, the test itself.
#[derive(Clone)]
pub struct Proposal {
    /// `tester-1#3`: the tester and the call that produced it.
    pub id: String,
    pub source: Option<String>,
    pub test: Result<Arc<Test>, String>,
    /// The reply was cut off at the length limit.
    pub truncated: bool,
}

/// A tester, its checkpoints and, while hibernating, its two too-hard tests.
pub struct Tester {
    pub agent: Agent,
    pub before_test_1: Option<Checkpoint>,
    pub before_test_2: Option<Checkpoint>,
    pub too_hard_tests: Option<[Proposal; 2]>,
}

impl Tester {
    pub fn is_hibernated(&self) -> bool {
        self.too_hard_tests.is_some()
    }

    /// Asks for a test with `prompt`.
    pub async fn propose(
        &mut self,
        ctx: &Ctx,
        purpose: &str,
        prompt: &str,
    ) -> Result<Proposal, Halt> {
        let kind = ctx.test_kind();
        let default_file = format!("test.{}", kind.extension());
        let turn = ctx
            .ask(
                &mut self.agent,
                purpose,
                prompt,
                &default_file,
                &[kind.extension()],
            )
            .await?;
        let id = format!("{}#{}", self.agent.name, turn.call);
        let Some(f) = turn.files.iter().find(|f| f.content.is_some()) else {
            return Ok(Proposal {
                id,
                source: None,
                test: Err("no test was found in the reply".into()),
                truncated: turn.truncated,
            });
        };
        let path = self.agent.state.workspace().join(&f.path);
        let test = ctx
            .toolchains
            .test(&path)
            .map(Arc::new)
            .map_err(|e| strip_dir(&e, &self.agent.state.workspace()));
        Ok(Proposal {
            id,
            source: f.content.clone(),
            test,
            truncated: turn.truncated,
        })
    }

    /// The first prompt (with the spec) if the tester has not proposed anything in its current
    /// history, else "one more".
    pub fn propose_prompt(&self, ctx: &Ctx) -> Result<String, Halt> {
        let proposed_before = self
            .agent
            .state
            .messages()
            .iter()
            .any(|m| m.role == "assistant");
        Ok(if proposed_before {
            ctx.prompts.render("tester_more", &[])?
        } else {
            ctx.prompts
                .render("tester_first", &[("spec", ctx.spec.trim())])?
        })
    }
}

fn strip_dir(msg: &str, dir: &Path) -> String {
    msg.replace(&format!("{}/", dir.display()), "")
}

/// What `classify` found.
pub struct Verdict {
    pub class: Class,
    /// For INVALID: what the tester is told (its own build errors; never solution code).
    pub reason: Option<String>,
    /// The test's reply was cut off at the length limit.
    pub truncated: bool,
}

/// `classify(test, coders)`: the test against every coder's current solution, with reruns
/// (journaled in the tester's lane).
pub async fn classify(
    ctx: &Ctx,
    tester: &str,
    p: &Proposal,
    pool: &[Arc<Solution>],
) -> Result<Verdict, Halt> {
    let test = match &p.test {
        Err(reason) => {
            ctx.emit(
                tester,
                Event::Classified {
                    test: p.id.clone(),
                    class: Class::Invalid,
                    failures: 0,
                    pool: pool.len(),
                    build_error: Some(reason.clone()),
                    cells: vec![],
                },
            )?;
            return Ok(Verdict {
                class: Class::Invalid,
                reason: Some(reason.clone()),
                truncated: p.truncated,
            });
        }
        Ok(t) => t.clone(),
    };
    let (pool_owned, reruns, seed, limits, minority) = (
        pool.to_vec(),
        ctx.reruns(),
        ctx.seed(),
        ctx.limits(),
        ctx.config.protocol.minority,
    );
    let c: Result<Classification, String> = ctx
        .blocking(move |tc| {
            tc.check_test(&test).map_err(|e| e.message)?;
            let sols: Vec<&Solution> = pool_owned.iter().map(|s| &**s).collect();
            let row = run_matrix(tc, &sols, &[&test], reruns, seed, &limits).remove(0);
            Ok(Classification::from_cells(row, minority))
        })
        .await;
    let (class, reason, failures, cells) = match c {
        Err(e) => (Class::Invalid, Some(e), 0, vec![]),
        Ok(c) => {
            let reason = c.build_error.as_ref().map(|_| link_errors_only(&c));
            (
                c.class,
                reason,
                c.failures,
                c.cells.iter().map(CellRecord::from).collect(),
            )
        }
    };
    ctx.emit(
        tester,
        Event::Classified {
            test: p.id.clone(),
            class,
            failures,
            pool: pool.len(),
            build_error: reason.clone(),
            cells,
        },
    )?;
    Ok(Verdict {
        class,
        reason,
        truncated: p.truncated,
    })
}

/// A test that builds alone but not with any solution: tell its author only the error lines
/// (the full diagnostics would quote solution code).
fn link_errors_only(c: &Classification) -> String {
    let side = c.cells.first().and_then(|x| x.verdict.side);
    let log = c.build_error.clone().unwrap_or_default();
    if side == Some(CompileSide::Test) {
        return log;
    }
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.trim_start().starts_with("error") || l.contains(" error:"))
        .take(5)
        .collect();
    if lines.is_empty() {
        "it does not build against the interface the specification describes".into()
    } else {
        lines.join("\n")
    }
}

/// The numbered test suite.
#[derive(Default)]
pub struct Suite {
    pub entries: Vec<SuiteEntry>,
    pub tests: Vec<Arc<Test>>,
}

impl Suite {
    pub fn len(&self) -> usize {
        self.tests.len()
    }

    /// Adds accepted tests (in the given order), copying each into `runs/<id>/suite/`.
    pub fn add(
        &mut self,
        ctx: &Ctx,
        accepted: Vec<(String, Proposal)>,
    ) -> Result<Vec<SuiteEntry>, Halt> {
        let dir = ctx.run_dir.join("suite");
        std::fs::create_dir_all(&dir).map_err(|e| {
            Halt::Fatal(super::ProtocolError::Setup(format!(
                "{}: {e}",
                dir.display()
            )))
        })?;
        let mut added = Vec::new();
        for (author, p) in accepted {
            let number = self.tests.len() + 1;
            let file = format!("test_{number:03}.{}", ctx.test_kind().extension());
            let source = p.source.clone().unwrap_or_default();
            let path = dir.join(&file);
            std::fs::write(&path, &source).map_err(|e| {
                Halt::Fatal(super::ProtocolError::Setup(format!(
                    "{}: {e}",
                    path.display()
                )))
            })?;
            let test = ctx
                .toolchains
                .test(&path)
                .map_err(|e| Halt::Fatal(super::ProtocolError::Setup(e)))?;
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
