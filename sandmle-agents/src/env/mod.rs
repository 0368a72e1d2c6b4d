//! The RL environment: one [`Episode`] per task instance, with budgets,
//! a persistent workspace, typed actions and the release's observations.
//!
//! An episode is one environment directory and one workspace holding only
//! its public files, persistent across the episode's steps (files an
//! earlier step wrote stay, as in SandMLE's run directory) and removed on
//! [`Episode::close`] or drop. [`Episode::reset`] gives the prompt (the
//! codec's system message, then a user message with the task id,
//! `description.md`, the public files and the budgets);
//! [`Episode::step_text`] takes the assistant's raw text (the primary entry
//! point), [`Episode::step_tool`] a tool call parsed by the trainer, and
//! [`Episode::step_message`] a whole assistant message.
//!
//! Budgets are the environment's, so every trainer sees the same
//! truncation: [`EpisodeConfig::max_turns`] (15), a per-step limit
//! [`EpisodeConfig::step_timeout`] (300 s, for programs and pipelines) and
//! the episode's wall time [`EpisodeConfig::episode_time`] (20 min,
//! counted from `reset`, the model's time included, as the release's loop
//! counts it). A step's limit is cut to what is left of the episode.

mod action;
mod episode;
mod options;
mod prompt;
mod score;
mod step;

pub use action::{
    Action, PIPELINE_TOOL, PYTHON_TOOL, SCORE_TOOL, TAIL_LINES, ToolSet, run_observation, tail_lines,
    timeout_observation,
};
pub use episode::Episode;
pub use options::{CheckedEpisode, EpisodeOptions, MAX_TURNS, tool_set};
pub use prompt::prompt_messages;
pub use score::{KEY_LOWER, KEY_SCORE, KEY_THRESHOLDS, score_observation};
pub use step::{Reset, Step, StepInfo, StepRecord, Termination};

use crate::error::{Error, Result};
use sandmle_core::{Environment, Executor, Grader, Thresholds};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// One environment as an RL task: the environment, its content-derived id
/// and its thresholds (required: an environment without them cannot be
/// rewarded).
#[derive(Debug, Clone)]
pub struct Task {
    env: Arc<Environment>,
    id: String,
    version: String,
    thresholds: Thresholds,
}

impl Task {
    /// A task for `env`.
    ///
    /// # Errors
    /// [`sandmle_core::Error::BrokenEnvironment`] when it has no
    /// thresholds; errors of [`Environment::id`].
    pub fn new(env: Environment) -> Result<Task> {
        let thresholds = *env.grading.require_thresholds()?;
        let id = env.id()?;
        let version = format!("{}@{}", env.provenance.generator, env.provenance.generator_version);
        Ok(Task { env: Arc::new(env), id, version, thresholds })
    }

    /// Reads the environment at `dir` (every hash checked).
    ///
    /// # Errors
    /// As [`Environment::read`] and [`Task::new`].
    pub fn read(dir: impl AsRef<Path>) -> Result<Task> {
        Task::new(Environment::read(dir)?)
    }

    /// The environment's content-derived id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// `generator@version` of the environment's provenance.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The environment.
    pub fn environment(&self) -> &Environment {
        &self.env
    }

    /// Its medal and median thresholds.
    pub fn thresholds(&self) -> &Thresholds {
        &self.thresholds
    }
}

/// The ports an episode runs on: the grader, and the executors of code
/// (one that opens persistent workspaces: the process executor) and of
/// pipeline specs (in-process). Composed outside this crate.
#[derive(Clone)]
pub struct Backends {
    /// Grades submissions.
    pub grader: Arc<dyn Grader>,
    /// Runs programs in a persistent workspace (needed when the code tool
    /// is offered).
    pub code: Option<Arc<dyn Executor>>,
    /// Runs pipeline specs (needed when the pipeline tool is offered).
    pub pipeline: Option<Arc<dyn Executor>>,
}

impl std::fmt::Debug for Backends {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backends")
            .field("code", &self.code.as_ref().map(|e| e.name().to_owned()))
            .field("pipeline", &self.pipeline.as_ref().map(|e| e.name().to_owned()))
            .finish_non_exhaustive()
    }
}

/// Which scored submission is graded at the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Graded {
    /// The last valid one the Score tool graded (the release's rule: its
    /// harness reads the latest Score reply that carries a score).
    #[default]
    Last,
    /// The best valid one.
    Best,
}

/// How rewards are handed out over the steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RewardMode {
    /// Increments `R(prefix_t) − R(prefix_{t−1})` that sum to the episode's
    /// reward (rLLM and verifiers add step rewards up).
    #[default]
    Delta,
    /// Zero until the last step, which carries the whole reward.
    Terminal,
}

/// An episode's settings; the defaults are SandMLE's release.
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeConfig {
    /// Most assistant turns (15).
    pub max_turns: u32,
    /// Wall-clock limit of one code or pipeline step (300 s).
    pub step_timeout: Duration,
    /// Wall-clock limit of the episode from `reset` (20 min).
    pub episode_time: Duration,
    /// The interpreter a code step runs (`["python3"]`); the code file's
    /// name is appended.
    pub interpreter: Vec<String>,
    /// Whether the Score reply shows the thresholds (true).
    pub show_thresholds: bool,
    /// The tools offered.
    pub tools: ToolSet,
    /// Which scored submission is graded.
    pub graded: Graded,
    /// Delta or terminal rewards.
    pub reward_mode: RewardMode,
}

impl Default for EpisodeConfig {
    fn default() -> Self {
        EpisodeConfig {
            max_turns: 15,
            step_timeout: Duration::from_secs(300),
            episode_time: Duration::from_secs(20 * 60),
            interpreter: vec!["python3".into()],
            show_thresholds: true,
            tools: ToolSet::default(),
            graded: Graded::Last,
            reward_mode: RewardMode::Delta,
        }
    }
}

impl EpisodeConfig {
    /// Checks the settings against the backends.
    ///
    /// # Errors
    /// [`Error::BadSetting`] for a zero budget, an empty interpreter, or a
    /// tool whose executor is missing.
    pub fn check(&self, backends: &Backends) -> Result<()> {
        let bad = |setting: &'static str, reason: &str| Err(Error::BadSetting { setting, reason: reason.into() });
        if self.max_turns == 0 {
            return bad("max_turns", "must be at least 1");
        }
        if self.step_timeout.is_zero() || self.episode_time.is_zero() {
            return bad("step_timeout", "budgets must be positive");
        }
        if self.tools.code && self.interpreter.is_empty() {
            return bad("interpreter", "the code tool needs an interpreter command");
        }
        if self.tools.code && backends.code.is_none() {
            return bad("tools", "the code tool needs a code executor");
        }
        if self.tools.pipeline && backends.pipeline.is_none() {
            return bad("tools", "the pipeline tool needs a pipeline executor");
        }
        if !self.tools.code && !self.tools.pipeline {
            return bad("tools", "offer the code tool, the pipeline tool or both");
        }
        Ok(())
    }
}
