//! `serve`: environments over OpenEnv's HTTP + WebSocket protocol
//! (`sandmle::serve`). With `--json` the one stdout object is printed once
//! the server listens (`{"listening", "host", "port", "environments"}`),
//! so a harness that passes `--port 0` learns the port from it.

use crate::Globals;
use crate::output::{Failure, Kind, print_json, say};
use clap::Args;
use sandmle::serve::endpoint::Endpoint;
use sandmle::serve::{Catalog, ServeConfig};
use sandmle_core::bounded;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args)]
pub struct ServeArgs {
    /// A folder of environment directories.
    #[arg(long, conflicts_with = "index")]
    envs: Option<PathBuf>,
    /// A manifest of environments (JSON lines with a `path` field).
    #[arg(long)]
    index: Option<PathBuf>,
    /// The address to bind. Loopback by default: anything else exposes
    /// code execution to whoever can reach the port (see the README).
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port (0 picks a free one).
    #[arg(long, default_value_t = 8000)]
    port: u16,
    /// The most sessions at once; one more is refused with CAPACITY_REACHED.
    #[arg(long = "max-sessions", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    max_sessions: u64,
    /// The most connections open at once (idle HTTP and WebSocket
    /// together); one more is closed at once.
    #[arg(long = "max-connections", default_value_t = 512, value_parser = clap::value_parser!(u64).range(2..=1_000_000))]
    max_connections: u64,
    /// Seconds a request's headers may take to arrive (and an idle
    /// kept-alive HTTP connection may wait).
    #[arg(long = "header-timeout", default_value_t = 10.0)]
    header_timeout: f64,
    /// Seconds without a message after which a session is closed.
    #[arg(long = "idle-timeout", default_value_t = 600.0)]
    idle_timeout: f64,
    /// The largest WebSocket message or HTTP body, in bytes.
    #[arg(long = "max-message-bytes", default_value_t = 4 << 20, value_parser = clap::value_parser!(u64).range(1024..=(256 << 20)))]
    max_message_bytes: u64,
    /// Wall-clock limit of one step in seconds (reset options may lower it).
    #[arg(long = "step-timeout", default_value_t = 300.0)]
    step_timeout: f64,
    /// A model server `run_group` requests may name (repeatable): its
    /// scheme, host and port, and the path prefix below which they may
    /// call; loopback addresses are always allowed.
    #[arg(long = "allow-endpoint")]
    allow_endpoint: Vec<String>,
    /// Run programs WITHOUT a sandbox: trusted code only.
    #[arg(long)]
    unsandboxed: bool,
    #[command(flatten)]
    python: crate::sandbox::PythonArgs,
}

fn seconds(name: &str, s: f64) -> Result<Duration, Failure> {
    Duration::try_from_secs_f64(s)
        .ok()
        .filter(|d| !d.is_zero() && d.as_secs() <= 7 * 24 * 3600)
        .ok_or_else(|| Failure::usage(format!("--{name} must be a positive number of seconds, at most a week")))
}

pub fn serve(a: &ServeArgs, g: &Globals) -> Result<ExitCode, Failure> {
    let allowed = a
        .allow_endpoint
        .iter()
        .map(|url| {
            Endpoint::parse(url).map_err(|why| Failure::usage(format!("--allow-endpoint `{}`: {why}", bounded(url))))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let config = ServeConfig {
        max_sessions: a.max_sessions as usize,
        max_connections: a.max_connections as usize,
        header_timeout: seconds("header-timeout", a.header_timeout)?,
        idle_timeout: seconds("idle-timeout", a.idle_timeout)?,
        max_message_bytes: a.max_message_bytes as usize,
        step_timeout: seconds("step-timeout", a.step_timeout)?,
        allowed_endpoints: allowed,
    };
    open_files(&config)?;
    let dirs = crate::rollout::env_dirs(a.envs.as_deref(), a.index.as_deref())?;
    let catalog = Catalog::load(&dirs).map_err(|e| Failure::broken(e.to_string()))?;
    let backends = sandmle::rl_backends_with(config.step_timeout, a.unsandboxed, a.python.settings());
    // A crashed predecessor's workspaces go before the first session.
    let reclaimed = sandmle_exec::reclaim_stale_runs();
    if reclaimed > 0 {
        eprintln!("{}", serde_json::json!({"event": "reclaimed", "workspaces": reclaimed}));
    }
    if a.unsandboxed {
        eprintln!("warning: --unsandboxed: agent programs run WITHOUT isolation");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(config.max_sessions.saturating_add(8).min(4096))
        .enable_all()
        .build()
        .map_err(|e| Failure::new(Kind::System, format!("runtime: {e}")))?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind((a.host.as_str(), a.port))
            .await
            .map_err(|e| Failure::usage(format!("cannot bind {}:{}: {e}", a.host, a.port)))?;
        let addr = listener.local_addr().map_err(|e| Failure::new(Kind::System, e.to_string()))?;
        let url = format!("http://{addr}");
        if g.json {
            print_json(&serde_json::json!({
                "listening": url, "host": addr.ip().to_string(), "port": addr.port(), "environments": catalog.len(),
            }));
        } else {
            say!("serving {} environment(s) on {url} (WebSocket {url}/ws); Ctrl-C stops", catalog.len());
        }
        if !addr.ip().is_loopback() {
            eprintln!("warning: listening on {addr}: anyone who can reach it can run code in the sandbox");
        }
        sandmle::serve::serve(listener, catalog, backends, config, shutdown_signal())
            .await
            .map_err(|e| Failure::new(Kind::System, e.to_string()))
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Descriptors a session may hold at once: its workspace, its sandbox's
/// pipes and sockets, and the workspace budget's walk (one per level).
const FILES_PER_SESSION: u64 = 96;

/// Raises this process's soft limit on open files to what the caps need
/// (at most the hard limit), as servers do, so that the caps and not the
/// descriptor table bound the server.
///
/// # Errors
/// A usage failure when even the hard limit is too low for the caps.
#[cfg(target_os = "linux")]
fn open_files(config: &ServeConfig) -> Result<(), Failure> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let need = (config.max_connections as u64)
        .saturating_add((config.max_sessions as u64).saturating_mul(FILES_PER_SESSION))
        .saturating_add(128);
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else { return Ok(()) };
    if soft >= need {
        return Ok(());
    }
    if hard < need {
        return Err(Failure::usage(format!(
            "--max-connections {} and --max-sessions {} need {need} open files, but the hard limit is {hard} \
             (ulimit -Hn): lower them or raise the limit",
            config.max_connections, config.max_sessions
        )));
    }
    setrlimit(Resource::RLIMIT_NOFILE, need, hard)
        .map_err(|e| Failure::new(Kind::System, format!("raising the open-file limit to {need}: {e}")))
}

#[cfg(not(target_os = "linux"))]
fn open_files(_: &ServeConfig) -> Result<(), Failure> {
    Ok(())
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    eprintln!("{}", serde_json::json!({"event": "shutdown"}));
}
