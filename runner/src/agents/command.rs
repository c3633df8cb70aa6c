//! The `command` backend: a command-line coding agent (`claude -p`, `codex exec`,
//! `aider --message`, ...) run in the agent's workspace, one process per turn.
//!
//! - The prompt replaces `{prompt}` in the command line, or goes to stdin if there is none.
//!   The system prompt is sent with the first turn of a conversation.
//! - `HOME` and `TMPDIR` point inside the agent's state directory, and `env` values may use
//!   `{state}` (e.g. `CLAUDE_CONFIG_DIR = "{state}/claude"`), so the CLI's session lives in the
//!   state directory and `save()`/`rollback()` cover it.
//! - Guardrails the agent never sees: after each turn, any change outside its workspace (in the
//!   project, including other agents' directories) is undone and recorded; commands listed in
//!   `forbidden_commands` are refused by shims placed first on its `PATH`.
//! - A turn that outlives `timeout_s` is killed (with its process group) and fails.
//! - A turn abandoned midway (the run was interrupted) is killed with its process group, and its
//!   changes outside the workspace are undone; [`kill_running_commands`] kills every turn still
//!   running, for a process that must exit at once.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use tokio::io::AsyncWriteExt;

use super::backend::{Backend, BackendError, Completion, Request, Usage};
use super::error::AgentError;
use super::state::read_tree;
use super::FileWrite;
use crate::config::AgentSpec;

/// A CLI agent.
pub struct CommandAgent {
    argv: Vec<String>,
    env: BTreeMap<String, String>,
    forbidden: Vec<String>,
    timeout: Duration,
    /// The tree the agent may not change (outside its workspace and state).
    guarded_root: PathBuf,
}

impl CommandAgent {
    /// The command of agent `spec`, guarding `project_dir` (outside the agent's workspace and
    /// state) against changes.
    pub fn new(spec: &AgentSpec, project_dir: &Path) -> Result<Self, AgentError> {
        let s = &spec.settings;
        let argv = s
            .command
            .clone()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| AgentError::NoCommand(spec.name.clone()))?;
        Ok(CommandAgent {
            argv,
            env: s.env.clone().unwrap_or_default(),
            forbidden: s.forbidden_commands.clone().unwrap_or_default(),
            timeout: Duration::from_secs(s.timeout_s.unwrap_or(600)),
            guarded_root: std::fs::canonicalize(project_dir)
                .unwrap_or_else(|_| project_dir.to_path_buf()),
        })
    }
}

/// A copy of every file of the project outside `runs/` (the spec, config, hidden tests,
/// prompts): what no agent may change. Run directories are written by the host while agents
/// work, so they are not compared here; each agent's own workspace is checked separately (see
/// `AgentDir::verify_workspace`).
fn guard_snapshot(root: &Path, skip: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, skip: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.starts_with(skip) {
                continue;
            }
            match e.file_type() {
                Ok(t) if t.is_dir() => {
                    if p.file_name()
                        .is_some_and(|n| n == "runs" || n == "target" || n == ".git")
                    {
                        continue;
                    }
                    walk(&p, skip, out)
                }
                Ok(t) if t.is_file() => {
                    if let Ok(b) = std::fs::read(&p) {
                        out.insert(p, b);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, skip, &mut out);
    out
}

/// Undoes every change between `before` and now; returns what was undone.
fn undo_outside_changes(
    root: &Path,
    skip: &Path,
    before: &BTreeMap<PathBuf, Vec<u8>>,
) -> Vec<String> {
    let after = guard_snapshot(root, skip);
    let mut undone = Vec::new();
    for (p, b) in before {
        if after.get(p) != Some(b) {
            if let Some(d) = p.parent() {
                let _ = std::fs::create_dir_all(d);
            }
            let _ = std::fs::write(p, b);
            undone.push(format!(
                "restored {}",
                p.strip_prefix(root).unwrap_or(p).display()
            ));
        }
    }
    for p in after.keys().filter(|p| !before.contains_key(*p)) {
        let _ = std::fs::remove_file(p);
        undone.push(format!(
            "removed {}",
            p.strip_prefix(root).unwrap_or(p).display()
        ));
    }
    undone
}

/// Writes shims for the programs named in `forbidden` into `dir` (first on PATH). A shim refuses
/// a call whose arguments match a forbidden pattern (logging it), and otherwise runs the real
/// program.
fn write_shims(dir: &Path, forbidden: &[String], log: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut by_program: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in forbidden {
        let mut words = f.split_whitespace();
        if let Some(prog) = words.next() {
            by_program
                .entry(prog.to_string())
                .or_default()
                .push(words.collect::<Vec<_>>().join(" "));
        }
    }
    for (prog, patterns) in by_program {
        let cases: String = patterns
            .iter()
            .map(|p| {
                let pat = if p.is_empty() { "*".to_string() } else { format!("*'{}'*", p.replace('\'', "")) };
                format!("  {pat}) echo \"{prog} $args\" >> '{}'; echo 'refused: this command is not allowed here' >&2; exit 126 ;;\n", log.display())
            })
            .collect();
        let script = format!(
            "#!/bin/sh\nargs=\"$*\"\ncase \" $args \" in\n{cases}esac\nPATH=\"$DIXIT_REAL_PATH\" exec {prog} \"$@\"\n"
        );
        let p = dir.join(&prog);
        std::fs::write(&p, script)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755))?;
        }
    }
    Ok(())
}

#[async_trait::async_trait]
impl Backend for CommandAgent {
    async fn complete(&self, req: &Request<'_>) -> Result<Completion, BackendError> {
        let fail = |message: String| BackendError::Failed {
            agent: req.agent.to_string(),
            message,
        };
        let state = req.state_dir.to_path_buf();
        let agent_dir = state.parent().unwrap_or(&state).to_path_buf();
        let new_conversation = !req.messages.iter().any(|m| m.role == "assistant");
        let last = req
            .messages
            .last()
            .map(|m| m.content.as_str())
            .unwrap_or("");
        let prompt = if new_conversation {
            format!("{}\n\n{last}", req.system)
        } else {
            last.to_string()
        };

        let before_ws = read_tree(req.workspace).map_err(|e| fail(e.to_string()))?;
        let guard_before = guard_snapshot(&self.guarded_root, &agent_dir);
        let shims = state.join("bin");
        let refusals = state.join("refused.log");
        let _ = std::fs::remove_file(&refusals);
        write_shims(&shims, &self.forbidden, &refusals)
            .map_err(|e| fail(format!("guardrail shims: {e}")))?;
        let home = state.join("home");
        let tmp = state.join("tmp");
        for d in [&home, &tmp] {
            std::fs::create_dir_all(d).map_err(|e| fail(format!("{}: {e}", d.display())))?;
        }

        let has_placeholder = self.argv.iter().any(|a| a.contains("{prompt}"));
        let argv: Vec<String> = self
            .argv
            .iter()
            .map(|a| {
                a.replace("{prompt}", &prompt)
                    .replace("{state}", &state.display().to_string())
            })
            .collect();
        let real_path = std::env::var("PATH").unwrap_or_default();
        let mut cmd = tokio::process::Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .current_dir(req.workspace)
            .env("HOME", &home)
            .env("TMPDIR", &tmp)
            .env("DIXIT_REAL_PATH", &real_path)
            .env("PATH", format!("{}:{real_path}", shims.display()))
            .stdin(if has_placeholder {
                Stdio::null()
            } else {
                Stdio::piped()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (k, v) in &self.env {
            cmd.env(k, v.replace("{state}", &state.display().to_string()));
        }
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = cmd
            .spawn()
            .map_err(|e| fail(format!("cannot start `{}`: {e}", argv[0])))?;
        let pid = child.id();
        let mut running = Running::new(pid, &self.guarded_root, &agent_dir, guard_before);
        if !has_placeholder {
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(prompt.as_bytes()).await;
            }
        }
        let out = match tokio::time::timeout(self.timeout, child.wait_with_output()).await {
            Ok(r) => r.map_err(|e| fail(format!("`{}`: {e}", argv[0])))?,
            Err(_) => {
                let undone = running.end();
                return Err(fail(format!(
                    "`{}` did not finish within {} s (killed){}",
                    argv[0],
                    self.timeout.as_secs(),
                    note(&undone)
                )));
            }
        };
        // Anything it left running in the background is killed.
        let mut violations: Vec<String> = running
            .end()
            .into_iter()
            .map(|u| format!("changed a file outside its workspace: {u}"))
            .collect();
        if let Ok(log) = std::fs::read_to_string(&refusals) {
            violations.extend(
                log.lines()
                    .map(|l| format!("refused forbidden command: {l}")),
            );
        }
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            return Err(fail(format!(
                "`{}` exited with {}: {}",
                argv[0],
                out.status,
                stderr.trim().chars().take(500).collect::<String>()
            )));
        }
        let after_ws = read_tree(req.workspace).map_err(|e| fail(e.to_string()))?;
        let files = diff(&before_ws, &after_ws);
        Ok(Completion {
            text: String::from_utf8_lossy(&out.stdout).into_owned(),
            usage: Usage::default(),
            model: "command".into(),
            files: Some(files),
            cost_usd: None,
            violations,
            truncated: false,
        })
    }

    fn writes_files(&self) -> bool {
        true
    }
}

fn note(undone: &[String]) -> String {
    if undone.is_empty() {
        String::new()
    } else {
        format!("; undone: {}", undone.join(", "))
    }
}

/// The process groups of the turns running now.
static RUNNING: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

/// Kills every command turn still running, with its process group: for a process that must exit
/// at once (a second Ctrl-C), whose turns would otherwise outlive it. Their workspaces and the
/// project are left as they are (a resume starts the agents afresh).
pub fn kill_running_commands() {
    let running = std::mem::take(&mut *RUNNING.lock().unwrap_or_else(|e| e.into_inner()));
    for pid in running {
        kill_group(Some(pid));
    }
}

/// A turn's process while it runs. Its end (or its drop, when the turn is abandoned because the
/// run was interrupted) kills the process group and undoes changes outside the workspace.
struct Running<'a> {
    pid: Option<u32>,
    root: &'a Path,
    agent_dir: &'a Path,
    before: Option<BTreeMap<PathBuf, Vec<u8>>>,
}

impl<'a> Running<'a> {
    fn new(
        pid: Option<u32>,
        root: &'a Path,
        agent_dir: &'a Path,
        before: BTreeMap<PathBuf, Vec<u8>>,
    ) -> Running<'a> {
        if let Some(p) = pid {
            RUNNING.lock().unwrap_or_else(|e| e.into_inner()).insert(p);
        }
        Running {
            pid,
            root,
            agent_dir,
            before: Some(before),
        }
    }

    /// Kills what is left of the turn and undoes its changes outside the workspace (once);
    /// returns what was undone.
    fn end(&mut self) -> Vec<String> {
        let Some(before) = self.before.take() else {
            return Vec::new();
        };
        kill_group(self.pid);
        if let Some(p) = self.pid {
            RUNNING.lock().unwrap_or_else(|e| e.into_inner()).remove(&p);
        }
        undo_outside_changes(self.root, self.agent_dir, &before)
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let undone = self.end();
        if !undone.is_empty() {
            tracing::warn!("an abandoned command turn's changes were undone: {undone:?}");
        }
    }
}

/// Kills the turn's whole process group (a CLI agent may have started helpers). The group is
/// the child's own (`process_group(0)`), so nothing else is touched; a group that is already
/// gone is fine.
fn kill_group(pid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pgid) = pid
        .filter(|p| *p > 1)
        .and_then(|p| rustix::process::Pid::from_raw(p as i32))
    {
        let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
    }
}

/// The workspace changes of a turn.
fn diff(before: &[(String, Vec<u8>)], after: &[(String, Vec<u8>)]) -> Vec<FileWrite> {
    let b: BTreeMap<&String, &Vec<u8>> = before.iter().map(|(p, c)| (p, c)).collect();
    let a: BTreeMap<&String, &Vec<u8>> = after.iter().map(|(p, c)| (p, c)).collect();
    let mut out = Vec::new();
    for (p, c) in &a {
        if b.get(p) != Some(c) {
            out.push(FileWrite {
                path: (*p).clone(),
                content: Some(String::from_utf8_lossy(c).into_owned()),
            });
        }
    }
    for p in b.keys().filter(|p| !a.contains_key(*p)) {
        out.push(FileWrite {
            path: (*p).clone(),
            content: None,
        });
    }
    out
}
