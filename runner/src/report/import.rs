//! The summary of `dixit import`: how many projects, which have an acceptance suite, the
//! examples dropped and the lines left unread (each with its task and line), and what every
//! project holds.

use crate::english::and_list;
use crate::english::plural;
use crate::evidence::escaped;
use crate::import::ImportReport;

/// Lines listed per kind (dropped examples, unread lines); `--json` has them all.
const SHOWN: usize = 12;

/// The terminal summary of an import.
pub fn import_summary(r: &ImportReport) -> String {
    let examples_file = r.examples.as_ref().unwrap_or(&r.file);
    let mut s = format!(
        "imported {} from {} into {}: one project each\n",
        plural(
            r.projects.len(),
            &format!("{} task", r.benchmark),
            &format!("{} tasks", r.benchmark)
        ),
        r.file.display(),
        r.out.display()
    );
    let with_tests: Vec<_> = r.projects.iter().filter(|p| !p.tests.is_empty()).collect();
    let tests: usize = with_tests.iter().map(|p| p.tests.len()).sum();
    s.push_str(&format!(
        "  acceptance tests (tests/): {} in {} of {}, read from the docstrings in {}\n",
        plural(tests, "example", "examples"),
        with_tests.len(),
        plural(r.projects.len(), "project", "projects"),
        examples_file.display()
    ));
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
        .filter(|p| p.tests.is_empty())
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
    s.push_str(&format!(
        "each project: spec.md (the prompt), dixit.toml (from {}), hidden/test_hidden.py (the \
         benchmark's check, which the reference passes), tests/ (one test per example)\n",
        r.template.as_ref().map_or_else(
            || "the built-in template".into(),
            |p| p.display().to_string()
        )
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
