//! `sandmle serve`: SandMLE episodes over [OpenEnv]'s HTTP + WebSocket
//! protocol, so Python trainers drive them with OpenEnv's own client
//! (`openenv.core.GenericEnvClient`) and nothing else installed.
//!
//! Design decision: the server composes concrete crates (the standard
//! grader, the sandboxed process executor) through
//! [`rl_backends`](crate::rl_backends), so it lives in this package, the
//! composition root, and not in the library crates; [`serve`] takes the
//! [`Backends`] as ports, so tests and embedders can pass their own.
//!
//! # The protocol (matched to openenv-core 0.3.0's client and server)
//!
//! - **WebSocket `/ws`**, one episode per connection. In:
//!   `{"type": "reset", "data": {…options}}`, `{"type": "step", "data":
//!   {…action}}`, `{"type": "state"}`, `{"type": "close"}`. Out:
//!   `{"type": "observation", "data": {"observation": {…}, "reward": r,
//!   "done": d}}` (what `EnvClient._parse_result` reads), `{"type":
//!   "state", "data": {"episode_id", "step_count", …}}`, or `{"type":
//!   "error", "data": {"message", "code"}}` with OpenEnv's codes
//!   (`INVALID_JSON`, `UNKNOWN_TYPE`, `VALIDATION_ERROR`,
//!   `EXECUTION_ERROR`, `CAPACITY_REACHED`, `FACTORY_ERROR`,
//!   `SESSION_ERROR`). A bad message gets an error reply and the session
//!   goes on; `close` ends it.
//! - **Reset options** ([`protocol::ResetOptions`]): OpenEnv's `seed` and
//!   `episode_id`, and `task_id` (an environment's content id or directory
//!   name; otherwise drawn from the catalogue with `seed`, or round-robin),
//!   `codec`, `reward`, `reward_mode`, `max_turns`, `step_timeout_s` (at
//!   most the server's), `episode_time_s`, `tools`.
//! - **Action** ([`protocol::StepAction`]): `{"content": "<assistant
//!   text>"}` parsed by the session's codec, and/or `"tool_calls": [{"id",
//!   "name", "arguments"}]` a trainer parsed itself; `metadata` is
//!   accepted (OpenEnv's `Action` has it); other keys are a
//!   `VALIDATION_ERROR` (OpenEnv's actions forbid extra fields).
//! - **Observation**: `messages` (on reset the system and user prompt, then
//!   the messages returning each tool result), `tools` (on reset),
//!   `info`, `terminated`, `truncated`; `reward` is the step's reward
//!   (increments summing to the episode's, or terminal-only), `null` on
//!   reset; `done` is `terminated || truncated`. The last step's info
//!   holds `total_reward`, `reward_breakdown` and `final_grade`.
//! - **Capacity**: as OpenEnv, a connection over `max_sessions` is
//!   accepted, sent one `CAPACITY_REACHED` error (with `active_sessions`
//!   and `max_sessions`) and closed; the error answers the client's first
//!   message, so `EnvClient.reset()` raises it.
//! - **Episode mode** ([`group`]): `{"type": "run_group", "data": {…}}`
//!   (or `POST /run_group`) plays `n` rollouts against a model server or a
//!   built-in policy and answers `{"type": "group", "data": {…}}` with the
//!   finished trajectory rows and their advantages.
//! - **HTTP**: `GET /health` → `{"status": "healthy"}`; `GET /metadata`
//!   → OpenEnv's `EnvironmentMetadata` fields; `GET /schema` →
//!   `{"action", "observation", "state"}` JSON Schemas; `GET /state` (a
//!   fresh environment's); `GET /openapi.json`; `POST /reset` (a
//!   `ResetRequest` body) and `POST /step` (`{"action": {…}}`, the body's
//!   other keys being reset options) are stateless as OpenEnv's: each
//!   builds a fresh episode, answers `{observation, reward, done}` and
//!   closes it; an invalid body is HTTP 422 `{"detail": …}`.
//!
//! # Operations
//!
//! Episodes are blocking work (sandboxed Python runs): every reset, step
//! and close runs on `tokio::task::spawn_blocking`, never on the async
//! workers, and holds its session slot until its workspace is gone.
//! - **Keepalive** (the `session` module): while a step runs the session keeps
//!   reading its socket, so pings are answered, a message sent meanwhile
//!   waits its turn, and a client that leaves cancels the step (its
//!   program is killed).
//! - **Idle sessions**: a session that sends no protocol message for
//!   `idle_timeout` (pings do not count, nor does the time of a step) is
//!   closed and its workspace removed.
//! - **Connections** (the `listen` module): at most `max_connections` open at once
//!   (WebSocket sessions included); request headers must arrive within
//!   `header_timeout`, and a kept-alive connection idle that long is
//!   closed.
//! - **Hung-up HTTP calls** (the `http` module): a stateless `/step` or
//!   `/run_group` keeps its slot until its sandbox is gone, and its
//!   client hanging up kills the program.
//! - **Shutdown**: no connection is accepted any more, every running
//!   program is killed, every session is answered and closed with a close
//!   frame (1001), and [`serve`] returns once every workspace is gone —
//!   within a few seconds, whatever the programs were doing.
//!
//! Messages and bodies are bounded by `max_message_bytes`. Each session
//! writes one JSON line on stderr when it ends (`{"event": "session",
//! "session", "task_id", "steps", "reward", "termination", "env_ms" (the
//! episode's own work: reset and steps), "end", "duration_ms"}`).
//!
//! [OpenEnv]: https://github.com/meta-pytorch/OpenEnv

pub mod endpoint;
pub mod group;
mod http;
mod listen;
pub mod mcp;
pub mod protocol;
mod session;
pub mod tasks;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use endpoint::Endpoint;
use protocol::{ErrorCode, ResetOptions, WireError};
use sandmle_agents::{Backends, Episode, EpisodeConfig, Task};
use serde_json::{Value, json};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::{Semaphore, watch};

/// The server's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ServeConfig {
    /// The most sessions at once (WebSocket episodes and stateless HTTP
    /// calls together).
    pub max_sessions: usize,
    /// The most connections open at once (idle HTTP connections and
    /// WebSocket sessions together); one more is closed at once.
    pub max_connections: usize,
    /// How long a request's headers may take to arrive, and how long a
    /// kept-alive HTTP connection may wait idle for its next request.
    pub header_timeout: Duration,
    /// A session with no message for this long is closed.
    pub idle_timeout: Duration,
    /// The largest WebSocket message or HTTP body accepted, in bytes.
    pub max_message_bytes: usize,
    /// The longest a code or pipeline step may run; reset options may only
    /// lower it.
    pub step_timeout: Duration,
    /// Model servers a `run_group` request may name besides loopback
    /// addresses, each an origin and a path prefix (see [`endpoint`]).
    pub allowed_endpoints: Vec<Endpoint>,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            max_sessions: 64,
            max_connections: 512,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(600),
            max_message_bytes: 4 << 20,
            step_timeout: Duration::from_secs(300),
            allowed_endpoints: Vec::new(),
        }
    }
}

/// Why the server could not start or run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// An environment directory could not be read.
    #[error("{path}: {message}")]
    Environment {
        /// The directory.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// No environment to serve.
    #[error("no environments to serve")]
    Empty,
    /// A setting is out of range.
    #[error("{0}")]
    BadSetting(String),
    /// The listener failed.
    #[error("serving: {0}")]
    Io(#[from] std::io::Error),
}

/// The environments a server offers, by content id and directory name.
#[derive(Debug, Clone)]
pub struct Catalog {
    tasks: Vec<(String, Task)>,
}

impl Catalog {
    /// Reads every environment directory (every hash checked).
    ///
    /// # Errors
    /// [`ServeError::Environment`] for a directory that is not a valid
    /// environment with thresholds; [`ServeError::Empty`] for none.
    pub fn load(dirs: &[PathBuf]) -> Result<Catalog, ServeError> {
        let mut tasks = Vec::with_capacity(dirs.len());
        for dir in dirs {
            let task =
                Task::read(dir).map_err(|e| ServeError::Environment { path: dir.clone(), message: e.to_string() })?;
            tasks.push((dir_name(dir), task));
        }
        Catalog::new(tasks)
    }

    /// A catalogue of tasks already loaded, each with a name.
    ///
    /// # Errors
    /// [`ServeError::Empty`] for none.
    pub fn new(tasks: Vec<(String, Task)>) -> Result<Catalog, ServeError> {
        if tasks.is_empty() {
            return Err(ServeError::Empty);
        }
        Ok(Catalog { tasks })
    }

    /// How many environments.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Never true (a catalogue has at least one environment).
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// `(name, task id)` of every environment.
    pub fn entries(&self) -> Vec<(String, String)> {
        self.tasks.iter().map(|(n, t)| (n.clone(), t.id().to_owned())).collect()
    }

    /// The environment named by `task_id` (content id or directory name),
    /// or else the `draw`-th (modulo the count) of those in `split` and of
    /// difficulty band `band` (`bands`: each task's, in catalogue order),
    /// or of all.
    fn pick(
        &self,
        task_id: Option<&str>,
        split: Option<&str>,
        band: Option<u8>,
        bands: &[Option<u8>],
        draw: u64,
    ) -> Result<&Task, WireError> {
        let invalid = |m: String| WireError::new(ErrorCode::ValidationError, m);
        if let Some(s) = split
            && !tasks::SPLITS.contains(&s)
        {
            return Err(invalid(format!("split: one of {}", tasks::SPLITS.join(", "))));
        }
        if band.is_some_and(|b| !(1..=5).contains(&b)) {
            return Err(invalid("band: one of 1, 2, 3, 4, 5".into()));
        }
        match task_id {
            Some(id) => self
                .tasks
                .iter()
                .find(|(n, t)| t.id() == id || n == id)
                .map(|(_, t)| t)
                .ok_or_else(|| invalid(format!("task_id `{id}`: no such environment"))),
            None => {
                let pool: Vec<&Task> = self
                    .tasks
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, t))| split.is_none_or(|s| tasks::split_of(t.id()) == s))
                    .filter(|(i, _)| band.is_none_or(|b| bands.get(*i).copied().flatten() == Some(b)))
                    .map(|(_, (_, t))| t)
                    .collect();
                let n = pool.len() as u64;
                let i = usize::try_from(draw % n.max(1)).unwrap_or(0);
                pool.get(i).copied().ok_or_else(|| {
                    let mut what = Vec::new();
                    if let Some(s) = split {
                        what.push(format!("split `{s}`"));
                    }
                    if let Some(b) = band {
                        what.push(format!("band {b}"));
                    }
                    invalid(format!("{}: no environment in it", what.join(" and ")))
                })
            }
        }
    }
}

fn dir_name(dir: &Path) -> String {
    dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| dir.display().to_string())
}

/// SplitMix64: a seed's draw, spread over the catalogue.
fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Shared {
    catalog: Catalog,
    backends: Backends,
    config: ServeConfig,
    sessions: Arc<Semaphore>,
    shutdown: watch::Receiver<bool>,
    next_session: AtomicU64,
    next_draw: AtomicU64,
    mcp: mcp::McpSessions,
    /// Each task's difficulty, in the catalogue's order.
    difficulty: Vec<Option<sandmle_core::Difficulty>>,
}

impl Shared {
    fn active(&self) -> usize {
        self.config.max_sessions.saturating_sub(self.sessions.available_permits())
    }

    /// The task, codec, reward and episode settings `opts` name.
    fn settings(&self, opts: &ResetOptions) -> Result<Settings, WireError> {
        let draw = match opts.seed {
            Some(seed) => mix(seed),
            None => self.next_draw.fetch_add(1, Ordering::Relaxed),
        };
        let bands: Vec<Option<u8>> = self.difficulty.iter().map(|d| d.map(|d| d.band)).collect();
        let task = self.catalog.pick(opts.task_id.as_deref(), opts.split.as_deref(), opts.band, &bands, draw)?.clone();
        let checked = opts.episode.check(self.config.step_timeout).map_err(wire)?;
        let (codec, reward, config) = (checked.codec, checked.reward, checked.config);
        Ok(Settings { task, codec, reward, config })
    }

    /// A fresh episode for `opts` (not reset yet).
    fn episode(&self, opts: &ResetOptions) -> Result<Episode, WireError> {
        let s = self.settings(opts)?;
        Episode::new(s.task, self.backends.clone(), s.codec, s.reward, s.config).map_err(wire)
    }
}

/// What a request's options resolve to.
struct Settings {
    task: Task,
    codec: Arc<dyn sandmle_agents::codec::Codec>,
    reward: Arc<dyn sandmle_agents::reward::Reward>,
    config: EpisodeConfig,
}

/// An episode's error on the wire: its code from core's one table
/// ([`sandmle_core::FailureKind::wire_code`]: the caller's fault a
/// `VALIDATION_ERROR`, the environment's a `FACTORY_ERROR`, the rest an
/// `EXECUTION_ERROR`).
fn wire(e: sandmle_agents::Error) -> WireError {
    use sandmle_core::Blame;
    let code = ErrorCode::of_kind(e.kind());
    match e {
        sandmle_agents::Error::EpisodeNotRunning => {
            WireError::new(code, "the episode is not running: send reset first (or again)")
        }
        other => WireError::new(code, other.to_string()),
    }
}

/// Completes once the shutdown flag is set (its guard released at once, so
/// the future is `Send` inside `select!`).
async fn stopping(flag: &mut watch::Receiver<bool>) {
    let _ = flag.wait_for(|stop| *stop).await;
}

/// Runs blocking episode work off the async workers.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, WireError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| WireError::new(ErrorCode::SessionError, format!("the episode's worker failed: {e}")))
}

/// Serves `catalog` on `listener` until `shutdown` completes, then ends
/// every session, waits for their workspaces to be removed and returns.
///
/// # Errors
/// [`ServeError::BadSetting`] for a zero session cap, idle timeout or
/// message bound; [`ServeError::Io`] when the listener fails.
pub async fn serve(
    listener: tokio::net::TcpListener,
    catalog: Catalog,
    backends: Backends,
    config: ServeConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    if config.max_sessions == 0 || config.max_sessions > (u32::MAX >> 3) as usize {
        return Err(ServeError::BadSetting("max_sessions: from 1 to 536870911".into()));
    }
    if config.max_connections < 2 || config.max_connections > (u32::MAX >> 3) as usize {
        return Err(ServeError::BadSetting("max_connections: from 2 to 536870911".into()));
    }
    let year = Duration::from_secs(365 * 24 * 3600);
    let positive = [config.idle_timeout, config.step_timeout, config.header_timeout];
    if positive.iter().any(Duration::is_zero) || config.max_message_bytes == 0 {
        return Err(ServeError::BadSetting(
            "idle timeout, header timeout, message bound and step timeout must be positive".into(),
        ));
    }
    if positive.iter().any(|d| *d > year) {
        return Err(ServeError::BadSetting("idle timeout, header timeout and step timeout: at most a year".into()));
    }
    let (tx, rx) = watch::channel(false);
    let max = config.max_sessions;
    let limits =
        listen::ConnectionLimits { max_connections: config.max_connections, header_timeout: config.header_timeout };
    let sessions = Arc::new(Semaphore::new(max));
    let difficulty = catalog
        .tasks
        .iter()
        .map(|(_, t)| {
            sandmle_agents::reward_check::difficulty_of(t.environment(), backends.grader.as_ref()).ok().flatten()
        })
        .collect();
    let shared = Arc::new(Shared {
        catalog,
        backends,
        config,
        sessions: Arc::clone(&sessions),
        shutdown: rx.clone(),
        next_session: AtomicU64::new(1),
        next_draw: AtomicU64::new(0),
        mcp: mcp::McpSessions::default(),
        difficulty,
    });
    let reaper = tokio::spawn(mcp::reaper(Arc::clone(&shared)));
    let app = router(shared);
    let serving = listen::serve_connections(listener, app, limits, rx);
    tokio::pin!(serving, shutdown);
    let result = tokio::select! {
        // Only a failing listener ends it before the flag is set.
        r = &mut serving => r,
        () = &mut shutdown => {
            let _ = tx.send(true);
            serving.await
        }
    };
    // Sessions see the flag (it stays set once the sender is gone).
    let _ = tx.send(true);
    let _ = reaper.await;
    // Every session holds a permit until its workspace is gone.
    let _ = sessions.acquire_many(u32::try_from(max).unwrap_or(u32::MAX)).await;
    result.map_err(ServeError::Io)
}

fn router(shared: Arc<Shared>) -> Router {
    let limit = shared.config.max_message_bytes;
    Router::new()
        .route("/ws", get(session::ws_handler))
        .route("/health", get(|| async { axum::Json(json!({"status": "healthy"})) }))
        .route("/metadata", get(|| async { axum::Json(metadata()) }))
        .route("/schema", get(|| async { axum::Json(protocol::schemas()) }))
        .route("/openapi.json", get(|| async { axum::Json(protocol::openapi()) }))
        .route("/state", get(|| async { axum::Json(protocol::state_payload(None, None)) }))
        .route("/tasks", get(tasks::http_tasks))
        .route("/reset", post(http::http_reset))
        .route("/step", post(http::http_step))
        .route("/run_group", post(http::http_run_group))
        .route("/mcp", post(mcp::http_mcp))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(shared)
}

/// OpenEnv's `EnvironmentMetadata`.
fn metadata() -> Value {
    json!({
        "name": "sandmle",
        "description": "SandMLE micro-scale ML-engineering environments: write Python that trains a model on train.csv, writes submission.csv, and Score it against hidden answers.",
        "readme_content": Value::Null,
        "version": env!("CARGO_PKG_VERSION"),
        "author": "SandMLE-rs developers",
        "documentation_url": "https://github.com/sandmle-rs/sandmle-rs",
    })
}

/// A value that differs between calls (episode ids only; nothing seeded
/// depends on it).
fn rand_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    (t as u64) ^ COUNTER.fetch_add(1, Ordering::Relaxed).rotate_left(32) ^ u64::from(std::process::id())
}
