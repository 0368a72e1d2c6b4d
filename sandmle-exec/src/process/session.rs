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
//! Between runs no process of the agent is alive (the sandbox's PID
//! namespace dies with its first process), so files the episode writes
//! ([`Workspace::write_file`]) cannot race with the program; they still
//! replace what a run left under their name without following links
//! (the entry is removed, then created exclusively).

use super::bwrap::{self, HOST_UID, Plan};
use super::workspace::{PUBLIC_FILES, RunDir, Usage, usage, write_public};
use super::{Limits, ProcessExecutor, SandboxMode, UNSANDBOXED_WARNING, isolation_report};
use crate::error::{Error, Result};
use sandmle_core::{Execution, PublicView, Table, Timings, Workspace};
use std::io::Write;
use std::time::{Duration, Instant};

/// A workspace of the process executor that persists across runs, made by
/// [`ProcessExecutor::open`]: the sandbox is probed once, each run binds
/// only this workspace with its own wall clock and limits, the workspace
/// budget counts from the opening, files written into it never follow a
/// link a run left, and the directory is removed on drop.
pub struct ProcessWorkspace {
    exec: ProcessExecutor,
    run: RunDir,
    plan: Option<Plan>,
    base: Usage,
    id_column: String,
}

impl std::fmt::Debug for ProcessWorkspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessWorkspace")
            .field("dir", &self.run.path())
            .field("sandboxed", &self.plan.is_some())
            .finish()
    }
}

impl ProcessExecutor {
    /// Opens a workspace holding `view`'s public files for several runs.
    ///
    /// # Errors
    /// [`Error::SandboxUnavailable`] when the sandbox is required and
    /// cannot be created here; [`Error::Io`] and [`Error::Sandbox`] when the
    /// workspace cannot be prepared.
    pub fn open(&self, view: &PublicView<'_>) -> Result<ProcessWorkspace> {
        let run = RunDir::create()?;
        let plan = match self.sandbox {
            SandboxMode::Required => Some(bwrap::probe(self.bwrap.as_deref(), run.path(), &self.limits)?),
            SandboxMode::Unsandboxed => None,
        };
        let ws = run.workspace();
        write_public(view, &ws)?;
        if plan.as_ref().is_some_and(|p| p.setpriv.is_some()) {
            run.hand_over()?;
        }
        let base = usage(&ws, &Usage::default(), &Limits { workspace_bytes: u64::MAX, ..self.limits });
        Ok(ProcessWorkspace { exec: self.clone(), run, plan, base, id_column: view.task.id_column.clone() })
    }
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
        if PUBLIC_FILES.contains(&name) {
            return Err(bad_name(name, "a public file's name"));
        }
        let path = self.run.workspace().join(name);
        // Whatever a run left here (a link, a directory, a FIFO) goes; the
        // new file is created exclusively, so no link is ever followed.
        if let Ok(meta) = std::fs::symlink_metadata(&path) {
            let removed = if meta.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
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

    fn run_command(&mut self, command: &[String], timeout: Duration) -> Result<Execution> {
        let start = Instant::now();
        let deadline = start
            .checked_add(timeout)
            .ok_or_else(|| Error::Sandbox { reason: format!("timeout {timeout:?} is too long") })?;
        if self.plan.is_none() {
            eprintln!("{UNSANDBOXED_WARNING}");
        }
        let mut timings = Timings::default();
        timings.push("setup", start.elapsed());
        self.exec.run_in(&self.run, self.plan.as_ref(), command, deadline, &self.base, &self.id_column, timings)
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
        isolation_report(self.plan.as_ref(), &self.exec.limits)
    }
}
