//! # sandmle-agents
//!
//! The four SandMLE roles — Data Strategist, ML Developer, MLOps Engineer
//! and Technical Writer — as traits with deterministic built-in
//! implementations, the generation orchestrator, the RL environment API
//! (`reset` / `step`), pluggable rewards and group rollouts with GRPO-style
//! advantages. It composes the other crates only through core's traits.
//!
//! This crate is being built; it holds no functionality yet.
#![forbid(unsafe_code)]
