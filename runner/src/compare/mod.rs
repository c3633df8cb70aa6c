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

use futures::stream::{self, StreamExt};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::{Arm, PolicyName, Project};
use crate::engine::{self, BackendFactory, Interrupt, Observer, Protocol};
use crate::eval::Shard;
use crate::journal::ExitClass;
use crate::outcome::{describe_stop, exit_class, Basis, Decision, ProtocolData, Summary};
use crate::outcome::{CellResult, CellRun, CompareCell, CompareReport, COMPARE_FORMAT};
use crate::toolchain::Toolchains;

/// The file `--out DIR` saves an unsharded (or merged) comparison in.
pub const COMPARE_FILE: &str = "compare.json";

/// Why a comparison could not be set up, or shards not merged.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// An input file could not be read.
    #[error("{path}: {message}")]
    Input {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The shards do not belong together (why).
    #[error("the shards do not belong together: {0}")]
    Mismatch(String),
    /// A cell no shard ran.
    #[error("cell {index} ({project}, {protocol}) is missing: no shard ran it")]
    Missing {
        /// Its number in the full comparison.
        index: usize,
        /// Its project.
        project: String,
        /// Its protocol arm.
        protocol: Arm,
    },
}

/// What to compare.
pub struct Plan {
    /// The projects' folders.
    pub projects: Vec<PathBuf>,
    /// The protocol arms to run on each project.
    pub protocols: Vec<Arm>,
    /// Project names (folder names or paths as given) that are held out.
    pub holdout: Vec<String>,
    /// The shard whose cells to run (none: every cell).
    pub shard: Option<Shard>,
    /// Where the cells' runs go (`DIR/<project>/<run id>`); default: each project's `runs/`.
    pub runs_dir: Option<PathBuf>,
    /// Where each finished cell's result is kept (`DIR/<protocol>/<project>.json`), so that a
    /// comparison run again (after a kill, a stop, in a new session) reuses it.
    pub cells_dir: Option<PathBuf>,
    /// Cells run at once (each a run with its own agents; bound it by what the model server
    /// serves in parallel).
    pub jobs: usize,
    /// Run nothing: report the cells kept in `cells_dir` and every other cell as
    /// [`NOT_RUN_YET`] (a look at a comparison still running, or stopped part-way).
    pub kept_only: bool,
    /// The decision policy every cell runs under, instead of its project's `[policy]`.
    pub policy: Option<PolicyName>,
}

/// Why a cell of a `kept_only` comparison has no result.
pub const NOT_RUN_YET: &str = "not run yet (only the cells kept so far are shown)";

/// A fixed random sample of `n` of the projects, drawn with `seed` (the same every time for
/// the same projects), in name order.
pub fn sample(projects: &[PathBuf], n: usize, seed: u64) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = projects.to_vec();
    all.sort_by_key(|p| project_name(p));
    all.dedup();
    all.shuffle(&mut StdRng::seed_from_u64(seed));
    all.truncate(n);
    all.sort_by_key(|p| project_name(p));
    all
}

/// A finished cell as kept on disk, with what it ran on: reused only for the same project
/// files and protocol.
#[derive(Serialize, Deserialize)]
struct KeptCell {
    /// sha256 of the project's files (not `runs/`) and the protocol's name.
    key: String,
    cell: CompareCell,
}

/// What a cell's result depends on that can change between two comparisons in one folder:
/// every file of the project (its `runs/` aside: the cells write there), by path and content,
/// the protocol's name, and the policy it runs under when the comparison sets one other than a
/// person.
fn cell_key(dir: &Path, protocol: &Arm, policy: Option<PolicyName>) -> String {
    fn walk(root: &Path, dir: &Path, h: &mut Sha256) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
        paths.sort();
        for p in paths {
            let rel = p.strip_prefix(root).unwrap_or(&p);
            if rel == Path::new("runs") {
                continue;
            }
            if p.is_dir() {
                walk(root, &p, h);
            } else {
                h.update(rel.to_string_lossy().as_bytes());
                h.update([0]);
                h.update(std::fs::read(&p).unwrap_or_default());
                h.update([0]);
            }
        }
    }
    let mut h = Sha256::new();
    walk(dir, dir, &mut h);
    h.update(protocol.as_str().as_bytes());
    if let Some(p) = policy.filter(|p| *p != PolicyName::Person) {
        h.update(b"\0policy ");
        h.update(p.as_str().as_bytes());
    }
    hex::encode(h.finalize())
}

/// Where the cell of `project` under `protocol` is kept: `DIR/<protocol>/<project>.json`, by name
/// rather than by place in the plan, so that a comparison with more projects or protocols than
/// an earlier one in the same `--out` reuses the cells they share.
fn cell_file(cells_dir: &Path, project: &str, protocol: &Arm) -> PathBuf {
    cells_dir
        .join(crate::file_name::encode(protocol.as_str()))
        .join(format!("{}.json", crate::file_name::encode(project)))
}

/// The kept result of the cell of `project` under `protocol`, if it is there and ran on the
/// same project files.
fn kept(cells_dir: &Path, project: &str, protocol: &Arm, key: &str) -> Option<CompareCell> {
    let text = std::fs::read_to_string(cell_file(cells_dir, project, protocol)).ok()?;
    let k: KeptCell = serde_json::from_str(&text).ok()?;
    (k.key == key && k.cell.project == project && &k.cell.protocol == protocol).then_some(k.cell)
}

/// Keeps a finished cell: one that ran to a stop of its own or was skipped (not a cell that
/// failed to run or was interrupted: those run again).
fn keep(cells_dir: &Path, key: String, cell: &CompareCell) -> std::io::Result<()> {
    let finished = match &cell.result {
        CellResult::Ran(r) => r.exit != "interrupted",
        CellResult::Skipped { .. } => true,
        CellResult::Failed { .. } => false,
    };
    if !finished {
        return Ok(());
    }
    let file = cell_file(cells_dir, &cell.project, &cell.protocol);
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = serde_json::to_string_pretty(&KeptCell {
        key,
        cell: cell.clone(),
    })
    .map_err(std::io::Error::other)?;
    crate::scaleout::write_atomic(&file, text.as_bytes()).map_err(std::io::Error::other)
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

/// What [`compare`] tells as it goes: a cell is done (run now, or reused from an earlier
/// comparison), with how many of the plan's cells are done so far and how many there are.
pub trait CellProgress: Send + Sync {
    /// A cell is done: run now, or reused when `reused`; `done` of `total` cells are done.
    fn cell_done(&self, cell: &CompareCell, reused: bool, done: usize, total: usize);
}

/// No progress shown.
pub struct Silent;

impl CellProgress for Silent {
    fn cell_done(&self, _: &CompareCell, _: bool, _: usize, _: usize) {}
}

/// Runs the plan's cells (those of its shard), `plan.jobs` at a time, and reports each in cell
/// order. A cell kept by an earlier comparison in `plan.cells_dir` is reused, not run. Raising
/// `interrupt` stops the cells that run (resumably, like any run) and starts no other: the
/// report then holds only the cells that ran.
pub async fn compare(
    plan: &Plan,
    toolchains: Arc<Toolchains>,
    backends: &BackendFactory,
    observer: Arc<dyn Observer>,
    progress: &dyn CellProgress,
    interrupt: Interrupt,
) -> CompareReport {
    let todo: Vec<(usize, &PathBuf, &Arm)> = plan
        .projects
        .iter()
        .flat_map(|dir| plan.protocols.iter().map(move |p| (dir, p)))
        .enumerate()
        .filter(|(k, _)| plan.shard.is_none_or(|s| s.contains(*k)))
        .map(|(k, (dir, p))| (k, dir, p))
        .collect();
    let total = todo.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let tell = |c: &CompareCell, reused: bool| {
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        progress.cell_done(c, reused, n, total);
    };
    let mut cells: Vec<CompareCell> = stream::iter(todo)
        .map(|(k, dir, protocol)| {
            let (toolchains, observer, interrupt, tell) =
                (&toolchains, &observer, &interrupt, &tell);
            async move {
                let name = project_name(dir);
                let key = cell_key(dir, protocol, plan.policy);
                if let Some(mut c) = plan
                    .cells_dir
                    .as_ref()
                    .and_then(|d| kept(d, &name, protocol, &key))
                {
                    // Its place and holdout are this plan's.
                    c.index = k;
                    c.holdout = plan.holdout.contains(&name);
                    if let CellResult::Ran(r) = &mut c.result {
                        if r.metrics.is_none() || r.settings.is_none() || r.decision.is_none() {
                            let again = of_run(&r.run_dir, r.metrics.is_none(), toolchains).await;
                            let found = (r.metrics.is_none() && again.metrics.is_some())
                                || (r.settings.is_none() && again.settings.is_some())
                                || (r.decision.is_none() && again.decision.is_some());
                            r.metrics = r.metrics.take().or(again.metrics);
                            r.settings = r.settings.take().or(again.settings);
                            r.decision = r.decision.take().or(again.decision);
                            if let (Some(d), true) = (&plan.cells_dir, found) {
                                if let Err(e) = keep(d, key.clone(), &c) {
                                    tracing::warn!("{}: cannot keep cell {k}: {e}", d.display());
                                }
                            }
                        }
                    }
                    tell(&c, true);
                    return Some(c);
                }
                if interrupt.is_raised() {
                    return None;
                }
                if plan.kept_only {
                    let cell = CompareCell {
                        index: k,
                        project: name.clone(),
                        protocol: protocol.clone(),
                        holdout: plan.holdout.contains(&name),
                        result: CellResult::Skipped {
                            why: NOT_RUN_YET.into(),
                        },
                    };
                    tell(&cell, false);
                    return Some(cell);
                }
                let result = run_cell(
                    dir, protocol, plan, toolchains, backends, observer, interrupt,
                )
                .await;
                let cell = CompareCell {
                    index: k,
                    project: name.clone(),
                    protocol: protocol.clone(),
                    holdout: plan.holdout.contains(&name),
                    result,
                };
                if let Some(d) = &plan.cells_dir {
                    if let Err(e) = keep(d, key, &cell) {
                        tracing::warn!("{}: cannot keep cell {k}: {e}", d.display());
                    }
                }
                tell(&cell, false);
                Some(cell)
            }
        })
        .buffer_unordered(plan.jobs.max(1))
        .filter_map(|c| async move { c })
        .collect()
        .await;
    cells.sort_by_key(|c| c.index);
    CompareReport {
        format: COMPARE_FORMAT.into(),
        projects: plan.projects.iter().map(|p| project_name(p)).collect(),
        protocols: plan.protocols.clone(),
        shard: plan.shard,
        cells,
    }
}

/// The seeds' measures and the settings of a run that already ran (a cell kept before cells
/// carried them): its summary folded from the journal, with the disagreements computed again
/// (the blind overlap reads them; only when `metrics` is asked), and the settings from the
/// config its journal recorded. Each is none when the journal cannot be read.
/// What a kept cell lacks, read again from its run's journal.
#[derive(Default)]
struct Again {
    metrics: Option<Vec<crate::outcome::Metric>>,
    settings: Option<Vec<String>>,
    decision: Option<crate::outcome::Decision>,
}

async fn of_run(run_dir: &Path, metrics: bool, toolchains: &Arc<Toolchains>) -> Again {
    let (dir, tc) = (run_dir.to_path_buf(), toolchains.clone());
    tokio::task::spawn_blocking(move || {
        let Ok(journal) = crate::journal::JournalFile::read(&dir.join("journal.jsonl")) else {
            return Again::default();
        };
        let Ok(protocol) = crate::protocol::named(&journal.protocol) else {
            return Again::default();
        };
        let settings = crate::config::Config::parse(&journal.project.config, &journal.path)
            .ok()
            .and_then(|c| settings_of(&c.with_protocol(journal.protocol.clone()), protocol));
        let mut s = protocol.summary_of(&journal);
        let decision = decision_of(&s, protocol);
        if !metrics {
            return Again {
                settings,
                decision,
                ..Again::default()
            };
        }
        s.disagreements =
            crate::consensus::for_run(&tc, &journal, &|e| protocol.named_tests(e), &dir);
        let metrics = s.part.get().map(|p| p.metrics(&s)).unwrap_or_default();
        Again {
            metrics: Some(metrics),
            settings,
            decision,
        }
    })
    .await
    .unwrap_or_default()
}

/// What the implementation a run ships ([`Summary::shipped_one`]) rests on: its shipping event,
/// else the protocol's own rule; none when nothing shipped.
pub fn decision_of(s: &Summary, protocol: &dyn ProtocolData) -> Option<Decision> {
    let coder = s.shipped_one()?;
    if let Some(ship) = &s.shipping {
        return Some(Decision {
            rule: ship.strategy.clone(),
            basis: Basis::of_shipping(ship),
            words: crate::report::describe_shipping(ship),
        });
    }
    if let Some(d) = s.part.get().and_then(|p| p.decision(s)) {
        return Some(d);
    }
    let rule = protocol.name().to_string();
    Some(if s.coders.len() <= 1 {
        Decision {
            rule,
            basis: Basis::Only,
            words: format!("{coder}, the only implementation"),
        }
    } else {
        Decision {
            rule,
            basis: Basis::Protocol,
            words: format!("{coder}: {}", protocol.shipped_rule()),
        }
    })
}

/// What a run of `protocol` with `config` runs with, a line each: the protocol's table with its
/// defaults filled in, the sandbox limits, and its agents grouped by role where their settings
/// agree. Of an agent it says the backend, script, model, sampling, reply length and prompt
/// variant: never an endpoint, a key's variable or a command. None when the config does not
/// check.
pub fn settings_of(config: &crate::config::Config, protocol: &dyn Protocol) -> Option<Vec<String>> {
    let pairs = |p: Vec<(String, String)>| {
        p.iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let table = pairs(protocol.settings(config).ok()?);
    let mut lines = vec![
        format!("[{}] {table}", protocol.name())
            .trim_end()
            .to_string(),
        format!("[limits] {}", pairs(engine::settings_pairs(&config.limits))),
    ];
    if config.policy.name != PolicyName::Person {
        lines.push(format!("[policy] name = {}", config.policy.name));
    }
    let specs = config.agent_specs(&protocol.team(config).ok()?).ok()?;
    let mut groups: Vec<(crate::config::Role, String, usize)> = Vec::new();
    for spec in &specs {
        let a = &spec.settings;
        let shown: Vec<String> = [
            ("backend", a.backend.clone()),
            ("script", a.script.as_ref().map(|p| p.display().to_string())),
            ("model", a.model.clone()),
            ("temperature", a.temperature.map(|t| t.to_string())),
            ("top_p", a.top_p.map(|t| t.to_string())),
            ("seed", a.seed.map(|t| t.to_string())),
            ("max_tokens", a.max_tokens.map(|t| t.to_string())),
            ("prompt_variant", a.prompt_variant.clone()),
        ]
        .into_iter()
        .filter_map(|(k, v)| Some(format!("{k} {}", v?)))
        .collect();
        let shown = shown.join(", ");
        match groups.last_mut() {
            Some((role, words, n)) if *role == spec.role && *words == shown => *n += 1,
            _ => groups.push((spec.role, shown, 1)),
        }
    }
    for (role, words, n) in groups {
        lines.push(format!("{n} × {}: {words}", role.as_str()));
    }
    Some(lines)
}

async fn run_cell(
    dir: &Path,
    protocol: &Arm,
    plan: &Plan,
    toolchains: &Arc<Toolchains>,
    backends: &BackendFactory,
    observer: &Arc<dyn Observer>,
    interrupt: &Interrupt,
) -> CellResult {
    let selected = Project::load(dir).and_then(|p| {
        let mut p = p
            .with_protocol(protocol.protocol())
            .with_settings(protocol.protocol().as_str(), &protocol.settings())?;
        if let Some(policy) = plan.policy {
            p = p.with_policy(policy);
        }
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
            if let Err(e) = crate::report::write_outputs(&o) {
                return CellResult::Failed {
                    error: format!("writing the run's outputs: {e}"),
                };
            }
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
                // Absolute, so the page links it from wherever the comparison is rendered.
                run_dir: std::path::absolute(&o.run_dir).unwrap_or(o.run_dir.clone()),
                stop: describe_stop(o.protocol, &o.stop),
                exit: exit_name(exit_class(o.protocol, &o.stop)).into(),
                coders: shipped.len(),
                shipped: s.shipped_one(),
                shipped_passes: s.shipped_passes_hidden(),
                decision: decision_of(s, o.protocol),
                all_hidden: hidden.iter().filter(|(p, t)| p == t && *t > 0).count(),
                hidden_passed: hidden.iter().map(|(p, _)| p).sum(),
                hidden_total: hidden.iter().map(|(_, t)| t).sum(),
                calls: s.usage.calls,
                prompt_tokens: s.usage.prompt_tokens,
                completion_tokens: s.usage.completion_tokens,
                usd: s.usage.usd,
                seconds,
                metrics: Some(s.part.get().map(|p| p.metrics(s)).unwrap_or_default()),
                settings: settings_of(&project.config, protocol),
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
/// projects and protocols, and every cell exactly once. Whole comparisons of the same projects
/// with no arm in common (run at different times, e.g. a protocol under other settings beside
/// an earlier comparison) join into one with every arm, in the order given.
pub fn merge(parts: Vec<CompareReport>) -> Result<CompareReport, CompareError> {
    let disjoint = |a: &CompareReport, b: &CompareReport| {
        a.projects == b.projects && !a.protocols.iter().any(|p| b.protocols.contains(p))
    };
    if parts.len() > 1
        && parts
            .iter()
            .enumerate()
            .all(|(i, a)| parts[i + 1..].iter().all(|b| disjoint(a, b)))
    {
        return join_arms(parts);
    }
    merge_shards(parts)
}

/// Whole comparisons of the same projects, each with its own arms, as one: cells numbered
/// project-major again over all the arms.
fn join_arms(parts: Vec<CompareReport>) -> Result<CompareReport, CompareError> {
    let wholes: Vec<CompareReport> = parts
        .into_iter()
        .map(|p| merge_shards(vec![p]))
        .collect::<Result<_, _>>()?;
    let projects = wholes[0].projects.clone();
    let protocols: Vec<Arm> = wholes
        .iter()
        .flat_map(|w| w.protocols.iter().cloned())
        .collect();
    let mut cells: Vec<CompareCell> = wholes.into_iter().flat_map(|w| w.cells).collect();
    for c in &mut cells {
        let project = projects.iter().position(|p| *p == c.project);
        let arm = protocols.iter().position(|p| *p == c.protocol);
        let (Some(project), Some(arm)) = (project, arm) else {
            return Err(CompareError::Mismatch(format!(
                "cell {} ({}, {}) is not among its report's projects and protocols",
                c.index, c.project, c.protocol
            )));
        };
        c.index = project * protocols.len() + arm;
    }
    cells.sort_by_key(|c| c.index);
    Ok(CompareReport {
        format: COMPARE_FORMAT.into(),
        projects,
        protocols,
        shard: None,
        cells,
    })
}

/// Shards of one comparison joined: the same projects and protocols, every cell exactly once.
fn merge_shards(parts: Vec<CompareReport>) -> Result<CompareReport, CompareError> {
    let first = parts
        .first()
        .ok_or_else(|| CompareError::Mismatch("no reports given".into()))?;
    let (projects, protocols) = (first.projects.clone(), first.protocols.clone());
    let mut cells: Vec<CompareCell> = Vec::new();
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

    fn cell(index: usize, project: &str, protocol: Arm) -> CompareCell {
        CompareCell {
            index,
            project: project.into(),
            protocol,
            holdout: false,
            result: CellResult::Skipped { why: "x".into() },
        }
    }

    fn report(shard: Shard, cells: Vec<CompareCell>) -> CompareReport {
        CompareReport {
            format: COMPARE_FORMAT.into(),
            projects: vec!["a".into(), "b".into()],
            protocols: vec![Arm::new("one"), Arm::new("two")],
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
            vec![cell(0, "a", Arm::new("one")), cell(2, "b", Arm::new("one"))],
        );
        let b = report(
            s2,
            vec![cell(1, "a", Arm::new("two")), cell(3, "b", Arm::new("two"))],
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

    /// A cell records its protocol's table with the defaults (codet's 5 coders and 2 testers,
    /// though the file sets none), the limits, and its agents grouped by role where they agree,
    /// with the model but never the endpoint or the key's variable.
    #[test]
    fn a_cell_says_what_it_ran_with_and_nothing_secret() {
        let text = r#"
[project]
language = "python"
tests = "unit"

[agents]
backend = "openai"
model = "m-1"
base_url = "http://secret.example/v1"
api_key_env = "SECRET_KEY"
temperature = 0.8

[coders]
prompt_variant = "terse"

[[coder]]
model = "m-2"
"#;
        let codet = crate::config::ProtocolName::new("codet");
        let config = crate::config::Config::parse(text, Path::new("dixit.toml"))
            .unwrap()
            .with_protocol(codet.clone());
        let lines = settings_of(&config, crate::protocol::named(&codet).unwrap()).unwrap();
        assert_eq!(lines[0], "[codet] coders = 5, testers = 2, tests = 5");
        assert!(lines[1].starts_with("[limits] fuel = "), "{lines:?}");
        assert_eq!(
            lines[2..],
            [
                "1 × coder: backend openai, model m-2, temperature 0.8, prompt_variant terse",
                "4 × coder: backend openai, model m-1, temperature 0.8, prompt_variant terse",
                "2 × tester: backend openai, model m-1, temperature 0.8",
            ]
        );
        let all = lines.join("\n").to_lowercase();
        assert!(!all.contains("secret"), "{all}");

        let single = crate::config::ProtocolName::new("single");
        let lines = settings_of(
            &config.with_protocol(single.clone()),
            crate::protocol::named(&single).unwrap(),
        )
        .unwrap();
        assert_eq!(lines[0], "[single]");
        assert_eq!(lines.len(), 3, "{lines:?}");
    }
}
