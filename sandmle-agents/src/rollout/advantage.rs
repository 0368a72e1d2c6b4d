//! Group advantages: GRPO `(r − mean)/(std + ε)` with the sample standard
//! deviation (n − 1) and ε = 1e-6, as verl 0.6.1 (SandMLE's trainer), TRL
//! and OpenRLHF compute it; Dr.GRPO `r − mean`; RLOO `n/(n − 1)·(r − mean)`
//! (each reward against the mean of the others). A singleton group gets
//! verl's treatment (mean 0, std 1: the advantage is the reward, divided by
//! 1 + ε under GRPO) and is flagged; an all-equal group gets zeros and is
//! flagged.

use serde::{Deserialize, Serialize};

/// GRPO's ε.
pub const GRPO_EPSILON: f64 = 1e-6;

/// An advantage estimator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Estimator {
    /// `(r − mean)/(std + ε)`, sample std.
    #[default]
    Grpo,
    /// `r − mean`.
    DrGrpo,
    /// `n/(n − 1)·(r − mean)`.
    Rloo,
}

impl Estimator {
    /// `grpo`, `dr_grpo` or `rloo`.
    pub fn name(self) -> &'static str {
        match self {
            Estimator::Grpo => "grpo",
            Estimator::DrGrpo => "dr_grpo",
            Estimator::Rloo => "rloo",
        }
    }

    /// By name.
    pub fn by_name(name: &str) -> Option<Estimator> {
        [Estimator::Grpo, Estimator::DrGrpo, Estimator::Rloo].into_iter().find(|e| e.name() == name)
    }
}

/// A group's advantages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupAdvantages {
    /// The estimator.
    pub estimator: Estimator,
    /// One per rollout, in order.
    pub values: Vec<f64>,
    /// The group's mean reward.
    pub mean: f64,
    /// Its sample standard deviation (0 for a singleton).
    pub std: f64,
    /// One rollout only.
    pub singleton: bool,
    /// Every reward equal.
    pub all_equal: bool,
}

/// Which standard deviation GRPO divides by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StdKind {
    /// The sample standard deviation (n − 1), as verl, TRL and OpenRLHF.
    #[default]
    Sample,
    /// The population standard deviation (n).
    Population,
}

impl StdKind {
    /// `sample` or `population`.
    pub fn name(self) -> &'static str {
        match self {
            StdKind::Sample => "sample",
            StdKind::Population => "population",
        }
    }

    /// By name.
    pub fn by_name(name: &str) -> Option<StdKind> {
        [StdKind::Sample, StdKind::Population].into_iter().find(|k| k.name() == name)
    }
}

/// The advantages of a group's rewards (sample std, ε = [`GRPO_EPSILON`]).
pub fn advantages(rewards: &[f64], estimator: Estimator) -> GroupAdvantages {
    advantages_with(rewards, estimator, StdKind::Sample, GRPO_EPSILON)
}

/// The advantages of a group's rewards with GRPO's standard deviation and
/// ε chosen (`std` and `eps` matter to GRPO only; the reported `std` is of
/// the kind asked for).
///
/// ```
/// use sandmle_agents::rollout::{Estimator, StdKind, advantages, advantages_with};
/// let r = [0.2, 0.9, 0.5, 0.5];
/// assert_eq!(advantages_with(&r, Estimator::Grpo, StdKind::Sample, 1e-6), advantages(&r, Estimator::Grpo));
/// let pop = advantages_with(&r, Estimator::Grpo, StdKind::Population, 0.0);
/// let sum_sq: f64 = pop.values.iter().map(|a| a * a).sum();
/// assert!((sum_sq - 4.0).abs() < 1e-9); // unit population variance
/// ```
pub fn advantages_with(rewards: &[f64], estimator: Estimator, std: StdKind, eps: f64) -> GroupAdvantages {
    let n = rewards.len();
    let singleton = n == 1;
    let all_equal = n > 1 && rewards.windows(2).all(|w| w[0] == w[1]);
    let (mean, std) = if n > 1 {
        let mean = rewards.iter().sum::<f64>() / n as f64;
        let dof = match std {
            StdKind::Sample => n - 1,
            StdKind::Population => n,
        };
        let var = rewards.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / dof as f64;
        (mean, var.sqrt())
    } else {
        (0.0, 0.0)
    };
    let values = rewards
        .iter()
        .map(|&r| match (estimator, singleton) {
            (Estimator::Grpo, true) => r / (1.0 + eps),
            (_, true) => r,
            (_, false) if all_equal => 0.0,
            (Estimator::Grpo, false) => (r - mean) / (std + eps),
            (Estimator::DrGrpo, false) => r - mean,
            (Estimator::Rloo, false) => n as f64 / (n - 1) as f64 * (r - mean),
        })
        .collect();
    GroupAdvantages { estimator, values, mean, std, singleton, all_equal }
}
