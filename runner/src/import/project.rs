//! From checked tasks to project folders: folder names made from task ids, each project's
//! files (`spec.md`, `dixit.toml` from a [`Template`], `hidden/`, `tests/`), and writing them
//! all or nothing.
//!
//! A project holds nothing of the reference solution: the spec is the task's prompt and one
//! sentence, the tests are the benchmark's own and the prompt's examples. A task whose reference
//! or hidden test does not build is refused (no project); one whose reference fails its own
//! hidden test is written but flagged: its `FLAGGED.md` holds the evidence a person needs to
//! tell which side is wrong, and `dixit compare` leaves the project out while the file is there.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::check::{unit_kind, why, Checked};
use super::{Example, ImportError, Place, Refusal, Refused, Task, TaskInterface, Unread};
use crate::config::{Config, TestStyle};
use crate::sandbox::{Limits, Verdict, VerdictKind};
use crate::toolchain::{solution_files, Language, TestKind};

/// The file in a flagged project's folder: the evidence, and what a person decides.
pub const FLAG_FILE: &str = "FLAGGED.md";

/// The `dixit.toml` every imported project gets when no template is given: a Python project
/// for the local model, with a table for every protocol.
pub const BUILTIN_TEMPLATE: &str = include_str!("../../assets/import/dixit.toml");

/// The report of the last import into a folder, beside its projects.
pub const REPORT_FILE: &str = "import.json";

/// The longest task id a folder is named from.
const MAX_ID_CHARS: usize = 100;

/// A project's `dixit.toml`, the same for every task but `[project] name` (the task's id).
#[derive(Clone, Debug)]
pub struct Template {
    text: String,
    config: Config,
    /// Where it comes from: its path, or `None` for [`BUILTIN_TEMPLATE`].
    pub path: Option<PathBuf>,
}

impl Template {
    /// [`BUILTIN_TEMPLATE`].
    pub fn builtin() -> Result<Template, ImportError> {
        Template::parse(BUILTIN_TEMPLATE, Path::new("(built-in template)"), None)
    }

    /// The template in file `path`.
    pub fn load(path: &Path) -> Result<Template, ImportError> {
        let text = std::fs::read_to_string(path).map_err(|source| ImportError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Template::parse(&text, path, Some(path.to_path_buf()))
    }

    /// Checks `text` as a project's config: every key, the protocol it names and each
    /// protocol table it has (so `dixit run --protocol NAME` works too), and unit tests (what an
    /// import writes; the language and interface are each task's). Errors name `shown`, the key
    /// and its line.
    fn parse(text: &str, shown: &Path, path: Option<PathBuf>) -> Result<Template, ImportError> {
        let bad = ImportError::Template;
        let config = Config::parse(text, shown).map_err(bad)?;
        if config.project.tests != TestStyle::Unit {
            return Err(bad(config.invalid(
                "project.tests",
                "an imported task's tests call the function: tests = \"unit\"".into(),
            )));
        }
        crate::protocol::select(&config).map_err(bad)?;
        for p in crate::protocol::REGISTRY {
            if config.has_table(p.name()) {
                let named = config.with_protocol(crate::config::ProtocolName::new(p.name()));
                crate::protocol::select(&named).map_err(bad)?;
            }
        }
        Ok(Template {
            text: text.to_string(),
            config,
            path,
        })
    }

    /// The limits of a sandbox run in these projects.
    pub fn limits(&self) -> Limits {
        self.config.limits.limits()
    }

    /// The projects' base seed.
    pub fn seed(&self) -> u64 {
        self.config.project.seed
    }

    /// The text of a project's `dixit.toml`: the template, comments and all, with `[project]
    /// name` set to the task's id, `language` to its language and `interface` to what its tests
    /// may use (the entry point; for C/C++ the header `interface/solution.h`).
    fn for_task(&self, task: &Task) -> String {
        let mut doc: toml_edit::DocumentMut = self
            .text
            .parse()
            .expect("a template that parsed as a config parses as a document");
        doc["project"]["name"] = toml_edit::value(&task.id);
        if task.language != Language::Python {
            doc["project"]["language"] = toml_edit::value(task.language.as_str());
            // The template's comment on `tests` may speak of Python's files.
            doc["project"]["tests"] = toml_edit::value("unit");
        }
        let array = |names: &[String]| {
            let mut a = toml_edit::Array::new();
            for n in names {
                a.push(n.as_str());
            }
            toml_edit::value(a)
        };
        doc["project"]["interface"] = match &task.interface {
            TaskInterface::Names(names) | TaskInterface::Items(names) => array(names),
            TaskInterface::Header(_) => toml_edit::value(HEADER),
        };
        doc.to_string()
    }
}

/// The folder name of task `id`: ASCII letters, digits, `-`, `_` and `.` (not first) stay, any
/// other character becomes `_` (`HumanEval/0` → `HumanEval_0`). An id that is empty, longer than
/// 100 characters or holds a control character is refused (the reason is the error).
pub fn folder_name(id: &str) -> Result<String, Refusal> {
    if id.is_empty() {
        return Err(Refusal::EmptyId);
    }
    if id.chars().any(char::is_control) {
        return Err(Refusal::ControlInId(id.to_string()));
    }
    if id.chars().count() > MAX_ID_CHARS {
        return Err(Refusal::LongId(MAX_ID_CHARS));
    }
    Ok(id
        .chars()
        .enumerate()
        .map(|(i, c)| {
            let kept = c.is_ascii_alphanumeric() || c == '-' || c == '_' || (c == '.' && i > 0);
            if kept {
                c
            } else {
                '_'
            }
        })
        .collect())
}

/// One project, ready to be written.
#[derive(Clone, Debug)]
pub struct Planned {
    /// Its folder's name.
    pub folder: String,
    /// Its files: a path relative to the folder, and the contents.
    pub files: Vec<(PathBuf, String)>,
    /// What became of the task.
    pub report: ProjectReport,
}

/// Where an imported C/C++ project's interface header is.
const HEADER: &str = "interface/solution.h";

/// What became of one task.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProjectReport {
    /// The benchmark's id of the task.
    pub task_id: String,
    /// The project's folder name.
    pub folder: String,
    /// The language of its code and tests.
    pub language: Language,
    /// Why the project is flagged (the reference fails its own hidden test); `None`: clean.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flagged: Option<Flag>,
    /// Whether the benchmark's example test is in `tests/` (the reference passes it).
    pub example_test: bool,
    /// The benchmark's example test, when the reference fails it: left out, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example_test_dropped: Option<String>,
    /// Where its examples were read.
    pub examples_from: Place,
    /// The examples written as `tests/`, one file each.
    pub tests: Vec<Example>,
    /// Examples the reference solution fails: left out.
    pub dropped: Vec<Dropped>,
    /// Lines that look like examples but could not be read: left out.
    pub unread: Vec<Unread>,
    /// What the reader repaired of the benchmark's record (MBPP's reference indentation).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repaired: Vec<String>,
}

/// An example the reference solution fails, and how it failed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Dropped {
    /// The example.
    pub example: Example,
    /// Its verdict against the reference solution.
    pub verdict: VerdictKind,
    /// The verdict and the failure in a few words.
    pub why: String,
}

/// The evidence of a flagged task: the benchmark's test and its reference disagree.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Flag {
    /// The hidden test's verdict on the reference, in a few words.
    pub why: String,
    /// What the failing run showed: the failed assertion or panic, and the reference's output.
    pub evidence: String,
    /// What the reference did on the prompt's own examples (their tests, when the task has
    /// them): if it passes them, the hidden test more likely asks for something the prompt
    /// does not say.
    pub examples: String,
}

/// What an import did (its summary, and `--json`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ImportReport {
    /// The benchmark's name (`HumanEval`).
    pub benchmark: String,
    /// The file the tasks came from.
    pub file: PathBuf,
    /// The file the examples came from, if not `file`.
    pub examples: Option<PathBuf>,
    /// The template's path; `None`: the built-in one.
    pub template: Option<PathBuf>,
    /// The folder the projects were written in.
    pub out: PathBuf,
    /// Clean projects (written, in comparisons).
    pub clean: usize,
    /// Flagged projects (written, left out of comparisons until a person decides).
    pub flagged: usize,
    /// What became of each task.
    pub projects: Vec<ProjectReport>,
    /// Records no project was made of.
    pub refused: Vec<Refused>,
}

impl ImportReport {
    /// The report of an import of `projects`, with the records `refused`.
    pub fn new(
        benchmark: &str,
        file: PathBuf,
        examples: Option<PathBuf>,
        template: Option<PathBuf>,
        out: PathBuf,
        projects: Vec<ProjectReport>,
        refused: Vec<Refused>,
    ) -> ImportReport {
        let flagged = projects.iter().filter(|p| p.flagged.is_some()).count();
        ImportReport {
            benchmark: benchmark.into(),
            file,
            examples,
            template,
            out,
            clean: projects.len() - flagged,
            flagged,
            projects,
            refused,
        }
    }

    /// Writes the report as `out/import.json` (what the import page is rendered from).
    pub fn save(&self) -> Result<PathBuf, ImportError> {
        let path = self.out.join(REPORT_FILE);
        let json = serde_json::to_string_pretty(self).expect("an import report serialises");
        std::fs::write(&path, json + "\n").map_err(|source| ImportError::Write {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }
}

/// The projects of `tasks` (in the `folders` that [`folders`] named), whose reference solutions
/// did `checked`: files, and what became of each example; and the tasks
/// refused because their reference or hidden test does not build. A reference that fails its
/// hidden test is flagged: its project gets [`FLAG_FILE`] with the evidence.
pub fn plan(
    tasks: &[Task],
    folders: &[String],
    checked: &[Checked],
    template: &Template,
) -> Result<(Vec<Planned>, Vec<Refused>), ImportError> {
    let mut out = Vec::with_capacity(tasks.len());
    let mut refused = Vec::new();
    for ((task, checked), folder) in tasks.iter().zip(checked).zip(folders) {
        if checked.hidden.verdict == VerdictKind::CompileError {
            refused.push(Refused {
                task_id: task.id.clone(),
                at: task.at.clone(),
                why: format!(
                    "the reference solution and its hidden test do not build together: {}",
                    build_message(&checked.hidden)
                ),
            });
            continue;
        }
        let mut tests = Vec::new();
        let mut dropped = Vec::new();
        for (e, v) in task.examples.examples.iter().zip(&checked.examples) {
            if v.verdict == VerdictKind::Pass {
                tests.push(e.clone());
            } else {
                dropped.push(Dropped {
                    example: e.clone(),
                    verdict: v.verdict,
                    why: why(v),
                });
            }
        }
        let (kind, ext) = unit_kind(task.language);
        let mut files = vec![
            (PathBuf::from("spec.md"), spec(task, kind)),
            (PathBuf::from("dixit.toml"), template.for_task(task)),
            (
                PathBuf::from(format!("hidden/test_hidden.{ext}")),
                task.hidden_test.clone(),
            ),
        ];
        if let TaskInterface::Header(text) = &task.interface {
            files.push((PathBuf::from(HEADER), text.clone()));
        }
        let width = tests.len().to_string().len().max(2);
        for (i, e) in tests.iter().enumerate() {
            files.push((
                PathBuf::from(format!("tests/test_example_{:0width$}.py", i + 1)),
                e.test_file(&task.entry_point),
            ));
        }
        let mut example_test_dropped = None;
        let mut example_test = false;
        if let (Some(t), Some(v)) = (&task.example_test, &checked.example_test) {
            if v.verdict == VerdictKind::Pass {
                example_test = true;
                files.push((
                    PathBuf::from(format!("tests/test_examples.{ext}")),
                    t.clone(),
                ));
            } else {
                example_test_dropped = Some(why(v));
            }
        }
        let flagged = (checked.hidden.verdict != VerdictKind::Pass).then(|| Flag {
            why: why(&checked.hidden),
            evidence: evidence_text(&checked.hidden),
            examples: examples_text(checked),
        });
        if let Some(f) = &flagged {
            files.push((PathBuf::from(FLAG_FILE), flag_file(task, folder, f, ext)));
        }
        out.push(Planned {
            files,
            report: ProjectReport {
                task_id: task.id.clone(),
                folder: folder.clone(),
                language: task.language,
                flagged,
                example_test,
                example_test_dropped,
                examples_from: task.examples_at.clone(),
                tests,
                dropped,
                unread: task.examples.unread.clone(),
                repaired: task.repaired.clone(),
            },
            folder: folder.clone(),
        });
    }
    Ok((out, refused))
}

/// A build failure's message, on one line and at most 300 characters.
fn build_message(v: &Verdict) -> String {
    let text = v.detail.as_deref().unwrap_or(v.verdict.as_str());
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    line.chars().take(300).collect()
}

/// What a failing run showed, for a person: its detail (the failed assertion or panic) and its
/// output, each cut to a few lines.
fn evidence_text(v: &Verdict) -> String {
    let mut parts = Vec::new();
    if let Some(d) = &v.detail {
        parts.push(d.trim().to_string());
    }
    for (name, text) in [("stdout", &v.stdout), ("stderr", &v.stderr)] {
        let t = text.trim();
        if !t.is_empty() && !parts.iter().any(|p| p.contains(t)) {
            let cut: String = t.lines().take(20).collect::<Vec<_>>().join("\n");
            parts.push(format!("{name}:\n{cut}"));
        }
    }
    let text = parts.join("\n");
    text.chars().take(4000).collect()
}

/// What the reference did on the prompt's examples, in a sentence.
fn examples_text(checked: &Checked) -> String {
    if let Some(v) = &checked.example_test {
        return if v.passed() {
            "the reference passes the benchmark's test of them".into()
        } else {
            format!(
                "the reference fails the benchmark's test of them too: {}",
                why(v)
            )
        };
    }
    let n = checked.examples.len();
    if n == 0 {
        return "the prompt has no examples this import could read".into();
    }
    let passed = checked.examples.iter().filter(|v| v.passed()).count();
    format!(
        "{passed} of the prompt's {n} example{} passed",
        if n == 1 { "" } else { "s" }
    )
}

/// `FLAGGED.md`: the disagreement, its evidence, and what a person decides.
fn flag_file(task: &Task, folder: &str, f: &Flag, ext: &str) -> String {
    format!(
        "# {id}: flagged at import\n\n\
         The benchmark's reference solution fails its own hidden test \
         (`hidden/test_hidden.{ext}`): {why}. One of the two is wrong, or the prompt leaves \
         open what the test checks.\n\n\
         ## What the failing run showed\n\n```text\n{evidence}\n```\n\n\
         ## The prompt's examples\n\n{examples}.\n\n\
         ## Deciding\n\n\
         `dixit compare` leaves this project out until a person decides. Read `spec.md` and \
         the hidden test, then, from the folder above this project's:\n\n\
         - the test is right (the reference is wrong): `dixit decide {folder} include --why \
         \"...\"`; the project takes part;\n\
         - the test is wrong: `dixit decide {folder} exclude --why \"...\"`; it stays out (or \
         fix the assertion in the hidden test, then include it).\n\n\
         Each decision is journaled in `{decisions}` with who and why, and answers this file \
         as it is: a re-import that flags the task differently waits for a person again.\n",
        folder = folder,
        decisions = super::DECISIONS_FILE,
        id = task.id,
        why = f.why,
        evidence = f.evidence,
        examples = f.examples,
    )
}

/// The tasks whose ids name a folder, and their folder names; a task whose id names none, or
/// gives the folder name of an earlier task, is refused with its line and why (the others go
/// on).
pub fn folders(tasks: Vec<Task>) -> (Vec<Task>, Vec<String>, Vec<Refused>) {
    let mut seen: std::collections::HashMap<String, (Place, String)> =
        std::collections::HashMap::new();
    let (mut kept, mut names, mut refused) = (Vec::new(), Vec::new(), Vec::new());
    for t in tasks {
        let why = match folder_name(&t.id) {
            Err(why) => why,
            Ok(name) => match seen.get(&name) {
                Some((at, id)) => Refusal::SameFolder {
                    first: id.clone(),
                    at: at.to_string(),
                    second: t.id.clone(),
                    name,
                },
                None => {
                    seen.insert(name.clone(), (t.at.clone(), t.id.clone()));
                    names.push(name);
                    kept.push(t);
                    continue;
                }
            },
        };
        refused.push(Refused {
            task_id: t.id,
            at: t.at,
            why: why.to_string(),
        });
    }
    (kept, names, refused)
}

/// `spec.md`: the function's name, one sentence, and the task's code (imports, helpers, the
/// signature and its comment or docstring) in a fence longer than any run of backticks in it.
fn spec(task: &Task, kind: TestKind) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in task.prompt.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    let entry = &task.entry_point;
    let (file, _) = solution_files(task.language, kind);
    let (lang, how) = match task.language {
        Language::Cpp => ("cpp", " (with the includes it needs)"),
        Language::C => ("c", " (with the includes it needs)"),
        Language::Rust => ("rust", " as a `pub fn`"),
        _ => ("python", ""),
    };
    format!(
        "# {entry}\n\nImplement the function `{entry}` below in `{file}`{how}.\n\n\
         {fence}{lang}\n{}\n{fence}\n",
        task.prompt.trim_matches('\n').trim_end()
    )
}

/// Those of `folders` that exist in `out` already.
pub fn existing(out: &Path, folders: &[String]) -> Vec<String> {
    folders
        .iter()
        .filter(|f| std::fs::symlink_metadata(out.join(f)).is_ok())
        .cloned()
        .collect()
}

/// Writes every project into `out` (created if missing): first all of them into a staging
/// folder inside `out`, then each moved into place, so a failure while writing leaves nothing
/// behind. A project folder that exists is an error, or with `force` is replaced (its runs too).
pub fn write(out: &Path, planned: &[Planned], force: bool) -> Result<(), ImportError> {
    let err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ImportError::Write { path, source }
    };
    let folders: Vec<String> = planned.iter().map(|p| p.folder.clone()).collect();
    let there = existing(out, &folders);
    if !force && !there.is_empty() {
        return Err(ImportError::Exists {
            out: out.to_path_buf(),
            folders: there,
        });
    }
    std::fs::create_dir_all(out).map_err(err(out))?;
    let stage = tempfile::Builder::new()
        .prefix(".dixit-import-")
        .tempdir_in(out)
        .map_err(err(out))?;
    for p in planned {
        for (rel, text) in &p.files {
            let path = stage.path().join(&p.folder).join(rel);
            if let Some(d) = path.parent() {
                std::fs::create_dir_all(d).map_err(err(d))?;
            }
            std::fs::write(&path, text).map_err(err(&path))?;
        }
    }
    for p in planned {
        let target = out.join(&p.folder);
        match std::fs::symlink_metadata(&target) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&target).map_err(err(&target))?,
            Ok(_) => std::fs::remove_file(&target).map_err(err(&target))?,
            Err(_) => {}
        }
        std::fs::rename(stage.path().join(&p.folder), &target).map_err(err(&target))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::Verdict;

    fn task(id: &str, line: usize) -> Task {
        Task {
            id: id.into(),
            at: Place {
                path: "he.jsonl".into(),
                line,
            },
            language: Language::Python,
            interface: TaskInterface::Names(vec!["inc".into()]),
            example_test: None,
            entry_point: "inc".into(),
            prompt: "\n\ndef inc(x):\n    \"\"\" Add one: `x + 1`.\n    ```\n    inc(1) ==> 2\n    ```\n    \"\"\"\n".into(),
            hidden_test: "from solution import inc\n\ndef check(c):\n    assert c(1) == 2\n\ncheck(inc)\n".into(),
            reference: "def inc(x):\n    return x + 1  # THE REFERENCE\n".into(),
            solution_head: String::new(),
            repaired: Vec::new(),
            examples_at: Place {
                path: "he.jsonl".into(),
                line,
            },
            examples: crate::import::examples::read(
                "def inc(x):\n    \"\"\"\n    inc(1) ==> 2\n    inc(2) ==> 4\n    inc(a) ==> 2\n    \"\"\"\n",
                "inc",
            ),
        }
    }

    fn verdict(kind: VerdictKind) -> Verdict {
        Verdict::not_run(kind, None, "", 1)
    }

    fn checked(examples: &[VerdictKind]) -> Checked {
        Checked {
            hidden: verdict(VerdictKind::Pass),
            examples: examples.iter().map(|&k| verdict(k)).collect(),
            example_test: None,
        }
    }

    /// Task ids are data: they become folder names with nothing but letters, digits, `-`, `_`
    /// and `.` (not first), or are refused.
    #[test]
    fn hostile_task_ids_become_safe_folder_names_or_are_refused() {
        for (id, name) in [
            ("HumanEval/0", "HumanEval_0"),
            ("..", "_."),
            ("../../etc/passwd", "_._.._etc_passwd"),
            ("/abs", "_abs"),
            ("a\\b", "a_b"),
            (".hidden", "_hidden"),
            ("a b:c*?", "a_b_c__"),
            ("é", "_"),
            ("Mbpp.v2-1", "Mbpp.v2-1"),
        ] {
            assert_eq!(folder_name(id).unwrap(), name, "{id:?}");
            let n = folder_name(id).unwrap();
            assert!(!n.contains('/') && n != ".." && n != "." && !n.starts_with('.'));
        }
        for id in ["", "a\nb", "a\u{0}b", "a\u{1b}[31mb", &"x".repeat(101)] {
            assert!(folder_name(id).is_err(), "{id:?}");
        }
    }

    #[test]
    fn an_id_that_names_no_folder_or_the_folder_of_another_is_refused_with_its_line() {
        let (kept, names, refused) = folders(vec![task("a/b", 3), task("a_b", 7), task("a\tb", 4)]);
        assert_eq!(names, ["a_b"]);
        assert_eq!(kept[0].id, "a/b");
        let refused: Vec<String> = refused
            .iter()
            .map(|r| format!("{}: {}", r.at, r.why))
            .collect();
        assert_eq!(
            refused[0],
            "he.jsonl:7: task ids \"a/b\" (he.jsonl:3) and \"a_b\" both become the folder name a_b"
        );
        assert!(
            refused[1].starts_with("he.jsonl:4: the task id \"a\\tb\" holds a control character"),
            "{refused:?}"
        );
    }

    /// A project: the spec (no reference in it), the template's config with the task's name,
    /// the hidden test, and one test per example the reference passes.
    #[test]
    fn a_project_has_its_files_and_never_the_reference() {
        let t = task("T/1", 1);
        assert_eq!(t.examples.examples.len(), 2);
        assert_eq!(t.examples.unread.len(), 1);
        let planned = plan(
            std::slice::from_ref(&t),
            &folders(vec![t.clone()]).1,
            &[checked(&[VerdictKind::Pass, VerdictKind::WrongAnswer])],
            &Template::builtin().unwrap(),
        )
        .unwrap()
        .0;
        let p = &planned[0];
        assert_eq!(p.folder, "T_1");
        let names: Vec<String> = p
            .files
            .iter()
            .map(|(n, _)| n.display().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "spec.md",
                "dixit.toml",
                "hidden/test_hidden.py",
                "tests/test_example_01.py"
            ]
        );
        let spec = &p.files[0].1;
        assert!(
            spec.starts_with("# inc\n\nImplement the function `inc` below in `solution.py`.\n\n````python\ndef inc(x):\n"),
            "{spec}"
        );
        assert!(spec.ends_with("    \"\"\"\n````\n"), "{spec}");
        let config = &p.files[1].1;
        assert!(config.contains("name = \"T/1\""), "{config}");
        assert!(
            config.contains("# A project made by `dixit import`"),
            "comments are kept"
        );
        Config::parse(config, Path::new("dixit.toml")).unwrap();
        assert_eq!(
            p.files[3].1,
            "from solution import inc\n\nassert inc(1) == 2\n"
        );
        for (_, text) in &p.files {
            assert!(!text.contains("THE REFERENCE"));
        }
        assert_eq!(p.report.tests.len(), 1);
        assert_eq!(p.report.dropped[0].example.text, "inc(2) ==> 4");
        assert_eq!(p.report.dropped[0].why, "wrong_answer");
        assert_eq!(p.report.unread[0].text, "inc(a) ==> 2");

        // A reference that fails its hidden test: written, flagged with the evidence; one
        // that does not build with it: refused, with its line.
        let mut failing = checked(&[VerdictKind::Pass, VerdictKind::WrongAnswer]);
        failing.hidden = verdict(VerdictKind::RuntimeError);
        let mut broken = checked(&[]);
        broken.hidden = verdict(VerdictKind::CompileError);
        let (planned, refused) = plan(
            &[task("T/2", 9), task("T/3", 10)],
            &["T_2".to_string(), "T_3".to_string()],
            &[failing, broken],
            &Template::builtin().unwrap(),
        )
        .unwrap();
        assert_eq!(planned.len(), 1);
        let f = planned[0].report.flagged.as_ref().expect("flagged");
        assert!(f.why.starts_with("runtime_error"), "{}", f.why);
        assert_eq!(f.examples, "1 of the prompt's 2 examples passed");
        let flag = &planned[0]
            .files
            .iter()
            .find(|(n, _)| n == Path::new(FLAG_FILE));
        assert!(flag
            .unwrap()
            .1
            .contains("`dixit compare` leaves this project out"));
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].task_id, "T/3");
        assert_eq!(refused[0].at.line, 10);
        assert!(
            refused[0].why.contains("do not build together"),
            "{}",
            refused[0].why
        );
    }

    /// A template that is not a unit-test project dixit can run is refused, naming the file, the
    /// key and its line.
    #[test]
    fn a_bad_template_names_the_file_and_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let err = |text: &str| {
            let p = dir.path().join("tpl.toml");
            std::fs::write(&p, text).unwrap();
            Template::load(&p).unwrap_err().to_string()
        };
        let ok = BUILTIN_TEMPLATE;
        let e = err(&ok.replace("tests = \"unit\"", "tests = \"io\""));
        assert!(e.contains("`project.tests` (line 6)"), "{e}");
        let e = err(&ok.replace("max_rounds = 4", "max_roundz = 4"));
        assert!(e.contains("tpl.toml") && e.contains("max_roundz"), "{e}");
        let e = err(&ok.replace("[debate]\ncoders = 3", "[debate]\ncoders = \"many\""));
        assert!(e.contains("tpl.toml") && e.contains("coders"), "{e}");
        let e = err(&ok.replace("backend = \"openai\"", "backend = \"telepathy\""));
        assert!(e.contains("`agents.backend` (line"), "{e}");
        let e = err("[project\n");
        assert!(e.starts_with("template ") && e.contains("tpl.toml"), "{e}");
        let e = Template::load(&dir.path().join("absent.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("absent.toml: cannot read"), "{e}");
        // The built-in template is a good one, and a template may name the project.
        Template::builtin().unwrap();
        let t = Template::parse(&format!("{ok}\n"), Path::new("t"), None).unwrap();
        let named = ok.replace("[project]\n", "[project]\nname = \"x\"\n");
        let t2 = Template::parse(&named, Path::new("t"), None).unwrap();
        let mut odd = task("a\"b'c", 1);
        odd.interface = TaskInterface::Names(vec!["f".into()]);
        let doc: toml::Table = toml::from_str(&t.for_task(&odd)).unwrap();
        assert_eq!(doc["project"]["name"].as_str(), Some("a\"b'c"));
        assert_eq!(
            doc["project"]["interface"].as_array().unwrap(),
            &vec![toml::Value::from("f")]
        );
        assert!(t2.for_task(&task("T/3", 1)).contains("name = \"T/3\""));
        assert!(!t2.for_task(&task("T/3", 1)).contains("name = \"x\""));
        // The language and interface are each task's: a C++ task gets its header.
        let mut cpp = task("CPP/1", 1);
        cpp.language = Language::Cpp;
        cpp.interface = TaskInterface::Header("#pragma once\n".into());
        let doc: toml::Table = toml::from_str(&t.for_task(&cpp)).unwrap();
        assert_eq!(doc["project"]["language"].as_str(), Some("cpp"));
        assert_eq!(
            doc["project"]["interface"].as_str(),
            Some("interface/solution.h")
        );
    }

    /// Writing is all or nothing: existing folders are refused (nothing written), or replaced
    /// with `force`; no staging folder is left.
    #[test]
    fn writing_refuses_or_replaces_existing_folders() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let planned = plan(
            &[task("A", 1), task("B", 2)],
            &["A".to_string(), "B".to_string()],
            &[
                checked(&[VerdictKind::Pass, VerdictKind::Pass]),
                checked(&[]),
            ],
            &Template::builtin().unwrap(),
        )
        .unwrap()
        .0;
        write(&out, &planned, false).unwrap();
        assert!(out.join("A/tests/test_example_02.py").is_file());
        assert!(out.join("B/hidden/test_hidden.py").is_file());
        std::fs::write(out.join("B/spec.md"), "changed").unwrap();
        std::fs::create_dir_all(out.join("B/runs/x")).unwrap();
        let e = write(&out, &planned, false).unwrap_err().to_string();
        assert!(e.contains("already"), "{e}");
        assert!(e.contains("A and B"), "{e}");
        assert_eq!(
            std::fs::read_to_string(out.join("B/spec.md")).unwrap(),
            "changed"
        );
        write(&out, &planned, true).unwrap();
        assert_ne!(
            std::fs::read_to_string(out.join("B/spec.md")).unwrap(),
            "changed"
        );
        assert!(!out.join("B/runs").exists());
        let mut left: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["A", "B"]);
        let e = write(&out.join("A/spec.md"), &planned, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot write"), "{e}");
    }
}
