//! What an episode's steps return: the step, its info (the one JSON every
//! front end sends), its record, and why the episode ended.

use crate::reward::RewardValue;
use sandmle_core::{GradeReport, Message, ToolSpec};
use serde::{Deserialize, Serialize};

/// Why an episode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The model gave `<answer>…</answer>`.
    Answer,
    /// A turn without a tool call, in a codec that stops on it.
    NoToolCall,
    /// The turn budget ran out (truncation).
    MaxTurns,
    /// The episode's wall time ran out (truncation).
    TimeLimit,
    /// The policy failed to produce a turn (the rollout's record only).
    PolicyError,
}

impl Termination {
    /// `true` for the budget truncations.
    pub fn is_truncation(self) -> bool {
        matches!(self, Termination::MaxTurns | Termination::TimeLimit)
    }
}

/// One step as recorded in a trajectory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The turn, from 1.
    pub turn: u32,
    /// The action's kind (`run_code`, `run_pipeline`, `score`, `finish`),
    /// or `malformed` / `none`.
    pub action: String,
    /// Whether the turn's raw text is in the release's format.
    pub format_ok: bool,
    /// How the action ended (`completed`, `failed`, `timed_out`,
    /// `rejected`, `memory_exceeded`, `output_limit_exceeded`, `scored`,
    /// `invalid_submission`, `malformed`, `no_action`, `answer`, `skipped`).
    pub status: String,
    /// Wall time of the step in milliseconds (**not deterministic**).
    pub wall_ms: u64,
    /// The step's reward (an increment in delta mode).
    pub reward: f64,
    /// The Score tool's report, for a score step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grade: Option<GradeReport>,
}

/// What `reset` returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Reset {
    /// The system and user messages.
    pub messages: Vec<Message>,
    /// The tool schemas.
    pub tools: Vec<ToolSpec>,
    /// Structured facts: task id, budgets, tools, codec.
    pub info: serde_json::Value,
}

/// What a step's info carries besides the record. Its JSON (`Serialize`)
/// is the one step info every front end sends — the server's observation,
/// the Python package's `info`: the record's `turn`, `action`,
/// `format_ok`, `status`, `wall_ms` and `grade`, then `termination`,
/// `total_reward`, `reward_breakdown`, `reward_components` and
/// `final_grade` where they apply; grades in their evaluator view
/// ([`sandmle_core::GradeView`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StepInfo {
    /// The step's record.
    pub record: StepRecord,
    /// Why the episode ended, on its last step.
    pub termination: Option<Termination>,
    /// On the last step: the absolute episode reward and its breakdown.
    pub total: Option<RewardValue>,
    /// The reward of the episode so far, with its components and their
    /// weights: on every step with delta rewards, on the last step with
    /// terminal ones.
    pub current: Option<RewardValue>,
    /// On the last step: the graded submission's report.
    pub final_grade: Option<GradeReport>,
}

impl Serialize for StepInfo {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Wire<'a> {
            turn: u32,
            action: &'a str,
            format_ok: bool,
            status: &'a str,
            wall_ms: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            grade: Option<sandmle_core::GradeView<'a>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            termination: Option<Termination>,
            #[serde(skip_serializing_if = "Option::is_none")]
            total_reward: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            reward_breakdown: Option<&'a std::collections::BTreeMap<String, f64>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            reward_components: Option<&'a std::collections::BTreeMap<String, crate::reward::RewardComponent>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            final_grade: Option<sandmle_core::GradeView<'a>>,
        }
        let r = &self.record;
        Wire {
            turn: r.turn,
            action: &r.action,
            format_ok: r.format_ok,
            status: &r.status,
            wall_ms: r.wall_ms,
            grade: r.grade.as_ref().map(GradeReport::view),
            termination: self.termination,
            total_reward: self.total.as_ref().map(|t| t.value),
            reward_breakdown: self.total.as_ref().map(|t| &t.breakdown),
            reward_components: self.current.as_ref().map(|c| &c.components),
            final_grade: self.final_grade.as_ref().map(GradeReport::view),
        }
        .serialize(serializer)
    }
}

/// What a step returns, gymnasium-style.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The messages that return the observation (none when the codec lets a
    /// turn without a call pass silently).
    pub observation: Vec<Message>,
    /// The step's reward.
    pub reward: f64,
    /// The episode ended on its own (answer, no tool call).
    pub terminated: bool,
    /// A budget cut the episode.
    pub truncated: bool,
    /// Details.
    pub info: StepInfo,
}
