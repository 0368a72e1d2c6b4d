//! [`ProcessExecutor`]: runs an agent's own program in a fresh workspace.
//!
//! The threat model is a hostile program that wants the answers and tries
//! every door; the README's threat model lists each door and what closes
//! it. In short:
//!
//! **Isolation is required by default.** [`SandboxMode::Required`] (the
//! default) first checks that bubblewrap creates this run's sandbox (it
//! runs `true` in it) and refuses the run with
//! [`Error::SandboxUnavailable`], quoting bubblewrap's own message, when it
//! cannot — there is no silent fallback. Running without a sandbox takes
//! [`SandboxMode::Unsandboxed`]: every such run prints a warning on
//! standard error and says so in the execution's `isolation` report.
//!
//! **The workspace.** Each run gets a directory `sandmle-run-*` in the
//! system's temporary folder ([`sandmle_core::scratch::MarkedDir`]): its
//! `workspace/` holds the program's files (copied from its code directory,
//! links not followed) and the public files — `description.md`,
//! `train.csv`, `test.csv`, `sample_submission.csv` — written from the
//! public view; nothing else. It is removed when the run ends, and if this
//! process is killed first (`kill -9`), the next run reclaims it (its
//! owner's lock is gone). The program runs with the workspace as its
//! working directory, with an empty environment but for `PATH`, `HOME`,
//! `LANG` and `SANDMLE_WORKSPACE`, standard input from `/dev/null`, and
//! writes `submission.csv` there.
//!
//! **Inside the sandbox** (new user, PID, network, IPC, UTS and mount
//! namespaces): no network; `/usr` and the `/bin`, `/lib*` directories
//! read-only; a minimal read-only `/etc` — the loader cache, alternatives
//! links, time zone and `nsswitch.conf` from the host, and `passwd`,
//! `group`, `hosts` and `hostname` written for the sandbox (user `sandbox`,
//! uid 1000, host name `sandbox`), so no `shadow`, `machine-id` or host
//! name; bubblewrap's minimal `/dev` (`null`, `zero`, `full`, `random`,
//! `urandom`, `tty`, `pts`), read-only; `/tmp` and `/dev/shm` as tmpfs
//! capped at [`Limits::tmp_bytes`] and [`Limits::shm_bytes`]; the root
//! read-only. Only descriptors 0–2 reach the program: before it starts,
//! every other descriptor of this process is marked close-on-exec (a
//! descriptor a harness left inheritable, its copy of the answers say, is
//! closed at the exec). A root caller drops to the host user `nobody`
//! before entering the sandbox, so the process-count limit holds (the
//! kernel never counts root's processes) and the program is nobody on the
//! host. Killing the sandbox kills every process in it.
//!
//! **Limits.** A wall-clock limit over the whole step (running and reading
//! the submission back) after which the program's whole process group is
//! killed; per process an address-space limit ([`Limits::address_space`])
//! and a file-size limit ([`Limits::file_size`]) (`prlimit`, from
//! util-linux); in the sandbox a process-count limit
//! ([`Limits::processes`]); a workspace budget ([`Limits::workspace_bytes`]
//! and [`Limits::workspace_files`]) checked while the program runs (every
//! 50 ms or so, so a fast writer may overshoot by what it writes in that
//! time, each file at most the file-size limit) and when it ends, the
//! program killed and the run reported as
//! [`ExecStatus::OutputLimitExceeded`] beyond it; bounded capture of
//! standard output and error (the tails are kept).
//!
//! **Python.** The chosen Python environment ([`PythonSettings::choice`]:
//! by default the one `python3` on the caller's `PATH` belongs to) is bound
//! read-only with only what it needs ([`PythonEnv`]), its directory first on
//! the program's `PATH`. Persistent workspaces run `python3 FILE.py` steps on
//! a warm interpreter forked per step ([`CodeSteps::Warm`], see
//! [`ProcessWorkspace`]), in the same sandbox and under the same limits.
//!
//! **Reading back.** The submission is read only if it is a regular file
//! (not a link, a FIFO or a device) of at most the file-size limit, not
//! gzip-compressed, with at most [`Limits::submission_columns`] columns and
//! fields of bounded length; a 2-million-column submission is refused at
//! its header, in milliseconds.
//!
//! **Not enforced** (this crate uses no cgroups): the total memory of
//! several processes together (each is capped by the address-space limit;
//! the tmpfs mounts hold at most their caps), CPU share, and disk
//! bandwidth. Without bubblewrap ([`SandboxMode::Unsandboxed`]) none of
//! the sandbox holds: the program runs as this user, can read whatever this
//! user can and use the network, no process-count limit applies, and a
//! child that starts its own session escapes the group kill.

mod bwrap;
mod error;
mod python;
mod report;
mod session;
mod wait;
mod warm;
mod workspace;

pub use error::Error;
pub use python::{CodeSteps, DEFAULT_PRELOAD, PRELOAD_SUBMODULES, PythonChoice, PythonEnv, PythonSettings};
pub use session::ProcessWorkspace;
pub use workspace::PUBLIC_FILES;

use bwrap::{Plan, Shape};
use error::Result;
use nix::sys::signal::Signal;
use report::{UNSANDBOXED_WARNING, isolation_report};
use sandmle_core::csv::{CsvLimits, ReadOptions, read_csv_bytes};
use sandmle_core::{ExecStatus, Execution, Executor, Program, PublicView, Solution, Timings};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wait::{Waited, tail_reader, wait_with_deadline};
use workspace::{RunDir, Usage, copy_dir, reached_size_limit, usage, write_public};

/// How strictly to isolate the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxMode {
    /// Run only inside bubblewrap; refuse the run (with
    /// [`Error::SandboxUnavailable`]) when the sandbox cannot be created.
    #[default]
    Required,
    /// Run without any sandbox, as this user. An explicit opt-in: each run
    /// warns on standard error and says so in its `isolation` report.
    Unsandboxed,
}

/// Resource limits of a program run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Address-space limit per process in bytes (default 4 GiB).
    pub address_space: u64,
    /// Largest file the program may write, and largest submission read
    /// back, in bytes (default 256 MiB).
    pub file_size: u64,
    /// Bytes of standard output and error kept, from the end (default 8 KiB).
    pub output_tail: usize,
    /// Bytes the program may add to its workspace (default 1 GiB).
    pub workspace_bytes: u64,
    /// Files and directories the program may add to its workspace
    /// (default 10,000).
    pub workspace_files: u64,
    /// How deep the program may nest directories in its workspace
    /// (default 64 levels). The budget's walk holds one descriptor per
    /// level, so this also bounds what a measurement holds open.
    pub workspace_depth: usize,
    /// Size of the sandbox's `/tmp` tmpfs in bytes (default 256 MiB).
    pub tmp_bytes: u64,
    /// Size of the sandbox's `/dev/shm` tmpfs in bytes (default 64 MiB).
    pub shm_bytes: u64,
    /// Processes and threads the program may run at once, in the sandbox
    /// (default 512).
    pub processes: u64,
    /// Most columns a submission may have (default 10,000).
    pub submission_columns: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            address_space: 4 << 30,
            file_size: 256 << 20,
            output_tail: 8 << 10,
            workspace_bytes: 1 << 30,
            workspace_files: 10_000,
            workspace_depth: 64,
            tmp_bytes: 256 << 20,
            shm_bytes: 64 << 20,
            processes: 512,
            submission_columns: 10_000,
        }
    }
}

/// The process executor.
#[derive(Debug, Clone, Default)]
pub struct ProcessExecutor {
    /// Resource limits.
    pub limits: Limits,
    /// Isolation ([`SandboxMode::Required`] unless opted out).
    pub sandbox: SandboxMode,
    /// The bubblewrap executable; `None` looks for `bwrap` on `PATH` (then
    /// in `/usr/local/bin`, `/usr/bin` and `/bin`).
    pub bwrap: Option<PathBuf>,
    /// The Python environment programs see, and how persistent
    /// workspaces run Python code steps (warm by default).
    pub python: PythonSettings,
}

/// Removes the run directories (`sandmle-run-*` in the system's temporary
/// folder) that a killed process left, however deep or hostile the trees
/// its programs wrote there; returns how many. Every run does this before
/// it starts; a server calls it once at start-up, so that it comes up
/// clean over a crashed predecessor's leftovers.
pub fn reclaim_stale_runs() -> usize {
    sandmle_core::scratch::reclaim_stale(
        &std::env::temp_dir(),
        workspace::RUN_PREFIX,
        sandmle_core::scratch::UNMARKED_GRACE,
    )
}

/// Whether bubblewrap can create the sandbox on this machine (it may be
/// installed but refused by the kernel's user-namespace policy).
pub fn bubblewrap_available() -> bool {
    let python = PythonEnv::bare(None, None);
    let shape = Shape { python: &python, warm: false };
    RunDir::create().is_ok_and(|run| bwrap::probe(None, run.path(), &Limits::default(), &shape).is_ok())
}

impl ProcessExecutor {
    /// Runs `program` on the public view, in a fresh sandbox (a cold
    /// start: persistent workspaces have the warm interpreter).
    ///
    /// # Errors
    /// [`Error::SandboxUnavailable`] when the sandbox is required and
    /// cannot be created here (the system's fault, not the program's);
    /// [`Error::Python`] when the chosen Python environment cannot be
    /// exposed; [`Error::Sandbox`] when the workspace cannot be prepared;
    /// [`Error::Io`]. A program that fails, times out, exceeds a limit or
    /// writes no usable submission is an `Ok` execution with that status.
    pub fn run(&self, program: &Program, view: &PublicView<'_>) -> Result<Execution> {
        let mut timings = Timings::default();
        let start = Instant::now();
        if program.command.is_empty() {
            return Err(Error::Sandbox { reason: "empty command".into() });
        }
        let deadline = start
            .checked_add(program.timeout)
            .ok_or_else(|| Error::Sandbox { reason: format!("timeout {:?} is too long", program.timeout) })?;
        let python = PythonEnv::resolve(&self.python.choice)?;
        let run = RunDir::create()?;
        let shape = Shape { python: &python, warm: false };
        let plan = match self.sandbox {
            SandboxMode::Required => Some(bwrap::probe(self.bwrap.as_deref(), run.path(), &self.limits, &shape)?),
            SandboxMode::Unsandboxed => {
                eprintln!("{UNSANDBOXED_WARNING}");
                None
            }
        };
        let ws = run.workspace();
        copy_dir(&program.code_dir, &ws)?;
        write_public(view, &ws)?;
        if plan.as_ref().is_some_and(|p| p.setpriv.is_some()) {
            run.hand_over()?;
        }
        let base = usage(&ws, &Usage::default(), &Limits { workspace_bytes: u64::MAX, ..self.limits });
        timings.push("setup", start.elapsed());
        let isolation = isolation_report(plan.as_ref(), &self.limits, &python, "a fresh interpreter per run");
        let cold =
            Cold { run: &run, plan: plan.as_ref(), python: &python, budget: Budget { base: &base, cancel: None } };
        self.run_cold(&cold, &program.command, deadline, &view.task.id_column, timings, isolation)
    }

    /// Runs `command` in a fresh sandbox over `cold.run`'s workspace until
    /// `deadline`, watching the workspace's budget counted from
    /// `cold.base`, and reads `submission.csv` back.
    fn run_cold(
        &self,
        cold: &Cold<'_>,
        command: &[String],
        deadline: Instant,
        id_column: &str,
        mut timings: Timings,
        isolation: String,
    ) -> Result<Execution> {
        let Some(program_name) = command.first() else {
            return Err(Error::Sandbox { reason: "empty command".into() });
        };
        let ws = cold.run.workspace();
        let start = Instant::now();
        // Only descriptors 0-2 may reach the program: whatever this process
        // inherited without close-on-exec gets it now.
        close_fds::set_fds_cloexec_threadsafe(3, &[]);
        let shape = Shape { python: cold.python, warm: false };
        let mut child = self
            .command(command, cold.run, cold.plan, &shape)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::io(program_name, e))?;
        let stdout = tail_reader(child.stdout.take(), self.limits.output_tail);
        let stderr = tail_reader(child.stderr.take(), self.limits.output_tail);
        let watch = || cold.budget.check(&ws, &self.limits);
        let outcome = wait_with_deadline(&mut child, deadline, Duration::from_millis(50), watch)?;
        let tails = (stdout.finish(), stderr.finish());
        timings.push("run", start.elapsed());
        Ok(self.conclude(&ws, cold.budget, outcome, tails, deadline, id_column, timings, isolation))
    }

    /// The execution of a run that ended with `outcome`: its status (the
    /// limits it hit, judged from the workspace and standard error as
    /// well), and the submission read back within the deadline.
    #[allow(clippy::too_many_arguments)]
    fn conclude(
        &self,
        ws: &Path,
        budget: Budget<'_>,
        outcome: Waited,
        (stdout_tail, mut stderr_tail): (String, String),
        deadline: Instant,
        id_column: &str,
        mut timings: Timings,
        isolation: String,
    ) -> Execution {
        let start = Instant::now();
        let base = budget.base;
        let over_budget = || usage(ws, base, &self.limits).over(base, &self.limits);
        let status = match outcome {
            Waited::TimedOut => ExecStatus::TimedOut,
            Waited::Stopped(_) if budget.cancelled() => {
                stderr_tail.push_str(&format!("\nsandmle: stopped: {CANCELLED}\n"));
                ExecStatus::Failed { reason: CANCELLED.to_owned() }
            }
            Waited::Stopped(reason) => {
                stderr_tail.push_str(&format!("\nsandmle: stopped: {reason}\n"));
                ExecStatus::OutputLimitExceeded
            }
            Waited::Lost(reason) => {
                stderr_tail.push_str(&format!("\nsandmle: {reason}\n"));
                ExecStatus::Failed { reason }
            }
            // Killed by SIGXFSZ, or a file stopped at the limit (a shell's
            // child killed by the signal, or a program ignoring it).
            Waited::Exited(s)
                if s.signal() == Some(Signal::SIGXFSZ as i32)
                    || (!s.success()
                        && reached_size_limit(
                            ws,
                            self.limits.file_size,
                            self.limits.workspace_files,
                            self.limits.workspace_depth,
                        )) =>
            {
                ExecStatus::OutputLimitExceeded
            }
            Waited::Exited(_) if over_budget().is_some() => {
                let reason = over_budget().unwrap_or_default();
                stderr_tail.push_str(&format!("\nsandmle: {reason}\n"));
                ExecStatus::OutputLimitExceeded
            }
            Waited::Exited(s) if !s.success() && memory_failure(&stderr_tail) => ExecStatus::MemoryExceeded,
            Waited::Exited(s) if !s.success() => ExecStatus::Failed { reason: format!("exited with {s}") },
            Waited::Exited(_) => ExecStatus::Completed,
        };
        let (status, submission) = match status {
            ExecStatus::Completed if Instant::now() >= deadline => (ExecStatus::TimedOut, None),
            ExecStatus::Completed => match self.collect(ws, id_column) {
                // Reading back counts against the step's wall clock too.
                Ok(_) if Instant::now() >= deadline => (ExecStatus::TimedOut, None),
                Ok(sub) => (ExecStatus::Completed, Some(sub)),
                Err(reason) => (ExecStatus::Failed { reason }, None),
            },
            other => (other, None),
        };
        timings.push("collect", start.elapsed());
        Execution { status, submission, timings, stdout_tail, stderr_tail, isolation }
    }

    /// The command that runs `command` in `run`'s workspace: inside the
    /// sandbox of `plan` (if any, shaped by `shape`), under `prlimit`, with
    /// an empty environment but for `PATH` (the Python environment's
    /// directory first), `HOME`, `LANG` and `SANDMLE_WORKSPACE`, in a
    /// process group of its own. Standard streams are the caller's to set.
    fn command(&self, command: &[String], run: &RunDir, plan: Option<&Plan>, shape: &Shape<'_>) -> Command {
        let mut argv: Vec<std::ffi::OsString> =
            plan.map(|p| bwrap::command_prefix(p, run.path(), &self.limits, shape)).unwrap_or_default();
        argv.extend(
            [
                "prlimit".to_owned(),
                format!("--as={}", self.limits.address_space),
                format!("--fsize={}", self.limits.file_size),
            ]
            .map(Into::into),
        );
        if plan.is_some() {
            // Counted per user inside the sandbox's user namespace.
            argv.push(format!("--nproc={}", self.limits.processes).into());
        }
        argv.push("--".into());
        argv.extend(command.iter().map(Into::into));
        let ws = run.workspace();
        let home = if plan.is_some() { "/workspace".into() } else { ws.display().to_string() };
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .current_dir(&ws)
            .env_clear()
            .env("PATH", shape.python.path_var())
            .env("LANG", "C.UTF-8")
            .env("HOME", &home)
            .env("SANDMLE_WORKSPACE", &home)
            .process_group(0);
        cmd
    }

    /// Reads `submission.csv` if it is a regular file within the size
    /// limit (a link to the answers, a FIFO that never ends or a device
    /// are refused; every process of the run is dead by now, so the file
    /// cannot change between the check and the read), with the column and
    /// field caps.
    fn collect(&self, ws: &Path, id_column: &str) -> std::result::Result<sandmle_core::Table, String> {
        let path = ws.join("submission.csv");
        let meta = std::fs::symlink_metadata(&path).map_err(|_| "the program wrote no submission.csv".to_owned())?;
        if !meta.file_type().is_file() {
            return Err("submission.csv is not a regular file".into());
        }
        let bytes = sandmle_core::read_regular(&path, self.limits.file_size).map_err(|e| e.to_string())?;
        if bytes.starts_with(&[0x1f, 0x8b]) {
            return Err("submission.csv is gzip-compressed; write plain CSV".into());
        }
        let limits = CsvLimits {
            max_bytes: self.limits.file_size,
            max_columns: self.limits.submission_columns,
            ..CsvLimits::DEFAULT
        };
        let options = ReadOptions { limits, ..ReadOptions::with_id(id_column.to_owned()) };
        read_csv_bytes(&bytes, "submission.csv", &options).map_err(|e| e.to_string())
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

    fn open_workspace(&self, task: &PublicView<'_>) -> sandmle_core::Result<Box<dyn sandmle_core::Workspace>> {
        Ok(Box::new(self.open(task)?))
    }
}

/// What a cold run needs of its workspace: the run directory, the sandbox
/// (`None` unsandboxed), the Python environment and the budget's base.
struct Cold<'a> {
    run: &'a RunDir,
    plan: Option<&'a Plan>,
    python: &'a PythonEnv,
    budget: Budget<'a>,
}

/// What a run is watched for while it runs: the workspace's budget counted
/// from `base`, and a cancellation request.
#[derive(Clone, Copy)]
struct Budget<'a> {
    base: &'a Usage,
    cancel: Option<&'a sandmle_core::Cancel>,
}

/// Why a cancelled run was stopped.
const CANCELLED: &str = "cancelled: the run's episode was closed (its client left, or the server is stopping)";

impl Budget<'_> {
    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(sandmle_core::Cancel::is_cancelled)
    }

    /// Why the run must stop now, if it must.
    fn check(&self, ws: &Path, limits: &Limits) -> Option<String> {
        if self.cancelled() {
            return Some(CANCELLED.to_owned());
        }
        usage(ws, self.base, limits).over(self.base, limits)
    }
}

fn memory_failure(stderr: &str) -> bool {
    let s = stderr.to_ascii_lowercase();
    ["memoryerror", "out of memory", "cannot allocate memory", "bad_alloc", "memory allocation"]
        .iter()
        .any(|p| s.contains(p))
}
