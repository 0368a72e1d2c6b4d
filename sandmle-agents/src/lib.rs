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
