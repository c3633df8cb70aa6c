//! The comparison page's figures, computed once from a [`CompareReport`]: per group of
//! projects (development, held out) and protocol the pass rate with its interval, how the runs
//! ended, and what they cost; the paired differences against the control; and the problem ×
//! protocol grid with each cell's mark, hover text and link. The markup (`page.rs`) reads only
//! this, and the sums are the text table's own ([`totals`]), so the page and `dixit compare`'s
//! table cannot disagree.

use std::path::Path;

use super::link::run_page_href;
use crate::config::Arm;
use crate::outcome::{Basis, CellResult, CellRun, CompareCell, CompareReport};
use crate::report::compare::{
    paired_with_control, protocol_settings, totals, SettingsSets, CONTROL, MIN_PAIRED,
};
use crate::stats::{Paired, Rate};

/// What the page shows, computed from a comparison.
#[derive(Debug)]
pub struct PageModel {
    /// Projects compared, and how many of them are held out.
    pub projects: usize,
    /// Projects held out (`--holdout`).
    pub held_out: usize,
    /// The protocols, in the comparison's order, each with what its runs ship (when known).
    pub protocols: Vec<(Arm, Option<&'static str>)>,
    /// Development projects (all projects when none is held out), then held-out ones.
    pub groups: Vec<Group>,
    /// Each protocol against `CONTROL` on the development projects (none without it).
    pub paired: Vec<PairedRow>,
    /// Whether `CONTROL` is one of the protocols.
    pub has_control: bool,
    /// What the cost plot counts.
    pub cost: CostUnit,
    /// What each protocol's runs ran with: each distinct set of settings lines and how many
    /// runs had it (none for a comparison kept before cells carried them).
    pub settings: Vec<(Arm, SettingsSets)>,
}

/// Projects reported together.
#[derive(Debug)]
pub struct Group {
    /// `all projects`, `development` or `held out`.
    pub label: &'static str,
    /// A short key for element ids (`all`, `dev`, `held`).
    pub key: &'static str,
    /// One entry per protocol, in the comparison's order.
    pub protocols: Vec<ProtocolFigures>,
    /// One row per project, in the comparison's order.
    pub rows: Vec<GridRow>,
}

/// One protocol over a group's projects.
#[derive(Debug)]
pub struct ProtocolFigures {
    /// The protocol arm.
    pub protocol: Arm,
    /// The share of problems whose shipped implementation passes every hidden test, over the
    /// problems with hidden tests, with its 95 % Wilson interval.
    pub rate: Rate,
    /// How its cells ended.
    pub stops: StopCounts,
    /// Totals over the cells that ran.
    pub calls: u64,
    /// Prompt and completion tokens.
    pub tokens: u64,
    /// Cost in US dollars.
    pub usd: f64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// What its shipped implementations rest on: per [`Basis`] (in [`Basis::ALL`]'s order),
    /// how many pass every hidden test and how many fail one (cells without a decision or
    /// hidden tests are not counted).
    pub bases: Vec<BasisCount>,
}

/// Shipped implementations that rest on one [`Basis`], by what the hidden tests said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BasisCount {
    pub basis: Basis,
    pub pass: usize,
    pub fail: usize,
}

impl ProtocolFigures {
    /// The mean of `unit` per cell that ran (none ran: none).
    pub fn mean(&self, unit: CostUnit) -> Option<f64> {
        let n = self.stops.ran();
        let total = match unit {
            CostUnit::Tokens => self.tokens,
            CostUnit::Calls => self.calls,
        };
        (n > 0).then(|| total as f64 / n as f64)
    }
}

/// How one protocol's cells ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StopCounts {
    /// Ran to a result with nothing to decide first.
    pub done: usize,
    /// Stopped for human judgement.
    pub human_needed: usize,
    /// Stopped by a cap (rounds, budget).
    pub capped: usize,
    /// Stopped by a failure outside dixit (a backend).
    pub run_failed: usize,
    /// Stopped by a signal.
    pub interrupted: usize,
    /// Ended some other way (an exit this version does not name).
    pub other: usize,
    /// Did not run: the run failed to start or broke.
    pub not_run: usize,
    /// Did not run: the protocol cannot run on the project.
    pub skipped: usize,
}

impl StopCounts {
    /// Cells that ran.
    pub fn ran(&self) -> usize {
        self.done
            + self.human_needed
            + self.capped
            + self.run_failed
            + self.interrupted
            + self.other
    }

    fn add(&mut self, result: &CellResult) {
        match result {
            CellResult::Ran(run) => match StopKind::of(run) {
                StopKind::Done => self.done += 1,
                StopKind::HumanNeeded => self.human_needed += 1,
                StopKind::Capped => self.capped += 1,
                StopKind::Failed => self.run_failed += 1,
                StopKind::Interrupted => self.interrupted += 1,
                StopKind::Other => self.other += 1,
            },
            CellResult::Failed { .. } => self.not_run += 1,
            CellResult::Skipped { .. } => self.skipped += 1,
        }
    }
}

/// How a run ended, from its exit class (`CellRun::exit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopKind {
    /// A result to look at, nothing to decide first.
    Done,
    /// A person must judge.
    HumanNeeded,
    /// A cap stopped the run.
    Capped,
    /// Something outside dixit failed (a backend).
    Failed,
    /// Someone stopped the run (a signal).
    Interrupted,
    /// An exit class this version does not name.
    Other,
}

impl StopKind {
    /// The kind of `run`'s stop.
    pub fn of(run: &CellRun) -> StopKind {
        match run.exit.as_str() {
            "done" => StopKind::Done,
            "human_needed" => StopKind::HumanNeeded,
            "capped" => StopKind::Capped,
            "failed" => StopKind::Failed,
            "interrupted" => StopKind::Interrupted,
            _ => StopKind::Other,
        }
    }

    /// In words, as the grid shows it (nothing for a run that ended normally).
    pub fn words(self) -> &'static str {
        match self {
            StopKind::Done => "",
            StopKind::HumanNeeded => "human stop",
            StopKind::Capped => "capped",
            StopKind::Failed => "run failed",
            StopKind::Interrupted => "interrupted",
            StopKind::Other => "other stop",
        }
    }

    /// Its `data-stop` value.
    pub fn key(self) -> &'static str {
        match self {
            StopKind::Done => "done",
            StopKind::HumanNeeded => "human_needed",
            StopKind::Capped => "capped",
            StopKind::Failed => "failed",
            StopKind::Interrupted => "interrupted",
            StopKind::Other => "other",
        }
    }
}

/// What a grid cell shows first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// The shipped implementation passes every hidden test (✓).
    Pass,
    /// It fails one (✗).
    Fail,
    /// The run ran, but nothing was judged (no hidden tests, or nothing shipped).
    Unjudged,
    /// The protocol cannot run on the project.
    Skipped,
    /// The run failed to start or broke.
    Failed,
    /// The comparison has no such cell (a report that is not whole).
    Missing,
}

impl Mark {
    /// The symbol or word shown.
    pub fn shown(self) -> &'static str {
        match self {
            Mark::Pass => "✓",
            Mark::Fail => "✗",
            Mark::Unjudged => "–",
            Mark::Skipped => "skipped",
            Mark::Failed => "failed",
            Mark::Missing => "",
        }
    }

    /// Its `data-mark` value.
    pub fn key(self) -> &'static str {
        match self {
            Mark::Pass => "pass",
            Mark::Fail => "fail",
            Mark::Unjudged => "unjudged",
            Mark::Skipped => "skipped",
            Mark::Failed => "failed",
            Mark::Missing => "missing",
        }
    }

    /// The cell's colour class (the verdict colours: pass, wrong answer, none, compile error,
    /// internal error).
    pub fn class(self) -> &'static str {
        match self {
            Mark::Pass => "v-P",
            Mark::Fail => "v-W",
            Mark::Unjudged | Mark::Missing => "v-X",
            Mark::Skipped => "v-C",
            Mark::Failed => "v-I",
        }
    }
}

/// One (project, protocol) cell of the grid.
#[derive(Debug)]
pub struct GridCell {
    /// The protocol arm.
    pub protocol: Arm,
    /// What the cell shows first.
    pub mark: Mark,
    /// How the run ended, when it ran.
    pub stop: Option<StopKind>,
    /// The run's page, relative to the comparison page where possible; none when nothing ran.
    pub href: Option<String>,
    /// The hover text: the stop (or why nothing ran), calls, seconds.
    pub title: String,
}

/// One project's row of the grid.
#[derive(Debug)]
pub struct GridRow {
    /// The project's name.
    pub project: String,
    /// One cell per protocol arm, in the comparison's order.
    pub cells: Vec<GridCell>,
}

/// One protocol against `CONTROL`, problem by problem.
#[derive(Debug)]
pub struct PairedRow {
    /// The protocol arm.
    pub protocol: Arm,
    /// Its problem-by-problem comparison with `CONTROL`.
    pub paired: Paired,
}

impl PairedRow {
    /// Whether there are pairs enough for the bootstrap interval (`MIN_PAIRED`).
    pub fn has_interval(&self) -> bool {
        self.paired.n >= MIN_PAIRED
    }
}

/// What the cost plot's x axis counts per problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostUnit {
    /// Prompt and completion tokens (when any run counted some).
    Tokens,
    /// Model calls (runs that count no tokens: scripted or recorded agents).
    Calls,
}

impl CostUnit {
    /// Its name on the axis.
    pub fn words(self) -> &'static str {
        match self {
            CostUnit::Tokens => "tokens",
            CostUnit::Calls => "calls",
        }
    }
}

impl PageModel {
    /// The figures of `r`, for a page written in `page_dir`; `shipped_rule` says what each
    /// protocol's runs ship (none for a protocol this version does not know).
    pub fn new(
        r: &CompareReport,
        page_dir: &Path,
        shipped_rule: &dyn Fn(&Arm) -> Option<&'static str>,
    ) -> PageModel {
        let held: Vec<&String> = r
            .projects
            .iter()
            .filter(|p| r.cells.iter().any(|c| &c.project == *p && c.holdout))
            .collect();
        let groups = if held.is_empty() {
            vec![group(r, page_dir, "all projects", "all", false)]
        } else {
            vec![
                group(r, page_dir, "development", "dev", false),
                group(r, page_dir, "held out", "held", true),
            ]
        };
        let tokens = r
            .cells
            .iter()
            .any(|c| matches!(&c.result, CellResult::Ran(run) if run.prompt_tokens + run.completion_tokens > 0));
        PageModel {
            projects: r.projects.len(),
            held_out: held.len(),
            protocols: r
                .protocols
                .iter()
                .map(|p| (p.clone(), shipped_rule(p)))
                .collect(),
            groups,
            paired: paired_with_control(r)
                .into_iter()
                .map(|(protocol, paired)| PairedRow { protocol, paired })
                .collect(),
            has_control: r.protocols.iter().any(|p| p.as_str() == CONTROL),
            cost: if tokens {
                CostUnit::Tokens
            } else {
                CostUnit::Calls
            },
            settings: protocol_settings(r),
        }
    }
}

/// The group of development (`holdout` false) or held-out projects.
fn group(
    r: &CompareReport,
    page_dir: &Path,
    label: &'static str,
    key: &'static str,
    holdout: bool,
) -> Group {
    let protocols = r
        .protocols
        .iter()
        .map(|p| {
            let t = totals(r, p, holdout);
            let mut stops = StopCounts::default();
            let mut bases: Vec<BasisCount> = Basis::ALL
                .iter()
                .map(|&basis| BasisCount {
                    basis,
                    pass: 0,
                    fail: 0,
                })
                .collect();
            for c in r
                .cells
                .iter()
                .filter(|c| &c.protocol == p && c.holdout == holdout)
            {
                stops.add(&c.result);
                if let CellResult::Ran(run) = &c.result {
                    if let (Some(d), Some(pass)) = (&run.decision, run.shipped_passes) {
                        if let Some(b) = bases.iter_mut().find(|b| b.basis == d.basis) {
                            *(if pass { &mut b.pass } else { &mut b.fail }) += 1;
                        }
                    }
                }
            }
            ProtocolFigures {
                protocol: p.clone(),
                rate: Rate::of(t.shipped_pass, t.judged),
                stops,
                calls: t.calls,
                tokens: t.tokens,
                usd: t.usd,
                seconds: t.seconds,
                bases,
            }
        })
        .collect();
    // A project belongs where its cells say; one with no cell at all is a development one.
    let in_group = |project: &String| {
        r.cells
            .iter()
            .find(|c| &c.project == project)
            .map_or(!holdout, |c| c.holdout == holdout)
    };
    let rows = r
        .projects
        .iter()
        .filter(|p| in_group(p))
        .map(|project| GridRow {
            project: project.clone(),
            cells: r
                .protocols
                .iter()
                .map(|protocol| {
                    let cell = r
                        .cells
                        .iter()
                        .find(|c| &c.project == project && &c.protocol == protocol);
                    grid_cell(cell, project, protocol, page_dir)
                })
                .collect(),
        })
        .collect();
    Group {
        label,
        key,
        protocols,
        rows,
    }
}

/// The grid cell of `cell` (none: the comparison lacks it).
fn grid_cell(
    cell: Option<&CompareCell>,
    project: &str,
    protocol: &Arm,
    page_dir: &Path,
) -> GridCell {
    let at = format!("{project} × {protocol}");
    let Some(cell) = cell else {
        return GridCell {
            protocol: protocol.clone(),
            mark: Mark::Missing,
            stop: None,
            href: None,
            title: format!("{at}: not in this comparison"),
        };
    };
    match &cell.result {
        CellResult::Ran(run) => {
            let stop = StopKind::of(run);
            let shipped = match (&run.shipped, run.shipped_passes) {
                (Some(c), Some(true)) => format!("{c} shipped, passes every hidden test"),
                (Some(c), Some(false)) => format!("{c} shipped, fails a hidden test"),
                (Some(c), None) => format!("{c} shipped, no hidden tests"),
                (None, _) => "nothing shipped".into(),
            };
            GridCell {
                protocol: protocol.clone(),
                mark: match run.shipped_passes {
                    Some(true) => Mark::Pass,
                    Some(false) => Mark::Fail,
                    None => Mark::Unjudged,
                },
                stop: Some(stop),
                href: Some(run_page_href(page_dir, &run.run_dir)),
                title: format!(
                    "{at}: {} · {shipped}{} · {} · {:.1} s",
                    run.stop,
                    run.decision
                        .as_ref()
                        .map(|d| format!(" ({}: {})", d.basis.words(), d.words))
                        .unwrap_or_default(),
                    crate::english::plural(run.calls as usize, "call", "calls"),
                    run.seconds
                ),
            }
        }
        CellResult::Skipped { why } => GridCell {
            protocol: protocol.clone(),
            mark: Mark::Skipped,
            stop: None,
            href: None,
            title: format!("{at}: skipped: {why}"),
        },
        CellResult::Failed { error } => GridCell {
            protocol: protocol.clone(),
            mark: Mark::Failed,
            stop: None,
            href: None,
            title: format!("{at}: failed to run: {error}"),
        },
    }
}
