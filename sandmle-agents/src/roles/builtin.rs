//! The built-in roles: deterministic, no LLM, each composed of core's
//! ports only (a [`Synthesizer`], a [`BaselinePanel`], a [`Grader`]).

use super::{Brief, DataStrategist, GradingCheck, MlDeveloper, MlOpsEngineer, TechnicalWriter, write_description};
use crate::error::Result;
use sandmle_core::{
    BaselinePanel, Environment, Grader, PlanRequest, Synthesizer, TaskDna, TaskPlan, metric_info, set_thresholds,
};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The built-in Data Strategist: the synthesizer's DNA of the seed and its
/// plan for the candidate (a domain rotated per seed, a drawn rule family
/// and mutations).
///
/// A seed's DNA is extracted once and kept ([`DnaCache`]): every candidate
/// of a seed plans from the same DNA, and on a large seed extracting it
/// costs more than the rest of a candidate.
#[derive(Clone)]
pub struct Strategist {
    /// Extracts DNA and plans.
    pub synthesizer: Arc<dyn Synthesizer>,
    /// DNA already extracted, shared by clones.
    pub dna_cache: DnaCache,
}

impl Strategist {
    /// A strategist over `synthesizer` with an empty DNA cache.
    pub fn new(synthesizer: Arc<dyn Synthesizer>) -> Self {
        Strategist { synthesizer, dna_cache: DnaCache::default() }
    }
}

/// Seed DNA by the seed's content: its task id and the sha256 of every file
/// `grading.json` lists. A seed read from disk has them; one built in memory
/// (no hashes) is never cached, so two different in-memory seeds never
/// share an entry.
#[derive(Clone, Default)]
pub struct DnaCache(Arc<Mutex<BTreeMap<String, TaskDna>>>);

impl DnaCache {
    fn key(seed_env: &Environment) -> Option<String> {
        let files = &seed_env.grading.files;
        (!files.is_empty()).then(|| {
            let mut key = seed_env.grading.task.id.clone();
            for (path, hash) in files {
                key.push_str(&format!("\n{path}={hash}"));
            }
            key
        })
    }

    /// The seed's DNA, extracted by `extract` on first use.
    fn get_or(&self, seed_env: &Environment, extract: impl FnOnce() -> Result<TaskDna>) -> Result<TaskDna> {
        let Some(key) = Self::key(seed_env) else { return extract() };
        if let Some(dna) = self.0.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(dna);
        }
        let dna = extract()?;
        if let Ok(mut m) = self.0.lock() {
            m.insert(key, dna.clone());
        }
        Ok(dna)
    }
}

impl DataStrategist for Strategist {
    fn name(&self) -> &str {
        "builtin-strategist"
    }

    fn plan(&self, seed_env: &Environment, request: &PlanRequest) -> Result<TaskPlan> {
        let dna = self.dna_cache.get_or(seed_env, || Ok(self.synthesizer.extract_dna(seed_env)?))?;
        Ok(self.synthesizer.plan(&dna, request)?)
    }

    /// Extracts the seed's DNA into the cache, which every plan of the
    /// seed reads; nothing for a seed the cache cannot key (one built in
    /// memory, without file hashes), whose every plan extracts its own.
    fn prepare(&self, seed_env: &Environment) -> Result<()> {
        if DnaCache::key(seed_env).is_none() {
            return Ok(());
        }
        self.dna_cache.get_or(seed_env, || Ok(self.synthesizer.extract_dna(seed_env)?)).map(|_| ())
    }

    fn replans_cheaply(&self) -> bool {
        true
    }
}

/// The built-in ML Developer: the synthesizer realises the plan, the panel
/// ranks baselines on it, the grader derives the thresholds
/// ([`sandmle_core::set_thresholds`]).
#[derive(Clone)]
pub struct Developer {
    /// Realises plans.
    pub synthesizer: Arc<dyn Synthesizer>,
    /// Gives the reference leaderboard.
    pub panel: Arc<dyn BaselinePanel>,
    /// Scores the panel and derives thresholds.
    pub grader: Arc<dyn Grader>,
}

impl MlDeveloper for Developer {
    fn name(&self) -> &str {
        "builtin-developer"
    }

    fn develop(&self, plan: &TaskPlan) -> Result<Environment> {
        let mut env = self.synthesizer.synthesize(plan)?;
        set_thresholds(&mut env, self.panel.as_ref(), self.grader.as_ref())?;
        Ok(env)
    }
}

/// The built-in MLOps Engineer: grades the sample submission and a perfect
/// submission (the answers) through the real grader and checks that both
/// are valid, that the thresholds are present, strictly ordered and point
/// the metric's way, that gold is strictly better than the sample, and that
/// the perfect submission reaches gold.
#[derive(Clone)]
pub struct MlOps {
    /// The grader every check goes through.
    pub grader: Arc<dyn Grader>,
    /// The gates: the checks the MLOps engineer shares with verification
    /// (the sample valid, thresholds recorded and ordered, gold beating the
    /// sample) are theirs, run through [`sandmle_core::Verifier::verify_gates`].
    pub verifier: Arc<dyn sandmle_core::Verifier>,
}

/// The gates the MLOps engineer runs as its own checks: four of the nine,
/// and `realistic`, the realism checks of a verifier that has them
/// (whole counts, no column piled on a bound, prose that reads as prose;
/// `sandmle_synth::realism_gate`). A verifier that does not know a name
/// returns nothing for it, and nothing is refused for it.
pub const MLOPS_GATES: [&str; 5] =
    ["sample_submission", "thresholds_recorded", "thresholds_ordered", "gold_beats_sample", "realistic"];

impl MlOpsEngineer for MlOps {
    fn name(&self) -> &str {
        "builtin-mlops"
    }

    /// The default reward (`released_dense`), validated with this role's grader.
    fn validate_rewards(&self, env: &Environment) -> Result<Option<crate::reward_check::RewardReport>> {
        let report = crate::reward_check::validate_rewards(env, self.grader.as_ref(), &crate::reward::ReleasedDense)?;
        Ok(Some(report))
    }

    /// Measured with this role's grader.
    fn difficulty(&self, env: &Environment) -> Result<Option<sandmle_core::Difficulty>> {
        crate::reward_check::difficulty_of(env, self.grader.as_ref())
    }

    fn check(&self, env: &Environment) -> Result<GradingCheck> {
        let task = env.grading_task();
        self.grader.check(&task)?;
        let sample = self.grader.grade(&task, &env.sample_submission)?;
        let perfect = self.grader.grade(&task, &env.answers)?;
        let mut refusals = Vec::new();
        for (what, r) in [("the sample submission", &sample), ("a perfect submission", &perfect)] {
            if !r.valid_submission {
                refusals.push(format!("{what} is invalid: {}", r.error.as_deref().unwrap_or("no reason")));
            }
        }
        let direction = env.task().direction;
        if metric_info(&env.task().metric.name).is_some_and(|m| m.direction != direction) {
            refusals.push(format!("the task's direction is not `{}`'s", env.task().metric.name));
        }
        if let Some(t) = &env.grading.thresholds
            && t.direction() != direction
        {
            refusals.push("the thresholds point the other way from the metric".into());
        }
        if env.grading.thresholds.is_some() && !perfect.gold_medal {
            refusals.push("a perfect submission does not reach gold".into());
        }
        for gate in self.verifier.verify_gates(env, &MLOPS_GATES)? {
            if !gate.passed {
                refusals.push(format!("gate {} failed: {}", gate.gate, gate.detail));
            }
        }
        Ok(GradingCheck { sample_score: sample.score, perfect_score: perfect.score, refusals })
    }
}

/// The built-in Technical Writer ([`write_description`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Writer;

impl TechnicalWriter for Writer {
    fn name(&self) -> &str {
        "builtin-writer"
    }

    fn describe(&self, env: &Environment, plan: &TaskPlan, brief: &Brief) -> Result<String> {
        Ok(write_description(env, plan, brief))
    }
}
