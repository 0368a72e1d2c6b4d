//! [`Mutations`]: how one synthesized candidate departs from its seed's
//! DNA (noise, imbalance, missingness, feature count, distractors).

use rand::RngExt;
use sandmle_core::SeedRng;

/// The mutations of one candidate.
#[derive(Debug, Clone, Copy, serde::Serialize)]
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
    pub(crate) fn none() -> Self {
        Mutations { noise: 1.0, imbalance: 1.0, missingness: 1.0, feature_delta: 0, irrelevant: 0 }
    }

    pub(crate) fn draw(rng: &mut SeedRng) -> Self {
        Mutations {
            noise: [0.6, 1.0, 1.4][rng.random_range(0..3)],
            imbalance: [0.7, 1.0, 1.0, 1.3][rng.random_range(0..4)],
            missingness: [0.0, 1.0, 1.0, 2.0][rng.random_range(0..4)],
            feature_delta: rng.random_range(-2..=2),
            irrelevant: [0, 0, 1, 3][rng.random_range(0..4)],
        }
    }
}
