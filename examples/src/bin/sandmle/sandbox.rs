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
pub fn run_program(
    env: &Environment,
    command: &str,
    code_dir: &Path,
    timeout: Duration,
    unsandboxed: bool,
) -> Result<Execution, Failure> {
    let program = Program {
        command: vec!["sh".into(), "-c".into(), command.to_owned()],
        code_dir: code_dir.to_path_buf(),
        timeout,
    };
    let sandbox = if unsandboxed { SandboxMode::Unsandboxed } else { SandboxMode::Required };
    let executor = ProcessExecutor { sandbox, ..ProcessExecutor::default() };
    executor.run(&program, &env.public_view()).map_err(|e| Failure::new(crate::output::Kind::System, e.to_string()))
}
