//! The HTTP layer of the API backends: one POST with connect/read timeouts, retried with
//! exponential backoff and jitter on 429, 5xx, timeouts, dropped connections and unreadable
//! bodies (honouring `Retry-After`), and a clear error after the last attempt.

use std::time::Duration;

use serde_json::Value;

use super::error::{AgentError, ReplyError};

/// Retry policy of one backend.
#[derive(Clone, Debug)]
pub(super) struct RetryPolicy {
    /// Attempts in all (the first plus retries).
    pub attempts: u32,
    /// Backoff before retry k is `base · 2^k` plus up to 50 % jitter, capped at `max_delay`.
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl RetryPolicy {
    pub(super) fn new(attempts: u32) -> Self {
        RetryPolicy {
            attempts: attempts.max(1),
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
        }
    }

    /// The policy an agent's settings ask for.
    pub(super) fn of(s: &crate::config::AgentSettings) -> Self {
        let mut p = RetryPolicy::new(s.retries.unwrap_or(4));
        if let Some(ms) = s.retry_delay_ms {
            p.base_delay = Duration::from_millis(ms);
        }
        p
    }

    fn backoff(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(ra) = retry_after {
            return ra.min(self.max_delay);
        }
        let exp = self.base_delay.saturating_mul(1u32 << retry.min(16));
        let jitter = exp.mul_f64(rand::random::<f64>() * 0.5);
        (exp + jitter).min(self.max_delay)
    }
}

/// A client with the connect and read timeouts of one agent.
pub(super) fn client(timeout: Duration) -> Result<reqwest::Client, AgentError> {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10).min(timeout))
        .timeout(timeout)
        .build()
        .map_err(|e| AgentError::HttpClient(e.to_string()))
}

/// POSTs `body` as JSON and returns the parsed JSON reply, retrying transient failures.
pub(super) async fn post_json(
    client: &reqwest::Client,
    url: &str,
    headers: &[(&str, String)],
    body: &Value,
    policy: &RetryPolicy,
) -> Result<Value, ReplyError> {
    let mut last = String::new();
    for attempt in 0..policy.attempts {
        let mut rb = client.post(url).json(body);
        for (k, v) in headers {
            rb = rb.header(*k, v);
        }
        let (retryable, retry_after, message) = match rb.send().await {
            Err(e) => (true, None, describe(&e)),
            Ok(resp) => {
                let status = resp.status();
                let retry_after = resp
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .map(Duration::from_secs_f64);
                match resp.bytes().await {
                    Err(e) => (
                        true,
                        None,
                        format!("{status}, but the body could not be read: {}", describe(&e)),
                    ),
                    Ok(bytes) if status.is_success() => {
                        match serde_json::from_slice::<Value>(&bytes) {
                            Ok(v) => return Ok(v),
                            Err(e) => (
                                true,
                                None,
                                format!(
                                    "{status}, but the body is not JSON ({e}): {}",
                                    snippet(&bytes)
                                ),
                            ),
                        }
                    }
                    Ok(bytes) => {
                        let transient = status.as_u16() == 429
                            || status.as_u16() == 408
                            || status.is_server_error();
                        (
                            transient,
                            retry_after,
                            format!("{status}: {}", snippet(&bytes)),
                        )
                    }
                }
            }
        };
        last = message;
        if !retryable || attempt + 1 == policy.attempts {
            break;
        }
        let wait = policy.backoff(attempt, retry_after);
        tracing::warn!(
            "POST {url}: {last}; retrying in {:.1} s",
            wait.as_secs_f64()
        );
        tokio::time::sleep(wait).await;
    }
    Err(ReplyError::Post {
        url: url.to_string(),
        attempts: policy.attempts,
        last,
    })
}

fn describe(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "timed out".into()
    } else if e.is_connect() {
        format!("cannot connect ({})", root(e))
    } else {
        root(e)
    }
}

fn root(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(x) = src {
        s = x.to_string();
        src = x.source();
    }
    s
}

fn snippet(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    let s = s.trim();
    if s.chars().count() > 300 {
        format!("{}…", s.chars().take(300).collect::<String>())
    } else {
        s.to_string()
    }
}

/// The API key from the environment variable named in the config (if any).
pub(super) fn api_key(env_name: Option<&str>, agent: &str) -> Result<Option<String>, AgentError> {
    match env_name {
        None => Ok(None),
        Some(n) => std::env::var(n).map(Some).map_err(|_| AgentError::NoKey {
            agent: agent.to_string(),
            variable: n.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_with_jitter_and_honours_retry_after() {
        let p = RetryPolicy::new(5);
        for k in 0..4 {
            let d = p.backoff(k, None);
            let base = p.base_delay * (1 << k);
            assert!(d >= base && d <= base.mul_f64(1.5), "{k}: {d:?}");
        }
        assert_eq!(
            p.backoff(0, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        assert_eq!(p.backoff(0, Some(Duration::from_secs(3600))), p.max_delay);
    }
}
