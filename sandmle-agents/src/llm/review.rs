//! The LLM MLOps Engineer and Technical Writer.

use super::LlmSettings;
use crate::error::Result;
use crate::roles::{Brief, GradingCheck, MlOpsEngineer, TechnicalWriter, leaks};
use sandmle_core::{Environment, TaskPlan};
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;

/// The MLOps Engineer's prompt template, versioned.
pub const MLOPS_PROMPT: &str = "mlops-v1";
/// The Technical Writer's prompt template, versioned.
pub const WRITER_PROMPT: &str = "writer-v1";

const MLOPS_SYSTEM: &str = "You are the MLOps Engineer of a team that builds small machine-learning tasks for \
training agents. You review a task's grading before it is used and refuse it when something is wrong. Reply \
with one JSON object only.";

const WRITER_SYSTEM: &str = "You are the Technical Writer of a team that builds small machine-learning tasks \
for training agents. You write the task's description.md for the agent: the story, the files, every column, \
the metric and its direction, the submission format with an example and the budgets. You never reveal how the \
target was generated. Reply with one JSON object only.";

/// The LLM MLOps Engineer: the base engineer's checks run first and stand;
/// the model reviews their figures and may add refusals, never remove one.
#[derive(Clone)]
pub struct LlmMlOps {
    /// The model and repair budget.
    pub settings: LlmSettings,
    /// The engineer whose checks always run.
    pub base: Arc<dyn MlOpsEngineer>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Review {
    accept: bool,
    #[serde(default)]
    reasons: Vec<String>,
}

impl MlOpsEngineer for LlmMlOps {
    fn name(&self) -> &str {
        MLOPS_PROMPT
    }

    fn validate_rewards(&self, env: &Environment) -> Result<Option<crate::reward_check::RewardReport>> {
        self.base.validate_rewards(env)
    }

    fn difficulty(&self, env: &Environment) -> Result<Option<sandmle_core::Difficulty>> {
        self.base.difficulty(env)
    }

    fn check(&self, env: &Environment) -> Result<GradingCheck> {
        let mut check = self.base.check(env)?;
        let task = env.task();
        let facts = json!({
            "metric": task.metric.name,
            "lower_is_better": task.direction.is_lower_better(),
            "thresholds": env.grading.thresholds,
            "sample_score": check.sample_score,
            "perfect_score": check.perfect_score,
            "leaderboard_size": env.leaderboard.as_ref().map(|l| l.entries.len()),
            "train_rows": env.train.n_rows(),
            "test_rows": env.test.n_rows(),
            "checks_failed": check.refusals,
        });
        let prompt = format!(
            "Review this task's grading:\n{facts}\n\nReply with a JSON object: `accept` (true or false) and \
             `reasons` (a list of one-line reasons; required when `accept` is false)."
        );
        let review = self.settings.ask("mlops engineer", MLOPS_SYSTEM, prompt, |v| {
            let r: Review = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
            if !r.accept && r.reasons.iter().all(|s| s.trim().is_empty()) {
                return Err("a refusal needs at least one reason".into());
            }
            Ok(r)
        })?;
        if !review.accept {
            check.refusals.extend(review.reasons.iter().map(|r| format!("review: {}", sandmle_core::bounded(r))));
        }
        Ok(check)
    }
}

/// The LLM Technical Writer: the model writes the description from the
/// facts the built-in writer uses (its description is given as the facts'
/// summary); a description that [`leaks`] the hidden rule, or that leaves
/// out the metric or the submission header, is sent back.
#[derive(Clone)]
pub struct LlmWriter {
    /// The model and repair budget.
    pub settings: LlmSettings,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    description: String,
}

impl TechnicalWriter for LlmWriter {
    fn name(&self) -> &str {
        WRITER_PROMPT
    }

    fn describe(&self, env: &Environment, plan: &TaskPlan, brief: &Brief) -> Result<String> {
        let facts = crate::roles::write_description(env, plan, brief);
        let task = env.task();
        let header: Vec<&str> = std::iter::once(task.id_column.as_str())
            .chain(task.prediction_columns.iter().map(String::as_str))
            .collect();
        let header = header.join(",");
        let prompt = format!(
            "Write description.md for this task. The facts, as a plain draft:\n\n{facts}\n\nKeep every fact; \
             write it for an engineer in the domain. Reply with a JSON object with one key, `description`, \
             holding the Markdown."
        );
        self.settings.ask("technical writer", WRITER_SYSTEM, prompt, |v| {
            let w: Written = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
            let found = leaks(env, &w.description);
            if let Some(leak) = found.first() {
                return Err(format!("the description {leak}: it must not reveal how the target was generated"));
            }
            if !w.description.contains(&task.metric.name) {
                return Err(format!("the description must name the metric `{}`", task.metric.name));
            }
            if !w.description.contains(&header) {
                return Err(format!("the description must give the submission header `{header}`"));
            }
            Ok(w.description)
        })
    }
}
