//! [`rollout_curriculum`]: groups drawn one after another by a
//! [`FrontierSampler`], each group's rewards fed back before the next draw.
//!
//! The draws are sequential (a draw depends on every earlier group's
//! rewards); the episodes of one group run in parallel as in
//! [`rollout_group`]. Group `g` runs under the seed
//! `derive_seed(config.seed, "curriculum:g")`, so a run replays exactly
//! from its seeds.

use super::{FrontierSampler, Group, Policy, RolloutConfig, rollout_group};
use crate::env::{Backends, Task};
use crate::error::{Error, Result};

/// What a curriculum's policy factory is told about the group it makes a
/// policy for.
#[derive(Debug, Clone, Copy)]
pub struct Draw<'a> {
    /// The group's number in the run, from 0.
    pub group: usize,
    /// The task drawn.
    pub task: &'a Task,
    /// Its difficulty band.
    pub band: u8,
}

/// Makes the policy of rollout `idx` of a drawn group, with its seed.
pub type CurriculumFactory<'a> = dyn Fn(&Draw<'_>, usize, u64) -> Result<Box<dyn Policy>> + Sync + 'a;

/// One group of a curriculum run.
#[derive(Debug, Clone, PartialEq)]
pub struct CurriculumGroup {
    /// The drawn task's position in the task list.
    pub task: usize,
    /// Its band.
    pub band: u8,
    /// The finished group.
    pub group: Group,
}

/// Runs `groups` groups of `n` rollouts, each on the task `sampler` draws
/// next among `tasks` (`(task, band)` pairs; the sampler names tasks by
/// [`Task::id`]), recording each group's rewards in the sampler before the
/// next draw, and calling `on_group` with each finished group (a progress
/// report, a checkpoint).
///
/// # Errors
/// [`Error::BadSetting`] when the sampler draws an id no task has, or for
/// `n == 0`; the first episode's system fault.
#[allow(clippy::too_many_arguments)]
pub fn rollout_curriculum(
    tasks: &[(Task, u8)],
    sampler: &mut FrontierSampler,
    groups: usize,
    n: usize,
    backends: &Backends,
    factory: &CurriculumFactory<'_>,
    config: &RolloutConfig,
    on_group: &mut dyn FnMut(&CurriculumGroup),
) -> Result<Vec<CurriculumGroup>> {
    if n == 0 {
        return Err(Error::BadSetting { setting: "group", reason: "a group needs at least one rollout".into() });
    }
    let mut out = Vec::with_capacity(groups);
    for g in 0..groups {
        let id = sampler.next_task().to_owned();
        let at = tasks.iter().position(|(t, _)| t.id() == id).ok_or_else(|| Error::BadSetting {
            setting: "curriculum",
            reason: format!("the sampler drew `{id}`, which no task of the run is"),
        })?;
        let (task, band) = (&tasks[at].0, tasks[at].1);
        let draw = Draw { group: g, task, band };
        let per_rollout = |idx: usize, seed: u64| factory(&draw, idx, seed);
        let seeded = RolloutConfig {
            seed: sandmle_core::derive_seed(config.seed, &format!("curriculum:{g}")),
            ..config.clone()
        };
        let group = rollout_group(task, backends, n, &per_rollout, &seeded)?;
        let rewards: Vec<f64> = group.trajectories.iter().map(|t| t.reward).collect();
        sampler.record(&id, &rewards);
        let done = CurriculumGroup { task: at, band, group };
        on_group(&done);
        out.push(done);
    }
    Ok(out)
}
