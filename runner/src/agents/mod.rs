//! Agents: a backend plus a state directory. Coders and testers are agents; they never see
//! each other, only the prompts the protocol sends.
//!
//! - `backend.rs`: the [`Backend`] trait, messages, usage.
//! - `state.rs`: the state directory, transcript, `save()`/`rollback()`.
//! - `extract.rs`: code blocks in replies → file writes.
//! - `script.rs`: scripted replies (tests, demos); `replay.rs`: replies from a journal.

mod anthropic;
mod backend;
mod command;
mod error;
mod extract;
mod http;
mod openai;
mod replay;
mod script;
mod state;

use std::sync::Arc;

pub use anthropic::{messages_body, parse_messages, Anthropic, ANTHROPIC_VERSION};
pub use backend::{Backend, BackendError, Completion, Message, Request, Usage};
pub use command::{kill_running_commands, CommandAgent};
pub use error::{AgentError, ReplyError};
pub use extract::{code_blocks, extract_files, sanitize, FileWrite};
pub use openai::{chat_body, parse_chat, OpenAi};
pub use replay::{first_difference, RecordedReply, Recording, ReplayBackend};
pub use script::{Script, ScriptBackend};
pub use state::{copy_dir, read_tree, AgentDir, Checkpoint, StateError};

use crate::config::{AgentSettings, Role};

/// One agent: who it is, how it answers, and its state directory.
pub struct Agent {
    /// Its name (also the name of its folders).
    pub name: String,
    /// Its role.
    pub role: Role,
    /// Its settings, layered.
    pub settings: AgentSettings,
    /// Its state directory.
    pub state: AgentDir,
    /// How it answers.
    pub backend: Arc<dyn Backend>,
    /// Calls made so far; never rolled back.
    pub calls: u64,
}

/// The outcome of one turn: the reply and the files it wrote.
#[derive(Clone, Debug)]
pub struct Turn {
    /// The agent's call number.
    pub call: u64,
    /// The prompt as sent.
    pub prompt: String,
    /// The reply's text.
    pub text: String,
    /// The files the reply wrote.
    pub files: Vec<FileWrite>,
    /// Tokens the call used.
    pub usage: Usage,
    /// The model that answered.
    pub model: String,
    /// Set when the backend knew the cost (a recording); else priced by the caller.
    pub cost_usd: Option<f64>,
    /// Guardrail violations undone or refused during the turn.
    pub violations: Vec<String>,
    /// The reply was cut off at the length limit.
    pub truncated: bool,
}

impl Agent {
    /// Sends `prompt` (after the conversation so far) and records the turn in the transcript and
    /// workspace. Files come from the backend when it knows them, else from code blocks in the
    /// reply (`default_file` for an unnamed block; only `exts` allowed).
    pub async fn ask(
        &mut self,
        prompt: &str,
        default_file: &str,
        exts: &[&str],
    ) -> Result<Turn, AskError> {
        self.turn(prompt, default_file, exts, true).await
    }

    /// Like [`Agent::ask`], but the reply's files are only returned, not written to the
    /// workspace (a test an agent writes beside its own solution).
    pub async fn ask_detached(
        &mut self,
        prompt: &str,
        default_file: &str,
        exts: &[&str],
    ) -> Result<Turn, AskError> {
        self.turn(prompt, default_file, exts, false).await
    }

    async fn turn(
        &mut self,
        prompt: &str,
        default_file: &str,
        exts: &[&str],
        apply: bool,
    ) -> Result<Turn, AskError> {
        let tampered = self.state.verify_workspace()?;
        let call = self.calls;
        let conversation = self.state.conversation_with(prompt);
        let workspace = self.state.workspace();
        let backend_dir = self.state.backend_dir();
        let req = Request {
            agent: &self.name,
            role: self.role,
            call,
            system: self.state.system(),
            messages: &conversation,
            settings: &self.settings,
            workspace: &workspace,
            state_dir: &backend_dir,
        };
        let c = self.backend.complete(&req).await?;
        self.calls += 1;
        let sent = conversation
            .last()
            .map(|m| m.content.clone())
            .unwrap_or_default();
        let files = match c.files {
            Some(f) => f,
            // A reply that is not code (a review) writes nothing.
            None if default_file.is_empty() => Vec::new(),
            None => extract_files(&c.text, default_file, exts),
        };
        self.state.push(Message::user(prompt))?;
        self.state.push(Message::assistant(c.text.clone()))?;
        if apply {
            self.state.apply(&files)?;
        }
        Ok(Turn {
            call,
            prompt: sent,
            text: c.text,
            files,
            usage: c.usage,
            model: c.model,
            cost_usd: c.cost_usd,
            truncated: c.truncated,
            violations: if tampered.is_empty() {
                c.violations
            } else {
                // Replays get these back from the recording, and find nothing to restore.
                let mut v: Vec<String> = tampered
                    .into_iter()
                    .map(|t| format!("its workspace was changed from outside: {t}"))
                    .collect();
                v.extend(c.violations);
                v
            },
        })
    }

    /// Adds a message that needs no reply (a thank-you); it is sent with the next request.
    pub fn tell(&mut self, text: &str) -> Result<(), StateError> {
        self.state.push(Message::user(text))
    }
}

/// Why a turn failed.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    /// The backend gave no reply.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The agent's state directory could not be read or written.
    #[error(transparent)]
    State(#[from] StateError),
}

/// The live backend of an agent: `openai`, `anthropic` or `command` (the protocol builds
/// `script` and `replay` itself).
pub fn live_backend(
    spec: &crate::config::AgentSpec,
    backend: Option<&str>,
    project_dir: &std::path::Path,
    run_seed: u64,
) -> Result<Arc<dyn Backend>, AgentError> {
    match backend {
        Some("openai") => Ok(Arc::new(OpenAi::new(spec, run_seed)?)),
        Some("anthropic") => Ok(Arc::new(Anthropic::new(spec)?)),
        Some("command") => Ok(Arc::new(CommandAgent::new(spec, project_dir)?)),
        other => Err(AgentError::UnknownBackend {
            agent: spec.name.clone(),
            backend: other.unwrap_or("(none)").to_string(),
        }),
    }
}
