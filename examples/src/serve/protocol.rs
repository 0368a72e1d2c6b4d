//! The wire shapes of OpenEnv's protocol as `sandmle serve` speaks them:
//! the messages in and out, the error codes, the reset options, the action,
//! and the JSON Schemas `/schema` publishes.

use sandmle_agents::env::{Reset, Step};
use sandmle_agents::{Episode, Termination};
use sandmle_core::{Message, ToolCall};
use serde::Deserialize;
use serde_json::{Value, json};

/// OpenEnv's WebSocket error codes (`openenv.core.env_server.types.WSErrorCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// The message is not JSON.
    InvalidJson,
    /// The message's `type` is none of reset, step, state, close.
    UnknownType,
    /// The message or its data does not have the expected shape.
    ValidationError,
    /// The environment failed to carry the request out.
    ExecutionError,
    /// Every session slot is taken.
    CapacityReached,
    /// The environment could not be created.
    FactoryError,
    /// The session itself failed.
    SessionError,
}

impl ErrorCode {
    /// The code of a failure of `kind` (core's one table).
    pub fn of_kind(kind: sandmle_core::FailureKind) -> ErrorCode {
        match kind.wire_code() {
            "VALIDATION_ERROR" => ErrorCode::ValidationError,
            "FACTORY_ERROR" => ErrorCode::FactoryError,
            _ => ErrorCode::ExecutionError,
        }
    }

    /// The code as sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidJson => "INVALID_JSON",
            ErrorCode::UnknownType => "UNKNOWN_TYPE",
            ErrorCode::ValidationError => "VALIDATION_ERROR",
            ErrorCode::ExecutionError => "EXECUTION_ERROR",
            ErrorCode::CapacityReached => "CAPACITY_REACHED",
            ErrorCode::FactoryError => "FACTORY_ERROR",
            ErrorCode::SessionError => "SESSION_ERROR",
        }
    }
}

/// A request that failed: an OpenEnv error code and a message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message} ({})", code.as_str())]
pub struct WireError {
    /// The code.
    pub code: ErrorCode,
    /// What went wrong, for a person.
    pub message: String,
}

impl WireError {
    /// An error with `code`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        WireError { code, message: message.into() }
    }

    /// The `{"type": "error", "data": {"message", "code"}}` frame.
    pub fn frame(&self) -> Value {
        json!({"type": "error", "data": {"message": self.message, "code": self.code.as_str()}})
    }
}

/// The reset options (OpenEnv's `ResetRequest`: `seed` and `episode_id`,
/// plus this server's own keys, and the episode's options, parsed and
/// checked where every front end parses them:
/// [`sandmle_agents::EpisodeOptions`]). Unknown keys are ignored, as
/// OpenEnv ignores keys its environment's `reset` does not take.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ResetOptions {
    /// Draws the environment (when `task_id` is absent) reproducibly.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The caller's name for the episode (at most 255 characters).
    #[serde(default)]
    pub episode_id: Option<String>,
    /// An environment by its content id or its directory's name.
    #[serde(default, alias = "env_id")]
    pub task_id: Option<String>,
    /// Without `task_id`: draw the environment from this split (`train`,
    /// `validation` or `test`; see `GET /tasks`).
    #[serde(default)]
    pub split: Option<String>,
    /// Without `task_id`: draw the environment from this difficulty band
    /// (1, easiest for stock baselines, to 5; see `GET /tasks`), within
    /// `split` when both are given.
    #[serde(default)]
    pub band: Option<u8>,
    /// The episode's options: `codec`, `reward`, `reward_mode`,
    /// `max_turns`, `step_timeout_s`, `episode_time_s`, `tools`, `graded`.
    #[serde(flatten)]
    pub episode: sandmle_agents::EpisodeOptions,
}

/// A step's action: an assistant message — its text (parsed by the
/// session's codec) and/or the tool calls a trainer parsed itself.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepAction {
    /// The assistant's raw text.
    #[serde(default, alias = "text")]
    pub content: String,
    /// Native tool calls (`openai_tools`).
    #[serde(default)]
    pub tool_calls: Vec<WireToolCall>,
    /// OpenEnv's `Action.metadata`: accepted and ignored.
    #[serde(default)]
    pub metadata: Option<Value>,
}

/// A tool call in an action.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireToolCall {
    /// The call's id (defaults to `call_N`).
    #[serde(default)]
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// Its arguments: an object, or a string holding JSON.
    #[serde(default)]
    pub arguments: Value,
}

impl StepAction {
    /// The action as an assistant message.
    pub fn message(self) -> Message {
        let mut m = Message::assistant(self.content);
        for (i, c) in self.tool_calls.into_iter().enumerate() {
            let arguments = match c.arguments {
                Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
                Value::Null => json!({}),
                v => v,
            };
            m.tool_calls.push(ToolCall { id: c.id.unwrap_or_else(|| format!("call_{i}")), name: c.name, arguments });
        }
        m
    }
}

/// Parses a step's `data` into an action.
///
/// # Errors
/// [`ErrorCode::ValidationError`] for anything but an object of the
/// action's fields.
pub fn parse_action(data: Value) -> Result<StepAction, WireError> {
    serde_json::from_value(data).map_err(|e| WireError::new(ErrorCode::ValidationError, format!("invalid action: {e}")))
}

/// Parses a reset's `data` (absent or null means no options).
///
/// # Errors
/// [`ErrorCode::ValidationError`] for a malformed option.
pub fn parse_reset(data: Option<Value>) -> Result<ResetOptions, WireError> {
    match data {
        None | Some(Value::Null) => Ok(ResetOptions::default()),
        Some(v) => {
            let o: ResetOptions = serde_json::from_value(v)
                .map_err(|e| WireError::new(ErrorCode::ValidationError, format!("invalid reset options: {e}")))?;
            if o.episode_id.as_ref().is_some_and(|e| e.chars().count() > 255) {
                return Err(WireError::new(ErrorCode::ValidationError, "episode_id: at most 255 characters"));
            }
            Ok(o)
        }
    }
}

/// What `reset` sends back: OpenEnv's `{observation, reward, done}`.
pub fn reset_payload(reset: &Reset, episode_id: &str) -> Value {
    json!({
        "observation": {
            "messages": reset.messages,
            "tools": reset.tools,
            "info": reset.info,
            "episode_id": episode_id,
            "terminated": false,
            "truncated": false,
        },
        "reward": Value::Null,
        "done": false,
    })
}

/// What `step` sends back: OpenEnv's `{observation, reward, done}`, with
/// gymnasium's `terminated`/`truncated` and the step's info inside the
/// observation.
pub fn step_payload(step: &Step) -> Value {
    json!({
        "observation": {
            "messages": step.observation,
            "info": step.info,
            "terminated": step.terminated,
            "truncated": step.truncated,
        },
        "reward": step.reward,
        "done": step.terminated || step.truncated,
    })
}

/// What `state` sends back (OpenEnv's `State`: `episode_id`, `step_count`,
/// and this environment's extra fields).
pub fn state_payload(episode: Option<&Episode>, episode_id: Option<&str>) -> Value {
    let Some(e) = episode else {
        return json!({"episode_id": episode_id, "step_count": 0, "done": false});
    };
    let total = e.outcome().map(|(v, _)| v.value);
    json!({
        "episode_id": episode_id,
        "step_count": e.steps().len(),
        "task_id": e.task().id(),
        "codec": e.codec_name(),
        "reward_scheme": e.reward_name(),
        "done": e.termination().is_some(),
        "termination": e.termination().map(|t: Termination| json!(t)),
        "total_reward": total,
        "rewards": e.steps().iter().map(|s| s.reward).collect::<Vec<_>>(),
    })
}

/// The JSON Schemas of the action, the observation and the state, as
/// OpenEnv's `GET /schema` returns them.
pub fn schemas() -> Value {
    let message = json!({
        "type": "object",
        "properties": {
            "role": {"type": "string", "enum": ["system", "user", "assistant", "tool"]},
            "content": {"type": "string"},
            "tool_calls": {"type": "array", "items": {"$ref": "#/$defs/ToolCall"}},
            "tool_call_id": {"type": "string"}
        },
        "required": ["role", "content"]
    });
    let tool_call = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "name": {"type": "string"},
            "arguments": {"type": ["object", "string"]}
        },
        "required": ["name"],
        "additionalProperties": false
    });
    json!({
        "action": {
            "title": "SandmleAction",
            "description": "One assistant turn: its raw text (parsed by the session's codec) and/or native tool calls.",
            "type": "object",
            "properties": {
                "content": {"type": "string", "default": "", "description": "The assistant's raw text."},
                "tool_calls": {"type": "array", "items": {"$ref": "#/$defs/ToolCall"}, "default": []},
                "metadata": {"type": "object", "default": {}}
            },
            "additionalProperties": false,
            "$defs": {"ToolCall": tool_call}
        },
        "observation": {
            "title": "SandmleObservation",
            "type": "object",
            "properties": {
                "messages": {"type": "array", "items": {"$ref": "#/$defs/Message"},
                    "description": "On reset the prompt (system, user); on a step the messages returning the tool's result."},
                "tools": {"type": "array", "description": "On reset: the tool schemas (OpenAI function JSON)."},
                "info": {"type": "object", "description": "Task id, budgets and codec on reset; the step's record, and on the last step the total reward, its breakdown and the final grade."},
                "episode_id": {"type": "string"},
                "terminated": {"type": "boolean"},
                "truncated": {"type": "boolean"},
                "done": {"type": "boolean"},
                "reward": {"type": ["number", "null"]}
            },
            "required": ["messages", "info", "terminated", "truncated"],
            "$defs": {"Message": message, "ToolCall": tool_call}
        },
        "state": {
            "title": "SandmleState",
            "type": "object",
            "properties": {
                "episode_id": {"type": ["string", "null"]},
                "step_count": {"type": "integer", "minimum": 0},
                "task_id": {"type": "string"},
                "codec": {"type": "string"},
                "reward_scheme": {"type": "string"},
                "done": {"type": "boolean"},
                "termination": {"type": ["string", "null"]},
                "total_reward": {"type": ["number", "null"]},
                "rewards": {"type": "array", "items": {"type": "number"}}
            },
            "required": ["episode_id", "step_count"],
            "additionalProperties": true
        }
    })
}

/// The reset options' JSON Schema (for the OpenAPI document).
pub fn reset_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "seed": {"type": "integer", "minimum": 0},
            "episode_id": {"type": "string", "maxLength": 255},
            "task_id": {"type": "string", "description": "An environment's content id or directory name; otherwise drawn by seed."},
            "codec": {"type": "string", "enum": sandmle_agents::codec::CODECS},
            "reward": {"type": "string", "enum": sandmle_agents::reward::REWARD_SCHEMES},
            "reward_mode": {"type": "string", "enum": ["delta", "terminal"]},
            "max_turns": {"type": "integer", "minimum": 1},
            "step_timeout_s": {"type": "number", "exclusiveMinimum": 0},
            "episode_time_s": {"type": "number", "exclusiveMinimum": 0},
            "tools": {"type": "array", "items": {"type": "string", "enum": ["python", "pipeline"]}}
        },
        "additionalProperties": true
    })
}

/// An OpenAPI 3.1 document of the HTTP routes.
pub fn openapi() -> Value {
    let s = schemas();
    let result = json!({
        "type": "object",
        "properties": {"observation": s["observation"], "reward": {"type": ["number", "null"]}, "done": {"type": "boolean"}},
        "required": ["observation", "done"]
    });
    let json_body = |schema: Value| json!({"content": {"application/json": {"schema": schema}}});
    json!({
        "openapi": "3.1.0",
        "info": {"title": "sandmle serve", "version": env!("CARGO_PKG_VERSION"),
                 "description": "SandMLE micro-environments over OpenEnv's protocol. Episodes run over the WebSocket /ws (or MCP sessions on /mcp); HTTP /reset and /step are stateless (a fresh environment per call)."},
        "paths": {
            "/health": {"get": {"summary": "Health check", "responses": {"200": json_body(json!({"type": "object", "properties": {"status": {"type": "string", "enum": ["healthy"]}}}))}}},
            "/metadata": {"get": {"summary": "Environment metadata", "responses": {"200": json_body(json!({"type": "object"}))}}},
            "/schema": {"get": {"summary": "JSON Schemas of action, observation and state", "responses": {"200": json_body(json!({"type": "object"}))}}},
            "/state": {"get": {"summary": "The state of a fresh environment", "responses": {"200": json_body(s["state"].clone())}}},
            "/reset": {"post": {"summary": "Reset a fresh environment", "requestBody": json_body(reset_schema()),
                                "responses": {"200": json_body(result.clone()), "422": {"description": "Invalid options"}}}},
            "/step": {"post": {"summary": "Reset a fresh environment (with the body's other keys as options) and take one action",
                               "requestBody": json_body(json!({"type": "object", "properties": {"action": s["action"]}, "required": ["action"]})),
                               "responses": {"200": json_body(result), "422": {"description": "Invalid action"}}}},
            "/run_group": {"post": {"summary": "Episode mode: run a group of n rollouts with a model server (client) or a built-in policy; answers the finished trajectory rows with advantages",
                                    "requestBody": json_body(json!({"type": "object", "properties": {
                                        "n": {"type": "integer", "minimum": 1, "maximum": 256},
                                        "client": {"type": "object", "properties": {"base_url": {"type": "string"}, "model": {"type": "string"}, "api_key": {"type": "string"}, "sampling": {"type": "object"}, "request_timeout_s": {"type": "number"}, "token_ids": {"type": "boolean"}}, "required": ["base_url", "model"]},
                                        "policy": {"type": "string", "enum": ["panel", "stdlib_python"]},
                                        "estimator": {"type": "string", "enum": ["grpo", "dr_grpo", "rloo"]}}, "required": ["n"]})),
                                    "responses": {"200": json_body(json!({"type": "object", "properties": {"trajectories": {"type": "array"}, "advantages": {"type": "array"}, "rewards": {"type": "array"}}})),
                                                  "422": {"description": "Invalid request"}, "503": {"description": "The group does not fit under max_sessions"}}}},
            "/tasks": {"get": {"summary": "The environments served, in order, with their split, modality, metric and difficulty (never answers or thresholds); ?split=train|validation|test lists one split",
                               "responses": {"200": json_body(json!({"type": "object", "properties": {"num_tasks": {"type": "integer"}, "tasks": {"type": "array"}}}))}}},
            "/mcp": {"post": {"summary": "JSON-RPC 2.0: initialize, ping, openenv/session/create|close, tools/list, tools/call (the episode's tools and Finish)",
                              "requestBody": json_body(json!({"type": "object", "properties": {"jsonrpc": {"const": "2.0"}, "method": {"type": "string"}, "params": {"type": "object"}, "id": {"type": ["string", "integer", "null"]}}})),
                              "responses": {"200": json_body(json!({"type": "object", "properties": {"jsonrpc": {"const": "2.0"}, "id": {}, "result": {}, "error": {"type": "object"}}})), "202": {"description": "A notification, accepted"}}}},
            "/ws": {"get": {"summary": "WebSocket: one episode per connection; {type: reset|step|state|run_group|close, data} in, {type: observation|state|group|error, data} out",
                            "responses": {"101": {"description": "Switching protocols"}}}}
        }
    })
}
