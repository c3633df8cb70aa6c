//! MBPP (sanitized, in HumanEval's fields: `shared/data/mbpp`) and the one defect of its records
//! that is mechanical to repair: the reference body (`canonical_solution`) is indented its own
//! way (2 spaces, tabs, mixed), so `prompt + canonical_solution` does not parse for more than half
//! of the tasks. [`mbpp_reference`] re-indents the body by its block structure, four spaces a
//! level, as the prompt's docstring is, and says so; what is left broken is found by running it.

use std::path::PathBuf;

use serde::Deserialize;

use super::examples::Found;
use super::humaneval::{check_record, hidden_test, json_records, Record};
use super::{Benchmark, ImportError, Task, TaskInterface, Tasks};

/// MBPP's JSON Lines in HumanEval's fields (`shared/data/mbpp/mbpp_sanitized_for_code_generation.jsonl`):
/// `prompt` (imports, the signature and the task as a docstring), `entry_point`,
/// `canonical_solution` (the body), `test` (`check(candidate)` whose asserts call the function
/// by its own name, which the hidden test imports from the solution). The prompts carry no
/// examples, so the projects have no acceptance tests.
#[derive(Clone, Debug)]
pub struct Mbpp {
    /// The tasks' file.
    pub file: PathBuf,
}

impl Benchmark for Mbpp {
    fn name(&self) -> &'static str {
        "MBPP"
    }

    fn tasks(&self) -> Result<Tasks, ImportError> {
        let (read, refused) = json_records(
            &self.file,
            "MBPP",
            |r: &MbppRecord| &r.task_id,
            |r| check_record(&r.repaired().0),
        )?;
        let tasks = read
            .into_iter()
            .map(|(at, r)| {
                let (r, mut repaired) = r.repaired();
                let (reference, body) = mbpp_reference(&r.prompt, &r.canonical_solution);
                repaired.extend(body);
                Task {
                    language: crate::toolchain::Language::Python,
                    interface: TaskInterface::Names(vec![r.entry_point.clone()]),
                    example_test: None,
                    hidden_test: hidden_test(&r),
                    reference,
                    solution_head: r.prompt.clone(),
                    repaired,
                    examples_at: at.clone(),
                    examples: Found::default(),
                    id: r.task_id,
                    at,
                    entry_point: r.entry_point,
                    prompt: r.prompt,
                }
            })
            .collect();
        Ok(Tasks { tasks, refused })
    }
}

/// One line of MBPP's file, as written.
#[derive(Debug, Deserialize)]
struct MbppRecord {
    task_id: String,
    prompt: String,
    entry_point: String,
    canonical_solution: String,
    test: String,
}

impl MbppRecord {
    /// The record with what is mechanical to repair repaired (an entry point written with
    /// spaces around it, as two records are), and what was, in words.
    fn repaired(&self) -> (Record, Vec<String>) {
        let entry = self.entry_point.trim();
        let mut repaired = Vec::new();
        if entry != self.entry_point {
            repaired.push(format!(
                "entry point {:?} trimmed to `{entry}`",
                self.entry_point
            ));
        }
        let r = Record {
            task_id: self.task_id.clone(),
            prompt: self.prompt.clone(),
            entry_point: entry.to_string(),
            canonical_solution: self.canonical_solution.clone(),
            test: self.test.clone(),
        };
        (r, repaired)
    }
}

/// The reference module of an MBPP task: `prompt` and `body` joined, the body re-indented to
/// four spaces a level when its own indentation differs, with what was repaired in words.
pub fn mbpp_reference(prompt: &str, body: &str) -> (String, Vec<String>) {
    let fixed = reindent(body);
    let mut repaired = Vec::new();
    if fixed != body {
        let unit = if body.lines().any(|l| l.starts_with('\t')) {
            "tabs"
        } else {
            "its own indentation"
        };
        repaired.push(format!(
            "reference body re-indented from {unit} to four spaces a level"
        ));
    }
    (format!("{prompt}{fixed}"), repaired)
}

/// Python's width of leading whitespace (a tab advances to the next multiple of 8).
fn width(line: &str) -> (usize, usize) {
    let mut w = 0;
    let mut bytes = 0;
    for c in line.chars() {
        match c {
            ' ' => w += 1,
            '\t' => w = (w / 8 + 1) * 8,
            '\x0c' => w = 0,
            _ => break,
        }
        bytes += 1;
    }
    (w, bytes)
}

/// Where a logical line is still open at the end of `line`: bracket depth, an open triple-quoted
/// string, a trailing backslash.
#[derive(Clone, Copy, Default)]
struct Open {
    depth: i32,
    triple: Option<char>,
    backslash: bool,
}

impl Open {
    fn continues(&self) -> bool {
        self.depth > 0 || self.triple.is_some() || self.backslash
    }

    fn scan(mut self, line: &str) -> Open {
        let c: Vec<char> = line.chars().collect();
        let mut i = 0;
        self.backslash = false;
        while i < c.len() {
            if let Some(q) = self.triple {
                if c[i] == '\\' {
                    i += 2;
                    continue;
                }
                if c[i] == q && c.get(i + 1) == Some(&q) && c.get(i + 2) == Some(&q) {
                    self.triple = None;
                    i += 3;
                    continue;
                }
                i += 1;
                continue;
            }
            match c[i] {
                '#' => break,
                '(' | '[' | '{' => self.depth += 1,
                ')' | ']' | '}' => self.depth -= 1,
                q @ ('\'' | '"') => {
                    if c.get(i + 1) == Some(&q) && c.get(i + 2) == Some(&q) {
                        self.triple = Some(q);
                        i += 3;
                        continue;
                    }
                    i += 1;
                    while i < c.len() && c[i] != q {
                        if c[i] == '\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                '\\' if i + 1 == c.len() => self.backslash = true,
                _ => {}
            }
            i += 1;
        }
        self
    }
}

/// `body` with each logical line indented four spaces per block level (the first line at level
/// one, a line dedented to column 0 at module level), continuation lines moved with theirs.
fn reindent(body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 64);
    // Widths of the open blocks; the bottom is module level.
    let mut stack: Vec<usize> = vec![0];
    let mut first = true;
    let mut open = Open::default();
    let mut shift: isize = 0;
    for line in body.split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        let (w, lead) = width(text);
        if open.continues() || text[lead..].is_empty() || text[lead..].starts_with('#') {
            // A continuation, a blank line or a comment: moved with the logical line before it.
            if open.continues() || text[lead..].is_empty() {
                out.push_str(line);
            } else {
                let new = (w as isize + shift).max(0) as usize;
                out.push_str(&" ".repeat(new));
                out.push_str(&line[lead..]);
            }
            open = open.scan(text);
            continue;
        }
        if first {
            stack.push(w.max(1));
            first = false;
        } else if w > *stack.last().unwrap_or(&0) {
            stack.push(w);
        } else {
            while stack.len() > 1 && *stack.last().unwrap_or(&0) > w {
                stack.pop();
            }
            if *stack.last().unwrap_or(&0) < w {
                // A dedent to a width no block had: Python refuses it; keep the line's level.
                stack.push(w);
            }
        }
        let level = if w == 0 { 0 } else { stack.len() - 1 };
        if w == 0 {
            stack.truncate(1);
        }
        let new = 4 * level;
        shift = new as isize - w as isize;
        out.push_str(&" ".repeat(new));
        out.push_str(&line[lead..]);
        open = open.scan(text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_spaces_and_tabs_become_four_a_level() {
        let (r, fixed) = mbpp_reference(
            "def f(a):\n    '''doc'''\n",
            "  if a:\n    return 1\n  return (2,\n   3)\n",
        );
        assert_eq!(
            r,
            "def f(a):\n    '''doc'''\n    if a:\n        return 1\n    return (2,\n   3)\n"
        );
        assert_eq!(fixed.len(), 1);
        let (r, _) = mbpp_reference("def f(a):\n", "\tfor x in a:\n\t\tpass\n\treturn a\n");
        assert_eq!(
            r,
            "def f(a):\n    for x in a:\n        pass\n    return a\n"
        );
    }

    #[test]
    fn a_body_already_right_is_left_alone_and_module_level_stays() {
        let body = "    return g(a)\ndef g(x):\n  return x\n";
        let (r, fixed) = mbpp_reference("def f(a):\n", body);
        assert_eq!(r, "def f(a):\n    return g(a)\ndef g(x):\n    return x\n");
        assert_eq!(fixed.len(), 1);
        let (_, none) = mbpp_reference("def f(a):\n", "    s = '''\n  x'''\n    return s\n");
        assert!(none.is_empty());
    }
}
