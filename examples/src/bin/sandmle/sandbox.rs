//! `run --command`: an agent's program through the process executor.

use crate::output::Failure;
use sandmle_core::{Environment, Execution, Program};
use sandmle_exec::ProcessExecutor;
use std::path::Path;
use std::time::Duration;

/// Runs `command` (through `sh -c`) with the files of `code_dir` in a fresh
/// sandboxed workspace. A program that fails is an `Ok` execution with that
/// status; `Err` is the executor's own failure (no sandbox, no workspace).
pub fn run_program(env: &Environment, command: &str, code_dir: &Path, timeout: Duration) -> Result<Execution, Failure> {
    let program = Program {
        command: vec!["sh".into(), "-c".into(), command.to_owned()],
        code_dir: code_dir.to_path_buf(),
        timeout,
    };
    ProcessExecutor::default()
        .run(&program, &env.public_view())
        .map_err(|e| Failure::new(crate::output::Kind::System, e.to_string()))
}
