//! `dixit compare`: runs several protocols over several projects and prints one table. With
//! `--shard I/N --out DIR` it runs one shard of the cells and saves DIR/shard-I-of-N.json (what
//! each array task of `dixit slurm -- compare ...` does); `--merge DIR` joins them. With `--out
//! DIR`, each finished cell is kept in DIR/cells/, and the same comparison run again reuses it;
//! the whole comparison is saved as DIR/compare.json with its page, DIR/report.html
//! (rendered by `report::compare_page`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;

use super::exit::{self, CliError, CliResult};
use super::shards::ShardInputs;
use super::{signals, toolchains, GlobalArgs};
use crate::compare::{self, CompareError, Plan, COMPARE_FILE};
use crate::config::Arm;
use crate::engine::{self, Interrupt, Quiet};
use crate::eval::Shard;
use crate::outcome::{CellResult, CompareReport};
use crate::report;
use crate::report::compare_page::{render_compare_page, COMPARE_PAGE};
use crate::report::eval_report::Provenance;
use crate::scaleout::{shard_file_name, write_atomic, ShardFileError, ShardFiles};

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Project folders (each with dixit.toml and spec.md).
    #[arg(required_unless_present = "merge")]
    pub projects: Vec<PathBuf>,
    /// The protocols to run on each project, comma-separated; `NAME:KEY=VALUE[:KEY=VALUE]`
    /// runs one with keys of its table set otherwise, as an arm of its own
    /// (`dixit:max_calls=7`) [default: every protocol, as `dixit protocols` lists them].
    #[arg(long, value_delimiter = ',')]
    pub protocols: Vec<Arm>,
    /// A file naming the held-out projects (one name or path a line): reported apart from the
    /// development projects.
    #[arg(long, value_name = "FILE")]
    pub holdout: Option<PathBuf>,
    /// Run only shard i of n of the (project, protocol) cells (join the `--json` reports with
    /// `--merge`).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Where the cells' runs go (DIR/<project>/<run id>) [default: each project's runs/].
    #[arg(long, value_name = "DIR")]
    pub runs_dir: Option<PathBuf>,
    /// Save the report (JSON) under DIR, atomically: DIR/shard-I-of-N.json for a shard, else
    /// DIR/compare.json and its page DIR/report.html, so that shards can share DIR and
    /// `--merge DIR` joins them.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Compare on a fixed random sample of N of the projects (drawn with --seed: the same
    /// projects every time).
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// The seed of --sample.
    #[arg(long, value_name = "S", default_value_t = 0, requires = "sample")]
    pub seed: u64,
    /// Cells run at once (each cell's agents call the model concurrently as well: bound it by
    /// the parallel requests the model server serves).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Run nothing: report the cells already kept in --out DIR, each other cell as not run
    /// yet, and write DIR/compare.json and its page (a look at a comparison still running).
    #[arg(long, requires = "out", conflicts_with = "merge")]
    pub kept: bool,
    /// Every cell's decision policy, instead of its project's `[policy]`: `majority` runs the
    /// comparison without a person (each decision journaled with its evidence).
    #[arg(long, value_name = "NAME")]
    pub policy: Option<crate::config::PolicyName>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Instead of running anything, join shard reports (`--shard … --json` output, or one
    /// directory of shard-I-of-N.json files written by `--out`) and print the table; a
    /// directory holding only compare.json is read as it is (`--merge DIR --out DIR` writes
    /// its report.html again).
    #[arg(long, value_name = "REPORT|DIR", num_args = 1..)]
    pub merge: Vec<PathBuf>,
}

pub(super) fn run(g: &GlobalArgs, a: &CompareArgs) -> CliResult {
    let mut interrupted = None;
    let report = if a.merge.is_empty() {
        let holdout = match &a.holdout {
            Some(f) => compare::read_holdout(f).map_err(CliError::usage)?,
            None => Vec::new(),
        };
        for p in &a.projects {
            if !p.join("dixit.toml").is_file() {
                return Err(CliError::usage(format!(
                    "{}: not a project (no dixit.toml)",
                    p.display()
                )));
            }
        }
        let eligible = taking_part(&a.projects, g.quiet)?;
        for arm in &a.protocols {
            crate::protocol::named(&arm.protocol()).map_err(CliError::usage)?;
            check_settings(arm, eligible.first())?;
        }
        let protocols = if a.protocols.is_empty() {
            crate::protocol::names().into_iter().map(Arm::new).collect()
        } else {
            a.protocols.clone()
        };
        let projects = match a.sample {
            Some(n) if n > eligible.len() => {
                return Err(CliError::usage(format!(
                    "--sample {n}: there are only {} projects",
                    eligible.len()
                )))
            }
            Some(n) => compare::sample(&eligible, n, a.seed),
            None => eligible,
        };
        if a.jobs == 0 {
            return Err(CliError::usage("--jobs must be at least 1"));
        }
        let plan = Plan {
            projects,
            protocols,
            holdout,
            shard: a.shard,
            runs_dir: a.runs_dir.clone(),
            cells_dir: a.out.as_ref().map(|d| d.join("cells")),
            jobs: a.jobs,
            kept_only: a.kept,
            policy: a.policy,
        };
        let tc = Arc::new(toolchains(g)?);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| CliError::new(exit::INTERNAL, e))?;
        let interrupt = Interrupt::new();
        let (report, signals) = rt.block_on(async {
            let signals = signals::install(interrupt.clone(), |m| eprintln!("{m}"));
            let progress: &dyn compare::CellProgress =
                if g.quiet { &compare::Silent } else { &Lines };
            let report = compare::compare(
                &plan,
                tc,
                &engine::default_backend,
                Arc::new(Quiet),
                progress,
                interrupt,
            )
            .await;
            (report, signals)
        });
        // A signal cut the comparison short if a cell was interrupted or not run.
        let planned = (0..plan.projects.len() * plan.protocols.len())
            .filter(|k| plan.shard.is_none_or(|s| s.contains(*k)))
            .count();
        let cut = report.cells.len() < planned
            || report
                .cells
                .iter()
                .any(|c| matches!(&c.result, CellResult::Ran(r) if r.exit == "interrupted"));
        interrupted = signals.caught().filter(|_| cut).map(|s| s.code());
        report
    } else {
        merge(&a.merge)?
    };
    match (&a.out, interrupted) {
        (Some(dir), None) => save(dir, &report)?,
        (None, None) => {}
        // An incomplete comparison is not saved: a merge would take it for the whole shard.
        (out, Some(_)) => eprintln!(
            "interrupted: the comparison is incomplete ({} ran){}",
            crate::english::plural(report.cells.len(), "cell", "cells"),
            out.as_ref()
                .map(|d| format!("; nothing saved in {}", d.display()))
                .unwrap_or_default()
        ),
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)?
        );
    } else {
        print!("{}", report::compare_table(&report));
    }
    if let Some(code) = interrupted {
        return Ok(code);
    }
    let failed = report
        .cells
        .iter()
        .any(|c| matches!(c.result, CellResult::Failed { .. }));
    Ok(if failed { exit::FAILED } else { exit::OK })
}

/// One line on stderr per finished cell, so that a long comparison (in the background, its
/// stderr in a log) shows how far it is: `[3/120] HumanEval_10 · codet: passes the hidden
/// tests · done · 7 calls · 47 s`.
struct Lines;

impl compare::CellProgress for Lines {
    fn cell_done(&self, c: &crate::outcome::CompareCell, reused: bool, done: usize, total: usize) {
        let what = match &c.result {
            CellResult::Ran(r) => {
                let verdict = match r.shipped_passes {
                    Some(true) => "passes the hidden tests",
                    Some(false) => "fails the hidden tests",
                    None if r.shipped.is_none() => "ships nothing",
                    None => "no hidden tests",
                };
                format!(
                    "{verdict} · {} · {} · {:.0} s",
                    r.exit,
                    crate::english::plural(r.calls as usize, "call", "calls"),
                    r.seconds
                )
            }
            CellResult::Skipped { why } => format!("skipped: {why}"),
            CellResult::Failed { error } => format!("failed to run: {error}"),
        };
        let reused = if reused {
            " (kept from an earlier run)"
        } else {
            ""
        };
        let line = format!(
            "[{done}/{total}] {} · {}: {what}{reused}",
            c.project, c.protocol
        );
        eprintln!("{}", report::one_line(&line));
    }
}

/// Writes `report` to DIR/shard-I-of-N.json (a shard), or to DIR/compare.json and its page
/// DIR/report.html (the whole comparison), each atomically.
fn save(dir: &Path, report: &CompareReport) -> Result<(), CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::usage(format!("cannot create {}: {e}", dir.display())))?;
    let name = report
        .shard
        .map_or(COMPARE_FILE.to_string(), shard_file_name);
    let text = serde_json::to_string_pretty(report).map_err(anyhow::Error::from)? + "\n";
    let write = |name: &str, bytes: &[u8]| {
        write_atomic(&dir.join(name), bytes)
            .map_err(|e| CliError::new(exit::USAGE, e).hint("--out names a directory"))
    };
    write(&name, text.as_bytes())?;
    if report.shard.is_none() {
        let page = render_compare_page(
            report,
            dir,
            &|p| crate::protocol::get(p.protocol().as_str()).map(|p| p.shipped_rule()),
            &Provenance::now(),
        )
        .map_err(|e| CliError::new(exit::INTERNAL, e))?;
        write(COMPARE_PAGE, page.as_bytes())?;
    }
    Ok(())
}

/// Joins shard reports given as files, or as one directory of shard files (then every shard must
/// be there once; the error names the missing ones and how to rerun them).
fn merge(paths: &[PathBuf]) -> Result<CompareReport, CliError> {
    let read = |f: &Path| -> Result<CompareReport, CliError> {
        let text = std::fs::read_to_string(f)
            .map_err(|e| CliError::usage(format!("{}: {e}", f.display())))?;
        serde_json::from_str(&text)
            .map_err(|e| CliError::usage(format!("{}: not a compare report: {e}", f.display())))
    };
    // A comparison saved whole (`--out DIR` without shards) is its one part, so that
    // `--merge DIR --out DIR` writes its page again.
    if let [dir] = paths {
        if dir.join(COMPARE_FILE).is_file()
            && matches!(ShardFiles::scan(dir), Err(ShardFileError::Empty { .. }))
        {
            let whole = read(&dir.join(COMPARE_FILE))?;
            return compare::merge(vec![whole]).map_err(CliError::usage);
        }
    }
    let inputs = ShardInputs::of(paths, "dixit compare")?;
    let parts = inputs.read(read, |r| r.shard)?;
    let parts = parts.into_iter().map(|(_, report)| report).collect();
    compare::merge(parts).map_err(|e| match &e {
        CompareError::Missing { .. } => {
            let hint = inputs
                .dir()
                .map(|d| format!("is every shard's file in {}?", d.display()));
            let err = CliError::usage(e);
            match hint {
                Some(h) => err.hint(h),
                None => err,
            }
        }
        _ => CliError::usage(e),
    })
}

/// An arm that sets some of its protocol's keys is checked on the first project before any
/// cell runs, so a misspelt key or a value out of range is one usage error, not a skipped cell
/// per project.
fn check_settings(arm: &Arm, first: Option<&PathBuf>) -> Result<(), CliError> {
    let (settings, Some(dir)) = (arm.settings(), first) else {
        return Ok(());
    };
    if settings.is_empty() {
        return Ok(());
    }
    let protocol = arm.protocol();
    crate::config::Project::load(dir)
        .and_then(|p| {
            let p = p
                .with_protocol(protocol.clone())
                .with_settings(protocol.as_str(), &settings)?;
            crate::protocol::select(&p.config).map(|_| ())
        })
        .map_err(|e| CliError::usage(format!("--protocols {arm}: {e}")))
}

/// The projects that take part: a project an import flagged (its reference fails its own
/// hidden test) waits for a person's decision (`dixit decide PROJECT include|exclude`), and
/// stays out until it is included. Says on stderr which are left out and which a person let in.
fn taking_part(projects: &[PathBuf], quiet: bool) -> Result<Vec<PathBuf>, CliError> {
    use crate::english::{and_list, plural};
    use crate::evidence::escaped;
    use crate::import::{standing, Standing};
    let mut part = Vec::new();
    let (mut undecided, mut excluded, mut included) = (Vec::new(), Vec::new(), Vec::new());
    for p in projects {
        let s = standing(p).map_err(CliError::usage)?;
        let shown = p.display().to_string();
        match &s {
            Standing::Undecided => undecided.push(shown),
            Standing::Decided(d) if s.takes_part() => included.push(format!(
                "{shown} (by {}: {})",
                escaped(&d.by),
                escaped(&d.why)
            )),
            Standing::Decided(d) => excluded.push(format!(
                "{shown} (by {}: {})",
                escaped(&d.by),
                escaped(&d.why)
            )),
            Standing::Clean => {}
        }
        if s.takes_part() {
            part.push(p.clone());
        }
    }
    if !quiet {
        if !undecided.is_empty() {
            eprintln!(
                "leaving out {} flagged at import until a person decides (see {} in each; then \
                 `dixit decide PROJECT include|exclude --why ...`): {}",
                plural(undecided.len(), "project", "projects"),
                crate::import::FLAG_FILE,
                and_list(undecided)
            );
        }
        if !excluded.is_empty() {
            eprintln!(
                "leaving out {} a person excluded: {}",
                plural(excluded.len(), "flagged project", "flagged projects"),
                and_list(excluded)
            );
        }
        if !included.is_empty() {
            eprintln!(
                "including {} a person decided to include: {}",
                plural(included.len(), "flagged project", "flagged projects"),
                and_list(included)
            );
        }
    }
    if part.is_empty() {
        return Err(CliError::usage(format!(
            "no project takes part: every one is flagged at import ({}) and not included; \
             decide with `dixit decide PROJECT include --why ...`",
            crate::import::FLAG_FILE
        )));
    }
    Ok(part)
}
