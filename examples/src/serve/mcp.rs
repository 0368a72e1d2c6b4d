//! `POST /mcp`: the episode's tools over JSON-RPC 2.0, as OpenEnv's servers
//! offer them (and MCP clients call them).
//!
//! Every answer is HTTP 200 with one JSON-RPC object, errors included
//! (`-32700` parse error, `-32600` invalid request, `-32601` unknown
//! method, `-32602` bad params, `-32603` a failure carrying the call out,
//! `-32000` no session slot), but a notification (a request without `id`
//! whose method starts with `notifications/`), which gets `202` and no
//! body. Methods:
//!
//! - `initialize` → the MCP handshake's result (protocol version, the
//!   `tools` capability, `serverInfo`); `ping` → `{}`.
//! - `openenv/session/create` (params: `reset`'s options; the codec
//!   defaults to `openai_tools`) → `{"session_id", "messages", "tools"}`:
//!   an episode reset, its prompt and tools. It holds a session slot until
//!   `openenv/session/close` (`{"session_id"}`), or until it is idle for
//!   the server's idle timeout.
//! - `tools/list` (`{"session_id"?}`) → `{"tools": [{"name",
//!   "description", "inputSchema", "input_schema"}]}`: the session's tools
//!   (default: `PythonInterpreter`, `RunPipeline`, `Score`), and `Finish`
//!   (`{"answer"}`), which ends the episode.
//! - `tools/call` (`{"name", "arguments", "session_id"?}`) → `{"content":
//!   [{"type": "text", "text"}], "structuredContent": {"reward", "done",
//!   "info"}, "isError", "data"}`: one step of the session's episode —
//!   or, without a session, of a fresh one (reset, the call, closed), as
//!   the stateless `POST /step`.

use super::http::{CancelOnDrop, cancellable, capacity};
use super::protocol::{self, WireError};
use super::{Shared, mix, rand_u64, wire};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use sandmle_agents::env::Step;
use sandmle_agents::{Episode, ToolSet};
use sandmle_core::{Cancel, Message, ToolCall};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::OwnedSemaphorePermit;

/// The MCP protocol version `initialize` answers with when the client
/// names none.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// The tool that ends an episode with an answer.
pub const FINISH_TOOL: &str = "Finish";

/// A JSON-RPC error.
struct RpcError {
    code: i64,
    message: String,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError { code, message: message.into() }
    }

    fn params(message: impl Into<String>) -> Self {
        RpcError::new(-32602, message)
    }
}

impl From<WireError> for RpcError {
    fn from(e: WireError) -> Self {
        use super::protocol::ErrorCode as C;
        let code = match e.code {
            C::InvalidJson | C::ValidationError => -32602,
            C::CapacityReached => -32000,
            _ => -32603,
        };
        RpcError::new(code, e.message)
    }
}

/// One MCP session: an episode, its slot, and when it was last used.
pub(super) struct McpSession {
    episode: tokio::sync::Mutex<Option<Episode>>,
    last_used: Mutex<Instant>,
    cancel: Cancel,
    _slot: OwnedSemaphorePermit,
}

/// The open MCP sessions, by id.
#[derive(Default)]
pub(super) struct McpSessions {
    open: Mutex<BTreeMap<String, Arc<McpSession>>>,
}

impl McpSessions {
    fn get(&self, id: &str) -> Option<Arc<McpSession>> {
        let s = self.open.lock().ok()?.get(id).cloned();
        if let Some(s) = &s
            && let Ok(mut t) = s.last_used.lock()
        {
            *t = Instant::now();
        }
        s
    }

    fn take(&self, id: &str) -> Option<Arc<McpSession>> {
        self.open.lock().ok()?.remove(id)
    }

    /// Removes the sessions idle for `idle` or longer (all with `None`).
    fn take_idle(&self, idle: Option<Duration>) -> Vec<Arc<McpSession>> {
        let Ok(mut open) = self.open.lock() else { return Vec::new() };
        let stale: Vec<String> = open
            .iter()
            .filter(|(_, s)| idle.is_none_or(|d| s.last_used.lock().is_ok_and(|t| t.elapsed() >= d)))
            .map(|(k, _)| k.clone())
            .collect();
        stale.iter().filter_map(|k| open.remove(k)).collect()
    }
}

/// Closes `sessions` (their programs killed, workspaces removed, slots
/// freed).
async fn close_all(sessions: Vec<Arc<McpSession>>) {
    for s in sessions {
        s.cancel.cancel();
        let taken = s.episode.lock().await.take();
        if let Some(mut e) = taken {
            let _ = super::blocking(move || e.close()).await;
        }
    }
}

/// Reaps idle MCP sessions until the server stops, then closes them all.
pub(super) async fn reaper(shared: Arc<Shared>) {
    let every = (shared.config.idle_timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
    let mut stop = shared.shutdown.clone();
    loop {
        tokio::select! {
            () = super::stopping(&mut stop) => break,
            () = tokio::time::sleep(every) => {
                close_all(shared.mcp.take_idle(Some(shared.config.idle_timeout))).await;
            }
        }
    }
    close_all(shared.mcp.take_idle(None)).await;
}

fn reply(id: &Value, result: Result<Value, RpcError>) -> Response {
    let body = match result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.code, "message": e.message, "data": null}}),
    };
    axum::Json(body).into_response()
}

pub(super) async fn http_mcp(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let request: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => return reply(&Value::Null, Err(RpcError::new(-32700, format!("Parse error: {e}")))),
    };
    let Value::Object(mut request) = request else {
        return reply(&Value::Null, Err(RpcError::new(-32600, "Invalid Request: not a JSON-RPC object")));
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    if !matches!(id, Value::Null | Value::String(_) | Value::Number(_)) {
        return reply(&Value::Null, Err(RpcError::new(-32600, "Invalid Request: `id` is a string or a number")));
    }
    let (Some(Value::String(version)), Some(Value::String(method))) = (request.get("jsonrpc"), request.get("method"))
    else {
        return reply(&id, Err(RpcError::new(-32600, "Invalid Request: `jsonrpc` \"2.0\" and `method` are required")));
    };
    if version != "2.0" {
        return reply(&id, Err(RpcError::new(-32600, "Invalid Request: `jsonrpc` must be \"2.0\"")));
    }
    let method = method.clone();
    if !request.contains_key("id") && method.starts_with("notifications/") {
        return StatusCode::ACCEPTED.into_response();
    }
    let params = match request.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return reply(&id, Err(RpcError::params("Params must be an object"))),
    };
    reply(&id, call(&shared, &method, params).await)
}

async fn call(shared: &Arc<Shared>, method: &str, mut params: Map<String, Value>) -> Result<Value, RpcError> {
    match method {
        "initialize" => {
            let version = params.get("protocolVersion").and_then(Value::as_str).unwrap_or(PROTOCOL_VERSION);
            Ok(json!({
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": false}},
                "serverInfo": {"name": "sandmle", "version": env!("CARGO_PKG_VERSION")},
            }))
        }
        "ping" => Ok(json!({})),
        "openenv/session/create" => create(shared, params).await,
        "openenv/session/close" => {
            let id = session_id(&params)?.ok_or_else(|| RpcError::params("Missing 'session_id' in params"))?;
            let session = shared.mcp.take(&id).ok_or_else(|| RpcError::params(format!("Unknown session_id: {id}")))?;
            close_all(vec![session]).await;
            Ok(json!({"session_id": id, "closed": true}))
        }
        "tools/list" => {
            let tools = match session_id(&params)? {
                Some(id) => {
                    let session = known(shared, &id)?;
                    let guard = session.episode.lock().await;
                    guard.as_ref().map(|e| e.config().tools).unwrap_or_default()
                }
                None => ToolSet { code: true, pipeline: true },
            };
            Ok(json!({"tools": tool_list(&tools)}))
        }
        "tools/call" => {
            let name = match params.remove("name") {
                Some(Value::String(n)) => n,
                _ => return Err(RpcError::params("Missing 'name' in params")),
            };
            let arguments = match params.remove("arguments") {
                None | Some(Value::Null) => json!({}),
                Some(v @ Value::Object(_)) => v,
                Some(_) => return Err(RpcError::params("'arguments' must be an object")),
            };
            let message = tool_message(&name, arguments);
            let step = match session_id(&params)? {
                Some(id) => session_step(shared, &id, message).await?,
                None => fresh_step(shared, params, message).await?,
            };
            Ok(call_result(&step))
        }
        other => Err(RpcError::new(-32601, format!("Method not found: {other}"))),
    }
}

fn session_id(params: &Map<String, Value>) -> Result<Option<String>, RpcError> {
    match params.get("session_id") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(RpcError::params("'session_id' must be a string")),
    }
}

fn known(shared: &Shared, id: &str) -> Result<Arc<McpSession>, RpcError> {
    shared.mcp.get(id).ok_or_else(|| RpcError::params(format!("Unknown session_id: {id}")))
}

/// Reset options from MCP params: the codec defaults to `openai_tools`.
fn options(mut params: Map<String, Value>) -> Result<protocol::ResetOptions, RpcError> {
    params.remove("session_id");
    params.entry("codec").or_insert_with(|| json!("openai_tools"));
    Ok(protocol::parse_reset(Some(Value::Object(params)))?)
}

async fn create(shared: &Arc<Shared>, params: Map<String, Value>) -> Result<Value, RpcError> {
    let opts = options(params)?;
    let slot = capacity(shared)?;
    let s = Arc::clone(shared);
    let cancel = Cancel::new();
    let c = cancel.clone();
    let (episode, reset) = cancellable(shared, cancel.clone(), move || {
        let mut e = s.episode(&opts)?;
        e.set_cancel(c);
        let reset = e.reset().map_err(wire)?;
        Ok::<_, WireError>((e, reset))
    })
    .await??;
    let id = format!("mcp-{:016x}", mix(rand_u64()));
    let tools = tool_list(&episode.config().tools);
    let session = McpSession {
        episode: tokio::sync::Mutex::new(Some(episode)),
        last_used: Mutex::new(Instant::now()),
        cancel,
        _slot: slot,
    };
    if let Ok(mut open) = shared.mcp.open.lock() {
        open.insert(id.clone(), Arc::new(session));
    }
    Ok(json!({"session_id": id, "messages": reset.messages, "tools": tools}))
}

async fn session_step(shared: &Arc<Shared>, id: &str, message: Message) -> Result<Step, RpcError> {
    let session = known(shared, id)?;
    let mut guard = session.episode.lock().await;
    let mut e = guard.take().ok_or_else(|| RpcError::new(-32603, "the session's episode is closed"))?;
    let (e, step) = super::blocking(move || {
        let step = e.step_message(message);
        (e, step)
    })
    .await?;
    *guard = Some(e);
    Ok(step.map_err(wire)?)
}

async fn fresh_step(shared: &Arc<Shared>, params: Map<String, Value>, message: Message) -> Result<Step, RpcError> {
    let opts = options(params)?;
    let slot = capacity(shared)?;
    let s = Arc::clone(shared);
    let cancel = Cancel::new();
    let c = cancel.clone();
    let _guard = CancelOnDrop(cancel.clone());
    let step = cancellable(shared, cancel, move || {
        let _slot = slot;
        let mut e = s.episode(&opts)?;
        e.set_cancel(c);
        let step = e.reset().and_then(|_| e.step_message(message)).map_err(wire);
        e.close();
        step
    })
    .await??;
    Ok(step)
}

/// The assistant message a tool call stands for.
fn tool_message(name: &str, arguments: Value) -> Message {
    if name == FINISH_TOOL {
        let answer = arguments.get("answer").and_then(Value::as_str).unwrap_or("submission.csv");
        return Message::assistant(format!("<answer>{answer}</answer>"));
    }
    let mut m = Message::assistant("");
    m.tool_calls.push(ToolCall { id: "call_0".into(), name: name.to_owned(), arguments });
    m
}

/// The MCP tool list of `tools`, with `Finish`.
fn tool_list(tools: &ToolSet) -> Vec<Value> {
    let mut list: Vec<Value> = sandmle_agents::codec::tool_specs(tools)
        .into_iter()
        .map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.parameters, "input_schema": t.parameters}))
        .collect();
    let finish = json!({"type": "object", "properties": {"answer": {"type": "string", "description": "The final answer (the submission file's name)"}}, "required": []});
    list.push(json!({
        "name": FINISH_TOOL,
        "description": "End the episode: submission.csv as it is now is graded.",
        "inputSchema": finish,
        "input_schema": finish,
    }));
    list
}

/// A step as a `tools/call` result.
fn call_result(step: &Step) -> Value {
    let text: Vec<&str> = step.observation.iter().map(|m| m.content.as_str()).collect();
    let done = step.terminated || step.truncated;
    let structured = json!({"reward": step.reward, "done": done, "info": step.info});
    json!({
        "content": [{"type": "text", "text": text.join("\n")}],
        "structuredContent": structured,
        "isError": step.info.record.status == "malformed",
        "data": structured,
    })
}
