use super::forward_impls;
use crate::dna::TaskDna;
use crate::environment::Environment;
use crate::error::Result;

/// Builds a new task with a given structure and a hidden rule.
pub trait Synthesizer: Send + Sync {
    /// A new environment with `dna`'s structure; the same DNA and seed give
    /// the same environment, byte for byte. Thresholds are not set: they
    /// come from a [`crate::BaselinePanel`].
    ///
    /// # Errors
    /// When the DNA cannot be realised.
    fn synthesize(&self, dna: &TaskDna, seed_task: &str, seed: u64) -> Result<Environment>;
}

forward_impls!(Synthesizer {
    fn synthesize(&self, dna: &TaskDna, seed_task: &str, seed: u64) -> Result<Environment>;
});
