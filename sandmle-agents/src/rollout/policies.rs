//! Built-in policies: replayed texts, the baseline panel through pipeline
//! actions, and a chat model.

use super::{Policy, PolicyTurn};
use crate::codec::Codec;
use crate::env::Action;
use crate::error::{Error, Result};
use rand_chacha::rand_core::Rng;
use sandmle_core::{ChatModel, Message, Sampling, ToolSpec};
use std::sync::Arc;

/// Replays assistant turns in order; once they run out it answers
/// `<think>…</think><answer>submission</answer>`.
#[derive(Debug, Clone)]
pub struct ScriptedPolicy {
    turns: Vec<sandmle_core::Message>,
    next: usize,
}

impl ScriptedPolicy {
    /// A policy replaying `texts` as assistant texts.
    pub fn new<S: Into<String>>(texts: impl IntoIterator<Item = S>) -> Self {
        ScriptedPolicy { turns: texts.into_iter().map(|t| Message::assistant(t)).collect(), next: 0 }
    }

    /// A policy replaying whole assistant messages (native tool calls kept).
    pub fn from_messages(turns: Vec<Message>) -> Self {
        ScriptedPolicy { turns, next: 0 }
    }
}

impl Policy for ScriptedPolicy {
    fn name(&self) -> &str {
        "scripted"
    }

    fn act(&mut self, _messages: &[Message], _tools: &[ToolSpec]) -> Result<PolicyTurn> {
        let turn = self.turns.get(self.next).cloned().unwrap_or_else(|| {
            Message::assistant("<think>\nThe script is over.\n</think>\n<answer>submission</answer>")
        });
        self.next += 1;
        Ok(PolicyTurn { message: turn, tokens: None })
    }
}

/// Acts through pipeline-spec actions: runs `tries` of the given specs
/// (the baseline panel's, say) in an order drawn from its seed, scoring
/// each, then answers. Needs the pipeline tool.
pub struct PanelPolicy {
    codec: Arc<dyn Codec>,
    plan: Vec<Action>,
    next: usize,
}

impl std::fmt::Debug for PanelPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PanelPolicy").field("plan", &self.plan.len()).field("next", &self.next).finish()
    }
}

impl PanelPolicy {
    /// A policy trying `tries` of `specs` (JSON pipeline specs), shuffled
    /// by `seed`, in `codec`'s format.
    pub fn new(specs: &[serde_json::Value], tries: usize, seed: u64, codec: Arc<dyn Codec>) -> Self {
        let mut order: Vec<&serde_json::Value> = specs.iter().collect();
        let mut rng = sandmle_core::rng_for(seed, "panel-policy");
        for i in (1..order.len()).rev() {
            let j = usize::try_from(rng.next_u64() % (i as u64 + 1)).unwrap_or(0);
            order.swap(i, j);
        }
        let mut plan = Vec::new();
        for spec in order.into_iter().take(tries.max(1)) {
            plan.push(Action::RunPipeline { spec: spec.clone() });
            plan.push(Action::Score);
        }
        plan.push(Action::Finish { answer: "submission".into() });
        PanelPolicy { codec, plan, next: 0 }
    }
}

impl Policy for PanelPolicy {
    fn name(&self) -> &str {
        "panel"
    }

    fn act(&mut self, _messages: &[Message], _tools: &[ToolSpec]) -> Result<PolicyTurn> {
        let action = self.plan.get(self.next).cloned().unwrap_or(Action::Finish { answer: "submission".into() });
        let think = match &action {
            Action::RunPipeline { spec } => {
                let name = spec.get("name").and_then(|n| n.as_str()).unwrap_or("a baseline");
                format!("Fit the pipeline `{name}` and write submission.csv.")
            }
            Action::Score => "Grade the submission.".to_owned(),
            _ => "The submission is ready.".to_owned(),
        };
        let message = self.codec.assistant_turn(&think, &action, &format!("call_{}", self.next));
        self.next += 1;
        Ok(PolicyTurn { message, tokens: None })
    }
}

/// How an [`LlmPolicy`] keeps its context within the model's window, as
/// SandMLE's release does: when the estimated length (characters / 4)
/// exceeds `max_tokens`, first the turns whose tool response was an error
/// are dropped (the assistant turn and its response), then, if still too
/// long, only the system and first user messages and the last two messages
/// are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextBudget {
    /// The estimated tokens allowed (default 32,768).
    pub max_tokens: usize,
    /// Characters per estimated token (default 4).
    pub chars_per_token: usize,
}

impl Default for ContextBudget {
    fn default() -> Self {
        ContextBudget { max_tokens: 32_768, chars_per_token: 4 }
    }
}

impl ContextBudget {
    fn estimate(&self, messages: &[Message]) -> usize {
        messages.iter().map(|m| m.content.len() + 16).sum::<usize>() / self.chars_per_token.max(1)
    }

    /// The messages sent to the model (see the type's docs).
    pub fn fit(&self, messages: &[Message]) -> Vec<Message> {
        if self.estimate(messages) <= self.max_tokens {
            return messages.to_vec();
        }
        // Drop (assistant, response) pairs whose response is an error.
        let mut kept: Vec<Message> = Vec::with_capacity(messages.len());
        let mut i = 0;
        while i < messages.len() {
            let m = &messages[i];
            let response = messages.get(i + 1);
            let dropped = i >= 2
                && m.role == sandmle_core::Role::Assistant
                && response.is_some_and(|r| r.role != sandmle_core::Role::Assistant && is_error_response(&r.content));
            if dropped {
                i += 2;
                continue;
            }
            kept.push(m.clone());
            i += 1;
        }
        if self.estimate(&kept) <= self.max_tokens || kept.len() <= 4 {
            return kept;
        }
        let head = kept.iter().take(2).cloned();
        let tail = kept[kept.len() - 2..].iter().cloned();
        head.chain(tail).collect()
    }
}

/// `true` for a tool response reporting a failure: an error observation,
/// a traceback, a timeout or an invalid submission.
fn is_error_response(content: &str) -> bool {
    let body = content.trim_start_matches("<tool_response>").trim_start();
    body.starts_with("Error")
        || content.contains("Traceback (most recent call last)")
        || content.contains("[Timeout]")
        || content.contains("Submission csv is invalid")
}

/// A policy behind a [`ChatModel`] (an OpenAI-compatible endpoint, for
/// the environment-owned loop): the model's reply is the turn, with its
/// token ids and logprobs when the server returns them; the context is
/// kept within [`ContextBudget`].
pub struct LlmPolicy {
    model: Arc<dyn ChatModel>,
    sampling: Sampling,
    /// How the context is kept within the model's window.
    pub context: ContextBudget,
}

impl LlmPolicy {
    /// A policy asking `model` with `sampling` and the default context budget.
    pub fn new(model: Arc<dyn ChatModel>, sampling: Sampling) -> Self {
        LlmPolicy { model, sampling, context: ContextBudget::default() }
    }
}

impl Policy for LlmPolicy {
    fn name(&self) -> &str {
        "llm"
    }

    fn act(&mut self, messages: &[Message], tools: &[ToolSpec]) -> Result<PolicyTurn> {
        let context = self.context.fit(messages);
        let reply = self
            .model
            .chat(&context, tools, &self.sampling)
            .map_err(|e| Error::Policy { policy: self.model.name().to_owned(), reason: e.to_string() })?;
        Ok(PolicyTurn { message: reply.message, tokens: reply.tokens })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_drops_failed_turns_then_keeps_the_head_and_the_last_two() {
        let long = "x".repeat(400);
        let mut messages = vec![Message::system("sys"), Message::user("task")];
        for i in 0..6 {
            messages.push(Message::assistant(format!("turn {i} {long}")));
            let response = if i % 2 == 0 {
                format!("<tool_response>\nError: bad call {i}")
            } else {
                format!("<tool_response>\nok {i} {long}")
            };
            messages.push(Message::user(response));
        }
        let small = ContextBudget { max_tokens: 10_000, chars_per_token: 4 };
        assert_eq!(small.fit(&messages).len(), messages.len(), "within budget: untouched");
        let budget = ContextBudget { max_tokens: 700, chars_per_token: 4 };
        let fitted = budget.fit(&messages);
        assert!(fitted.iter().all(|m| !m.content.contains("Error: bad call")), "failed turns go first");
        assert_eq!(fitted.len(), 8);
        let tight = ContextBudget { max_tokens: 300, chars_per_token: 4 };
        let fitted = tight.fit(&messages);
        assert_eq!(fitted.len(), 4);
        assert_eq!((fitted[0].content.as_str(), fitted[1].content.as_str()), ("sys", "task"));
        assert_eq!(fitted[3].content, messages[messages.len() - 1].content);
    }
}
