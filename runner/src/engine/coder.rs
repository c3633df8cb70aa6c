//! Agents that write code: a [`Coder`] is an agent and the solution in its workspace. `judge`
//! runs the solution against a suite; what the agent is then shown (a pass/fail vector, the
//! failing tests' output, everything) is the protocol's choice ([`Judgement::feedback`]).

use std::sync::Arc;

use crate::agents::Agent;
use crate::classify::{run_matrix, PairVerdict};
use crate::journal::{CellRecord, Event};
use crate::sandbox::VerdictKind;
use crate::toolchain::{solution_files, Solution, Test};

use super::ctx::{Ctx, Halt};
use super::suite::Suite;

/// An agent that writes code, and its current solution.
pub struct Coder {
    /// The coder's agent.
    pub agent: Agent,
    /// The snapshot of its workspace after its last turn (`Err`: why there is none).
    pub solution: Result<Arc<Solution>, String>,
    /// Whether its last reply contained code.
    pub last_had_code: bool,
    /// Whether its last reply was cut off at the length limit.
    pub last_truncated: bool,
}

/// How much of a judgement an agent is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Test numbers and pass/fail only (a judgement vector).
    Numbers,
    /// The failing tests' names and their relevant output, nothing about the passing ones
    /// (a focused fix prompt).
    Failures,
    /// Every test with its result and output (a coder's own tests).
    Everything,
}

/// How a solution fared against a suite.
#[derive(Clone, Debug)]
pub struct Judgement {
    /// Pass or fail per test, in suite order.
    pub vector: Vec<bool>,
    /// The solution's build error, when it did not build.
    pub build_error: Option<String>,
    /// Failures that are not wrong answers (crashes, limits, builds): the test could not run to
    /// a verdict on the answer, which is worse than a wrong answer.
    pub errors: usize,
    /// One cell per test, with its full verdict (output included): never journaled whole, only
    /// rendered at the protocol's level of detail.
    pub cells: Vec<PairVerdict>,
}

impl Judgement {
    /// Whether it builds and passes every test.
    pub fn all_pass(&self) -> bool {
        self.build_error.is_none() && self.vector.iter().all(|p| *p)
    }

    /// Tests passed (none when it does not build).
    pub fn passes(&self) -> usize {
        if self.build_error.is_some() {
            0
        } else {
            self.vector.iter().filter(|p| **p).count()
        }
    }

    /// Tests failed with a wrong answer (a failed check; the other failures are errors).
    pub fn failures(&self) -> usize {
        self.cells
            .iter()
            .filter(|c| c.verdict.verdict == VerdictKind::WrongAnswer)
            .count()
    }

    /// The high-water-mark order (BestTracker): more tests passed; on a tie, fewer errors.
    pub fn better_than(&self, other: &Judgement) -> bool {
        self.rank() > other.rank()
    }

    /// At least as good as `other` in the high-water-mark order.
    pub fn at_least(&self, other: &Judgement) -> bool {
        self.rank() >= other.rank()
    }

    fn rank(&self) -> (usize, std::cmp::Reverse<usize>) {
        (self.passes(), std::cmp::Reverse(self.errors))
    }

    /// 1-based numbers of the failing tests.
    pub fn failing(&self, suite: &Suite) -> Vec<usize> {
        self.vector
            .iter()
            .enumerate()
            .filter(|(_, p)| self.build_error.is_some() || !**p)
            .map(|(i, _)| suite.number(i))
            .collect()
    }

    /// What an agent is shown of this judgement at `detail`, for the tests of `suite` (named by
    /// their file names). Build errors are always shown (they are the agent's own code's).
    pub fn feedback(&self, suite: &Suite, detail: Detail) -> String {
        if let Some(e) = &self.build_error {
            return format!("The code does not build:\n{e}");
        }
        let name = |i: usize| {
            suite
                .entries
                .get(i)
                .map(|e| e.file.clone())
                .unwrap_or_else(|| format!("test {}", i + 1))
        };
        let mut out = String::new();
        for (i, (passed, cell)) in self.vector.iter().zip(&self.cells).enumerate() {
            match detail {
                Detail::Numbers => {
                    out.push_str(&format!(
                        "{}: {}\n",
                        suite.number(i),
                        if *passed { "pass" } else { "FAIL" }
                    ));
                }
                Detail::Failures if *passed => {}
                Detail::Failures | Detail::Everything => {
                    out.push_str(&format!(
                        "## {} — {}\n",
                        name(i),
                        if *passed {
                            "pass".to_string()
                        } else {
                            cell.verdict.verdict.to_string()
                        }
                    ));
                    if !*passed {
                        out.push_str(&relevant_output(cell));
                    }
                }
            }
        }
        out.trim_end().to_string()
    }
}

/// The part of a failing run's output worth showing: the detail and the last lines of stderr
/// (a traceback's end, a failed assertion) and of stdout. It already holds what the journaled
/// evidence of the cell (`crate::evidence`) holds, and more (stdout), so it stays as it is:
/// recorded runs' prompts replay unchanged, and the evidence never reaches a prompt.
fn relevant_output(cell: &PairVerdict) -> String {
    let v = &cell.verdict;
    let tail = |s: &str, n: usize| {
        let lines: Vec<&str> = s.lines().collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    };
    let mut out = String::new();
    if let Some(d) = &v.detail {
        out.push_str(d);
        out.push('\n');
    }
    let err = tail(&v.stderr, 15);
    if !err.trim().is_empty() {
        out.push_str(&format!("```\n{err}\n```\n"));
    }
    let stdout = tail(&v.stdout, 5);
    if !stdout.trim().is_empty() {
        out.push_str(&format!("stdout:\n```\n{stdout}\n```\n"));
    }
    out
}

impl Coder {
    /// A coder with no code yet.
    pub fn new(agent: Agent) -> Coder {
        Coder {
            agent,
            solution: Err("no code yet".into()),
            last_had_code: false,
            last_truncated: false,
        }
    }

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
            .map(|s| Arc::new(s.with_interface(ctx.interface.clone())))
            .map_err(|e| e.message);
    }

    /// The coder's code as text (file name and contents), for a prompt that shows it.
    pub fn code_text(&self) -> String {
        let Ok(sol) = &self.solution else {
            return String::new();
        };
        let mut out = String::new();
        for f in &sol.snapshot.files {
            let text = std::fs::read_to_string(sol.snapshot.dir.join(f)).unwrap_or_default();
            out.push_str(&format!(
                "`{}`:\n```\n{}\n```\n",
                f.display(),
                text.trim_end()
            ));
        }
        out.trim_end().to_string()
    }

    /// `run_tests(coder, suite)`: the coder's verdicts on the suite (journaled in its lane).
    pub async fn judge(&self, ctx: &Ctx, suite: &Suite) -> Result<Judgement, Halt> {
        let judgement = self.judge_quietly(ctx, suite).await;
        ctx.emit(
            &self.agent.name,
            Event::Judged {
                vector: judgement.vector.clone(),
                build_error: judgement.build_error.clone(),
                cells: judgement.cells.iter().map(CellRecord::from).collect(),
            },
        )?;
        Ok(judgement)
    }

    /// The coder's verdicts on `suite`, without journaling them (the caller journals what it
    /// decided from them, e.g. pass or fail only against the hidden suite).
    pub async fn judge_quietly(&self, ctx: &Ctx, suite: &Suite) -> Judgement {
        let sol = match &self.solution {
            Err(e) => {
                return Judgement {
                    vector: vec![false; suite.len()],
                    build_error: Some(e.clone()),
                    errors: suite.len(),
                    cells: vec![],
                }
            }
            Ok(sol) => sol.clone(),
        };
        let (tests, kind) = (suite.tests.clone(), ctx.test_kind());
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
                cells: vec![],
            },
            Ok(()) => {
                let cells: Vec<PairVerdict> = row;
                let errors = cells
                    .iter()
                    .filter(|c| !c.passed() && c.verdict.verdict != VerdictKind::WrongAnswer)
                    .count();
                Judgement {
                    vector: cells.iter().map(|c| c.passed()).collect(),
                    build_error: None,
                    errors,
                    cells,
                }
            }
        }
    }
}
