//! The page of a scored samples file (`dixit report DIR` on `dixit eval --samples --out DIR`):
//! pass@k first, then every task with its samples' verdicts, and per task each unique program
//! with its failure, readable without scripts.
//!
//! Data flow: `DIR/{samples_report.json, problems/*.json}` → [`SamplesOutput::load`] →
//! [`render_samples`] → `DIR/report.html`.

use std::path::{Path, PathBuf};

use maud::{html, Markup};

use super::eval_report::{write_page, Provenance};
use super::format::thousands;
use super::html::{code, Column, Page, Table, TableCell};
use super::input::ReportError;
use crate::eval::samples::{SamplesReport, TaskVerdicts, REPORT_FILE, SAMPLES_REPORT_FORMAT};
use crate::eval::verdict_of_code;

/// A samples output read back: its report and each task's programs and verdicts.
pub struct SamplesOutput {
    /// The directory.
    pub dir: PathBuf,
    /// `samples_report.json`.
    pub report: SamplesReport,
    /// `problems/*.json`, in the report's task order.
    pub tasks: Vec<TaskVerdicts>,
}

impl SamplesOutput {
    /// Reads `dir`, written by `dixit eval --samples --out DIR`.
    pub fn load(dir: &Path) -> Result<Self, ReportError> {
        let path = dir.join(REPORT_FILE);
        let text = std::fs::read(&path).map_err(|e| ReportError::io(&path, e))?;
        let report: SamplesReport =
            serde_json::from_slice(&text).map_err(|source| ReportError::BadProblem {
                path: path.clone(),
                source,
            })?;
        if report.format != SAMPLES_REPORT_FORMAT {
            return Err(ReportError::Inconsistent {
                path,
                what: format!(
                    "samples report format {}; this dixit reads format {SAMPLES_REPORT_FORMAT}",
                    report.format
                ),
            });
        }
        let mut tasks = Vec::with_capacity(report.per_task.len());
        for t in &report.per_task {
            let p = dir
                .join("problems")
                .join(crate::eval::problem_file_name(&t.task_id));
            let text = std::fs::read(&p).map_err(|e| ReportError::io(&p, e))?;
            let v: TaskVerdicts =
                serde_json::from_slice(&text).map_err(|source| ReportError::BadProblem {
                    path: p.clone(),
                    source,
                })?;
            if v.id != t.task_id || v.programs.len() != v.verdicts.len() {
                return Err(ReportError::Inconsistent {
                    path: p,
                    what: format!("not the verdicts of task {}", t.task_id),
                });
            }
            tasks.push(v);
        }
        Ok(SamplesOutput {
            dir: dir.to_path_buf(),
            report,
            tasks,
        })
    }
}

/// `dixit report DIR` on a samples output: writes `out` (default `DIR/report.html`).
pub fn write_samples_report(dir: &Path, out: Option<&Path>) -> Result<PathBuf, ReportError> {
    let s = SamplesOutput::load(dir)?;
    let html = render_samples(&s, &Provenance::now());
    let path = out.map_or_else(|| dir.join("report.html"), Path::to_path_buf);
    write_page(&path, &html)
}

/// The page.
pub fn render_samples(s: &SamplesOutput, prov: &Provenance) -> String {
    let r = &s.report;
    let setup = &r.setup;
    let mut page = Page::new(format!("Samples: {}", setup.samples_file.display()))
        .subtitle(format!(
            "{} · {} format · {} · {} samples",
            setup.benchmark,
            setup.samples_format,
            crate::english::plural(r.tasks, "task", "tasks"),
            thousands(r.samples as u64)
        ))
        .lead(lead(r))
        .footer(format!(
            "{} · {} · {}",
            prov.generator,
            prov.generated,
            s.dir.display()
        ));
    page.section("tasks", "Tasks", tasks_table(r));
    page.section("programs", "Each task's programs", programs(s));
    if !r.input_problems.is_empty() || !r.refused_tasks.is_empty() {
        page.section("not-scored", "Not scored", not_scored(r));
    }
    page.section("setup", "How it was scored", setup_list(r));
    page.render()
}

fn lead(r: &SamplesReport) -> Markup {
    let ok = r.reference_failures.is_empty() && r.input_problems.is_empty();
    html! {
        div.dx-lead.(if ok { "dx-good" } else { "dx-bad" }) {
            p {
                @for (k, v) in &r.pass_at_k {
                    strong { (k) " " (format!("{v:.4}")) } " · "
                }
                (thousands(r.passed as u64)) " of " (thousands(r.samples as u64)) " samples passed their task's check"
            }
            @if r.sanitized > 0 {
                p { "--sanitize changed " (r.sanitized) " of " (r.samples) " samples (each one's scored code is below)." }
            }
            @if !r.input_problems.is_empty() {
                p { "✗ " (r.input_problems.len()) " records or tasks of the input were not scored (listed under Not scored)." }
            }
            @if !r.reference_failures.is_empty() {
                p { "✗ The benchmark's own reference fails its check in " (r.reference_failures.join(", ")) ": those tasks' results are suspect." }
            }
        }
    }
}

fn anchor(id: &str) -> String {
    format!("task-{}", crate::file_name::encode(id).replace('%', "-"))
}

fn tasks_table(r: &SamplesReport) -> Markup {
    let mut t = Table::new(
        "dx-tasks",
        vec![
            Column::text("task"),
            Column::num("samples"),
            Column::num("passed"),
            Column::num("pass@1"),
            Column::num("unique").title("unique programs among its samples"),
            Column::text("reference").title("the benchmark's reference against the same check"),
        ],
    )
    .filterable();
    for task in &r.per_task {
        t.row(vec![
            TableCell::markup(
                html! { a href=(format!("#{}", anchor(&task.task_id))) { (task.task_id) } },
                task.task_id.clone(),
            ),
            TableCell::num(task.samples as f64, task.samples.to_string()),
            TableCell::num(task.passed as f64, task.passed.to_string()),
            TableCell::num(task.pass_at_1, format!("{:.3}", task.pass_at_1)),
            TableCell::num(task.unique as f64, task.unique.to_string()),
            TableCell::text(if task.reference_passed {
                "passes"
            } else {
                "FAILS"
            }),
        ]);
    }
    t.render()
}

fn programs(s: &SamplesOutput) -> Markup {
    html! {
        @for task in &s.tasks {
            @let passed: u32 = task.programs.iter().zip(&task.verdicts).filter(|(_, v)| v.code == 'P').map(|(p, _)| p.count).sum();
            @let total: u32 = task.programs.iter().map(|p| p.count).sum();
            details id=(anchor(&task.id)) {
                summary { strong { (task.id) } " · " (passed) " of " (total) " samples passed · " (task.programs.len()) " unique programs" }
                @for (k, (p, v)) in task.programs.iter().zip(&task.verdicts).enumerate() {
                    @let kind = verdict_of_code(v.code).map(|k| k.as_str()).unwrap_or("?");
                    @let caption = format!(
                        "program {} · {} sample{} · {}{} · fuel {}",
                        k + 1,
                        p.count,
                        if p.count == 1 { "" } else { "s" },
                        kind,
                        v.note.as_deref().map(|n| format!(" ({n})")).unwrap_or_default(),
                        thousands(v.fuel)
                    );
                    (code(&p.source, Some(&caption)))
                }
            }
        }
    }
}

fn not_scored(r: &SamplesReport) -> Markup {
    html! {
        @if !r.input_problems.is_empty() {
            p { "Records of the input and selected tasks that were not scored:" }
            ul { @for p in &r.input_problems { li { code { (p.to_string()) } } } }
        }
        @if !r.refused_tasks.is_empty() {
            p { "The benchmark's own records that are no task (their " (r.unscored_samples) " samples were not scored):" }
            ul { @for p in &r.refused_tasks { li { code { (p.to_string()) } } } }
        }
    }
}

fn setup_list(r: &SamplesReport) -> Markup {
    let s = &r.setup;
    html! {
        dl {
            dt { "samples" } dd { code { (s.samples_file.display()) } " (" (s.samples_format) ", sha256 " (&s.samples_hash[..12.min(s.samples_hash.len())]) ")" }
            dt { "problems" } dd { code { (s.problems_file.display()) } " (" (s.benchmark) ", sha256 " (&s.problems_hash[..12.min(s.problems_hash.len())]) ")" }
            dt { "limits" } dd { "fuel " (thousands(s.limits.fuel)) " per run · memory " (s.limits.memory_bytes >> 20) " MiB · wasmtime " (s.wasmtime) }
            dt { "fuel rule" } dd { (s.fuel_rule.describe(s.limits.fuel)) }
            dt { "execution" } dd { (thousands(r.execution.runs)) " runs · " (r.execution.cached_tasks) " of " (r.tasks) " tasks from the cache · " (format!("{:.1}", r.execution.seconds)) " s " (crate::report::format::workers(r.execution.threads, r.execution.workers)) }
        }
    }
}
