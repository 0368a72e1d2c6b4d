//! [`ProcessWorkspace`]: one workspace kept across the runs of an RL
//! episode, under the same sandbox as a fresh run.
//!
//! Opening it does what a fresh run's setup does — creates the run
//! directory (locked, reclaimed after a crash), checks that bubblewrap
//! creates the sandbox (refusing with [`Error::SandboxUnavailable`]
//! otherwise, unless [`SandboxMode::Unsandboxed`] was asked for), writes
//! the public files and, for a root caller, hands the workspace to
//! `nobody` — once. Each [`Workspace::run`] then runs one command with
//! only that workspace bound at `/workspace`, its own wall-clock limit,
//! the per-process limits, and the workspace budget counted from the
//! opening (so the budget covers the whole episode, not each step).
//! Dropping it removes the run directory.
//!
//! **Warm code steps** ([`CodeSteps::Warm`], the default, in a sandbox):
//! opening also starts the workspace's warm interpreter in a sandbox of
//! its own over the same workspace (see `warm.rs`); a run of the form
//! `python3 FILE.py` (`FILE.py` a file of the workspace) goes to it, any
//! other command starts cold. When it cannot start, dies, or cannot take
//! a step, steps start cold, and the isolation report says why.
//!
//! Between runs no process of the agent is alive (the sandbox's PID
//! namespace dies with its first process), so files the episode writes
//! ([`Workspace::write_file`]) cannot race with the program; they still
//! replace what a run left under their name without following links
//! (the entry is removed, then created exclusively).

use super::bwrap::{self, HOST_UID, Plan, Shape};
use super::error::{Error, Result};
use super::python::{CodeSteps, PythonEnv};
use super::report::{UNSANDBOXED_WARNING, isolation_report};
use super::warm::{Warm, WarmRun};
use super::workspace::{PUBLIC_FILES, RunDir, Usage, usage, write_public};
use super::{Budget, CANCELLED, Cold, Limits, ProcessExecutor, SandboxMode};
use sandmle_core::{ExecStatus, Execution, PublicView, Table, Timings, Workspace};
use std::io::Write;
use std::time::{Duration, Instant};

/// A workspace of the process executor that persists across runs, made by
/// [`ProcessExecutor::open`]: the sandbox is probed once, each run binds
/// only this workspace with its own wall clock and limits, the workspace
/// budget counts from the opening, files written into it never follow a
/// link a run left, and the directory is removed on drop.
pub struct ProcessWorkspace {
    // Declared first, so dropped first: the warm sandbox goes before the
    // run directory it binds.
    warm: Option<Warm>,
    /// Why there is no warm interpreter, when there is none.
    cold_reason: String,
    exec: ProcessExecutor,
    run: RunDir,
    plan: Option<Plan>,
    python: PythonEnv,
    base: Usage,
    id_column: String,
    /// The image folder of an image task, which `write` never replaces.
    image_dir: Option<String>,
    /// Stops runs when set ([`Workspace::set_cancel`]).
    cancel: sandmle_core::Cancel,
}

impl std::fmt::Debug for ProcessWorkspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessWorkspace")
            .field("dir", &self.run.path())
            .field("sandboxed", &self.plan.is_some())
            .field("warm", &self.warm.is_some())
            .finish()
    }
}

impl ProcessExecutor {
    /// Opens a workspace holding `view`'s public files for several runs,
    /// and (with [`CodeSteps::Warm`], in a sandbox) starts its warm
    /// interpreter, which gets ready in the background.
    ///
    /// # Errors
    /// [`Error::SandboxUnavailable`] when the sandbox is required and
    /// cannot be created here; [`Error::Python`] when the chosen Python
    /// environment cannot be exposed or a preload name is no module name;
    /// [`Error::Io`] and [`Error::Sandbox`] when the workspace cannot be
    /// prepared. A warm interpreter that cannot start is no error: steps
    /// start cold.
    pub fn open(&self, view: &PublicView<'_>) -> Result<ProcessWorkspace> {
        let python = PythonEnv::resolve(&self.python.choice)?;
        let preload = self.python.preload.clone().unwrap_or_else(|| python.default_preload());
        if let Some(bad) = preload.iter().find(|m| !is_module_name(m)) {
            return Err(Error::Python {
                interpreter: python.interpreter().to_path_buf(),
                reason: format!("`{}` is not a module name to preload", sandmle_core::bounded(bad)),
            });
        }
        let run = RunDir::create()?;
        let shape = Shape { python: &python, warm: false };
        let plan = match self.sandbox {
            SandboxMode::Required => Some(bwrap::probe(self.bwrap.as_deref(), run.path(), &self.limits, &shape)?),
            SandboxMode::Unsandboxed => None,
        };
        let ws = run.workspace();
        write_public(view, &ws)?;
        if plan.as_ref().is_some_and(|p| p.setpriv.is_some()) {
            run.hand_over()?;
        }
        let base = usage(&ws, &Usage::default(), &Limits { workspace_bytes: u64::MAX, ..self.limits });
        let (warm, cold_reason) = match (&plan, self.python.code_steps) {
            (Some(plan), CodeSteps::Warm) => {
                match Warm::start(self, &run, plan, &python, &preload, self.python.warm_start_timeout) {
                    Ok(warm) => (Some(warm), String::new()),
                    Err(reason) => (None, format!("the warm interpreter is unavailable ({reason})")),
                }
            }
            (None, _) => (None, "unsandboxed, so no warm interpreter".to_owned()),
            (Some(_), _) => (None, "cold code steps were asked for".to_owned()),
        };
        Ok(ProcessWorkspace {
            warm,
            cold_reason,
            exec: self.clone(),
            run,
            plan,
            python,
            base,
            id_column: view.task.id_column.clone(),
            image_dir: view.task.images.as_ref().map(|i| i.dir.clone()),
            cancel: sandmle_core::Cancel::new(),
        })
    }
}

/// A dotted Python module name (`sklearn.ensemble`).
fn is_module_name(name: &str) -> bool {
    name.len() <= 200
        && name.split('.').all(|part| {
            let mut chars = part.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

fn bad_name(name: &str, why: &str) -> Error {
    Error::Sandbox { reason: format!("cannot write `{}` into the workspace: {why}", sandmle_core::bounded(name)) }
}

impl ProcessWorkspace {
    /// The host directory of the workspace (bound at `/workspace` inside
    /// the sandbox), for the episode's own bookkeeping; removed on drop.
    pub fn dir(&self) -> std::path::PathBuf {
        self.run.workspace()
    }

    fn write(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        let plain = !name.is_empty()
            && name != "."
            && name != ".."
            && !name.contains(['/', '\0'])
            && name.len() <= 255
            && !name.starts_with('.');
        if !plain {
            return Err(bad_name(name, "not a plain file name"));
        }
        if PUBLIC_FILES.contains(&name) || self.image_dir.as_deref() == Some(name) {
            return Err(bad_name(name, "a public file's name"));
        }
        let path = self.run.workspace().join(name);
        // Whatever a run left here (a link, a directory, a FIFO) goes; the
        // new file is created exclusively, so no link is ever followed.
        if let Ok(meta) = std::fs::symlink_metadata(&path) {
            let removed =
                if meta.is_dir() { sandmle_core::scratch::remove_tree(&path) } else { std::fs::remove_file(&path) };
            removed.map_err(|e| Error::io(&path, e))?;
        }
        let mut file =
            std::fs::OpenOptions::new().write(true).create_new(true).open(&path).map_err(|e| Error::io(&path, e))?;
        file.write_all(bytes).map_err(|e| Error::io(&path, e))?;
        if self.plan.as_ref().is_some_and(|p| p.setpriv.is_some()) {
            std::os::unix::fs::lchown(&path, Some(HOST_UID), Some(HOST_UID)).map_err(|e| Error::io(&path, e))?;
        }
        Ok(())
    }

    /// The host process id of the warm interpreter's sandbox (its
    /// bubblewrap process), while it is thought alive; `None` when steps
    /// start cold.
    pub fn warm_pid(&self) -> Option<u32> {
        self.warm.as_ref().and_then(Warm::pid)
    }

    /// The script a command runs on the warm interpreter: `python3 FILE.py`
    /// (or the interpreter's own path) with `FILE.py` a regular file at the
    /// top of the workspace.
    fn warm_script<'c>(&self, command: &'c [String]) -> Option<&'c str> {
        let [program, file] = command else { return None };
        let plain = file.ends_with(".py") && !file.starts_with(['-', '.']) && !file.contains(['/', '\0']);
        let exists =
            || std::fs::symlink_metadata(self.run.workspace().join(file)).is_ok_and(|m| m.file_type().is_file());
        (self.python.runs_as(program) && plain && file.len() <= 255 && exists()).then_some(file.as_str())
    }

    fn isolation_now(&self) -> String {
        isolation_report(self.plan.as_ref(), &self.exec.limits, &self.python, &self.start_description())
    }

    /// How steps start here, for the isolation report.
    fn start_description(&self) -> String {
        match &self.warm {
            Some(warm) => warm.describe(),
            None => format!("cold, a fresh interpreter per step ({})", self.cold_reason),
        }
    }

    fn run_command(&mut self, command: &[String], timeout: Duration) -> Result<Execution> {
        let start = Instant::now();
        if start.checked_add(timeout).is_none() {
            return Err(Error::Sandbox { reason: format!("timeout {timeout:?} is too long") });
        }
        if self.cancel.is_cancelled() {
            return Ok(Execution {
                status: ExecStatus::Failed { reason: CANCELLED.to_owned() },
                submission: None,
                timings: Timings::default(),
                stdout_tail: String::new(),
                stderr_tail: format!("sandmle: {CANCELLED}\n"),
                isolation: self.isolation_now(),
            });
        }
        if self.plan.is_none() {
            eprintln!("{UNSANDBOXED_WARNING}");
        }
        let mut timings = Timings::default();
        let mut fallback = None;
        let script = self.warm_script(command).map(str::to_owned);
        if let (Some(file), Some(warm)) = (script, self.warm.as_mut()) {
            let ready = warm.ensure_ready();
            timings.push("setup", start.elapsed());
            match ready {
                Ok(()) => {
                    let begun = Instant::now();
                    let deadline = begun + timeout;
                    let (ws, limits) = (self.run.workspace(), self.exec.limits);
                    let budget = Budget { base: &self.base, cancel: Some(&self.cancel) };
                    let watch = || budget.check(&ws, &limits);
                    match warm.run(&file, deadline, limits.output_tail, watch) {
                        WarmRun::Ran(outcome, tails) => {
                            timings.push("run", begun.elapsed());
                            let how = warm.describe();
                            let isolation = isolation_report(self.plan.as_ref(), &limits, &self.python, &how);
                            return Ok(self.exec.conclude(
                                &ws,
                                budget,
                                outcome,
                                tails,
                                deadline,
                                &self.id_column,
                                timings,
                                isolation,
                            ));
                        }
                        WarmRun::Unavailable(reason) => fallback = Some(reason),
                    }
                }
                Err(reason) => fallback = Some(reason),
            }
        } else {
            timings.push("setup", start.elapsed());
        }
        let how = match fallback {
            Some(reason) => format!("this step started cold: {reason}"),
            None if self.warm.is_some() => "this command started cold (the warm interpreter takes only \
                                             `python3 FILE.py`)"
                .to_owned(),
            None => self.start_description(),
        };
        let isolation = isolation_report(self.plan.as_ref(), &self.exec.limits, &self.python, &how);
        let deadline = Instant::now() + timeout;
        let budget = Budget { base: &self.base, cancel: Some(&self.cancel) };
        let cold = Cold { run: &self.run, plan: self.plan.as_ref(), python: &self.python, budget };
        self.exec.run_cold(&cold, command, deadline, &self.id_column, timings, isolation)
    }
}

impl Workspace for ProcessWorkspace {
    fn write_file(&mut self, name: &str, bytes: &[u8]) -> sandmle_core::Result<()> {
        Ok(self.write(name, bytes)?)
    }

    fn run(&mut self, command: &[String], timeout: Duration) -> sandmle_core::Result<Execution> {
        Ok(self.run_command(command, timeout)?)
    }

    fn has_submission(&self) -> bool {
        std::fs::symlink_metadata(self.run.workspace().join("submission.csv")).is_ok()
    }

    fn submission(&self) -> sandmle_core::Result<std::result::Result<Table, String>> {
        Ok(self.exec.collect(&self.run.workspace(), &self.id_column))
    }

    fn isolation(&self) -> String {
        self.isolation_now()
    }

    fn set_cancel(&mut self, cancel: sandmle_core::Cancel) {
        self.cancel = cancel;
    }
}
