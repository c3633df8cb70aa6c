//! A fault-injecting HTTP server on loopback, for tests only: it answers chat requests from
//! per-role queues of scripted responses (successes, 429s, 500s, hangs, malformed and truncated
//! bodies) and records every request it receives.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// One scripted answer.
#[derive(Clone, Debug)]
pub(crate) enum Fault {
    /// 200 with this JSON body.
    Ok(Value),
    /// This status, extra headers and body.
    Status(u16, Vec<(String, String)>, String),
    /// Say nothing for this long, then close.
    Hang(Duration),
    /// 200 whose declared length is longer than what is sent before the connection closes.
    Truncated,
    /// 200 with a body that is not JSON.
    Malformed,
}

/// A request as received.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: Value,
    pub role: String,
}

/// The server: queues by role (`coder` or `tester`, told apart by the system prompt).
pub(crate) struct FaultServer {
    pub port: u16,
    queues: Arc<Mutex<HashMap<String, VecDeque<Fault>>>>,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

fn role_of(body: &Value) -> String {
    let system = body["system"]
        .as_str()
        .map(String::from)
        .unwrap_or_else(|| {
            body["messages"]
                .as_array()
                .and_then(|m| m.first())
                .and_then(|m| m["content"].as_str())
                .unwrap_or("")
                .to_string()
        });
    if system.contains("quality engineer") {
        "tester".into()
    } else {
        "coder".into()
    }
}

impl FaultServer {
    pub(crate) fn start() -> FaultServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let queues: Arc<Mutex<HashMap<String, VecDeque<Fault>>>> = Arc::default();
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let (q, s) = (queues.clone(), seen.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (q, s) = (q.clone(), s.clone());
                std::thread::spawn(move || handle(stream, q, s));
            }
        });
        FaultServer { port, queues, seen }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Appends answers to a role's queue (an empty queue answers 503).
    pub(crate) fn push(&self, role: &str, faults: impl IntoIterator<Item = Fault>) {
        self.queues
            .lock()
            .unwrap()
            .entry(role.to_string())
            .or_default()
            .extend(faults);
    }

    pub(crate) fn seen(&self, role: &str) -> Vec<Seen> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.role == role)
            .cloned()
            .collect()
    }
}

fn handle(
    stream: TcpStream,
    queues: Arc<Mutex<HashMap<String, VecDeque<Fault>>>>,
    seen: Arc<Mutex<Vec<Seen>>>,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
        let len: usize = headers
            .get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let role = role_of(&body);
        seen.lock().unwrap().push(Seen {
            path,
            headers,
            body,
            role: role.clone(),
        });
        let fault = queues
            .lock()
            .unwrap()
            .get_mut(&role)
            .and_then(|q| q.pop_front());
        let mut out = stream.try_clone().unwrap();
        let respond = |out: &mut TcpStream, status: u16, extra: &[(String, String)], body: &str| {
            let mut r = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
                body.len()
            );
            for (k, v) in extra {
                r.push_str(&format!("{k}: {v}\r\n"));
            }
            r.push_str("\r\n");
            r.push_str(body);
            let _ = out.write_all(r.as_bytes());
        };
        match fault {
            None => respond(
                &mut out,
                503,
                &[],
                "{\"error\":\"the fault server has no scripted answer\"}",
            ),
            Some(Fault::Ok(v)) => respond(&mut out, 200, &[], &v.to_string()),
            Some(Fault::Status(code, h, b)) => respond(&mut out, code, &h, &b),
            Some(Fault::Hang(d)) => {
                std::thread::sleep(d);
                return;
            }
            Some(Fault::Truncated) => {
                let _ = out.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\r\n{\"choices\": [");
                let _ = out.flush();
                return;
            }
            Some(Fault::Malformed) => {
                respond(&mut out, 200, &[], "{\"choices\": [ this is not json")
            }
        }
    }
}

/// An OpenAI chat-completions response with this content and usage.
pub(crate) fn openai_reply(content: &str, prompt_tokens: u64, completion_tokens: u64) -> Value {
    serde_json::json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens}
    })
}

/// A Messages API response in Anthropic's real format.
pub(crate) fn anthropic_reply(text: &str, input: u64, cache_read: u64, output: u64) -> Value {
    serde_json::json!({
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": null,
        "usage": {"input_tokens": input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": cache_read, "output_tokens": output}
    })
}
