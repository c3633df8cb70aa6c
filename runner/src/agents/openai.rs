//! The `openai` backend: chat completions on any OpenAI-compatible endpoint (OpenAI, vLLM, a
//! llama.cpp server, Ollama, OpenRouter): `POST {base_url}/chat/completions`.

use std::time::Duration;

use serde_json::{json, Value};

use super::backend::{Backend, BackendError, Completion, Request, Usage};
use super::error::{AgentError, ReplyError};
use super::http::{api_key, client, post_json, RetryPolicy};
use crate::config::AgentSpec;

/// One agent's OpenAI-compatible endpoint.
pub struct OpenAi {
    client: reqwest::Client,
    url: String,
    key: Option<String>,
    model: String,
    policy: RetryPolicy,
    seed: u64,
}

impl OpenAi {
    /// The endpoint of agent `spec`; its base sampling seed derives from `run_seed` and its name (a
    /// configured `seed` takes precedence).
    pub fn new(spec: &AgentSpec, run_seed: u64) -> Result<Self, AgentError> {
        let s = &spec.settings;
        let base = s
            .base_url
            .clone()
            .unwrap_or_else(|| "https://api.openai.com/v1".into());
        let key_env = s.api_key_env.clone().or_else(|| {
            base.contains("api.openai.com")
                .then(|| "OPENAI_API_KEY".to_string())
        });
        Ok(OpenAi {
            client: client(Duration::from_secs(s.timeout_s.unwrap_or(300)))?,
            url: format!("{}/chat/completions", base.trim_end_matches('/')),
            key: api_key(key_env.as_deref(), &spec.name)?,
            model: s
                .model
                .clone()
                .ok_or_else(|| AgentError::NoModel(spec.name.clone()))?,
            policy: RetryPolicy::of(s),
            // Distinct per agent, so agents asked the same thing sample differently.
            seed: agent_seed(run_seed, &spec.name),
        })
    }
}

/// An agent's base sampling seed: derived from the run's seed and its name (a configured `seed`
/// takes precedence in [`Request::seed`]). Each call adds its call number.
pub(super) fn agent_seed(run_seed: u64, name: &str) -> u64 {
    let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    crate::sandbox::splitmix64(run_seed ^ h) >> 1
}

/// The request body (public for tests of its shape).
pub fn chat_body(model: &str, req: &Request<'_>, seed: u64) -> Value {
    let mut messages = vec![json!({ "role": "system", "content": req.system })];
    messages.extend(
        req.messages
            .iter()
            .map(|m| json!({ "role": m.role, "content": m.content })),
    );
    let mut body =
        json!({ "model": model, "messages": messages, "seed": req.seed(seed), "stream": false });
    let s = req.settings;
    if let Some(t) = s.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(p) = s.top_p {
        body["top_p"] = json!(p);
    }
    if let Some(m) = s.max_tokens {
        body["max_tokens"] = json!(m);
    }
    body
}

/// Reads text, usage and model from a chat-completions response.
pub fn parse_chat(v: &Value, fallback_model: &str) -> Result<Completion, ReplyError> {
    let choice = v
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| ReplyError::Shape {
            what: "choices",
            reply: clip(v),
        })?;
    let text = choice
        .pointer("/message/content")
        .and_then(|c| c.as_str())
        .unwrap_or("")
        .to_string();
    let usage = Usage {
        prompt_tokens: v
            .pointer("/usage/prompt_tokens")
            .and_then(|x| x.as_u64())
            .unwrap_or(0),
        completion_tokens: v
            .pointer("/usage/completion_tokens")
            .and_then(|x| x.as_u64())
            .unwrap_or(0),
    };
    let model = v
        .get("model")
        .and_then(|m| m.as_str())
        .unwrap_or(fallback_model)
        .to_string();
    let truncated = choice.get("finish_reason").and_then(|f| f.as_str()) == Some("length");
    Ok(Completion {
        truncated,
        text,
        usage,
        model,
        ..Default::default()
    })
}

fn clip(v: &Value) -> String {
    v.to_string().chars().take(200).collect()
}

#[async_trait::async_trait]
impl Backend for OpenAi {
    async fn complete(&self, req: &Request<'_>) -> Result<Completion, BackendError> {
        let fail = |message: String| BackendError::Failed {
            agent: req.agent.to_string(),
            message,
        };
        let body = chat_body(&self.model, req, self.seed);
        let mut headers = Vec::new();
        if let Some(k) = &self.key {
            headers.push(("authorization", format!("Bearer {k}")));
        }
        let v = post_json(&self.client, &self.url, &headers, &body, &self.policy)
            .await
            .map_err(|e| fail(e.to_string()))?;
        let mut c = parse_chat(&v, &self.model).map_err(|e| fail(e.to_string()))?;
        // Price by the configured name (providers may answer with a dated variant).
        c.model = self.model.clone();
        Ok(c)
    }
}
