//! Rollouts: the [`Policy`] being trained, episodes run to the end, and
//! groups of `n` rollouts in parallel with their advantages.
//!
//! Two loop owners are supported: a trainer that owns the loop calls
//! [`Episode`]'s `reset`/`step_*` itself; a trainer that
//! hands over a policy (an OpenAI-compatible endpoint through
//! [`LlmPolicy`], or any [`Policy`]) gets finished trajectories from
//! [`rollout_group`].

mod advantage;
mod curriculum;
mod curriculum_run;
mod policies;
mod stdlib_python;

pub use advantage::{Estimator, GRPO_EPSILON, GroupAdvantages, StdKind, advantages, advantages_with};
pub use curriculum::FrontierSampler;
pub use curriculum_run::{CurriculumFactory, CurriculumGroup, Draw, rollout_curriculum};
pub use policies::{ContextBudget, LlmPolicy, PanelPolicy, ScriptedPolicy};
pub use stdlib_python::{StdlibPythonPolicy, stdlib_program};

use crate::codec::Codec;
use crate::env::{Backends, Episode, EpisodeConfig, Task};
use crate::error::{Error, Result};
use crate::reward::Reward;
use crate::trajectory::{GroupFlags, Placement, Trajectory};
use rayon::prelude::*;
use sandmle_core::{Cancel, Message, TokenTrace, ToolSpec};
use std::sync::Arc;
use std::time::Instant;

/// One assistant turn from a policy.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyTurn {
    /// The assistant message (its raw text, and native tool calls for
    /// formats that have them).
    pub message: Message,
    /// Token ids and logprobs, when the policy has them.
    pub tokens: Option<TokenTrace>,
}

impl PolicyTurn {
    /// A turn of plain text.
    pub fn text(text: impl Into<String>) -> Self {
        PolicyTurn { message: Message::assistant(text), tokens: None }
    }
}

/// The agent being trained: messages and tools in, one assistant turn out.
pub trait Policy: Send {
    /// A short name for reports.
    fn name(&self) -> &str;

    /// The next assistant turn.
    ///
    /// # Errors
    /// When no turn can be produced (a model server down, say); the episode
    /// then ends as `policy_error` and is masked.
    fn act(&mut self, messages: &[Message], tools: &[ToolSpec]) -> Result<PolicyTurn>;
}

/// Makes the policy of rollout `idx` with its seed.
pub type PolicyFactory<'a> = dyn Fn(usize, u64) -> Result<Box<dyn Policy>> + Sync + 'a;

/// How rollouts run.
#[derive(Clone)]
pub struct RolloutConfig {
    /// The episode's settings.
    pub episode: EpisodeConfig,
    /// The text format.
    pub codec: Arc<dyn Codec>,
    /// The reward scheme.
    pub reward: Arc<dyn Reward>,
    /// The advantage estimator.
    pub estimator: Estimator,
    /// The group's seed; rollout `i` gets `derive_seed(seed, "task:i")`.
    pub seed: u64,
    /// Stops the group's episodes when set: running code steps are
    /// killed, and each episode ends before its policy's next turn
    /// (`None`: never).
    pub cancel: Option<Cancel>,
}

/// Runs one episode with `policy` to its end.
///
/// # Errors
/// The environment's and executors' faults; a policy's failure ends the
/// episode as `policy_error` instead.
pub fn run_episode(
    task: &Task,
    backends: &Backends,
    policy: &mut dyn Policy,
    config: &RolloutConfig,
    at: &Placement,
) -> Result<Trajectory> {
    let mut ep = Episode::new(
        task.clone(),
        backends.clone(),
        Arc::clone(&config.codec),
        Arc::clone(&config.reward),
        config.episode.clone(),
    )?;
    if let Some(c) = &config.cancel {
        ep.set_cancel(c.clone());
    }
    let reset = ep.reset()?;
    let mut model_ms = 0u64;
    let mut tokens: Vec<TokenTrace> = Vec::new();
    let mut any_tokens = false;
    while ep.termination().is_none() {
        if config.cancel.as_ref().is_some_and(Cancel::is_cancelled) {
            ep.abort()?;
            break;
        }
        let start = Instant::now();
        let turn = policy.act(&ep.messages(), &reset.tools);
        model_ms += u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        match turn {
            Ok(turn) => {
                any_tokens |= turn.tokens.is_some();
                tokens.push(turn.tokens.unwrap_or_default());
                ep.step_message(turn.message)?;
            }
            Err(_) => ep.abort()?,
        }
    }
    let t = Trajectory::from_episode(&ep, at, model_ms, any_tokens.then_some(tokens))?;
    ep.close();
    Ok(t)
}

/// A finished group.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The trajectories, in index order, advantages filled in.
    pub trajectories: Vec<Trajectory>,
    /// The advantages.
    pub advantages: GroupAdvantages,
}

/// Runs `n` episodes of `task` in parallel (results in index order) and
/// fills in their advantages.
///
/// # Errors
/// [`Error::BadSetting`] for `n == 0`; the first episode's system fault.
pub fn rollout_group(
    task: &Task,
    backends: &Backends,
    n: usize,
    factory: &PolicyFactory<'_>,
    config: &RolloutConfig,
) -> Result<Group> {
    if n == 0 {
        return Err(Error::BadSetting { setting: "group", reason: "a group needs at least one rollout".into() });
    }
    let group_id = format!("{}:{}", task.id(), config.seed);
    let mut trajectories: Vec<Trajectory> = (0..n)
        .into_par_iter()
        .map(|idx| {
            let seed = sandmle_core::derive_seed(config.seed, &format!("{}:{idx}", task.id()));
            let mut policy = factory(idx, seed)?;
            let at = Placement { group_id: group_id.clone(), rollout_idx: idx, seed };
            run_episode(task, backends, policy.as_mut(), config, &at)
        })
        .collect::<Result<_>>()?;
    let rewards: Vec<f64> = trajectories.iter().map(|t| t.reward).collect();
    let adv = advantages(&rewards, config.estimator);
    for (t, a) in trajectories.iter_mut().zip(&adv.values) {
        t.advantage = *a;
        t.advantage_estimator = config.estimator.name().to_owned();
        t.group_size = n;
        t.group_flags = GroupFlags { singleton: adv.singleton, all_equal: adv.all_equal };
    }
    Ok(Group { trajectories, advantages: adv })
}
