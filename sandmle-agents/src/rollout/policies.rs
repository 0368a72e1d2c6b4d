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

/// A policy behind a [`ChatModel`] (an OpenAI-compatible endpoint, for
/// the environment-owned loop): the model's reply is the turn, with its
/// token ids and logprobs when the server returns them.
pub struct ChatPolicy {
    model: Arc<dyn ChatModel>,
    sampling: Sampling,
}

impl ChatPolicy {
    /// A policy asking `model` with `sampling`.
    pub fn new(model: Arc<dyn ChatModel>, sampling: Sampling) -> Self {
        ChatPolicy { model, sampling }
    }
}

impl Policy for ChatPolicy {
    fn name(&self) -> &str {
        "chat"
    }

    fn act(&mut self, messages: &[Message], tools: &[ToolSpec]) -> Result<PolicyTurn> {
        let reply = self
            .model
            .chat(messages, tools, &self.sampling)
            .map_err(|e| Error::Policy { policy: self.model.name().to_owned(), reason: e.to_string() })?;
        Ok(PolicyTurn { message: reply.message, tokens: reply.tokens })
    }
}
