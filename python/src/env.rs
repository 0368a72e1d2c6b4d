//! `sandmle.Env`: one RL episode at a time over one environment directory,
//! the same [`Episode`] that `sandmle serve` and `sandmle rollout` drive.

use crate::convert::{from_py, serialize_to_py, to_py};
use crate::errors::{Failure, Kind, system};
use pyo3::prelude::*;
use sandmle_agents::env::Step;
use sandmle_agents::trajectory::{Placement, Trajectory};
use sandmle_agents::{Episode, EpisodeOptions, Task};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

struct State {
    episode: Episode,
    placement: Placement,
    closed: bool,
}

/// One RL episode at a time over an environment directory; see the
/// package documentation. `reset`, `step` and `call_tool` release the
/// interpreter lock, so a thread pool steps many `Env`s at once; calls on
/// one `Env` from several threads take turns.
#[pyclass(module = "sandmle", name = "Env", frozen)]
pub struct Env {
    state: Mutex<State>,
    system_prompt: String,
    tools: Value,
    dir: PathBuf,
}

impl Env {
    fn lock(&self) -> PyResult<MutexGuard<'_, State>> {
        self.state.lock().map_err(|_| system("the episode's lock was poisoned by an earlier failure"))
    }
}

type StepTuple<'py> = (Bound<'py, PyAny>, f64, bool, bool, Bound<'py, PyAny>);

fn step_tuple<'py>(py: Python<'py>, step: &Step) -> PyResult<StepTuple<'py>> {
    let messages = serialize_to_py(py, &step.observation)?;
    let info = serialize_to_py(py, &step.info)?;
    Ok((messages, step.reward, step.terminated, step.truncated, info))
}

#[pymethods]
impl Env {
    /// Reads the environment at `env_dir` (every hash checked) and prepares
    /// an episode; nothing runs until `reset`. Budgets default to SandMLE's
    /// release (15 turns, 300 s a step, 20 minutes an episode); `tools`
    /// is a list of `python` and `pipeline` (default: `["python"]`, the
    /// release's); `unsandboxed=True` runs code steps without bubblewrap
    /// (trusted code only).
    #[new]
    #[pyo3(signature = (env_dir, codec="sandmle_react", reward="released_dense", reward_mode="delta",
                        max_turns=15, step_timeout_s=300.0, episode_timeout_s=1200.0, tools=None,
                        graded="last", unsandboxed=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        env_dir: PathBuf,
        codec: &str,
        reward: &str,
        reward_mode: &str,
        max_turns: u32,
        step_timeout_s: f64,
        episode_timeout_s: f64,
        tools: Option<Vec<String>>,
        graded: &str,
        unsandboxed: bool,
    ) -> PyResult<Env> {
        // Parsed and checked where the server and the command line parse them.
        let options = EpisodeOptions {
            codec: Some(codec.into()),
            reward: Some(reward.into()),
            reward_mode: Some(reward_mode.into()),
            max_turns: Some(max_turns),
            step_timeout_s: Some(step_timeout_s),
            episode_time_s: Some(episode_timeout_s),
            tools,
            graded: Some(graded.into()),
        };
        let checked = options.check(Duration::from_secs(7 * 24 * 3600)).map_err(Failure::from)?;
        let (codec, reward, config) = (checked.codec, checked.reward, checked.config);
        let step_timeout = config.step_timeout;
        let dir = env_dir.clone();
        let task = py.detach(|| Task::read(&dir)).map_err(|e| Failure::from(e).with_context(&dir))?;
        let system_prompt = codec.system_prompt(&config.tools);
        let backends = sandmle::rl_backends(step_timeout, unsandboxed);
        let episode = Episode::new(task, backends, codec, reward, config).map_err(Failure::from)?;
        let tools = serde_json::to_value(episode.tools()).map_err(|e| system(format!("JSON: {e}")))?;
        let placement = placement(&episode, 0, 0);
        Ok(Env { state: Mutex::new(State { episode, placement, closed: false }), system_prompt, tools, dir: env_dir })
    }

    /// Starts an episode (again) in a fresh workspace: `(messages, info)`,
    /// the system and user messages and the episode's facts. `seed` and
    /// `rollout_idx` place the episode in a group for `record()`, as
    /// `sandmle rollout` places its rollouts (group `task_id:seed`).
    #[pyo3(signature = (seed=None, rollout_idx=0))]
    fn reset<'py>(
        &self,
        py: Python<'py>,
        seed: Option<u64>,
        rollout_idx: usize,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let reset = py.detach(|| -> PyResult<_> {
            let mut state = self.lock()?;
            let reset = state.episode.reset().map_err(Failure::from)?;
            state.placement = placement(&state.episode, seed.unwrap_or(0), rollout_idx);
            state.closed = false;
            let mut info = reset.info.clone();
            info["episode_id"] = json!(format!("{}:{rollout_idx}", state.episode.task().id()));
            Ok((reset.messages, info))
        })?;
        Ok((serialize_to_py(py, &reset.0)?, to_py(py, &reset.1)?))
    }

    /// One step from the assistant's raw text: `(messages, reward,
    /// terminated, truncated, info)`. The messages return the observation
    /// (the tool's reply); the last step's info carries `termination`,
    /// `total_reward`, `reward_breakdown` and `final_grade`.
    fn step<'py>(&self, py: Python<'py>, text: &str) -> PyResult<StepTuple<'py>> {
        let step =
            py.detach(|| -> PyResult<Step> { Ok(self.lock()?.episode.step_text(text).map_err(Failure::from)?) })?;
        step_tuple(py, &step)
    }

    /// One step from a tool call the trainer parsed itself (an
    /// `openai_tools` trainer's native call): `name`, its `args` (a dict)
    /// and the call's id (default `call_<turn>`). Returns as `step`.
    #[pyo3(signature = (name, args=None, call_id=None))]
    fn call_tool<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        args: Option<&Bound<'py, PyAny>>,
        call_id: Option<String>,
    ) -> PyResult<StepTuple<'py>> {
        let arguments = match args {
            Some(a) => from_py(a)?,
            None => json!({}),
        };
        let step = py.detach(|| -> PyResult<Step> {
            let mut state = self.lock()?;
            let id = call_id.unwrap_or_else(|| format!("call_{}", state.episode.steps().len() + 1));
            Ok(state.episode.step_tool(name, arguments, &id).map_err(Failure::from)?)
        })?;
        step_tuple(py, &step)
    }

    /// The tool schemas (OpenAI function JSON), as the codec renders them.
    #[getter]
    fn tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.tools)
    }

    /// The codec's system prompt for the offered tools.
    #[getter]
    fn system_prompt(&self) -> &str {
        &self.system_prompt
    }

    /// The environment directory.
    #[getter]
    fn env_dir(&self) -> PathBuf {
        self.dir.clone()
    }

    /// The environment's content-derived id.
    #[getter]
    fn task_id(&self) -> PyResult<String> {
        Ok(self.lock()?.episode.task().id().to_owned())
    }

    /// The prompt and the completion so far (assistant turns verbatim, then
    /// the observations), as a list of message dicts.
    fn transcript<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let messages = self.lock()?.episode.messages();
        serialize_to_py(py, &messages)
    }

    /// The ended episode as one `sandmle.trajectory/v1` row (a dict, the
    /// line `sandmle rollout` writes; group fields as for a group of one).
    ///
    /// Raises `BadArguments` before the episode has ended.
    fn record<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let state = self.lock()?;
        let t = Trajectory::from_episode(&state.episode, &state.placement, 0, None).map_err(|_| {
            Failure::new(Kind::BadArguments, "record(): the episode has not ended (step it to its answer or budget)")
        })?;
        serialize_to_py(py, &t)
    }

    /// Whether `close()` was called since the last `reset`.
    #[getter]
    fn closed(&self) -> PyResult<bool> {
        Ok(self.lock()?.closed)
    }

    /// Removes the episode's workspace; safe to call twice. `reset` opens a
    /// fresh one.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| -> PyResult<()> {
            let mut state = self.lock()?;
            state.episode.close();
            state.closed = true;
            Ok(())
        })
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> PyResult<String> {
        let state = self.lock()?;
        Ok(format!(
            "sandmle.Env({:?}, codec={:?}, reward={:?}, turn={})",
            self.dir.display().to_string(),
            state.episode.codec_name(),
            state.episode.reward_name(),
            state.episode.steps().len()
        ))
    }
}

/// Where an episode sits, as `rollout_group` places rollout `idx` of the
/// group seeded `seed`.
fn placement(episode: &Episode, seed: u64, idx: usize) -> Placement {
    let task = episode.task().id();
    Placement {
        group_id: format!("{task}:{seed}"),
        rollout_idx: idx,
        seed: sandmle_core::derive_seed(seed, &format!("{task}:{idx}")),
    }
}
