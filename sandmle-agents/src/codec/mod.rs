//! Codecs: the assistant's text in, typed actions out; observations in,
//! messages out. Each renders its own system prompt and tool schemas.
//!
//! - [`ReactCodec`] (`sandmle_react`): SandMLE's release format, parsed as
//!   leniently as the release parses it.
//! - [`HermesCodec`] (`hermes_json`): every tool as
//!   `<tool_call>{"name", "arguments"}</tool_call>` (Qwen / Hermes); results
//!   as `role: tool` messages, which those models' chat templates wrap in
//!   `<tool_response>`.
//! - [`OpenAiCodec`] (`openai_tools`): native `tool_calls`, `role: tool`
//!   results, OpenAI function schemas.
//!
//! "No tool call and no answer" is the codec's call ([`NoAction`]):
//! SandMLE's loop continues, tool-call trainers stop.

pub mod hermes;
pub mod openai;
mod prompt;
pub mod react;

pub use hermes::HermesCodec;
pub use openai::OpenAiCodec;
pub use prompt::{system_prompt, tool_specs};
pub use react::ReactCodec;

use crate::env::{Action, ToolSet};
use sandmle_core::{Message, ToolSpec};
use std::sync::Arc;

/// What a turn asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// No tool call.
    None,
    /// A well-formed call.
    Action {
        /// The action.
        action: Action,
        /// The ids of the calls that carried it (empty for text formats).
        call_ids: Vec<String>,
    },
    /// A call that could not be parsed or names no offered tool: it
    /// consumes the turn and the model sees `reason`.
    Malformed {
        /// The observation text.
        reason: String,
        /// The ids of the calls, for formats with ids.
        call_ids: Vec<String>,
    },
}

/// A parsed assistant turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The tool call, if any.
    pub call: Call,
    /// The final answer (`<answer>…</answer>`), if given. A turn may carry
    /// both: the tool runs, then the episode ends (as in the release).
    pub answer: Option<String>,
}

/// What a turn with neither a tool call nor an answer does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoAction {
    /// The episode goes on (SandMLE's loop); no observation is added.
    Continue,
    /// The episode ends (termination `no_tool_call`).
    Stop,
}

/// A text format: parses assistant turns and renders observations.
pub trait Codec: Send + Sync {
    /// `sandmle_react`, `hermes_json` or `openai_tools` for the built-ins.
    fn name(&self) -> &str;

    /// The system prompt for an episode offering `tools`.
    fn system_prompt(&self, tools: &ToolSet) -> String;

    /// The tool schemas handed to the model (OpenAI function schemas).
    fn tools(&self, tools: &ToolSet) -> Vec<ToolSpec> {
        tool_specs(tools)
    }

    /// Parses an assistant message (its raw text, and its native tool calls
    /// for formats that have them).
    fn parse(&self, message: &Message, tools: &ToolSet) -> Turn;

    /// The messages that return an observation to the model.
    fn render_result(&self, text: &str, call_ids: &[String]) -> Vec<Message>;

    /// An assistant turn in this format: reasoning, then `action`
    /// (the inverse of [`Codec::parse`], used by the built-in policies).
    fn assistant_turn(&self, think: &str, action: &Action, call_id: &str) -> Message;

    /// What a turn with no tool call and no answer does.
    fn no_action(&self) -> NoAction;
}

/// The built-in codecs' names.
pub const CODECS: [&str; 3] = ["sandmle_react", "hermes_json", "openai_tools"];

/// A built-in codec by name.
pub fn codec_by_name(name: &str) -> Option<Arc<dyn Codec>> {
    match name {
        "sandmle_react" => Some(Arc::new(ReactCodec)),
        "hermes_json" => Some(Arc::new(HermesCodec)),
        "openai_tools" => Some(Arc::new(OpenAiCodec)),
        _ => None,
    }
}

/// Whether an assistant text starts with a non-empty `<think>…</think>`
/// block: the release's format check (leading whitespace ignored; the
/// body between the first `<think>` and the first `</think>` must hold
/// something besides whitespace).
pub fn format_ok(text: &str) -> bool {
    let t = text.trim_start();
    let (Some(rest), Some(end)) = (t.strip_prefix("<think>"), t.find("</think>")) else {
        return false;
    };
    let start = "<think>".len();
    end > start && !rest[..end - start].trim().is_empty()
}

/// The text between the first `<answer>` and the next `</answer>`, when
/// both are present (the release ends an episode only on both).
pub fn answer_of(text: &str) -> Option<String> {
    let start = text.find("<answer>")? + "<answer>".len();
    let end = text[start..].find("</answer>")?;
    Some(text[start..start + end].trim().to_owned())
}

/// The text of the first `<tool_call>`: up to its `</tool_call>`, or, when
/// the closing tag is missing, everything after it with reasoning tags
/// removed (the release's leniency).
pub(crate) fn tool_call_text(text: &str) -> Option<&str> {
    let start = text.find("<tool_call>")? + "<tool_call>".len();
    let rest = &text[start..];
    Some(match rest.find("</tool_call>") {
        Some(end) => rest[..end].trim(),
        None => rest.trim(),
    })
}

/// Parses `{"name": …, "arguments": {…}}` (arguments may also be a JSON
/// string, as OpenAI sends them).
pub(crate) fn json_call(text: &str, tools: &ToolSet) -> Result<Action, String> {
    const INVALID: &str =
        "Error: Tool call is not a valid JSON. Tool call must contain a valid \"name\" and \"arguments\" field.";
    let value: serde_json::Value = serde_json::from_str(text.trim()).map_err(|_| INVALID.to_owned())?;
    let name = value.get("name").and_then(|n| n.as_str()).ok_or_else(|| INVALID.to_owned())?;
    let arguments = match value.get("arguments") {
        Some(serde_json::Value::String(s)) => serde_json::from_str(s).map_err(|_| INVALID.to_owned())?,
        Some(a) => a.clone(),
        None => serde_json::json!({}),
    };
    tools.action(name, &arguments)
}
