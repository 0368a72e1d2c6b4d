//! The warm interpreter of persistent workspaces: steps see a fresh
//! interpreter's state (only workspace files persist), episodes see nothing
//! of each other, a step's timeout kills only that step, the server
//! withstands hostile steps, a dead server falls back to cold starts, and
//! a warm step is observed exactly as the same program started cold.

mod common;

use common::{assert_warm, bwrap_or_skip, executor, exists, processes_with, py_step};
use sandmle_core::testing::tiny_environment;
use sandmle_core::{ExecStatus, Workspace};
use sandmle_exec::{CodeSteps, Limits};
use std::time::Duration;

const T: Duration = Duration::from_secs(60);

#[test]
fn nothing_but_workspace_files_survives_from_one_step_to_the_next() {
    if !bwrap_or_skip() {
        return;
    }
    let env = tiny_environment();
    let mut ws = executor(Limits::default(), CodeSteps::Warm).open(&env.public_view()).unwrap();
    let first = py_step(
        &mut ws,
        "main_1.py",
        r#"
import ctypes, json, os, subprocess, sys
LEAKED_GLOBAL = 1
json.leaked_attribute = True
sys.modules["leaked_module"] = json
os.environ["LEAKED_ENV"] = "1"
os.chdir("/tmp")
for d in ("/tmp", "/dev/shm"):
    open(d + "/leaked_file", "w").write("x")
os.makedirs("/tmp/a/b", exist_ok=True)
libc = ctypes.CDLL(None)
assert libc.shmget(0x5EED, 4096, 0o1600) >= 0  # IPC_CREAT | 0600: a System V segment
subprocess.Popen(["sleep", "4261"], start_new_session=True)
open("/workspace/kept.txt", "w").write("kept")
print("set")
"#,
        T,
    );
    assert_warm(&first);
    assert!(first.stdout_tail.contains("set"), "{}", first.stderr_tail);
    let second = py_step(
        &mut ws,
        "main_2.py",
        r#"
import json, os, sys
print("global", "LEAKED_GLOBAL" in globals())
print("attribute", hasattr(json, "leaked_attribute"))
print("module", "leaked_module" in sys.modules)
print("env", "LEAKED_ENV" in os.environ)
print("cwd", os.getcwd())
# What step 1 left in /tmp and /dev/shm (a Python prefix bound from under
# /tmp shows its mount point there, which is not the step's).
print("tmp", [p for p in ("/tmp/leaked_file", "/tmp/a") if os.path.lexists(p)], sorted(os.listdir("/dev/shm")))
print("ipc", len(open("/proc/sysvipc/shm").read().splitlines()) - 1)
procs = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
print("processes", len(procs))
print("kept", open("kept.txt").read())
"#,
        T,
    );
    assert_warm(&second);
    let s = &second.stdout_tail;
    for line in [
        "global False",
        "attribute False",
        "module False",
        "env False",
        "cwd /workspace",
        "tmp [] []",
        "ipc 0",
        "processes 0",
        "kept kept",
    ] {
        assert!(s.lines().any(|l| l == line), "expected `{line}` in:\n{s}\n{}", second.stderr_tail);
    }
    assert!(processes_with("sleep 4261").is_empty(), "a step's daemon outlived it");
}

#[test]
fn one_episode_sees_nothing_of_another() {
    if !bwrap_or_skip() {
        return;
    }
    let env = tiny_environment();
    let exec = executor(Limits::default(), CodeSteps::Warm);
    let mut a = exec.open(&env.public_view()).unwrap();
    let mut b = exec.open(&env.public_view()).unwrap();
    let wrote = py_step(
        &mut a,
        "main_1.py",
        "open('secret_a.txt', 'w').write('A')\nopen('/tmp/secret_a', 'w').write('A')\nprint('ok')\n",
        T,
    );
    assert_warm(&wrote);
    assert!(exists(&a.dir().join("secret_a.txt")));
    let a_dir = a.dir().display().to_string();
    let look = format!(
        "import os\nprint(sorted(os.listdir('.')))\nprint(sorted(os.listdir('/tmp')))\n\
         print(os.path.exists({a_dir:?}))\nprint(os.path.exists('/workspace/secret_a.txt'))\n"
    );
    let seen = py_step(&mut b, "main_1.py", &look, T);
    assert_warm(&seen);
    assert!(!seen.stdout_tail.contains("secret_a"), "{}", seen.stdout_tail);
    assert_eq!(seen.stdout_tail.lines().filter(|l| *l == "False").count(), 2, "{}", seen.stdout_tail);
}

#[test]
fn a_timeout_kills_only_that_step_and_the_next_step_runs_warm() {
    if !bwrap_or_skip() {
        return;
    }
    let env = tiny_environment();
    let mut ws = executor(Limits::default(), CodeSteps::Warm).open(&env.public_view()).unwrap();
    let slow = py_step(
        &mut ws,
        "main_1.py",
        "import subprocess, time\nsubprocess.Popen(['sleep', '4271'], start_new_session=True)\nprint('started', \
         flush=True)\ntime.sleep(600)\n",
        Duration::from_secs(2),
    );
    assert_eq!(slow.status, ExecStatus::TimedOut, "{}", slow.stderr_tail);
    assert!(slow.stdout_tail.contains("started"), "the output up to the timeout is kept: {}", slow.stdout_tail);
    assert!(processes_with("sleep 4271").is_empty(), "the step's processes outlived its timeout");
    let next =
        py_step(&mut ws, "main_2.py", "import shutil\nshutil.copy('sample_submission.csv', 'submission.csv')\n", T);
    assert_eq!(next.status, ExecStatus::Completed, "{}", next.stderr_tail);
    assert_warm(&next);
    assert!(ws.has_submission());
}

#[test]
fn the_server_withstands_its_steps() {
    if !bwrap_or_skip() {
        return;
    }
    let env = tiny_environment();
    let mut ws = executor(Limits::default(), CodeSteps::Warm).open(&env.public_view()).unwrap();
    let attack = py_step(
        &mut ws,
        "main_1.py",
        r#"
import ctypes, os, signal
for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGSTOP):
    try:
        os.kill(1, sig)
    except OSError as e:
        print("kill", e.errno)
try:
    os.kill(-1, signal.SIGKILL)  # every process it may signal but itself
except OSError:
    pass
for path in ("/proc/1/fd/0", "/proc/1/mem", "/proc/1/environ"):
    try:
        open(path, "rb").read(1)
        print("READ", path)
    except OSError:
        print("denied", path)
libc = ctypes.CDLL(None, use_errno=True)
print("ptrace", libc.ptrace(16, 1, None, None))  # PTRACE_ATTACH to the server
print("fds", sorted(os.listdir("/proc/self/fd")))
"#,
        T,
    );
    assert_warm(&attack);
    let s = &attack.stdout_tail;
    assert!(!s.contains("READ"), "{s}");
    assert!(s.contains("ptrace -1"), "{s}\n{}", attack.stderr_tail);
    assert!(s.contains("fds ['0', '1', '2', '3']"), "only 0-2 (and listdir's own): {s}");
    let after = py_step(&mut ws, "main_2.py", "print('still serving')\n", T);
    assert_warm(&after);
    assert_eq!(after.stdout_tail, "still serving\n");
}

#[test]
fn a_dead_server_falls_back_to_cold_starts_and_says_so() {
    if !bwrap_or_skip() {
        return;
    }
    let env = tiny_environment();
    let mut ws = executor(Limits::default(), CodeSteps::Warm).open(&env.public_view()).unwrap();
    assert_warm(&py_step(&mut ws, "main_1.py", "print(1)\n", T));
    let pid = ws.warm_pid().expect("a warm interpreter runs");
    let pid = nix::unistd::Pid::from_raw(i32::try_from(pid).unwrap());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let code = "import shutil\nshutil.copy('sample_submission.csv', 'submission.csv')\nprint('done')\n";
    let step = py_step(&mut ws, "main_2.py", code, T);
    // Seen before the step: it starts cold; seen during it: it fails, saying why.
    match &step.status {
        ExecStatus::Completed => assert!(step.isolation.contains("this step started cold"), "{}", step.isolation),
        ExecStatus::Failed { reason } => assert!(reason.contains("warm interpreter died"), "{reason}"),
        other => panic!("{other:?}: {}", step.stderr_tail),
    }
    let next = py_step(&mut ws, "main_3.py", code, T);
    assert_eq!(next.status, ExecStatus::Completed, "{}", next.stderr_tail);
    assert!(next.isolation.contains("started cold"), "{}", next.isolation);
    assert!(ws.isolation().contains("the warm interpreter is unavailable"), "{}", ws.isolation());
    assert!(ws.warm_pid().is_none());
}

#[test]
fn a_warm_step_is_observed_as_the_same_program_started_cold() {
    if !bwrap_or_skip() {
        return;
    }
    let env = tiny_environment();
    let programs = [
        "import os, sys\nprint(__name__, __file__, sys.argv, sys.path[0], os.getcwd(), __spec__)\n",
        "import sys\nprint('to stderr', file=sys.stderr)\nsys.exit(3)\n",
        "import sys\nsys.exit('a message')\n",
        "def f():\n    raise ValueError('boom')\nf()\n",
        "print('unclosed'\n",
        "import os\nos.kill(os.getpid(), 9)\n",
        "import __main__\nprint(__main__.__dict__.get('marker'))\nmarker = 1\nimport atexit\natexit.register(print, 'at exit')\n",
        "import shutil\nshutil.copy('sample_submission.csv', 'submission.csv')\n",
    ];
    let mut warm = executor(Limits::default(), CodeSteps::Warm).open(&env.public_view()).unwrap();
    let mut cold = executor(Limits::default(), CodeSteps::Cold).open(&env.public_view()).unwrap();
    for (i, code) in programs.iter().enumerate() {
        let name = format!("main_{i}.py");
        let w = py_step(&mut warm, &name, code, T);
        let c = py_step(&mut cold, &name, code, T);
        assert_warm(&w);
        assert!(c.isolation.contains("code steps: cold"), "{}", c.isolation);
        assert_eq!((&w.status, &w.stdout_tail, &w.stderr_tail), (&c.status, &c.stdout_tail, &c.stderr_tail), "{code}");
        assert_eq!(w.submission, c.submission, "{code}");
    }
}

#[test]
fn a_warm_step_ignoring_the_size_signal_is_still_reported() {
    if !bwrap_or_skip() {
        return;
    }
    let env = tiny_environment();
    let limits = Limits { file_size: 10 << 20, ..Limits::default() };
    let mut ws = executor(limits, CodeSteps::Warm).open(&env.public_view()).unwrap();
    let out = py_step(&mut ws, "main_1.py", "open('big.bin', 'wb').write(b'0' * 50000000)\n", T);
    assert_warm(&out);
    assert_eq!(out.status, ExecStatus::OutputLimitExceeded, "{}", out.stderr_tail);
}

#[test]
fn other_commands_start_cold_and_cold_steps_can_be_asked_for() {
    if !bwrap_or_skip() {
        return;
    }
    let env = tiny_environment();
    let mut ws = executor(Limits::default(), CodeSteps::Warm).open(&env.public_view()).unwrap();
    let sh = ws.run(&["sh".into(), "-c".into(), "echo $$".into()], T).unwrap();
    assert!(sh.isolation.contains("this command started cold"), "{}", sh.isolation);
    let missing = ws.run(&["python3".into(), "absent.py".into()], T).unwrap();
    assert!(matches!(missing.status, ExecStatus::Failed { .. }));
    assert!(missing.stderr_tail.contains("can't open file"), "a fresh interpreter's message: {}", missing.stderr_tail);
    let mut cold = executor(Limits::default(), CodeSteps::Cold).open(&env.public_view()).unwrap();
    assert!(cold.warm_pid().is_none());
    let out = py_step(&mut cold, "main_1.py", "print('cold')\n", T);
    assert!(out.isolation.contains("cold code steps were asked for"), "{}", out.isolation);
}
