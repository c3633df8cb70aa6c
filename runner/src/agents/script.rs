//! The `script` backend: deterministic answers from a TOML file, for tests and demos. Each agent
//! has a list of replies, given in the order it is asked (by call number, which rollbacks do not
//! rewind, so a re-roll gets the next reply).
//!
//! ````toml
//! [[coder-1]]
//! text = '''
//! ```python
//! def median(xs): ...
//! ```
//! '''
//! [[coder-1]]
//! text = "..."
//! delay_ms = 200                       # optional: answer slowly (tests of interruption)
//! usage = { prompt_tokens = 100, completion_tokens = 50 }   # optional: reported usage
//! ````

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::backend::{Backend, BackendError, Completion, Request, Usage};
use super::error::AgentError;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    text: String,
    #[serde(default)]
    delay_ms: u64,
    #[serde(default)]
    usage: Usage,
}

/// Scripted replies for every agent of a run.
#[derive(Clone, Debug)]
pub struct Script {
    replies: BTreeMap<String, Vec<Entry>>,
    path: String,
}

impl Script {
    /// Loads a script; errors name the file and the problem.
    pub fn load(path: &Path) -> Result<Script, AgentError> {
        let text = std::fs::read_to_string(path).map_err(|e| AgentError::Script {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Script::parse(&text, &path.display().to_string())
    }

    /// Parses a script's text; `path` names it in errors.
    pub fn parse(text: &str, path: &str) -> Result<Script, AgentError> {
        let replies: BTreeMap<String, Vec<Entry>> =
            toml::from_str(text).map_err(|e| AgentError::Script {
                path: path.to_string(),
                message: e.to_string().trim_end().to_string(),
            })?;
        Ok(Script {
            replies,
            path: path.to_string(),
        })
    }
}

/// One agent's view of a [`Script`].
pub struct ScriptBackend {
    script: Script,
}

impl ScriptBackend {
    /// The agent's view of `script`.
    pub fn new(script: Script) -> Self {
        ScriptBackend { script }
    }
}

#[async_trait::async_trait]
impl Backend for ScriptBackend {
    async fn complete(&self, req: &Request<'_>) -> Result<Completion, BackendError> {
        let list = self
            .script
            .replies
            .get(req.agent)
            .ok_or_else(|| BackendError::Failed {
                agent: req.agent.to_string(),
                message: format!("{} has no replies for `{}`", self.script.path, req.agent),
            })?;
        let e = list
            .get(req.call as usize)
            .ok_or_else(|| BackendError::Failed {
                agent: req.agent.to_string(),
                message: format!(
                    "{} has {} replies for `{}`; reply #{} was asked for",
                    self.script.path,
                    list.len(),
                    req.agent,
                    req.call + 1
                ),
            })?;
        if e.delay_ms > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(e.delay_ms)).await;
        }
        Ok(Completion {
            text: e.text.clone(),
            usage: e.usage,
            model: "script".into(),
            ..Default::default()
        })
    }
}
