//! Running a build tool (clang, wasm-ld, rustc, componentize-py) as a subprocess.
//!
//! Compilers are the first host code that reads what an agent wrote, so a compiler runs
//! [`Confined`]: with a cleared environment, inside a Landlock domain that lets it read only the
//! sources, its own toolchain files and the libraries its binary loads, write only its output
//! directory, and open no network connection nor signal anything outside its domain; with
//! memory, CPU-time and file-size limits; in its own process group, killed (with everything it
//! started) on timeout and when the thread that started it dies. Why Landlock rather than
//! bubblewrap: it needs no extra package and no namespaces, works unprivileged, costs nothing
//! measurable per build, and confines by path exactly as this needs (docs/security.md).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};

/// The most bytes kept of a tool's stdout and of its stderr.
const OUTPUT_CAP: u64 = 4 << 20;

/// What a finished tool run produced.
pub(crate) struct ToolOutput {
    pub success: bool,
    pub stderr: String,
    pub stdout: String,
    /// The signal that ended the tool, if one did (a resource limit, a crash).
    pub signal: Option<i32>,
}

/// Resource limits of a confined tool and of everything it starts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ToolLimits {
    /// Address space (`RLIMIT_AS`) of each process.
    pub memory_bytes: u64,
    /// CPU seconds (`RLIMIT_CPU`) of each process.
    pub cpu_seconds: u64,
    /// Wall-clock time before the whole process group is killed.
    pub wall: Duration,
    /// Largest file a process may write (`RLIMIT_FSIZE`).
    pub file_bytes: u64,
}

impl ToolLimits {
    /// Limits for a compiler or linker: 1 GiB of address space (an honest build of a solution
    /// needs under 512 MiB here; a preprocessor or macro fan-out reaches gigabytes in seconds),
    /// 30 s of CPU (an honest build takes 0.2–3 s), `wall_seconds` of wall time (room for a
    /// busy machine), 256 MiB per output file.
    pub(super) fn compiler(wall_seconds: u64) -> ToolLimits {
        ToolLimits {
            memory_bytes: 1 << 30,
            cpu_seconds: 30,
            wall: Duration::from_secs(wall_seconds),
            file_bytes: 256 << 20,
        }
    }

    /// Why a tool that died of a signal (or ran out of time) may have failed, in words.
    pub(super) fn explain(&self) -> String {
        format!(
            "{LIMIT_NOTE} ({} MiB of memory, {} s of CPU, {} s of wall time)",
            self.memory_bytes >> 20,
            self.cpu_seconds,
            self.wall.as_secs()
        )
    }
}

/// What every build log of a tool stopped by a limit says.
const LIMIT_NOTE: &str = "the compiler was stopped or crashed: it may have exceeded its limits";

/// Whether a build log is that of a tool stopped by a limit (see [`ToolLimits::explain`]).
#[cfg(test)]
pub(crate) fn hit_limit(log: &str) -> bool {
    log.contains(LIMIT_NOTE)
}

impl ToolLimits {
    #[cfg(test)]
    fn for_test() -> ToolLimits {
        ToolLimits::compiler(1)
    }
}

/// What a confined tool may touch. Everything else on the file system is invisible to it:
/// opening it fails with a permission error.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Confinement {
    /// Files and directories it may read and execute (its own binaries and toolchain files).
    pub exec: Vec<PathBuf>,
    /// Files and directories it may read (sources, headers, libraries, shared objects).
    pub read: Vec<PathBuf>,
    /// Directories it may create, write and remove files in (its output, its temp dir).
    pub write: Vec<PathBuf>,
    /// Environment variables it gets (all others are cleared).
    pub env: Vec<(String, String)>,
}

impl Confinement {
    /// This confinement plus read access to `paths`.
    pub(super) fn reading<P: AsRef<Path>>(
        &self,
        paths: impl IntoIterator<Item = P>,
    ) -> Confinement {
        let mut c = self.clone();
        c.read
            .extend(paths.into_iter().map(|p| p.as_ref().to_path_buf()));
        c
    }

    /// How the host paths a confined build sees appear in its log: the directories it reads
    /// and writes (sources, headers, the cache, its temp dir) drop out, so messages name
    /// `solution.c:3` and `dixit.h:12`; the toolchain's own tree becomes `<toolchain>`. Longest
    /// first, so a nested directory is replaced before its parent.
    pub(super) fn scrubs(&self) -> Vec<(&Path, &'static str)> {
        let mut out: Vec<(&Path, &'static str)> = self
            .read
            .iter()
            .chain(&self.write)
            .filter(|p| p.is_dir())
            .map(|p| (p.as_path(), ""))
            .chain(
                self.exec
                    .iter()
                    .filter(|p| p.is_dir())
                    .map(|p| (p.as_path(), "<toolchain>/")),
            )
            .filter(|(p, _)| p.components().count() > 2)
            .collect();
        out.sort_by_key(|(p, _)| std::cmp::Reverse(p.as_os_str().len()));
        out
    }

    /// Every path it may touch (read, run or write).
    pub(super) fn paths(&self) -> impl Iterator<Item = &Path> {
        self.read
            .iter()
            .chain(&self.exec)
            .chain(&self.write)
            .map(PathBuf::as_path)
    }

    /// This confinement plus write access beneath `dirs`.
    pub(super) fn writing<P: AsRef<Path>>(&self, dirs: impl IntoIterator<Item = P>) -> Confinement {
        let mut c = self.clone();
        c.write
            .extend(dirs.into_iter().map(|p| p.as_ref().to_path_buf()));
        c
    }
}

/// How to run a tool: trusted (our own build of the Python runtime, version probes) or confined.
pub(crate) enum Policy<'a> {
    /// A trusted tool: inherits the environment; only a wall-clock limit.
    Trusted { timeout: Duration },
    /// A tool that reads untrusted input.
    Confined {
        confinement: &'a Confinement,
        limits: ToolLimits,
    },
}

/// How a compiler is asked about itself (its version, its files): trusted, for 30 s.
pub(crate) const PROBE: Policy<'static> = Policy::Trusted {
    timeout: Duration::from_secs(30),
};

/// Why a tool produced no output to judge.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// It could not be started or confined: a problem of this machine, worth trying again.
    #[error("{0}")]
    Setup(String),
    /// It ran past its time (and was killed): a verdict on its input, not to be tried again.
    #[error("{0}")]
    TimedOut(String),
}

impl From<ToolError> for String {
    fn from(e: ToolError) -> String {
        e.to_string()
    }
}

/// Set to let compilers run unconfined where Landlock is missing (a kernel older than 6.2).
pub(super) const UNCONFINED_ENV: &str = "DIXIT_UNCONFINED_BUILDS";

/// Runs `cmd` (stdin closed) under `policy`. An `Err` is a tool that could not start or did
/// not finish in time; a tool that failed is an `Ok` with `success: false`.
pub(crate) fn run_tool(cmd: &mut Command, policy: Policy<'_>) -> Result<ToolOutput, ToolError> {
    match policy {
        Policy::Trusted { timeout } => spawn_and_wait(cmd, None, timeout),
        Policy::Confined {
            confinement,
            limits,
        } => {
            // Landlock restricts the calling thread and the processes it starts: a short-lived
            // thread takes the restriction and starts the tool, and the rest of dixit is
            // untouched. (It also keeps the parent-death signal tied to a thread that waits.)
            std::thread::scope(|scope| {
                scope
                    .spawn(|| {
                        confine_this_thread(confinement)
                            .map_err(|e| ToolError::Setup(e.to_string()))?;
                        cmd.env_clear()
                            .envs(confinement.env.iter().map(|(k, v)| (k, v)));
                        spawn_and_wait(cmd, Some(limits), limits.wall)
                    })
                    .join()
                    .unwrap_or_else(|_| Err(ToolError::Setup("the build thread panicked".into())))
            })
        }
    }
}

/// Why a build thread could not be confined, or confinement does not hold here.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfineError {
    /// Landlock refused the ruleset.
    #[error("cannot confine the compiler: {0}")]
    Ruleset(landlock::RulesetError),
    /// This kernel has no Landlock, and unconfined builds were not asked for.
    #[error(
        "cannot confine the compiler: this kernel has no Landlock (Linux ≥ 6.2 with Landlock \
         enabled is needed); set {UNCONFINED_ENV}=1 to build untrusted code unconfined"
    )]
    NoLandlock,
    /// A confined thread could still read `/etc/passwd` (`dixit toolchain doctor`'s check).
    #[error(
        "Landlock does not confine builds here ({status:?}); set {UNCONFINED_ENV}=1 \
         to build untrusted code unconfined"
    )]
    NotConfining { status: landlock::LandlockStatus },
    /// The thread of the check panicked.
    #[error("the confinement check panicked")]
    CheckPanicked,
}

/// Proves that confinement works here: a thread confined to nothing tries to read `/etc/passwd`
/// (for `dixit toolchain doctor`).
pub(super) fn confinement_check() -> Result<String, ConfineError> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let status = confine_this_thread(&Confinement::default())?;
                match std::fs::read("/etc/passwd") {
                    Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Ok(format!(
                        "Landlock {}: compilers read only their sources and toolchain files",
                        match status {
                            landlock::LandlockStatus::Available { effective_abi, .. } => {
                                format!("ABI {}", effective_abi as i32)
                            }
                            other => format!("{other:?}"),
                        }
                    )),
                    _ => Err(ConfineError::NotConfining { status }),
                }
            })
            .join()
            .unwrap_or(Err(ConfineError::CheckPanicked))
    })
}

fn confine_this_thread(c: &Confinement) -> Result<landlock::LandlockStatus, ConfineError> {
    let abi = ABI::V6;
    let fs_all = AccessFs::from_all(abi);
    let read = AccessFs::ReadFile | AccessFs::ReadDir;
    let exec = read | AccessFs::Execute;
    let created = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(fs_all)
        .and_then(|r| r.handle_access(AccessNet::from_all(abi)))
        .and_then(|r| r.scope(Scope::from_all(abi)))
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(path_beneath_rules(&c.exec, exec)))
        .and_then(|r| r.add_rules(path_beneath_rules(&c.read, read)))
        .and_then(|r| r.add_rules(path_beneath_rules(&c.write, fs_all)))
        // `/dev/null` is where tools send what they discard.
        .and_then(|r| {
            r.add_rules(path_beneath_rules(
                ["/dev/null"],
                AccessFs::ReadFile | AccessFs::WriteFile,
            ))
        })
        .map_err(ConfineError::Ruleset)?;
    let status = created.restrict_self().map_err(ConfineError::Ruleset)?;
    if status.ruleset == RulesetStatus::NotEnforced
        && std::env::var_os(UNCONFINED_ENV).is_none_or(|v| v != "1")
    {
        return Err(ConfineError::NoLandlock);
    }
    Ok(status.landlock)
}

fn spawn_and_wait(
    cmd: &mut Command,
    limits: Option<ToolLimits>,
    timeout: Duration,
) -> Result<ToolOutput, ToolError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its own process group: a timeout kills the tool and everything it started.
    std::os::unix::process::CommandExt::process_group(cmd, 0);
    set_child_limits(cmd, limits);
    let mut child = cmd
        .spawn()
        .map_err(|e| ToolError::Setup(format!("cannot start `{program}`: {e}")))?;
    let group = rustix::process::Pid::from_child(&child);
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let (stdout, stderr, status) = std::thread::scope(|scope| {
        let t_out = scope.spawn(move || read_capped(out.as_mut()));
        let t_err = scope.spawn(move || read_capped(err.as_mut()));
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Ok(status),
                Ok(None) if started.elapsed() > timeout => {
                    kill_group(group);
                    let _ = child.wait();
                    break Err(ToolError::TimedOut(format!(
                        "`{program}` did not finish within {} s (killed)",
                        timeout.as_secs()
                    )));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                Err(e) => {
                    kill_group(group);
                    let _ = child.wait();
                    break Err(ToolError::Setup(format!("waiting for `{program}`: {e}")));
                }
            }
        };
        // Whatever the tool left running in its group (a linker it started) goes with it.
        kill_group(group);
        (t_out.join(), t_err.join(), status)
    });
    let status: ExitStatus = status?;
    let text = |r: std::thread::Result<Vec<u8>>| {
        String::from_utf8_lossy(&r.unwrap_or_default()).into_owned()
    };
    Ok(ToolOutput {
        success: status.success(),
        stdout: text(stdout),
        stderr: text(stderr),
        signal: std::os::unix::process::ExitStatusExt::signal(&status),
    })
}

fn read_capped(r: Option<&mut impl Read>) -> Vec<u8> {
    let mut s = Vec::new();
    if let Some(r) = r {
        let _ = r.take(OUTPUT_CAP).read_to_end(&mut s);
        // Drain the rest so the tool never blocks on a full pipe.
        let _ = std::io::copy(r, &mut std::io::sink());
    }
    s
}

fn kill_group(pid: rustix::process::Pid) {
    // The group id is the child's pid (it leads its own group); never 0 or 1.
    if pid.as_raw_nonzero().get() > 1 {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

#[expect(
    unsafe_code,
    reason = "pre_exec runs code between fork and exec, which is unsafe by API contract"
)]
fn set_child_limits(cmd: &mut Command, limits: Option<ToolLimits>) {
    use rustix::process::{Resource, Rlimit, Signal};
    let Some(l) = limits else {
        // Trusted tools still die with the thread that waits for them.
        // SAFETY: only async-signal-safe system calls run between fork and exec.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(cmd, || {
                rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
                Ok(())
            });
        }
        return;
    };
    let parent = rustix::process::getpid();
    // SAFETY: the closure makes only raw system calls (prctl, setrlimit, getppid), which are
    // async-signal-safe, and allocates nothing.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(cmd, move || {
            // Killed when the thread that started it dies (dixit killed, or crashed).
            rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
            // If dixit died before the line above took effect, nobody will ever reap this.
            if rustix::process::getppid() != Some(parent) {
                return Err(std::io::Error::other("the parent is gone"));
            }
            let limit = |n: u64| Rlimit {
                current: Some(n),
                maximum: Some(n),
            };
            rustix::process::setrlimit(Resource::As, limit(l.memory_bytes))?;
            // SIGXCPU at the soft limit, SIGKILL one second later.
            rustix::process::setrlimit(
                Resource::Cpu,
                Rlimit {
                    current: Some(l.cpu_seconds),
                    maximum: Some(l.cpu_seconds + 1),
                },
            )?;
            rustix::process::setrlimit(Resource::Fsize, limit(l.file_bytes))?;
            rustix::process::setrlimit(Resource::Core, limit(0))?;
            Ok(())
        });
    }
}

/// The shared libraries the dynamic loader maps for `binary` (what `ldd` prints), so a confined
/// tool can load them and nothing else from the system's library directories.
pub(crate) fn shared_libraries(binary: &Path) -> Vec<PathBuf> {
    let out = Command::new(binary)
        .env_clear()
        .env("LD_TRACE_LOADED_OBJECTS", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let Ok(out) = out else { return Vec::new() };
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter(|w| w.starts_with('/'))
        .map(PathBuf::from)
        .filter(|p| p.is_file())
        .collect()
}

/// Finds an executable on `PATH`.
pub(crate) fn which(name: &str) -> Option<std::path::PathBuf> {
    if name.contains('/') {
        let p = Path::new(name);
        return p.is_file().then(|| p.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The most lines and bytes of a build log that reach a verdict (and so, possibly, an agent's
/// next prompt).
const LOG_LINES: usize = 40;
const LOG_BYTES: usize = 6 << 10;
const LINE_BYTES: usize = 300;

/// A build log cut to a size fit for a prompt: at most 40 lines of at most 300 characters,
/// 6 KiB in all, with a note of what was cut.
pub(crate) fn cap_log(log: &str) -> String {
    let mut out = String::new();
    let total = log.lines().count();
    for (kept, line) in log.lines().enumerate() {
        if kept == LOG_LINES || out.len() >= LOG_BYTES {
            out.push_str(&format!("[… {} more lines cut]\n", total - kept));
            break;
        }
        let clipped: String = line.chars().take(LINE_BYTES).collect();
        out.push_str(&clipped);
        if clipped.len() < line.len() {
            out.push('…');
        }
        out.push('\n');
    }
    let trimmed = out.trim_end();
    if trimmed.is_empty() {
        "the compiler failed without a message".into()
    } else {
        trimmed.to_string()
    }
}

/// The first few lines of a compiler's error output, for a verdict's one-line detail.
pub(crate) fn first_error_line(stderr: &str) -> String {
    stderr
        .lines()
        .find(|l| l.contains("error"))
        .or_else(|| stderr.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("build failed")
        .trim()
        .chars()
        .take(300)
        .collect()
}

/// What compilers print when an allocation fails (LLVM, rustc, the C++ runtime).
const OUT_OF_MEMORY: &[&str] = &[
    "LLVM ERROR: out of memory",
    "memory allocation of",
    "std::bad_alloc",
];

/// The build log of a tool that failed: its messages, with every reason an open failed reading
/// the same ([`super::host_paths::hide_open_failures`]), capped, with the host's paths replaced
/// by what they stand for (`scrub`), and a note when a limit (a signal, an allocation that
/// failed) ended it. Every log of a confined build passes through here before it can reach a
/// verdict or a prompt.
pub(crate) fn failure_log(o: &ToolOutput, limits: &ToolLimits, scrub: &[(&Path, &str)]) -> String {
    let mut log = super::host_paths::hide_open_failures(&o.stderr);
    for (path, name) in scrub {
        let p = path.display().to_string();
        if p.len() > 1 {
            log = log
                .replace(&format!("{p}/"), name)
                .replace(&p, name.trim_end_matches('/'));
        }
    }
    let log = cap_log(&log);
    match o.signal {
        Some(sig) => format!("{log}\nsignal {sig}: {}", limits.explain()),
        None if OUT_OF_MEMORY.iter().any(|m| o.stderr.contains(m)) => {
            format!("{log}\n{}", limits.explain())
        }
        None => log,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_are_capped_by_lines_and_width() {
        let long = "x".repeat(1000);
        let log = (0..100)
            .map(|i| format!("{i}: {long}"))
            .collect::<Vec<_>>()
            .join("\n");
        let c = cap_log(&log);
        assert!(c.lines().count() <= LOG_LINES + 1, "{c}");
        assert!(c.len() <= LOG_BYTES + 2 * LINE_BYTES, "{}", c.len());
        assert!(c.ends_with("more lines cut]"), "{c}");
        assert_eq!(cap_log("  \n"), "the compiler failed without a message");
    }

    #[test]
    fn a_stopped_tool_says_so() {
        let o = ToolOutput {
            success: false,
            stderr: "error: boom".into(),
            stdout: String::new(),
            signal: Some(9),
        };
        let limits = ToolLimits::for_test();
        assert!(hit_limit(&failure_log(&o, &limits, &[])));
        assert!(hit_limit(&limits.explain()));
        let failed = ToolOutput { signal: None, ..o };
        assert!(!hit_limit(&failure_log(&failed, &limits, &[])));
        let oom = ToolOutput {
            stderr: "LLVM ERROR: out of memory\nAllocation failed".into(),
            ..failed
        };
        assert!(hit_limit(&failure_log(&oom, &limits, &[])));
    }

    #[test]
    fn host_paths_are_scrubbed_from_logs() {
        let o = ToolOutput {
            success: false,
            stderr: "In file included from /home/u/.cache/dixit/snap/ab/d/t.c:1:\n/tmp/.tmpX/out.o: error".into(),
            stdout: String::new(),
            signal: None,
        };
        let log = failure_log(
            &o,
            &ToolLimits::for_test(),
            &[
                (Path::new("/home/u/.cache/dixit/snap/ab/d"), ""),
                (Path::new("/tmp/.tmpX"), "<build>/"),
            ],
        );
        assert_eq!(log, "In file included from t.c:1:\n<build>/out.o: error");
    }
}
