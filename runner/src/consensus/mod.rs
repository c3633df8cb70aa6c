//! Where the final implementations disagree (the seed's "No Coder left behind": several
//! implementations of one spec and the inputs the tests exercised are a consensus check).
//! Python unit tests only. Nothing here is ever shown to an agent: it runs after the protocol
//! stopped and feeds `summary.json` and `report.html` only.
//!
//! Data flow: the tests of a run ([`tests_of_journal`]: the suite, rejected proposals,
//! self-tests, hidden and acceptance tests, all read from the journal) → **guard** (each test's
//! statements wrapped so a failed check does not end it: `assets/python/consensus.py`, no
//! implementation involved) → **observe** (each guarded test runs as an ordinary unit test
//! against each final implementation; the implementation runs apart, in an instance of its own
//! that only answers requests, and the host reads the calls the test made and the answers off
//! the bridge, [`crate::sandbox::Exchange`]) → answers grouped by Python equality
//! ([`crate::sandbox::Value::key`], exceptions by class name) → [`Disagreements`]: the calls with more
//! than one answer, grouped by function, with which coders gave which answer.
//!
//! Why this way: to an implementation, an observed run is a test whose checks all passed (the
//! same `serve`, the same kind of requests, the run's seed), so it cannot answer one way when
//! watched and another when judged; the calls are read by the host, where neither side can add,
//! hide or alter one; the classification runs, their fuel and the journal stay exactly what
//! they were; and runs recorded before this existed get the analysis too. Calls whose arguments
//! are objects of the implementation's (handles) are counted as not comparable.
//!
//! Everything read off the bridge was read and checked by the host as it crossed
//! ([`crate::sandbox::boundary`]); it is still the guests' text, and the report escapes all of
//! it. Every run uses the run's seed, so the analysis is a pure function of
//! the journal and the final implementations: `dixit report` recomputes exactly what `dixit run`
//! found.
//!
//! - `answers.rs`: the same reading for `dixit eval`'s matrices and a run's ship decision: each
//!   solution's answers to the calls the tests made, numbered into [`crate::selection::Outputs`].
//! - `collect.rs`: [`tests_of_journal`], the tests a run wrote or was given.
//! - `observe.rs`: the calls and answers read off a run's bridge (`observe::observe`).
//! - `assets/python/consensus.py` (in `runner/`): the guest side (guard).

pub(crate) mod answers;
mod collect;
pub(crate) mod observe;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::sandbox::{Limits, Preopen, VerdictKind};
use crate::toolchain::{LoadedInterface, Toolchains};

pub use collect::{tests_of_journal, NamedTest, Origin, RecordedTest};
use observe::{call_key, cut, observe, Observed, ObservedAnswer, ObservedCall};

/// The guest program (run by the Python runtime in mode `main`).
const DRIVER: &str = include_str!("../../assets/python/consensus.py");
/// Exchanges of the bridge kept per observed run.
const LOG: usize = 2 * MAX_CALLS;

/// Distinct calls compared per run (the first ones, in test order); the rest are counted.
pub const MAX_CALLS: usize = 500;
/// Fuel of each guard run (at most the project's own limit): about a fifth of a second of
/// Python, far more than parsing and rewriting one test takes.
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
    /// How many of the calls the hidden tests make the run's own tests make too (when the
    /// project has hidden tests that made a call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlap: Option<CallOverlap>,
}

/// The overlap of the run's own tests with the hidden tests, by the calls they make: the
/// distinct calls (function and arguments, compared as Python compares them) observed from the
/// hidden tests, and how many of those an own test (suite test, proposal, self-test) made too.
/// Observed against the final implementations, so a call made only after an earlier one failed
/// is counted if any implementation got that far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CallOverlap {
    /// Distinct calls the hidden tests made.
    pub hidden: usize,
    /// Of those, calls an own test made too.
    pub shared: usize,
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

/// Whether a folder holds a Python file (a coder that never wrote code has nothing to compare).
pub fn has_python(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "py"))
    })
}

/// Runs the finder: records the calls of `tests`, probes each against every implementation
/// (`(coder, folder)`, in coder order, under the run's `interface`) and returns the
/// disagreements. Never fails: a problem (no Python runtime, a temporary directory) is reported
/// in [`Disagreements::error`].
pub fn find(
    tc: &Toolchains,
    tests: &[RecordedTest],
    implementations: &[(String, PathBuf)],
    interface: &Arc<LoadedInterface>,
    seed: u64,
    limits: &Limits,
) -> Disagreements {
    match find_inner(tc, tests, implementations, interface, seed, limits) {
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
    interface: &Arc<LoadedInterface>,
    seed: u64,
    limits: &Limits,
) -> Result<Disagreements, String> {
    let hidden = tests.iter().any(|t| t.origin == Origin::Hidden);
    if implementations.is_empty() || (implementations.len() < 2 && !hidden) {
        // Nothing to compare and no overlap to measure: no run is worth making.
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
    let driver = tc.test(&driver_path).map_err(|e| e.message)?;
    let program = tc
        .python_program(&driver)
        .map_err(|e| format!("the finder's program: {}", e.message))?;
    // Guarding costs a parse; an observed run is a whole test, with the project's limits.
    let guard_limits = Limits {
        fuel: limits.fuel.min(FUEL),
        output_bytes: 4 << 20,
        ..limits.clone()
    };

    // Guard: each test's statements wrapped so a failed check does not end it (no
    // implementation is involved: the driver rewrites the source).
    let guarded: Vec<Result<crate::toolchain::Test, String>> = tests
        .par_iter()
        .enumerate()
        .map(|(k, t)| {
            let dir = work.path().join("tests").join(k.to_string());
            write(&dir.join("test.py"), &t.source)?;
            let mut r = program.with_args(&["guard".into(), "/recorded/test.py".into()]);
            r.preopens.push(Preopen {
                host: dir.clone(),
                guest: "/recorded".into(),
            });
            let v = tc.run_runnable(&r, Vec::new(), seed, &guard_limits);
            let source = if v.verdict == VerdictKind::Pass {
                v.stdout
            } else {
                t.source.clone()
            };
            let path = work
                .path()
                .join("guarded")
                .join(k.to_string())
                .join("test.py");
            write(&path, &source)?;
            tc.test(&path).map_err(|e| e.message)
        })
        .collect();
    let solutions: Vec<Result<crate::toolchain::Solution, String>> = implementations
        .iter()
        .map(|(coder, dir)| {
            let s = tc
                .solution(dir, Some(crate::toolchain::Language::Python))
                .map_err(|e| e.message)?
                .with_interface(interface.clone());
            tc.check_solution(&s, crate::toolchain::TestKind::Python)
                .map_err(|e| format!("{coder}: {}", e.message))?;
            Ok(s)
        })
        .collect();

    // Observe: each guarded test runs against each implementation as an ordinary unit test
    // (the implementation apart, answering requests); the calls and answers are read off the
    // bridge.
    let pairs: Vec<(usize, usize)> = (0..tests.len())
        .flat_map(|t| (0..implementations.len()).map(move |i| (t, i)))
        .collect();
    let observed: Vec<Observed> = pairs
        .par_iter()
        .map(|&(t, i)| match (&guarded[t], &solutions[i]) {
            (Ok(test), Ok(solution)) => match tc.run_observed(solution, test, seed, limits, LOG) {
                Ok(o) => observe(&o.exchanges),
                Err(e) => Observed::failed(format!("does not build: {}", cut(&e.message, 80))),
            },
            (Err(e), _) => Observed::failed(format!("no test: {}", cut(e, 80))),
            (_, Err(e)) => Observed::failed(format!("does not build: {}", cut(e, 80))),
        })
        .collect();

    // Distinct calls in order of first appearance (test order, then coder order), each with
    // the tests that made it; each implementation's first answer to each.
    let mut calls: Vec<(ObservedCall, Vec<String>)> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut given: BTreeMap<(usize, usize), ObservedAnswer> = BTreeMap::new();
    let mut not_replayable = 0;
    let mut not_probed = 0;
    for (&(t, i), obs) in pairs.iter().zip(&observed) {
        if i == 0 {
            not_replayable += obs.not_replayable;
        }
        for (call, answer) in &obs.calls {
            let key = call_key(call);
            let c = match index.get(&key) {
                Some(&c) => c,
                None if calls.len() >= MAX_CALLS => {
                    not_probed += 1;
                    continue;
                }
                None => {
                    index.insert(key, calls.len());
                    calls.push((call.clone(), Vec::new()));
                    calls.len() - 1
                }
            };
            if !calls[c].1.contains(&tests[t].label) {
                calls[c].1.push(tests[t].label.clone());
            }
            given.entry((c, i)).or_insert_with(|| answer.clone());
        }
    }
    let made_by = |c: &(ObservedCall, Vec<String>), origin: Origin| {
        c.1.iter()
            .any(|l| tests.iter().any(|t| t.origin == origin && &t.label == l))
    };
    let hidden_calls: Vec<&(ObservedCall, Vec<String>)> = calls
        .iter()
        .filter(|c| made_by(c, Origin::Hidden))
        .collect();
    let overlap = (!hidden_calls.is_empty()).then(|| CallOverlap {
        hidden: hidden_calls.len(),
        shared: hidden_calls
            .iter()
            .filter(|c| made_by(c, Origin::Own))
            .count(),
    });
    if implementations.len() < 2 {
        // One implementation: the overlap only, nothing to compare.
        return Ok(Disagreements {
            implementations: implementations.iter().map(|(n, _)| n.clone()).collect(),
            tests: tests.len(),
            overlap,
            ..Default::default()
        });
    }
    let answers: Vec<ObservedAnswer> = (0..calls.len())
        .flat_map(|c| (0..implementations.len()).map(move |i| (c, i)))
        .map(|(c, i)| match given.remove(&(c, i)) {
            Some(a) => a,
            None => {
                let missing = pairs
                    .iter()
                    .zip(&observed)
                    .filter(|((_, j), _)| *j == i)
                    .find_map(|(_, o)| {
                        o.failure.clone().map(ObservedAnswer::Silent).or_else(|| {
                            o.missing
                                .contains(&calls[c].0.function)
                                .then_some(ObservedAnswer::Missing)
                        })
                    });
                missing.unwrap_or_else(|| ObservedAnswer::Silent("not called by the tests".into()))
            }
        })
        .collect();

    let mut functions: BTreeMap<String, Vec<Disagreement>> = BTreeMap::new();
    let mut agreed = 0;
    for (c, (call, tests_of_call)) in calls.iter().enumerate() {
        let row = &answers[c * implementations.len()..(c + 1) * implementations.len()];
        let mut groups: Vec<(String, &ObservedAnswer, Vec<String>)> = Vec::new();
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
        overlap,
    })
}

/// The finder on a recorded run: the tests of its journal against the implementations in
/// `run_dir/implementations/`, with the run's seed and limits. `None` when the run's tests are
/// not Python unit tests.
pub fn for_run(
    tc: &Toolchains,
    journal: &crate::journal::JournalFile,
    named: &dyn Fn(&crate::journal::Open) -> Vec<NamedTest>,
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
    let stated = config.stated_interface(run_dir, &journal.project.spec);
    let interface = match tc.interface(&stated) {
        Ok(i) => Arc::new(i),
        Err(e) => {
            return Some(Disagreements {
                error: Some(format!("the recorded interface: {e}")),
                ..Default::default()
            })
        }
    };
    Some(find(
        tc,
        &tests_of_journal(journal, named),
        &implementations,
        &interface,
        config.project.seed,
        &config.limits.limits(),
    ))
}

impl Disagreements {
    /// Number of calls on which the implementations disagree.
    pub fn count(&self) -> usize {
        self.functions.iter().map(|f| f.inputs.len()).sum()
    }
}
