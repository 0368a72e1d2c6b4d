//! `yield.json` and `index.jsonl`, derived from the slot records.

use super::records::{AttemptRecord, SlotRecord, Stage};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How many candidates survive each stage (the last attempt of each slot
/// decides), as in the SandMLE paper's 1,200 → 912.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Funnel {
    /// Candidate slots.
    pub candidates: usize,
    /// Attempts made (retries included).
    pub attempts: usize,
    /// Slots that needed more than one attempt.
    pub retried: usize,
    /// Planned by the Data Strategist.
    pub planned: usize,
    /// Built by the ML Developer.
    pub developed: usize,
    /// Accepted by the MLOps Engineer.
    pub checked: usize,
    /// Described without leaking the rule.
    pub described: usize,
    /// For each gate in order: slots that passed it and every gate before.
    pub gates: Vec<(String, usize)>,
    /// Slots with a kept environment.
    pub kept: usize,
    /// Attempts lost to an LLM-backed role or its chat model (retries
    /// included), counted apart from the stages above.
    pub llm_failures: usize,
}

impl Funnel {
    fn add(&mut self, r: &SlotRecord) {
        self.candidates += 1;
        self.attempts += r.attempts.len();
        self.retried += usize::from(r.attempts.len() > 1);
        self.llm_failures += r.attempts.iter().filter(|a| a.llm_failure).count();
        let Some(last) = r.attempts.last() else { return };
        let past = |s: Stage| last.stage > s;
        self.planned += usize::from(past(Stage::Plan));
        self.developed += usize::from(past(Stage::Develop));
        self.checked += usize::from(past(Stage::Check));
        self.described += usize::from(past(Stage::Describe));
        if self.gates.is_empty() {
            self.gates = last.gates.iter().map(|g| (g.gate.clone(), 0)).collect();
        }
        for (i, (gate, n)) in self.gates.iter_mut().enumerate() {
            let through =
                last.gates.iter().take(i + 1).all(|g| g.passed) && last.gates.get(i).is_some_and(|g| g.gate == *gate);
            *n += usize::from(through);
        }
        self.kept += usize::from(r.env_id.is_some());
    }
}

/// The settings of a run, recorded once (`slots/run.json`) and checked by
/// every later run and shard writing to the same output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    /// The record's schema.
    pub schema: String,
    /// The run's seed.
    pub run_seed: u64,
    /// Candidates per seed task.
    pub per_seed: usize,
    /// Retries of a failed candidate.
    pub retries: u32,
    /// The roles' names: strategist, developer, MLOps engineer, writer.
    pub roles: BTreeMap<String, String>,
    /// The difficulty band kept, if the run keeps one only (absent
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_band: Option<u8>,
    /// The modality mix, if the run asked for one (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<sandmle_core::Mix>,
}

/// The spread of the kept environments over domains, rule families,
/// mutations and modalities, and how many of them are alike.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Spread {
    /// Distinct titles among the kept environments.
    pub titles: usize,
    /// Distinct sets of feature column names.
    pub column_sets: usize,
    /// Pairs of kept environments that are near-duplicates
    /// ([`near_duplicates`]).
    pub near_duplicates: usize,
    /// Kept environments per modality.
    pub modalities: BTreeMap<String, usize>,
    /// Kept environments per domain.
    pub domains: BTreeMap<String, usize>,
    /// Kept environments per rule family.
    pub rule_families: BTreeMap<String, usize>,
    /// Kept environments per value of each mutation.
    pub mutations: BTreeMap<String, BTreeMap<String, usize>>,
}

/// One failed attempt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailedAttempt {
    /// The seed task.
    pub seed_task: String,
    /// The slot's index.
    pub index: usize,
    /// The attempt.
    pub attempt: u32,
    /// Where it stopped.
    pub stage: Stage,
    /// Why (the failed gates' names at the gate stage).
    pub error: String,
}

/// The content of `yield.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Yield {
    /// The file's schema.
    pub schema: &'static str,
    /// The run's settings.
    pub settings: RunSettings,
    /// The funnel over every seed task.
    pub total: Funnel,
    /// The funnel of each seed task.
    pub seeds: BTreeMap<String, Funnel>,
    /// How the kept environments spread.
    pub spread: Spread,
    /// Every failed attempt, in slot order.
    pub failures: Vec<FailedAttempt>,
}

/// The yield of `records` (sorted by seed task and index).
pub fn yield_of(settings: &RunSettings, records: &[SlotRecord]) -> Yield {
    let mut total = Funnel::default();
    let mut seeds: BTreeMap<String, Funnel> = BTreeMap::new();
    let mut spread = Spread::default();
    let mut failures = Vec::new();
    for r in records {
        total.add(r);
        seeds.entry(r.seed_task.clone()).or_default().add(r);
        for a in &r.attempts {
            let error = match &a.error {
                Some(e) => Some(e.clone()),
                None if !a.kept() => Some(format!(
                    "failed gates: {}",
                    a.gates.iter().filter(|g| !g.passed).map(|g| g.gate.as_str()).collect::<Vec<_>>().join(", ")
                )),
                None => None,
            };
            if let Some(error) = error {
                failures.push(FailedAttempt {
                    seed_task: r.seed_task.clone(),
                    index: r.index,
                    attempt: a.attempt,
                    stage: a.stage,
                    error,
                });
            }
        }
        if let (Some(_), Some(last)) = (&r.env_id, r.attempts.last()) {
            if let Some(d) = &last.domain {
                *spread.domains.entry(d.clone()).or_default() += 1;
            }
            if let Some(f) = &last.rule_family {
                *spread.rule_families.entry(f.clone()).or_default() += 1;
            }
            if let Some(m) = &last.mutations {
                for (name, value) in [
                    ("noise", m.noise.to_string()),
                    ("imbalance", m.imbalance.to_string()),
                    ("missingness", m.missingness.to_string()),
                    ("feature_delta", m.feature_delta.to_string()),
                    ("irrelevant", m.irrelevant.to_string()),
                ] {
                    *spread.mutations.entry(name.into()).or_default().entry(value).or_default() += 1;
                }
            }
        }
    }
    let kept: Vec<&AttemptRecord> =
        records.iter().filter(|r| r.env_id.is_some()).filter_map(|r| r.attempts.last()).collect();
    spread.titles = kept.iter().filter_map(|a| a.title.as_ref()).collect::<BTreeSet<_>>().len();
    spread.column_sets = kept
        .iter()
        .filter(|a| !a.columns.is_empty())
        .map(|a| a.columns.iter().collect::<BTreeSet<_>>())
        .collect::<BTreeSet<_>>()
        .len();
    spread.near_duplicates = near_duplicates(&kept);
    for r in records {
        if let Some(e) = &r.index_entry {
            let name = serde_json::to_value(e.modality).ok().and_then(|v| v.as_str().map(str::to_owned));
            *spread.modalities.entry(name.unwrap_or_default()).or_default() += 1;
        }
    }
    Yield { schema: "sandmle.yield/v1", settings: settings.clone(), total, seeds, spread, failures }
}

/// The share of column names two sets hold in common (Jaccard).
fn alike(a: &BTreeSet<&String>, b: &BTreeSet<&String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 { 1.0 } else { a.intersection(b).count() as f64 / union as f64 }
}

/// How alike two plans' feature columns are (Jaccard), when they could be
/// near-duplicates: the same target columns and rule family, and feature
/// columns in both; `None` otherwise.
pub fn plans_alike(a: &sandmle_core::TaskPlan, b: &sandmle_core::TaskPlan) -> Option<f64> {
    if a.targets != b.targets || a.rule_family != b.rule_family || a.features.is_empty() || b.features.is_empty() {
        return None;
    }
    let names = |p: &sandmle_core::TaskPlan| -> Vec<String> { p.features.iter().map(|f| f.name.clone()).collect() };
    let (a, b) = (names(a), names(b));
    Some(alike(&a.iter().collect(), &b.iter().collect()))
}

/// Pairs of `kept` attempts that are near-duplicates: the same target
/// columns and rule family, and feature column sets at least
/// [`NEAR_DUPLICATE_OVERLAP`] alike (Jaccard). Environments whose plans
/// recorded no columns are not compared.
pub fn near_duplicates(kept: &[&AttemptRecord]) -> usize {
    // By (targets, rule family): each kept plan's feature names.
    type Key<'a> = (&'a [String], Option<&'a String>);
    let mut groups: BTreeMap<Key<'_>, Vec<BTreeSet<&String>>> = BTreeMap::new();
    for a in kept.iter().filter(|a| !a.columns.is_empty()) {
        groups.entry((&a.targets, a.rule_family.as_ref())).or_default().push(a.columns.iter().collect());
    }
    let mut pairs = 0;
    for sets in groups.values() {
        for i in 0..sets.len() {
            pairs += (i + 1..sets.len()).filter(|&j| alike(&sets[i], &sets[j]) >= NEAR_DUPLICATE_OVERLAP).count();
        }
    }
    pairs
}

/// How alike two feature column sets must be (Jaccard) for two
/// environments with the same targets and rule family to count as
/// near-duplicates.
pub const NEAR_DUPLICATE_OVERLAP: f64 = 0.8;

/// How many of a seed's earlier candidates a plan is compared with (their
/// first plans) before the foundry develops it: the near-duplicate gate.
/// A plan that is [`NEAR_DUPLICATE_OVERLAP`] alike one of them
/// ([`plans_alike`]) is refused at the plan stage and the slot retries
/// with a fresh seed. Earlier candidates' *first* plans, re-derived, not
/// the attempts they kept: the gate then reads nothing another shard
/// wrote, so sharded runs keep the unsharded run's tree.
pub const NEAR_DUPLICATE_WINDOW: usize = 30;
