//! `hermes_json`: every tool call as `<tool_call>{"name": …, "arguments":
//! {…}}</tool_call>` (the Qwen / Hermes function-calling format), results as
//! `role: tool` messages (those models' chat templates render them inside
//! `<tool_response>` tags). A missing `</tool_call>` is tolerated; only the
//! first call is read; `<answer>…</answer>` or a turn without a call ends
//! the episode.

use super::{Call, Codec, NoAction, Turn, answer_of, json_call, tool_call_text};
use crate::env::{Action, ToolSet};
use sandmle_core::Message;

/// The Hermes JSON tool-call format; see the [module documentation](self).
#[derive(Debug, Clone, Copy, Default)]
pub struct HermesCodec;

impl Codec for HermesCodec {
    fn name(&self) -> &str {
        "hermes_json"
    }

    fn system_prompt(&self, tools: &ToolSet) -> String {
        super::system_prompt(self.name(), tools)
    }

    fn parse(&self, message: &Message, tools: &ToolSet) -> Turn {
        let text = &message.content;
        let answer = answer_of(text);
        let call = match tool_call_text(text) {
            None => Call::None,
            Some(call) => {
                let call = call.replace("<think>", "").replace("</think>", "");
                match json_call(&call, tools) {
                    Ok(action) => Call::Action { action, call_ids: Vec::new() },
                    Err(reason) => Call::Malformed { reason, call_ids: Vec::new() },
                }
            }
        };
        Turn { call, answer }
    }

    fn render_result(&self, text: &str, call_ids: &[String]) -> Vec<Message> {
        let id = call_ids.first().cloned().unwrap_or_else(|| "call_0".into());
        vec![Message::tool(id, text)]
    }

    fn assistant_turn(&self, think: &str, action: &Action, _call_id: &str) -> Message {
        let body = match action {
            Action::Finish { answer } => format!("<answer>{answer}</answer>"),
            other => match other.tool_call() {
                Some((name, args)) => {
                    format!("<tool_call>\n{}\n</tool_call>", serde_json::json!({"name": name, "arguments": args}))
                }
                None => String::new(),
            },
        };
        Message::assistant(format!("<think>\n{think}\n</think>\n{body}"))
    }

    fn no_action(&self) -> NoAction {
        NoAction::Stop
    }
}
