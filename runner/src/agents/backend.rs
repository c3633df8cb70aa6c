//! The one trait every backend implements: given the conversation so far, produce a reply.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::config::{AgentSettings, Role};

/// One chat message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The message's text.
    pub content: String,
}

impl Message {
    /// A message of the user (the protocol's prompt).
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: "user".into(),
            content: content.into(),
        }
    }
    /// A message of the assistant (the agent's reply).
    pub fn assistant(content: impl Into<String>) -> Self {
        Message {
            role: "assistant".into(),
            content: content.into(),
        }
    }
}

/// Tokens a call used, as the provider reported them (estimated for script agents: zero).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt.
    pub prompt_tokens: u64,
    /// Tokens in the reply.
    pub completion_tokens: u64,
}

impl Usage {
    /// All tokens of the call.
    pub fn total(self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }
}

/// What a backend is asked.
pub struct Request<'a> {
    /// The agent's name.
    pub agent: &'a str,
    /// The agent's role.
    pub role: Role,
    /// The agent's call number (0, 1, ...): never rolled back, so re-rolls after a rollback get
    /// a fresh sampling seed.
    pub call: u64,
    /// The system prompt.
    pub system: &'a str,
    /// The conversation, ending with the new user message. Consecutive user messages are
    /// already merged.
    pub messages: &'a [Message],
    /// The agent's settings.
    pub settings: &'a AgentSettings,
    /// The agent's workspace (command backends run there).
    pub workspace: &'a Path,
    /// The agent's state directory (command backends keep CLI session state inside it).
    pub state_dir: &'a Path,
}

impl Request<'_> {
    /// The sampling seed for this call: the configured seed (or the run's) plus the call number.
    pub fn seed(&self, base: u64) -> u64 {
        self.settings.seed.unwrap_or(base).wrapping_add(self.call)
    }
}

/// What a backend answered.
#[derive(Clone, Debug, Default)]
pub struct Completion {
    /// The reply's text.
    pub text: String,
    /// Tokens the call used.
    pub usage: Usage,
    /// The model that answered (for pricing).
    pub model: String,
    /// The workspace changes of this turn, when the backend knows them (a CLI agent's edits, or
    /// a recording); otherwise code is extracted from `text`.
    pub files: Option<Vec<super::FileWrite>>,
    /// The cost, when it is already known (a recording); otherwise priced from `usage`.
    pub cost_usd: Option<f64>,
    /// Guardrail violations the host undid or refused during the turn.
    pub violations: Vec<String>,
    /// The reply was cut off at the length limit (`max_tokens`).
    pub truncated: bool,
}

/// Why a backend gave no reply. The run stops and can be resumed.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The backend could not answer (a live one after its retries).
    #[error("{agent}: {message}")]
    Failed {
        /// The agent.
        agent: String,
        /// What failed.
        message: String,
    },
    /// Replay only: the recording has no answer for this call (it stopped before it).
    #[error("{agent}: the recording ends before call {call}")]
    EndOfRecording {
        /// The agent.
        agent: String,
        /// The call asked for.
        call: u64,
    },
    /// Replay only: the run asked something the recording did not.
    #[error("{agent}: call {call} diverges from the recording: {detail}")]
    Diverged {
        /// The agent.
        agent: String,
        /// The call.
        call: u64,
        /// How it diverges.
        detail: String,
    },
}

/// A source of replies: a scripted list, a recording, an HTTP API, or a command-line agent.
#[async_trait::async_trait]
pub trait Backend: Send + Sync {
    /// Produces the reply to `req`.
    async fn complete(&self, req: &Request<'_>) -> Result<Completion, BackendError>;

    /// Whether the backend edits the workspace itself (a CLI agent); otherwise code is
    /// extracted from its reply.
    fn writes_files(&self) -> bool {
        false
    }
}
