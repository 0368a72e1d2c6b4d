//! Waiting for the program under its deadline and budget, and capturing
//! the tails of its output.

use super::error::{Error, Result};
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
use nix::unistd::Pid;
use std::io::Read;
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How the wait ended.
pub(super) enum Waited {
    /// The program exited (or was killed by a signal of its own limits).
    Exited(std::process::ExitStatus),
    /// The deadline passed; the program was killed.
    TimedOut,
    /// The watcher found it over budget; the program was killed.
    Stopped(String),
    /// What ran the program died under it (the warm interpreter): the
    /// step is a failure, for this reason.
    Lost(String),
}

/// Waits for the child until `deadline`, calling `watch` now and then
/// (at most every `watch_every`, and spaced out to four times as long as
/// the last call took, so watching never costs more than a fifth of a
/// core); when `watch` names a reason, or at the deadline, the child's
/// whole process group is killed and reaped. The group is killed while the
/// exited child is still a zombie (`WNOWAIT`), so its process id — the
/// group's id — cannot have been reused by another process when the
/// signal is sent.
pub(super) fn wait_with_deadline(
    child: &mut Child,
    deadline: Instant,
    watch_every: Duration,
    mut watch: impl FnMut() -> Option<String>,
) -> Result<Waited> {
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    let mut next_watch = Instant::now() + watch_every;
    let outcome = loop {
        let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT | WaitPidFlag::WNOHANG;
        match waitid(Id::Pid(pid), flags) {
            Ok(WaitStatus::StillAlive) => {}
            Ok(_) => break None,
            Err(e) => return Err(Error::io("<child>", std::io::Error::from(e))),
        }
        let now = Instant::now();
        if now >= deadline {
            break Some(Waited::TimedOut);
        }
        if now >= next_watch {
            let reason = watch();
            let took = now.elapsed();
            if let Some(reason) = reason {
                break Some(Waited::Stopped(reason));
            }
            next_watch = Instant::now() + watch_every.max(took * 4);
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let _ = killpg(pid, Signal::SIGKILL);
    let status = child.wait().map_err(|e| Error::io("<child>", e))?;
    Ok(outcome.unwrap_or(Waited::Exited(status)))
}

/// Reads a pipe on a thread, keeping only its last `keep` bytes.
pub(super) struct TailReader {
    buf: Arc<Mutex<Vec<u8>>>,
    handle: Option<std::thread::JoinHandle<()>>,
}

pub(super) fn tail_reader<R: Read + Send + 'static>(pipe: Option<R>, keep: usize) -> TailReader {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let handle = pipe.map(|mut pipe| {
        let buf = Arc::clone(&buf);
        std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                if let Ok(mut b) = buf.lock() {
                    b.extend_from_slice(&chunk[..n]);
                    if b.len() > keep {
                        let cut = b.len() - keep;
                        b.drain(..cut);
                    }
                }
            }
        })
    });
    TailReader { buf, handle }
}

impl TailReader {
    /// The tail read so far, leaving the reader running.
    pub fn snapshot(&self) -> String {
        let bytes = self.buf.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The tail so far, once the pipe closes or, if a process outside the
    /// killed group still holds it open, after a short grace period (the
    /// reading thread is then left to end with the pipe).
    pub fn finish(mut self) -> String {
        if let Some(h) = self.handle.take() {
            let deadline = Instant::now() + Duration::from_millis(500);
            while !h.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if h.is_finished() {
                let _ = h.join();
            }
        }
        let bytes = self.buf.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}
