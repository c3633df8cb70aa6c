//! The command line: argument definitions, one file per command, and the one place errors are
//! printed. Commands return an exit code (see `exit.rs`); a failing verdict is data, not an error.

mod bench;
mod classify;
mod compare;
mod completions;
mod decide;
mod doctor;
mod eval;
mod examples;
mod exec;
pub mod exit;
mod import;
mod init;
mod manual;
pub mod output;
mod protocols;
mod replay;
mod report;
mod run;
mod shards;
mod signals;
mod slurm;
mod task;

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};

use crate::sandbox::{Limits, Sandbox, SandboxConfig};
use crate::toolchain::Toolchains;
use exit::{CliError, CliResult};

/// Grounds LLM-written code and tests in the spec: isolated coders and testers, a test joins the
/// suite only if some (but no more than a minority of) coders fail it, and every solution and
/// test runs as WebAssembly in a deterministic sandbox.
#[derive(Debug, Parser)]
#[command(
    name = "dixit",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
    /// Options every command takes.
    #[command(flatten)]
    pub global: GlobalArgs,
}

/// Options every command takes.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Workers for sandbox runs: threads (or, with `eval --workers processes`, processes)
    /// [default: the number of CPUs].
    #[arg(
        long,
        short = 'j',
        global = true,
        env = "DIXIT_JOBS",
        hide_env_values = true
    )]
    pub jobs: Option<usize>,
    /// Where compiled artifacts and snapshots are cached [default: ~/.cache/dixit/cache].
    #[arg(long, global = true, env = "DIXIT_CACHE", hide_env_values = true)]
    pub cache_dir: Option<PathBuf>,
    /// Print only data and errors (no progress).
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
    /// Log what dixit does to stderr (repeat for more).
    #[arg(long, short = 'v', global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

/// The commands of `dixit`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one test against one solution and print the verdict (exit 0 on pass, 1 otherwise).
    #[command(after_help = examples::EXEC)]
    Exec(exec::ExecArgs),
    /// Run one test against several solutions (with reruns) and classify it:
    /// TOO_EASY, IDEAL, TOO_HARD or INVALID.
    #[command(after_help = examples::CLASSIFY)]
    Classify(classify::ClassifyArgs),
    /// Create an example project (spec, config, scripted agents, hidden tests).
    #[command(after_help = examples::INIT)]
    Init(init::InitArgs),
    /// Make a benchmark's tasks into projects, one folder each: the prompt as spec.md, the
    /// benchmark's tests as hidden/, the docstring's examples as tests/ (checked against the
    /// reference solution in the sandbox).
    #[command(after_help = examples::IMPORT)]
    Import(import::ImportArgs),
    /// Run the protocol on a project (or resume a stopped run) and report.
    #[command(after_help = examples::RUN)]
    Run(run::RunArgs),
    /// Record what you decide at a run's stop (drop a test, leave a coder behind, raise a
    /// limit, accept); `run --resume` goes on from it.
    #[command(after_help = examples::DECIDE)]
    Decide(decide::DecideArgs),
    /// Re-execute a recorded run offline and check that every decision is reproduced.
    #[command(after_help = examples::REPLAY)]
    Replay(replay::ReplayArgs),
    /// List the protocols this version runs (the first is the one a project that names none
    /// runs).
    #[command(after_help = examples::PROTOCOLS)]
    Protocols,
    /// Run several protocols over several projects and tabulate hidden-test results, calls,
    /// tokens, cost and time (each cell an ordinary, replayable run).
    #[command(after_help = examples::COMPARE)]
    Compare(compare::CompareArgs),
    /// Score a recorded corpus offline (CodeT's format): verdict matrix in the sandbox, cached;
    /// pass@1 of each selection strategy and band precision.
    #[command(after_help = examples::EVAL)]
    Eval(eval::EvalArgs),
    /// Join the reports of `dixit eval --shard I/N` into the report of the whole corpus: checks
    /// that they share one setup and that every shard is there once, and names the missing ones.
    #[command(after_help = examples::MERGE)]
    Merge(eval::MergeArgs),
    /// Write a self-contained HTML report of an eval output (or compare two) and print its path.
    #[command(after_help = examples::REPORT)]
    Report(report::ReportArgs),
    /// Run a command as a Slurm job array plus a merge job: writes the job description and the
    /// sbatch scripts, and submits them (see docs/scale-out.md).
    #[command(after_help = examples::SLURM)]
    Slurm(slurm::SlurmArgs),
    /// Run task I of a job description written by `dixit slurm` (what each array task runs);
    /// the index comes from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX.
    #[command(after_help = examples::TASK)]
    Task(task::TaskArgs),
    /// Guest toolchains: what is installed and how to install what is missing.
    #[command(subcommand, after_help = examples::TOOLCHAIN)]
    Toolchain(ToolchainCommand),
    /// Measure per-run latency and runs/s of C, Rust and Python guests against native
    /// fork/exec, classification time, and a second invocation's runtime load.
    #[command(after_help = examples::BENCH)]
    Bench(bench::BenchArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    #[command(after_help = examples::COMPLETIONS)]
    Completions(completions::CompletionsArgs),
    /// Write the command-line reference from these definitions: a Markdown page and a man page
    /// per command.
    #[command(after_help = examples::MANUAL)]
    Manual(manual::ManualArgs),
    /// Internal: load the cached Python runtime once and print the timings as JSON (the child
    /// process of `dixit bench`'s second-invocation measurement).
    #[command(name = "bench-load-python", hide = true)]
    BenchLoadPython,
    /// Internal: one worker process of `dixit eval --workers processes`: reads problems on
    /// stdin and answers their verdict matrices on stdout.
    #[command(name = "eval-worker", hide = true)]
    EvalWorker,
}

/// The commands of `dixit toolchain`.
#[derive(Debug, Subcommand)]
pub enum ToolchainCommand {
    /// Check every toolchain by building and running something with it.
    #[command(after_help = examples::TOOLCHAIN)]
    Doctor {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Limits of each sandbox run.
#[derive(Debug, Clone, Args)]
pub struct LimitArgs {
    /// Fuel per run (≈ WebAssembly instructions) [default: 4000000000].
    #[arg(long)]
    pub fuel: Option<u64>,
    /// Memory limit per run in MiB [default: 256].
    #[arg(long, value_name = "MIB")]
    pub memory: Option<u64>,
    /// Bytes of stdout (and of stderr) a run may write [default: 1048576].
    #[arg(long, value_name = "BYTES")]
    pub output_limit: Option<u64>,
    /// Wall-clock safety net per run in milliseconds [default: 10000].
    #[arg(long, value_name = "MS")]
    pub wall_time: Option<u64>,
}

impl LimitArgs {
    /// These flags applied over `base`.
    pub fn apply(&self, mut base: Limits) -> Limits {
        if let Some(f) = self.fuel {
            base.fuel = f;
        }
        if let Some(m) = self.memory {
            base.memory_bytes = m << 20;
        }
        if let Some(o) = self.output_limit {
            base.output_bytes = o;
        }
        if let Some(w) = self.wall_time {
            base.wall_time_ms = w;
        }
        base
    }
}

/// Workers for sandbox runs: -j, else one per CPU.
fn jobs(g: &GlobalArgs) -> usize {
    g.jobs
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2)
        })
        .max(1)
}

/// Parses the command line, runs the command, prints any error, and returns the exit code.
pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    init_tracing(cli.global.verbose);
    let code = match dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            report(&e);
            e.code
        }
    };
    std::process::ExitCode::from(code)
}

fn dispatch(cli: Cli) -> CliResult {
    let g = &cli.global;
    // A task dispatches the command line of its job, which sets up the thread pool.
    if let (Some(j), false) = (g.jobs, matches!(cli.command, Command::Task(_))) {
        rayon::ThreadPoolBuilder::new()
            .num_threads(j.max(1))
            .build_global()
            .map_err(|e| CliError::new(exit::INTERNAL, e))?;
    }
    match &cli.command {
        Command::Exec(a) => exec::run(g, a),
        Command::Classify(a) => classify::run(g, a),
        Command::Eval(a) => eval::run(g, a),
        Command::Merge(a) => eval::merge(g, a),
        Command::Report(a) => report::run(g, a),
        Command::Slurm(a) => slurm::run(g, a),
        Command::Task(a) => task::run(g, a),
        Command::Toolchain(ToolchainCommand::Doctor { json }) => doctor::run(g, *json),
        Command::Init(a) => init::run(g, a),
        Command::Import(a) => import::run(g, a),
        Command::Run(a) => run::run(g, a),
        Command::Decide(a) => decide::run(a),
        Command::Replay(a) => replay::run(g, a),
        Command::Protocols => protocols::run(),
        Command::Compare(a) => compare::run(g, a),
        Command::Bench(a) => bench::run(g, a),
        Command::BenchLoadPython => bench::load_python(g),
        Command::EvalWorker => eval::worker(g),
        Command::Completions(a) => completions::run(a),
        Command::Manual(a) => manual::run(a),
    }
}

/// The one place errors are printed: `error: ...`, its causes, then an optional hint.
fn report(e: &CliError) {
    eprintln!("error: {}", e.error);
    for cause in e.error.chain().skip(1) {
        eprintln!("  caused by: {cause}");
    }
    if let Some(h) = &e.hint {
        eprintln!("\nhint: {h}");
    }
}

fn init_tracing(verbose: u8) {
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("DIXIT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("dixit={level}")));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .without_time()
        .try_init();
}

/// The sandbox and toolchains every running command needs.
pub fn toolchains(g: &GlobalArgs) -> Result<Toolchains, CliError> {
    let jobs = jobs(g);
    let mut config = SandboxConfig {
        max_concurrent_runs: (jobs as u32 * 2).max(8),
        ..SandboxConfig::default()
    };
    if let Some(c) = &g.cache_dir {
        config.cache_dir = c.clone();
    }
    let sandbox = Sandbox::new(config).map_err(|e| CliError::new(exit::INTERNAL, e))?;
    Ok(Toolchains::new(Arc::new(sandbox)))
}
