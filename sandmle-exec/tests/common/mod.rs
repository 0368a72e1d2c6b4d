//! Shared by the process executor's tests: the bubblewrap check, the two
//! ways a sandboxed program starts (cold, or on a workspace's warm
//! interpreter), and the Python environment CI provides.
#![allow(dead_code)]

pub mod image_env;

use sandmle_core::{Environment, Execution, Program, Workspace};
use sandmle_exec::{
    CodeSteps, Limits, ProcessExecutor, PythonChoice, PythonSettings, SandboxMode, bubblewrap_available,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Whether the sandbox can be created here: with `SANDMLE_REQUIRE_BWRAP=1`
/// (CI) its absence is a failure, else the caller skips its sandboxed half.
pub fn bwrap_or_skip() -> bool {
    let ok = bubblewrap_available();
    if !ok {
        assert!(std::env::var_os("SANDMLE_REQUIRE_BWRAP").is_none(), "bubblewrap is required but cannot run here");
        eprintln!("bubblewrap cannot run here: the sandboxed half of this test is skipped");
    }
    ok
}

/// How a sandboxed program starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// A fresh sandbox and process for the run (`ProcessExecutor::run`).
    Cold,
    /// A step on a persistent workspace's warm interpreter: `python3 main.py`,
    /// whose forked child execs the shell script.
    Warm,
}

/// Both ways.
pub const STARTS: [Start; 2] = [Start::Cold, Start::Warm];

/// The Python environment the tests' sandbox exposes: `SANDMLE_PYTHON`
/// (an interpreter or prefix; CI's virtualenv with numpy, pandas and
/// scikit-learn) when set, else the system's `python3` (readable by the
/// user `nobody` a root caller drops to, unlike a pyenv under `/root`).
pub fn python_choice() -> PythonChoice {
    match std::env::var_os("SANDMLE_PYTHON") {
        Some(p) if !p.is_empty() => PythonChoice::Interpreter(PathBuf::from(p)),
        _ => PythonChoice::System,
    }
}

/// A sandboxed executor with `limits`, warm code steps and the tests' Python.
pub fn executor(limits: Limits, steps: CodeSteps) -> ProcessExecutor {
    ProcessExecutor {
        limits,
        sandbox: SandboxMode::Required,
        python: PythonSettings { choice: python_choice(), code_steps: steps, ..PythonSettings::default() },
        ..ProcessExecutor::default()
    }
}

/// Asserts that a step ran on the warm interpreter, not a cold fallback.
pub fn assert_warm(out: &Execution) {
    assert!(out.isolation.contains("code steps: a warm interpreter (python"), "not warm: {}", out.isolation);
}

/// Runs the shell `script` (as `main.sh`) sandboxed, started as `start`
/// says, with the code directory's other files.
pub fn run_sh(start: Start, limits: Limits, env: &Environment, script: &str, timeout: Duration) -> Execution {
    let code = tempfile::tempdir().unwrap();
    std::fs::write(code.path().join("main.sh"), script).unwrap();
    match start {
        Start::Cold => {
            let program =
                Program { command: vec!["sh".into(), "main.sh".into()], code_dir: code.path().to_path_buf(), timeout };
            executor(limits, CodeSteps::Cold).run(&program, &env.public_view()).unwrap()
        }
        Start::Warm => {
            let mut ws = executor(limits, CodeSteps::Warm).open(&env.public_view()).unwrap();
            let out = warm_sh(&mut ws, script, timeout);
            assert_warm(&out);
            out
        }
    }
}

/// Runs the shell `script` as one warm step of `ws`: `main.py` execs it.
pub fn warm_sh(ws: &mut dyn Workspace, script: &str, timeout: Duration) -> Execution {
    ws.write_file("main.sh", script.as_bytes()).unwrap();
    ws.write_file("main.py", b"import os\nos.execvp('sh', ['sh', 'main.sh'])\n").unwrap();
    ws.run(&["python3".into(), "main.py".into()], timeout).unwrap()
}

/// A workspace step running the Python `code` as `name`.
pub fn py_step(ws: &mut dyn Workspace, name: &str, code: &str, timeout: Duration) -> Execution {
    ws.write_file(name, code.as_bytes()).unwrap();
    ws.run(&["python3".into(), name.into()], timeout).unwrap()
}

/// The processes of this machine whose command line holds `marker`.
pub fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(marker) {
                found.push(cmd);
            }
        }
    }
    found
}

/// `true` if `path` exists.
pub fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}
