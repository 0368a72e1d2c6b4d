//! The LLM Data Strategist and ML Developer.

use super::LlmSettings;
use crate::error::Result;
use crate::roles::{DataStrategist, MlDeveloper};
use sandmle_core::{Environment, FeatureDna, PlanRequest, TaskPlan, TaskStory};
use serde::Deserialize;
use serde_json::json;
use std::collections::BTreeSet;
use std::sync::Arc;

/// The Data Strategist's prompt template, versioned.
pub const STRATEGIST_PROMPT: &str = "strategist-v1";
/// The ML Developer's prompt template, versioned.
pub const DEVELOPER_PROMPT: &str = "developer-v1";

const STRATEGIST_SYSTEM: &str = "You are the Data Strategist of a team that builds small machine-learning \
tasks for training agents. You re-home a task's structure in a new domain: you choose the domain, the story, \
meaningful column and class names, and the family of the hidden rule. You never change the structure. Reply \
with one JSON object only.";

const DEVELOPER_SYSTEM: &str = "You are the ML Developer of a team that builds small machine-learning tasks \
for training agents. You set how hard the task is: the noise of its hidden rule and how its data departs \
from the seed. Reply with one JSON object only.";

/// `true` for a lower-case identifier of at most 64 characters.
fn identifier(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// The LLM Data Strategist: takes the built-in strategist's plan (its
/// structure: features, targets, mutations) and asks the model for the
/// domain, story, column and class names and rule family.
#[derive(Clone)]
pub struct LlmStrategist {
    /// The model and repair budget.
    pub settings: LlmSettings,
    /// The strategist whose plan is dressed.
    pub base: Arc<dyn DataStrategist>,
    /// The rule families the synthesizer realises.
    pub families: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Dress {
    domain: String,
    title: String,
    row_noun: String,
    context: String,
    feature_names: Vec<String>,
    target_names: Vec<String>,
    #[serde(default)]
    classes: Vec<String>,
    rule_family: String,
}

fn kind_word(f: &FeatureDna) -> &'static str {
    match f {
        FeatureDna::Numeric { .. } => "numeric",
        FeatureDna::Categorical { .. } => "categorical",
        FeatureDna::Text { .. } => "text",
    }
}

impl LlmStrategist {
    fn prompt(&self, plan: &TaskPlan) -> String {
        let brief = json!({
            "task_kind": plan.dna.kind,
            "metric": plan.dna.metric.name,
            "features": plan.features.iter().map(|f| kind_word(&f.dna)).collect::<Vec<_>>(),
            "targets": plan.targets.len(),
            "classes": plan.classes.len(),
            "rule_families": self.families,
            "example": {
                "domain": plan.domain,
                "title": plan.story.title,
                "row_noun": plan.story.row_noun,
                "context": plan.story.context,
                "feature_names": plan.features.iter().map(|f| &f.name).collect::<Vec<_>>(),
                "target_names": plan.targets,
                "classes": plan.classes,
                "rule_family": plan.rule_family,
            },
        });
        format!(
            "Re-home this task in a new domain. Structure:\n{brief}\n\nReply with a JSON object with the keys of \
             `example`: `domain`, `title`, `row_noun` (what one row is), `context` (one sentence), \
             `feature_names` (exactly {} lower-case identifiers, one per feature in order, fitting each feature's \
             kind), `target_names` ({} identifiers), `classes` ({} class names, or [] when that is 0) and \
             `rule_family` (one of `rule_families`). Every column name distinct, none `id`.",
            plan.features.len(),
            plan.targets.len(),
            plan.classes.len()
        )
    }

    fn validate(&self, plan: &TaskPlan, v: &serde_json::Value) -> std::result::Result<TaskPlan, String> {
        let d: Dress = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        if d.feature_names.len() != plan.features.len() {
            return Err(format!("{} feature names for {} features", d.feature_names.len(), plan.features.len()));
        }
        if d.target_names.len() != plan.targets.len() {
            return Err(format!("{} target names for {} targets", d.target_names.len(), plan.targets.len()));
        }
        if d.classes.len() != plan.classes.len() {
            return Err(format!("{} classes for {}", d.classes.len(), plan.classes.len()));
        }
        let mut seen = BTreeSet::from(["id".to_owned()]);
        for n in d.feature_names.iter().chain(&d.target_names) {
            if !identifier(n) {
                return Err(format!("`{}` is not a lower-case identifier", sandmle_core::bounded(n)));
            }
            if !seen.insert(n.clone()) {
                return Err(format!("the column name `{n}` is used twice (or is `id`)"));
            }
        }
        let classes: BTreeSet<&String> = d.classes.iter().collect();
        if classes.len() != d.classes.len() || d.classes.iter().any(|c| c.trim().is_empty() || c.len() > 40) {
            return Err("class names must be distinct, non-empty and short".into());
        }
        if !self.families.contains(&d.rule_family) {
            return Err(format!("`{}` is not one of the rule families", sandmle_core::bounded(&d.rule_family)));
        }
        for (what, s) in
            [("domain", &d.domain), ("title", &d.title), ("row_noun", &d.row_noun), ("context", &d.context)]
        {
            if s.trim().is_empty() || s.len() > 300 || s.contains('\n') {
                return Err(format!("`{what}` must be one non-empty line of at most 300 characters"));
            }
        }
        let mut dressed = plan.clone();
        dressed.domain = d.domain;
        dressed.story = TaskStory { title: d.title, row_noun: d.row_noun, context: d.context };
        for (f, name) in dressed.features.iter_mut().zip(d.feature_names) {
            if f.name != name {
                f.unit = None;
            }
            f.name = name;
        }
        dressed.targets = d.target_names;
        dressed.classes = d.classes;
        dressed.rule_family = d.rule_family;
        Ok(dressed)
    }
}

impl DataStrategist for LlmStrategist {
    fn name(&self) -> &str {
        STRATEGIST_PROMPT
    }

    fn plan(&self, seed_env: &Environment, request: &PlanRequest) -> Result<TaskPlan> {
        let plan = self.base.plan(seed_env, request)?;
        self.settings.ask("data strategist", STRATEGIST_SYSTEM, self.prompt(&plan), |v| self.validate(&plan, v))
    }

    fn prepare(&self, seed_env: &Environment) -> Result<()> {
        self.base.prepare(seed_env)
    }
}

/// The LLM ML Developer: the model sets the difficulty and the noise,
/// imbalance and missingness factors within ranges; the base developer
/// then builds the environment from the adjusted plan.
#[derive(Clone)]
pub struct LlmDeveloper {
    /// The model and repair budget.
    pub settings: LlmSettings,
    /// The developer that builds the environment.
    pub base: Arc<dyn MlDeveloper>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Hardness {
    difficulty: f64,
    noise: f64,
    imbalance: f64,
    missingness: f64,
}

impl LlmDeveloper {
    fn validate(plan: &TaskPlan, v: &serde_json::Value) -> std::result::Result<TaskPlan, String> {
        let h: Hardness = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        for (name, x, lo, hi) in [
            ("difficulty", h.difficulty, 0.0, 1.0),
            ("noise", h.noise, 0.5, 1.5),
            ("imbalance", h.imbalance, 0.5, 1.5),
            ("missingness", h.missingness, 0.0, 2.0),
        ] {
            if !(lo..=hi).contains(&x) {
                return Err(format!("`{name}` must lie in [{lo}, {hi}], not {x}"));
            }
        }
        let mut p = plan.clone();
        p.difficulty = h.difficulty;
        p.mutations.noise = h.noise;
        p.mutations.imbalance = h.imbalance;
        p.mutations.missingness = h.missingness;
        Ok(p)
    }
}

impl MlDeveloper for LlmDeveloper {
    fn name(&self) -> &str {
        DEVELOPER_PROMPT
    }

    fn develop(&self, plan: &TaskPlan) -> Result<Environment> {
        let brief = json!({
            "task_kind": plan.dna.kind,
            "metric": plan.dna.metric.name,
            "features": plan.features.len(),
            "domain": plan.domain,
            "current": {
                "difficulty": plan.difficulty,
                "noise": plan.mutations.noise,
                "imbalance": plan.mutations.imbalance,
                "missingness": plan.mutations.missingness,
            },
        });
        let prompt = format!(
            "Set the task's hardness. Task:\n{brief}\n\nReply with a JSON object with `difficulty` (0 to 1: the \
             hidden rule's noise), `noise` (0.5 to 1.5: a factor on it), `imbalance` (0.5 to 1.5: a factor on \
             the positive share) and `missingness` (0 to 2: a factor on missing rates)."
        );
        let adjusted = self.settings.ask("ml developer", DEVELOPER_SYSTEM, prompt, |v| Self::validate(plan, v))?;
        self.base.develop(&adjusted)
    }
}
