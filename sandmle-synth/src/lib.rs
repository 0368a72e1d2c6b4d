//! # sandmle-synth
//!
//! From one real seed task to many micro environments: task-DNA extraction,
//! deterministic stratified shrinking, synthesis of new datasets from DNA
//! with a hidden rule, and the verification gates an environment passes
//! before anyone trains on it. It implements core's `Shrinker`,
//! `Synthesizer` and `Verifier` ports.
//!
//! This crate is being built; it holds no functionality yet.
#![forbid(unsafe_code)]
