//! One evaluation, start to finish: import the corpus (compile check in the sandbox), build the
//! verdict matrices (or take them from the cache), score every strategy, and describe how it
//! was done in an [`EvalReport`] that shard reports can be merged into.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::cache::{EvalCache, CACHE_VERSION};
use super::codet::{CodetFiles, ImportOptions};
use super::corpus::{Corpus, Problem};
use super::error::{EvalError, MergeError};
use super::fuel_rule::FuelRule;
use super::matrix::Harness;
use super::scoring::{Report, ScoringConfig, VerdictFile};
use super::verdicts::{verdict_of_code, MemoryResets, ProblemVerdicts};
use super::Progress;
use crate::execution::Isolation;
use crate::sandbox::{
    hash_parts, wasmtime_version, ArtifactCache, Limits, Program, Sandbox, SandboxError,
};
use crate::scaleout::{shard_file_name, write_atomic, Coverage, Shard, ShardFileError};
use crate::workers::{ProcessPool, Workers};

/// The report format this version writes and reads; another is refused. Format 2: shards
/// balance expected work (format 1 dealt problems round robin, so the parts of the two cannot be
/// merged), and the setup records how many problems the whole evaluation selected.
pub const REPORT_FORMAT: u32 = 2;

/// What to evaluate and how.
#[derive(Clone, Debug)]
pub struct EvalOptions {
    /// A CodeT data directory.
    pub corpus: PathBuf,
    /// Which problems, how many tests per sample, which shard.
    pub import: ImportOptions,
    /// How much state the runs of one solution share.
    pub isolation: Isolation,
    /// Limits of each run (fuel replaces CodeT's 0.1 s wall-clock limit).
    pub limits: Limits,
    /// The fuel a solution may spend on each test, from the reference's (at most the limit).
    pub fuel_rule: FuelRule,
    /// Strategy settings.
    pub scoring: ScoringConfig,
    /// The root of the evaluation cache (entries go in its `eval/` folder; normally the artifact
    /// cache's root); `None`: neither read nor write cached corpora and matrices.
    pub cache_dir: Option<PathBuf>,
    /// Worker processes that build the matrices; `None`: this process's threads.
    pub processes: Option<ProcessPool>,
}

/// Everything that determines the results, except the shard: equal for every shard of one
/// evaluation, so `dixit merge` can check the parts belong together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalSetup {
    /// Corpus format (`codet`).
    pub corpus_format: String,
    /// SHA-256 over the corpus files.
    pub corpus_hash: String,
    /// First n kept tests per test sample.
    pub test_case_limit: usize,
    /// Only these problems, if restricted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<Vec<String>>,
    /// Only the first n problems, if restricted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// Problems the whole evaluation selected (after `only` and `limit`): every shard's
    /// problems together.
    pub problems: u64,
    /// The isolation level every run used.
    pub isolation: Isolation,
    /// Limits of each run.
    pub limits: Limits,
    /// The fuel a solution may spend on each test (`flat` in reports written before the rule).
    #[serde(default)]
    pub fuel_rule: FuelRule,
    /// wasmtime version (fuel units are version-specific).
    pub wasmtime: String,
    /// The Python runtime build the runs used (SHA-256 of its WebAssembly): fuel compares
    /// between equal builds.
    pub runtime: String,
}

/// Sizes of the evaluated corpus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorpusCounts {
    /// Problems.
    pub problems: u64,
    /// Unique solutions.
    pub solutions: u64,
    /// Solution samples (with multiplicity).
    pub solution_samples: u64,
    /// Unique generated tests.
    pub tests: u64,
    /// Test samples (with multiplicity).
    pub test_samples: u64,
    /// (unique solution or reference) × (unique test or hidden check) cells.
    pub cells: u64,
}

impl CorpusCounts {
    fn of(problems: &[Problem]) -> Self {
        let mut c = CorpusCounts::default();
        for p in problems {
            c.problems += 1;
            c.solutions += p.solutions.len() as u64;
            c.solution_samples += p.solution_samples();
            c.tests += p.tests.len() as u64;
            c.test_samples += p.test_samples();
            c.cells += (p.solutions.len() as u64 + 1) * (p.tests.len() as u64 + 1);
        }
        c
    }

    fn add(&mut self, o: &CorpusCounts) {
        self.problems += o.problems;
        self.solutions += o.solutions;
        self.solution_samples += o.solution_samples;
        self.tests += o.tests;
        self.test_samples += o.test_samples;
        self.cells += o.cells;
    }
}

/// Wall time of each phase, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Phases {
    /// Reading and post-processing the corpus files.
    pub import: f64,
    /// The compile check of test candidates in the sandbox.
    pub compile_check: f64,
    /// Building the verdict matrices in the sandbox.
    pub matrix: f64,
    /// Scoring every strategy.
    pub scoring: f64,
    /// The whole evaluation.
    pub total: f64,
}

/// How the evaluation was carried out (not part of the results: a cached re-run differs here).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Execution {
    /// Sizes of what was evaluated.
    pub corpus: CorpusCounts,
    /// Whether the post-processed corpus came from the cache.
    pub corpus_cached: bool,
    /// Problems whose matrix came from the cache.
    pub cached_problems: u64,
    /// Guest runs performed (compile-check batches included).
    pub runs: u64,
    /// Instances started.
    pub instances: u64,
    /// How the Python runtime's memories were reset between instances (this process's
    /// resets: none when every matrix came from the cache).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryResets>,
    /// Fuel used by all the runs behind the matrices (cached ones included).
    pub fuel: u64,
    /// Cells of the matrices by verdict (`pass`, `wrong_answer`, ...).
    pub verdicts: BTreeMap<String, u64>,
    /// Problems whose reference solution fails its own hidden tests (should be none).
    pub reference_failures: Vec<String>,
    /// Wall time per phase.
    pub seconds: Phases,
    /// Worker threads, or worker processes when `workers` says so.
    pub threads: usize,
    /// Whether the matrices were built on threads or in worker processes.
    #[serde(default, skip_serializing_if = "Workers::is_threads")]
    pub workers: Workers,
}

/// The outcome of `dixit eval`: setup, results, and how they were obtained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    /// Report format version.
    pub format: u32,
    /// Everything that determines the results.
    pub setup: EvalSetup,
    /// The shard evaluated, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Pass@1 per strategy and band precision.
    pub results: Report,
    /// How it was done.
    pub execution: Execution,
}

/// A finished evaluation: its report, the corpus it evaluated and the verdict matrices.
pub struct Evaluation {
    /// The report.
    pub report: EvalReport,
    /// The post-processed corpus (this shard's problems).
    pub corpus: Corpus,
    /// The verdict matrix of each problem, in corpus order.
    pub matrices: Vec<ProblemVerdicts>,
}

/// Runs an evaluation. `runtime` is dixit's Python runtime
/// ([`Toolchains::python_runtime`](crate::toolchain::Toolchains::python_runtime)).
pub fn evaluate(
    sandbox: &Sandbox,
    runtime: &Program,
    options: &EvalOptions,
    progress: &dyn Progress,
) -> Result<Evaluation, EvalError> {
    let started = Instant::now();
    let cache = match &options.cache_dir {
        Some(dir) => EvalCache::new(ArtifactCache::open(dir).map_err(|e| match e {
            SandboxError::Cache { path, source } => EvalError::io(path, source),
            other => EvalError::io(dir, std::io::Error::other(other.to_string())),
        })?),
        None => EvalCache::disabled(),
    };
    let mut harness = Harness::new(sandbox, runtime, options.limits.clone(), options.isolation)
        .with_fuel_rule(options.fuel_rule);
    if let Some(pool) = &options.processes {
        harness = harness.with_processes(pool.clone());
    }
    let mut seconds = Phases::default();

    // Import, with the compile check in the sandbox (or its cached result). Reading and
    // post-processing the files is cheap and always done: a shard's problems depend on the
    // expected work of every problem.
    let files = CodetFiles::discover(&options.corpus)?;
    let corpus_hash = hash_files(&files)?;
    let corpus_key = corpus_key(&corpus_hash, &options.import, runtime);
    let pending = super::codet::load_codet_files(&files, &options.import)?;
    let selected_problems = pending.selected_problems() as u64;
    seconds.import = started.elapsed().as_secs_f64();
    let cached_corpus: Option<Corpus> = cache.get("corpus", &corpus_key);
    let corpus_cached = cached_corpus.is_some();
    let corpus = match cached_corpus {
        Some(c) => c,
        None => {
            let t = Instant::now();
            let compiles = harness.compile_check(pending.probes(), progress)?;
            seconds.compile_check = t.elapsed().as_secs_f64();
            let corpus = pending.finish(&compiles)?;
            cache.put("corpus", &corpus_key, &corpus)?;
            corpus
        }
    };

    // Matrices: cached ones as they are, the others built in one parallel pass.
    let t = Instant::now();
    let keys: Vec<String> = corpus
        .problems
        .iter()
        .map(|p| matrix_key(p, options, runtime))
        .collect();
    let mut matrices: Vec<Option<ProblemVerdicts>> = keys
        .iter()
        .zip(&corpus.problems)
        .map(|(k, p)| {
            cache
                .get::<ProblemVerdicts>("matrix", k)
                .filter(|m| m.id == p.id && m.solutions == p.solutions && m.tests == p.tests)
        })
        .collect();
    let cached_problems = matrices.iter().filter(|m| m.is_some()).count() as u64;
    let missing: Vec<usize> = (0..matrices.len())
        .filter(|&k| matrices[k].is_none())
        .collect();
    if !missing.is_empty() {
        let todo: Vec<&Problem> = missing.iter().map(|&k| &corpus.problems[k]).collect();
        let built = harness.matrices(&todo, progress)?;
        for (k, m) in missing.into_iter().zip(built) {
            cache.put("matrix", &keys[k], &m)?;
            matrices[k] = Some(m);
        }
    }
    let matrices: Vec<ProblemVerdicts> = matrices.into_iter().flatten().collect();
    seconds.matrix = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let scored = matrices
        .iter()
        .map(ProblemVerdicts::matrix)
        .collect::<Result<Vec<_>, _>>()?;
    let results = Report::score(&scored, options.scoring)?;
    seconds.scoring = t.elapsed().as_secs_f64();
    seconds.total = started.elapsed().as_secs_f64();

    let mut verdicts = BTreeMap::new();
    for m in &matrices {
        for (code, n) in m.verdict_counts() {
            let name = verdict_of_code(code)
                .map(|k| k.as_str().to_string())
                .unwrap_or_else(|| code.to_string());
            *verdicts.entry(name).or_insert(0) += n;
        }
    }
    let execution = Execution {
        corpus: CorpusCounts::of(&corpus.problems),
        corpus_cached,
        cached_problems,
        runs: harness.runs(),
        instances: harness.instances(),
        memory: harness.memory_resets(),
        fuel: matrices.iter().map(|m| m.fuel).sum(),
        verdicts,
        reference_failures: {
            let mut ids: Vec<String> = matrices
                .iter()
                .filter(|m| m.reference_hidden != 'P')
                .map(|m| m.id.clone())
                .collect();
            ids.sort();
            ids
        },
        seconds,
        threads: harness.workers(),
        workers: if harness.processes().is_some() {
            Workers::Processes
        } else {
            Workers::Threads
        },
    };
    let report = EvalReport {
        format: REPORT_FORMAT,
        setup: EvalSetup {
            corpus_format: "codet".into(),
            corpus_hash,
            test_case_limit: options.import.test_case_limit,
            only: options.import.only.clone(),
            limit: options.import.limit,
            problems: selected_problems,
            isolation: options.isolation,
            limits: options.limits.clone(),
            fuel_rule: options.fuel_rule,
            wasmtime: wasmtime_version().to_string(),
            runtime: runtime.build().to_string(),
        },
        shard: options.import.shard,
        results,
        execution,
    };
    Ok(Evaluation {
        report,
        corpus,
        matrices,
    })
}

fn hash_files(files: &CodetFiles) -> Result<String, EvalError> {
    let mut parts = Vec::new();
    for path in [
        &files.code_generation,
        &files.test_case_generation,
        &files.code_solution,
        &files.test_case,
    ] {
        parts.push(std::fs::read(path).map_err(|e| EvalError::io(path, e))?);
    }
    Ok(hash_parts(parts.iter().map(Vec::as_slice)))
}

fn corpus_key(corpus_hash: &str, import: &ImportOptions, runtime: &Program) -> String {
    let only = import
        .only
        .as_ref()
        .map(|v| v.join("\n"))
        .unwrap_or_default();
    hash_parts([
        CACHE_VERSION.as_bytes(),
        b"corpus".as_slice(),
        corpus_hash.as_bytes(),
        import.test_case_limit.to_string().as_bytes(),
        format!("{:?}", import.only.is_some()).as_bytes(),
        only.as_bytes(),
        format!("{:?}", import.limit).as_bytes(),
        format!("{:?}", import.shard.map(|s| s.to_string())).as_bytes(),
        // How shards are dealt (before: round robin, under the same shard strings).
        b"partition: expected cells".as_slice(),
        runtime.build().as_bytes(),
        wasmtime_version().as_bytes(),
    ])
}

fn matrix_key(problem: &Problem, options: &EvalOptions, runtime: &Program) -> String {
    let problem_json = serde_json::to_vec(problem).unwrap_or_default();
    let limits_json = serde_json::to_vec(&options.limits).unwrap_or_default();
    let rule_json = serde_json::to_vec(&options.fuel_rule).unwrap_or_default();
    let mut parts: Vec<&[u8]> = vec![
        CACHE_VERSION.as_bytes(),
        // Since matrices carry the solutions' answers ([`ProblemVerdicts::outputs`]): one built
        // before has none, so it is built again.
        b"matrix with answers".as_slice(),
        &problem_json,
        &limits_json,
        options.isolation.as_str().as_bytes(),
        runtime.build().as_bytes(),
        wasmtime_version().as_bytes(),
    ];
    // A flat fuel rule keys as before the rule existed.
    if options.fuel_rule != FuelRule::Flat {
        parts.push(&rule_json);
    }
    hash_parts(parts)
}

/// The file under `problems/` that holds the verdicts of problem `id`: its id encoded by
/// [`crate::file_name::encode`] (`HumanEval/12` → `HumanEval%2F12.json`), so no two ids share a
/// file.
pub fn problem_file_name(id: &str) -> String {
    format!("{}.json", crate::file_name::encode(id))
}

impl Evaluation {
    /// Saves the report and the matrices under `dir`; returns the report's path. Each file is
    /// written atomically (a temporary file, then a rename), so a killed run leaves no partial
    /// file and a repeated one replaces its files whole.
    ///
    /// * `problems/<id>.json` ([`problem_file_name`]): each problem's verdicts with their kinds and exceptions;
    /// * unsharded: `report.json`, and `verdicts.json`, the pass/fail matrices in the format
    ///   `scripts/native_eval.py` writes (so both harnesses can be diffed and scored alike);
    /// * shard I of N: `shard-I-of-N.json`, the shard's report (`dixit merge DIR` joins them).
    ///   Shards hold disjoint problems, so they can share `dir`.
    pub fn save(&self, dir: &Path) -> Result<PathBuf, EvalError> {
        let problems = dir.join("problems");
        std::fs::create_dir_all(&problems).map_err(|e| EvalError::io(&problems, e))?;
        for m in &self.matrices {
            write_json(&problems.join(problem_file_name(&m.id)), m)?;
        }
        let report = match self.report.shard {
            Some(shard) => dir.join(shard_file_name(shard)),
            None => {
                let verdicts = VerdictFile {
                    problems: self
                        .matrices
                        .iter()
                        .map(ProblemVerdicts::recorded)
                        .collect(),
                    timeout: None,
                    wall_seconds: Some(self.report.execution.seconds.matrix),
                };
                write_json(&dir.join("verdicts.json"), &verdicts)?;
                dir.join("report.json")
            }
        };
        write_json(&report, &self.report)?;
        Ok(report)
    }
}

/// Writes `value` as pretty JSON, atomically.
pub(crate) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), EvalError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| {
        EvalError::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })?;
    write_atomic(path, (text + "\n").as_bytes()).map_err(|e| match e {
        ShardFileError::Io { path, source } => EvalError::io(path, source),
        other => EvalError::io(path, std::io::Error::other(other.to_string())),
    })
}

impl EvalReport {
    /// Reads a report written by `dixit eval --json` (or `--out DIR`'s `report.json`).
    pub fn read(path: &Path) -> Result<Self, EvalError> {
        let text = std::fs::read_to_string(path).map_err(|e| EvalError::io(path, e))?;
        #[derive(Deserialize)]
        struct Head {
            format: u32,
        }
        let head: Head = serde_json::from_str(&text).map_err(|source| EvalError::BadReport {
            path: path.to_path_buf(),
            source,
        })?;
        if head.format != REPORT_FORMAT {
            return Err(EvalError::ReportFormat {
                path: path.to_path_buf(),
                found: head.format,
                supported: REPORT_FORMAT,
            });
        }
        serde_json::from_str(&text).map_err(|source| EvalError::BadReport {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Joins the reports of the shards of one evaluation into the report of the whole: the same
    /// setup and results as an unsharded run (execution counts are summed; wall times are those
    /// of the slowest shard). Every shard `1..=n` must be present exactly once, and all must
    /// share one setup. Parts are named by their shard in errors; see
    /// [`EvalReport::merge_labelled`] to name them by file.
    pub fn merge(parts: Vec<EvalReport>) -> Result<EvalReport, EvalError> {
        let labelled = parts
            .into_iter()
            .map(|p| {
                let label = p
                    .shard
                    .map_or_else(|| "a report".to_string(), |s| format!("shard {s}"));
                (label, p)
            })
            .collect();
        Self::merge_labelled(labelled)
    }

    /// [`EvalReport::merge`] with a label (e.g. the file name) for each part, used in errors.
    pub fn merge_labelled(parts: Vec<(String, EvalReport)>) -> Result<EvalReport, EvalError> {
        let labelled: Vec<(&str, Option<Shard>, serde_json::Value)> = parts
            .iter()
            .map(|(label, p)| (label.as_str(), p.shard, setup_value(p)))
            .collect();
        check_shard_parts(&labelled)?;
        let setup = parts[0].1.setup.clone();
        let found: u64 = parts.iter().map(|(_, p)| p.execution.corpus.problems).sum();
        if found != setup.problems {
            return Err(MergeError::ProblemCount {
                expected: setup.problems,
                found,
            }
            .into());
        }
        let parts: Vec<EvalReport> = parts.into_iter().map(|(_, p)| p).collect();
        let mut execution = Execution::default();
        for p in &parts {
            let e = &p.execution;
            execution.corpus.add(&e.corpus);
            execution.corpus_cached = execution.corpus_cached || e.corpus_cached;
            execution.cached_problems += e.cached_problems;
            execution.runs += e.runs;
            execution.instances += e.instances;
            execution.memory = MemoryResets::join(execution.memory, e.memory);
            execution.fuel += e.fuel;
            for (k, v) in &e.verdicts {
                *execution.verdicts.entry(k.clone()).or_insert(0) += v;
            }
            execution
                .reference_failures
                .extend(e.reference_failures.iter().cloned());
            let s = &mut execution.seconds;
            s.import = s.import.max(e.seconds.import);
            s.compile_check = s.compile_check.max(e.seconds.compile_check);
            s.matrix = s.matrix.max(e.seconds.matrix);
            s.scoring = s.scoring.max(e.seconds.scoring);
            s.total = s.total.max(e.seconds.total);
            execution.threads = execution.threads.max(e.threads);
            if !e.workers.is_threads() {
                execution.workers = e.workers;
            }
        }
        execution.reference_failures.sort();
        let results = Report::merge(parts.into_iter().map(|p| p.results))?;
        Ok(EvalReport {
            format: REPORT_FORMAT,
            setup,
            shard: None,
            results,
            execution,
        })
    }
}

/// Checks that labelled parts (label, shard, what must be equal as JSON) are the shards of one
/// job: every one a shard of the same count and setup, each shard exactly once. Returns the
/// count. Shared by every kind of sharded evaluation.
pub(crate) fn check_shard_parts(
    parts: &[(&str, Option<Shard>, serde_json::Value)],
) -> Result<u32, MergeError> {
    let Some((first_label, first_shard, reference)) = parts.first() else {
        return Err(MergeError::Nothing);
    };
    let Some(first_shard) = first_shard else {
        return Err(MergeError::NotAShard {
            label: first_label.to_string(),
        });
    };
    for (label, shard, value) in parts {
        let Some(s) = shard else {
            return Err(MergeError::NotAShard {
                label: label.to_string(),
            });
        };
        if s.count != first_shard.count {
            return Err(MergeError::CountDiffers {
                label: label.to_string(),
                count: s.count,
                first: first_label.to_string(),
                first_count: first_shard.count,
            });
        }
        let differences = differences(reference, value);
        if !differences.is_empty() {
            return Err(MergeError::SetupDiffers {
                label: label.to_string(),
                first: first_label.to_string(),
                differences,
            });
        }
    }
    let count = first_shard.count;
    let coverage = Coverage::of(
        count,
        parts.iter().filter_map(|(_, s, _)| *s).map(|s| s.index),
    );
    if !coverage.repeated.is_empty() {
        return Err(MergeError::Repeated {
            count,
            repeated: coverage.repeated,
        });
    }
    if !coverage.missing.is_empty() {
        return Err(MergeError::Missing {
            count,
            missing: coverage.missing,
        });
    }
    Ok(count)
}

/// What must be equal for reports to be parts of one evaluation: the setup and the scoring
/// settings, as JSON (so a difference can be named field by field).
fn setup_value(r: &EvalReport) -> serde_json::Value {
    serde_json::json!({
        "format": r.format,
        "setup": serde_json::to_value(&r.setup).unwrap_or_default(),
        "scoring": serde_json::to_value(r.results.config).unwrap_or_default(),
    })
}

/// The leaves where `a` and `b` differ, as `path: a's value vs b's value`.
fn differences(a: &serde_json::Value, b: &serde_json::Value) -> Vec<String> {
    fn walk(path: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
        use serde_json::Value;
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(
                        &p,
                        x.get(k).unwrap_or(&Value::Null),
                        y.get(k).unwrap_or(&Value::Null),
                        out,
                    );
                }
            }
            _ if a != b => out.push(format!("{path}: {a} vs {b}")),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk("", a, b, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_name_each_field() {
        let a =
            serde_json::json!({"setup": {"limits": {"fuel": 4, "memory": 1}, "isolation": "run"}});
        let b = serde_json::json!({"setup": {"limits": {"fuel": 1, "memory": 1}, "isolation": "solution", "only": ["x"]}});
        assert_eq!(
            differences(&a, &b),
            [
                "setup.isolation: \"run\" vs \"solution\"",
                "setup.limits.fuel: 4 vs 1",
                "setup.only: null vs [\"x\"]",
            ]
        );
        assert!(differences(&a, &a).is_empty());
    }
}
