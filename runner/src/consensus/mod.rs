//! Where the final implementations disagree (the seed's "No Coder left behind": several
//! implementations of one spec and the inputs the tests exercised are a consensus check).
//! Python unit tests only. Nothing here is ever shown to an agent: it runs after the protocol
//! stopped and feeds `summary.json` and `report.html` only.
//!
//! Data flow: the tests of a run ([`tests_of_journal`]: the suite, rejected proposals,
//! self-tests, hidden and acceptance tests, all read from the journal) → **record** (each test
//! runs once in the sandbox against a stand-in for `solution` that records every call the test
//! makes into it) → **probe** (each distinct call runs against each final implementation, one
//! fresh sandbox run per pair) → answers grouped by Python equality ([`value::Value::key`],
//! exception types by name) → [`Disagreements`]: the calls with more than one answer, grouped
//! by function, with which coders gave which answer.
//!
//! Why a stand-in and a separate pass, rather than recording inside the classification runs:
//! no implementation is in the process while calls are recorded, so none can add, hide or
//! alter a record (an implementation shares its process with the test, and nothing in one
//! process is out of its reach); the classification runs, their fuel and the journal stay
//! exactly what they were; and runs recorded before this existed get the analysis too. The
//! cost: a call whose arguments come from an earlier call's result gets the stand-in's wildcard
//! as an argument, which is not plain data, so it is counted as not replayable.
//!
//! Everything the guest prints is untrusted (a test or a solution shares its process): lines
//! are parsed by [`value::Value::from_json`] within fixed bounds, and the report escapes all of
//! it. Every run uses the run's seed, so the analysis is a pure function of the journal and the
//! final implementations: `dixit report` recomputes exactly what `dixit run` found.
//!
//! - `collect.rs`: [`tests_of_journal`], the tests a run wrote or was given.
//! - `value.rs`: [`value::Value`], plain Python data read from the guest, compared and shown.
//! - `assets/python/consensus.py` (in `runner/`): the guest side (record and probe).

mod collect;
pub mod value;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::sandbox::{Limits, Preopen, Verdict, VerdictKind};
use crate::toolchain::Toolchains;

pub use collect::{tests_of_journal, RecordedTest};
use value::Value;

/// The guest program (run by the Python runtime in mode `main`).
const DRIVER: &str = include_str!("../../assets/python/consensus.py");
const CALL_MARK: &str = "\u{1e}dixit-call ";
const ANSWER_MARK: &str = "\u{1e}dixit-answer ";

/// Distinct calls probed per run (the first ones, in test order); the rest are counted.
pub const MAX_CALLS: usize = 500;
/// Fuel of each record or probe run (at most the project's own limit): about a fifth of a
/// second of Python, plenty for a call a test makes, and a bound on a call that never returns.
pub const FUEL: u64 = 1_000_000_000;
/// Characters of a shown value, call or answer.
const SHOWN: usize = 160;
/// Characters kept of a name the guest reports (an exception's type, a function).
const NAME_CHARS: usize = 120;

/// What the finder found: the calls the tests made on which the final implementations do not
/// all give the same answer, grouped by function (`summary.json` → `disagreements`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Disagreements {
    /// The implementations compared, in coder order.
    pub implementations: Vec<String>,
    /// Tests whose calls were recorded.
    pub tests: usize,
    /// Distinct replayable calls run against every implementation.
    pub calls: usize,
    /// Calls on which every implementation gave the same answer.
    pub agreed: usize,
    /// Calls that could not be replayed: an argument was not plain data (an object, or the
    /// result of an earlier call).
    pub not_replayable: usize,
    /// Distinct calls beyond [`MAX_CALLS`], not probed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_probed: usize,
    /// By function name.
    pub functions: Vec<FunctionDisagreements>,
    /// Why the analysis could not run (then everything else is empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The disagreements on the calls of one function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionDisagreements {
    /// The function's name in `solution`.
    pub function: String,
    /// Its calls with more than one answer, in the order the tests first made them.
    pub inputs: Vec<Disagreement>,
}

/// One call on which the implementations disagree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    /// The call as Python source: `median([4, 1, 3, 2])`.
    pub call: String,
    /// Its arguments as the guest encodes them (see `value.rs`), to replay it.
    pub args: serde_json::Value,
    /// Keyword arguments, `[[name, value], ...]`, likewise.
    #[serde(default, skip_serializing_if = "is_empty_array")]
    pub kwargs: serde_json::Value,
    /// The tests that made this call.
    pub tests: Vec<String>,
    /// The distinct answers, each with the coders that gave it (in coder order).
    pub answers: Vec<AnswerGroup>,
}

fn is_empty_array(v: &serde_json::Value) -> bool {
    v.as_array().is_none_or(|a| a.is_empty())
}

/// One answer and who gave it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnswerGroup {
    /// `value`, `raised`, `unrepresentable`, `missing` or `no_answer`.
    pub kind: String,
    /// The answer for people: a value as Python source, `raises ValueError`, ...
    pub answer: String,
    /// The coders whose implementation gave it.
    pub coders: Vec<String>,
}

/// An implementation's answer to one call.
#[derive(Clone, Debug, PartialEq)]
enum Answer {
    /// Returned plain data.
    Value(Value),
    /// Raised an exception (while importing the solution, or in the call).
    Raised { exception: String, import: bool },
    /// Returned something that is not plain data (its type).
    Unrepresentable(String),
    /// The solution has no such function.
    Missing,
    /// No answer: the run ended without one (its verdict: `time_limit`, `memory_limit`, ...).
    Silent(String),
}

impl Answer {
    /// Equal for answers Python would call the same: values by `==`, exceptions by type.
    fn key(&self) -> String {
        match self {
            Answer::Value(v) => format!("v{}", v.key()),
            Answer::Raised { exception, import } => {
                format!("r{}{exception}", if *import { "i" } else { "c" })
            }
            Answer::Unrepresentable(t) => format!("u{t}"),
            Answer::Missing => "m".into(),
            Answer::Silent(why) => format!("n{why}"),
        }
    }

    fn group(&self, coders: Vec<String>) -> AnswerGroup {
        let (kind, answer) = match self {
            Answer::Value(v) => ("value", v.repr(SHOWN)),
            Answer::Raised {
                exception,
                import: false,
            } => ("raised", format!("raises {exception}")),
            Answer::Raised {
                exception,
                import: true,
            } => (
                "raised",
                format!("raises {exception} while the solution is imported"),
            ),
            Answer::Unrepresentable(t) => (
                "unrepresentable",
                format!("returns a {t} (not plain data, not compared)"),
            ),
            Answer::Missing => ("missing", "has no such function".to_string()),
            Answer::Silent(why) => ("no_answer", format!("no answer ({why})")),
        };
        AnswerGroup {
            kind: kind.into(),
            answer,
            coders,
        }
    }
}

/// One recorded call: a function and plain-data arguments.
#[derive(Clone, Debug, PartialEq)]
struct Call {
    function: String,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
}

impl Call {
    fn shown(&self) -> String {
        let mut parts: Vec<String> = self.args.iter().map(|a| a.repr(SHOWN)).collect();
        parts.extend(
            self.kwargs
                .iter()
                .map(|(k, v)| format!("{k}={}", v.repr(SHOWN))),
        );
        let s = format!("{}({})", self.function, parts.join(", "));
        cut(&s, SHOWN)
    }

    fn to_json(&self) -> (serde_json::Value, serde_json::Value) {
        (
            serde_json::Value::Array(self.args.iter().map(Value::to_json).collect()),
            serde_json::Value::Array(
                self.kwargs
                    .iter()
                    .map(|(k, v)| serde_json::json!([k, v.to_json()]))
                    .collect(),
            ),
        )
    }
}

fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut k = max;
    while !s.is_char_boundary(k) {
        k -= 1;
    }
    format!("{}…", &s[..k])
}

/// What one record line says.
#[derive(Debug, PartialEq)]
enum Recorded {
    Call(Call),
    /// A call whose arguments are not plain data.
    NotReplayable,
}

/// Parses one line of a record run's output (anything malformed is `None`).
fn parse_record(line: &str) -> Option<Recorded> {
    let j: serde_json::Value = serde_json::from_str(line.strip_prefix(CALL_MARK)?).ok()?;
    let function = j.get("fn")?.as_str()?;
    if function.is_empty()
        || function.len() > NAME_CHARS
        || !function.chars().all(|c| c == '_' || c.is_alphanumeric())
        || function.starts_with(|c: char| c.is_ascii_digit())
    {
        return None;
    }
    if j.get("unsupported").is_some() {
        return Some(Recorded::NotReplayable);
    }
    let args = j
        .get("args")?
        .as_array()?
        .iter()
        .map(Value::from_json)
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    let kwargs = j
        .get("kwargs")?
        .as_array()?
        .iter()
        .map(|kv| {
            let pair = kv.as_array().filter(|p| p.len() == 2)?;
            let k = pair[0].as_str().filter(|k| k.len() <= NAME_CHARS)?;
            Some((k.to_string(), Value::from_json(&pair[1]).ok()?))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Recorded::Call(Call {
        function: function.to_string(),
        args,
        kwargs,
    }))
}

/// The answer a probe run gave.
fn parse_answer(v: &Verdict, stdout: &[u8]) -> Answer {
    if v.verdict != VerdictKind::Pass {
        return Answer::Silent(v.verdict.to_string());
    }
    let text = String::from_utf8_lossy(stdout);
    let Some(line) = text.lines().rev().find_map(|l| l.strip_prefix(ANSWER_MARK)) else {
        return Answer::Silent("no answer printed".into());
    };
    let unreadable = || Answer::Silent("unreadable answer".into());
    let Ok(j) = serde_json::from_str::<serde_json::Value>(line) else {
        return unreadable();
    };
    let name = |k: &str| {
        j.get(k)
            .and_then(|x| x.as_str())
            .map(|s| cut(s, NAME_CHARS))
    };
    if let Some(v) = j.get("value") {
        return Value::from_json(v).map_or_else(|_| unreadable(), Answer::Value);
    }
    if let Some(e) = name("raised") {
        let import = j.get("where").and_then(|w| w.as_str()) == Some("import");
        return Answer::Raised {
            exception: e,
            import,
        };
    }
    if let Some(t) = name("unrepresentable") {
        return Answer::Unrepresentable(t);
    }
    if j.get("missing").and_then(|m| m.as_bool()) == Some(true) {
        return Answer::Missing;
    }
    unreadable()
}

/// Whether a folder holds a Python file (a coder that never wrote code has nothing to compare).
pub fn has_python(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "py"))
    })
}

/// Top-level names a Python implementation defines (`def`, `class`, `NAME =`): the stand-in's
/// `__all__`, for tests that `from solution import *`.
fn defined_names(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return names;
    };
    let mut files: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for line in text.lines() {
            let rest = line
                .strip_prefix("async def ")
                .or_else(|| line.strip_prefix("def "))
                .or_else(|| line.strip_prefix("class "))
                .unwrap_or(line);
            let name: String = rest
                .chars()
                .take_while(|c| *c == '_' || c.is_alphanumeric())
                .collect();
            let after = rest[name.len()..].trim_start();
            let defines =
                rest.len() != line.len() || (after.starts_with('=') && !after.starts_with("=="));
            if defines && !name.is_empty() && !name.starts_with('_') && !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// Runs the finder: records the calls of `tests`, probes each against every implementation
/// (`(coder, folder)`, in coder order) and returns the disagreements. Never fails: a problem
/// (no Python runtime, a temporary directory) is reported in [`Disagreements::error`].
pub fn find(
    tc: &Toolchains,
    tests: &[RecordedTest],
    implementations: &[(String, PathBuf)],
    seed: u64,
    limits: &Limits,
) -> Disagreements {
    match find_inner(tc, tests, implementations, seed, limits) {
        Ok(d) => d,
        Err(e) => Disagreements {
            implementations: implementations.iter().map(|(n, _)| n.clone()).collect(),
            error: Some(e),
            ..Default::default()
        },
    }
}

fn find_inner(
    tc: &Toolchains,
    tests: &[RecordedTest],
    implementations: &[(String, PathBuf)],
    seed: u64,
    limits: &Limits,
) -> Result<Disagreements, String> {
    if implementations.len() < 2 {
        // Nothing to compare: no run is worth making.
        return Ok(Disagreements {
            implementations: implementations.iter().map(|(n, _)| n.clone()).collect(),
            tests: tests.len(),
            ..Default::default()
        });
    }
    let work = tempfile::tempdir().map_err(|e| format!("a temporary directory: {e}"))?;
    let write = |p: &Path, text: &str| {
        std::fs::create_dir_all(p.parent().unwrap_or(p))
            .and_then(|()| std::fs::write(p, text))
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    let driver_path = work.path().join("driver").join("consensus.py");
    write(&driver_path, DRIVER)?;
    let driver = tc.test(&driver_path)?;
    let program = tc
        .python_program(&driver)
        .map_err(|e| format!("the finder's program: {}", e.message))?;
    let limits = Limits {
        fuel: limits.fuel.min(FUEL),
        output_bytes: limits.output_bytes.min(1 << 20),
        ..limits.clone()
    };
    let run = |mounts: Vec<Preopen>, args: Vec<String>| -> Verdict {
        let mut r = program.with_args(&args);
        r.preopens.extend(mounts);
        tc.run_runnable(&r, Vec::new(), seed, &limits)
    };
    let mut names: Vec<String> = Vec::new();
    for (_, dir) in implementations {
        for n in defined_names(dir) {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    let names_json = serde_json::to_string(&names).unwrap_or_else(|_| "[]".into());

    // Record: each test once, against the stand-in.
    let mut test_dirs = Vec::new();
    for (k, t) in tests.iter().enumerate() {
        let dir = work.path().join("tests").join(k.to_string());
        write(&dir.join("test.py"), &t.source)?;
        test_dirs.push(dir);
    }
    let records: Vec<Vec<Recorded>> = test_dirs
        .par_iter()
        .map(|dir| {
            let v = run(
                vec![Preopen {
                    host: dir.clone(),
                    guest: "/recorded".into(),
                }],
                vec![
                    "record".into(),
                    "/recorded/test.py".into(),
                    names_json.clone(),
                ],
            );
            v.stdout.lines().filter_map(parse_record).collect()
        })
        .collect();

    // Distinct calls in order of first appearance, each with the tests that made it.
    let mut calls: Vec<(Call, Vec<String>)> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut not_replayable = 0;
    let mut not_probed = 0;
    for (t, recs) in tests.iter().zip(records) {
        for r in recs {
            let call = match r {
                Recorded::NotReplayable => {
                    not_replayable += 1;
                    continue;
                }
                Recorded::Call(c) => c,
            };
            let key = call_key(&call);
            match index.get(&key) {
                Some(&i) => {
                    if !calls[i].1.contains(&t.label) {
                        calls[i].1.push(t.label.clone());
                    }
                }
                None if calls.len() >= MAX_CALLS => not_probed += 1,
                None => {
                    index.insert(key, calls.len());
                    calls.push((call, vec![t.label.clone()]));
                }
            }
        }
    }

    // Probe: every call against every implementation, one fresh run each.
    // Each implementation mounted at /solution, with its cached compiled code when there is
    // some (the argument that points the program at it).
    type Mount = (Vec<Preopen>, Option<String>);
    let mounts: Vec<Result<Mount, String>> = implementations
        .iter()
        .map(|(coder, dir)| {
            let s = tc.solution(dir, Some(crate::toolchain::Language::Python))?;
            let (sol, code) = tc
                .python_solution_mount(&s)
                .map_err(|e| format!("{coder}: {}", e.message))?;
            let (code_mount, code_arg) = code.unzip();
            Ok((std::iter::once(sol).chain(code_mount).collect(), code_arg))
        })
        .collect();
    let pairs: Vec<(usize, usize)> = (0..calls.len())
        .flat_map(|c| (0..implementations.len()).map(move |i| (c, i)))
        .collect();
    let answers: Vec<Answer> = pairs
        .par_iter()
        .map(|&(c, i)| {
            let (call, _) = &calls[c];
            let (args, kwargs) = call.to_json();
            let request =
                serde_json::json!({ "fn": call.function, "args": args, "kwargs": kwargs });
            let (mount, code) = match &mounts[i] {
                Ok(m) => m.clone(),
                // A solution that does not build answers nothing (the same for every call).
                Err(e) => return Answer::Silent(format!("does not build: {}", cut(e, 80))),
            };
            let mut args = vec!["probe".into(), "/solution".into(), request.to_string()];
            args.extend(code);
            let verdict = run(mount, args);
            parse_answer(&verdict, verdict.stdout.as_bytes())
        })
        .collect();

    let mut functions: BTreeMap<String, Vec<Disagreement>> = BTreeMap::new();
    let mut agreed = 0;
    for (c, (call, tests_of_call)) in calls.iter().enumerate() {
        let row = &answers[c * implementations.len()..(c + 1) * implementations.len()];
        let mut groups: Vec<(String, &Answer, Vec<String>)> = Vec::new();
        for (a, (coder, _)) in row.iter().zip(implementations) {
            let k = a.key();
            match groups.iter_mut().find(|g| g.0 == k) {
                Some(g) => g.2.push(coder.clone()),
                None => groups.push((k, a, vec![coder.clone()])),
            }
        }
        if groups.len() <= 1 {
            agreed += 1;
            continue;
        }
        let (args, kwargs) = call.to_json();
        functions
            .entry(call.function.clone())
            .or_default()
            .push(Disagreement {
                call: call.shown(),
                args,
                kwargs,
                tests: tests_of_call.clone(),
                answers: groups.into_iter().map(|(_, a, who)| a.group(who)).collect(),
            });
    }
    Ok(Disagreements {
        implementations: implementations.iter().map(|(n, _)| n.clone()).collect(),
        tests: tests.len(),
        calls: calls.len(),
        agreed,
        not_replayable,
        not_probed,
        functions: functions
            .into_iter()
            .map(|(function, inputs)| FunctionDisagreements { function, inputs })
            .collect(),
        error: None,
    })
}

/// The finder on a recorded run: the tests of its journal against the implementations in
/// `run_dir/implementations/`, with the run's seed and limits. `None` when the run's tests are
/// not Python unit tests.
pub fn for_run(
    tc: &Toolchains,
    journal: &crate::journal::JournalFile,
    run_dir: &Path,
) -> Option<Disagreements> {
    let config = match crate::config::Config::parse(&journal.project.config, &journal.path) {
        Ok(c) => c,
        Err(e) => {
            return Some(Disagreements {
                error: Some(format!("the recorded dixit.toml does not parse: {e}")),
                ..Default::default()
            })
        }
    };
    if config.language() != crate::toolchain::Language::Python
        || config.test_kind() != crate::toolchain::TestKind::Python
    {
        return None;
    }
    let coders = journal
        .effective()
        .into_iter()
        .find_map(|r| match &r.event {
            crate::journal::Event::Started { coders, .. } => Some(coders.clone()),
            _ => None,
        })?;
    let implementations: Vec<(String, PathBuf)> = coders
        .iter()
        .map(|c| (c.clone(), run_dir.join("implementations").join(c)))
        .filter(|(_, d)| has_python(d))
        .collect();
    Some(find(
        tc,
        &tests_of_journal(journal),
        &implementations,
        config.project.seed,
        &config.limits.limits(),
    ))
}

/// Equal for calls Python would make identically (arguments compared by `==`).
fn call_key(c: &Call) -> String {
    let mut k = format!("{}(", c.function);
    for a in &c.args {
        let ak = a.key();
        k.push_str(&format!("{}:{ak},", ak.len()));
    }
    for (name, v) in &c.kwargs {
        let vk = v.key();
        k.push_str(&format!("{name}={}:{vk},", vk.len()));
    }
    k.push(')');
    k
}

impl Disagreements {
    /// Number of calls on which the implementations disagree.
    pub fn count(&self) -> usize {
        self.functions.iter().map(|f| f.inputs.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(kind: VerdictKind) -> Verdict {
        Verdict::not_run(kind, None, "", 0)
    }

    #[test]
    fn record_lines_are_checked() {
        let ok = format!(
            "{CALL_MARK}{{\"fn\":\"f\",\"args\":[{{\"int\":\"2\"}}],\"kwargs\":[[\"k\",\"x\"]]}}"
        );
        let Some(Recorded::Call(c)) = parse_record(&ok) else {
            panic!("{ok}")
        };
        assert_eq!(c.shown(), "f(2, k='x')");
        for bad in [
            "dixit-call {\"fn\":\"f\",\"args\":[],\"kwargs\":[]}".to_string(),
            format!("{CALL_MARK}{{\"fn\":\"<img src=x>\",\"args\":[],\"kwargs\":[]}}"),
            format!("{CALL_MARK}{{\"fn\":\"f\",\"args\":[1],\"kwargs\":[]}}"),
            format!("{CALL_MARK}{{\"fn\":\"f\",\"args\":[]}}"),
            format!("{CALL_MARK}not json"),
        ] {
            assert_eq!(parse_record(&bad), None, "{bad}");
        }
        assert_eq!(
            parse_record(&format!(
                "{CALL_MARK}{{\"fn\":\"f\",\"unsupported\":\"object\"}}"
            )),
            Some(Recorded::NotReplayable)
        );
    }

    #[test]
    fn answers_take_the_last_marked_line_and_bound_names() {
        let pass = verdict(VerdictKind::Pass);
        let out = format!(
            "{ANSWER_MARK}{{\"value\":{{\"int\":\"1\"}}}}\nnoise\n{ANSWER_MARK}{{\"raised\":\"{}\"}}\n",
            "E".repeat(500)
        );
        let Answer::Raised { exception, import } = parse_answer(&pass, out.as_bytes()) else {
            panic!()
        };
        assert!(
            !import && exception.chars().count() == NAME_CHARS + 1,
            "{exception}"
        );
        assert_eq!(
            parse_answer(&verdict(VerdictKind::TimeLimit), out.as_bytes()),
            Answer::Silent("time_limit".into())
        );
        assert_eq!(
            parse_answer(&pass, b"nothing"),
            Answer::Silent("no answer printed".into())
        );
        assert_eq!(
            parse_answer(&pass, format!("{ANSWER_MARK}{{\"value\":7}}").as_bytes()),
            Answer::Silent("unreadable answer".into())
        );
        let two = parse_answer(
            &pass,
            format!("{ANSWER_MARK}{{\"value\":{{\"float\":\"2.0\"}}}}").as_bytes(),
        );
        let int_two = Answer::Value(Value::Int("2".into()));
        assert_eq!(two.key(), int_two.key(), "2.0 == 2 in Python");
        let raised = |e: &str| Answer::Raised {
            exception: e.into(),
            import: false,
        };
        assert_ne!(raised("ValueError").key(), raised("TypeError").key());
    }

    #[test]
    fn names_are_top_level_definitions() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("solution.py"),
            "import math\ndef f(x):\n    def inner(): pass\nclass K: pass\nLIMIT = 3\n_private = 1\nasync def g(): pass\nif x == 1: pass\n",
        )
        .unwrap();
        assert_eq!(defined_names(d.path()), ["f", "K", "LIMIT", "g"]);
    }
}
