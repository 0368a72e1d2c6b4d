use super::forward_impls;
use crate::environment::Environment;
use crate::error::Result;

/// Shrinks a real task to a micro task of the same structure.
pub trait Shrinker: Send + Sync {
    /// The micro environment for `seed`: the same inputs and seed give the
    /// same environment, byte for byte.
    ///
    /// # Errors
    /// When the seed environment cannot be shrunk (too few rows, ...).
    fn shrink(&self, seed_env: &Environment, seed: u64) -> Result<Environment>;
}

forward_impls!(Shrinker {
    fn shrink(&self, seed_env: &Environment, seed: u64) -> Result<Environment>;
});
