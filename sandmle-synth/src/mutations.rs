//! Drawing core's [`Mutations`]: how one synthesized candidate departs
//! from its seed's DNA (noise, imbalance, missingness, feature count,
//! distractors).

use rand::RngExt;
use sandmle_core::{Mutations, SeedRng};

/// Drawing a candidate's mutations from its seed.
pub(crate) trait DrawMutations {
    /// Noise, imbalance, missingness, feature count and distractors, drawn.
    fn draw(rng: &mut SeedRng) -> Self;
}

impl DrawMutations for Mutations {
    fn draw(rng: &mut SeedRng) -> Self {
        Mutations {
            noise: [0.6, 1.0, 1.4][rng.random_range(0..3)],
            imbalance: [0.7, 1.0, 1.0, 1.3][rng.random_range(0..4)],
            missingness: [0.0, 1.0, 1.0, 2.0][rng.random_range(0..4)],
            feature_delta: rng.random_range(-2..=2),
            irrelevant: [0, 0, 1, 3][rng.random_range(0..4)],
        }
    }
}
