//! LLM-backed roles over core's [`ChatModel`] port.
//!
//! Every role has a versioned prompt template and a JSON reply schema that
//! maps onto the Rust types. A reply is parsed (the first JSON object in
//! the text, so a model that wraps it in prose or a code fence still
//! counts) and validated on the Rust side; an invalid reply is shown its
//! error and asked again, at most [`LlmSettings::repairs`] times (default
//! 2), and a role whose replies stay invalid fails with
//! [`Error::LlmReply`]. What an LLM may decide is bounded: the strategist
//! dresses a built-in plan (domain, story, names, rule family) whose
//! structure it cannot change; the developer chooses the difficulty and
//! mutation factors within ranges; the MLOps engineer may refuse an
//! environment the built-in checks accept, never accept one they refuse;
//! the writer's description goes through the same leak check as the
//! built-in one.
//!
//! [`ScriptedChatModel`] replays replies and records requests, for tests
//! and offline runs.

mod program;
mod review;
mod scripted;
mod strategy;

pub use program::{PROGRAM_DEVELOPER_PROMPT, ProgramDeveloper};
pub use review::{LlmMlOps, LlmWriter, MLOPS_PROMPT, WRITER_PROMPT};
pub use scripted::ScriptedChatModel;
pub use strategy::{DEVELOPER_PROMPT, LlmDeveloper, LlmStrategist, STRATEGIST_PROMPT};

use crate::error::{Error, Result};
use sandmle_core::{ChatModel, Message, Sampling};
use std::sync::Arc;

/// What every LLM-backed role shares: the model, its sampling and the
/// repair budget.
#[derive(Clone)]
pub struct LlmSettings {
    /// The model.
    pub model: Arc<dyn ChatModel>,
    /// Sampling of every request.
    pub sampling: Sampling,
    /// Invalid replies answered with their error before giving up.
    pub repairs: u32,
}

impl LlmSettings {
    /// Settings for `model` with default sampling and two repairs.
    pub fn new(model: Arc<dyn ChatModel>) -> Self {
        LlmSettings { model, sampling: Sampling::default(), repairs: 2 }
    }

    /// Asks `prompt` and validates the reply with `validate` (the reply's
    /// JSON object in, the typed value or a one-line reason out), repairing
    /// up to [`LlmSettings::repairs`] times.
    ///
    /// # Errors
    /// [`Error::Core`] when the model fails; [`Error::LlmReply`] when every
    /// reply was invalid.
    pub fn ask<T>(
        &self,
        role: &'static str,
        system: &str,
        prompt: String,
        validate: impl Fn(&serde_json::Value) -> std::result::Result<T, String>,
    ) -> Result<T> {
        let mut messages = vec![Message::system(system), Message::user(prompt)];
        let mut last = String::new();
        for _ in 0..=self.repairs {
            let reply = self.model.chat(&messages, &[], &self.sampling)?;
            let text = reply.message.content.clone();
            let outcome = match first_json_object(&text) {
                Some(value) => validate(&value),
                None => Err("the reply holds no JSON object".to_owned()),
            };
            match outcome {
                Ok(v) => return Ok(v),
                Err(reason) => {
                    last = sandmle_core::bounded(&reason);
                    messages.push(Message::assistant(text));
                    messages.push(Message::user(format!(
                        "That reply is invalid: {last}. Answer again with one JSON object only, following the schema."
                    )));
                }
            }
        }
        Err(Error::LlmReply { role, attempts: self.repairs + 1, reason: last })
    }
}

/// The first complete JSON object in `text`, if any.
pub fn first_json_object(text: &str) -> Option<serde_json::Value> {
    text.char_indices().filter(|&(_, c)| c == '{').find_map(|(at, _)| {
        let mut stream = serde_json::Deserializer::from_str(&text[at..]).into_iter::<serde_json::Value>();
        match stream.next() {
            Some(Ok(v)) if v.is_object() => Some(v),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_json_object_is_found_in_prose_and_fences() {
        let v = first_json_object("Sure!\n```json\n{\"a\": {\"b\": 1}}\n```\nand {\"c\": 2}").unwrap();
        assert_eq!(v, serde_json::json!({"a": {"b": 1}}));
        assert!(first_json_object("no json {here").is_none());
        assert_eq!(first_json_object("{oops} {\"x\": 1}").unwrap(), serde_json::json!({"x": 1}));
    }
}
