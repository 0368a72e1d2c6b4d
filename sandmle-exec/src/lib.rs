//! # sandmle-exec
//!
//! What runs a solution on an environment and produces a submission: a
//! declarative pipeline executor on smartcore (the fast, in-process path),
//! the versioned baseline panel that gives reference leaderboards, and a
//! sandboxed process executor for an agent's own program. It implements
//! core's `Executor` and `BaselinePanel` ports.
//!
//! This crate is being built; it holds no functionality yet.
#![forbid(unsafe_code)]
