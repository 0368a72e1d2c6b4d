//! # sandmle-python
//!
//! The native module `sandmle._sandmle` of the Python package `sandmle`
//! (pyo3, built by maturin: `pip install ./python`). The package
//! re-exports it and adds two pure-Python modules, `sandmle.gym` (a
//! gymnasium environment) and `sandmle.ray` (generation and rollouts as Ray
//! tasks).
//!
//! ```python
//! import sandmle
//!
//! env = sandmle.Env("examples/seeds/wine", codec="sandmle_react", max_turns=4,
//!                   tools=["pipeline"])
//! messages, info = env.reset(seed=0)
//! spec = {"steps": [{"op": "impute", "strategy": "median"}],
//!         "model": {"type": "logistic_regression", "c": 1.0}}
//! env.call_tool("RunPipeline", {"spec": spec})
//! messages, reward, terminated, truncated, info = env.step(
//!     '<think>Grade it.</think><tool_call>{"name": "Score", "arguments": {}}</tool_call>')
//! messages, reward, terminated, truncated, info = env.step("<think>Done.</think><answer>done</answer>")
//! assert terminated and info["final_grade"]["valid_submission"]
//! row = env.record()          # one sandmle.trajectory/v1 row, a dict
//! env.close()
//! ```
//!
//! Design decisions:
//! - **The command line's composition.** Every function composes the crates
//!   as the matching `sandmle` subcommand does (through the `sandmle`
//!   package's library), so `sandmle.evaluate` gives `sandmle evaluate
//!   --json`'s object, `sandmle.generate` the tree of `sandmle generate`,
//!   `sandmle.rollout_group` the lines of `sandmle rollout`.
//! - **The interpreter lock is released** around every call that reads,
//!   runs or grades ([`Python::detach`]), so a trainer's thread pool steps
//!   many environments at once.
//! - **Plain values.** Returns are `dict`, `list`, `str`, `int`, `float`,
//!   `bool` and `None`: they pickle, and so cross Ray workers.
//! - **Typed errors.** Rust errors become the exception classes of
//!   [`errors`], named after the command line's failure kinds; nothing
//!   panics across the boundary (the agents crate denies `unwrap`).
//! - **A workspace member**, checked, linted and documented with the rest
//!   (`cargo clippy --workspace`, `cargo doc --workspace`). Its `[lib]` has
//!   no Rust tests (`test = false`): it is tested from Python
//!   (`python/tests`), and a Rust test binary would have to link libpython.
//!   pyo3's `extension-module` feature is enabled by maturin only.
#![forbid(unsafe_code)]

pub mod convert;
pub mod env;
pub mod errors;
pub mod jobs;
pub mod rollouts;

use pyo3::prelude::*;

/// The module `sandmle._sandmle`.
///
/// # Errors
/// Python's own, while the module is built.
#[pymodule]
pub fn _sandmle(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("CODECS", sandmle_agents::codec::CODECS.to_vec())?;
    m.add("REWARD_SCHEMES", sandmle_agents::reward::REWARD_SCHEMES.to_vec())?;
    errors::register(m)?;
    m.add_class::<env::Env>()?;
    m.add_function(wrap_pyfunction!(jobs::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::generate, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::reindex, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::seeds, m)?)?;
    m.add_function(wrap_pyfunction!(rollouts::rollout_group, m)?)?;
    m.add_function(wrap_pyfunction!(rollouts::write_trajectories, m)?)?;
    m.add_function(wrap_pyfunction!(rollouts::group_advantages, m)?)?;
    Ok(())
}
