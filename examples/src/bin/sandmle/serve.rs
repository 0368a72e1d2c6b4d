//! `serve`: environments over OpenEnv's HTTP + WebSocket protocol
//! (`sandmle::serve`). With `--json` the one stdout object is printed once
//! the server listens (`{"listening", "host", "port", "environments"}`),
//! so a harness that passes `--port 0` learns the port from it.

use crate::Globals;
use crate::output::{Failure, Kind, print_json, say};
use clap::Args;
use sandmle::serve::{Catalog, ServeConfig};
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
    /// Seconds without a message after which a session is closed.
    #[arg(long = "idle-timeout", default_value_t = 600.0)]
    idle_timeout: f64,
    /// The largest WebSocket message or HTTP body, in bytes.
    #[arg(long = "max-message-bytes", default_value_t = 4 << 20, value_parser = clap::value_parser!(u64).range(1024..=(256 << 20)))]
    max_message_bytes: u64,
    /// Wall-clock limit of one step in seconds (reset options may lower it).
    #[arg(long = "step-timeout", default_value_t = 300.0)]
    step_timeout: f64,
    /// A URL prefix of model servers `run_group` requests may name
    /// (repeatable); loopback addresses are always allowed.
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
    let config = ServeConfig {
        max_sessions: a.max_sessions as usize,
        idle_timeout: seconds("idle-timeout", a.idle_timeout)?,
        max_message_bytes: a.max_message_bytes as usize,
        step_timeout: seconds("step-timeout", a.step_timeout)?,
        allowed_endpoints: a.allow_endpoint.clone(),
    };
    if let Some(bad) = a.allow_endpoint.iter().find(|p| !(p.starts_with("http://") || p.starts_with("https://"))) {
        return Err(Failure::usage(format!("--allow-endpoint `{bad}`: an http:// or https:// URL prefix")));
    }
    let dirs = crate::rollout::env_dirs(a.envs.as_deref(), a.index.as_deref())?;
    let catalog = Catalog::load(&dirs).map_err(|e| Failure::broken(e.to_string()))?;
    let backends = sandmle::rl_backends_with(config.step_timeout, a.unsandboxed, a.python.settings());
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
