//! # sandmle-agents
//!
//! The four SandMLE roles — Data Strategist, ML Developer, MLOps Engineer
//! and Technical Writer — as traits ([`roles`]) with deterministic built-in
//! implementations and LLM-backed ones over core's `ChatModel` port
//! ([`llm`]); the generation orchestrator ([`foundry`]); the RL
//! environment API (`reset` / `step`), pluggable rewards and group
//! rollouts with GRPO-style advantages.
//!
//! Design decision: this crate depends on `sandmle-core` alone among the
//! project's crates. Synthesis, execution and grading arrive as core's
//! trait objects (`Synthesizer`, `BaselinePanel`, `Grader`, `Verifier`,
//! `Executor`), so each role can be replaced on its own and every one is
//! tested with stand-ins as well as with the real crates.
//!
//! ```
//! use sandmle_agents::llm::{LlmSettings, LlmWriter, ScriptedChatModel};
//! use sandmle_agents::roles::{Brief, TechnicalWriter, leaks};
//! use sandmle_core::{Mutations, TaskPlan, TaskStory, testing::tiny_environment};
//! use std::sync::Arc;
//!
//! let env = tiny_environment();
//! let plan = TaskPlan {
//!     seed_task: "tiny".into(), seed: 1, dna: sandmle_core::testing::tiny_dna(),
//!     domain: "toys".into(), features: vec![], targets: vec!["label".into()], classes: vec![],
//!     story: TaskStory { title: "Toy task".into(), row_noun: "toy".into(), context: "Toys.".into() },
//!     rule_family: "sparse_linear".into(), difficulty: 0.5, mutations: Mutations::none(),
//! };
//! // An LLM Technical Writer driven by a scripted model: the first reply is
//! // not JSON, so it is sent back with the error; the second is accepted.
//! let model = Arc::new(ScriptedChatModel::new([
//!     "Sure, here it is!".to_owned(),
//!     r#"{"description": "Predict `label`, scored with `roc_auc`: id,label"}"#.to_owned(),
//! ]));
//! let writer = LlmWriter { settings: LlmSettings::new(model.clone()) };
//! let text = writer.describe(&env, &plan, &Brief::default()).unwrap();
//! assert!(leaks(&env, &text).is_empty());
//! assert_eq!(model.requests().len(), 2);
//! ```
//!
//! ## The RL side
//!
//! - [`env`](mod@env): an [`Episode`] per task instance — a persistent sandboxed
//!   workspace, typed [`Action`]s, the release's budgets (15 turns, 300 s a
//!   step, 20 min an episode) and observations; `step_text` is the primary
//!   entry point.
//! - [`codec`]: `sandmle_react` (SandMLE's exact format, parsed as
//!   leniently as the release), `hermes_json` and `openai_tools`.
//! - [`reward`]: `released_dense` (the default), `paper_dense`, `sparse`,
//!   `human_rank`; delta or terminal.
//! - [`rollout`]: the [`Policy`] trait, built-in policies, and
//!   [`rollout_group`] with GRPO, Dr.GRPO and RLOO advantages.
//! - [`trajectory`] (`sandmle.trajectory/v1` JSON lines) and [`export`]
//!   (SFT rows, verl's RL dataset rows).
//!
//! ```
//! use sandmle_agents::{Backends, Episode, EpisodeConfig, Task, ToolSet};
//! use sandmle_agents::{codec::codec_by_name, reward::reward_by_name};
//! use std::sync::Arc;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let mut env = sandmle_core::testing::tiny_environment();
//! # env.grading.thresholds = Some(sandmle_core::Thresholds { num_teams: 4, is_lower_better: false,
//! #     gold: 0.9, silver: 0.8, bronze: 0.7, median: 0.5 });
//! # let grader: Arc<dyn sandmle_core::Grader> = Arc::new(sandmle_metrics::StandardGrader);
//! # let pipeline: Arc<dyn sandmle_core::Executor> = Arc::new(sandmle_exec::PipelineExecutor::default());
//! // The grader and executors come from the composition root (examples/).
//! let backends = Backends { grader, code: None, pipeline: Some(pipeline) };
//! let config = EpisodeConfig { tools: ToolSet { code: false, pipeline: true }, ..EpisodeConfig::default() };
//! let codec = codec_by_name("sandmle_react").unwrap();
//! let reward = reward_by_name("released_dense").unwrap();
//! let mut episode = Episode::new(Task::new(env)?, backends, codec, reward, config)?;
//! let prompt = episode.reset()?;
//! assert_eq!(prompt.messages.len(), 2);
//! let spec = r#"{"steps": [{"op": "impute", "strategy": "median"}, {"op": "encode", "method": "one_hot"}],
//!               "model": {"type": "logistic_regression", "c": 1.0}}"#;
//! let turn = format!("<think>fit a model</think>\n<tool_call>\n{{\"name\": \"RunPipeline\", \"arguments\": {{\"spec\": {spec}}}}}\n</tool_call>");
//! episode.step_text(&turn)?;
//! let scored = episode.step_text("<think>grade it</think><tool_call>{\"name\": \"Score\", \"arguments\": {}}</tool_call>")?;
//! assert!(scored.observation[0].content.starts_with("<tool_response>\nSubmission OK."));
//! let last = episode.step_text("<think>done</think><answer>submission</answer>")?;
//! assert!(last.terminated);
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod error;

pub use error::{Error, Result};

// --- generation: roles and the Foundry ---
pub mod foundry;
#[cfg(feature = "http")]
pub mod http;
pub mod llm;
pub mod roles;

// --- the RL environment, codecs, rewards and rollouts ---
pub mod codec;
pub mod env;
pub mod export;
pub mod reward;
pub mod reward_check;
pub mod rollout;
pub mod trajectory;

pub use env::{
    Action, Backends, CheckedEpisode, Episode, EpisodeConfig, EpisodeOptions, Graded, RewardMode, Task, Termination,
    ToolSet,
};
pub use reward::{Reward, RewardValue};
pub use rollout::{Estimator, Policy, PolicyTurn, RolloutConfig, rollout_group, run_episode};
pub use trajectory::Trajectory;
