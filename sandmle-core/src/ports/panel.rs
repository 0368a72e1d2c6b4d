use super::{Grader, forward_impls};
use crate::environment::Environment;
use crate::error::Result;
use crate::grading::Leaderboard;

/// A panel of baseline solutions, weak to strong: run on an environment and
/// graded, it gives the reference leaderboard medal thresholds come from.
pub trait BaselinePanel: Send + Sync {
    /// The panel's version; bumped whenever its leaderboard can change.
    fn version(&self) -> &str;
    /// Runs every baseline on `env`, grades each with `grader` and returns
    /// the leaderboard, best first.
    ///
    /// # Errors
    /// When no baseline produces a valid submission.
    fn leaderboard(&self, env: &Environment, grader: &dyn Grader) -> Result<Leaderboard>;
}

forward_impls!(BaselinePanel {
    fn version(&self) -> &str;
    fn leaderboard(&self, env: &Environment, grader: &dyn Grader) -> Result<Leaderboard>;
});
