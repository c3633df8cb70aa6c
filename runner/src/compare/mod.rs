//! `dixit compare`: several protocols over several projects, the experiment the seeds ask for.
//! Each (project, protocol) cell is an ordinary run (its own run directory: resumable,
//! replayable), with the project's agents and seeds; what the cells found is a
//! [`CompareReport`] (defined in `report/compare.rs` with its table), tabulated by hidden-test
//! results, calls, tokens, cost and time (`crate::report::compare_table`).
//!
//! Cells are numbered project-major; `--shard i/n` runs cell `k` when `k % n == i - 1`, so an
//! array job can spread them, and [`merge`] joins the shards' reports.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{Project, ProtocolName};
use crate::engine::{self, BackendFactory, Interrupt, Observer};
use crate::eval::Shard;
use crate::journal::ExitClass;
use crate::report::{
    describe_stop, exit_class, Cell, CellResult, CellRun, CompareReport, COMPARE_FORMAT,
};
use crate::toolchain::Toolchains;

/// The file `--out DIR` saves an unsharded (or merged) comparison in.
pub const COMPARE_FILE: &str = "compare.json";

/// Why a comparison could not be set up, or shards not merged.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error("{path}: {message}")]
    Input { path: PathBuf, message: String },
    #[error("the shards do not belong together: {0}")]
    Mismatch(String),
    #[error("cell {index} ({project}, {protocol}) is missing: no shard ran it")]
    Missing {
        index: usize,
        project: String,
        protocol: ProtocolName,
    },
}

/// What to compare.
pub struct Plan {
    pub projects: Vec<PathBuf>,
    pub protocols: Vec<ProtocolName>,
    /// Project names (folder names or paths as given) that are held out.
    pub holdout: Vec<String>,
    pub shard: Option<Shard>,
    /// Where the cells' runs go (`DIR/<project>/<run id>`); default: each project's `runs/`.
    pub runs_dir: Option<PathBuf>,
}

/// A project's name in the table: its folder's name.
pub fn project_name(dir: &Path) -> String {
    std::path::absolute(dir)
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| dir.display().to_string())
}

/// Reads a `--holdout` file: one project name or path a line (`#` comments).
pub fn read_holdout(path: &Path) -> Result<Vec<String>, CompareError> {
    let text = std::fs::read_to_string(path).map_err(|e| CompareError::Input {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok(text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| project_name(Path::new(l)))
        .collect())
}

/// Runs the plan's cells (those of its shard) one after another and reports each. Raising
/// `interrupt` stops the cell that runs (resumably, like any run) and runs no other: the report
/// then holds only the cells that ran.
pub async fn compare(
    plan: &Plan,
    toolchains: Arc<Toolchains>,
    backends: &BackendFactory,
    observer: Arc<dyn Observer>,
    interrupt: Interrupt,
) -> CompareReport {
    let mut cells = Vec::new();
    let mut index = 0;
    for dir in &plan.projects {
        let name = project_name(dir);
        for protocol in &plan.protocols {
            let k = index;
            index += 1;
            if plan.shard.is_some_and(|s| !s.contains(k)) || interrupt.is_raised() {
                continue;
            }
            let result = run_cell(
                dir,
                protocol,
                plan,
                &toolchains,
                backends,
                &observer,
                &interrupt,
            )
            .await;
            cells.push(Cell {
                index: k,
                project: name.clone(),
                protocol: protocol.clone(),
                holdout: plan.holdout.contains(&name),
                result,
            });
        }
    }
    CompareReport {
        format: COMPARE_FORMAT.into(),
        projects: plan.projects.iter().map(|p| project_name(p)).collect(),
        protocols: plan.protocols.clone(),
        shard: plan.shard,
        cells,
    }
}

async fn run_cell(
    dir: &Path,
    protocol: &ProtocolName,
    plan: &Plan,
    toolchains: &Arc<Toolchains>,
    backends: &BackendFactory,
    observer: &Arc<dyn Observer>,
    interrupt: &Interrupt,
) -> CellResult {
    let selected = Project::load(dir).and_then(|p| {
        let p = p.with_protocol(protocol.clone());
        crate::protocol::select(&p.config).map(|s| (p, s.protocol))
    });
    let (project, protocol) = match selected {
        Ok(s) => s,
        Err(e) => return CellResult::Skipped { why: e.to_string() },
    };
    if let Some(why) = protocol.lacks(&project) {
        return CellResult::Skipped { why };
    }
    let runs_dir = match &plan.runs_dir {
        Some(d) => d.join(project_name(dir)),
        None => dir.join("runs"),
    };
    let started = std::time::Instant::now();
    let outcome = engine::start(
        &project,
        protocol,
        toolchains.clone(),
        &runs_dir,
        backends,
        observer.clone(),
        interrupt.clone(),
    )
    .await;
    let seconds = started.elapsed().as_secs_f64();
    match outcome {
        Err(e) => CellResult::Failed {
            error: e.to_string(),
        },
        Ok(o) => {
            if let Some(j) = &o.journal {
                let page = crate::report::run_report::write_run_report(
                    &o.run_dir, j, &o.summary, o.protocol, None,
                );
                if let Err(e) = page {
                    return CellResult::Failed {
                        error: format!("{}: report.html: {e}", o.run_dir.display()),
                    };
                }
            }
            let s = &o.summary;
            // The implementations the run ships (all of them, but for a protocol that picks).
            let shipped = s.shipped();
            let hidden: Vec<(usize, usize)> = shipped
                .iter()
                .filter_map(|c| s.coders.get(*c)?.hidden)
                .collect();
            CellResult::Ran(CellRun {
                run_id: o.run_id.clone(),
                run_dir: o.run_dir.clone(),
                stop: describe_stop(o.protocol, &o.stop),
                exit: exit_name(exit_class(o.protocol, &o.stop)).into(),
                coders: shipped.len(),
                all_hidden: hidden.iter().filter(|(p, t)| p == t && *t > 0).count(),
                hidden_passed: hidden.iter().map(|(p, _)| p).sum(),
                hidden_total: hidden.iter().map(|(_, t)| t).sum(),
                calls: s.usage.calls,
                prompt_tokens: s.usage.prompt_tokens,
                completion_tokens: s.usage.completion_tokens,
                usd: s.usage.usd,
                seconds,
            })
        }
    }
}

fn exit_name(class: ExitClass) -> &'static str {
    match class {
        ExitClass::Done => "done",
        ExitClass::HumanNeeded => "human_needed",
        ExitClass::Capped => "capped",
        ExitClass::Failed => "failed",
        ExitClass::Interrupted => "interrupted",
    }
}

/// Joins shard reports into the report of the whole comparison: they must cover the same
/// projects and protocols, and every cell exactly once.
pub fn merge(parts: Vec<CompareReport>) -> Result<CompareReport, CompareError> {
    let first = parts
        .first()
        .ok_or_else(|| CompareError::Mismatch("no reports given".into()))?;
    let (projects, protocols) = (first.projects.clone(), first.protocols.clone());
    let mut cells: Vec<Cell> = Vec::new();
    for p in &parts {
        if p.format != COMPARE_FORMAT {
            return Err(CompareError::Mismatch(format!(
                "format `{}`, expected `{COMPARE_FORMAT}`",
                p.format
            )));
        }
        if p.projects != projects || p.protocols != protocols {
            return Err(CompareError::Mismatch(
                "they compare other projects or protocols".into(),
            ));
        }
        for c in &p.cells {
            if cells.iter().any(|x| x.index == c.index) {
                return Err(CompareError::Mismatch(format!(
                    "cell {} ({}, {}) is in two reports",
                    c.index, c.project, c.protocol
                )));
            }
            cells.push(c.clone());
        }
    }
    cells.sort_by_key(|c| c.index);
    let expected = projects.len() * protocols.len();
    for index in 0..expected {
        if !cells.iter().any(|c| c.index == index) {
            return Err(CompareError::Missing {
                index,
                project: projects[index / protocols.len()].clone(),
                protocol: protocols[index % protocols.len()].clone(),
            });
        }
    }
    Ok(CompareReport {
        format: COMPARE_FORMAT.into(),
        projects,
        protocols,
        shard: None,
        cells,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(index: usize, project: &str, protocol: ProtocolName) -> Cell {
        Cell {
            index,
            project: project.into(),
            protocol,
            holdout: false,
            result: CellResult::Skipped { why: "x".into() },
        }
    }

    fn report(shard: Shard, cells: Vec<Cell>) -> CompareReport {
        CompareReport {
            format: COMPARE_FORMAT.into(),
            projects: vec!["a".into(), "b".into()],
            protocols: vec![ProtocolName::new("one"), ProtocolName::new("two")],
            shard: Some(shard),
            cells,
        }
    }

    #[test]
    fn shards_merge_into_the_whole_and_gaps_are_named() {
        let s1 = Shard { index: 1, count: 2 };
        let s2 = Shard { index: 2, count: 2 };
        let a = report(
            s1,
            vec![
                cell(0, "a", ProtocolName::new("one")),
                cell(2, "b", ProtocolName::new("one")),
            ],
        );
        let b = report(
            s2,
            vec![
                cell(1, "a", ProtocolName::new("two")),
                cell(3, "b", ProtocolName::new("two")),
            ],
        );
        let m = merge(vec![b.clone(), a.clone()]).unwrap();
        assert_eq!(
            m.cells.iter().map(|c| c.index).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        let e = merge(vec![a.clone()]).unwrap_err().to_string();
        assert!(e.contains("cell 1 (a, two) is missing"), "{e}");
        let e = merge(vec![a.clone(), a]).unwrap_err().to_string();
        assert!(e.contains("in two reports"), "{e}");
    }
}
