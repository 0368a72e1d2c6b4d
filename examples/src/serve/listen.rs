//! The listener: connections accepted up to a cap, each served over
//! HTTP/1.1 with a timeout on request headers, upgraded to WebSocket where
//! asked.
//!
//! Design decision: the accept loop is ours rather than `axum::serve`'s,
//! which has neither a connection cap nor a header timeout (hyper's needs
//! a timer that `axum::serve` does not install). So:
//! - at most `max_connections` connections are open at once, WebSocket
//!   sessions included (the permit lives inside the connection's I/O
//!   object, which the upgraded WebSocket inherits); one more is accepted
//!   and closed at once, so it never waits in the kernel's backlog;
//! - a request whose headers do not arrive within `header_timeout` (a
//!   slow-loris client), or a kept-alive connection idle that long between
//!   requests, is closed (hyper's `header_read_timeout` runs while the
//!   connection waits for a request head);
//! - an `accept` that fails for lack of descriptors (`EMFILE`) pauses the
//!   loop briefly instead of spinning or ending the server;
//! - on shutdown no connection is accepted any more and each open one
//!   finishes its request in flight and closes.

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

/// What the listener enforces.
#[derive(Debug, Clone, Copy)]
pub(super) struct ConnectionLimits {
    pub max_connections: usize,
    pub header_timeout: Duration,
}

/// A connection's socket, holding its place under the cap until dropped
/// (by hyper at the connection's end, or by the WebSocket it became).
struct Counted {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
}

impl AsyncRead for Counted {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Serves `app` on `listener` until `shutdown` is set.
///
/// # Errors
/// Only a listener that can no longer accept for a reason other than a
/// passing lack of resources.
pub(super) async fn serve_connections(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    mut shutdown: watch::Receiver<bool>,
) -> io::Result<()> {
    let open = Arc::new(Semaphore::new(limits.max_connections));
    loop {
        let accepted = tokio::select! {
            r = listener.accept() => r,
            () = super::stopping(&mut shutdown) => return Ok(()),
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) if passing(&e) => {
                // Out of descriptors or memory for a moment: let sessions end.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
            Err(e) => return Err(e),
        };
        let Ok(permit) = Arc::clone(&open).try_acquire_owned() else {
            // Over the cap: closed at once rather than left to wait.
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(Counted { stream, _permit: permit });
        let service = TowerToHyperService::new(app.clone());
        let mut stop = shutdown.clone();
        tokio::spawn(async move {
            let mut builder = http1::Builder::new();
            builder.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout).keep_alive(true);
            let conn = builder.serve_connection(io, service).with_upgrades();
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                () = super::stopping(&mut stop) => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
    }
}

/// Whether an `accept` error passes with time (a lack of descriptors or
/// memory, a connection reset before it was accepted).
fn passing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
            | io::ErrorKind::OutOfMemory
    ) || matches!(e.raw_os_error(), Some(23 | 24 | 105 | 12))
}
