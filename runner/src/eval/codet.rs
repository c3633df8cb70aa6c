//! Importer for the data format published with CodeT (microsoft/CodeT,
//! `CodeT/data/`), post-processed exactly as CodeT's `src/postprocess.py`,
//! `src/agreement.py` and `src/execution.py` do.
//!
//! A CodeT data directory holds four jsonl files (one JSON object a line):
//!
//! | file name ends in | content |
//! |---|---|
//! | `_for_code_generation.jsonl` | problems: `task_id`, `prompt`, `entry_point`, `canonical_solution`, `test` |
//! | `_for_test_case_generation.jsonl` | the same problems with the test-writing prompt |
//! | `_code_solution.jsonl` | `prompt`, `samples`: function-body completions |
//! | `_test_case.jsonl` | `prompt`, `samples`: raw continuations of `... assert ` |
//!
//! # Post-processing (as CodeT does it)
//!
//! * Samples are matched to problems by exact prompt equality (the generation
//!   prompt for solutions, the test-writing prompt for tests); several lines
//!   for one prompt are concatenated. A prompt matching no problem is an error
//!   (CodeT raises `KeyError`).
//! * **Solutions**: the completion is cut at the first of [`STOP_TOKENS`]
//!   (`\nclass`, `\ndef`, `\n#`, `\nif`, `\nprint`), *not* stripped; the
//!   solution module is `prompt + completion`. A problem whose sample list is
//!   empty gets one [`EMPTY_SOLUTION`] completion, as CodeT does.
//! * **Tests**: `"assert " + sample` is split on `"assert "`; parts that
//!   contain the entry point and are not blank become `("assert " +
//!   part).strip()`, are cut at the first stop token and stripped again
//!   ([`test_candidates`]); a candidate is kept if it is non-empty, contains
//!   `assert`, and its [`compile_probe`] (the test inside `try:`/`except:`)
//!   compiles. At most the first `test_case_limit` (CodeT: 5) kept tests of
//!   each sample count.
//! * Identical solutions (tests) of a problem are one entry with multiplicity.
//!
//! Python's `compile()` cannot run here, so the caller supplies it: either
//! call [`import_codet`] with a batch predicate, or do it in two steps with
//! [`load_codet`], [`PendingImport::probes`] and [`PendingImport::finish`]
//! (useful when compilation happens in a sandbox).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::corpus::{tally, Corpus, Problem};
use crate::scaleout::Shard;

/// CodeT's `STOP_TOKEN` list, applied in this order to solutions and tests.
pub const STOP_TOKENS: [&str; 5] = ["\nclass", "\ndef", "\n#", "\nif", "\nprint"];

/// CodeT's default `--test_case_limit`: first n kept tests per test sample.
pub const DEFAULT_TEST_CASE_LIMIT: usize = 5;

/// The completion CodeT substitutes when a problem has no solution samples.
pub const EMPTY_SOLUTION: &str = "empty solution here, execution will fail";

/// Errors importing a CodeT data directory.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A file or directory could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The directory does not hold exactly one file of a kind.
    #[error("expected exactly one file ending in {suffix} in {dir}, found {found}")]
    Discover {
        /// The data directory.
        dir: PathBuf,
        /// The file-name suffix looked for.
        suffix: &'static str,
        /// How many files matched.
        found: usize,
    },
    /// A line is not the JSON object expected.
    #[error("{path}:{line}: malformed jsonl line: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The underlying error.
        source: serde_json::Error,
    },
    /// A problem id appears twice in a problem file.
    #[error("{path}:{line}: duplicate task id {task_id}")]
    DuplicateTask {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The repeated id.
        task_id: String,
    },
    /// A test-generation problem has no code-generation counterpart.
    #[error("{path}:{line}: task id {task_id} is not in the code generation file")]
    UnknownTask {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The id.
        task_id: String,
    },
    /// A sample line's prompt matches no problem prompt.
    #[error("{path}:{line}: sample prompt matches no problem prompt")]
    UnknownPrompt {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
    },
    /// [`ImportOptions::only`] names a problem that is not in the data.
    #[error("problem {0} requested but not in the code generation file")]
    UnknownFilterId(String),
    /// The compile check returned the wrong number of verdicts.
    #[error("compile check returned {got} verdicts for {expected} programs")]
    VerdictCount {
        /// Number of probes.
        expected: usize,
        /// Number of verdicts returned.
        got: usize,
    },
}

/// What to import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// First n kept tests per test sample (CodeT: 5).
    pub test_case_limit: usize,
    /// Only these problem ids (in data order), if given.
    pub only: Option<Vec<String>>,
    /// Only the first n problems (after `only`), if given.
    pub limit: Option<usize>,
    /// Only this shard's problems (after `only` and `limit`), if given. Problems are dealt to
    /// shards by [`expected_cells`] (see [`crate::scaleout::partition`]).
    pub shard: Option<Shard>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            test_case_limit: DEFAULT_TEST_CASE_LIMIT,
            only: None,
            limit: None,
            shard: None,
        }
    }
}

/// The four files of a CodeT data directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodetFiles {
    /// Problems with the code-generation prompt.
    pub code_generation: PathBuf,
    /// Problems with the test-generation prompt.
    pub test_case_generation: PathBuf,
    /// Solution samples.
    pub code_solution: PathBuf,
    /// Test samples.
    pub test_case: PathBuf,
}

impl CodetFiles {
    /// Finds the four files in `dir` by their name suffixes.
    pub fn discover(dir: &Path) -> Result<Self, ImportError> {
        let io = |source| ImportError::Io {
            path: dir.to_path_buf(),
            source,
        };
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            names.push(entry.map_err(io)?.path());
        }
        names.sort();
        let find = |suffix: &'static str| {
            let hits: Vec<&PathBuf> = names
                .iter()
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.ends_with(suffix))
                })
                .collect();
            match hits.as_slice() {
                [one] => Ok((*one).clone()),
                _ => Err(ImportError::Discover {
                    dir: dir.to_path_buf(),
                    suffix,
                    found: hits.len(),
                }),
            }
        };
        Ok(Self {
            code_generation: find("_for_code_generation.jsonl")?,
            test_case_generation: find("_for_test_case_generation.jsonl")?,
            code_solution: find("_code_solution.jsonl")?,
            test_case: find("_test_case.jsonl")?,
        })
    }
}

/// Python's `str.strip()` with no argument: trims `str.isspace()` characters
/// (Rust's whitespace plus the ASCII separators U+001C..U+001F).
fn py_strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// Cuts `content` before the first stop token, applying [`STOP_TOKENS`] in
/// order like CodeT's `solution_extract` (no stripping).
pub fn truncate_completion(content: &str) -> &str {
    let mut out = content;
    for token in STOP_TOKENS {
        if let Some(at) = out.find(token) {
            out = &out[..at];
        }
    }
    out
}

/// The candidate tests of one raw test sample, before the compile check
/// (CodeT's `test_case_extract` up to `_check_test_case_validation`, minus
/// the `compile()` call): split on `"assert "`, keep parts mentioning the
/// entry point, truncate and strip, drop empty ones and ones without
/// `assert`.
pub fn test_candidates(sample: &str, entry_point: &str) -> Vec<String> {
    let entry = py_strip(entry_point);
    let whole = format!("assert {sample}");
    whole
        .split("assert ")
        .filter(|part| part.contains(entry) && !py_strip(part).is_empty())
        .map(|part| {
            let test = format!("assert {part}");
            py_strip(truncate_completion(py_strip(&test))).to_string()
        })
        .filter(|t| !py_strip(t).is_empty() && t.contains("assert"))
        .collect()
}

/// The program CodeT compiles to validate a test: the test, indented, as the
/// body of `try:` with a bare `except: pass`. The test is kept iff Python's
/// `compile(probe, "", "exec")` raises nothing.
pub fn compile_probe(test: &str) -> String {
    let body = test.replace('\n', "\n    ");
    format!("try:\n    {body}\nexcept:\n    pass\n")
}

#[derive(Deserialize)]
struct ProblemLine {
    task_id: String,
    prompt: String,
    entry_point: String,
    canonical_solution: String,
    test: String,
}

#[derive(Deserialize)]
struct SampleLine {
    prompt: String,
    samples: Vec<String>,
}

/// Reads a jsonl file, yielding (1-based line number, parsed object); blank
/// lines are skipped.
fn read_jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<(usize, T)>, ImportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value = serde_json::from_str(line).map_err(|source| ImportError::Json {
            path: path.to_path_buf(),
            line: i + 1,
            source,
        })?;
        out.push((i + 1, value));
    }
    Ok(out)
}

/// One problem of a [`PendingImport`]: everything but the compile verdicts.
#[derive(Debug, Clone)]
struct PendingProblem {
    problem: Problem,
    /// Per test sample, its candidates as (test, probe index), in order.
    test_samples: Vec<Vec<(String, usize)>>,
}

/// A CodeT import waiting for the compile verdicts of its test candidates.
#[derive(Debug, Clone)]
pub struct PendingImport {
    problems: Vec<PendingProblem>,
    probes: Vec<String>,
    test_case_limit: usize,
    selected_problems: usize,
}

impl PendingImport {
    /// The distinct programs whose compilability decides which candidate tests
    /// are kept (see [`compile_probe`]). Pass one verdict per probe, in this
    /// order, to [`PendingImport::finish`].
    pub fn probes(&self) -> &[String] {
        &self.probes
    }

    /// The problems the import options select before sharding: those of every shard together.
    pub fn selected_problems(&self) -> usize {
        self.selected_problems
    }

    /// Each problem's id and [`expected_cells`] (the weight shards balance), in order.
    pub fn expected_cells(&self) -> Vec<(&str, u64)> {
        self.problems
            .iter()
            .map(|p| {
                let samples = p
                    .test_samples
                    .iter()
                    .map(|s| s.iter().map(|(t, _)| t.as_str()));
                let cells =
                    expected_cells(p.problem.solutions.len(), samples, self.test_case_limit);
                (p.problem.id.as_str(), cells)
            })
            .collect()
    }

    /// Completes the import: `compiles[i]` says whether `probes()[i]` compiles.
    pub fn finish(self, compiles: &[bool]) -> Result<Corpus, ImportError> {
        if compiles.len() != self.probes.len() {
            return Err(ImportError::VerdictCount {
                expected: self.probes.len(),
                got: compiles.len(),
            });
        }
        let limit = self.test_case_limit;
        let problems = self
            .problems
            .into_iter()
            .map(|pending| {
                let kept = pending.test_samples.into_iter().flat_map(|sample| {
                    sample
                        .into_iter()
                        .filter(|(_, probe)| compiles[*probe])
                        .take(limit)
                        .map(|(test, _)| test)
                });
                Problem {
                    tests: tally(kept),
                    ..pending.problem
                }
            })
            .collect();
        Ok(Corpus { problems })
    }
}

/// Reads and post-processes a CodeT data directory, up to the compile check.
pub fn load_codet(dir: &Path, options: &ImportOptions) -> Result<PendingImport, ImportError> {
    let files = CodetFiles::discover(dir)?;
    load_codet_files(&files, options)
}

/// [`load_codet`] with explicit file paths.
pub fn load_codet_files(
    files: &CodetFiles,
    options: &ImportOptions,
) -> Result<PendingImport, ImportError> {
    let code_problems: Vec<(usize, ProblemLine)> = read_jsonl(&files.code_generation)?;
    let test_problems: Vec<(usize, ProblemLine)> = read_jsonl(&files.test_case_generation)?;

    // Problems, in code-generation file order.
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for (i, (line, p)) in code_problems.iter().enumerate() {
        if by_id.insert(p.task_id.clone(), i).is_some() {
            return Err(ImportError::DuplicateTask {
                path: files.code_generation.clone(),
                line: *line,
                task_id: p.task_id.clone(),
            });
        }
    }
    // CodeT keys both sample files by prompt (a later duplicate prompt wins,
    // as in its dict).
    let solution_prompt: HashMap<&str, usize> = code_problems
        .iter()
        .enumerate()
        .map(|(i, (_, p))| (p.prompt.as_str(), i))
        .collect();
    // Test samples are matched, and split on the entry point, with the
    // test-generation record, as CodeT does.
    let mut test_prompt: HashMap<&str, (usize, &str)> = HashMap::new();
    let mut seen_test_ids = HashSet::new();
    for (line, p) in &test_problems {
        let Some(&i) = by_id.get(&p.task_id) else {
            return Err(ImportError::UnknownTask {
                path: files.test_case_generation.clone(),
                line: *line,
                task_id: p.task_id.clone(),
            });
        };
        if !seen_test_ids.insert(p.task_id.as_str()) {
            return Err(ImportError::DuplicateTask {
                path: files.test_case_generation.clone(),
                line: *line,
                task_id: p.task_id.clone(),
            });
        }
        test_prompt.insert(p.prompt.as_str(), (i, p.entry_point.as_str()));
    }

    // Which problems to keep.
    let mut selected: Vec<usize> = match &options.only {
        Some(ids) => {
            let wanted: HashSet<&str> = ids.iter().map(String::as_str).collect();
            if let Some(missing) = ids.iter().find(|id| !by_id.contains_key(id.as_str())) {
                return Err(ImportError::UnknownFilterId(missing.clone()));
            }
            (0..code_problems.len())
                .filter(|&i| wanted.contains(code_problems[i].1.task_id.as_str()))
                .collect()
        }
        None => (0..code_problems.len()).collect(),
    };
    if let Some(n) = options.limit {
        selected.truncate(n);
    }
    let keep: HashSet<usize> = selected.iter().copied().collect();

    // Solutions.
    let mut completions: HashMap<usize, Vec<String>> = HashMap::new();
    for (line, s) in read_jsonl::<SampleLine>(&files.code_solution)? {
        let Some(&i) = solution_prompt.get(s.prompt.as_str()) else {
            return Err(ImportError::UnknownPrompt {
                path: files.code_solution.clone(),
                line,
            });
        };
        if !keep.contains(&i) {
            continue;
        }
        let list = completions.entry(i).or_default();
        if s.samples.is_empty() {
            list.push(EMPTY_SOLUTION.to_string());
        }
        list.extend(s.samples.iter().map(|c| truncate_completion(c).to_string()));
    }

    // Test candidates, per sample.
    let mut test_samples: HashMap<usize, Vec<Vec<String>>> = HashMap::new();
    for (line, s) in read_jsonl::<SampleLine>(&files.test_case)? {
        let Some(&(i, entry_point)) = test_prompt.get(s.prompt.as_str()) else {
            return Err(ImportError::UnknownPrompt {
                path: files.test_case.clone(),
                line,
            });
        };
        if !keep.contains(&i) {
            continue;
        }
        let list = test_samples.entry(i).or_default();
        list.extend(
            s.samples
                .iter()
                .map(|sample| test_candidates(sample, entry_point)),
        );
    }

    let selected_problems = selected.len();
    let mut problems: Vec<(Problem, Vec<Vec<String>>)> = selected
        .into_iter()
        .map(|i| {
            let p = &code_problems[i].1;
            let sources = completions
                .remove(&i)
                .unwrap_or_default()
                .into_iter()
                .map(|c| format!("{}{}", p.prompt, c));
            let problem = Problem {
                id: p.task_id.clone(),
                entry_point: p.entry_point.clone(),
                prompt: p.prompt.clone(),
                reference: format!("{}{}", p.prompt, p.canonical_solution),
                hidden_test: format!("{}\ncheck({})", p.test, p.entry_point),
                solutions: tally(sources),
                tests: Vec::new(),
            };
            (problem, test_samples.remove(&i).unwrap_or_default())
        })
        .collect();
    if let Some(shard) = options.shard {
        let limit = options.test_case_limit;
        problems = shard.select(problems, |(p, samples)| {
            expected_cells(
                p.solutions.len(),
                samples.iter().map(|s| s.iter().map(String::as_str)),
                limit,
            )
        });
    }

    // The compile probes of the tests of the problems kept (one per distinct program).
    let mut probes: Vec<String> = Vec::new();
    let mut probe_index: HashMap<String, usize> = HashMap::new();
    let problems = problems
        .into_iter()
        .map(|(problem, samples)| {
            let test_samples = samples
                .into_iter()
                .map(|candidates| {
                    candidates
                        .into_iter()
                        .map(|test| {
                            let probe = compile_probe(&test);
                            let next = probes.len();
                            let idx = *probe_index.entry(probe.clone()).or_insert(next);
                            if idx == next {
                                probes.push(probe);
                            }
                            (test, idx)
                        })
                        .collect()
                })
                .collect();
            PendingProblem {
                problem,
                test_samples,
            }
        })
        .collect();
    Ok(PendingImport {
        problems,
        probes,
        test_case_limit: options.test_case_limit,
        selected_problems,
    })
}

/// The work a problem is expected to take, known before the compile check: (unique solutions +
/// the reference) × (unique candidate tests, at most `limit` per sample, + the hidden check),
/// the cells of its matrix if every candidate compiles. Shards balance this
/// ([`Shard::select`]), so that each has about the same number of runs.
pub fn expected_cells<'a, S, T>(solutions: usize, test_samples: S, limit: usize) -> u64
where
    S: IntoIterator<Item = T>,
    T: IntoIterator<Item = &'a str>,
{
    let tests: HashSet<&str> = test_samples
        .into_iter()
        .flat_map(|sample| sample.into_iter().take(limit))
        .collect();
    (solutions as u64 + 1) * (tests.len() as u64 + 1)
}

/// Imports a CodeT data directory. `compiles` receives the distinct compile
/// probes (see [`compile_probe`]) in one batch and returns, for each, whether
/// Python's `compile(probe, "", "exec")` succeeds.
pub fn import_codet(
    dir: &Path,
    options: &ImportOptions,
    compiles: &dyn Fn(&[String]) -> Vec<bool>,
) -> Result<Corpus, ImportError> {
    let pending = load_codet(dir, options)?;
    let verdicts = compiles(pending.probes());
    pending.finish(&verdicts)
}

/// [`import_codet`] with a one-program-at-a-time compile check.
pub fn import_codet_each(
    dir: &Path,
    options: &ImportOptions,
    compiles: &dyn Fn(&str) -> bool,
) -> Result<Corpus, ImportError> {
    import_codet(dir, options, &|probes: &[String]| {
        probes.iter().map(|p| compiles(p)).collect()
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Compiles each program with python3 in one process (test helper).
    pub(crate) fn python_compiles(programs: &[String]) -> Vec<bool> {
        const SCRIPT: &str = r#"
import sys, json, warnings
warnings.simplefilter("ignore")
out = []
for s in json.load(sys.stdin):
    try:
        compile(s, "", "exec")
        out.append(True)
    except Exception:
        out.append(False)
json.dump(out, sys.stdout)
"#;
        let mut child = Command::new("python3")
            .args(["-c", SCRIPT])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 must be installed for these tests");
        let input = serde_json::to_vec(programs).unwrap();
        child.stdin.take().unwrap().write_all(&input).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// A fresh scratch directory (no tempfile dependency).
    struct ScratchDir(PathBuf);

    impl ScratchDir {
        fn new() -> Self {
            static N: AtomicUsize = AtomicUsize::new(0);
            let dir = std::env::temp_dir().join(format!(
                "codet-test-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::SeqCst)
            ));
            std::fs::create_dir_all(&dir).unwrap();
            Self(dir)
        }

        fn write(&self, name: &str, lines: &[serde_json::Value]) {
            let mut f = std::fs::File::create(self.0.join(name)).unwrap();
            for l in lines {
                writeln!(f, "{l}").unwrap();
            }
        }
    }

    impl Drop for ScratchDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn problem_line(id: &str, prompt: &str) -> serde_json::Value {
        serde_json::json!({
            "task_id": id, "prompt": prompt, "entry_point": "inc",
            "canonical_solution": "    return x + 1\n",
            "test": "def check(c):\n    assert c(1) == 2\n",
        })
    }

    fn synthetic() -> ScratchDir {
        let d = ScratchDir::new();
        let gen = "def inc(x):\n";
        let tgen = "def inc(x):\n    pass\n\n# check inc\nassert ";
        d.write("X_for_code_generation.jsonl", &[problem_line("T/0", gen)]);
        d.write(
            "X_for_test_case_generation.jsonl",
            &[problem_line("T/0", tgen)],
        );
        d.write(
            "M_code_solution.jsonl",
            &[serde_json::json!({"prompt": gen, "samples": [
                "    return x + 1\n\ndef other():\n    pass",
                "    return x + 1\n",
                "    return x + 1\n\nprint(inc(1))",
                "    return x\n#",
            ]})],
        );
        d.write(
            "M_test_case.jsonl",
            &[serde_json::json!({"prompt": tgen, "samples": [
                "inc(1) == 2\nassert inc(2) == 3\nassert inc(3) == (4\nassert other(1)\n",
                "inc(1) == 2\n\n# more\nassert inc(5) == 6",
                "inc(0) == 1\nassert inc(1) == 2\nassert inc(2) == 3\nassert inc(3) == 4\nassert inc(4) == 5\nassert inc(5) == 6\n",
            ]})],
        );
        d
    }

    #[test]
    fn truncation_matches_codet() {
        assert_eq!(truncate_completion("a\nif x\nclass y"), "a");
        assert_eq!(truncate_completion("a\n    if x"), "a\n    if x");
        assert_eq!(truncate_completion("body\n\n\ndef g"), "body\n\n");
        assert_eq!(truncate_completion("x\nprint(1)\n#c"), "x");
        assert_eq!(truncate_completion("no stop"), "no stop");
    }

    #[test]
    fn candidates_split_filter_and_truncate() {
        let got = test_candidates(
            "f(1) == 2\nassert g(1)\nassert f(2) == 3\n# tail\nassert f(3) == 4\nif True:\n  pass",
            "f",
        );
        assert_eq!(
            got,
            vec!["assert f(1) == 2", "assert f(2) == 3", "assert f(3) == 4"]
        );
        // A part that is only whitespace is dropped even if it mentions nothing.
        assert!(test_candidates("   ", "f").is_empty());
        // The entry point must occur in the part ("ff" contains "f").
        assert_eq!(test_candidates("ff(1)", "f"), vec!["assert ff(1)"]);
    }

    #[test]
    fn probe_wraps_in_try_block() {
        assert_eq!(
            compile_probe("assert f(1) == [\n 1]"),
            "try:\n    assert f(1) == [\n     1]\nexcept:\n    pass\n"
        );
    }

    #[test]
    fn python_strip_includes_ascii_separators() {
        assert_eq!(py_strip("\u{1c} a \u{a0}\n"), "a");
    }

    #[test]
    fn imports_synthetic_directory() {
        let d = synthetic();
        let c = import_codet(&d.0, &ImportOptions::default(), &python_compiles).unwrap();
        assert_eq!(c.problems.len(), 1);
        let p = &c.problems[0];
        assert_eq!(p.reference, "def inc(x):\n    return x + 1\n");
        assert_eq!(
            p.hidden_test,
            "def check(c):\n    assert c(1) == 2\n\ncheck(inc)"
        );
        let sols: Vec<(&str, u32)> = p
            .solutions
            .iter()
            .map(|w| (w.source.as_str(), w.count))
            .collect();
        assert_eq!(
            sols,
            vec![
                ("def inc(x):\n    return x + 1\n", 3),
                ("def inc(x):\n    return x", 1)
            ]
        );
        // Sample 1: 2 valid ("inc(3) == (4" does not compile, "other" has no
        // entry point). Sample 2: 2 valid (comment cut). Sample 3: first 5 of 6.
        let tests: Vec<(&str, u32)> = p
            .tests
            .iter()
            .map(|w| (w.source.as_str(), w.count))
            .collect();
        assert_eq!(
            tests,
            vec![
                ("assert inc(1) == 2", 3),
                ("assert inc(2) == 3", 2),
                ("assert inc(5) == 6", 1),
                ("assert inc(0) == 1", 1),
                ("assert inc(3) == 4", 1),
                ("assert inc(4) == 5", 1),
            ]
        );
    }

    #[test]
    fn limit_applies_after_the_compile_check() {
        let d = synthetic();
        let options = ImportOptions {
            test_case_limit: 1,
            ..ImportOptions::default()
        };
        let c = import_codet_each(&d.0, &options, &|p: &str| !p.contains("(4\n")).unwrap();
        let tests: Vec<(&str, u32)> = c.problems[0]
            .tests
            .iter()
            .map(|w| (w.source.as_str(), w.count))
            .collect();
        assert_eq!(
            tests,
            vec![("assert inc(1) == 2", 2), ("assert inc(0) == 1", 1)]
        );
    }

    #[test]
    fn malformed_line_names_file_and_line() {
        let d = synthetic();
        let path = d.0.join("M_code_solution.jsonl");
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("\n{\"prompt\": 3}\n");
        std::fs::write(&path, text).unwrap();
        let err = load_codet(&d.0, &ImportOptions::default()).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, ImportError::Json { line: 3, .. }), "{msg}");
        assert!(
            msg.contains("M_code_solution.jsonl:3: malformed jsonl line"),
            "{msg}"
        );
    }

    #[test]
    fn unknown_prompt_is_an_error() {
        let d = synthetic();
        d.write(
            "M_test_case.jsonl",
            &[serde_json::json!({"prompt": "nope", "samples": []})],
        );
        let msg = load_codet(&d.0, &ImportOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("M_test_case.jsonl:1: sample prompt matches no problem"),
            "{msg}"
        );
    }

    #[test]
    fn verdict_count_is_checked() {
        let d = synthetic();
        let pending = load_codet(&d.0, &ImportOptions::default()).unwrap();
        assert!(matches!(
            pending.finish(&[true]),
            Err(ImportError::VerdictCount { .. })
        ));
    }

    #[test]
    fn missing_file_is_reported() {
        let d = ScratchDir::new();
        let msg = load_codet(&d.0, &ImportOptions::default())
            .unwrap_err()
            .to_string();
        assert!(msg.contains("_for_code_generation.jsonl"), "{msg}");
    }

    /// The shared CodeT half: `shared/data/codet-humaneval` in an ancestor of the crate.
    pub(crate) fn shared_data() -> Option<PathBuf> {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .map(|a| a.join("shared/data/codet-humaneval"))
            .find(|d| d.is_dir())
    }

    #[test]
    fn imports_a_subset_of_the_shared_data() {
        let Some(dir) = shared_data() else {
            eprintln!("shared data not found; skipped");
            return;
        };
        let options = ImportOptions {
            only: Some(vec!["HumanEval/2".into(), "HumanEval/0".into()]),
            ..ImportOptions::default()
        };
        let c = import_codet(&dir, &options, &python_compiles).unwrap();
        let ids: Vec<&str> = c.problems.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, vec!["HumanEval/0", "HumanEval/2"]);
        for p in &c.problems {
            assert_eq!(p.solution_samples(), 100);
            assert!(p.test_samples() <= 500);
            assert!(p
                .tests
                .iter()
                .all(|t| t.source.starts_with("assert ") && t.source.contains(&p.entry_point)));
            assert!(p.solutions.iter().all(|s| s.source.starts_with(&p.prompt)));
            assert!(p
                .hidden_test
                .ends_with(&format!("check({})", p.entry_point)));
        }
        let limited = ImportOptions {
            limit: Some(1),
            ..options
        };
        let c1 = import_codet(&dir, &limited, &python_compiles).unwrap();
        assert_eq!(c1.problems, c.problems[..1]);
        let bad = ImportOptions {
            only: Some(vec!["HumanEval/1".into()]),
            ..ImportOptions::default()
        };
        assert!(matches!(
            load_codet(&dir, &bad),
            Err(ImportError::UnknownFilterId(_))
        ));
    }
}
