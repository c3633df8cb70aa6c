//! An agent's state is a directory and nothing else:
//!
//! ```text
//! agents/<name>/workspace/         the files it wrote
//! agents/<name>/transcript.jsonl   every message, one JSON object a line
//! agents/<name>/backend/           CLI session state (e.g. CLAUDE_CONFIG_DIR points here)
//! ```
//!
//! `save()` copies the directory to `checkpoints/<name>/<id>/`; `rollback()` restores a copy in
//! place, so the agent's paths never change.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::backend::Message;
use super::FileWrite;

/// An error touching an agent's state directory.
#[derive(Debug, thiserror::Error)]
#[error("agent state {path}: {source}")]
pub struct StateError {
    /// The file or folder.
    pub path: PathBuf,
    /// The I/O error.
    #[source]
    pub source: std::io::Error,
}

fn io<T>(path: &Path, r: std::io::Result<T>) -> Result<T, StateError> {
    r.map_err(|source| StateError {
        path: path.to_path_buf(),
        source,
    })
}

/// A saved copy of an agent's directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Checkpoint(pub u64);

/// The on-disk state of one agent.
#[derive(Debug)]
pub struct AgentDir {
    /// The agent's directory (`agents/<name>`).
    pub dir: PathBuf,
    checkpoints: PathBuf,
    next_checkpoint: u64,
    /// Mirror of transcript.jsonl.
    messages: Vec<Message>,
    /// What the workspace should hold: only the host (and the agent's own turns) change it.
    expected: Vec<(String, Vec<u8>)>,
}

impl AgentDir {
    /// Creates (or reuses, empty) the directory with a transcript holding the system prompt.
    pub fn create(
        dir: PathBuf,
        checkpoints: PathBuf,
        system: &str,
    ) -> Result<AgentDir, StateError> {
        if dir.exists() {
            io(&dir, fs::remove_dir_all(&dir))?;
        }
        io(&dir, fs::create_dir_all(dir.join("workspace")))?;
        io(&dir, fs::create_dir_all(dir.join("backend")))?;
        io(&checkpoints, fs::create_dir_all(&checkpoints))?;
        let mut a = AgentDir {
            dir,
            checkpoints,
            next_checkpoint: 0,
            messages: Vec::new(),
            expected: Vec::new(),
        };
        io(&a.transcript_path(), fs::write(a.transcript_path(), ""))?;
        a.push(Message {
            role: "system".into(),
            content: system.into(),
        })?;
        Ok(a)
    }

    /// The agent's workspace: the files it wrote.
    pub fn workspace(&self) -> PathBuf {
        self.dir.join("workspace")
    }

    /// Where a command backend keeps its CLI session state.
    pub fn backend_dir(&self) -> PathBuf {
        self.dir.join("backend")
    }

    fn transcript_path(&self) -> PathBuf {
        self.dir.join("transcript.jsonl")
    }

    /// The system prompt.
    pub fn system(&self) -> &str {
        self.messages
            .first()
            .map(|m| m.content.as_str())
            .unwrap_or("")
    }

    /// The whole transcript (system message first).
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The conversation to send with a new user message: the history after the system prompt,
    /// with consecutive user messages (a thank-you followed by a request) merged into one.
    pub fn conversation_with(&self, prompt: &str) -> Vec<Message> {
        let mut out: Vec<Message> = Vec::new();
        for m in self
            .messages
            .iter()
            .skip(1)
            .cloned()
            .chain(std::iter::once(Message::user(prompt)))
        {
            match out.last_mut() {
                Some(last) if last.role == "user" && m.role == "user" => {
                    last.content.push_str("\n\n");
                    last.content.push_str(&m.content);
                }
                _ => out.push(m),
            }
        }
        out
    }

    /// Appends a message to the transcript (flushed).
    pub fn push(&mut self, m: Message) -> Result<(), StateError> {
        let path = self.transcript_path();
        let mut f = io(&path, fs::OpenOptions::new().append(true).open(&path))?;
        let line = serde_json::to_string(&m).unwrap_or_default();
        io(&path, writeln!(f, "{line}"))?;
        self.messages.push(m);
        Ok(())
    }

    /// Checks that nothing but this agent changed its workspace since the host last touched it
    /// (another agent's process could write here); restores it if something did, and says what.
    pub fn verify_workspace(&mut self) -> Result<Vec<String>, StateError> {
        let now = read_tree(&self.workspace())?;
        if now == self.expected {
            return Ok(Vec::new());
        }
        let ws = self.workspace();
        let mut restored = Vec::new();
        for (p, _) in now
            .iter()
            .filter(|(p, _)| !self.expected.iter().any(|(q, _)| q == p))
        {
            io(&ws.join(p), fs::remove_file(ws.join(p)))?;
            restored.push(format!("removed {p}"));
        }
        for (p, c) in &self.expected {
            if !now.iter().any(|(q, d)| q == p && d == c) {
                let path = ws.join(p);
                if let Some(d) = path.parent() {
                    io(d, fs::create_dir_all(d))?;
                }
                io(&path, fs::write(&path, c))?;
                restored.push(format!("restored {p}"));
            }
        }
        Ok(restored)
    }

    /// Records the workspace as it is now as its expected state.
    fn settle(&mut self) -> Result<(), StateError> {
        self.expected = read_tree(&self.workspace())?;
        Ok(())
    }

    /// Writes (or deletes) files in the workspace.
    pub fn apply(&mut self, files: &[FileWrite]) -> Result<(), StateError> {
        let ws = self.workspace();
        for f in files {
            let p = ws.join(&f.path);
            match &f.content {
                Some(c) => {
                    if let Some(d) = p.parent() {
                        io(d, fs::create_dir_all(d))?;
                    }
                    io(&p, fs::write(&p, c))?;
                }
                None => {
                    if p.exists() {
                        io(&p, fs::remove_file(&p))?;
                    }
                }
            }
        }
        self.settle()
    }

    /// Copies the whole directory to a new checkpoint.
    pub fn save(&mut self) -> Result<Checkpoint, StateError> {
        let id = self.next_checkpoint;
        self.next_checkpoint += 1;
        let to = self.checkpoints.join(id.to_string());
        if to.exists() {
            io(&to, fs::remove_dir_all(&to))?;
        }
        copy_dir(&self.dir, &to)?;
        Ok(Checkpoint(id))
    }

    /// Restores a checkpoint in place: the directory keeps its path, its contents become the
    /// checkpoint's.
    pub fn rollback(&mut self, cp: Checkpoint) -> Result<(), StateError> {
        let from = self.checkpoints.join(cp.0.to_string());
        if !from.is_dir() {
            return Err(StateError {
                path: from,
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such checkpoint"),
            });
        }
        for e in io(&self.dir, fs::read_dir(&self.dir))? {
            let p = io(&self.dir, e)?.path();
            if p.is_dir() && !p.is_symlink() {
                io(&p, fs::remove_dir_all(&p))?;
            } else {
                io(&p, fs::remove_file(&p))?;
            }
        }
        copy_dir(&from, &self.dir)?;
        self.reload()?;
        self.settle()
    }

    fn reload(&mut self) -> Result<(), StateError> {
        let path = self.transcript_path();
        let text = io(&path, fs::read_to_string(&path))?;
        self.messages = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        Ok(())
    }
}

/// Copies a directory tree (regular files and directories; symlinks are not followed).
pub fn copy_dir(from: &Path, to: &Path) -> Result<(), StateError> {
    io(to, fs::create_dir_all(to))?;
    for e in io(from, fs::read_dir(from))? {
        let e = io(from, e)?;
        let ft = io(&e.path(), e.file_type())?;
        let dst = to.join(e.file_name());
        if ft.is_dir() {
            copy_dir(&e.path(), &dst)?;
        } else if ft.is_file() {
            io(&dst, fs::copy(e.path(), &dst))?;
        }
    }
    Ok(())
}

/// Every regular file under `dir` as (relative path, contents), sorted: a workspace's state.
pub fn read_tree(dir: &Path) -> Result<Vec<(String, Vec<u8>)>, StateError> {
    fn walk(root: &Path, rel: &Path, out: &mut Vec<(String, Vec<u8>)>) -> Result<(), StateError> {
        let d = root.join(rel);
        for e in io(&d, fs::read_dir(&d))? {
            let e = io(&d, e)?;
            let ft = io(&e.path(), e.file_type())?;
            let r = rel.join(e.file_name());
            if ft.is_dir() {
                walk(root, &r, out)?;
            } else if ft.is_file() {
                out.push((
                    r.to_string_lossy().into_owned(),
                    io(&e.path(), fs::read(e.path()))?,
                ));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    if dir.is_dir() {
        walk(dir, Path::new(""), &mut out)?;
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_and_rollback_restore_in_place() {
        let t = tempfile::tempdir().unwrap();
        let mut a = AgentDir::create(
            t.path().join("agents/a"),
            t.path().join("checkpoints/a"),
            "sys",
        )
        .unwrap();
        a.apply(&[FileWrite {
            path: "solution.py".into(),
            content: Some("v1".into()),
        }])
        .unwrap();
        a.push(Message::user("hello")).unwrap();
        let cp = a.save().unwrap();
        let ws_before = a.workspace();
        a.apply(&[FileWrite {
            path: "solution.py".into(),
            content: Some("v2".into()),
        }])
        .unwrap();
        a.apply(&[FileWrite {
            path: "junk.py".into(),
            content: Some("x".into()),
        }])
        .unwrap();
        a.push(Message::assistant("v2 reply")).unwrap();
        a.rollback(cp).unwrap();
        assert_eq!(a.workspace(), ws_before);
        assert_eq!(
            fs::read_to_string(a.workspace().join("solution.py")).unwrap(),
            "v1"
        );
        assert!(!a.workspace().join("junk.py").exists());
        assert_eq!(a.messages().len(), 2);
        assert_eq!(a.system(), "sys");
    }

    #[test]
    fn thanks_merge_into_the_next_request() {
        let t = tempfile::tempdir().unwrap();
        let mut a = AgentDir::create(t.path().join("a"), t.path().join("c"), "sys").unwrap();
        a.push(Message::user("write it")).unwrap();
        a.push(Message::assistant("done")).unwrap();
        a.push(Message::user("Thank you.")).unwrap();
        let conv = a.conversation_with("Now another.");
        assert_eq!(conv.len(), 3);
        assert_eq!(conv[2].content, "Thank you.\n\nNow another.");
    }
}
