//! What the Foundry keeps of every candidate slot: one record file per
//! slot (`slots/<seed task>/<index>.json`), written when the slot is done.
//! The records are the run's ground truth: `yield.json` and `index.jsonl`
//! are derived from them ([`super::reindex`]), which is what makes a run
//! resumable and its shards mergeable.

use sandmle_core::{GateResult, Mutations};
use serde::{Deserialize, Serialize};

/// How far an attempt got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The Data Strategist failed.
    Plan,
    /// The ML Developer failed.
    Develop,
    /// The MLOps Engineer refused the environment (or failed).
    Check,
    /// The Technical Writer failed, or its description leaked the rule.
    Describe,
    /// The verification gates ran (passed or not).
    Verify,
}

/// One attempt at a slot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptRecord {
    /// 0 for the first attempt.
    pub attempt: u32,
    /// The candidate's seed.
    pub seed: u64,
    /// The last stage reached.
    pub stage: Stage,
    /// Why the attempt failed before the gates, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `true` when the attempt failed because an LLM-backed role or its chat
    /// model did (replies that stayed invalid, a server that failed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub llm_failure: bool,
    /// The gates' results (empty before the gates).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gates: Vec<GateResult>,
    /// The plan's domain, once planned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// The plan's rule family, once planned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_family: Option<String>,
    /// The plan's mutations, once planned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutations: Option<Mutations>,
    /// The plan's title, once planned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The plan's feature column names, once planned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<String>,
    /// The plan's target column names, once planned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<String>,
}

impl AttemptRecord {
    /// `true` when every gate ran and passed.
    pub fn kept(&self) -> bool {
        self.stage == Stage::Verify
            && self.error.is_none()
            && !self.gates.is_empty()
            && self.gates.iter().all(|g| g.passed)
    }
}

/// One slot: a seed task's candidate index, its attempts, and the kept
/// environment, if any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlotRecord {
    /// The record's schema.
    pub schema: String,
    /// The seed task.
    pub seed_task: String,
    /// The candidate's index within the seed.
    pub index: usize,
    /// Every attempt, in order; the last one decides.
    pub attempts: Vec<AttemptRecord>,
    /// The kept environment's id (its directory in the output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_id: Option<String>,
    /// The kept environment's index line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_entry: Option<IndexEntry>,
}

/// The record schema.
pub const SLOT_SCHEMA: &str = "sandmle.slot/v1";

/// One line of `index.jsonl`: what a trainer or the rollout command needs
/// to pick an environment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexEntry {
    /// The environment's id.
    pub env_id: String,
    /// Its directory, relative to the index.
    pub path: String,
    /// The seed task.
    pub seed_task: String,
    /// What is predicted.
    pub kind: sandmle_core::TaskKind,
    /// What the data is made of.
    pub modality: sandmle_core::Modality,
    /// The metric's name.
    pub metric: String,
    /// Whether lower or higher scores are better.
    pub direction: sandmle_core::Direction,
    /// The medal thresholds.
    pub thresholds: Option<sandmle_core::Thresholds>,
    /// The generator and its version (`synth 3`).
    pub generator: String,
    /// The domain the task is dressed in.
    pub domain: Option<String>,
    /// The MLOps engineer's reward validation, when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewards: Option<crate::reward_check::RewardSummary>,
    /// How hard it is for stock baselines, when measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<sandmle_core::Difficulty>,
}
