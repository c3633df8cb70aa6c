//! The verdict matrix of a problem, built in the sandbox: every unique solution, and the reference
//! solution, against the hidden tests and against every unique generated test. Everything runs in
//! dixit's Python runtime (`guest-sdk/python/dixit_runtime.py`). First every solution and test
//! program is built once (`build` mode: compiled and marshalled; a source that does not compile
//! is a `compile_error` for all its cells, without runs); then each run executes the solution in
//! an instance of its own (`serve-pair` mode) and the test, apart, in another (`pair` mode) in
//! the reference solution's namespace (the prompt's imports and helpers, the builtins) with only
//! the entry point bound to the solution, across the boundary where only data crosses (see
//! `sandbox::bridge`), with stdout and stderr discarded.
//!
//! Two isolation levels (DESIGN, Execution):
//! * [`Isolation::Run`]: a fresh pair of instances per (solution, test) run;
//! * [`Isolation::Solution`]: one pair of instances per solution runs its hidden check and its
//!   tests one after another, each in fresh namespaces and with its own fuel budget. Interpreter-wide state
//!   (imported modules, `builtins`, the WASI RNG stream) persists between the runs of a solution;
//!   the recursion limit is reset before each run. An instance that traps (fuel, stack) is
//!   replaced by fresh ones for the remaining tests.
//!
//! Every run goes through the [`Executor`] (`crate::execution`), which runs a row at either level
//! and counts every guest run and instance it starts, so callers can prove that a cached
//! evaluation executes nothing.

use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::corpus::Problem;
use super::error::EvalError;
use super::fuel_rule::FuelRule;
use super::processes::{in_processes, MatrixSetup, WorkerCounts};
use super::verdicts::{verdict_code, CellNote, MemoryResets, ProblemVerdicts};
use super::Progress;
use crate::consensus::answers::{Recorder, Seen, SeenCalls};
use crate::execution::{self, Executor, Isolation, RowCall};
use crate::sandbox::boundary::Interface;
use crate::sandbox::{
    Completion, Entry, Limits, Program, RunEnd, RunOutcome, RunSpec, RuntimeMode, Sandbox, Server,
    Verdict, VerdictKind,
};
use crate::workers::ProcessPool;

/// The seed of every evaluation run (RNG and virtual clock): runs are reproducible.
pub const EVAL_SEED: u64 = 1;

/// Programs per call of the batch compile check and of the build.
const COMPILE_CHUNK: usize = 100;
/// Exchanges of the bridge kept per run, for the answers ([`Outputs`]): a generated test makes a
/// call or two, so this bounds only a test that loops over calls.
const BRIDGE_LOG: usize = 64;
/// Fuel per program of the compile check: far above what compiling one test costs, so the check
/// never depends on the evaluation's fuel limit.
const COMPILE_FUEL_PER_PROGRAM: u64 = 200_000_000;

/// The outcome of one run in the matrix.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct MatrixRun {
    /// The verdict.
    pub verdict: VerdictKind,
    /// For a failure: the exception's class name (or the sandbox's detail).
    pub note: Option<String>,
    /// Fuel the run used.
    pub fuel: u64,
    /// The calls the test made into the solution and its answers, off the bridge (numbered in
    /// its problem's [`Seen`]; empty where not read).
    pub calls: SeenCalls,
}

/// A generated test as the program that runs it: CodeT packs each test into a function body
/// indented by 12 spaces (continuation lines re-indented, which also shifts the content of
/// multi-line string literals), so the harness runs exactly that text.
pub fn test_program(test: &str) -> String {
    let body = test.trim().replace('\n', "\n            ");
    format!("def __dixit_test():\n            {body}\n__dixit_test()\n")
}

/// Runs solutions against tests in dixit's Python runtime, through the [`Executor`] (which
/// counts what it runs).
pub struct Harness<'a> {
    executor: Executor<'a>,
    runtime: &'a Program,
    limits: Limits,
    fuel_rule: FuelRule,
    /// Where matrices are built: `None`, on this process's threads.
    processes: Option<ProcessPool>,
    /// What the worker processes counted.
    remote: Mutex<WorkerCounts>,
}

/// A built program: base64 marshal data, or the class name of what compiling it raised.
type Built = Result<String, String>;

/// One solution of one problem; it runs against the hidden check first, then the tests.
struct Row<'b> {
    problem: usize,
    /// `None`: the reference solution.
    solution: Option<usize>,
    built: &'b Built,
}

/// What every run of one problem shares: the interface (its entry point) and the reference
/// solution's code, in whose namespace the tests run.
struct Shared {
    interface: Arc<Interface>,
    /// The interface as both sides are told it.
    shown: String,
    /// The reference's marshalled code ("" when it did not build: the test then runs among the
    /// builtins and the entry point only).
    reference: String,
}

impl<'a> Harness<'a> {
    /// A harness running `runtime` (dixit's Python runtime) on `sandbox`.
    pub fn new(
        sandbox: &'a Sandbox,
        runtime: &'a Program,
        limits: Limits,
        isolation: Isolation,
    ) -> Self {
        Harness {
            executor: Executor::new(sandbox, isolation),
            runtime,
            limits,
            fuel_rule: FuelRule::Flat,
            processes: None,
            remote: Mutex::new(WorkerCounts::default()),
        }
    }

    /// The harness with its verdict matrices built by `pool`'s worker processes, one problem
    /// each at a time (the compile check stays on this process's threads).
    pub fn with_processes(mut self, pool: ProcessPool) -> Self {
        self.processes = Some(pool);
        self
    }

    /// Worker processes building the matrices (`None`: threads of this process).
    pub fn processes(&self) -> Option<&ProcessPool> {
        self.processes.as_ref()
    }

    /// What a worker process is told before its first problem: this harness's settings.
    pub(super) fn setup(&self) -> MatrixSetup {
        MatrixSetup {
            isolation: self.executor.isolation(),
            limits: self.limits.clone(),
            fuel_rule: self.fuel_rule,
        }
    }

    /// This process's counters (what a worker process reports when it is done).
    pub(super) fn counts(&self) -> WorkerCounts {
        WorkerCounts {
            runs: self.executor.runs(),
            instances: self.executor.instances(),
            memory: self.local_memory_resets(),
            workers: 0,
        }
    }

    /// Workers that built matrices: the worker processes started (the pool's size before any
    /// did), or this process's threads.
    pub fn workers(&self) -> usize {
        match &self.processes {
            Some(pool) => match self.remote().workers {
                0 => pool.workers(),
                n => n as usize,
            },
            None => rayon::current_num_threads(),
        }
    }

    /// The harness with `rule` setting each solution's fuel on each test from the reference's.
    pub fn with_fuel_rule(mut self, rule: FuelRule) -> Self {
        self.fuel_rule = rule;
        self
    }

    /// Guest runs (calls into the runtime) so far.
    pub fn runs(&self) -> u64 {
        self.executor.runs() + self.remote().runs
    }

    /// Instances started so far.
    pub fn instances(&self) -> u64 {
        self.executor.instances() + self.remote().instances
    }

    fn remote(&self) -> WorkerCounts {
        *self.remote.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How the runtime's memories were reset so far, and how resets find their pages.
    pub fn memory_resets(&self) -> Option<MemoryResets> {
        MemoryResets::join(self.local_memory_resets(), self.remote().memory)
    }

    fn local_memory_resets(&self) -> Option<MemoryResets> {
        self.runtime.reset_stats().map(|stats| MemoryResets {
            tracking: crate::sandbox::reset_tracking(),
            stats,
        })
    }

    /// What every run of a solution's row shares: the solution served by its own instance
    /// (`serve-pair`), keeping `log` exchanges of the bridge; each test (a [`RowCall`]) runs apart
    /// in the reference's namespace with the entry point bound to the solution (`pair`).
    fn row_spec(&self, shared: &Shared, solution: &str, log: usize) -> RunSpec {
        RunSpec {
            entry: pair_call(shared, ""),
            stdin: Arc::from(Vec::new()),
            preopens: Vec::new(),
            limits: self.limits.clone(),
            seed: EVAL_SEED,
            server: Some(Arc::new(Server {
                program: self.runtime.clone(),
                mode: RuntimeMode::ServePair,
                target: String::new(),
                args: vec![shared.shown.clone(), solution.into(), "marshal".into()],
                code: Arc::from(Vec::new()),
                preopens: Vec::new(),
                log,
                interface: shared.interface.clone(),
            })),
        }
    }

    /// Python's `compile(program, "", "exec")` succeeds, for each program: the importer's
    /// compile check, in batches, in parallel.
    pub fn compile_check(
        &self,
        programs: &[String],
        progress: &dyn Progress,
    ) -> Result<Vec<bool>, EvalError> {
        progress.start("compile check", programs.len() as u64);
        let chunks: Vec<Result<Vec<bool>, EvalError>> = programs
            .par_chunks(COMPILE_CHUNK)
            .map(|chunk| {
                let r = self.compile_chunk(chunk);
                progress.advance(chunk.len() as u64);
                r
            })
            .collect();
        progress.finish();
        let mut out = Vec::with_capacity(programs.len());
        for c in chunks {
            out.extend(c?);
        }
        Ok(out)
    }

    fn compile_chunk(&self, chunk: &[String]) -> Result<Vec<bool>, EvalError> {
        let limits = Limits {
            fuel: COMPILE_FUEL_PER_PROGRAM * chunk.len() as u64,
            wall_time_ms: 600_000,
            ..self.limits.clone()
        };
        let outcome = self.run_batch(
            RuntimeMode::Compile,
            String::new(),
            chunk.to_vec(),
            limits,
            "compile-checking tests",
        )?;
        let flags: Vec<bool> = outcome.stdout.iter().map(|&b| b == b'1').collect();
        if outcome.end == (RunEnd::Returned { code: 0 }) && flags.len() == chunk.len() {
            return Ok(flags);
        }
        // The batch did not finish (a pathological program exhausted its memory, say): check the
        // programs one by one; one that cannot be compiled within its budget does not compile.
        if chunk.len() == 1 {
            return Ok(vec![false]);
        }
        let mut out = Vec::with_capacity(chunk.len());
        for program in chunk {
            out.extend(self.compile_chunk(std::slice::from_ref(program))?);
        }
        Ok(out)
    }

    /// Compiles and marshals each source in the runtime (`build` mode), in batches, in
    /// parallel: `Ok(base64 marshal data)` or `Err(class name of what compile raised)`.
    fn build(
        &self,
        filename: &str,
        sources: &[&str],
        progress: &dyn Progress,
    ) -> Result<Vec<Built>, EvalError> {
        let chunks: Vec<Result<Vec<Built>, EvalError>> = sources
            .par_chunks(COMPILE_CHUNK)
            .map(|chunk| {
                let r = self.build_chunk(filename, chunk);
                progress.advance(chunk.len() as u64);
                r
            })
            .collect();
        let mut out = Vec::with_capacity(sources.len());
        for c in chunks {
            out.extend(c?);
        }
        Ok(out)
    }

    fn build_chunk(&self, filename: &str, chunk: &[&str]) -> Result<Vec<Built>, EvalError> {
        let limits = Limits {
            fuel: COMPILE_FUEL_PER_PROGRAM * chunk.len() as u64,
            wall_time_ms: 600_000,
            output_bytes: 256 << 20,
            ..self.limits.clone()
        };
        let outcome = self.run_batch(
            RuntimeMode::Build,
            filename.into(),
            chunk.iter().map(|s| s.to_string()).collect(),
            limits,
            "building programs",
        )?;
        let text = String::from_utf8_lossy(&outcome.stdout);
        let built: Vec<Built> = text
            .split('\n')
            .filter(|l| !l.is_empty())
            .map(|l| match l.split_at(1) {
                ("+", data) => Ok(data.to_string()),
                (_, class) => Err(class.to_string()),
            })
            .collect();
        if outcome.end == (RunEnd::Returned { code: 0 }) && built.len() == chunk.len() {
            return Ok(built);
        }
        if let [_] = chunk {
            // This one source cannot even be compiled within its budget.
            let v = Verdict::from_outcome(&outcome, EVAL_SEED, Completion::Returned);
            return Ok(vec![Err(format!("compile: {}", v.verdict))]);
        }
        let mut out = Vec::with_capacity(chunk.len());
        for source in chunk {
            out.extend(self.build_chunk(filename, std::slice::from_ref(source))?);
        }
        Ok(out)
    }

    /// EvalPlus's sanitizer in the runtime (`sanitize` mode), for each (entry point, raw answer):
    /// the code that defines the entry point with what it uses, or `None` when no code does.
    /// Only Python's parser reads the answers; in batches, in parallel.
    pub fn sanitize(&self, pairs: &[(String, String)]) -> Result<Vec<Option<String>>, EvalError> {
        let chunks: Vec<Result<Vec<Option<String>>, EvalError>> = pairs
            .par_chunks(COMPILE_CHUNK)
            .map(|chunk| self.sanitize_chunk(chunk))
            .collect();
        let mut out = Vec::with_capacity(pairs.len());
        for c in chunks {
            out.extend(c?);
        }
        Ok(out)
    }

    fn sanitize_chunk(&self, chunk: &[(String, String)]) -> Result<Vec<Option<String>>, EvalError> {
        let limits = Limits {
            fuel: COMPILE_FUEL_PER_PROGRAM * chunk.len() as u64,
            wall_time_ms: 600_000,
            output_bytes: 256 << 20,
            ..self.limits.clone()
        };
        let args = chunk
            .iter()
            .flat_map(|(entry, text)| [entry.clone(), text.clone()])
            .collect();
        let outcome = self.run_batch(
            RuntimeMode::Sanitize,
            String::new(),
            args,
            limits,
            "sanitizing samples",
        )?;
        let text = String::from_utf8_lossy(&outcome.stdout);
        let got: Vec<Option<String>> = text
            .split('\n')
            .filter(|l| !l.is_empty())
            .map(|l| match l.split_at(1) {
                ("+", data) => serde_json::from_str::<String>(data).ok(),
                _ => None,
            })
            .collect();
        if outcome.end == (RunEnd::Returned { code: 0 }) && got.len() == chunk.len() {
            return Ok(got);
        }
        if let [_] = chunk {
            // This answer cannot even be parsed within its budget: no code is taken from it.
            return Ok(vec![None]);
        }
        let mut out = Vec::with_capacity(chunk.len());
        for pair in chunk {
            out.extend(self.sanitize_chunk(std::slice::from_ref(pair))?);
        }
        Ok(out)
    }

    /// One call of the runtime in a batch `mode` (`compile`, `build`) over many sources; a host
    /// failure is an error naming what was `doing`, anything the guest did is the caller's to read.
    fn run_batch(
        &self,
        mode: RuntimeMode,
        target: String,
        args: Vec<String>,
        limits: Limits,
        doing: &str,
    ) -> Result<RunOutcome, EvalError> {
        let spec = RunSpec {
            entry: Entry::Call {
                mode,
                target,
                args,
                code: Arc::from(Vec::new()),
            },
            stdin: Arc::from(Vec::new()),
            preopens: Vec::new(),
            limits,
            seed: EVAL_SEED,
            server: None,
        };
        let outcome = self.run_counted(&spec);
        if let RunEnd::HostError { message } = &outcome.end {
            return Err(EvalError::Sandbox {
                doing: doing.into(),
                message: message.clone(),
            });
        }
        Ok(outcome)
    }

    fn run_counted(&self, spec: &RunSpec) -> RunOutcome {
        self.executor.run(self.runtime, spec)
    }

    /// The verdict matrices of `problems`, in order: every program built once, then the rows
    /// (a solution against the hidden check and every test) in parallel, longest first.
    pub fn matrices(
        &self,
        problems: &[&Problem],
        progress: &dyn Progress,
    ) -> Result<Vec<ProblemVerdicts>, EvalError> {
        if let Some(pool) = &self.processes {
            let (matrices, counts) = in_processes(pool, self.setup(), problems, progress)?;
            *self.remote.lock().unwrap_or_else(|e| e.into_inner()) = counts;
            return Ok(matrices);
        }
        let programs: Vec<Vec<String>> = problems
            .iter()
            .map(|p| p.tests.iter().map(|t| test_program(&t.source)).collect())
            .collect();
        // Per problem, the reference then each solution; the hidden check then each test.
        let solution_sources: Vec<&str> = problems
            .iter()
            .flat_map(|p| {
                std::iter::once(p.reference.as_str())
                    .chain(p.solutions.iter().map(|s| s.source.as_str()))
            })
            .collect();
        let target_sources: Vec<&str> = problems
            .iter()
            .zip(&programs)
            .flat_map(|(p, tests)| {
                std::iter::once(p.hidden_test.as_str()).chain(tests.iter().map(String::as_str))
            })
            .collect();
        progress.start(
            "build",
            (solution_sources.len() + target_sources.len()) as u64,
        );
        let built_solutions = self.build("<solution>", &solution_sources, progress)?;
        let built_targets = self.build("<test>", &target_sources, progress)?;
        progress.finish();
        let mut solutions_of: Vec<&[Built]> = Vec::new();
        let mut targets_of: Vec<&[Built]> = Vec::new();
        let (mut s_rest, mut t_rest) = (&built_solutions[..], &built_targets[..]);
        for p in problems {
            let (s, rest) = s_rest.split_at(p.solutions.len() + 1);
            solutions_of.push(s);
            s_rest = rest;
            let (t, rest) = t_rest.split_at(p.tests.len() + 1);
            targets_of.push(t);
            t_rest = rest;
        }

        let shared: Vec<Shared> = problems
            .iter()
            .zip(&solutions_of)
            .map(|(p, built)| {
                let interface = Interface {
                    functions: vec![p.entry_point.clone()],
                    classes: Vec::new(),
                };
                Shared {
                    shown: interface.to_json(),
                    interface: Arc::new(interface),
                    reference: built[0].clone().unwrap_or_default(),
                }
            })
            .collect();
        let mut references: Vec<Row> = Vec::new();
        let mut rows: Vec<Row> = Vec::new();
        for (k, p) in problems.iter().enumerate() {
            references.push(Row {
                problem: k,
                solution: None,
                built: &solutions_of[k][0],
            });
            rows.extend((0..p.solutions.len()).map(|i| Row {
                problem: k,
                solution: Some(i),
                built: &solutions_of[k][i + 1],
            }));
        }
        // Longest rows first, so the last rows to finish are short ones.
        references.sort_by_key(|r| std::cmp::Reverse(programs[r.problem].len()));
        rows.sort_by_key(|r| std::cmp::Reverse(programs[r.problem].len()));
        let total: u64 = references
            .iter()
            .chain(&rows)
            .map(|r| 1 + programs[r.problem].len() as u64)
            .sum();
        progress.start("verdict matrix", total);
        // The references first, with the whole limit: what they spend on each target sets the
        // solutions' fuel there (the fuel rule).
        let limit = self.limits.fuel;
        let flat: Vec<Vec<u64>> = problems
            .iter()
            .map(|p| vec![limit; p.tests.len() + 1])
            .collect();
        // One pass over rows in parallel, each with its problem's fuel per target; `seen`: where
        // the solutions' answers are read into (never the references').
        let run_rows =
            |rows: &[Row], fuel: &[Vec<u64>], seen: Option<&[Seen]>| -> Vec<Vec<MatrixRun>> {
                rows.par_iter()
                    .map(|r| {
                        let read = seen.filter(|_| r.solution.is_some()).map(|s| &s[r.problem]);
                        let cells = self.row(
                            &shared[r.problem],
                            r.built,
                            targets_of[r.problem],
                            &fuel[r.problem],
                            read,
                        );
                        progress.advance(cells.len() as u64);
                        cells
                    })
                    .collect()
            };
        let reference_cells = run_rows(&references, &flat, None);
        let mut caps = flat.clone();
        for (r, cells) in references.iter().zip(&reference_cells) {
            caps[r.problem] = cells
                .iter()
                .map(|c| {
                    self.fuel_rule
                        .cap(limit, ended_by_itself(c).then_some(c.fuel))
                })
                .collect();
        }
        // What the solutions answered, read off their generated tests' runs.
        let seen: Vec<Seen> = problems.iter().map(|_| Seen::default()).collect();
        let solution_cells = run_rows(&rows, &caps, Some(&seen));
        progress.finish();
        let results: Vec<Vec<MatrixRun>> =
            reference_cells.into_iter().chain(solution_cells).collect();
        let rows: Vec<Row> = references.into_iter().chain(rows).collect();

        let mut out: Vec<ProblemVerdicts> = problems
            .iter()
            .map(|p| ProblemVerdicts {
                id: p.id.clone(),
                solutions: p.solutions.clone(),
                tests: p.tests.clone(),
                rows: vec![String::new(); p.solutions.len()],
                hidden: String::new(),
                reference_row: String::new(),
                reference_hidden: 'I',
                notes: Vec::new(),
                hidden_fuel: None,
                runs: 0,
                fuel: 0,
                outputs: None,
            })
            .collect();
        let mut recorders: Vec<Recorder> = problems
            .iter()
            .zip(seen)
            .map(|(p, seen)| Recorder::new(seen, p.solutions.len()))
            .collect();
        // Per problem, per solution, its runs' calls by test (the hidden check, cell 0, aside).
        let mut calls: Vec<Vec<Vec<SeenCalls>>> = problems
            .iter()
            .map(|p| vec![Vec::new(); p.solutions.len()])
            .collect();
        let mut hidden_codes: Vec<Vec<char>> = problems
            .iter()
            .map(|p| vec!['I'; p.solutions.len()])
            .collect();
        let mut hidden_fuel: Vec<Vec<u64>> = problems
            .iter()
            .map(|p| vec![0; p.solutions.len()])
            .collect();
        for (r, cells) in rows.iter().zip(results) {
            let m = &mut out[r.problem];
            let mut codes = String::with_capacity(cells.len());
            for (k, cell) in cells.iter().enumerate() {
                if cell.verdict == VerdictKind::InternalError {
                    return Err(EvalError::Sandbox {
                        doing: format!("running {}", m.id),
                        message: cell.note.clone().unwrap_or_default(),
                    });
                }
                if let Some(note) = &cell.note {
                    m.notes.push(CellNote {
                        solution: r.solution,
                        test: k.checked_sub(1),
                        note: note.clone(),
                    });
                }
                m.runs += 1;
                m.fuel += cell.fuel;
                if k > 0 {
                    codes.push(verdict_code(cell.verdict));
                }
            }
            let hidden_code = verdict_code(cells[0].verdict);
            let fuel_of_hidden = cells[0].fuel;
            if let Some(i) = r.solution {
                calls[r.problem][i] = cells.into_iter().skip(1).map(|c| c.calls).collect();
            }
            match r.solution {
                None => {
                    m.reference_row = codes;
                    m.reference_hidden = hidden_code;
                }
                Some(i) => {
                    m.rows[i] = codes;
                    hidden_codes[r.problem][i] = hidden_code;
                    hidden_fuel[r.problem][i] = fuel_of_hidden;
                }
            }
        }
        for (k, p) in problems.iter().enumerate() {
            let recorder = &mut recorders[k];
            for j in 0..p.tests.len() {
                for (i, by_test) in calls[k].iter().enumerate() {
                    if let Some(c) = by_test.get(j) {
                        recorder.record(i, c);
                    }
                }
            }
        }
        for (((m, h), r), f) in out
            .iter_mut()
            .zip(hidden_codes)
            .zip(recorders)
            .zip(hidden_fuel)
        {
            m.outputs = Some(r.finish());
            m.hidden_fuel = Some(f);
            m.hidden = h.into_iter().collect();
            m.notes
                .sort_by_key(|n| (n.solution.map_or(0, |s| s + 1), n.test.map_or(0, |t| t + 1)));
        }
        Ok(out)
    }

    /// Runs one solution against each target program (the hidden check first), at the
    /// executor's isolation level. A solution or test that did not compile fails with
    /// `compile_error`, without a run. With `read`, the generated tests' runs are read off the
    /// bridge into it (the hidden check's never are).
    fn row(
        &self,
        shared: &Shared,
        solution: &Built,
        targets: &[Built],
        fuel: &[u64],
        read: Option<&Seen>,
    ) -> Vec<MatrixRun> {
        let solution = match solution {
            Ok(code) => code.as_str(),
            Err(class) => {
                return targets
                    .iter()
                    .map(|_| compile_error(class, "solution"))
                    .collect()
            }
        };
        let calls = targets
            .iter()
            .enumerate()
            .filter_map(|(k, target)| {
                let code = target.as_ref().ok()?;
                Some(RowCall {
                    entry: pair_call(shared, code),
                    fuel: fuel[k],
                    log: read_at(read, k).1,
                })
            })
            .collect();
        let row = execution::Row {
            program: self.runtime.clone(),
            spec: self.row_spec(shared, solution, BRIDGE_LOG),
            calls,
        };
        let mut outcomes = self.executor.row(&row).into_iter();
        targets
            .iter()
            .enumerate()
            .map(
                |(k, target)| match (target, target.is_ok().then(|| outcomes.next())) {
                    (Err(class), _) => compile_error(class, "test"),
                    (Ok(_), Some(Some(outcome))) => cell(&outcome, read_at(read, k).0),
                    (Ok(_), _) => MatrixRun {
                        verdict: VerdictKind::InternalError,
                        note: Some("the executor returned fewer outcomes than calls".into()),
                        fuel: 0,
                        calls: Vec::new(),
                    },
                },
            )
            .collect()
    }
}

/// Whether a reference's run ended by itself (passed, or failed its test), so its fuel is what
/// the test costs: not a limit, and not a program that did not build.
fn ended_by_itself(cell: &MatrixRun) -> bool {
    matches!(
        cell.verdict,
        VerdictKind::Pass | VerdictKind::WrongAnswer | VerdictKind::RuntimeError
    )
}

/// A `pair` run of the test `target`: its arguments are the interface, the encoding and the
/// reference's code.
fn pair_call(shared: &Shared, target: &str) -> Entry {
    Entry::Call {
        mode: RuntimeMode::Pair,
        target: target.into(),
        args: vec![
            shared.shown.clone(),
            "marshal".into(),
            shared.reference.clone(),
        ],
        code: Arc::from(Vec::new()),
    }
}

/// The cell of a pair that did not compile (`side` says which program).
fn compile_error(class: &str, side: &str) -> MatrixRun {
    MatrixRun {
        verdict: VerdictKind::CompileError,
        note: Some(format!("{side}: {class}")),
        fuel: 0,
        calls: Vec::new(),
    }
}

/// What the run at `index` in its row reads off the bridge, and how many exchanges it keeps for
/// that: the hidden check (the row's first target) is never read.
fn read_at(read: Option<&Seen>, index: usize) -> (Option<&Seen>, usize) {
    let read = read.filter(|_| index > 0);
    (read, if read.is_some() { BRIDGE_LOG } else { 0 })
}

/// A run's cell: its verdict (judged by the sandbox's one verdict function), the exception
/// class name the test's runtime reported, if any, and with `read` the calls read off its
/// bridge.
fn cell(outcome: &RunOutcome, read: Option<&Seen>) -> MatrixRun {
    let mut v = Verdict::from_outcome(outcome, EVAL_SEED, Completion::Returned);
    if matches!(outcome.end, RunEnd::Returned { code } if code != 0) {
        v.note_failure(outcome.failure_report.as_deref());
    }
    let note = match v.verdict {
        VerdictKind::Pass => None,
        // The test's runtime reports only the class name of what the test raised.
        VerdictKind::WrongAnswer | VerdictKind::RuntimeError if v.failure.is_some() => v
            .failure
            .map(|f| f.kind.chars().take(100).collect::<String>())
            .filter(|k| !k.is_empty()),
        VerdictKind::WrongAnswer | VerdictKind::TimeLimit => None,
        _ => v.detail,
    };
    MatrixRun {
        verdict: v.verdict,
        note: note.filter(|n| n != "AssertionError"),
        fuel: v.fuel,
        calls: read.map_or_else(Vec::new, |s| s.note(&outcome.exchanges)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::corpus::Weighted;

    #[test]
    fn test_program_indents_like_codet() {
        assert_eq!(
            test_program("assert f(1) == [\n 1]\n"),
            "def __dixit_test():\n            assert f(1) == [\n             1]\n__dixit_test()\n"
        );
    }

    #[test]
    fn recorded_form_is_pass_fail() {
        let v = ProblemVerdicts {
            id: "T/0".into(),
            solutions: vec![
                Weighted {
                    source: "a".into(),
                    count: 2,
                },
                Weighted {
                    source: "b".into(),
                    count: 1,
                },
            ],
            tests: vec![Weighted {
                source: "t".into(),
                count: 1,
            }],
            rows: vec!["P".into(), "T".into()],
            hidden: "PW".into(),
            reference_row: "P".into(),
            reference_hidden: 'P',
            notes: Vec::new(),
            hidden_fuel: None,
            runs: 6,
            fuel: 0,
            outputs: None,
        };
        let m = v.matrix().unwrap();
        assert_eq!(m.passes, vec![vec![true], vec![false]]);
        assert_eq!(m.hidden, vec![true, false]);
        assert_eq!(m.solution_counts, vec![2, 1]);
        assert_eq!(v.verdict_counts().get(&'P'), Some(&4));
    }
}
