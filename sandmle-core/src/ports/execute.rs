use super::forward_impls;
use crate::error::Result;
use crate::table::Table;
use crate::task::TaskSpec;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// The top-level file names a [`Workspace`] reserves: the public files,
/// written when it opens and never replaced.
pub const RESERVED_WORKSPACE_FILES: [&str; 4] = ["description.md", "train.csv", "test.csv", "sample_submission.csv"];

/// What an agent may see of an environment.
#[derive(Debug, Clone, Copy)]
pub struct PublicView<'a> {
    /// The task spec (id and target columns, metric, direction).
    pub task: &'a TaskSpec,
    /// `description.md`.
    pub description: &'a str,
    /// `train.csv`.
    pub train: &'a Table,
    /// `test.csv`.
    pub test: &'a Table,
    /// `sample_submission.csv`.
    pub sample_submission: &'a Table,
    /// The image files of an image task ([`TaskSpec::images`]), empty
    /// otherwise.
    pub images: &'a crate::images::ImageSet,
}

/// An agent's own program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Program {
    /// The command and its arguments (for example `["python3", "main.py"]`).
    pub command: Vec<String>,
    /// A directory whose files are copied into the workspace.
    pub code_dir: PathBuf,
    /// Wall-clock limit.
    pub timeout: Duration,
}

/// A solution to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Solution {
    /// A declarative pipeline spec (JSON; its schema belongs to the executor).
    Pipeline(serde_json::Value),
    /// A program that reads the public files and writes `submission.csv`.
    Program(Program),
}

/// How a run ended. Every variant but [`ExecStatus::Completed`] is the
/// solution's fault, never the executor's (those are `Err`s).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ExecStatus {
    /// Finished and produced a submission.
    Completed,
    /// Refused before or while running: the solution is wrong for the task
    /// (an invalid pipeline spec, an unknown step, a model unfit for the
    /// task, a column the data does not have).
    Rejected {
        /// Why, in one line.
        reason: String,
    },
    /// Finished without a usable submission, or exited with an error.
    Failed {
        /// Why.
        reason: String,
    },
    /// Killed at the wall-clock limit.
    TimedOut,
    /// Stopped by the memory limit.
    MemoryExceeded,
    /// Stopped by the output-size limit.
    OutputLimitExceeded,
}

/// Named phase durations in microseconds, in the order they ran.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Timings {
    /// `(phase, microseconds)` pairs.
    pub phases: Vec<(String, u64)>,
}

impl ExecStatus {
    /// `true` for [`ExecStatus::Completed`].
    pub fn is_completed(&self) -> bool {
        matches!(self, ExecStatus::Completed)
    }
}

impl Execution {
    /// A run refused before it produced anything.
    pub fn rejected(reason: impl Into<String>, timings: Timings, isolation: impl Into<String>) -> Self {
        Execution {
            status: ExecStatus::Rejected { reason: reason.into() },
            submission: None,
            timings,
            stdout_tail: String::new(),
            stderr_tail: String::new(),
            isolation: isolation.into(),
        }
    }
}

impl Timings {
    /// Records a phase.
    pub fn push(&mut self, phase: impl Into<String>, elapsed: Duration) {
        self.phases.push((phase.into(), u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX)));
    }

    /// The duration of a phase, if recorded.
    pub fn get(&self, phase: &str) -> Option<u64> {
        self.phases.iter().find(|(p, _)| p == phase).map(|&(_, us)| us)
    }

    /// The sum of all phases.
    pub fn total_micros(&self) -> u64 {
        self.phases.iter().map(|&(_, us)| us).sum()
    }
}

/// The outcome of running a solution.
#[derive(Debug, Clone, PartialEq)]
pub struct Execution {
    /// How the run ended.
    pub status: ExecStatus,
    /// The submission, when one was produced.
    pub submission: Option<Table>,
    /// Phase timings.
    pub timings: Timings,
    /// The tail of the program's standard output (empty for in-process runs).
    pub stdout_tail: String,
    /// The tail of its standard error.
    pub stderr_tail: String,
    /// What the run was isolated from, in plain words.
    pub isolation: String,
}

/// A request to stop running work: every clone shares one flag, and once
/// set it stays set. A caller that gives one to a [`Workspace`]
/// ([`Workspace::set_cancel`]) and later cancels it (its client hung up,
/// the server is shutting down) gets the running program killed within
/// the executor's watch interval, and every later run refused at once.
#[derive(Debug, Clone, Default)]
pub struct Cancel(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Cancel {
    /// A flag not set yet.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Sets the flag, for every clone.
    pub fn cancel(&self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether the flag is set.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// A workspace that persists across several runs of one episode: it holds
/// the public files and whatever earlier runs wrote (as SandMLE's run
/// directory does), under the same isolation as a fresh run, and is
/// removed when dropped.
///
/// Opened by [`Executor::open_workspace`]. Every run sees only this
/// workspace; the budgets of [`Program`] runs (wall clock, memory, disk)
/// apply to each run, and a disk budget counts what the workspace holds
/// since it was opened.
pub trait Workspace: Send {
    /// Writes a file at the top level of the workspace, replacing what
    /// the agent's runs may have left under that name without following
    /// links. The reserved public names are refused.
    ///
    /// # Errors
    /// A bad name (a path, a reserved name) or an I/O failure.
    fn write_file(&mut self, name: &str, bytes: &[u8]) -> Result<()>;

    /// Runs `command` (for example `["python3", "main_1.py"]`) in the
    /// workspace under `timeout`. The execution's `submission` is the
    /// `submission.csv` found afterwards, if it is readable.
    ///
    /// # Errors
    /// As [`Executor::execute`]: the executor's faults only.
    fn run(&mut self, command: &[String], timeout: Duration) -> Result<Execution>;

    /// Whether `submission.csv` exists in the workspace now.
    fn has_submission(&self) -> bool;

    /// Reads `submission.csv` as it is now, with the executor's bounds:
    /// `Ok(Err(reason))` when it is missing or unreadable (the agent's
    /// fault).
    ///
    /// # Errors
    /// The executor's own faults.
    fn submission(&self) -> Result<std::result::Result<Table, String>>;

    /// What the runs are isolated from, in plain words.
    fn isolation(&self) -> String;

    /// Watches `cancel` from now on: a run under way when it is set is
    /// stopped (its processes killed) and later runs end at once. The
    /// default ignores it (runs in-process are short).
    fn set_cancel(&mut self, cancel: Cancel) {
        let _ = cancel;
    }
}

/// Runs a solution on an environment's public view and returns its
/// submission.
///
/// The result says whose fault a failure is. A solution the agent got
/// wrong — it crashes, times out, writes no submission, or is refused (an
/// invalid spec, an unknown step, a model unfit for the task) — is an `Ok`
/// [`Execution`] with that status. `Err` is for the executor's own faults:
/// a sandbox that cannot be created, a workspace that cannot be written, a
/// kind of solution this executor does not run.
pub trait Executor: Send + Sync {
    /// A short name for reports.
    fn name(&self) -> &str;
    /// Runs `solution` on `task`.
    ///
    /// # Errors
    /// When the executor fails, never for a wrong solution.
    fn execute(&self, solution: &Solution, task: &PublicView<'_>) -> Result<Execution>;

    /// Opens a [`Workspace`] holding `task`'s public files, for an episode
    /// of several runs. The default refuses: executors that run programs
    /// (the process executor) implement it.
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] by default; the executor's faults.
    fn open_workspace(&self, task: &PublicView<'_>) -> Result<Box<dyn Workspace>> {
        let _ = task;
        Err(crate::Error::Unsupported { component: self.name().to_owned(), what: "persistent workspaces".into() })
    }
}

forward_impls!(Executor {
    fn name(&self) -> &str;
    fn execute(&self, solution: &Solution, task: &PublicView<'_>) -> Result<Execution>;
    fn open_workspace(&self, task: &PublicView<'_>) -> Result<Box<dyn Workspace>>;
});
