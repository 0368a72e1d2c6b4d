//! One WebSocket session: one episode per connection, OpenEnv's messages
//! in and out.
//!
//! While a message's work runs (a step's program, a reset that opens a
//! workspace, a `run_group`), the session keeps reading the socket:
//! - pings are answered as they arrive (the WebSocket library replies as
//!   it reads), so a client's keepalive — openenv-core's pings every 20 s
//!   with a 20 s timeout — never times out during a long step;
//! - a message that arrives meanwhile waits its turn (at most
//!   [`MAX_WAITING`]; one more is refused with an error, sent in its turn
//!   so that replies stay in the order of the messages, which is how
//!   clients pair them);
//! - a close frame or a dropped connection cancels the work: the step's
//!   program is killed, and the session ends;
//! - a server shutting down cancels it too, answers it, and closes the
//!   session with a close frame (1001, going away).
//!
//! Only protocol messages count as activity for the idle timeout: pings do
//! not keep an abandoned session open, and the time of a step does not
//! count against it either.

use super::protocol::{self, ErrorCode, WireError};
use super::{Shared, blocking, group, mix, rand_u64, stopping, wire};
use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use sandmle_agents::Episode;
use sandmle_core::Cancel;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, watch};

/// Messages that may wait while one is being worked on; each one more is
/// answered, in its turn, with an error.
pub const MAX_WAITING: usize = 8;

/// Messages (and refusals) queued at most: past them the client is
/// flooding, and the session ends.
const MAX_QUEUED: usize = 64;

pub(super) async fn ws_handler(State(shared): State<Arc<Shared>>, ws: WebSocketUpgrade) -> Response {
    let permit = Arc::clone(&shared.sessions).try_acquire_owned().ok();
    let limit = shared.config.max_message_bytes;
    ws.max_message_size(limit).max_frame_size(limit).on_upgrade(move |socket| session(socket, shared, permit))
}

/// How a session ended, for its log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Close,
    Disconnect,
    Idle,
    Shutdown,
    Capacity,
    TransportError,
    Flood,
}

impl End {
    fn as_str(self) -> &'static str {
        match self {
            End::Close => "close",
            End::Disconnect => "disconnect",
            End::Idle => "idle_timeout",
            End::Shutdown => "shutdown",
            End::Capacity => "capacity_reached",
            End::TransportError => "transport_error",
            End::Flood => "flood",
        }
    }
}

async fn send(socket: &mut WebSocket, frame: &Value) -> bool {
    socket.send(WsMessage::Text(frame.to_string().into())).await.is_ok()
}

/// A protocol message's text, or the reply that refuses it.
fn text_of(message: WsMessage) -> Option<Result<String, WireError>> {
    match message {
        WsMessage::Text(t) => Some(Ok(t.as_str().to_owned())),
        WsMessage::Binary(b) => {
            Some(String::from_utf8(b.to_vec()).map_err(|_| {
                WireError::new(ErrorCode::InvalidJson, "Invalid JSON: a binary message that is not UTF-8")
            }))
        }
        _ => None,
    }
}

/// What happened on the socket while work ran.
struct Watched {
    /// The session must end, and why (the client left, the server stops).
    end: Option<End>,
}

/// Drives `work` to its end while answering pings, queueing messages and
/// watching for the client leaving or the server stopping (either cancels
/// `cancel`).
async fn keep_alive<T>(
    socket: &mut WebSocket,
    work: impl Future<Output = T>,
    cancel: &Cancel,
    shutdown: &mut watch::Receiver<bool>,
    waiting: &mut VecDeque<Result<String, WireError>>,
) -> (T, Watched) {
    tokio::pin!(work);
    let mut watched = Watched { end: None };
    loop {
        tokio::select! {
            biased;
            out = &mut work => return (out, watched),
            _ = stopping(shutdown), if watched.end.is_none() => {
                cancel.cancel();
                watched.end = Some(End::Shutdown);
            }
            received = socket.recv(), if watched.end.is_none() => match received {
                None | Some(Err(_)) | Some(Ok(WsMessage::Close(_))) => {
                    cancel.cancel();
                    watched.end = Some(End::Disconnect);
                }
                Some(Ok(message)) => {
                    let Some(text) = text_of(message) else { continue };
                    if waiting.len() >= MAX_QUEUED {
                        // A flood: the client is not waiting for replies.
                        cancel.cancel();
                        watched.end = Some(End::Flood);
                    } else if waiting.len() >= MAX_WAITING {
                        // Answered in its turn, so replies stay in order.
                        waiting.push_back(Err(WireError::new(
                            ErrorCode::ExecutionError,
                            format!("busy: {MAX_WAITING} messages were already waiting for a running one; this one was dropped"),
                        )));
                    } else {
                        waiting.push_back(text);
                    }
                }
            },
        }
    }
}

async fn session(mut socket: WebSocket, shared: Arc<Shared>, permit: Option<OwnedSemaphorePermit>) {
    let id = shared.next_session.fetch_add(1, Ordering::Relaxed);
    let start = Instant::now();
    let Some(permit) = permit else {
        refuse(&mut socket, &shared).await;
        log_session(id, start, None, None, End::Capacity);
        return;
    };
    let mut shutdown = shared.shutdown.clone();
    let cancel = Cancel::new();
    let mut episode: Option<Episode> = None;
    let mut episode_id: Option<String> = None;
    let mut waiting: VecDeque<Result<String, WireError>> = VecDeque::new();
    let mut deadline = tokio::time::Instant::now() + shared.config.idle_timeout;
    let end = loop {
        let next = match waiting.pop_front() {
            Some(queued) => queued,
            None => {
                // Checked first: a stream of pings is always ready to be read.
                if tokio::time::Instant::now() >= deadline {
                    break End::Idle;
                }
                let received = tokio::select! {
                    r = tokio::time::timeout_at(deadline, socket.recv()) => r,
                    _ = stopping(&mut shutdown) => break End::Shutdown,
                };
                match received {
                    Err(_) => break End::Idle,
                    Ok(None) | Ok(Some(Ok(WsMessage::Close(_)))) => break End::Disconnect,
                    Ok(Some(Err(_))) => break End::TransportError,
                    Ok(Some(Ok(message))) => match text_of(message) {
                        Some(text) => text,
                        None => continue,
                    },
                }
            }
        };
        let reply = match next {
            Ok(text) => {
                let work = handle(&shared, &text, &mut episode, &mut episode_id, &cancel);
                let (out, watched) = keep_alive(&mut socket, work, &cancel, &mut shutdown, &mut waiting).await;
                match (out, watched.end) {
                    (_, Some(end @ (End::Disconnect | End::Flood))) => break end,
                    (Ok(None), _) => break End::Close,
                    (Ok(Some(frame)), end) => (frame, end),
                    (Err(e), end) => (e.frame(), end),
                }
            }
            Err(e) => (e.frame(), None),
        };
        if !send(&mut socket, &reply.0).await {
            break End::Disconnect;
        }
        if let Some(end) = reply.1 {
            break end;
        }
        deadline = tokio::time::Instant::now() + shared.config.idle_timeout;
    };
    let close = match end {
        End::Shutdown => Some(CloseFrame { code: 1001, reason: "the server is shutting down".into() }),
        End::Idle => Some(CloseFrame { code: 1000, reason: "idle timeout".into() }),
        End::Flood => Some(CloseFrame { code: 1008, reason: "too many messages without waiting for replies".into() }),
        _ => None,
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), socket.send(WsMessage::Close(close))).await;
    cancel.cancel();
    let summary = episode.as_ref().map(|e| {
        json!({
            "task_id": e.task().id(),
            "steps": e.steps().len(),
            "reward": e.outcome().map(|(v, _)| v.value),
            "termination": e.termination(),
            "env_ms": u64::try_from(e.env_time().as_millis()).unwrap_or(u64::MAX),
        })
    });
    if let Some(mut e) = episode.take() {
        // Removing the workspace is file-system work; the slot is held
        // until it is done.
        let _ = blocking(move || {
            e.close();
            drop(permit);
        })
        .await;
    }
    log_session(id, start, summary, episode_id, end);
}

/// Answers a connection over the session cap with OpenEnv's
/// `CAPACITY_REACHED` error, then closes it.
async fn refuse(socket: &mut WebSocket, shared: &Shared) {
    let max = shared.config.max_sessions;
    let active = shared.active();
    let frame = json!({"type": "error", "data": {
        "message": format!("Server at capacity: {active}/{max} sessions active. Cannot accept new connections."),
        "code": ErrorCode::CapacityReached.as_str(), "active_sessions": active, "max_sessions": max,
    }});
    if send(socket, &frame).await {
        // Let the client's first message arrive, so the error answers it.
        let _ = tokio::time::timeout(Duration::from_secs(5), socket.recv()).await;
    }
    let _ = socket.send(WsMessage::Close(None)).await;
}

fn log_session(id: u64, start: Instant, summary: Option<Value>, episode_id: Option<String>, end: End) {
    let mut line = json!({
        "event": "session", "session": id, "episode_id": episode_id, "end": end.as_str(),
        "duration_ms": u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
    });
    if let (Some(Value::Object(s)), Some(l)) = (summary, line.as_object_mut()) {
        l.extend(s);
    }
    eprintln!("{line}");
}

/// One WebSocket message: `Ok(Some(reply))`, `Ok(None)` for `close`, or
/// an error reply.
async fn handle(
    shared: &Arc<Shared>,
    text: &str,
    episode: &mut Option<Episode>,
    episode_id: &mut Option<String>,
    cancel: &Cancel,
) -> Result<Option<Value>, WireError> {
    let message: Value =
        serde_json::from_str(text).map_err(|e| WireError::new(ErrorCode::InvalidJson, format!("Invalid JSON: {e}")))?;
    let Value::Object(mut message) = message else {
        return Err(WireError::new(ErrorCode::ValidationError, "Invalid message: not a JSON object"));
    };
    let kind = message.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
    let data = message.remove("data");
    match kind.as_str() {
        "reset" => {
            let opts = protocol::parse_reset(data)?;
            let old = episode.take();
            let s = Arc::clone(shared);
            let id = opts.episode_id.clone().unwrap_or_else(|| format!("episode-{}", mix(rand_u64())));
            let cancel = cancel.clone();
            let (e, reset) = blocking(move || {
                drop(old);
                let mut e = s.episode(&opts)?;
                e.set_cancel(cancel);
                let reset = e.reset().map_err(wire)?;
                Ok::<_, WireError>((e, reset))
            })
            .await??;
            let payload = protocol::reset_payload(&reset, &id);
            *episode = Some(e);
            *episode_id = Some(id);
            Ok(Some(json!({"type": "observation", "data": payload})))
        }
        "step" => {
            let action = protocol::parse_action(data.unwrap_or(Value::Null))?;
            let Some(mut e) = episode.take() else {
                return Err(WireError::new(ErrorCode::ValidationError, "no episode: send reset first"));
            };
            let (e, step) = blocking(move || {
                let step = e.step_message(action.message());
                (e, step)
            })
            .await?;
            *episode = Some(e);
            let step = step.map_err(wire)?;
            Ok(Some(json!({"type": "observation", "data": protocol::step_payload(&step)})))
        }
        "state" => {
            Ok(Some(json!({"type": "state", "data": protocol::state_payload(episode.as_ref(), episode_id.as_deref())})))
        }
        "run_group" => {
            let request = group::parse_group(data)?;
            let data = group::run_group(shared, request, cancel.clone()).await?;
            Ok(Some(json!({"type": "group", "data": data})))
        }
        "close" => Ok(None),
        other => Err(WireError::new(ErrorCode::UnknownType, format!("Unknown message type: {other}"))),
    }
}
