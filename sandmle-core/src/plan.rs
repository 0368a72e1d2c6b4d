//! [`TaskPlan`]: what the Data Strategist decides for one candidate task —
//! the seed's DNA, the domain it is re-homed in (story, column and class
//! names), the hidden-rule family and difficulty, and the mutations — and
//! what the ML Developer turns into data.
//!
//! A plan is plain data (serde), so an LLM-backed strategist can propose
//! one as JSON and a human can read it in `provenance.json`. It never
//! reaches the public files: the rule family and mutations are private.

use crate::dna::{FeatureDna, TaskDna};
use serde::{Deserialize, Serialize};

/// Which candidate a plan is for: the seed task, the run's seed, the
/// candidate's index and its attempt (a failed candidate is retried with a
/// fresh seed), and the modality asked of it, if any. The candidate's own
/// seed derives from the first four.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanRequest {
    /// The seed task's id.
    pub seed_task: String,
    /// The run's seed.
    pub run_seed: u64,
    /// The candidate's index within the seed.
    pub index: usize,
    /// 0 for the first attempt, then 1, 2, ... for retries.
    pub attempt: u32,
    /// The modality the candidate is to have, when a run's mix
    /// ([`crate::Mix`]) chose one; `None` keeps the seed's. A synthesizer
    /// that cannot recast its seed's DNA into it keeps the seed's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modality: Option<crate::Modality>,
}

impl PlanRequest {
    /// The candidate's seed: derived from the seed task, the run's seed,
    /// the index and the attempt, so every seed task gets its own stream.
    pub fn candidate_seed(&self) -> u64 {
        crate::derive_seed(
            self.run_seed,
            &format!("{}/candidate-{}/attempt-{}", self.seed_task, self.index, self.attempt),
        )
    }
}

/// The story a task tells: its title, what one row stands for, and a
/// sentence of context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskStory {
    /// The task's title.
    pub title: String,
    /// What one row stands for (`"patient visit"`).
    pub row_noun: String,
    /// A sentence of context.
    pub context: String,
}

/// One feature to generate: its name, unit, its structure and whether the
/// hidden rule reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedFeature {
    /// The column's name.
    pub name: String,
    /// Its unit, for the description (`"mmHg"`), if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// Its structure (type, shape, missingness).
    pub dna: FeatureDna,
    /// `true` if the hidden rule reads it; `false` for a distractor.
    pub signal: bool,
}

/// How a candidate departs from its seed's DNA.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Mutations {
    /// Factor on the rule's noise.
    pub noise: f64,
    /// Factor on the positive share (two classes).
    pub imbalance: f64,
    /// Factor on missing rates.
    pub missingness: f64,
    /// Features added (positive) or removed (negative).
    pub feature_delta: i32,
    /// Pure-noise features added.
    pub irrelevant: usize,
}

impl Mutations {
    /// No mutation.
    pub fn none() -> Self {
        Mutations { noise: 1.0, imbalance: 1.0, missingness: 1.0, feature_delta: 0, irrelevant: 0 }
    }
}

/// A candidate task's plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskPlan {
    /// The seed task's id.
    pub seed_task: String,
    /// The candidate's seed (every random choice of the data draws from it).
    pub seed: u64,
    /// The seed's DNA.
    pub dna: TaskDna,
    /// The domain the task is re-homed in.
    pub domain: String,
    /// The story the description tells.
    pub story: TaskStory,
    /// The features, in column order (after the mutations).
    pub features: Vec<PlannedFeature>,
    /// One name per target of the DNA.
    pub targets: Vec<String>,
    /// Class names for label targets (empty: numbered classes).
    #[serde(default)]
    pub classes: Vec<String>,
    /// The hidden rule's family.
    pub rule_family: String,
    /// Noise of the rule, 0 (none) to 1 (as strong as the signal).
    pub difficulty: f64,
    /// The mutations.
    pub mutations: Mutations,
}

impl TaskPlan {
    /// Every column name the plan gives the data, id and targets included,
    /// in order; a plan is only usable when they are distinct.
    pub fn column_names(&self) -> Vec<&str> {
        std::iter::once("id")
            .chain(self.features.iter().map(|f| f.name.as_str()))
            .chain(self.targets.iter().map(String::as_str))
            .collect()
    }
}
