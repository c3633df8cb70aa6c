//! Reading an eval output directory (`dixit eval --out DIR`) back: `report.json` and every
//! `problems/*.json`, each checked against itself and against the report, so a page is never
//! drawn from matrices that do not fit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::super::input::ReportError;
use crate::eval::{problem_file_name, verdict_of_code, EvalReport, ProblemVerdicts};

/// An eval output read from disk: the report and the verdict matrix of each of its problems, in
/// the report's order.
#[derive(Clone, Debug)]
pub struct EvalOutput {
    /// The directory it was read from.
    pub dir: PathBuf,
    /// `report.json`.
    pub report: EvalReport,
    /// `problems/*.json`, in the order of `report.results.problems`.
    pub problems: Vec<ProblemVerdicts>,
}

impl EvalOutput {
    /// Reads and checks `dir`.
    pub fn load(dir: &Path) -> Result<Self, ReportError> {
        let report = EvalReport::read(&dir.join("report.json"))?;
        let problems_dir = dir.join("problems");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&problems_dir)
            .map_err(|e| ReportError::io(&problems_dir, e))?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(|e| ReportError::io(&problems_dir, e))?;
        files.retain(|p| p.extension().is_some_and(|x| x == "json"));
        files.sort();
        let parsed: Vec<(PathBuf, ProblemVerdicts)> = files
            .into_par_iter()
            .map(|path| {
                let text = std::fs::read(&path).map_err(|e| ReportError::io(&path, e))?;
                let v: ProblemVerdicts =
                    serde_json::from_slice(&text).map_err(|source| ReportError::BadProblem {
                        path: path.clone(),
                        source,
                    })?;
                check(&path, &v)?;
                Ok((path, v))
            })
            .collect::<Result<_, ReportError>>()?;
        // Files are matched to problems by the id they hold, so any file name works (outputs
        // of versions that named files differently load too). Where two files hold one id, the
        // one named by `problem_file_name` wins: the other is a leftover of an older version
        // writing into the same directory.
        let canonical = |path: &Path, id: &str| {
            path.file_name()
                .is_some_and(|n| n.to_string_lossy() == problem_file_name(id))
        };
        let mut by_id: BTreeMap<String, (PathBuf, ProblemVerdicts)> = BTreeMap::new();
        for (path, v) in parsed {
            if let Some((first, _)) = by_id.get(&v.id) {
                match (canonical(first, &v.id), canonical(&path, &v.id)) {
                    (true, false) => continue,
                    (false, true) => {}
                    _ => {
                        return Err(ReportError::Inconsistent {
                            path,
                            what: format!("{} is also in {}", v.id, first.display()),
                        })
                    }
                }
            }
            by_id.insert(v.id.clone(), (path, v));
        }
        let mut problems = Vec::with_capacity(report.results.problems.len());
        for p in &report.results.problems {
            let Some((path, v)) = by_id.remove(&p.id) else {
                return Err(ReportError::Inconsistent {
                    path: problems_dir.clone(),
                    what: format!(
                        "no file holds {}, which report.json lists (expected {})",
                        p.id,
                        problem_file_name(&p.id)
                    ),
                });
            };
            let pool: u64 = v.solutions.iter().map(|s| u64::from(s.count)).sum();
            if pool != p.random.den {
                return Err(ReportError::Inconsistent {
                    path,
                    what: format!(
                        "{} has {pool} solution samples but report.json scored {}",
                        p.id, p.random.den
                    ),
                });
            }
            problems.push(v);
        }
        if let Some((id, (path, _))) = by_id.into_iter().next() {
            return Err(ReportError::Inconsistent {
                path,
                what: format!("{id} is not in report.json (is this file from another evaluation?)"),
            });
        }
        Ok(EvalOutput {
            dir: dir.to_path_buf(),
            report,
            problems,
        })
    }
}

/// The shape of one matrix: a row per solution, a letter per test, known letters only.
fn check(path: &Path, v: &ProblemVerdicts) -> Result<(), ReportError> {
    let bad = |what: String| {
        Err(ReportError::Inconsistent {
            path: path.to_path_buf(),
            what,
        })
    };
    let (n, m) = (v.solutions.len(), v.tests.len());
    if v.rows.len() != n {
        return bad(format!("{} rows for {n} solutions", v.rows.len()));
    }
    if v.hidden.chars().count() != n {
        return bad(format!(
            "{} hidden verdicts for {n} solutions",
            v.hidden.chars().count()
        ));
    }
    if v.reference_row.chars().count() != m {
        return bad(format!(
            "the reference row has {} verdicts for {m} tests",
            v.reference_row.chars().count()
        ));
    }
    for (i, r) in v.rows.iter().enumerate() {
        if r.chars().count() != m {
            return bad(format!(
                "row {i} has {} verdicts for {m} tests",
                r.chars().count()
            ));
        }
    }
    let all = v
        .rows
        .iter()
        .flat_map(|r| r.chars())
        .chain(v.hidden.chars())
        .chain(v.reference_row.chars())
        .chain([v.reference_hidden]);
    for c in all {
        if verdict_of_code(c).is_none() {
            return bad(format!("unknown verdict letter {c:?}"));
        }
    }
    for note in &v.notes {
        if note.solution.is_some_and(|s| s >= n) || note.test.is_some_and(|t| t >= m) {
            return bad(format!(
                "a note names a cell outside the matrix ({:?}, {:?})",
                note.solution, note.test
            ));
        }
    }
    Ok(())
}
