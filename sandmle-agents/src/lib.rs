//! # sandmle-agents
//!
//! The four SandMLE roles — Data Strategist, ML Developer, MLOps Engineer
//! and Technical Writer — as traits with deterministic built-in
//! implementations, the generation orchestrator, the RL environment API
//! (`reset` / `step`), pluggable rewards and group rollouts with GRPO-style
//! advantages. It composes the other crates only through core's traits.
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod error;

pub use error::{Error, Result};

// --- generation: roles and the Foundry ---
pub mod foundry;
pub mod llm;
pub mod roles;

// --- the RL environment, codecs, rewards and rollouts ---
