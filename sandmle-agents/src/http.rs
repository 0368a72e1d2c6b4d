//! [`HttpChatModel`]: core's [`ChatModel`] port over any OpenAI-compatible
//! chat-completions server (vLLM, SGLang, llama.cpp's server, Ollama, a
//! hosted API), with a blocking client (ureq).
//!
//! - **Requests**: `POST {base_url}/chat/completions` with the model, the
//!   messages (tool-call arguments as JSON strings, as the protocol wants),
//!   the tools as OpenAI function schemas, and the sampling settings. With
//!   [`HttpChatConfig::token_ids`] the request asks for vLLM's token ids
//!   and log-probabilities (`return_token_ids`, `logprobs`).
//! - **The key** is read once from the environment variable the config
//!   names; it is sent as a bearer token and never logged, printed or
//!   written (the model's `Debug` output omits it).
//! - **Retries**: a 429, a 5xx, a refused connection or a timeout is
//!   retried with exponential backoff and jitter drawn from a seeded
//!   stream, waiting what `Retry-After` asks where the server says (capped
//!   at [`HttpChatConfig::backoff_max`]), at most
//!   [`HttpChatConfig::max_attempts`] attempts in all. Every other 4xx is a
//!   typed error at once ([`Error::Http`]) with the server's message cut to
//!   a bounded line. A reply that is not the protocol's JSON is
//!   [`Error::BadReply`].

use crate::error::{Error, Result};
use rand::RngExt;
use sandmle_core::{
    ChatModel, ChatReply, FinishReason, Message, Role, Sampling, SeedRng, TokenTrace, ToolCall, ToolSpec, Usage,
    bounded, rng_for,
};
use serde_json::{Value, json};
use std::sync::Mutex;
use std::time::Duration;

/// Where and how to reach the server.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpChatConfig {
    /// The server's base URL, up to `/v1` (`http://127.0.0.1:8000/v1`).
    pub base_url: String,
    /// The model's name on the server.
    pub model: String,
    /// The environment variable holding the API key, if the server needs one.
    pub api_key_env: Option<String>,
    /// The limit of one request, connection to last byte (default 120 s).
    pub timeout: Duration,
    /// Attempts in all, retries included (default 5).
    pub max_attempts: u32,
    /// The first backoff (default 0.5 s), doubled per retry.
    pub backoff_base: Duration,
    /// The longest wait between attempts (default 30 s), `Retry-After` included.
    pub backoff_max: Duration,
    /// The seed of the backoff jitter.
    pub jitter_seed: u64,
    /// Ask for token ids and log-probabilities (vLLM).
    pub token_ids: bool,
    /// The largest reply read, in bytes (default 16 MiB).
    pub max_reply_bytes: u64,
}

impl HttpChatConfig {
    /// A config for `model` at `base_url` with the defaults.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        HttpChatConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            timeout: Duration::from_secs(120),
            max_attempts: 5,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            jitter_seed: 0,
            token_ids: false,
            max_reply_bytes: 16 << 20,
        }
    }
}

/// The HTTP chat model.
pub struct HttpChatModel {
    config: HttpChatConfig,
    api_key: Option<String>,
    agent: ureq::Agent,
    jitter: Mutex<SeedRng>,
}

impl std::fmt::Debug for HttpChatModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpChatModel")
            .field("base_url", &self.config.base_url)
            .field("model", &self.config.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "(set)"))
            .finish_non_exhaustive()
    }
}

impl HttpChatModel {
    /// A model reaching `config`'s server; reads the API key from the
    /// process environment now.
    ///
    /// # Errors
    /// [`Error::BadSetting`] when the key's variable is named but unset or
    /// empty, the URL is not http(s), or `max_attempts` is 0.
    pub fn new(config: HttpChatConfig) -> Result<Self> {
        Self::with_key_lookup(config, |var| std::env::var(var).ok())
    }

    /// As [`HttpChatModel::new`], the key's variable looked up with
    /// `lookup` (a secrets store, or a test's own table).
    ///
    /// # Errors
    /// As [`HttpChatModel::new`].
    pub fn with_key_lookup(config: HttpChatConfig, lookup: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let bad = |reason: String| Error::BadSetting { setting: "chat model", reason };
        if !(config.base_url.starts_with("http://") || config.base_url.starts_with("https://")) {
            return Err(bad(format!("`{}` is not an http(s) URL", bounded(&config.base_url))));
        }
        if config.max_attempts == 0 {
            return Err(bad("max_attempts must be at least 1".into()));
        }
        let api_key = match &config.api_key_env {
            Some(var) => match lookup(var) {
                Some(k) if !k.is_empty() => Some(k),
                _ => return Err(bad(format!("the API key variable `{var}` is not set"))),
            },
            None => None,
        };
        // Redirects are never followed: a model server cannot send the
        // requests (and the key) on to another host.
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout))
            .max_redirects(0)
            .http_status_as_error(false)
            .build()
            .into();
        let jitter = Mutex::new(rng_for(config.jitter_seed, "http-backoff"));
        Ok(HttpChatModel { config, api_key, agent, jitter })
    }

    /// The request body for `messages`.
    pub fn request_body(&self, messages: &[Message], tools: &[ToolSpec], sampling: &Sampling) -> Value {
        let mut body = json!({
            "model": self.config.model,
            "messages": messages.iter().map(wire_message).collect::<Vec<_>>(),
        });
        let fields = [
            ("temperature", sampling.temperature.map(Value::from)),
            ("top_p", sampling.top_p.map(Value::from)),
            ("max_tokens", sampling.max_tokens.map(Value::from)),
            ("seed", sampling.seed.map(Value::from)),
            ("stop", (!sampling.stop.is_empty()).then(|| json!(sampling.stop))),
            (
                "tools",
                (!tools.is_empty()).then(|| {
                    json!(
                        tools
                            .iter()
                            .map(|t| json!({"type": "function", "function": {
                                "name": t.name, "description": t.description, "parameters": t.parameters
                            }}))
                            .collect::<Vec<_>>()
                    )
                }),
            ),
            ("logprobs", self.config.token_ids.then_some(Value::Bool(true))),
            ("return_token_ids", self.config.token_ids.then_some(Value::Bool(true))),
        ];
        if let Some(map) = body.as_object_mut() {
            for (k, v) in fields {
                if let Some(v) = v {
                    map.insert(k.into(), v);
                }
            }
        }
        body
    }

    /// The wait before retry `retry` (1-based): `Retry-After` if the server
    /// gave one, else exponential backoff with jitter in [0.5, 1.5).
    fn backoff(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let wait = match retry_after {
            Some(d) => d,
            None => {
                let exp = self.config.backoff_base.saturating_mul(1u32 << retry.saturating_sub(1).min(16));
                let factor: f64 = self.jitter.lock().map(|mut r| 0.5 + r.random::<f64>()).unwrap_or(1.0);
                exp.mul_f64(factor)
            }
        };
        wait.min(self.config.backoff_max)
    }

    fn attempt(&self, url: &str, body: &[u8]) -> std::result::Result<ChatReply, Attempted> {
        let mut request = self.agent.post(url).header("Content-Type", "application/json");
        if let Some(key) = &self.api_key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = match request.send(body) {
            Ok(r) => r,
            Err(e) => return Err(Attempted::Retry { reason: format!("transport: {e}"), after: None }),
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .and_then(|s| Duration::try_from_secs_f64(s).ok());
        let text = match response.body_mut().with_config().limit(self.config.max_reply_bytes).read_to_string() {
            Ok(t) => t,
            Err(e) => return Err(Attempted::Retry { reason: format!("reading the reply: {e}"), after: None }),
        };
        match status {
            200..=299 => parse_reply(&text).map_err(|reason| Attempted::Fail(Error::BadReply { reason })),
            429 | 500..=599 => Err(Attempted::Retry {
                reason: format!("HTTP {status}: {}", server_message(&text)),
                after: retry_after,
            }),
            _ => Err(Attempted::Fail(Error::Http { status, message: server_message(&text) })),
        }
    }
}

/// What one attempt came to, short of a reply.
enum Attempted {
    Retry { reason: String, after: Option<Duration> },
    Fail(Error),
}

impl ChatModel for HttpChatModel {
    fn name(&self) -> &str {
        &self.config.model
    }

    fn chat(&self, messages: &[Message], tools: &[ToolSpec], sampling: &Sampling) -> sandmle_core::Result<ChatReply> {
        let url = format!("{}/chat/completions", self.config.base_url.trim_end_matches('/'));
        let body = serde_json::to_vec(&self.request_body(messages, tools, sampling))
            .map_err(|e| Error::BadReply { reason: format!("encoding the request: {e}") })?;
        let mut last = String::new();
        for attempt in 1..=self.config.max_attempts {
            match self.attempt(&url, &body) {
                Ok(reply) => return Ok(reply),
                Err(Attempted::Fail(e)) => return Err(e.into()),
                Err(Attempted::Retry { reason, after }) => {
                    last = reason;
                    if attempt < self.config.max_attempts {
                        std::thread::sleep(self.backoff(attempt, after));
                    }
                }
            }
        }
        Err(Error::Unavailable { attempts: self.config.max_attempts, reason: bounded(&last) }.into())
    }
}

/// A message in the protocol's shape (tool-call arguments as JSON text).
fn wire_message(m: &Message) -> Value {
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut v = json!({"role": role, "content": m.content});
    if let Some(map) = v.as_object_mut() {
        if !m.tool_calls.is_empty() {
            let calls: Vec<Value> = m
                .tool_calls
                .iter()
                .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments.to_string()}}))
                .collect();
            map.insert("tool_calls".into(), Value::Array(calls));
        }
        if let Some(id) = &m.tool_call_id {
            map.insert("tool_call_id".into(), Value::String(id.clone()));
        }
    }
    v
}

/// The server's error message, bounded.
fn server_message(text: &str) -> String {
    let v: Option<Value> = serde_json::from_str(text).ok();
    let message = v
        .as_ref()
        .and_then(|v| v.pointer("/error/message").or_else(|| v.get("message")).or_else(|| v.get("detail")))
        .and_then(Value::as_str)
        .map_or_else(|| text.to_owned(), str::to_owned);
    bounded(&message)
}

/// A chat-completions reply.
pub fn parse_reply(text: &str) -> std::result::Result<ChatReply, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let choice = v.pointer("/choices/0").ok_or("no choices")?;
    let message = choice.get("message").ok_or("the choice has no message")?;
    let content = message.get("content").and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut tool_calls = Vec::new();
    for call in message.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
        let id = call.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
        let f = call.get("function").ok_or("a tool call has no function")?;
        let name = f.get("name").and_then(Value::as_str).ok_or("a tool call has no name")?.to_owned();
        let arguments = match f.get("arguments") {
            Some(Value::String(s)) => serde_json::from_str(s).unwrap_or(Value::String(s.clone())),
            Some(other) => other.clone(),
            None => Value::Object(Default::default()),
        };
        tool_calls.push(ToolCall { id, name, arguments });
    }
    let finish_reason = match choice.get("finish_reason").and_then(Value::as_str) {
        Some("stop") | None => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some("tool_calls") => FinishReason::ToolCalls,
        Some("content_filter") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(bounded(other)),
    };
    let usage = v.get("usage").map(|u| Usage {
        prompt_tokens: u.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        completion_tokens: u.get("completion_tokens").and_then(Value::as_u64).unwrap_or(0),
    });
    let ids = |x: Option<&Value>| -> Vec<u32> {
        x.and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_u64).filter_map(|i| u32::try_from(i).ok()).collect())
            .unwrap_or_default()
    };
    let completion_ids = ids(choice.get("token_ids"));
    let logprobs: Vec<f64> = choice
        .pointer("/logprobs/content")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|t| t.get("logprob").and_then(Value::as_f64)).collect())
        .unwrap_or_default();
    let prompt_ids = ids(v.get("prompt_token_ids").or_else(|| choice.get("prompt_token_ids")));
    let tokens = (!completion_ids.is_empty() || !logprobs.is_empty()).then_some(TokenTrace {
        prompt_ids,
        completion_ids,
        logprobs,
    });
    Ok(ChatReply {
        message: Message { role: Role::Assistant, content, tool_calls, tool_call_id: None },
        finish_reason,
        usage,
        tokens,
    })
}
