//! `sandmle_react`: SandMLE's release format.
//!
//! Parsing follows what the release's agent loop accepts (its
//! `deepresearch_agent.py`), read for its semantics:
//! - anything from a `<tool_response>` the model wrote itself on is cut;
//! - a turn holding `<tool_call>` is a call; only the first call is read;
//!   a missing `</tool_call>` is tolerated (the rest of the text is the
//!   call, reasoning tags removed);
//! - the call is Python code when its text mentions `python` or `<code>`:
//!   the code is the last complete `<code>…</code>` block of the turn (all
//!   complete blocks when the last `<code>` is unclosed), else everything
//!   after an unclosed `<code>`, else the call's text after its `python`
//!   line; leftover tags are removed. Empty code is a formatting error;
//! - otherwise the call is JSON `{"name", "arguments"}`; invalid JSON is
//!   the release's "not a valid JSON" error; an unknown tool names the
//!   available ones;
//! - `<answer>…</answer>` (both tags) ends the episode, after the turn's
//!   call has run;
//! - a turn with neither continues the episode, adding no observation.
//!
//! Two deliberate differences: a call whose text is a JSON object naming a
//! tool is read as JSON even when it mentions `python` (the release would
//! run the JSON as code), and only the leading `python` line is removed
//! from bare code (the release removes every occurrence of the word).
//! Results return as a user message `<tool_response>\n…\n</tool_response>`.

use super::{Call, Codec, NoAction, Turn, answer_of, json_call, tool_call_text};
use crate::env::{Action, ToolSet};
use sandmle_core::Message;

/// SandMLE's release format; see the [module documentation](self).
#[derive(Debug, Clone, Copy, Default)]
pub struct ReactCodec;

const TAGS: [&str; 6] = ["<code>", "</code>", "<tool_call>", "</tool_call>", "<think>", "</think>"];
const FORMAT_ERROR: &str =
    "[Python Interpreter Error]: Formatting error. You must wrap your code within <code></code> tags.";

fn strip_tags(code: &str) -> String {
    TAGS.iter().fold(code.to_owned(), |c, t| c.replace(t, ""))
}

/// Complete `<code>…</code>` blocks, in order.
fn code_blocks(text: &str) -> Vec<(usize, &str)> {
    let mut blocks = Vec::new();
    let mut at = 0;
    while let Some(start) = text[at..].find("<code>") {
        let open = at + start;
        let body = open + "<code>".len();
        match text[body..].find("</code>") {
            Some(end) => {
                blocks.push((open, &text[body..body + end]));
                at = body + end + "</code>".len();
            }
            None => break,
        }
    }
    blocks
}

/// The code of a Python call, by the release's rules.
fn extract_code(content: &str, call: &str) -> String {
    let code = if content.contains("<code>") && content.contains("</code>") {
        let blocks = code_blocks(content);
        let last_open = content.rfind("<code>").unwrap_or(0);
        match blocks.iter().rev().find(|(open, _)| *open == last_open) {
            Some((_, body)) => body.trim().to_owned(),
            None => blocks.iter().map(|(_, b)| b.trim()).filter(|b| !b.is_empty()).collect::<Vec<_>>().join("\n\n"),
        }
    } else if let Some(at) = content.find("<code>") {
        content[at + "<code>".len()..].trim().to_owned()
    } else {
        let call = call.trim_start();
        let rest = match call.get(..6) {
            Some(head) if head.eq_ignore_ascii_case("python") => &call[6..],
            _ => call,
        };
        rest.trim().to_owned()
    };
    strip_tags(&code).trim().to_owned()
}

/// Parses a turn's text by the release's rules.
pub(crate) fn parse_text(text: &str, tools: &ToolSet) -> Turn {
    let content = match text.find("<tool_response>") {
        Some(at) => &text[..at],
        None => text,
    };
    let answer = answer_of(content);
    let Some(call) = tool_call_text(content) else {
        return Turn { call: Call::None, answer };
    };
    let call_text = if content.contains("</tool_call>") {
        call.to_owned()
    } else {
        call.replace("<think>", "").replace("</think>", "")
    };
    let call_text = call_text.trim();
    let looks_json = call_text.starts_with('{')
        && serde_json::from_str::<serde_json::Value>(call_text).is_ok_and(|v| v.get("name").is_some());
    let lower = call_text.to_ascii_lowercase();
    let result = if !looks_json && (lower.contains("python") || lower.contains("<code>")) {
        if !tools.code {
            tools.action("python", &serde_json::json!({}))
        } else {
            let code = extract_code(content, call_text);
            if code.is_empty() { Err(FORMAT_ERROR.to_owned()) } else { Ok(Action::RunCode { code }) }
        }
    } else {
        json_call(call_text, tools)
    };
    let call = match result {
        Ok(action) => Call::Action { action, call_ids: Vec::new() },
        Err(reason) => Call::Malformed { reason, call_ids: Vec::new() },
    };
    Turn { call, answer }
}

/// Renders a tool call as the release's text.
pub(crate) fn call_text(action: &Action) -> String {
    match action {
        Action::RunCode { code } => format!("<tool_call>\npython\n<code>\n{code}\n</code>\n</tool_call>"),
        Action::Finish { answer } => format!("<answer>{answer}</answer>"),
        other => match other.tool_call() {
            Some((name, args)) => {
                format!("<tool_call>\n{}\n</tool_call>", serde_json::json!({"name": name, "arguments": args}))
            }
            None => String::new(),
        },
    }
}

impl Codec for ReactCodec {
    fn name(&self) -> &str {
        "sandmle_react"
    }

    fn system_prompt(&self, tools: &ToolSet) -> String {
        super::system_prompt(self.name(), tools)
    }

    fn parse(&self, message: &Message, tools: &ToolSet) -> Turn {
        parse_text(&message.content, tools)
    }

    fn render_result(&self, text: &str, _call_ids: &[String]) -> Vec<Message> {
        vec![Message::user(format!("<tool_response>\n{text}\n</tool_response>"))]
    }

    fn assistant_turn(&self, think: &str, action: &Action, _call_id: &str) -> Message {
        Message::assistant(format!("<think>\n{think}\n</think>\n{}", call_text(action)))
    }

    fn no_action(&self) -> NoAction {
        NoAction::Continue
    }
}
