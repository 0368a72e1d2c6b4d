//! `openai_tools`: native tool calls. The assistant message's
//! `tool_calls` carry the action (the first one runs; further calls in the
//! same turn are answered "not run: one tool call per turn"), results
//! return as `role: tool` messages naming their call, and a turn without a
//! tool call ends the episode (as tool-call trainers do), its text the
//! answer. `<answer>…</answer>` in the text also ends it.

use super::{Call, Codec, NoAction, Turn, answer_of};
use crate::env::{Action, ToolSet};
use sandmle_core::{Message, ToolCall};

/// OpenAI's native tool calls; see the [module documentation](self).
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiCodec;

impl Codec for OpenAiCodec {
    fn name(&self) -> &str {
        "openai_tools"
    }

    fn system_prompt(&self, tools: &ToolSet) -> String {
        super::system_prompt(self.name(), tools)
    }

    fn parse(&self, message: &Message, tools: &ToolSet) -> Turn {
        let answer = answer_of(&message.content);
        let Some(first) = message.tool_calls.first() else {
            return Turn { call: Call::None, answer };
        };
        let call_ids: Vec<String> = message.tool_calls.iter().map(|c| c.id.clone()).collect();
        let arguments = match &first.arguments {
            serde_json::Value::String(s) => serde_json::from_str(s).unwrap_or(serde_json::Value::Null),
            other => other.clone(),
        };
        let call = match tools.action(&first.name, &arguments) {
            Ok(action) => Call::Action { action, call_ids },
            Err(reason) => Call::Malformed { reason, call_ids },
        };
        Turn { call, answer }
    }

    fn render_result(&self, text: &str, call_ids: &[String]) -> Vec<Message> {
        match call_ids.split_first() {
            None => vec![Message::tool("call_0", text)],
            Some((first, rest)) => std::iter::once(Message::tool(first.clone(), text))
                .chain(rest.iter().map(|id| Message::tool(id.clone(), "Not run: one tool call per turn.")))
                .collect(),
        }
    }

    fn assistant_turn(&self, think: &str, action: &Action, call_id: &str) -> Message {
        let mut m = Message::assistant(format!("<think>\n{think}\n</think>"));
        match action.tool_call() {
            Some((name, arguments)) => {
                m.tool_calls.push(ToolCall { id: call_id.to_owned(), name: name.to_owned(), arguments });
            }
            None => {
                if let Action::Finish { answer } = action {
                    m.content.push_str(&format!("\n<answer>{answer}</answer>"));
                }
            }
        }
        m
    }

    fn no_action(&self) -> NoAction {
        NoAction::Stop
    }
}
