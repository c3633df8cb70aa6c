//! The summary of `dixit import`: how many projects, which have an acceptance suite, the
//! examples dropped and the lines left unread (each with its task and line), and what every
//! project holds.

mod page;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use page::render_import;

use crate::english::and_list;
use crate::english::plural;
use crate::evidence::escaped;
use crate::import::{ImportReport, FLAG_FILE, REPORT_FILE};
use crate::report::eval_report::{write_page, Provenance};
use crate::report::input::ReportError;

/// The import's page, beside its projects.
pub const PAGE_FILE: &str = "import.html";

/// The page of an import into `dir` (`DIR/import.html`), from its `import.json` and each
/// flagged project's decisions as they stand now; returns the path written.
pub fn write_import_page(dir: &Path, out: Option<&Path>) -> Result<PathBuf, ReportError> {
    let path = dir.join(REPORT_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| ReportError::io(&path, e))?;
    let r: ImportReport =
        serde_json::from_str(&text).map_err(|source| ReportError::BadImport { path, source })?;
    let mut standings = BTreeMap::new();
    for p in &r.projects {
        let s = crate::import::standing(&dir.join(&p.folder))?;
        standings.insert(p.folder.clone(), s);
    }
    let html = render_import(&r, &standings, &Provenance::now());
    let page = out.map_or_else(|| dir.join(PAGE_FILE), Path::to_path_buf);
    write_page(&page, &html)
}

/// Lines listed per kind (dropped examples, unread lines); `--json` has them all.
const SHOWN: usize = 12;

/// The terminal summary of an import.
pub fn import_summary(r: &ImportReport) -> String {
    let examples_file = r.examples.as_ref().unwrap_or(&r.file);
    let mut s = format!(
        "imported {} of {} from {} into {}: one project each; {} clean, {} flagged, {} refused\n",
        r.projects.len(),
        plural(
            r.projects.len() + r.refused.len(),
            &format!("{} task", r.benchmark),
            &format!("{} tasks", r.benchmark)
        ),
        r.file.display(),
        r.out.display(),
        r.clean,
        r.flagged,
        r.refused.len()
    );
    let refused: Vec<String> = r
        .refused
        .iter()
        .map(|x| {
            let id = if x.task_id.is_empty() {
                "(unread)".to_string()
            } else {
                escaped(&x.task_id)
            };
            format!("{id}, line {}: {}", x.at.line, escaped(&x.why))
        })
        .collect();
    if !refused.is_empty() {
        s.push_str(&format!(
            "  refused {} (no project; the others imported):\n",
            plural(refused.len(), "record", "records")
        ));
        lines(&mut s, &refused);
    }
    let repaired: Vec<String> = r
        .projects
        .iter()
        .filter(|p| !p.repaired.is_empty())
        .map(|p| {
            format!(
                "{}: {}",
                escaped(&p.task_id),
                escaped(&p.repaired.join("; "))
            )
        })
        .collect();
    if !repaired.is_empty() {
        s.push_str(&format!(
            "  repaired {} (the benchmark's record, mechanically; the reference then passes its test unless flagged):\n",
            plural(repaired.len(), "task", "tasks")
        ));
        lines(&mut s, &repaired);
    }
    let flagged: Vec<String> = r
        .projects
        .iter()
        .filter_map(|p| {
            let f = p.flagged.as_ref()?;
            Some(format!(
                "{}: the reference fails its hidden test ({}); the prompt's examples: {} — {}",
                escaped(&p.task_id),
                escaped(&f.why),
                escaped(&f.examples),
                r.out.join(&p.folder).join(FLAG_FILE).display()
            ))
        })
        .collect();
    if !flagged.is_empty() {
        s.push_str(&format!(
            "  flagged {} (written, left out of `dixit compare` until a person decides, \
             `dixit decide PROJECT include|exclude --why ...`):\n",
            plural(flagged.len(), "project", "projects"),
        ));
        lines(&mut s, &flagged);
    }
    let with_tests: Vec<_> = r.projects.iter().filter(|p| !p.tests.is_empty()).collect();
    let tests: usize = with_tests.iter().map(|p| p.tests.len()).sum();
    if !with_tests.is_empty() {
        s.push_str(&format!(
            "  acceptance tests (tests/): {} in {} of {}, read from the docstrings in {}\n",
            plural(tests, "example", "examples"),
            with_tests.len(),
            plural(r.projects.len(), "project", "projects"),
            examples_file.display()
        ));
    }
    let with_example_test = r.projects.iter().filter(|p| p.example_test).count();
    if with_example_test > 0 {
        s.push_str(&format!(
            "  acceptance tests (tests/test_examples.*): the benchmark's test of the prompt's \
             examples in {} of {}\n",
            with_example_test,
            plural(r.projects.len(), "project", "projects"),
        ));
    }
    let dropped_example_tests: Vec<String> = r
        .projects
        .iter()
        .filter_map(|p| {
            let why = p.example_test_dropped.as_ref()?;
            Some(format!("{}: {}", escaped(&p.task_id), escaped(why)))
        })
        .collect();
    if !dropped_example_tests.is_empty() {
        s.push_str("  left out the example test the reference fails:\n");
        lines(&mut s, &dropped_example_tests);
    }
    if let Some(path) = &r.examples {
        let own: Vec<String> = r
            .projects
            .iter()
            .filter(|p| p.examples_from.path != *path)
            .map(|p| escaped(&p.task_id))
            .collect();
        if !own.is_empty() {
            s.push_str(&format!(
                "  not in {}, so read from their own docstrings: {}\n",
                path.display(),
                listed(&own)
            ));
        }
    }
    let without: Vec<String> = r
        .projects
        .iter()
        .filter(|p| p.tests.is_empty() && !p.example_test)
        .map(|p| escaped(&p.task_id))
        .collect();
    if !without.is_empty() {
        s.push_str(&format!(
            "  no tests/ in {} (no example could be read, or the reference fails every one): {}; \
             `repair` needs tests/, the other protocols run them\n",
            plural(without.len(), "project", "projects"),
            listed(&without)
        ));
    }
    let dropped: Vec<String> = r
        .projects
        .iter()
        .flat_map(|p| {
            p.dropped.iter().map(move |d| {
                format!(
                    "{}, prompt line {}: {} — {}",
                    escaped(&p.task_id),
                    d.example.line,
                    one_line(&d.example.text),
                    d.why
                )
            })
        })
        .collect();
    if !dropped.is_empty() {
        s.push_str(&format!(
            "  dropped {} that the reference solution fails (not in tests/):\n",
            plural(dropped.len(), "example", "examples")
        ));
        lines(&mut s, &dropped);
    }
    let unread: Vec<String> = r
        .projects
        .iter()
        .flat_map(|p| {
            p.unread.iter().map(move |u| {
                format!(
                    "{}, prompt line {}: {}",
                    escaped(&p.task_id),
                    u.line,
                    one_line(&u.text)
                )
            })
        })
        .collect();
    if !unread.is_empty() {
        let one = unread.len() == 1;
        s.push_str(&format!(
            "  left out {} that read{} like {} but {} not a call with literal arguments and a \
             literal value (never guessed):\n",
            plural(unread.len(), "line", "lines"),
            if one { "s" } else { "" },
            if one { "an example" } else { "examples" },
            if one { "is" } else { "are" },
        ));
        lines(&mut s, &unread);
    }
    let renamed: Vec<String> = r
        .projects
        .iter()
        .filter(|p| p.folder != p.task_id)
        .map(|p| format!("{} → {}", escaped(&p.task_id), p.folder))
        .collect();
    if let Some(first) = renamed.first() {
        s.push_str(&format!(
            "  folder names: task ids with every character but ASCII letters, digits, `-`, `_` \
             and `.` (not first) written as `_` ({first}{})\n",
            if renamed.len() > 1 { ", …" } else { "" }
        ));
    }
    if r.projects.is_empty() {
        return s;
    }
    s.push_str(&format!(
        "each project: spec.md (the prompt), dixit.toml (from {}), hidden/ (the benchmark's \
         test), tests/ (the examples the reference passes)\n",
        r.template.as_ref().map_or_else(
            || "the built-in template".into(),
            |p| p.display().to_string()
        )
    ));
    s.push_str(&format!(
        "the page (every project, and each flag's evidence): {}\n",
        r.out.join(PAGE_FILE).display()
    ));
    if let Some(p) = r.projects.first() {
        s.push_str(&format!(
            "run one:  dixit run {}\n",
            r.out.join(&p.folder).display()
        ));
    }
    s
}

/// Up to [`SHOWN`] lines, indented, then how many more.
fn lines(s: &mut String, items: &[String]) {
    for item in items.iter().take(SHOWN) {
        s.push_str(&format!("    {item}\n"));
    }
    if items.len() > SHOWN {
        s.push_str(&format!(
            "    … and {} more (--json lists them all)\n",
            items.len() - SHOWN
        ));
    }
}

/// Task ids, the first [`SHOWN`] of them and how many more.
fn listed(ids: &[String]) -> String {
    if ids.len() <= SHOWN {
        return and_list(ids);
    }
    format!(
        "{}, … and {} more",
        ids[..SHOWN].join(", "),
        ids.len() - SHOWN
    )
}

/// A docstring's text on one line (a doctest and its output: `>>> f(1) ⏎ 2`), its control
/// characters escaped.
fn one_line(text: &str) -> String {
    escaped(&text.split('\n').collect::<Vec<_>>().join(" ⏎ "))
}
