//! `sandmle serve` against hostile and careless clients, as a process: each
//! test starts the real binary with a temporary folder of its own (so its
//! workspaces and sandboxes can be counted and none of another test's are),
//! and is named for what used to go wrong. Every wait is a bounded "does
//! not hang" guard, never a timing assertion.

mod common;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

fn bwrap_works() -> bool {
    let ok = sandmle_exec::bubblewrap_available();
    assert!(ok || std::env::var_os("SANDMLE_REQUIRE_BWRAP").is_none(), "bubblewrap is required but cannot run here");
    if !ok {
        eprintln!("bubblewrap cannot run here: this test is skipped");
    }
    ok
}

/// The Python the sandbox exposes: CI's virtualenv, else the system's.
fn python() -> String {
    std::env::var("SANDMLE_PYTHON").ok().filter(|p| !p.is_empty()).unwrap_or_else(|| "/usr/bin/python3".into())
}

/// A running `sandmle serve` with a temporary folder of its own.
struct Served {
    child: Child,
    port: u16,
    /// The server's `TMPDIR`: its workspaces live here.
    tmp: PathBuf,
    _dir: tempfile::TempDir,
}

/// A fresh folder the server's `TMPDIR` can be, traversable by the user a
/// root caller's sandbox runs as.
fn private_tmp() -> (tempfile::TempDir, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    for d in [dir.path(), tmp.as_path()] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (dir, tmp)
}

impl Served {
    fn start(extra: &[&str]) -> Served {
        let (dir, tmp) = private_tmp();
        Served::start_in(dir, tmp, extra)
    }

    fn start_in(dir: tempfile::TempDir, tmp: PathBuf, extra: &[&str]) -> Served {
        let index = dir.path().join("index.jsonl");
        std::fs::write(&index, json!({"path": common::seed("wine")}).to_string() + "\n").unwrap();
        let py = python();
        let mut args =
            vec!["--json", "serve", "--index", index.to_str().unwrap(), "--port", "0", "--python", py.as_str()];
        args.extend_from_slice(extra);
        let mut child = Command::new(env!("CARGO_BIN_EXE_sandmle"))
            .args(&args)
            .env("TMPDIR", &tmp)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let port = v["port"].as_u64().unwrap() as u16;
        Served { child, port, tmp, _dir: dir }
    }

    fn ws_url(&self) -> String {
        format!("ws://127.0.0.1:{}/ws", self.port)
    }

    /// Run directories (workspaces) alive now.
    fn workspaces(&self) -> usize {
        run_dirs(&self.tmp)
    }

    /// Processes whose command line names this server's folder (its
    /// sandboxes: bubblewrap binds the workspace by its path).
    fn sandbox_processes(&self) -> usize {
        common_processes_with(&self.tmp.display().to_string())
    }

    /// `GET /health` on a fresh connection, if it answers within `within`.
    fn health(&self, within: Duration) -> bool {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else { return false };
        let _ = s.set_read_timeout(Some(within));
        if s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").is_err() {
            return false;
        }
        let mut text = String::new();
        let _ = s.read_to_string(&mut text);
        text.starts_with("HTTP/1.1 200") && text.contains("healthy")
    }

    fn terminate(&self) {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    }

    /// Waits for the process to exit; `true` if it exited successfully.
    fn wait_exit(&mut self, within: Duration) -> Option<bool> {
        let until = Instant::now() + within;
        while Instant::now() < until {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status.success());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run_dirs(tmp: &Path) -> usize {
    std::fs::read_dir(tmp)
        .map(|d| d.flatten().filter(|e| e.file_name().to_string_lossy().starts_with("sandmle-run-")).count())
        .unwrap_or(0)
}

fn common_processes_with(marker: &str) -> usize {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy() != me)
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|cmd| String::from_utf8_lossy(cmd).contains(marker))
        .count()
}

/// Polls `ok` until it holds or `within` passes.
fn eventually(within: Duration, mut ok: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + within;
    loop {
        if ok() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A session of `served` reset on wine, sent a code step running `code`
/// (not waited for).
async fn session_with_step(served: &Served, code: &str) -> Ws {
    let mut ws = connect(served).await;
    send(&mut ws, RESET.into()).await;
    assert_eq!(next_json(&mut ws).await.unwrap()["type"], "observation");
    send(&mut ws, json!({"type": "step", "data": {"content": code_turn(code)}}).to_string()).await;
    ws
}

/// A code turn in SandMLE's format.
fn code_turn(code: &str) -> String {
    format!("<think>run</think>\n<tool_call>\npython\n<code>\n{code}\n</code>\n</tool_call>")
}

const RESET: &str = r#"{"type": "reset", "data": {"task_id": "wine", "tools": ["python"]}}"#;

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(s: &Served) -> Ws {
    tokio_tungstenite::connect_async(s.ws_url()).await.unwrap().0
}

/// The next text frame as JSON (`None` once closed), skipping control frames.
async fn next_json(ws: &mut Ws) -> Option<Value> {
    loop {
        match tokio::time::timeout(Duration::from_secs(120), ws.next()).await.expect("no hang") {
            Some(Ok(Message::Text(t))) => return Some(serde_json::from_str(t.as_str()).unwrap()),
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
            Some(Ok(_)) => continue,
        }
    }
}

async fn send(ws: &mut Ws, text: String) {
    ws.send(Message::Text(text.into())).await.unwrap();
}

async fn step(ws: &mut Ws, code: &str) -> Value {
    send(ws, json!({"type": "step", "data": {"content": code_turn(code)}}).to_string()).await;
    next_json(ws).await.expect("a step reply")
}

/// A program's 30,000-deep directory chain aborted the server when its
/// workspace was removed (a recursive removal on a 2 MiB thread), and every
/// restart aborted again on the leftover.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deep_directory_chain_does_not_take_the_server_down() {
    if !bwrap_works() {
        return;
    }
    let served = Served::start(&[]);
    let mut ws = connect(&served).await;
    send(&mut ws, RESET.into()).await;
    assert_eq!(next_json(&mut ws).await.unwrap()["type"], "observation");
    let chain = "import os\nfor i in range(30000):\n    os.mkdir('d'); os.chdir('d')";
    let reply = step(&mut ws, chain).await;
    assert_eq!(reply["type"], "observation", "{reply}");
    send(&mut ws, json!({"type": "close"}).to_string()).await;
    drop(ws);
    assert!(eventually(Duration::from_secs(30), || served.workspaces() == 0), "the workspace is removed");
    assert!(served.health(Duration::from_secs(10)), "the server is up");
    let mut again = connect(&served).await;
    send(&mut again, RESET.into()).await;
    assert_eq!(next_json(&mut again).await.unwrap()["type"], "observation");
}

#[test]
fn a_restart_over_a_hostile_leftover_starts_and_cleans_it() {
    use nix::fcntl::{OFlag, open, openat};
    use nix::sys::stat::{Mode, mkdirat};
    use std::os::fd::AsFd;
    let (dir, tmp) = private_tmp();
    // What a killed server leaves: a run directory whose owner's lock is
    // gone, its workspace holding a chain far past PATH_MAX.
    let dead = tmp.join("sandmle-run-crashed");
    std::fs::create_dir_all(dead.join("workspace")).unwrap();
    std::fs::write(dead.join(sandmle_core::scratch::MARKER), "").unwrap();
    let mut fd = open(&dead.join("workspace"), OFlag::O_RDONLY | OFlag::O_DIRECTORY, Mode::empty()).unwrap();
    for _ in 0..30_000 {
        mkdirat(fd.as_fd(), "d", Mode::S_IRWXU).unwrap();
        fd = openat(fd.as_fd(), "d", OFlag::O_RDONLY | OFlag::O_DIRECTORY, Mode::empty()).unwrap();
    }
    drop(fd);
    let served = Served::start_in(dir, tmp, &[]);
    assert!(!dead.exists(), "reclaimed before the server listened");
    assert!(served.health(Duration::from_secs(10)));
}

/// SIGTERM waited on a running step (20 s and more) instead of ending
/// every session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_kills_running_programs_and_closes_every_session() {
    if !bwrap_works() {
        return;
    }
    let mut served = Served::start(&[]);
    let mut ws = session_with_step(&served, "import time\ntime.sleep(600)").await;
    assert!(eventually(Duration::from_secs(30), || served.sandbox_processes() > 0), "the step runs");
    tokio::time::sleep(Duration::from_secs(1)).await;
    let asked = Instant::now();
    served.terminate();
    // The step is answered (cancelled), then the session closed with 1001.
    let mut close_code = None;
    loop {
        match tokio::time::timeout(Duration::from_secs(30), ws.next()).await.expect("no hang") {
            Some(Ok(Message::Close(frame))) => {
                close_code = frame.map(|f| u16::from(f.code));
                break;
            }
            None | Some(Err(_)) => break,
            Some(Ok(_)) => {}
        }
    }
    assert_eq!(close_code, Some(1001), "a close frame, going away");
    assert_eq!(served.wait_exit(Duration::from_secs(30)), Some(true), "the server exits cleanly");
    assert!(asked.elapsed() < Duration::from_secs(20), "shutdown took {:?}", asked.elapsed());
    assert_eq!(served.workspaces(), 0, "every workspace is removed");
    assert_eq!(served.sandbox_processes(), 0, "no program survives");
}

/// A client leaving mid-step used to leave its program running to its
/// step limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_leaving_mid_step_kills_its_program() {
    if !bwrap_works() {
        return;
    }
    let served = Served::start(&[]);
    let ws = session_with_step(&served, "import time\ntime.sleep(600)").await;
    assert!(eventually(Duration::from_secs(30), || served.sandbox_processes() > 0), "the step runs");
    drop(ws);
    assert!(eventually(Duration::from_secs(20), || served.sandbox_processes() == 0), "the program is killed");
    assert!(eventually(Duration::from_secs(20), || served.workspaces() == 0), "the workspace is removed");
}

/// Pings went unanswered while a step ran, so openenv-core's client (a ping
/// every 20 s, 20 s to answer) dropped every step longer than about 40 s;
/// a message sent meanwhile is answered after the step, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pings_are_answered_during_a_step_and_replies_keep_their_order() {
    if !bwrap_works() {
        return;
    }
    let served = Served::start(&[]);
    let mut ws = session_with_step(&served, "import time\ntime.sleep(4)").await;
    send(&mut ws, json!({"type": "state"}).to_string()).await;
    let mut pongs_before_reply = 0;
    let mut pinged = 0u8;
    let mut replies = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_millis(400));
    while replies.len() < 2 {
        tokio::select! {
            _ = tick.tick(), if replies.is_empty() => {
                pinged = pinged.wrapping_add(1);
                ws.send(Message::Ping(vec![pinged].into())).await.unwrap();
            }
            frame = tokio::time::timeout(Duration::from_secs(120), ws.next()) => match frame.expect("no hang") {
                Some(Ok(Message::Pong(_))) if replies.is_empty() => pongs_before_reply += 1,
                Some(Ok(Message::Text(t))) => replies.push(serde_json::from_str::<Value>(t.as_str()).unwrap()),
                Some(Ok(_)) => {}
                None | Some(Err(_)) => panic!("the session ended"),
            },
        }
    }
    assert!(pongs_before_reply >= 4, "only {pongs_before_reply} pongs during a 4 s step");
    assert_eq!(replies[0]["type"], "observation", "the step's reply first: {}", replies[0]);
    assert_eq!(replies[1]["type"], "state", "then the state's: {}", replies[1]);
    assert_eq!(replies[1]["data"]["step_count"], 1);
}

/// Hung-up stateless `POST /step` calls freed their session slots while
/// their programs went on: six calls under `--max-sessions 2` left six
/// sandboxes running.
#[test]
fn hung_up_stateless_steps_keep_their_slots_and_lose_their_programs() {
    if !bwrap_works() {
        return;
    }
    let served = Served::start(&["--max-sessions", "2"]);
    let body = json!({"task_id": "wine", "tools": ["python"], "action": {"content": code_turn("import time\ntime.sleep(600)")}})
        .to_string();
    let request = format!(
        "POST /step HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let most = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let (most, stop, tmp) = (most.clone(), stop.clone(), served.tmp.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                most.fetch_max(run_dirs(&tmp), std::sync::atomic::Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    // Three waves of two calls, each hanging up once its programs run.
    for _ in 0..3 {
        let calls: Vec<TcpStream> = (0..2)
            .map(|_| {
                let mut s = TcpStream::connect(("127.0.0.1", served.port)).unwrap();
                s.write_all(request.as_bytes()).unwrap();
                s
            })
            .collect();
        eventually(Duration::from_secs(20), || served.workspaces() > 0);
        std::thread::sleep(Duration::from_millis(800));
        drop(calls);
    }
    assert!(eventually(Duration::from_secs(30), || served.sandbox_processes() == 0), "every program is killed");
    assert!(eventually(Duration::from_secs(20), || served.workspaces() == 0), "every workspace is removed");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    sampler.join().unwrap();
    let most = most.load(std::sync::atomic::Ordering::Relaxed);
    assert!((1..=2).contains(&most), "{most} workspaces at once under --max-sessions 2");
}

/// 1,100 idle connections starved `/health` (no cap, descriptors ran out),
/// and slow-loris connections whose headers never finish stayed open.
#[test]
fn idle_and_slow_loris_connections_are_capped_and_timed_out() {
    let served = Served::start(&["--max-connections", "16", "--header-timeout", "1"]);
    let idle: Vec<TcpStream> = (0..40).filter_map(|_| TcpStream::connect(("127.0.0.1", served.port)).ok()).collect();
    let mut slow: Vec<TcpStream> = (0..10)
        .filter_map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", served.port)).ok()?;
            s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ").ok()?;
            Some(s)
        })
        .collect();
    for s in &mut slow {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut buf = [0u8; 64];
        // Closed by the server (EOF or reset), not left hanging.
        let n = s.read(&mut buf);
        assert!(
            matches!(n, Ok(0))
                || n.as_ref().is_err_and(
                    |e| e.kind() != std::io::ErrorKind::WouldBlock && e.kind() != std::io::ErrorKind::TimedOut
                ),
            "{n:?}"
        );
    }
    assert!(eventually(Duration::from_secs(10), || served.health(Duration::from_secs(2))), "/health answers");
    drop(idle);
}
