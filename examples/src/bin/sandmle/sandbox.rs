//! `run --command`: an agent's program through the process executor,
//! inside bubblewrap; a machine where the sandbox cannot be created refuses
//! the run (exit 2) unless `--unsandboxed` asks for running without it
//! (the executor then warns on stderr on every run).

use crate::output::Failure;
use sandmle_core::{Environment, ExecStatus, Program, Table, Timings};
use sandmle_exec::{ProcessExecutor, SandboxMode};
use serde_json::json;
use std::path::Path;
use std::time::Duration;

/// Runs `command` (through `sh -c`) with the files of `code_dir` in a fresh
/// sandboxed workspace; returns its submission, timings and a JSON summary.
pub fn run_program(
    env: &Environment,
    command: &str,
    code_dir: Option<&Path>,
    timeout: f64,
    unsandboxed: bool,
) -> Result<(Table, Timings, serde_json::Value), Failure> {
    let code_dir = code_dir.ok_or_else(|| Failure::Usage("--command needs --code-dir".into()))?;
    const WEEK: f64 = 7.0 * 24.0 * 3600.0;
    let timeout = Duration::try_from_secs_f64(timeout)
        .ok()
        .filter(|t| !t.is_zero() && t.as_secs_f64() <= WEEK)
        .ok_or_else(|| Failure::Usage("--timeout must be a positive number of seconds, at most a week".into()))?;
    let program = Program {
        command: vec!["sh".into(), "-c".into(), command.to_owned()],
        code_dir: code_dir.to_path_buf(),
        timeout,
    };
    let sandbox = if unsandboxed { SandboxMode::Unsandboxed } else { SandboxMode::Required };
    let executor = ProcessExecutor { sandbox, ..ProcessExecutor::default() };
    let out = executor.run(&program, &env.public_view()).map_err(|e| Failure::Usage(e.to_string()))?;
    let summary = json!({
        "executor": "process",
        "status": out.status,
        "isolation": out.isolation,
        "stdout_tail": out.stdout_tail,
        "stderr_tail": out.stderr_tail,
    });
    match (out.status, out.submission) {
        (ExecStatus::Completed, Some(sub)) => Ok((sub, out.timings, summary)),
        (status, _) => {
            eprintln!(
                "{}",
                out.stderr_tail
                    .lines()
                    .rev()
                    .take(5)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            Err(Failure::InvalidSubmission(format!("the program produced no valid submission: {status:?}")))
        }
    }
}
