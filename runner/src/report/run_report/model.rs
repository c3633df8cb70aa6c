//! [`RunView`]: what the run report (and the JUnit export) shows, folded from a run's journal in
//! one pass, protocol-neutral: rounds (or epochs), every classified or kept-or-not test (a
//! protocol's [`crate::outcome::Trial`]) with who failed it and the nudge its author got next, the
//! suite with the decision that admitted each test, each coder's attempts and the high-water
//! mark, the final verdicts, hidden results, and the final implementations read from
//! `implementations/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::classify::Class;
use crate::config::Config;
use crate::journal::{CellRecord, Choice, Event, JournalFile, StopReason, RUN_LANE};
use crate::outcome::{ClassCounts, ProtocolData, Summary, Trial};
use crate::shell::shell_word;

/// One round (or epoch) of the run.
#[derive(Clone, Debug, Default)]
pub struct RoundView {
    /// The round's (epoch's) number, from 1.
    pub number: u32,
    /// Suite size at the round's start.
    pub suite_at_start: usize,
    /// Classifications made in the round.
    pub classes: ClassCounts,
    /// Tests that joined the suite at the round's end.
    pub added: usize,
    /// Each coder's last verdicts of the round (over the suite of that moment).
    pub judged: BTreeMap<String, Judged>,
}

/// A coder's verdicts on the suite, as journaled.
#[derive(Clone, Debug, Default)]
pub struct Judged {
    /// Pass or fail per suite test.
    pub vector: Vec<bool>,
    /// Why the code did not build, if it did not.
    pub build_error: Option<String>,
    /// Each test's verdict (none when the code did not build).
    pub cells: Vec<CellRecord>,
}

impl Judged {
    /// The verdict letter of test `j` (`C` for every test when the code did not build).
    pub fn letter(&self, j: usize) -> char {
        if self.build_error.is_some() {
            return 'C';
        }
        self.cells
            .get(j)
            .map(|c| crate::eval::verdict_code(c.v))
            .or_else(|| self.vector.get(j).map(|p| if *p { 'P' } else { 'W' }))
            .unwrap_or('X')
    }

    /// Tests passed (none when the code did not build).
    pub fn passed(&self) -> usize {
        if self.build_error.is_some() {
            0
        } else {
            self.vector.iter().filter(|p| **p).count()
        }
    }
}

/// What became of a test an agent proposed (dixit) or wrote against the others (debate).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Its classification.
    Class(Class),
    /// A trial kept: it joined the suite.
    Kept,
    /// A trial not kept (e.g. it broke nobody, or everybody, or did not build).
    NotKept,
}

impl Outcome {
    /// `IDEAL`, `TOO_HARD`, `kept`, ...
    pub fn name(&self) -> String {
        match self {
            Outcome::Class(c) => c.to_string(),
            Outcome::Kept => "kept".into(),
            Outcome::NotKept => "not kept".into(),
        }
    }

    /// Whether the test was admitted to the suite by this decision.
    pub fn admits(&self) -> bool {
        matches!(self, Outcome::Class(Class::Ideal) | Outcome::Kept)
    }
}

/// One classification of a proposed test (a hibernated tester's tests are classified again
/// each round, so one test may have several).
#[derive(Clone, Debug)]
pub struct ProposalView {
    /// `tester-1#3`: the author and the call that wrote it.
    pub id: String,
    /// The agent that wrote it.
    pub author: String,
    /// The round (epoch) of this classification.
    pub round: u32,
    /// Why it was asked for: `propose`, `retry`, `break`.
    pub purpose: String,
    /// The file name the reply gave it.
    pub file: String,
    /// The test's source (none when the reply held no test).
    pub source: Option<String>,
    /// What the classification decided.
    pub outcome: Outcome,
    /// Pool members that failed it.
    pub failures: usize,
    /// Solutions it ran against.
    pub pool: usize,
    /// The coders that failed it, when the pool's members are known.
    pub failed_by: Vec<String>,
    /// Each pool member's verdict (in `pool_names` order).
    pub cells: Vec<CellRecord>,
    /// The pool's members: the coders, when the pool was all of them.
    pub pool_names: Vec<String>,
    /// Why it did not build, if it did not.
    pub build_error: Option<String>,
    /// What the author was told next (dixit's nudge: the prompt of its retry).
    pub nudge: Option<String>,
    /// Classified again while its author hibernated.
    pub revival: bool,
    /// The suite number it got, if this decision admitted it.
    pub suite_number: Option<usize>,
}

impl ProposalView {
    /// An anchor for the page.
    pub fn anchor(&self) -> String {
        format!("p-{}-r{}", slug(&self.id), self.round)
    }
}

/// A test of the final suite.
#[derive(Clone, Debug)]
pub struct SuiteTest {
    /// Its number (1-based), as coders see it.
    pub number: usize,
    /// The agent that wrote it (`acceptance` for a given suite).
    pub author: String,
    /// Its file in `suite/` (or the acceptance folder).
    pub file: String,
    /// Its source.
    pub source: String,
    /// The round (epoch) at whose end it joined; 0 for a given suite.
    pub round: u32,
    /// The decision that admitted it (index into [`RunView::proposals`]): its classification,
    /// or, for a test a person woke, its last one.
    pub admitted_by: Option<usize>,
    /// It joined because a person woke its hibernating author, not by its classification.
    pub woken: bool,
}

/// One check of a coder's code against the suite, and what the high-water mark did next.
#[derive(Clone, Debug)]
pub struct AttemptView {
    /// The round (epoch) of the check.
    pub round: u32,
    /// The reply that made this code: `solve`, `fix`, `refine`, `write`, ...
    pub purpose: String,
    /// What the check found.
    pub judged: Judged,
    /// `passes every test`, `kept: the best so far`, `rolled back: why`, ...
    pub outcome: String,
    /// Whether this attempt became (or stayed) the high-water mark.
    pub best: bool,
    /// Whether it was undone (the code went back to the best attempt).
    pub rolled_back: bool,
    /// Its position among the run's effective records.
    pub pos: usize,
}

/// A coder's final implementation.
#[derive(Clone, Debug)]
pub struct Implementation {
    /// Whose it is.
    pub coder: String,
    /// `(relative path, text)`, sorted by path.
    pub files: Vec<(String, String)>,
}

impl Implementation {
    /// All files as one text (with a header line per file when there are several).
    pub fn text(&self) -> String {
        match self.files.as_slice() {
            [(_, t)] => t.clone(),
            files => files
                .iter()
                .map(|(p, t)| format!("# ---- {p} ----\n{t}"))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// Everything the run report shows.
pub struct RunView<'a> {
    /// The journal it was folded from.
    pub journal: &'a JournalFile,
    /// The run's summary (with the disagreements, when computed).
    pub summary: &'a Summary,
    /// The run directory.
    pub run_dir: PathBuf,
    /// The project folder of the acceptance suite, when the protocol shows coders one (the
    /// suite is then that folder's tests).
    pub acceptance: Option<PathBuf>,
    /// The agents, by role, in order.
    pub coders: Vec<String>,
    /// Coders a person left behind (while folding: those left behind so far).
    pub left_behind: Vec<String>,
    /// The testers, in order.
    pub testers: Vec<String>,
    /// The reviewers, in order.
    pub reviewers: Vec<String>,
    /// How the run stopped, and in which round (none: it did not).
    pub stop: Option<(StopReason, u32)>,
    /// Rounds (or epochs).
    pub rounds: Vec<RoundView>,
    /// Every classification of a proposed test, or trial of a written one, in order.
    pub proposals: Vec<ProposalView>,
    /// The final suite (the acceptance suite, if the protocol has one).
    pub suite: Vec<SuiteTest>,
    /// Per coder, every check of its code against the suite.
    pub attempts: BTreeMap<String, Vec<AttemptView>>,
    /// Hidden test file names, in the order their verdicts are journaled.
    pub hidden_tests: Vec<String>,
    /// Per coder, its verdict on each hidden test.
    pub hidden: BTreeMap<String, Vec<CellRecord>>,
    /// Per coder, its verdict on each suite test at the end of the run (`None`: never run).
    pub final_cells: BTreeMap<String, Vec<Option<CellRecord>>>,
    /// The coders' final code, from `implementations/` (coders without any are left out).
    pub implementations: Vec<Implementation>,
    /// Per agent, the models its replies came from.
    pub models: BTreeMap<String, Vec<String>>,
    /// Milliseconds since the epoch of the first and last event.
    pub span: Option<(u64, u64)>,
    /// The test file extension of the run (`py`, `c`, ...).
    pub test_ext: String,
    /// What `dixit exec` needs beyond solution, test and seed to run a test as the run did:
    /// the run's limits where they are not exec's defaults, and the stated interface.
    pub exec_flags: Vec<String>,
}

/// The `dixit exec` flags that make a run of `config`'s tests as the run made them (see
/// [`RunView::exec_flags`]). C/C++ headers are named under `PROJECT/`, the project's folder.
fn exec_flags(config: &Config, spec: &str) -> Vec<String> {
    let (run, default) = (config.limits.limits(), crate::sandbox::Limits::default());
    let mut out = Vec::new();
    if run.fuel != default.fuel {
        out.push(format!("--fuel {}", run.fuel));
    }
    if run.memory_bytes != default.memory_bytes {
        out.push(format!("--memory {}", run.memory_bytes >> 20));
    }
    if run.output_bytes != default.output_bytes {
        out.push(format!("--output-limit {}", run.output_bytes));
    }
    if run.wall_time_ms != default.wall_time_ms {
        out.push(format!("--wall-time {}", run.wall_time_ms));
    }
    match config.stated_interface(Path::new("PROJECT"), spec) {
        crate::toolchain::StatedInterface::Headers(h) => out.extend(
            h.iter()
                .map(|p| format!("--interface {}", shell_word(&p.display().to_string()))),
        ),
        crate::toolchain::StatedInterface::Items(items)
        | crate::toolchain::StatedInterface::Names(items) => out.extend(
            items
                .iter()
                .map(|i| format!("--interface {}", shell_word(i))),
        ),
        crate::toolchain::StatedInterface::None => {}
    }
    out
}

/// A string made safe for an element id (the page escapes everything anyway).
pub fn slug(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl<'a> RunView<'a> {
    /// Folds the journal of a run of `protocol` (its trials and its acceptance suite read as
    /// it says) and reads `run_dir/implementations/`: the view the page and the JUnit export
    /// render.
    pub fn new(
        journal: &'a JournalFile,
        summary: &'a Summary,
        run_dir: &Path,
        protocol: &dyn ProtocolData,
    ) -> RunView<'a> {
        let records = journal.effective();
        let config = crate::config::Config::parse(&journal.project.config, &journal.path).ok();
        let test_ext = config
            .as_ref()
            .map_or_else(|| "py".into(), |c| c.test_kind().extension().to_string());
        let acceptance = config
            .as_ref()
            .and_then(|c| protocol.acceptance(c).ok().flatten());
        let mut v = RunView {
            journal,
            summary,
            run_dir: run_dir.to_path_buf(),
            acceptance,
            coders: Vec::new(),
            left_behind: Vec::new(),
            testers: Vec::new(),
            reviewers: Vec::new(),
            stop: journal.stop(),
            rounds: Vec::new(),
            proposals: Vec::new(),
            suite: Vec::new(),
            attempts: BTreeMap::new(),
            hidden_tests: journal
                .project
                .hidden
                .keys()
                .filter(|n| n.rsplit('.').next() == Some(test_ext.as_str()))
                .cloned()
                .collect(),
            hidden: BTreeMap::new(),
            final_cells: BTreeMap::new(),
            implementations: Vec::new(),
            models: BTreeMap::new(),
            span: records.first().zip(records.last()).map(|(a, b)| (a.t, b.t)),
            test_ext,
            exec_flags: config
                .as_ref()
                .map(|c| exec_flags(c, &journal.project.spec))
                .unwrap_or_default(),
        };
        let mut round = 0u32;
        // Per lane: the last reply's purpose, and the proposal waiting for its author's next
        // reply (a retry's prompt is the nudge).
        let mut last_purpose: BTreeMap<String, String> = BTreeMap::new();
        let mut awaiting_nudge: BTreeMap<String, usize> = BTreeMap::new();
        // Per lane: the attempt whose outcome the next events decide.
        let mut open_attempt: BTreeMap<String, usize> = BTreeMap::new();
        // (round, author) → ids admitted, in order.
        let mut admitted: BTreeMap<(u32, String), Vec<String>> = BTreeMap::new();
        // Replies by (agent, call): their files.
        let mut files: BTreeMap<(String, u64), (String, Option<String>)> = BTreeMap::new();
        let mut suite_added_at: Vec<usize> = Vec::new();

        for (pos, r) in records.iter().enumerate() {
            let lane = r.lane.as_str();
            match &r.event {
                Event::Decision {
                    choice: Choice::LeaveBehind { coder },
                    ..
                } => v.left_behind.push(coder.clone()),
                Event::Started {
                    coders,
                    testers,
                    reviewers,
                    ..
                } => {
                    v.coders = coders.clone();
                    v.testers = testers.clone();
                    v.reviewers = reviewers.clone();
                }
                Event::Round { round: n, suite } | Event::Epoch { epoch: n, suite } => {
                    round = *n;
                    v.rounds.push(RoundView {
                        number: *n,
                        suite_at_start: *suite,
                        ..Default::default()
                    });
                }
                Event::Reply {
                    call,
                    purpose,
                    prompt,
                    files: fw,
                    model,
                    ..
                } => {
                    if let Some(k) = awaiting_nudge.remove(lane) {
                        if purpose == "retry" {
                            v.proposals[k].nudge = Some(prompt.clone());
                        }
                    }
                    open_attempt.remove(lane);
                    last_purpose.insert(lane.to_string(), purpose.clone());
                    if let Some(f) = fw.iter().find(|f| f.content.is_some()) {
                        files.insert(
                            (lane.to_string(), *call),
                            (f.path.clone(), f.content.clone()),
                        );
                    }
                    let models = v.models.entry(lane.to_string()).or_default();
                    if !models.contains(model) {
                        models.push(model.clone());
                    }
                }
                Event::Classified {
                    test,
                    class,
                    failures,
                    pool,
                    build_error,
                    cells,
                } => {
                    let revival = v.proposals.iter().any(|p| p.id == *test);
                    let k = v.push_proposal(
                        test,
                        lane,
                        round,
                        &last_purpose,
                        &files,
                        Outcome::Class(*class),
                        *failures,
                        *pool,
                        cells,
                        build_error,
                    );
                    v.proposals[k].revival = revival;
                    if let Some(rv) = v.rounds.last_mut() {
                        crate::outcome::bump(&mut rv.classes, *class);
                    }
                    awaiting_nudge.insert(lane.to_string(), k);
                }
                Event::Protocol(o) => {
                    let Some(Trial {
                        test,
                        kept,
                        failed_by,
                        build_error,
                        cells,
                    }) = protocol.trial(o)
                    else {
                        continue;
                    };
                    let (test, kept, failed_by, build_error, cells) =
                        (&test, &kept, &failed_by, &build_error, &cells);
                    let k = v.push_proposal(
                        test,
                        lane,
                        round,
                        &last_purpose,
                        &files,
                        if *kept {
                            Outcome::Kept
                        } else {
                            Outcome::NotKept
                        },
                        failed_by.len(),
                        cells.len(),
                        cells,
                        build_error,
                    );
                    v.proposals[k].failed_by = failed_by.clone();
                    if *kept {
                        admitted
                            .entry((round, lane.to_string()))
                            .or_default()
                            .push(test.clone());
                    }
                }
                Event::Accepted { test } => {
                    admitted
                        .entry((round, lane.to_string()))
                        .or_default()
                        .push(test.clone());
                }
                Event::SuiteChanged { added, removed, .. } => {
                    // A test a person dropped leaves the suite (and the coders' later vectors).
                    while let Some(k) = v.suite.iter().position(|t| removed.contains(&t.number)) {
                        v.suite.remove(k);
                        suite_added_at.remove(k);
                    }
                    for e in added {
                        let id = admitted
                            .get_mut(&(round, e.author.clone()))
                            .and_then(|ids| (!ids.is_empty()).then(|| ids.remove(0)));
                        let classified = |admits: bool| {
                            id.as_ref().and_then(|id| {
                                v.proposals
                                    .iter()
                                    .rposition(|p| p.id == *id && (p.outcome.admits() || !admits))
                            })
                        };
                        // A woken tester's test joined on a person's word, after a TOO_HARD.
                        let woken = classified(true).is_none() && classified(false).is_some();
                        let admitted_by = classified(true).or(classified(false));
                        if let Some(k) = admitted_by {
                            v.proposals[k].suite_number = Some(e.number);
                        }
                        v.suite.push(SuiteTest {
                            number: e.number,
                            author: e.author.clone(),
                            file: e.file.clone(),
                            source: e.source.clone(),
                            round,
                            admitted_by,
                            woken,
                        });
                        suite_added_at.push(pos);
                    }
                    if let Some(rv) = v.rounds.last_mut() {
                        rv.added += added.len();
                    }
                }
                Event::Judged {
                    vector,
                    build_error,
                    cells,
                } if v.coders.iter().any(|c| c == lane) => {
                    let j = Judged {
                        vector: vector.clone(),
                        build_error: build_error.clone(),
                        cells: cells.clone(),
                    };
                    if let Some(rv) = v.rounds.last_mut() {
                        rv.judged.insert(lane.to_string(), j.clone());
                    }
                    let all = j.build_error.is_none() && j.vector.iter().all(|p| *p);
                    let j_empty = j.vector.is_empty();
                    let list = v.attempts.entry(lane.to_string()).or_default();
                    list.push(AttemptView {
                        round,
                        purpose: last_purpose.get(lane).cloned().unwrap_or_default(),
                        judged: j,
                        outcome: if all && j_empty {
                            "builds (the suite is empty)".into()
                        } else if all {
                            "passes every test".into()
                        } else {
                            "fails some tests".into()
                        },
                        best: all,
                        rolled_back: false,
                        pos,
                    });
                    open_attempt.insert(lane.to_string(), list.len() - 1);
                }
                Event::Checkpoint { .. } => {
                    if let Some(&k) = open_attempt.get(lane) {
                        if let Some(a) = v.attempts.get_mut(lane).and_then(|l| l.get_mut(k)) {
                            a.outcome = "kept: the best so far".into();
                            a.best = true;
                        }
                    }
                }
                Event::Rollback { why, .. } => {
                    if let Some(k) = open_attempt.remove(lane) {
                        if let Some(a) = v.attempts.get_mut(lane).and_then(|l| l.get_mut(k)) {
                            a.outcome = format!("rolled back: {why}");
                            a.best = false;
                            a.rolled_back = true;
                        }
                    }
                }
                Event::Attempt { outcome, .. } => {
                    // An attempt says what its high-water mark did in so many words.
                    if let Some(a) = v.attempts.get_mut(lane).and_then(|l| l.last_mut()) {
                        a.outcome = match outcome.as_str() {
                            "reverted" => {
                                "reverted: a regression, the best attempt went back to disk".into()
                            }
                            "kept" => "kept: the best so far".into(),
                            _ => a.outcome.clone(),
                        };
                        a.best = outcome != "reverted";
                        a.rolled_back = outcome == "reverted";
                    }
                }
                Event::Hidden { cells, .. } => {
                    v.hidden.insert(lane.to_string(), cells.clone());
                }
                Event::Stop { round: n, .. } if lane == RUN_LANE => round = *n,
                _ => {}
            }
        }
        if v.acceptance.is_some() {
            v.suite = journal
                .project
                .acceptance
                .iter()
                .filter(|(n, _)| n.rsplit('.').next() == Some(v.test_ext.as_str()))
                .enumerate()
                .map(|(i, (name, source))| SuiteTest {
                    number: i + 1,
                    author: "acceptance".into(),
                    file: name.clone(),
                    source: source.clone(),
                    round: 0,
                    admitted_by: None,
                    woken: false,
                })
                .collect();
        }
        v.final_cells = v.final_verdicts(&suite_added_at);
        v.implementations = read_implementations(run_dir, &v.coders);
        v
    }

    #[expect(clippy::too_many_arguments)]
    fn push_proposal(
        &mut self,
        test: &str,
        lane: &str,
        round: u32,
        last_purpose: &BTreeMap<String, String>,
        files: &BTreeMap<(String, u64), (String, Option<String>)>,
        outcome: Outcome,
        failures: usize,
        pool: usize,
        cells: &[CellRecord],
        build_error: &Option<String>,
    ) -> usize {
        // The pool: the coders when every one had a solution (in order), else numbered.
        let staying: Vec<String> = self
            .coders
            .iter()
            .filter(|c| !self.left_behind.contains(c))
            .cloned()
            .collect();
        let pool_names: Vec<String> = if pool == self.coders.len() {
            self.coders.clone()
        } else if pool == staying.len() {
            staying
        } else {
            (1..=pool).map(|k| format!("solution {k}")).collect()
        };
        let call = test
            .rsplit_once('#')
            .and_then(|(_, c)| c.parse::<u64>().ok());
        let (file, source) = call
            .and_then(|c| files.get(&(lane.to_string(), c)).cloned())
            .unwrap_or_default();
        let failed_by = if pool_names.len() == cells.len() {
            pool_names
                .iter()
                .zip(cells)
                .filter(|(_, c)| c.v != crate::sandbox::VerdictKind::Pass)
                .map(|(n, _)| n.clone())
                .collect()
        } else {
            Vec::new()
        };
        self.proposals.push(ProposalView {
            id: test.to_string(),
            author: lane.to_string(),
            round,
            purpose: last_purpose.get(lane).cloned().unwrap_or_default(),
            file,
            source,
            outcome,
            failures,
            pool,
            failed_by,
            cells: cells.to_vec(),
            pool_names,
            build_error: build_error.clone(),
            nudge: None,
            revival: false,
            suite_number: None,
        });
        self.proposals.len() - 1
    }

    /// Each coder's verdict on each suite test at the end: its last check when that covered
    /// the test; else, for a test admitted after that check (a run capped right after the
    /// suite grew), the verdict of the classification that admitted it, which ran against the
    /// same code.
    fn final_verdicts(
        &self,
        suite_added_at: &[usize],
    ) -> BTreeMap<String, Vec<Option<CellRecord>>> {
        let mut out = BTreeMap::new();
        for coder in &self.coders {
            let last = self.final_attempt(coder);
            let judged_at = last.map(|a| a.pos);
            let last = last.map(|a| &a.judged);
            let cells = self
                .suite
                .iter()
                .enumerate()
                .map(|(j, t)| {
                    let from_check = last.and_then(|l| {
                        if l.build_error.is_some() && j < l.vector.len() {
                            return Some(CellRecord {
                                v: crate::sandbox::VerdictKind::CompileError,
                                side: None,
                                seed: 0,
                                fuel: 0,
                                exit: None,
                                runs: 0,
                                skipped: 0,
                                evidence: None,
                            });
                        }
                        l.cells.get(j).cloned()
                    });
                    let later = match (judged_at, suite_added_at.get(j)) {
                        (Some(a), Some(b)) => b > &a,
                        (None, _) => true,
                        _ => false,
                    };
                    if from_check.is_some() && !later {
                        return from_check;
                    }
                    let p = t.admitted_by.map(|k| &self.proposals[k])?;
                    let i = p.pool_names.iter().position(|n| n == coder)?;
                    p.cells.get(i).cloned()
                })
                .collect();
            out.insert(coder.clone(), cells);
        }
        out
    }

    /// Where suite test `t` is, as `dixit exec --test` takes it from the run directory: in
    /// `suite/`, or the project's acceptance folder (`PROJECT/tests/...`).
    pub fn suite_test_path(&self, t: &SuiteTest) -> String {
        match &self.acceptance {
            Some(dir) => format!("PROJECT/{}/{}", dir.display(), t.file),
            None => format!("suite/{}", t.file),
        }
    }

    /// The command that runs `test` (a path from [`RunView::suite_test_path`], or
    /// `PROJECT/hidden/NAME`) against `coder`'s final code with `seed` again, from the run
    /// directory, as the run ran it.
    pub fn exec_command(&self, coder: &str, test: &str, seed: u64) -> String {
        let mut cmd = format!(
            "dixit exec --solution {} --test {} --seed {seed}",
            shell_word(&format!("implementations/{coder}")),
            shell_word(test)
        );
        for f in &self.exec_flags {
            cmd.push(' ');
            cmd.push_str(f);
        }
        cmd
    }

    /// The check of the code a coder ended with: its last attempt that was not rolled back
    /// (after a rollback the code on disk is the best attempt's).
    pub fn final_attempt(&self, coder: &str) -> Option<&AttemptView> {
        self.attempts
            .get(coder)?
            .iter()
            .rev()
            .find(|a| !a.rolled_back)
    }

    /// The proposals that did not join the suite (each classification once).
    pub fn rejected(&self) -> Vec<&ProposalView> {
        self.proposals
            .iter()
            .filter(|p| !p.outcome.admits())
            .collect()
    }
}

/// Reads `run_dir/implementations/<coder>/` (every file, as text).
fn read_implementations(run_dir: &Path, coders: &[String]) -> Vec<Implementation> {
    coders
        .iter()
        .filter_map(|c| {
            let dir = run_dir.join("implementations").join(c);
            let mut files = Vec::new();
            collect_files(&dir, &dir, &mut files);
            files.sort();
            (!files.is_empty()).then(|| Implementation {
                coder: c.clone(),
                files,
            })
        })
        .collect()
}

fn collect_files(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            collect_files(root, &p, out);
        } else if meta.is_file() && meta.len() <= 1 << 20 {
            let rel = p
                .strip_prefix(root)
                .map(|r| r.display().to_string())
                .unwrap_or_default();
            let text = std::fs::read(&p)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            out.push((rel, text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(toml: &str) -> Vec<String> {
        exec_flags(
            &Config::parse(toml, Path::new("dixit.toml")).unwrap(),
            "Write `f(x)`.",
        )
    }

    /// The run's limits where they differ from `dixit exec`'s defaults, and its interface.
    #[test]
    fn exec_flags_repeat_what_the_run_used() {
        assert_eq!(
            flags("[project]\nlanguage = \"python\"\n"),
            ["--interface f"],
            "a Python interface from the spec"
        );
        assert_eq!(
            flags("[project]\nlanguage = \"c\"\ninterface = \"interface/solution.h\"\n[limits]\nfuel = 1000\nmemory_mb = 64\n"),
            ["--fuel 1000", "--memory 64", "--interface PROJECT/interface/solution.h"]
        );
        assert_eq!(
            flags("[project]\nlanguage = \"rust\"\ninterface = [\"add: fn(i32, i32) -> i32\", \"len: fn(&[u8]) -> usize\"]\n"),
            ["--interface 'add: fn(i32, i32) -> i32'", "--interface 'len: fn(&[u8]) -> usize'"]
        );
    }
}
