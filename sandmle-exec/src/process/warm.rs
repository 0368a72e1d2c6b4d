//! The executor's side of a workspace's warm interpreter
//! (`warm_server.py`): one Python process started in the workspace's
//! sandbox, as its PID 1, which forks a fresh child per code step.
//!
//! The two sides talk over a `SOCK_SEQPACKET` socket pair (the server's
//! descriptor 0), one JSON object per packet. A step's request carries the
//! write ends of two fresh pipes (`SCM_RIGHTS`), which become the child's
//! standard output and error; this side reads them exactly as it reads a
//! cold run's, and they end when the last process of the step is gone.
//! Every limit is enforced here, as for a cold run: the deadline and the
//! workspace budget (a `kill` request, then the whole sandbox if the
//! server does not answer within [`KILL_GRACE`]); the per-process limits
//! are the sandbox's own (`prlimit` runs before the server; children
//! inherit them). Nothing the server says is trusted beyond its bounded
//! parse: it runs in the same sandbox as the agent's code.
//!
//! The server is spawned from a thread of its own that lives as long as
//! the workspace, since bubblewrap's `--die-with-parent` follows the
//! spawning thread, not the process.

use super::ProcessExecutor;
use super::bwrap::{Plan, Shape};
use super::python::PythonEnv;
use super::wait::{TailReader, Waited, tail_reader};
use super::workspace::RunDir;
use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::signal::{Signal, killpg};
use nix::sys::socket::{AddressFamily, ControlMessage, MsgFlags, SockFlag, SockType, recv, sendmsg, socketpair};
use nix::unistd::{Pid, pipe2};
use std::io::IoSlice;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

const SERVER: &str = include_str!("warm_server.py");

/// How long the server has to end a step it was asked to kill before the
/// whole sandbox is.
pub(super) const KILL_GRACE: Duration = Duration::from_secs(5);

/// The largest reply read (a longer packet is cut and fails to parse).
const MAX_REPLY: usize = 64 << 10;

/// How often the workspace budget is checked while a step runs.
const WATCH_EVERY: Duration = Duration::from_millis(50);

/// A reply of the server.
enum Reply {
    Ready(String),
    Fatal(String),
    Exit(i32),
    Error(String),
    Gone(String),
}

fn parse(bytes: &[u8]) -> Reply {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return Reply::Gone("a garbled reply".into());
    };
    let text = |key: &str| v.get(key).and_then(|x| x.as_str()).map(sandmle_core::bounded);
    if let Some(ready) = v.get("ready") {
        let list = |key: &str| -> String {
            let names: Vec<String> = match ready.get(key) {
                Some(serde_json::Value::Array(a)) => a.iter().filter_map(|x| x.as_str()).map(str::to_owned).collect(),
                Some(serde_json::Value::Object(o)) => o.keys().cloned().collect(),
                _ => Vec::new(),
            };
            if names.is_empty() { "none".into() } else { sandmle_core::bounded(&names.join(", ")) }
        };
        let python = ready.get("python").and_then(|x| x.as_str()).map(sandmle_core::bounded).unwrap_or_default();
        let failed = list("failed");
        let failed = if failed == "none" { String::new() } else { format!("; could not import {failed}") };
        Reply::Ready(format!("python {python}, preloaded: {}{failed}", list("preloaded")))
    } else if let Some(reason) = text("fatal") {
        Reply::Fatal(reason)
    } else if let Some(status) = v.get("exit").and_then(serde_json::Value::as_i64) {
        Reply::Exit(i32::try_from(status.clamp(0, 255)).unwrap_or(255))
    } else if let Some(reason) = text("error") {
        Reply::Error(reason)
    } else {
        Reply::Gone("an unexpected reply".into())
    }
}

enum State {
    Starting,
    Ready(String),
    Dead(String),
}

/// How a step on the warm interpreter went.
pub(super) enum WarmRun {
    /// It ran: how it ended, and its standard output and error tails.
    Ran(Waited, (String, String)),
    /// It did not start there (the reason): run it cold.
    Unavailable(String),
}

/// A workspace's warm interpreter.
pub(super) struct Warm {
    sock: OwnedFd,
    replies: Receiver<Reply>,
    stop: Option<Sender<()>>,
    keeper: Option<std::thread::JoinHandle<()>>,
    log: TailReader,
    pid: Option<u32>,
    state: State,
    started: Instant,
    start_timeout: Duration,
}

impl Warm {
    /// Starts the server in `run`'s sandbox (as `plan` creates it) with
    /// `python`, importing `preload`; it becomes ready in the background.
    pub fn start(
        exec: &ProcessExecutor,
        run: &RunDir,
        plan: &Plan,
        python: &PythonEnv,
        preload: &[String],
        start_timeout: Duration,
    ) -> Result<Warm, String> {
        let (ours, theirs) = socketpair(AddressFamily::Unix, SockType::SeqPacket, None, SockFlag::SOCK_CLOEXEC)
            .map_err(|e| format!("socketpair: {e}"))?;
        let reader = ours.try_clone().map_err(|e| format!("dup: {e}"))?;
        let config = serde_json::json!({ "workspace": "/workspace", "preload": preload }).to_string();
        let command = [python.interpreter().to_string_lossy().into_owned(), "-c".into(), SERVER.into(), config];
        let mut cmd = exec.command(&command, run, Some(plan), &Shape { python, warm: true });
        cmd.stdin(Stdio::from(theirs)).stdout(Stdio::null()).stderr(Stdio::piped());
        let (spawned_tx, spawned_rx) = mpsc::channel();
        let (stop, stopped) = mpsc::channel::<()>();
        let keeper = std::thread::Builder::new()
            .name("sandmle-warm".into())
            .spawn(move || {
                close_fds::set_fds_cloexec_threadsafe(3, &[]);
                let spawned = cmd.spawn();
                // The command's copy of the server's end of the socket goes,
                // so the server's death reads as the end of the socket.
                drop(cmd);
                match spawned {
                    Ok(mut child) => {
                        let _ = spawned_tx.send(Ok((child.id(), child.stderr.take())));
                        let _ = stopped.recv();
                        if let Ok(pid) = i32::try_from(child.id()) {
                            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
                        }
                        let _ = child.wait();
                    }
                    Err(e) => {
                        let _ = spawned_tx.send(Err(e.to_string()));
                    }
                }
            })
            .map_err(|e| format!("cannot start its thread: {e}"))?;
        let (pid, stderr) = match spawned_rx.recv() {
            Ok(Ok(spawned)) => spawned,
            Ok(Err(e)) => {
                let _ = keeper.join();
                return Err(format!("cannot be started: {e}"));
            }
            Err(_) => return Err("its thread ended before starting it".into()),
        };
        let (tx, replies) = mpsc::channel();
        std::thread::Builder::new()
            .name("sandmle-warm-replies".into())
            .spawn(move || read_replies(&reader, &tx))
            .map_err(|e| format!("cannot start its reader: {e}"))?;
        Ok(Warm {
            sock: ours,
            replies,
            stop: Some(stop),
            keeper: Some(keeper),
            log: tail_reader(stderr, 2048),
            pid: Some(pid),
            state: State::Starting,
            started: Instant::now(),
            start_timeout,
        })
    }

    /// The host process id of the server's sandbox (bubblewrap), while it
    /// is thought alive.
    pub fn pid(&self) -> Option<u32> {
        if matches!(self.state, State::Dead(_)) { None } else { self.pid }
    }

    /// Takes note of a death reported while no step ran.
    fn notice_death(&mut self) {
        while let Ok(reply) = self.replies.try_recv() {
            match reply {
                Reply::Gone(why) => {
                    self.die(format!("it ended between steps ({why})"));
                    return;
                }
                Reply::Ready(what) => self.state = State::Ready(what),
                Reply::Fatal(reason) => self.die(format!("it refused to serve: {reason}")),
                Reply::Exit(_) | Reply::Error(_) => {}
            }
        }
    }

    /// How code steps start, for isolation reports.
    pub fn describe(&self) -> String {
        match &self.state {
            State::Starting => "a warm interpreter (starting) forks a fresh child per `python3 FILE.py` step".into(),
            State::Ready(what) => format!("a warm interpreter ({what}) forks a fresh child per `python3 FILE.py` step"),
            State::Dead(reason) => {
                format!("cold, a fresh interpreter per step: the warm interpreter is unavailable ({reason})")
            }
        }
    }

    fn die(&mut self, reason: String) {
        let log = self.log.snapshot();
        let log = log.trim();
        let reason = if log.is_empty() { reason } else { format!("{reason}; it said: {}", sandmle_core::bounded(log)) };
        self.state = State::Dead(reason);
        // The keeper kills the sandbox, every process in it included.
        self.stop.take();
    }

    /// Waits until the server is ready (within its start timeout).
    ///
    /// # Errors
    /// Why it is not, when it never will be.
    pub fn ensure_ready(&mut self) -> Result<(), String> {
        loop {
            match &self.state {
                State::Ready(_) => return Ok(()),
                State::Dead(reason) => return Err(reason.clone()),
                State::Starting => {}
            }
            let left = (self.started + self.start_timeout).saturating_duration_since(Instant::now());
            match self.replies.recv_timeout(left) {
                Ok(Reply::Ready(what)) => self.state = State::Ready(what),
                Ok(Reply::Fatal(reason)) => self.die(format!("it refused to serve: {reason}")),
                Ok(Reply::Gone(reason)) => self.die(format!("it ended while starting ({reason})")),
                Ok(_) => self.die("it sent an unexpected reply while starting".into()),
                Err(RecvTimeoutError::Timeout) => {
                    self.die(format!("it did not start within {} s", self.start_timeout.as_secs_f64()));
                }
                Err(RecvTimeoutError::Disconnected) => self.die("its reader stopped".into()),
            }
        }
    }

    /// Runs `/workspace/{file}` as `__main__` in a fresh child until
    /// `deadline`, calling `watch` now and then (its reason, if any, ends
    /// the step as over budget).
    pub fn run(
        &mut self,
        file: &str,
        deadline: Instant,
        output_tail: usize,
        mut watch: impl FnMut() -> Option<String>,
    ) -> WarmRun {
        self.notice_death();
        if let Err(reason) = self.ensure_ready() {
            return WarmRun::Unavailable(reason);
        }
        let pipes = pipe2(OFlag::O_CLOEXEC).and_then(|out| pipe2(OFlag::O_CLOEXEC).map(|err| (out, err)));
        let ((out_r, out_w), (err_r, err_w)) = match pipes {
            Ok(p) => p,
            Err(e) => return WarmRun::Unavailable(format!("no pipes for the step: {e}")),
        };
        let request = serde_json::json!({ "op": "run", "path": format!("/workspace/{file}"), "argv0": file });
        let request = request.to_string();
        let fds = [out_w.as_raw_fd(), err_w.as_raw_fd()];
        let sent = sendmsg::<()>(
            self.sock.as_raw_fd(),
            &[IoSlice::new(request.as_bytes())],
            &[ControlMessage::ScmRights(&fds)],
            MsgFlags::MSG_NOSIGNAL,
            None,
        );
        drop((out_w, err_w));
        if let Err(e) = sent {
            self.die(format!("it cannot be reached: {e}"));
            return WarmRun::Unavailable(format!("the warm interpreter cannot be reached: {e}"));
        }
        let stdout = tail_reader(Some(std::fs::File::from(out_r)), output_tail);
        let stderr = tail_reader(Some(std::fs::File::from(err_r)), output_tail);
        match self.wait(deadline, &mut watch) {
            Ok(outcome) => WarmRun::Ran(outcome, (stdout.finish(), stderr.finish())),
            Err(reason) => WarmRun::Unavailable(reason),
        }
    }

    fn wait(&mut self, deadline: Instant, watch: &mut impl FnMut() -> Option<String>) -> Result<Waited, String> {
        let mut next_watch = Instant::now() + WATCH_EVERY;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Ok(self.end_step(Waited::TimedOut));
            }
            match self.replies.recv_timeout(deadline.min(next_watch).saturating_duration_since(now)) {
                Ok(Reply::Exit(status)) => return Ok(Waited::Exited(ExitStatus::from_raw(status << 8))),
                Ok(Reply::Error(reason)) => return Err(format!("the warm interpreter could not start it: {reason}")),
                Ok(Reply::Gone(why)) => return Ok(self.lost(&why)),
                Ok(_) => return Ok(self.lost("an unexpected reply")),
                Err(RecvTimeoutError::Disconnected) => return Ok(self.lost("its reader stopped")),
                Err(RecvTimeoutError::Timeout) if Instant::now() >= next_watch => {
                    let t = Instant::now();
                    let over = watch();
                    let took = t.elapsed();
                    if let Some(reason) = over {
                        return Ok(self.end_step(Waited::Stopped(reason)));
                    }
                    next_watch = Instant::now() + WATCH_EVERY.max(took * 4);
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }

    fn lost(&mut self, why: &str) -> Waited {
        let reason = format!("the warm interpreter died during the step ({why}); later steps start cold");
        self.die(reason.clone());
        Waited::Lost(reason)
    }

    /// Asks the server to kill the step, and kills the sandbox if it does
    /// not within [`KILL_GRACE`]; the step ends as `outcome` either way.
    fn end_step(&mut self, outcome: Waited) -> Waited {
        let kill = br#"{"op": "kill"}"#;
        if nix::sys::socket::send(self.sock.as_raw_fd(), kill, MsgFlags::MSG_NOSIGNAL).is_ok() {
            let until = Instant::now() + KILL_GRACE;
            loop {
                match self.replies.recv_timeout(until.saturating_duration_since(Instant::now())) {
                    Ok(Reply::Exit(_)) => return outcome,
                    Ok(Reply::Error(_)) => continue,
                    _ => break,
                }
            }
        }
        self.die(format!("it did not end a step within {} s of being asked", KILL_GRACE.as_secs()));
        outcome
    }
}

impl Drop for Warm {
    fn drop(&mut self) {
        self.stop.take();
        if let Some(keeper) = self.keeper.take() {
            let _ = keeper.join();
        }
    }
}

fn read_replies(sock: &OwnedFd, tx: &Sender<Reply>) {
    let mut buf = vec![0u8; MAX_REPLY];
    loop {
        let reply = match recv(sock.as_raw_fd(), &mut buf, MsgFlags::empty()) {
            Ok(0) => Reply::Gone("it exited".into()),
            Ok(n) => parse(&buf[..n]),
            Err(Errno::EINTR) => continue,
            Err(e) => Reply::Gone(format!("its socket failed: {e}")),
        };
        let last = matches!(reply, Reply::Gone(_));
        if tx.send(reply).is_err() || last {
            return;
        }
    }
}
