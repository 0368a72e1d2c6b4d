//! Episode mode: the server owns the loop. A `run_group` request names an
//! environment, a group size `n` and a policy — a model behind an
//! OpenAI-compatible server (`client`: base URL, model, sampling) or a
//! built-in one (`policy`: `panel` or `stdlib_python`) — and gets back `n`
//! finished trajectory rows (`sandmle.trajectory/v1`) with the group's
//! advantages filled in, exactly as `sandmle rollout` writes them.
//!
//! ```json
//! {"type": "run_group", "data": {
//!   "task_id": "wine", "n": 4, "seed": 7,
//!   "client": {"base_url": "http://127.0.0.1:8001/v1", "model": "policy",
//!              "sampling": {"temperature": 1.0, "max_tokens": 2048}},
//!   "codec": "sandmle_react", "reward": "released_dense", "estimator": "grpo"}}
//! ```
//!
//! The reply is `{"type": "group", "data": {"task_id", "group_id", "n",
//! "estimator", "rewards", "advantages", "all_equal", "singleton",
//! "trajectories": [...]}}` (over HTTP, `POST /run_group` answers the
//! `data` object). The other keys are the reset options (`codec`,
//! `reward`, `reward_mode`, `max_turns`, `step_timeout_s`,
//! `episode_time_s`, `tools`); `seed` both draws the environment when
//! `task_id` is absent and seeds the group (rollout `i` gets
//! `derive_seed(seed, "<task>:i")`, sent to the model as its sampling
//! seed).
//!
//! # Whose resources
//! - A group counts as `n` sessions against `max_sessions` while it runs
//!   (on top of the connection's own): a group that does not fit is
//!   refused with `CAPACITY_REACHED`, never queued.
//! - The server calls the model itself, so `base_url` is checked on its
//!   parsed form ([`super::endpoint`]): loopback addresses (`127.0.0.1`,
//!   `localhost`, `[::1]`) always, other URLs only under an endpoint the
//!   operator allowed (`sandmle serve --allow-endpoint URL`), user
//!   information refused, redirects never followed. Without that check a
//!   client could make the server send requests anywhere it can reach.
//! - `api_key`, when given, is sent to that server as a bearer token and
//!   is never logged or echoed.

use super::endpoint::{Endpoint, check_endpoint};
use super::http::cancellable;
use super::protocol::{ErrorCode, ResetOptions, WireError};
use super::{Settings, Shared, mix, wire};
use sandmle_agents::http::{HttpChatConfig, HttpChatModel};
use sandmle_agents::rollout::{Estimator, LlmPolicy, PanelPolicy, StdlibPythonPolicy};
use sandmle_agents::{Policy, RolloutConfig};
use sandmle_core::Cancel;
use sandmle_core::{ChatModel, Sampling};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// The largest group one request may ask for.
pub const MAX_GROUP: usize = 256;

/// A `run_group` request's `data`.
#[derive(Debug, Clone, Deserialize)]
pub struct GroupRequest {
    /// The environment and episode settings, as in `reset`.
    #[serde(flatten)]
    pub options: ResetOptions,
    /// Rollouts in the group (1 to [`MAX_GROUP`]).
    pub n: usize,
    /// A model behind an OpenAI-compatible server.
    #[serde(default)]
    pub client: Option<ClientConfig>,
    /// A built-in policy instead: `panel` or `stdlib_python`.
    #[serde(default)]
    pub policy: Option<String>,
    /// `grpo` (default), `dr_grpo` or `rloo`.
    #[serde(default)]
    pub estimator: Option<String>,
}

/// How the server reaches the policy's model.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientConfig {
    /// The server's base URL, up to `/v1`.
    pub base_url: String,
    /// The model's name on that server.
    pub model: String,
    /// A bearer token for that server (never logged).
    #[serde(default)]
    pub api_key: Option<String>,
    /// Sampling settings of every request (`seed` is set per rollout).
    #[serde(default)]
    pub sampling: Sampling,
    /// Seconds one request may take (default 120).
    #[serde(default)]
    pub request_timeout_s: Option<f64>,
    /// Ask for token ids and log-probabilities (vLLM).
    #[serde(default)]
    pub token_ids: bool,
}

impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "(set)"))
            .field("sampling", &self.sampling)
            .finish_non_exhaustive()
    }
}

fn invalid(message: impl Into<String>) -> WireError {
    WireError::new(ErrorCode::ValidationError, message)
}

/// Parses a `run_group` request's `data`.
///
/// # Errors
/// [`ErrorCode::ValidationError`] for a malformed request, a group size
/// out of range, neither or both of `client` and `policy`, or an unknown
/// estimator.
pub fn parse_group(data: Option<Value>) -> Result<GroupRequest, WireError> {
    let request: GroupRequest = serde_json::from_value(data.unwrap_or(Value::Null))
        .map_err(|e| invalid(format!("invalid run_group request: {e}")))?;
    if request.n == 0 || request.n > MAX_GROUP {
        return Err(invalid(format!("n: from 1 to {MAX_GROUP}")));
    }
    match (&request.client, request.policy.as_deref()) {
        (Some(_), None) | (None, Some("panel" | "stdlib_python")) => {}
        (None, Some(other)) => return Err(invalid(format!("policy: panel or stdlib_python, not `{other}`"))),
        _ => return Err(invalid("give `client` (a model server) or `policy` (panel, stdlib_python), not both")),
    }
    if let Some(e) = &request.estimator {
        Estimator::by_name(e).ok_or_else(|| invalid("estimator: grpo, dr_grpo or rloo"))?;
    }
    Ok(request)
}

/// The model `client` names, once its URL is allowed.
fn chat_model(client: &ClientConfig, allowed: &[Endpoint]) -> Result<Arc<dyn ChatModel>, WireError> {
    if let Err(why) = check_endpoint(&client.base_url, allowed) {
        return Err(invalid(format!("client.base_url `{}`: {why}", sandmle_core::bounded(&client.base_url))));
    }
    let mut config = HttpChatConfig::new(&client.base_url, &client.model);
    config.token_ids = client.token_ids;
    if let Some(s) = client.request_timeout_s {
        config.timeout = Duration::try_from_secs_f64(s)
            .ok()
            .filter(|d| !d.is_zero() && d.as_secs() <= 3600)
            .ok_or_else(|| invalid("client.request_timeout_s: a positive number of seconds, at most an hour"))?;
    }
    let key = client.api_key.clone();
    if key.is_some() {
        // The key is handed over through the lookup, never an environment variable.
        config.api_key_env = Some("run_group.api_key".into());
    }
    let model = HttpChatModel::with_key_lookup(config, move |_| key.clone()).map_err(wire)?;
    Ok(Arc::new(model))
}

/// Runs the group and answers its `data` object. `cancel` (set when the
/// client leaves, or by a server shutting down) stops every rollout: its
/// running programs are killed and its episodes end before their next turn.
pub(super) async fn run_group(shared: &Arc<Shared>, request: GroupRequest, cancel: Cancel) -> Result<Value, WireError> {
    let permits = u32::try_from(request.n).map_err(|_| invalid("n: too large"))?;
    let Ok(permit) = Arc::clone(&shared.sessions).try_acquire_many_owned(permits) else {
        let (active, max) = (shared.active(), shared.config.max_sessions);
        return Err(WireError::new(
            ErrorCode::CapacityReached,
            format!("Server at capacity: a group of {} does not fit ({active}/{max} sessions active)", request.n),
        ));
    };
    let model = match &request.client {
        Some(client) => Some(chat_model(client, &shared.config.allowed_endpoints)?),
        None => None,
    };
    let mut options = request.options.clone();
    if options.episode.tools.is_none() {
        let tools = if request.policy.as_deref() == Some("panel") { "pipeline" } else { "python" };
        options.episode.tools = Some(vec![tools.into()]);
    }
    let Settings { task, codec, reward, config } = shared.settings(&options)?;
    let estimator = Estimator::by_name(request.estimator.as_deref().unwrap_or("grpo"))
        .ok_or_else(|| invalid("estimator: grpo, dr_grpo or rloo"))?;
    // Without a seed each group differs (as `reset` without one does).
    let seed = options.seed.unwrap_or_else(|| mix(super::rand_u64()));
    let rollout = RolloutConfig { episode: config, codec, reward, estimator, seed, cancel: Some(cancel.clone()) };
    let (n, policy, sampling) =
        (request.n, request.policy.clone(), request.client.as_ref().map(|c| c.sampling.clone()));
    let s = Arc::clone(shared);
    let group = cancellable(shared, cancel, move || {
        let _permit = permit;
        let env = task.environment();
        let specs = crate::panel_specs(env);
        let spec = env.task().clone();
        let factory = |_: usize, seed: u64| -> sandmle_agents::Result<Box<dyn Policy>> {
            Ok(match (&model, policy.as_deref()) {
                (Some(m), _) => {
                    let sampling = Sampling { seed: Some(seed), ..sampling.clone().unwrap_or_default() };
                    Box::new(LlmPolicy::new(Arc::clone(m), sampling))
                }
                (None, Some("panel")) => Box::new(PanelPolicy::new(&specs, 2, seed, Arc::clone(&rollout.codec))),
                (None, _) => Box::new(StdlibPythonPolicy::new(&spec, seed, Arc::clone(&rollout.codec))),
            })
        };
        let run = || sandmle_agents::rollout_group(&task, &s.backends, n, &factory, &rollout);
        // Model calls wait on the network: one thread per rollout; local
        // policies share the machine's cores.
        let group = if model.is_some() {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| WireError::new(ErrorCode::SessionError, format!("thread pool: {e}")))?
                .install(run)
        } else {
            run()
        };
        group.map(|g| (task.id().to_owned(), g)).map_err(|e| WireError::new(ErrorCode::ExecutionError, e.to_string()))
    })
    .await??;
    let (task_id, group) = group;
    let rows = group
        .trajectories
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| WireError::new(ErrorCode::SessionError, format!("trajectory rows: {e}")))?;
    let rewards: Vec<f64> = group.trajectories.iter().map(|t| t.reward).collect();
    Ok(json!({
        "task_id": task_id,
        "group_id": group.trajectories.first().map(|t| t.group_id.clone()),
        "n": n,
        "estimator": estimator.name(),
        "rewards": rewards,
        "advantages": group.advantages.values,
        "all_equal": group.advantages.all_equal,
        "singleton": group.advantages.singleton,
        "trajectories": rows,
    }))
}
