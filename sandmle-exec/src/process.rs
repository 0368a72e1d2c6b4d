//! [`ProcessExecutor`]: runs an agent's own program in a fresh workspace.
//!
//! The workspace is a new temporary directory holding the program's files
//! (copied from its code directory) and the environment's public files —
//! `description.md`, `train.csv`, `test.csv`, `sample_submission.csv` —
//! written from the public view. The program runs with the workspace as its
//! working directory, with an empty environment but for `PATH`, `HOME`,
//! `LANG` and `SANDMLE_WORKSPACE` (so no variable tells it where the
//! environment lives), and writes `submission.csv` there. The submission is
//! read only if it is a regular file (not a link, a FIFO or a device), at
//! most the file-size limit, and not gzip-compressed.
//!
//! Always enforced: a wall-clock limit after which the program's whole
//! process group is killed; an address-space limit and a maximum file size
//! per process (`prlimit`, from util-linux); bounded capture of standard
//! output and error (the tails are kept).
//!
//! With bubblewrap (`bwrap`) the program also runs in new user, PID,
//! network, IPC and UTS namespaces: no network, its own `/tmp` (a tmpfs
//! capped at the file-size limit), the system directories (`/usr`, `/bin`,
//! `/lib*`, `/etc`) read-only and nothing of the host's other files — so
//! neither the environment's `private/` folder nor any other copy of the
//! answers is reachable; and killing the sandbox kills every process in it.
//! Without bubblewrap none of that holds: the program runs as this user,
//! can read whatever this user can and use the network, and a child that
//! starts its own session escapes the group kill. The execution's
//! `isolation` field says which case applied.
//!
//! Not enforced either way (there are no cgroups here): the total memory of
//! several processes together, the number of processes, and the total size
//! of the workspace.

use crate::error::{Error, Result};
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
use nix::unistd::Pid;
use sandmle_core::csv::{ReadOptions, read_csv_bytes, write_csv};
use sandmle_core::{ExecStatus, Execution, Executor, Program, PublicView, Solution, Timings};
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Files the workspace reserves for public data.
pub const PUBLIC_FILES: [&str; 4] = ["description.md", "train.csv", "test.csv", "sample_submission.csv"];

/// How strictly to isolate the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxMode {
    /// Use bubblewrap when it works on this machine, else run without it.
    #[default]
    Auto,
    /// Refuse to run without bubblewrap.
    Required,
    /// Never use bubblewrap.
    Off,
}

/// Resource limits of a program run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Address-space limit in bytes (default 4 GiB).
    pub address_space: u64,
    /// Largest file the program may write, in bytes (default 256 MiB).
    pub file_size: u64,
    /// Bytes of standard output and error kept, from the end (default 8 KiB).
    pub output_tail: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { address_space: 4 << 30, file_size: 256 << 20, output_tail: 8 << 10 }
    }
}

/// The process executor.
#[derive(Debug, Clone, Default)]
pub struct ProcessExecutor {
    /// Resource limits.
    pub limits: Limits,
    /// Isolation.
    pub sandbox: SandboxMode,
}

/// Whether bubblewrap can create a sandbox on this machine (it may be
/// installed but refused by the kernel's user-namespace policy).
pub fn bubblewrap_available() -> bool {
    let Ok(probe) = tempfile::tempdir() else { return false };
    let mut argv = bwrap_args(probe.path(), 1 << 20);
    argv.push("/bin/true".into());
    Command::new(&argv[0])
        .args(&argv[1..])
        .env_clear()
        .env("PATH", SAFE_PATH)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The `PATH` a program sees.
const SAFE_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// bubblewrap's arguments for a workspace, up to and including `--`.
fn bwrap_args(ws: &Path, tmp_bytes: u64) -> Vec<String> {
    let mut argv: Vec<String> =
        ["bwrap", "--unshare-all", "--die-with-parent", "--new-session"].map(String::from).into();
    for dir in ["/usr", "/etc"] {
        argv.extend(["--ro-bind".into(), dir.into(), dir.into()]);
    }
    for dir in ["/bin", "/sbin", "/lib", "/lib32", "/lib64"] {
        if Path::new(dir).exists() {
            argv.extend(["--ro-bind".into(), dir.into(), dir.into()]);
        }
    }
    argv.extend(["--proc", "/proc", "--dev", "/dev"].map(String::from));
    argv.extend(["--size".into(), tmp_bytes.to_string(), "--tmpfs".into(), "/tmp".into()]);
    argv.extend(["--bind".into(), ws.display().to_string(), "/workspace".into()]);
    argv.extend(["--chdir", "/workspace", "--"].map(String::from));
    argv
}

const WITH_BWRAP: &str = "bubblewrap: no network; new user, PID, IPC and UTS namespaces; own /tmp; system \
directories read-only; no other host files (the environment's private files are unreachable); address-space, \
file-size and wall-clock limits";
const WITHOUT_BWRAP: &str = "none (bubblewrap unavailable): the program runs as this user with this user's file \
and network access, so it could read answers stored elsewhere on this machine; only the fresh working directory \
and the address-space, file-size and wall-clock limits apply, and a child that starts its own session escapes \
the wall-clock kill";

impl ProcessExecutor {
    /// Runs `program` on the public view.
    ///
    /// # Errors
    /// [`Error::Sandbox`] when the workspace cannot be prepared (or
    /// bubblewrap is required and unavailable), [`Error::Io`]. A program
    /// that fails, times out or writes no submission is an `Ok` execution
    /// with that status.
    pub fn run(&self, program: &Program, view: &PublicView<'_>) -> Result<Execution> {
        let mut timings = Timings::default();
        let start = Instant::now();
        let use_bwrap = match self.sandbox {
            SandboxMode::Off => false,
            SandboxMode::Auto => bubblewrap_available(),
            SandboxMode::Required if bubblewrap_available() => true,
            SandboxMode::Required => {
                return Err(Error::Sandbox { reason: "bubblewrap is required but cannot run here".into() });
            }
        };
        if program.command.is_empty() {
            return Err(Error::Sandbox { reason: "empty command".into() });
        }
        let workspace = tempfile::Builder::new()
            .prefix("sandmle-workspace-")
            .tempdir()
            .map_err(|e| Error::io(std::env::temp_dir(), e))?;
        let ws = workspace.path();
        copy_dir(&program.code_dir, ws, true)?;
        write_public(view, ws)?;
        timings.push("setup", start.elapsed());

        let start = Instant::now();
        let mut child = self.command(program, ws, use_bwrap).spawn().map_err(|e| Error::io(&program.command[0], e))?;
        let stdout = tail_reader(child.stdout.take(), self.limits.output_tail);
        let stderr = tail_reader(child.stderr.take(), self.limits.output_tail);
        let outcome = wait_with_deadline(&mut child, program.timeout)?;
        let (stdout_tail, stderr_tail) = (stdout.finish(), stderr.finish());
        timings.push("run", start.elapsed());

        let start = Instant::now();
        let status = match outcome {
            Waited::TimedOut => ExecStatus::TimedOut,
            // Killed by SIGXFSZ, or a file stopped at the limit (a shell's
            // child killed by the signal, or a program ignoring it).
            Waited::Exited(s)
                if s.signal() == Some(Signal::SIGXFSZ as i32)
                    || (!s.success() && reached_size_limit(ws, self.limits.file_size)) =>
            {
                ExecStatus::OutputLimitExceeded
            }
            Waited::Exited(s) if !s.success() && memory_failure(&stderr_tail) => ExecStatus::MemoryExceeded,
            Waited::Exited(s) if !s.success() => ExecStatus::Failed { reason: format!("exited with {s}") },
            Waited::Exited(_) => ExecStatus::Completed,
        };
        let (status, submission) = match status {
            ExecStatus::Completed => match self.collect(ws, view) {
                Ok(sub) => (ExecStatus::Completed, Some(sub)),
                Err(reason) => (ExecStatus::Failed { reason }, None),
            },
            other => (other, None),
        };
        timings.push("collect", start.elapsed());
        Ok(Execution {
            status,
            submission,
            timings,
            stdout_tail,
            stderr_tail,
            isolation: if use_bwrap { WITH_BWRAP } else { WITHOUT_BWRAP }.into(),
        })
    }

    fn command(&self, program: &Program, ws: &Path, use_bwrap: bool) -> Command {
        let mut argv: Vec<String> = if use_bwrap { bwrap_args(ws, self.limits.file_size) } else { Vec::new() };
        argv.extend([
            "prlimit".to_owned(),
            format!("--as={}", self.limits.address_space),
            format!("--fsize={}", self.limits.file_size),
            "--".to_owned(),
        ]);
        argv.extend(program.command.iter().cloned());
        let home = if use_bwrap { "/workspace".into() } else { ws.display().to_string() };
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .current_dir(ws)
            .env_clear()
            .env("PATH", SAFE_PATH)
            .env("LANG", "C.UTF-8")
            .env("HOME", &home)
            .env("SANDMLE_WORKSPACE", &home)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        cmd
    }

    /// Reads `submission.csv` if it is a regular file within the size
    /// limit (a link to the answers, a FIFO that never ends or a device
    /// are refused; every process of the run is dead by now, so the file
    /// cannot change between the check and the read).
    fn collect(&self, ws: &Path, view: &PublicView<'_>) -> std::result::Result<sandmle_core::Table, String> {
        let path = ws.join("submission.csv");
        let meta = std::fs::symlink_metadata(&path).map_err(|_| "the program wrote no submission.csv".to_owned())?;
        if !meta.file_type().is_file() {
            return Err("submission.csv is not a regular file".into());
        }
        if meta.len() > self.limits.file_size {
            return Err(format!("submission.csv is {} bytes, over the limit", meta.len()));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(&path)
            .and_then(|f| f.take(self.limits.file_size + 1).read_to_end(&mut bytes))
            .map_err(|e| format!("submission.csv: {e}"))?;
        if bytes.starts_with(&[0x1f, 0x8b]) {
            return Err("submission.csv is gzip-compressed; write plain CSV".into());
        }
        read_csv_bytes(&bytes, &path, &ReadOptions::with_id(view.task.id_column.clone())).map_err(|e| e.to_string())
    }
}

impl Executor for ProcessExecutor {
    fn name(&self) -> &str {
        "process"
    }

    fn execute(&self, solution: &Solution, task: &PublicView<'_>) -> sandmle_core::Result<Execution> {
        match solution {
            Solution::Program(p) => Ok(self.run(p, task)?),
            Solution::Pipeline(_) => Err(sandmle_core::Error::Unsupported {
                component: "process executor".into(),
                what: "pipeline specs (use the pipeline executor)".into(),
            }),
        }
    }
}

/// Copies a directory tree (regular files and directories; links are not
/// followed, so a code directory cannot smuggle in a link to the answers).
/// At the top level the public file names and `submission.csv` are
/// reserved.
fn copy_dir(from: &Path, to: &Path, top: bool) -> Result<()> {
    let entries = std::fs::read_dir(from).map_err(|e| Error::io(from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(from, e))?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().map_err(|e| Error::io(&src, e))?;
        let name = entry.file_name();
        if top && (PUBLIC_FILES.iter().any(|f| name == *f) || name == "submission.csv") {
            return Err(Error::Sandbox {
                reason: format!("the code directory holds {}, a name the workspace reserves", src.display()),
            });
        }
        if kind.is_dir() {
            std::fs::create_dir(&dst).map_err(|e| Error::io(&dst, e))?;
            copy_dir(&src, &dst, false)?;
        } else if kind.is_file() {
            std::fs::copy(&src, &dst).map_err(|e| Error::io(&src, e))?;
        }
    }
    Ok(())
}

fn write_public(view: &PublicView<'_>, ws: &Path) -> Result<()> {
    let desc = ws.join("description.md");
    std::fs::write(&desc, view.description).map_err(|e| Error::io(&desc, e))?;
    write_csv(view.train, ws.join("train.csv"))?;
    write_csv(view.test, ws.join("test.csv"))?;
    write_csv(view.sample_submission, ws.join("sample_submission.csv"))?;
    Ok(())
}

enum Waited {
    Exited(std::process::ExitStatus),
    TimedOut,
}

/// Waits for the child until the deadline, then kills its process group
/// and reaps it. The group is killed while the exited child is still a
/// zombie (`WNOWAIT`), so its process id — the group's id — cannot have been
/// reused by another process when the signal is sent.
fn wait_with_deadline(child: &mut Child, timeout: Duration) -> Result<Waited> {
    let deadline = Instant::now()
        .checked_add(timeout)
        .ok_or_else(|| Error::Sandbox { reason: format!("timeout {timeout:?} is too long") })?;
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    let timed_out = loop {
        let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT | WaitPidFlag::WNOHANG;
        match waitid(Id::Pid(pid), flags) {
            Ok(WaitStatus::StillAlive) => {}
            Ok(_) => break false,
            Err(e) => return Err(Error::io("<child>", std::io::Error::from(e))),
        }
        if Instant::now() >= deadline {
            break true;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let _ = killpg(pid, Signal::SIGKILL);
    let status = child.wait().map_err(|e| Error::io("<child>", e))?;
    Ok(if timed_out { Waited::TimedOut } else { Waited::Exited(status) })
}

/// `true` if some file in the workspace stopped at the file-size limit.
fn reached_size_limit(dir: &Path, limit: u64) -> bool {
    std::fs::read_dir(dir).into_iter().flatten().flatten().any(|e| match e.file_type() {
        Ok(t) if t.is_dir() => reached_size_limit(&e.path(), limit),
        Ok(t) if t.is_file() => e.metadata().is_ok_and(|m| m.len() >= limit),
        _ => false,
    })
}

fn memory_failure(stderr: &str) -> bool {
    let s = stderr.to_ascii_lowercase();
    ["memoryerror", "out of memory", "cannot allocate memory", "bad_alloc", "memory allocation"]
        .iter()
        .any(|p| s.contains(p))
}

/// Reads a pipe on a thread, keeping only its last `keep` bytes.
struct TailReader {
    buf: Arc<Mutex<Vec<u8>>>,
    handle: Option<std::thread::JoinHandle<()>>,
}

fn tail_reader<R: Read + Send + 'static>(pipe: Option<R>, keep: usize) -> TailReader {
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
    /// The tail so far, once the pipe closes or, if a process outside the
    /// killed group still holds it open, after a short grace period (the
    /// reading thread is then left to end with the pipe).
    fn finish(mut self) -> String {
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
