//! The `replay` backend: answers from a recorded journal. Used by `dixit replay` (every answer
//! must come from the recording, and a request that differs from the recorded one is an error
//! naming the first divergence) and by `dixit run --resume` (recorded answers first, then the
//! live backend).

use std::collections::HashMap;
use std::sync::Arc;

use super::backend::{Backend, BackendError, Completion, Request, Usage};
use super::FileWrite;

/// One recorded turn of one agent.
#[derive(Clone, Debug)]
pub struct RecordedReply {
    /// The prompt sent.
    pub prompt: String,
    /// The reply's text.
    pub text: String,
    /// The files the reply wrote.
    pub files: Vec<FileWrite>,
    /// Tokens the call used.
    pub usage: Usage,
    /// The call's cost in US dollars.
    pub cost_usd: f64,
    /// The model that answered.
    pub model: String,
    /// Guardrail violations undone or refused during the turn.
    pub violations: Vec<String>,
    /// The reply was cut off at the length limit.
    pub truncated: bool,
}

/// Recorded turns by (agent, call number).
#[derive(Clone, Debug, Default)]
pub struct Recording {
    /// Recorded replies, by agent and call number.
    pub replies: HashMap<(String, u64), RecordedReply>,
    /// Calls whose backend failed, with the message.
    pub failures: HashMap<(String, u64), String>,
}

impl Recording {
    /// Recorded calls of `agent`.
    pub fn calls_of(&self, agent: &str) -> usize {
        self.replies.keys().filter(|(a, _)| a == agent).count()
    }
}

/// Serves recorded replies; past the recording, asks `live` (resume) or fails (replay).
pub struct ReplayBackend {
    recording: Arc<Recording>,
    live: Option<Arc<dyn Backend>>,
}

impl ReplayBackend {
    /// Serves `recording`; past it, asks `live` if given, else fails.
    pub fn new(recording: Arc<Recording>, live: Option<Arc<dyn Backend>>) -> Self {
        ReplayBackend { recording, live }
    }
}

#[async_trait::async_trait]
impl Backend for ReplayBackend {
    async fn complete(&self, req: &Request<'_>) -> Result<Completion, BackendError> {
        let prompt = req
            .messages
            .last()
            .map(|m| m.content.as_str())
            .unwrap_or("");
        match self
            .recording
            .replies
            .get(&(req.agent.to_string(), req.call))
        {
            Some(r) => {
                if r.prompt != prompt {
                    return Err(BackendError::Diverged {
                        agent: req.agent.into(),
                        call: req.call,
                        detail: first_difference(&r.prompt, prompt),
                    });
                }
                Ok(Completion {
                    text: r.text.clone(),
                    usage: r.usage,
                    model: r.model.clone(),
                    files: Some(r.files.clone()),
                    cost_usd: Some(r.cost_usd),
                    violations: r.violations.clone(),
                    truncated: r.truncated,
                })
            }
            None if self.live.is_none()
                && self
                    .recording
                    .failures
                    .contains_key(&(req.agent.to_string(), req.call)) =>
            {
                Err(BackendError::Failed {
                    agent: req.agent.into(),
                    message: self.recording.failures[&(req.agent.to_string(), req.call)].clone(),
                })
            }
            None => match &self.live {
                Some(live) => live.complete(req).await,
                None => Err(BackendError::EndOfRecording {
                    agent: req.agent.into(),
                    call: req.call,
                }),
            },
        }
    }

    fn writes_files(&self) -> bool {
        self.live.as_ref().is_some_and(|l| l.writes_files())
    }
}

/// Where two prompts first differ, with a little context.
pub fn first_difference(recorded: &str, now: &str) -> String {
    let at = recorded
        .chars()
        .zip(now.chars())
        .position(|(a, b)| a != b)
        .unwrap_or(recorded.len().min(now.len()));
    let snip = |s: &str| {
        s.chars()
            .skip(at.saturating_sub(20))
            .take(60)
            .collect::<String>()
    };
    format!(
        "the prompt differs at character {at}: recorded «{}», now «{}»",
        snip(recorded),
        snip(now)
    )
}
