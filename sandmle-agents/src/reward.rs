//! Rewards: pluggable ([`Reward`]), evaluated on the episode so far.
//!
//! Every scheme sees the format rate (the share of assistant turns whose
//! raw text starts with a non-empty `<think>…</think>`, the release's
//! check) and the graded submission's report; tiers compare the graded
//! (5-decimal) score with the environment's thresholds, inclusively.
//!
//! | scheme | value |
//! |---|---|
//! | `released_dense` (default; SandMLE's release) | `0.2·[valid] + (0.7 gold \| 0.6 silver \| 0.5 bronze \| 0.1 ≥ median)` (one tier, inclusive) `+ 0.1·format` |
//! | `paper_dense` | `0.1·format + 0.3·executed + 0.1·[≥ median] + 0.2·[≥ bronze] + 0.2·[≥ silver] + 0.1·[gold]` |
//! | `sparse` | `0.1·format + 0.9·[gold]` |
//! | `human_rank` | `0.1·format + 0.9·human_rank` |
//!
//! "executed" is a valid graded submission (the solution ran end to end
//! and produced something the grader could score). The release computes
//! its dense reward as written above (its `_score_to_reward`), where
//! "≥ median" is inclusive — unlike the grader's strict `above_median`.

use crate::codec::format_ok;
use sandmle_core::{Direction, GradeReport, Thresholds};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a reward is computed from.
#[derive(Debug, Clone, Copy)]
pub struct RewardInput<'a> {
    /// The share of assistant turns in the release's format (0 when none).
    pub format_rate: f64,
    /// The graded submission's report, if anything was graded.
    pub grade: Option<&'a GradeReport>,
    /// The environment's thresholds.
    pub thresholds: &'a Thresholds,
}

/// One named part of a reward: its weight, its value (an indicator or a
/// rate in `[0, 1]`), and what it adds to the reward (`weight × value`).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct RewardComponent {
    /// The most the component can add.
    pub weight: f64,
    /// Where it stands, in `[0, 1]`.
    pub value: f64,
    /// `weight × value`.
    pub reward: f64,
}

/// A reward's value and its parts.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct RewardValue {
    /// The reward.
    pub value: f64,
    /// Its terms by name (they sum to `value`); a scheme may group
    /// components into one term (`released_dense`'s `tier`).
    pub breakdown: BTreeMap<String, f64>,
    /// Every component by name, with its weight (they sum to `value`).
    #[serde(default)]
    pub components: BTreeMap<String, RewardComponent>,
}

impl RewardValue {
    /// A reward from `(name, term, weight, value)` components: each adds
    /// `weight × value`, and the breakdown sums them by term.
    fn from_components(parts: &[(&str, &str, f64, f64)]) -> Self {
        let mut breakdown: BTreeMap<String, f64> = BTreeMap::new();
        let mut components = BTreeMap::new();
        let mut value = 0.0;
        for &(name, term, weight, v) in parts {
            let reward = weight * v;
            *breakdown.entry(term.to_owned()).or_insert(0.0) += reward;
            components.insert(name.to_owned(), RewardComponent { weight, value: v, reward });
            value += reward;
        }
        RewardValue { value, breakdown, components }
    }

    /// The weight of every component, by name.
    pub fn weights(&self) -> BTreeMap<String, f64> {
        self.components.iter().map(|(k, c)| (k.clone(), c.weight)).collect()
    }
}

/// A reward scheme.
pub trait Reward: Send + Sync {
    /// The scheme's name (recorded in trajectories).
    fn name(&self) -> &str;
    /// The reward of an episode (or of its prefix so far).
    fn reward(&self, input: &RewardInput<'_>) -> RewardValue;
}

/// The share of `texts` in the release's format; 0 for none.
pub fn format_rate<S: AsRef<str>>(texts: &[S]) -> f64 {
    if texts.is_empty() {
        return 0.0;
    }
    texts.iter().filter(|t| format_ok(t.as_ref())).count() as f64 / texts.len() as f64
}

/// The tier flags of a graded score, inclusive: `[gold, silver, bronze,
/// median]` reached (a gold score reaches all four).
pub fn tiers(grade: Option<&GradeReport>, t: &Thresholds) -> [bool; 4] {
    let Some(score) = grade.filter(|g| g.valid_submission).and_then(|g| g.score) else {
        return [false; 4];
    };
    let d: Direction = t.direction();
    [t.gold, t.silver, t.bronze, t.median].map(|th| d.at_least(score, th))
}

fn valid(input: &RewardInput<'_>) -> bool {
    input.grade.is_some_and(|g| g.valid_submission && g.score.is_some())
}

fn flag(b: bool) -> f64 {
    if b { 1.0 } else { 0.0 }
}

/// SandMLE's released dense reward.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReleasedDense;

impl Reward for ReleasedDense {
    fn name(&self) -> &str {
        "released_dense"
    }
    fn reward(&self, input: &RewardInput<'_>) -> RewardValue {
        let [gold, silver, bronze, median] = tiers(input.grade, input.thresholds);
        // One tier: the highest reached (the flags are inclusive).
        let (silver, bronze, median) = (silver && !gold, bronze && !silver, median && !bronze);
        RewardValue::from_components(&[
            ("valid", "valid", 0.2, flag(valid(input))),
            ("gold", "tier", 0.7, flag(gold)),
            ("silver", "tier", 0.6, flag(silver)),
            ("bronze", "tier", 0.5, flag(bronze)),
            ("median", "tier", 0.1, flag(median)),
            ("format", "format", 0.1, input.format_rate),
        ])
    }
}

/// The paper's dense reward.
#[derive(Debug, Clone, Copy, Default)]
pub struct PaperDense;

impl Reward for PaperDense {
    fn name(&self) -> &str {
        "paper_dense"
    }
    fn reward(&self, input: &RewardInput<'_>) -> RewardValue {
        let [gold, silver, bronze, median] = tiers(input.grade, input.thresholds);
        RewardValue::from_components(&[
            ("format", "format", 0.1, input.format_rate),
            ("executed", "executed", 0.3, flag(valid(input))),
            ("median", "median", 0.1, flag(median)),
            ("bronze", "bronze", 0.2, flag(bronze)),
            ("silver", "silver", 0.2, flag(silver)),
            ("gold", "gold", 0.1, flag(gold)),
        ])
    }
}

/// Format and gold only.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sparse;

impl Reward for Sparse {
    fn name(&self) -> &str {
        "sparse"
    }
    fn reward(&self, input: &RewardInput<'_>) -> RewardValue {
        let [gold, ..] = tiers(input.grade, input.thresholds);
        RewardValue::from_components(&[("format", "format", 0.1, input.format_rate), ("gold", "gold", 0.9, flag(gold))])
    }
}

/// Format and HumanRank on the reference leaderboard (0 without one).
#[derive(Debug, Clone, Copy, Default)]
pub struct HumanRank;

impl Reward for HumanRank {
    fn name(&self) -> &str {
        "human_rank"
    }
    fn reward(&self, input: &RewardInput<'_>) -> RewardValue {
        let rank = input.grade.filter(|g| g.valid_submission).and_then(|g| g.human_rank).unwrap_or(0.0);
        RewardValue::from_components(&[
            ("format", "format", 0.1, input.format_rate),
            ("human_rank", "human_rank", 0.9, rank),
        ])
    }
}

/// The built-in schemes' names.
pub const REWARD_SCHEMES: [&str; 4] = ["released_dense", "paper_dense", "sparse", "human_rank"];

/// A built-in scheme by name.
pub fn reward_by_name(name: &str) -> Option<Arc<dyn Reward>> {
    match name {
        "released_dense" => Some(Arc::new(ReleasedDense)),
        "paper_dense" => Some(Arc::new(PaperDense)),
        "sparse" => Some(Arc::new(Sparse)),
        "human_rank" => Some(Arc::new(HumanRank)),
        _ => None,
    }
}
