//! `--sanitize`: the code taken out of an instruct model's raw answer before it is scored, as
//! EvalPlus's sanitizer does (the fenced block or else the code; the entry point's function and
//! what it uses; chat text, `if __name__` blocks and example calls dropped). A Python answer is
//! read by Python's own parser inside the sandbox (the runtime's `sanitize` mode): an answer is
//! untrusted text, and parsing it never runs it. A C++ or Rust answer keeps its fenced block
//! that names the entry point (the compiler then judges the rest).

use super::benchmark::TaskBody;
use super::score::SamplesInput;
use crate::eval::matrix::Harness;
use crate::eval::{EvalError, Isolation};
use crate::sandbox::Limits;
use crate::toolchain::Toolchains;

/// Per sample of `input`, the whole program `--sanitize` makes of it when that differs from the
/// program the origin harness would assemble (`None`: unchanged). A Python sample from which no
/// code defining the entry point can be taken becomes the empty program, as in EvalPlus.
pub fn sanitize(tc: &Toolchains, input: &SamplesInput) -> Result<Vec<Option<String>>, EvalError> {
    let tasks: std::collections::HashMap<&str, &super::SampleTask> =
        input.tasks.iter().map(|t| (t.id.as_str(), t)).collect();
    let mut out: Vec<Option<String>> = vec![None; input.samples.len()];
    let mut python: Vec<usize> = Vec::new();
    for (n, s) in input.samples.iter().enumerate() {
        let task = tasks[s.task_id.as_str()];
        match &task.body {
            TaskBody::Python { .. } => python.push(n),
            TaskBody::Compiled(_) => {
                if let Some(block) = fenced_block(&s.text, &task.entry_point) {
                    let whole = task.program(&block, true);
                    out[n] = (whole != task.program(&s.text, s.whole_program)).then_some(block);
                }
            }
        }
    }
    if python.is_empty() {
        return Ok(out);
    }
    let runtime = tc.python_runtime().map_err(|e| EvalError::Sandbox {
        doing: "sanitizing samples".into(),
        message: e.to_string(),
    })?;
    // EvalPlus sanitizes a completion after its prompt, on a line of its own.
    let pairs: Vec<(String, String)> = python
        .iter()
        .map(|&n| {
            let s = &input.samples[n];
            let task = tasks[s.task_id.as_str()];
            let text = if s.whole_program {
                s.text.clone()
            } else {
                format!("{}\n{}", task.prompt, s.text)
            };
            (task.entry_point.clone(), text)
        })
        .collect();
    let harness = Harness::new(tc.sandbox(), runtime, Limits::default(), Isolation::Run);
    for (&n, code) in python.iter().zip(harness.sanitize(&pairs)?) {
        let s = &input.samples[n];
        let task = tasks[s.task_id.as_str()];
        let code = code.unwrap_or_default();
        out[n] = (code != task.program(&s.text, s.whole_program)).then_some(code);
    }
    Ok(out)
}

/// The body of the largest markdown code fence of `text` that names `entry`, if any.
fn fenced_block(text: &str, entry: &str) -> Option<String> {
    let mut blocks: Vec<String> = Vec::new();
    let mut body: Option<Vec<&str>> = None;
    for line in text.split('\n') {
        if line.trim_start().starts_with("```") {
            match body.take() {
                Some(lines) => blocks.push(lines.join("\n") + "\n"),
                None => body = Some(Vec::new()),
            }
            continue;
        }
        if let Some(lines) = &mut body {
            lines.push(line);
        }
    }
    if let Some(lines) = body {
        blocks.push(lines.join("\n") + "\n");
    }
    blocks
        .into_iter()
        .filter(|b| b.contains(entry))
        .max_by_key(String::len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fenced_block_naming_the_entry_point_is_kept() {
        let text = "Here:\n```cpp\nint f(int a){ return a; }\n```\nand a test:\n```cpp\nint main(){}\n```\n";
        assert_eq!(
            fenced_block(text, "f(").as_deref(),
            Some("int f(int a){ return a; }\n")
        );
        assert_eq!(fenced_block("int f(int a){}", "f("), None);
    }
}
