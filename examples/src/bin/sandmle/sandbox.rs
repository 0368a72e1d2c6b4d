//! `run --command`: an agent's program through the process executor,
//! inside bubblewrap; a machine where the sandbox cannot be created refuses
//! the run (exit 2) unless `--unsandboxed` asks for running without it
//! (the executor then warns on stderr on every run).

use crate::output::Failure;
use sandmle_core::{Environment, Execution, Program};
use sandmle_exec::{ProcessExecutor, SandboxMode};
use std::path::Path;
use std::time::Duration;

/// Runs `command` (through `sh -c`) with the files of `code_dir` in a fresh
/// sandboxed workspace. A program that fails is an `Ok` execution with that
/// status; `Err` is the executor's own failure (no sandbox, no workspace).
/// The Python environment programs see, and how code steps start.
#[derive(Debug, Clone, clap::Args)]
pub struct PythonArgs {
    /// The Python environment exposed (read-only) in the sandbox: an
    /// interpreter or a virtualenv/conda prefix; default $SANDMLE_PYTHON,
    /// else the one `python3` on PATH belongs to.
    #[arg(long)]
    pub python: Option<std::path::PathBuf>,
    /// Start every code step cold (a fresh interpreter) instead of on the
    /// episode's warm interpreter.
    #[arg(long = "cold-steps")]
    pub cold_steps: bool,
}

impl PythonArgs {
    /// The executor's Python settings.
    pub fn settings(&self) -> sandmle_exec::PythonSettings {
        sandmle::python_settings(self.python.as_deref(), self.cold_steps)
    }
}

pub fn run_program(
    env: &Environment,
    command: &str,
    code_dir: &Path,
    timeout: Duration,
    unsandboxed: bool,
    python: &PythonArgs,
) -> Result<Execution, Failure> {
    let program = Program {
        command: vec!["sh".into(), "-c".into(), command.to_owned()],
        code_dir: code_dir.to_path_buf(),
        timeout,
    };
    let sandbox = if unsandboxed { SandboxMode::Unsandboxed } else { SandboxMode::Required };
    let executor = ProcessExecutor { sandbox, python: python.settings(), ..ProcessExecutor::default() };
    executor.run(&program, &env.public_view()).map_err(|e| Failure::new(crate::output::Kind::System, e.to_string()))
}
