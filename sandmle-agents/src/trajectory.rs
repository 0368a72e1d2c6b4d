//! Trajectories: one JSON line per episode, schema
//! `sandmle.trajectory/v1`.
//!
//! | field | what |
//! |---|---|
//! | `schema` | `sandmle.trajectory/v1` |
//! | `episode_id` | `task_id:rollout_idx` |
//! | `group_id`, `task_id`, `env_version`, `rollout_idx`, `seed` | where it comes from |
//! | `codec`, `tools` | the format and the tool schemas (OpenAI function shape) |
//! | `prompt`, `completion` | messages; the completion verbatim (`<think>` kept). `prompt + completion` is the `messages` row an SFT trainer wants |
//! | `reward`, `reward_scheme`, `reward_breakdown`, `reward_components` | the episode's reward, its terms, and its components (`{name: {weight, value, reward}}`) |
//! | `advantage`, `advantage_estimator`, `group_size`, `group_flags` | filled in by the group (`singleton`, `all_equal`) |
//! | `termination`, `truncated` | why it ended |
//! | `masked`, `timed_out_code_steps`, `code_steps` | more than 20 % of code steps timed out (SandMLE masks those), or the policy failed |
//! | `steps` | `turn, action, format_ok, status, wall_ms, reward, grade` |
//! | `final_grade` | the evaluator keys of `sandmle evaluate` |
//! | `timing` | `env_ms`, `model_ms` |
//! | `tokens` | per assistant turn, only when the policy returned ids/logprobs |
//!
//! Everything is deterministic for a deterministic policy except the
//! timing fields: `steps[].wall_ms`, `timing.env_ms` and `timing.model_ms`.

use crate::env::{Episode, StepRecord, Termination};
use crate::error::{Error, Result};
use sandmle_core::{GradeReport, Message, TokenTrace, ToolSpec};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The schema name of a trajectory line.
pub const SCHEMA: &str = "sandmle.trajectory/v1";

/// The share of timed-out code steps beyond which an episode is masked.
pub const TIMEOUT_MASK_SHARE: f64 = 0.2;

/// The grade of the graded submission, with the keys `sandmle evaluate`
/// prints (SandMLE's `evaluator.py` contract).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinalGrade {
    /// The score rounded to 5 decimals.
    pub score: Option<f64>,
    /// The unrounded score.
    pub score_raw: Option<f64>,
    /// Lower is better.
    pub is_lower_better: bool,
    /// Thresholds.
    pub gold_threshold: Option<f64>,
    /// Silver threshold.
    pub silver_threshold: Option<f64>,
    /// Bronze threshold.
    pub bronze_threshold: Option<f64>,
    /// Median threshold.
    pub median_threshold: Option<f64>,
    /// Whether the submission was valid.
    pub valid_submission: bool,
    /// `gold`, `silver`, `bronze` or null.
    pub medal: Option<String>,
    /// Strictly better than the median.
    pub above_median: bool,
    /// HumanRank.
    pub human_rank: Option<f64>,
    /// Why the submission is invalid.
    pub error: Option<String>,
}

impl From<&GradeReport> for FinalGrade {
    fn from(r: &GradeReport) -> Self {
        FinalGrade {
            score: r.score,
            score_raw: r.score_raw,
            is_lower_better: r.is_lower_better,
            gold_threshold: r.gold_threshold,
            silver_threshold: r.silver_threshold,
            bronze_threshold: r.bronze_threshold,
            median_threshold: r.median_threshold,
            valid_submission: r.valid_submission,
            medal: r.medal().map(|m| m.as_str().to_owned()),
            above_median: r.above_median,
            human_rank: r.human_rank,
            error: r.error.clone(),
        }
    }
}

/// Wall times, in milliseconds (**not deterministic**).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Timing {
    /// Time in the environment (reset, steps, programs).
    pub env_ms: u64,
    /// Time in the policy.
    pub model_ms: u64,
}

/// Flags of a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GroupFlags {
    /// The group has one rollout (no baseline).
    pub singleton: bool,
    /// Every reward of the group is equal (no signal).
    pub all_equal: bool,
}

/// One episode's trajectory; see the [module documentation](self).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// [`SCHEMA`].
    pub schema: String,
    /// `task_id:rollout_idx`.
    pub episode_id: String,
    /// The group.
    pub group_id: String,
    /// The environment's id.
    pub task_id: String,
    /// `generator@version`.
    pub env_version: String,
    /// Index in the group.
    pub rollout_idx: usize,
    /// The policy's seed.
    pub seed: u64,
    /// The codec.
    pub codec: String,
    /// The tool schemas.
    pub tools: Vec<ToolSpec>,
    /// System and user messages.
    pub prompt: Vec<Message>,
    /// Assistant turns and observations, verbatim.
    pub completion: Vec<Message>,
    /// The episode's reward.
    pub reward: f64,
    /// The scheme.
    pub reward_scheme: String,
    /// Its terms.
    pub reward_breakdown: BTreeMap<String, f64>,
    /// Its components with their weights and values.
    #[serde(default)]
    pub reward_components: BTreeMap<String, crate::reward::RewardComponent>,
    /// The advantage (0 until the group sets it).
    pub advantage: f64,
    /// `grpo`, `dr_grpo` or `rloo`.
    pub advantage_estimator: String,
    /// Rollouts in the group.
    pub group_size: usize,
    /// The group's flags.
    pub group_flags: GroupFlags,
    /// Why it ended.
    pub termination: Termination,
    /// Whether a budget cut it.
    pub truncated: bool,
    /// More than 20 % of code steps timed out, or the policy failed.
    pub masked: bool,
    /// Code and pipeline steps.
    pub code_steps: usize,
    /// Of which timed out.
    pub timed_out_code_steps: usize,
    /// The steps.
    pub steps: Vec<StepRecord>,
    /// The graded submission's grade.
    pub final_grade: FinalGrade,
    /// Wall times (not deterministic).
    pub timing: Timing,
    /// Token ids and logprobs per assistant turn, when the policy gave them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Vec<TokenTrace>>,
}

/// Where a trajectory sits in its group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The group's id.
    pub group_id: String,
    /// Index in the group.
    pub rollout_idx: usize,
    /// The policy's seed.
    pub seed: u64,
}

impl Trajectory {
    /// The trajectory of an ended episode.
    ///
    /// # Errors
    /// [`Error::EpisodeNotRunning`] when the episode has not ended.
    pub fn from_episode(
        ep: &Episode,
        at: &Placement,
        model_ms: u64,
        tokens: Option<Vec<TokenTrace>>,
    ) -> Result<Trajectory> {
        let (Some(termination), Some((value, grade))) = (ep.termination(), ep.outcome()) else {
            return Err(Error::EpisodeNotRunning);
        };
        let code_steps = ep.steps().iter().filter(|s| s.action == "run_code" || s.action == "run_pipeline").count();
        let timed_out = ep.steps().iter().filter(|s| s.status == "timed_out").count();
        let masked = termination == Termination::PolicyError
            || (code_steps > 0 && timed_out as f64 / code_steps as f64 > TIMEOUT_MASK_SHARE);
        Ok(Trajectory {
            schema: SCHEMA.into(),
            episode_id: format!("{}:{}", ep.task().id(), at.rollout_idx),
            group_id: at.group_id.clone(),
            task_id: ep.task().id().to_owned(),
            env_version: ep.task().version().to_owned(),
            rollout_idx: at.rollout_idx,
            seed: at.seed,
            codec: ep.codec_name().to_owned(),
            tools: ep.tools(),
            prompt: ep.prompt().to_vec(),
            completion: ep.completion().to_vec(),
            reward: value.value,
            reward_scheme: ep.reward_name().to_owned(),
            reward_breakdown: value.breakdown.clone(),
            reward_components: value.components.clone(),
            advantage: 0.0,
            advantage_estimator: String::new(),
            group_size: 1,
            group_flags: GroupFlags::default(),
            termination,
            truncated: termination.is_truncation(),
            masked,
            code_steps,
            timed_out_code_steps: timed_out,
            steps: ep.steps().to_vec(),
            final_grade: FinalGrade::from(grade),
            timing: Timing { env_ms: u64::try_from(ep.env_time().as_millis()).unwrap_or(u64::MAX), model_ms },
            tokens,
        })
    }

    /// `prompt + completion`: the `messages` row of an SFT dataset.
    pub fn messages(&self) -> Vec<Message> {
        self.prompt.iter().chain(self.completion.iter()).cloned().collect()
    }

    /// The trajectory as one JSON line (no newline).
    ///
    /// # Errors
    /// None in practice (the types serialise); passed on.
    pub fn to_json_line(&self) -> Result<String> {
        serde_json::to_string(self).map_err(|e| Error::Policy { policy: "trajectory".into(), reason: e.to_string() })
    }
}

/// The top-level fields every `sandmle.trajectory/v1` line has.
pub const FIELDS: [&str; 27] = [
    "schema",
    "episode_id",
    "group_id",
    "task_id",
    "env_version",
    "rollout_idx",
    "seed",
    "codec",
    "tools",
    "prompt",
    "completion",
    "reward",
    "reward_scheme",
    "reward_breakdown",
    "reward_components",
    "advantage",
    "advantage_estimator",
    "group_size",
    "group_flags",
    "termination",
    "truncated",
    "masked",
    "code_steps",
    "timed_out_code_steps",
    "steps",
    "final_grade",
    "timing",
];

/// Checks a JSON line against the documented fields: every field of
/// [`FIELDS`], the schema name, step and final-grade keys.
///
/// # Errors
/// A one-line reason.
pub fn validate_line(line: &str) -> std::result::Result<(), String> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let obj = v.as_object().ok_or("not an object")?;
    if let Some(missing) = FIELDS.iter().find(|f| !obj.contains_key(**f)) {
        return Err(format!("missing field `{missing}`"));
    }
    if obj.get("schema").and_then(|s| s.as_str()) != Some(SCHEMA) {
        return Err(format!("schema is not {SCHEMA}"));
    }
    let steps = obj.get("steps").and_then(|s| s.as_array()).ok_or("steps is not a list")?;
    for s in steps {
        for key in ["turn", "action", "format_ok", "status", "wall_ms", "reward"] {
            if s.get(key).is_none() {
                return Err(format!("a step has no `{key}`"));
            }
        }
    }
    let grade = obj.get("final_grade").ok_or("no final_grade")?;
    for key in
        ["score", "is_lower_better", "gold_threshold", "silver_threshold", "bronze_threshold", "median_threshold"]
    {
        if grade.get(key).is_none() {
            return Err(format!("final_grade has no `{key}`"));
        }
    }
    Ok(())
}

/// Writes trajectories as JSON lines to `path` (replacing it).
///
/// # Errors
/// [`Error::Io`].
pub fn write_jsonl(path: &Path, trajectories: &[Trajectory]) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    for t in trajectories {
        writeln!(out, "{}", t.to_json_line()?).map_err(io)?;
    }
    out.flush().map_err(io)
}
