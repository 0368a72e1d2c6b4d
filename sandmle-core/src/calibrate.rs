//! [`calibrate`]: the one path from a candidate environment to a checked
//! one — baseline panel, reference leaderboard, medal thresholds, gates —
//! through the ports alone, so the generator, the command line and the
//! examples cannot drift apart.

use crate::environment::Environment;
use crate::error::Result;
use crate::ports::{BaselinePanel, GateResult, Grader, Verifier};

/// Calibrates `env` in place and verifies it: [`set_thresholds`] (the
/// baseline `panel`'s reference leaderboard, the oracle's score, the medal
/// thresholds), then `verifier`'s gates.
///
/// Whether the environment is worth keeping is the gates' verdict: a
/// candidate is kept when every returned gate passed.
///
/// # Errors
/// A broken environment ([`crate::Error::BrokenEnvironment`]), a panel that
/// produced no valid submission, or a verifier that could not run.
pub fn calibrate(
    env: &mut Environment,
    panel: &dyn BaselinePanel,
    grader: &dyn Grader,
    verifier: &dyn Verifier,
) -> Result<Vec<GateResult>> {
    set_thresholds(env, panel, grader)?;
    verifier.verify(env)
}

/// The first half of [`calibrate`]: checks that `env` can be graded, runs
/// the panel, grades the oracle prediction the synthesizer recorded
/// ([`crate::grade_oracle`]) and stores the panel's leaderboard and the
/// medal thresholds ([`crate::reference_thresholds`]: the ladder under the
/// oracle when there is one, MLE-bench's rule on the panel otherwise). The
/// ML Developer's step; the gates come later.
///
/// # Errors
/// As [`calibrate`].
pub fn set_thresholds(env: &mut Environment, panel: &dyn BaselinePanel, grader: &dyn Grader) -> Result<()> {
    grader.check(&env.grading_task())?;
    let leaderboard = panel.leaderboard(env, grader)?;
    let oracle = crate::oracle::grade_oracle(env, grader)?;
    let direction = env.grading.task.direction;
    env.grading.thresholds =
        Some(crate::ladder::reference_thresholds(&leaderboard, oracle.as_ref(), direction, grader)?);
    env.leaderboard = Some(leaderboard);
    Ok(())
}
