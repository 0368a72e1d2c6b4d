//! `rollout_group`, `write_trajectories` and `group_advantages`: the
//! env-owned loop of `sandmle rollout`, one environment at a time.

use crate::convert::{from_py, serialize_to_py};
use crate::errors::{Failure, bad, system};
use pyo3::prelude::*;
use sandmle_agents::http::{HttpChatConfig, HttpChatModel};
use sandmle_agents::rollout::{Estimator, LlmPolicy, PanelPolicy, StdKind, StdlibPythonPolicy, advantages_with};
use sandmle_agents::trajectory::Trajectory;
use sandmle_agents::{EpisodeOptions, Policy, RolloutConfig, Task};
use std::path::PathBuf;
use std::sync::Arc;

/// The chat model of `policy="openai"`, as `--base-url`, `--model`,
/// `--api-key-env`, `--request-timeout` and `--token-ids` make it.
fn chat_model(
    base_url: Option<&str>,
    model: Option<&str>,
    api_key_env: Option<String>,
    request_timeout_s: f64,
    token_ids: bool,
) -> PyResult<Arc<dyn sandmle_core::ChatModel>> {
    let (Some(url), Some(model)) = (base_url, model) else {
        return Err(bad("policy `openai` needs base_url and model"));
    };
    let mut config = HttpChatConfig::new(url, model);
    config.api_key_env = api_key_env;
    config.token_ids = token_ids;
    config.timeout = std::time::Duration::try_from_secs_f64(request_timeout_s)
        .ok()
        .filter(|d| !d.is_zero() && d.as_secs() <= 7 * 24 * 3600)
        .ok_or_else(|| bad("request_timeout_s: a positive number of seconds, at most a week"))?;
    Ok(Arc::new(HttpChatModel::new(config).map_err(|e| bad(e.to_string()))?))
}

/// Runs one rollout group on the environment at `env_dir`, exactly as
/// `sandmle rollout` runs each of its environments: `group` episodes with
/// the built-in `policy` (`panel`: the baseline panel's pipeline specs;
/// `stdlib_python`: a sandboxed standard-library program; `openai`: a model
/// behind an OpenAI-compatible server at `base_url`), the group's `seed`,
/// `codec`, `reward`, `estimator` (`grpo`, `dr_grpo`, `rloo`) and step
/// limit. Returns the trajectories (`sandmle.trajectory/v1` dicts, in
/// rollout order, advantages filled in). Rollouts run in parallel on
/// `threads` threads (default: every core; `openai`: 8).
#[pyfunction]
#[pyo3(signature = (env_dir, policy="panel", group=4, seed=0, codec="sandmle_react", reward="released_dense",
                    estimator="grpo", step_timeout_s=300.0, base_url=None, model=None, api_key_env=None,
                    request_timeout_s=120.0, token_ids=false, temperature=None, max_tokens=None,
                    unsandboxed=false, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn rollout_group<'py>(
    py: Python<'py>,
    env_dir: PathBuf,
    policy: &str,
    group: usize,
    seed: u64,
    codec: &str,
    reward: &str,
    estimator: &str,
    step_timeout_s: f64,
    base_url: Option<&str>,
    model: Option<&str>,
    api_key_env: Option<String>,
    request_timeout_s: f64,
    token_ids: bool,
    temperature: Option<f64>,
    max_tokens: Option<u32>,
    unsandboxed: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let estimator = Estimator::by_name(estimator).ok_or_else(|| bad("estimator: grpo, dr_grpo or rloo"))?;
    if !(1..=256).contains(&group) {
        return Err(bad("group: 1 to 256"));
    }
    let tools = match policy {
        "panel" => "pipeline",
        "stdlib_python" | "openai" => "python",
        other => return Err(bad(format!("policy: panel, stdlib_python or openai, not `{other}`"))),
    };
    // Parsed and checked where the server and the command line parse them.
    let options = EpisodeOptions {
        codec: Some(codec.into()),
        reward: Some(reward.into()),
        step_timeout_s: Some(step_timeout_s),
        tools: Some(vec![tools.into()]),
        ..EpisodeOptions::default()
    };
    let checked = options.check(std::time::Duration::from_secs(7 * 24 * 3600)).map_err(Failure::from)?;
    let (codec, reward, episode) = (checked.codec, checked.reward, checked.config);
    let (step, tools) = (episode.step_timeout, episode.tools);
    let chat = if policy == "openai" {
        Some(chat_model(base_url, model, api_key_env, request_timeout_s, token_ids)?)
    } else {
        None
    };
    let threads = threads.or(chat.as_ref().map(|_| 8));
    let trajectories = py.detach(|| -> PyResult<Vec<Trajectory>> {
        let task = Task::read(&env_dir).map_err(|e| Failure::from(e).with_context(&env_dir))?;
        let env = task.environment();
        let specs = sandmle::panel_specs(env);
        let spec = env.task().clone();
        let backends = sandmle::rl_backends(step, unsandboxed);
        let config = RolloutConfig { episode, codec: Arc::clone(&codec), reward, estimator, seed, cancel: None };
        let sampling = sandmle_core::Sampling { temperature, max_tokens, ..Default::default() };
        let factory = |_: usize, seed: u64| -> sandmle_agents::Result<Box<dyn Policy>> {
            Ok(match &chat {
                Some(m) => {
                    let sampling = sandmle_core::Sampling { seed: Some(seed), ..sampling.clone() };
                    Box::new(LlmPolicy::new(Arc::clone(m), sampling))
                }
                None if tools.pipeline => Box::new(PanelPolicy::new(&specs, 2, seed, Arc::clone(&codec))),
                None => Box::new(StdlibPythonPolicy::new(&spec, seed, Arc::clone(&codec))),
            })
        };
        let run = || sandmle_agents::rollout_group(&task, &backends, group, &factory, &config);
        let group = match threads {
            None => run(),
            Some(n) => rayon::ThreadPoolBuilder::new()
                .num_threads(n.max(1))
                .build()
                .map_err(|e| system(format!("thread pool: {e}")))?
                .install(run),
        };
        let group = group.map_err(|e| Failure::from(e).with_context(&env_dir))?;
        Ok(group.trajectories)
    })?;
    serialize_to_py(py, &trajectories)
}

/// Writes trajectory dicts (as `rollout_group` and `Env.record` return
/// them) to `path` as `sandmle.trajectory/v1` JSON lines with the writer
/// `sandmle rollout --out` uses (same field order and number format),
/// replacing the file. Raises `BadArguments` for a dict that is not a
/// trajectory.
#[pyfunction]
pub fn write_trajectories(py: Python<'_>, path: PathBuf, trajectories: &Bound<'_, PyAny>) -> PyResult<usize> {
    let rows = match from_py(trajectories)? {
        serde_json::Value::Array(rows) => rows,
        _ => return Err(bad("trajectories: a list of trajectory dicts")),
    };
    let parsed = rows
        .into_iter()
        .enumerate()
        .map(|(i, row)| serde_json::from_value::<Trajectory>(row).map_err(|e| bad(format!("trajectory {i}: {e}"))))
        .collect::<PyResult<Vec<_>>>()?;
    py.detach(|| sandmle_agents::trajectory::write_jsonl(&path, &parsed)).map_err(Failure::from)?;
    Ok(parsed.len())
}

/// The advantages of one group's rewards: `estimator` `grpo` (`(r −
/// mean)/(std + eps)`), `dr_grpo` (`r − mean`) or `rloo` (`n/(n−1)·(r −
/// mean)`); `std` `sample` (n − 1, verl's) or `population`. Returns
/// `{"estimator", "values", "mean", "std", "singleton", "all_equal"}`.
#[pyfunction]
#[pyo3(signature = (rewards, estimator="grpo", std="sample", eps=1e-6))]
pub fn group_advantages<'py>(
    py: Python<'py>,
    rewards: Vec<f64>,
    estimator: &str,
    std: &str,
    eps: f64,
) -> PyResult<Bound<'py, PyAny>> {
    let estimator = Estimator::by_name(estimator).ok_or_else(|| bad("estimator: grpo, dr_grpo or rloo"))?;
    let std = StdKind::by_name(std).ok_or_else(|| bad("std: sample or population"))?;
    if rewards.is_empty() {
        return Err(bad("rewards: at least one"));
    }
    if !eps.is_finite() || eps < 0.0 {
        return Err(bad("eps: a finite number, at least 0"));
    }
    if rewards.iter().any(|r| !r.is_finite()) {
        return Err(bad("rewards: finite numbers"));
    }
    serialize_to_py(py, &advantages_with(&rewards, estimator, std, eps))
}
