//! The four SandMLE roles as traits, one to two methods each, object-safe
//! and forwarded for `&T`, `Box<T>` and `Arc<T>`, so a user replaces one
//! role and keeps the others:
//!
//! - [`DataStrategist`]: seed environment → a [`TaskPlan`] (the seed's DNA,
//!   the domain it is re-homed in, the hidden-rule family and difficulty,
//!   the mutations);
//! - [`MlDeveloper`]: plan → an environment with data, the baseline
//!   panel's leaderboard, thresholds and a sample submission;
//! - [`MlOpsEngineer`]: environment → its grading checked, or the reasons
//!   it is refused;
//! - [`TechnicalWriter`]: environment + plan → `description.md`, which
//!   never reveals the hidden rule ([`leaks`]).
//!
//! Built-in deterministic implementations ([`builtin`]) need no LLM and
//! reach synthesis, execution and grading only through core's ports;
//! LLM-backed ones are in [`crate::llm`].

pub mod builtin;
mod leak;
mod writer;

pub use leak::{Leak, leaks};
pub use writer::{Brief, write_description};

use crate::error::Result;
use sandmle_core::{Environment, PlanRequest, TaskPlan};
use serde::Serialize;

/// Re-homes a seed task: decides what one candidate will be.
pub trait DataStrategist: Send + Sync {
    /// A short name for provenance.
    fn name(&self) -> &str;
    /// The plan for the candidate `request` names, from `seed_env`.
    ///
    /// # Errors
    /// When no plan can be made (the seed cannot be analysed, an LLM's
    /// replies stayed invalid).
    fn plan(&self, seed_env: &Environment, request: &PlanRequest) -> Result<TaskPlan>;
    /// Work a seed needs once, whatever its number of candidates (the
    /// built-in strategist extracts the seed's DNA), done before its
    /// first plan; nothing by default. The foundry calls it for each seed
    /// before any candidate and reports its time apart from theirs.
    ///
    /// # Errors
    /// When the seed cannot be analysed (its first plan would fail too).
    fn prepare(&self, seed_env: &Environment) -> Result<()> {
        let _ = seed_env;
        Ok(())
    }
    /// Whether [`DataStrategist::plan`] is a cheap, pure function of the
    /// seed and the request (`false` by default; the built-in strategist's
    /// is). The foundry then re-derives the plans of a seed's earlier
    /// candidates to refuse a near-duplicate one, whatever shard it runs
    /// on ([`crate::foundry::NEAR_DUPLICATE_WINDOW`]); it never asks a
    /// strategist that says `false` (an LLM's plans are neither).
    fn replans_cheaply(&self) -> bool {
        false
    }
}

/// Builds the environment a plan asks for.
pub trait MlDeveloper: Send + Sync {
    /// A short name for provenance.
    fn name(&self) -> &str;
    /// The environment: data from the plan's hidden rule, train/test split,
    /// answers, a sample submission, the panel's leaderboard and the medal
    /// thresholds derived from it.
    ///
    /// # Errors
    /// When the plan cannot be realised or no baseline scores.
    fn develop(&self, plan: &TaskPlan) -> Result<Environment>;
}

/// What the MLOps Engineer found: the figures its decision rests on and,
/// when it refuses the environment, why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GradingCheck {
    /// The sample submission's (rounded) score.
    pub sample_score: Option<f64>,
    /// The perfect submission's (the answers') score.
    pub perfect_score: Option<f64>,
    /// Why the environment is refused; empty when it is accepted.
    pub refusals: Vec<String>,
}

impl GradingCheck {
    /// `true` when nothing was found wrong.
    pub fn accepted(&self) -> bool {
        self.refusals.is_empty()
    }
}

/// Checks an environment's grading before anyone trains on it.
pub trait MlOpsEngineer: Send + Sync {
    /// A short name for provenance.
    fn name(&self) -> &str;
    /// The check; a refusal is an `Ok` check with reasons.
    ///
    /// # Errors
    /// When the check itself cannot run (the grader finds the environment
    /// broken, an LLM's replies stayed invalid).
    fn check(&self, env: &Environment) -> Result<GradingCheck>;

    /// Validates the reward on a kept environment
    /// ([`crate::reward_check`]): recorded in `index.jsonl`, never a
    /// reason to refuse. The default runs none.
    ///
    /// # Errors
    /// When the validation cannot run (a grader that finds the environment
    /// broken).
    fn validate_rewards(&self, env: &Environment) -> Result<Option<crate::reward_check::RewardReport>> {
        let _ = env;
        Ok(None)
    }

    /// How hard a kept environment is for stock baselines
    /// ([`crate::reward_check::difficulty_of`]): recorded in `index.jsonl`.
    /// The default measures none.
    ///
    /// # Errors
    /// When the measurement cannot run.
    fn difficulty(&self, env: &Environment) -> Result<Option<sandmle_core::Difficulty>> {
        let _ = env;
        Ok(None)
    }
}

/// Writes `description.md`.
pub trait TechnicalWriter: Send + Sync {
    /// A short name for provenance.
    fn name(&self) -> &str;
    /// The description of `env`, planned as `plan`, for an agent working
    /// within `brief`'s budgets. It must not reveal the hidden rule: the
    /// Foundry refuses a description that [`leaks`].
    ///
    /// # Errors
    /// When no acceptable description can be written.
    fn describe(&self, env: &Environment, plan: &TaskPlan, brief: &Brief) -> Result<String>;
}

sandmle_core::forward_impls!(DataStrategist {
    fn name(&self) -> &str;
    fn plan(&self, seed_env: &Environment, request: &PlanRequest) -> Result<TaskPlan>;
    fn prepare(&self, seed_env: &Environment) -> Result<()>;
    fn replans_cheaply(&self) -> bool;
});
sandmle_core::forward_impls!(MlDeveloper {
    fn name(&self) -> &str;
    fn develop(&self, plan: &TaskPlan) -> Result<Environment>;
});
sandmle_core::forward_impls!(MlOpsEngineer {
    fn name(&self) -> &str;
    fn check(&self, env: &Environment) -> Result<GradingCheck>;
    fn validate_rewards(&self, env: &Environment) -> Result<Option<crate::reward_check::RewardReport>>;
    fn difficulty(&self, env: &Environment) -> Result<Option<sandmle_core::Difficulty>>;
});
sandmle_core::forward_impls!(TechnicalWriter {
    fn name(&self) -> &str;
    fn describe(&self, env: &Environment, plan: &TaskPlan, brief: &Brief) -> Result<String>;
});
