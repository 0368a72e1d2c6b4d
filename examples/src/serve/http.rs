//! The stateless HTTP endpoints: `POST /reset`, `POST /step` (a fresh
//! episode per call, as OpenEnv's) and `POST /run_group`.
//!
//! A call holds its session slot until its episode is gone, not until its
//! client is: the slot moves into the blocking work. A client that hangs
//! up drops the call's future, whose guard cancels the work (the program
//! is killed within the executor's watch interval), so hung-up calls
//! neither escape the session cap nor leave sandboxes running.

use super::protocol::{self, ErrorCode, ResetOptions, WireError};
use super::{Shared, blocking, group, mix, rand_u64, stopping, wire};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use sandmle_agents::Episode;
use sandmle_core::Cancel;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::sync::OwnedSemaphorePermit;

/// Cancels its flag when dropped: the call's future was dropped (its client
/// hung up) or finished (then nothing runs any more).
pub(super) struct CancelOnDrop(pub Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

pub(super) fn http_error(e: &WireError) -> Response {
    let status = match e.code {
        ErrorCode::InvalidJson | ErrorCode::ValidationError => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorCode::CapacityReached => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    (status, axum::Json(json!({"detail": e.message, "code": e.code.as_str()}))).into_response()
}

pub(super) fn body_object(body: &Bytes) -> Result<serde_json::Map<String, Value>, WireError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::Map::new());
    }
    match serde_json::from_slice(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(WireError::new(ErrorCode::ValidationError, "the body must be a JSON object")),
        Err(e) => Err(WireError::new(ErrorCode::InvalidJson, format!("Invalid JSON: {e}"))),
    }
}

/// Stateless `POST /reset`: a fresh episode, reset, closed.
pub(super) async fn http_reset(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let run = async {
        let body = body_object(&body)?;
        let opts = protocol::parse_reset(Some(Value::Object(body)))?;
        let id = opts.episode_id.clone().unwrap_or_else(|| format!("episode-{}", mix(rand_u64())));
        stateless(&shared, opts, move |e| Ok(protocol::reset_payload(&e.reset().map_err(wire)?, &id))).await
    };
    json_or_error(run.await)
}

/// Stateless `POST /step`: a fresh episode (the body's keys other than
/// `action` are its reset options), reset, one action, closed.
pub(super) async fn http_step(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let run = async {
        let mut body = body_object(&body)?;
        let action =
            body.remove("action").ok_or_else(|| WireError::new(ErrorCode::ValidationError, "`action` is required"))?;
        let action = protocol::parse_action(action)?;
        for k in ["timeout_s", "request_id"] {
            body.remove(k);
        }
        let opts = protocol::parse_reset(Some(Value::Object(body)))?;
        stateless(&shared, opts, move |e| {
            let step = e.reset().and_then(|_| e.step_message(action.message())).map_err(wire)?;
            Ok(protocol::step_payload(&step))
        })
        .await
    };
    json_or_error(run.await)
}

/// Runs `job` (which holds `cancel`'s work) on a blocking thread; a server
/// shutting down meanwhile cancels it, and so does dropping this future.
pub(super) async fn cancellable<T: Send + 'static>(
    shared: &Shared,
    cancel: Cancel,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, WireError> {
    let guard = CancelOnDrop(cancel);
    let mut shutdown = shared.shutdown.clone();
    let work = blocking(job);
    tokio::pin!(work);
    let out = tokio::select! {
        out = &mut work => out,
        _ = stopping(&mut shutdown) => {
            guard.0.cancel();
            work.await
        }
    };
    drop(guard);
    out
}

/// One stateless call: a session slot, a fresh episode with `opts` on a
/// blocking thread, `work` on it, the episode closed whatever `work` did,
/// then the slot freed.
async fn stateless(
    shared: &Arc<Shared>,
    opts: ResetOptions,
    work: impl FnOnce(&mut Episode) -> Result<Value, WireError> + Send + 'static,
) -> Result<Value, WireError> {
    let permit: OwnedSemaphorePermit = capacity(shared)?;
    let s = Arc::clone(shared);
    let cancel = Cancel::new();
    let c = cancel.clone();
    cancellable(shared, cancel, move || {
        let _slot = permit;
        let mut e = s.episode(&opts)?;
        e.set_cancel(c);
        let out = work(&mut e);
        e.close();
        out
    })
    .await?
}

pub(super) async fn http_run_group(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let result = async {
        let request = group::parse_group(Some(Value::Object(body_object(&body)?)))?;
        let cancel = Cancel::new();
        let _guard = CancelOnDrop(cancel.clone());
        group::run_group(&shared, request, cancel).await
    };
    json_or_error(result.await)
}

pub(super) fn json_or_error(result: Result<Value, WireError>) -> Response {
    match result {
        Ok(v) => axum::Json(v).into_response(),
        Err(e) => http_error(&e),
    }
}

pub(super) fn capacity(shared: &Arc<Shared>) -> Result<OwnedSemaphorePermit, WireError> {
    Arc::clone(&shared.sessions).try_acquire_owned().map_err(|_| {
        WireError::new(
            ErrorCode::CapacityReached,
            format!("Server at capacity: {}/{} sessions active.", shared.active(), shared.config.max_sessions),
        )
    })
}
