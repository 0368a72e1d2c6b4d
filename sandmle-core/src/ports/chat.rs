//! [`ChatModel`]: messages in, an assistant reply out — the port behind
//! LLM-backed roles and policies (an OpenAI-compatible server, a scripted
//! model in tests, a user's own client).
//!
//! The message types follow OpenAI's chat-completions shape, which vLLM,
//! SGLang, llama.cpp's server, Ollama and hosted APIs all speak, so a
//! message list serialises as the `messages` array trainers and SFT
//! datasets expect. One difference: a tool call's `arguments` is a JSON
//! value here, not a JSON string; clients convert at the wire.

use super::forward_impls;
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Instructions that frame the conversation.
    System,
    /// The user (or the environment speaking as one).
    User,
    /// The model.
    Assistant,
    /// A tool's result, answering one tool call.
    Tool,
}

/// A tool call made by the assistant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id, echoed by the tool's result message.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Its arguments.
    pub arguments: serde_json::Value,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text (verbatim: reasoning tags and all).
    pub content: String,
    /// Tool calls of an assistant message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool message: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    fn new(role: Role, content: impl Into<String>) -> Self {
        Message { role, content: content.into(), tool_calls: Vec::new(), tool_call_id: None }
    }

    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message::new(Role::System, content)
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message::new(Role::User, content)
    }

    /// An assistant message without tool calls.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::new(Role::Assistant, content)
    }

    /// A tool's result for the call `call_id`.
    pub fn tool(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Message { tool_call_id: Some(call_id.into()), ..Message::new(Role::Tool, content) }
    }
}

/// A tool the model may call, as an OpenAI function schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The function's name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// A JSON Schema of its arguments.
    pub parameters: serde_json::Value,
}

/// Sampling settings of one request; `None` leaves a setting to the model.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Sampling {
    /// Temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling mass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// The most tokens to generate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// A sampling seed, for servers that honour one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural stop or a stop sequence.
    Stop,
    /// The token limit.
    Length,
    /// It made tool calls.
    ToolCalls,
    /// A content filter.
    ContentFilter,
    /// Anything else the server said.
    Other(String),
}

/// Token counts of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
}

/// Token ids and log-probabilities, when the model returns them (vLLM's
/// options): what on-policy trainers need to skip re-tokenising.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TokenTrace {
    /// Prompt token ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompt_ids: Vec<u32>,
    /// Completion token ids.
    pub completion_ids: Vec<u32>,
    /// The log-probability of each completion token.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logprobs: Vec<f64>,
}

/// A model's reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatReply {
    /// The assistant message (text and tool calls).
    pub message: Message,
    /// Why it stopped.
    pub finish_reason: FinishReason,
    /// Token counts, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Token ids and log-probabilities, when returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenTrace>,
}

impl ChatReply {
    /// A plain text reply that stopped naturally.
    pub fn text(content: impl Into<String>) -> Self {
        ChatReply { message: Message::assistant(content), finish_reason: FinishReason::Stop, usage: None, tokens: None }
    }
}

/// A chat model: messages and tools in, one assistant reply out.
/// Synchronous, like the other ports; a client that talks to a server
/// blocks on it.
pub trait ChatModel: Send + Sync {
    /// A short name for reports (a model id).
    fn name(&self) -> &str;

    /// The model's reply to `messages`, given the `tools` it may call.
    ///
    /// # Errors
    /// When no reply could be had (a transport or server failure after the
    /// client's retries).
    fn chat(&self, messages: &[Message], tools: &[ToolSpec], sampling: &Sampling) -> Result<ChatReply>;
}

forward_impls!(ChatModel {
    fn name(&self) -> &str;
    fn chat(&self, messages: &[Message], tools: &[ToolSpec], sampling: &Sampling) -> Result<ChatReply>;
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_serialise_in_the_chat_completions_shape() {
        let m = Message::user("hi");
        assert_eq!(serde_json::to_value(&m).unwrap(), serde_json::json!({"role": "user", "content": "hi"}));
        let t = Message::tool("c1", "ok");
        assert_eq!(
            serde_json::to_value(&t).unwrap(),
            serde_json::json!({"role": "tool", "content": "ok", "tool_call_id": "c1"})
        );
        let back: Message = serde_json::from_value(serde_json::json!({"role": "assistant", "content": "x"})).unwrap();
        assert_eq!(back, Message::assistant("x"));
    }
}
