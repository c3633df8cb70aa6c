//! The `anthropic` backend: the Messages API, `POST {base_url}/v1/messages`.

use std::time::Duration;

use serde_json::{json, Value};

use super::backend::{Backend, BackendError, Completion, Request, Usage};
use super::error::{AgentError, ReplyError};
use super::http::{api_key, client, post_json, RetryPolicy};
use crate::config::AgentSpec;

/// The API version header dixit speaks.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// One agent's Anthropic endpoint.
pub struct Anthropic {
    client: reqwest::Client,
    url: String,
    key: Option<String>,
    model: String,
    policy: RetryPolicy,
}

impl Anthropic {
    /// The endpoint of agent `spec`.
    pub fn new(spec: &AgentSpec) -> Result<Self, AgentError> {
        let s = &spec.settings;
        let base = s
            .base_url
            .clone()
            .unwrap_or_else(|| "https://api.anthropic.com".into());
        let key_env = s
            .api_key_env
            .clone()
            .unwrap_or_else(|| "ANTHROPIC_API_KEY".into());
        Ok(Anthropic {
            client: client(Duration::from_secs(s.timeout_s.unwrap_or(300)))?,
            url: format!(
                "{}/v1/messages",
                base.trim_end_matches('/').trim_end_matches("/v1")
            ),
            key: api_key(Some(&key_env), &spec.name)?,
            model: s
                .model
                .clone()
                .ok_or_else(|| AgentError::NoModel(spec.name.clone()))?,
            policy: RetryPolicy::of(s),
        })
    }
}

/// The request body (public for tests of its shape).
pub fn messages_body(model: &str, req: &Request<'_>) -> Value {
    let messages: Vec<Value> = req
        .messages
        .iter()
        .map(|m| json!({ "role": m.role, "content": m.content }))
        .collect();
    let s = req.settings;
    let mut body = json!({
        "model": model,
        "system": req.system,
        "messages": messages,
        "max_tokens": s.max_tokens.unwrap_or(4096),
    });
    if let Some(t) = s.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(p) = s.top_p {
        body["top_p"] = json!(p);
    }
    body
}

/// Reads text and usage from a Messages API response (text blocks concatenated).
pub fn parse_messages(v: &Value, fallback_model: &str) -> Result<Completion, ReplyError> {
    let content = v
        .get("content")
        .and_then(|c| c.as_array())
        .ok_or_else(|| ReplyError::Shape {
            what: "content",
            reply: v.to_string().chars().take(200).collect(),
        })?;
    let text = content
        .iter()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("");
    let u = &v["usage"];
    let input = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ]
    .iter()
    .filter_map(|k| u[*k].as_u64())
    .sum();
    let usage = Usage {
        prompt_tokens: input,
        completion_tokens: u["output_tokens"].as_u64().unwrap_or(0),
    };
    let model = v["model"].as_str().unwrap_or(fallback_model).to_string();
    let truncated = v["stop_reason"].as_str() == Some("max_tokens");
    Ok(Completion {
        truncated,
        text,
        usage,
        model,
        ..Default::default()
    })
}

#[async_trait::async_trait]
impl Backend for Anthropic {
    async fn complete(&self, req: &Request<'_>) -> Result<Completion, BackendError> {
        let fail = |message: String| BackendError::Failed {
            agent: req.agent.to_string(),
            message,
        };
        let mut headers = vec![("anthropic-version", ANTHROPIC_VERSION.to_string())];
        if let Some(k) = &self.key {
            headers.push(("x-api-key", k.clone()));
        }
        let v = post_json(
            &self.client,
            &self.url,
            &headers,
            &messages_body(&self.model, req),
            &self.policy,
        )
        .await
        .map_err(|e| fail(e.to_string()))?;
        let mut c = parse_messages(&v, &self.model).map_err(|e| fail(e.to_string()))?;
        c.model = self.model.clone();
        Ok(c)
    }
}
