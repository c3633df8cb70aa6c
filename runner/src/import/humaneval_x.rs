//! The reader of HumanEval-X (THUDM/CodeGeeX) in C++ and Rust: JSON Lines, plain or gzipped,
//! one task a line, the language from the task id (`CPP/0`, `Rust/0`):
//!
//! | field | what it is | in a project |
//! |---|---|---|
//! | `prompt` | the comment with the examples (C++: the includes and the signature too) | `spec.md` |
//! | `declaration` | includes or `use` lines, helpers, the signature | the interface: `interface/solution.h` (C++: prototypes), `[project] interface` items (Rust) |
//! | `canonical_solution` | the body that completes the declaration | nowhere: it checks the tests in the sandbox |
//! | `test` | a `main` (C++) or a `#[cfg(test)]` module (Rust) | `hidden/test_hidden.cpp` / `.rs` |
//! | `example_test` | the prompt's examples as a test (C++) | `tests/test_examples.cpp` |
//!
//! A record this reader cannot make a project of is refused with its line and the reason, and
//! the others still import: not JSON, a field missing, an id repeated or in another language, a
//! declaration that does not end with the function's signature, a test cut off (braces left
//! open) or with nothing to run. What only a build can tell (a library the sandbox lacks, a
//! reference that does not compile) is found by the check in the sandbox.

use std::path::PathBuf;

use serde::Deserialize;

use super::examples::Found;
use super::humaneval::json_records;
use super::rust_source;
use super::source::{code_mask, cpp_function_name, open_braces, pieces, Piece, Syntax};
use super::{Benchmark, ImportError, Place, Refusal, Refused, Task, TaskInterface, Tasks};
use crate::toolchain::Language;

/// HumanEval-X's JSON Lines in C++ or Rust (both may be in one file).
#[derive(Clone, Debug)]
pub struct HumanEvalX {
    /// The tasks' file.
    pub file: PathBuf,
}

/// One line of the file.
#[derive(Debug, Deserialize)]
struct Record {
    task_id: String,
    prompt: String,
    declaration: String,
    canonical_solution: String,
    test: String,
    #[serde(default)]
    example_test: Option<String>,
}

/// The crates a Rust solution may use: the standard library's (the sandbox builds with rustc
/// alone, so a benchmark's `use rand::Rng;` names a crate no build has).
const RUST_STD_CRATES: &[&str] = &["std", "core", "alloc", "self", "super", "crate"];

impl Benchmark for HumanEvalX {
    fn name(&self) -> &'static str {
        "HumanEval-X"
    }

    fn tasks(&self) -> Result<Tasks, ImportError> {
        let (records, refused) = json_records(
            &self.file,
            "HumanEval-X",
            |r: &Record| &r.task_id,
            |_| Ok(()),
        )?;
        let mut out = Tasks {
            tasks: Vec::new(),
            refused,
        };
        for (at, r) in records {
            let made = match r.task_id.split('/').next() {
                Some("CPP") => cpp_task(&r, &at),
                Some("Rust") => rust_task(&r, &at),
                _ => Err(Refusal::UnknownLanguage(r.task_id.clone())),
            };
            match made {
                Ok(t) => out.tasks.push(t),
                Err(why) => out.refused.push(Refused {
                    task_id: r.task_id.clone(),
                    at,
                    why: why.to_string(),
                }),
            }
        }
        out.refused.sort_by_key(|x| x.at.line);
        Ok(out)
    }
}

/// What every task's test must be: whole (its braces close) and not empty.
fn check_test(test: &str, syntax: Syntax) -> Result<(), Refusal> {
    match open_braces(test, syntax) {
        0 => Ok(()),
        n if n > 0 => Err(Refusal::CutOff { open: n }),
        n => Err(Refusal::Overclosed(-n)),
    }
}

/// A C++ task: the header holds the declaration's includes and a prototype of each function it
/// defines or declares; the entry point is the last, the function the declaration leaves open.
fn cpp_task(r: &Record, at: &Place) -> Result<Task, Refusal> {
    let (parts, _) = pieces(&r.declaration, Syntax::Cpp);
    let (entry, last, helpers) = entry_point(&parts)?;
    let mut header = String::from("#pragma once\n");
    for p in helpers {
        header.push_str(p.head.trim());
        match cpp_function_name(p.head) {
            // A helper the declaration defines: the solution defines it, the test sees it.
            Some(_) => header.push_str(";\n"),
            None => {
                header.push_str(p.block.unwrap_or(""));
                header.push('\n');
            }
        }
    }
    header.push_str(last.head.trim());
    header.push_str(";\n");
    check_test(&r.test, Syntax::Cpp)?;
    if !has_main(&r.test) {
        return Err(Refusal::NoMain);
    }
    let example_test = example(&r.example_test)
        .map(|t| -> Result<String, Refusal> {
            check_test(t, Syntax::Cpp).map_err(|e| Refusal::Example(Box::new(e)))?;
            Ok(format!("#include \"solution.h\"\n{}", t.trim_start()))
        })
        .transpose()?;
    Ok(Task {
        id: r.task_id.clone(),
        at: at.clone(),
        language: Language::Cpp,
        entry_point: entry,
        prompt: r.prompt.clone(),
        interface: TaskInterface::Header(header),
        hidden_test: format!(
            "// Hidden test: the benchmark's, run against the final implementations.\n\
             #include \"solution.h\"\n{}",
            r.test.trim_start()
        ),
        reference: format!("{}{}", r.declaration, r.canonical_solution),
        examples_at: at.clone(),
        examples: Found::default(),
        example_test,
        solution_head: r.declaration.clone(),
        repaired: Vec::new(),
    })
}

/// The entry point of a declaration cut into `parts`: the function it leaves open, last; with
/// that piece and the pieces before it (helpers, types).
fn entry_point<'p, 'a>(
    parts: &'p [Piece<'a>],
) -> Result<(String, &'p Piece<'a>, &'p [Piece<'a>]), Refusal> {
    let Some((last, helpers)) = parts.split_last() else {
        return Err(Refusal::NoSignature);
    };
    match (last.block, cpp_function_name(last.head)) {
        (None, Some(name)) => Ok((name, last, helpers)),
        _ => Err(Refusal::NotOpen),
    }
}

/// Whether `test` defines `main` (C++) outside comments and strings.
fn has_main(test: &str) -> bool {
    let (parts, _) = pieces(test, Syntax::Cpp);
    parts
        .iter()
        .any(|p| cpp_function_name(p.head).as_deref() == Some("main"))
}

/// A Rust task: the declaration's `use` lines of crates outside the standard library are left
/// out (a build has none), its functions become the crate's public items (the interface), the
/// entry point is the one it leaves open, and the test module becomes a program that runs each
/// `#[test]` function from `main`.
fn rust_task(r: &Record, at: &Place) -> Result<Task, Refusal> {
    let (uses, declaration) = rust_declaration(&r.declaration);
    let fns = rust_source::open_declaration(&declaration)?;
    let entry = fns
        .last()
        .expect("an open declaration ends with a function")
        .name
        .clone();
    let names: Vec<String> = fns.iter().map(|f| f.name.clone()).collect();
    // Each function with its type: how its values are copied between the test's component
    // and the solution's. One that cannot be copied (a trait object, `&mut`) refuses the task.
    let items = fns
        .iter()
        .map(|f| f.item.clone())
        .collect::<Result<Vec<_>, _>>()?;
    check_test(&r.test, Syntax::Rust)?;
    let hidden_test = rust_test_program(&r.test, &uses)?;
    let reference = rust_source::publish(&format!("{declaration}{}", r.canonical_solution));
    // A function the test calls that only the reference defines: the spec never shows it, so
    // no solution written from the spec could pass.
    let test_code: String = r
        .test
        .bytes()
        .zip(code_mask(&r.test, Syntax::Rust))
        .map(|(b, c)| if c && b.is_ascii() { b as char } else { ' ' })
        .collect();
    let defined = rust_source::functions(&reference).unwrap_or_default();
    for f in defined.iter().map(|f| &f.name) {
        if !names.contains(f) && test_code.contains(&format!("{f}(")) {
            return Err(Refusal::CallsReferenceOnly {
                called: f.clone(),
                declared: names.clone(),
            });
        }
    }
    let spec_code = format!("{}\n{}", r.prompt.trim_end(), declaration.trim_start());
    Ok(Task {
        id: r.task_id.clone(),
        at: at.clone(),
        language: Language::Rust,
        entry_point: entry,
        prompt: spec_code,
        interface: TaskInterface::Items(items),
        hidden_test,
        reference,
        examples_at: at.clone(),
        examples: Found::default(),
        example_test: example(&r.example_test).map(|t| t.to_string()),
        solution_head: declaration.clone(),
        repaired: Vec::new(),
    })
}

/// The declaration's standard-library `use` lines, and the declaration without the `use` lines
/// of other crates.
fn rust_declaration(declaration: &str) -> (Vec<String>, String) {
    let mut uses = Vec::new();
    let mut kept = String::new();
    for line in declaration.split_inclusive('\n') {
        let t = line.trim();
        if let Some(path) = t.strip_prefix("use ") {
            let krate: String = path
                .trim_start_matches("::")
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !RUST_STD_CRATES.contains(&krate.as_str()) {
                continue;
            }
            uses.push(t.to_string());
        }
        kept.push_str(line);
    }
    (uses, kept)
}

/// A Rust test module as a program: `use solution::*` and the declaration's standard `use`
/// lines where the module used `super::*`, each `#[test]` function public, and a `main` that
/// calls them in order (a panic fails the run, as a failed `#[test]` does).
fn rust_test_program(test: &str, uses: &[String]) -> Result<String, Refusal> {
    // Code bytes only: comments and literals blanked, byte offsets kept.
    let mask = code_mask(test, Syntax::Rust);
    let code: String = test
        .bytes()
        .zip(&mask)
        .map(|(b, &c)| if c && b.is_ascii() { b as char } else { ' ' })
        .collect();
    // Each `#[test]` and the `fn` it marks: (offset of the attribute, offset of `fn`, name).
    let mut marked = Vec::new();
    let mut from = 0;
    while let Some(k) = code[from..].find("#[test]").map(|k| from + k) {
        from = k + "#[test]".len();
        let after = &code[from..];
        let skipped = after.len() - after.trim_start().len();
        if let Some(sig) = after.trim_start().strip_prefix("fn ") {
            let name: String = sig
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                marked.push((k, from + skipped, name));
            }
        }
    }
    if marked.is_empty() {
        return Err(Refusal::NoTestFunction);
    }
    let module = code
        .split("mod ")
        .nth(1)
        .map(|s| {
            s.trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|m| !m.is_empty());
    // `#[test]` comes out, each marked `fn` becomes `pub fn`, `#[cfg(test)]` comes out.
    let mut program = String::with_capacity(test.len() + 256);
    let mut at = 0;
    for (attr, fun, _) in &marked {
        program.push_str(&test[at..*attr]);
        program.push_str(&test[*attr + "#[test]".len()..*fun]);
        program.push_str("pub ");
        at = *fun;
    }
    program.push_str(&test[at..]);
    let imports = format!("use solution::*;\n{}", uses.join("\n"));
    let program = program
        .replacen("#[cfg(test)]", "", 1)
        .replacen("use super::*;", &imports, 1);
    let calls: String = marked
        .iter()
        .map(|(_, _, n)| match &module {
            Some(m) => format!("    {m}::{n}();\n"),
            None => format!("    {n}();\n"),
        })
        .collect();
    Ok(format!(
        "// Hidden test: the benchmark's #[test] functions, run one after another by main.\n\
         {imports}\n{}\n\n\
         fn main() {{\n{calls}}}\n",
        program.trim()
    ))
}

/// A record's example test, when it has one (`None` and `"None"` are none).
fn example(t: &Option<String>) -> Option<&str> {
    t.as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty() && *t != "None")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, declaration: &str, test: &str) -> Record {
        Record {
            task_id: id.into(),
            prompt: "/* Add. */\n".into(),
            declaration: declaration.into(),
            canonical_solution: "    return a + b;\n}\n".into(),
            test: test.into(),
            example_test: None,
        }
    }

    fn at() -> Place {
        Place {
            path: "x.jsonl".into(),
            line: 1,
        }
    }

    #[test]
    fn a_cpp_header_declares_the_helpers_and_the_entry_point() {
        let r = record(
            "CPP/1",
            "#include<string>\nusing namespace std;\nbool h(string s){\n    return s == \"}\";\n}\nint add(int a, int b){\n",
            "#include<assert.h>\nint main(){ assert(add(1,2)==3); }\n",
        );
        let t = cpp_task(&r, &at()).unwrap();
        assert_eq!(t.entry_point, "add");
        let TaskInterface::Header(h) = &t.interface else {
            panic!("a header")
        };
        assert_eq!(
            h,
            "#pragma once\n#include<string>\nusing namespace std;\nbool h(string s);\nint add(int a, int b);\n"
        );
        assert!(t
            .hidden_test
            .contains("#include \"solution.h\"\n#include<assert.h>"));
    }

    #[test]
    fn a_test_cut_off_or_without_main_is_refused() {
        let r = record(
            "CPP/2",
            "int add(int a, int b){\n",
            "int main(){\n  assert(add(1,2)==3);\n",
        );
        assert!(cpp_task(&r, &at())
            .unwrap_err()
            .to_string()
            .contains("cut off: 1 brace left open"));
        let r = record("CPP/3", "int add(int a, int b){\n", "// int main(){}\n");
        assert!(cpp_task(&r, &at())
            .unwrap_err()
            .to_string()
            .contains("no `main`"));
        let r = record("CPP/4", "int add(int a, int b);\n", "int main(){}\n");
        assert!(cpp_task(&r, &at())
            .unwrap_err()
            .to_string()
            .contains("signature"));
    }

    #[test]
    fn a_rust_test_module_becomes_a_program_and_foreign_crates_are_left_out() {
        let r = record(
            "Rust/1",
            "\nuse std::collections::HashMap;\nuse rand::Rng;\nuse md5;\n\nfn add(a: i32, b: i32) -> i32{\n",
            "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn test_add() {\n        assert_eq!(add(1, 2), 3); // #[test] fn no()\n    }\n}\n",
        );
        let t = rust_task(&r, &at()).unwrap();
        assert_eq!(t.entry_point, "add");
        assert_eq!(
            t.interface,
            TaskInterface::Items(vec!["add: fn(i32, i32) -> i32".into()])
        );
        assert!(!t.reference.contains("rand"), "{}", t.reference);
        assert!(t.reference.contains("pub fn add(a: i32"), "{}", t.reference);
        assert!(
            t.hidden_test.contains("pub fn test_add()"),
            "{}",
            t.hidden_test
        );
        assert!(t
            .hidden_test
            .contains("fn main() {\n    tests::test_add();\n}"));
        assert!(t.hidden_test.contains("use std::collections::HashMap;"));
        assert!(!t.hidden_test.contains("pub fn no"));
    }

    #[test]
    fn a_rust_test_that_is_all_comment_is_refused() {
        let r = record(
            "Rust/2",
            "fn add(a: i32, b: i32) -> i32{\n",
            "/*\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n*/\n",
        );
        assert!(rust_task(&r, &at())
            .unwrap_err()
            .to_string()
            .contains("checks nothing"));
    }
}
