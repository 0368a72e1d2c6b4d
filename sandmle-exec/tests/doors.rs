//! One hostile program per door of the threat model (see the README).
//!
//! The sandboxed halves need bubblewrap: with `SANDMLE_REQUIRE_BWRAP=1` (set
//! by `.ci/run` wherever bubblewrap works) its absence is a failure, else
//! they are skipped with a message. Each sandboxed program runs both cold
//! (a fresh sandbox) and as a step on a workspace's warm interpreter (its
//! forked child execs the same shell script).

mod common;

use common::{STARTS, Start, bwrap_or_skip, run_sh};
use sandmle_core::scratch::MARKER;
use sandmle_core::testing::tiny_environment;
use sandmle_core::{ExecStatus, Execution, Program};
use sandmle_exec::{Limits, ProcessExecutor, SandboxError as Error, SandboxMode};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn program(dir: &Path, script: &str) -> Program {
    std::fs::write(dir.join("main.sh"), script).unwrap();
    Program {
        command: vec!["sh".into(), "main.sh".into()],
        code_dir: dir.to_path_buf(),
        timeout: Duration::from_secs(60),
    }
}

fn exec(mode: SandboxMode, limits: Limits, script: &str) -> Execution {
    let code = tempfile::tempdir().unwrap();
    let env = tiny_environment();
    let ex = ProcessExecutor { limits, sandbox: mode, ..ProcessExecutor::default() };
    ex.run(&program(code.path(), script), &env.public_view()).unwrap()
}

/// `script` run sandboxed, started as `start` says.
fn sandboxed(start: Start, limits: Limits, script: &str) -> Execution {
    run_sh(start, limits, &tiny_environment(), script, Duration::from_secs(60))
}

/// A `bwrap` that cannot create a sandbox.
fn broken_bwrap(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("bwrap");
    std::fs::write(&path, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn door_1_a_broken_sandbox_refuses_the_run_instead_of_falling_back() {
    let dir = tempfile::tempdir().unwrap();
    let proof = dir.path().join("ran");
    let code = tempfile::tempdir().unwrap();
    let p = program(code.path(), &format!("touch {}\ncp sample_submission.csv submission.csv\n", proof.display()));
    let env = tiny_environment();
    let ex = ProcessExecutor { bwrap: Some(broken_bwrap(dir.path())), ..ProcessExecutor::default() };
    assert_eq!(ex.sandbox, SandboxMode::Required, "the sandbox is required by default");
    let e = ex.run(&p, &env.public_view()).unwrap_err();
    assert!(matches!(e, Error::SandboxUnavailable { ref reason } if reason.contains("No permissions")), "{e}");
    assert!(!proof.exists(), "the program must not run without its sandbox");
    // Nor does a persistent workspace (warm interpreter or not) open.
    let e = ex.open(&env.public_view()).unwrap_err();
    assert!(matches!(e, Error::SandboxUnavailable { .. }), "{e}");
    // Explicitly unsandboxed, it runs, and the report says so.
    let ex = ProcessExecutor { sandbox: SandboxMode::Unsandboxed, ..ex };
    let out = ex.run(&p, &env.public_view()).unwrap();
    assert_eq!(out.status, ExecStatus::Completed, "{}", out.stderr_tail);
    assert!(proof.exists());
    assert!(out.isolation.starts_with("none (unsandboxed"), "{}", out.isolation);
}

#[test]
fn door_2_an_inherited_descriptor_is_unreachable() {
    use nix::fcntl::{FcntlArg, FdFlag, fcntl};
    use std::os::fd::AsRawFd;
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("answers.csv");
    std::fs::write(&secret, "id,label\nSECRET-ANSWERS,1\n").unwrap();
    // As a harness that opened the answers without close-on-exec would.
    let file = std::fs::File::open(&secret).unwrap();
    fcntl(&file, FcntlArg::F_SETFD(FdFlag::empty())).unwrap();
    let fd = file.as_raw_fd();
    let script = format!(
        "ls /proc/self/fd\nfor f in /proc/self/fd/*; do case ${{f##*/}} in 0|1|2) ;; *) cat \"$f\" 2>/dev/null ;; esac; done\n\
         cat /proc/self/fd/{fd} /dev/fd/{fd} 2>&1\ncp sample_submission.csv submission.csv\n"
    );
    let mut runs = vec![("unsandboxed", exec(SandboxMode::Unsandboxed, Limits::default(), &script))];
    if bwrap_or_skip() {
        for start in STARTS {
            runs.push((
                if start == Start::Cold { "cold" } else { "warm" },
                sandboxed(start, Limits::default(), &script),
            ));
        }
    }
    for (mode, out) in runs {
        assert_eq!(out.status, ExecStatus::Completed, "{mode:?}: {}", out.stderr_tail);
        assert!(!out.stdout_tail.contains("SECRET-ANSWERS"), "{mode:?} read the descriptor: {}", out.stdout_tail);
        // `ls` sees 0-2 and its own directory descriptor, nothing more.
        let fds: Vec<&str> = out.stdout_tail.lines().take_while(|l| l.parse::<u32>().is_ok()).collect();
        assert!(fds.len() <= 4, "{mode:?}: {fds:?}");
    }
    drop(file);
}

#[test]
fn door_3_dev_is_minimal_and_dev_shm_is_capped() {
    if !bwrap_or_skip() {
        return;
    }
    let limits = Limits { shm_bytes: 4 << 20, ..Limits::default() };
    let script = "ls /dev\nhead -c 20000000 /dev/zero > /dev/shm/big || echo SHM-FULL\n\
                  touch /dev/new 2>/dev/null || echo DEV-READONLY\n\
                  head -c 2000000 /dev/zero > /dev/shm/small && echo SHM-SMALL-OK\n\
                  cp sample_submission.csv submission.csv\n";
    for start in STARTS {
        let out = sandboxed(start, limits, script);
        assert_eq!(out.status, ExecStatus::Completed, "{start:?}: {}", out.stderr_tail);
        assert!(out.stdout_tail.contains("SHM-FULL"), "{start:?}: {}", out.stdout_tail);
        assert!(out.stdout_tail.contains("DEV-READONLY"), "{start:?}: {}", out.stdout_tail);
        for dev in ["sda", "vda", "mem", "kmsg", "disk"] {
            assert!(!out.stdout_tail.lines().any(|l| l == dev), "/dev/{dev} inside: {}", out.stdout_tail);
        }
    }
}

#[test]
fn door_4_no_host_etc_inside() {
    if !bwrap_or_skip() {
        return;
    }
    for start in STARTS {
        let out = sandboxed(
            start,
            Limits::default(),
            "for f in shadow gshadow machine-id hostname passwd; do test -e /etc/$f && echo \"HAS $f\"; done\n\
             cat /etc/shadow 2>/dev/null && echo READ-SHADOW\nhostname; id -un; ls /etc\n\
             cp sample_submission.csv submission.csv\n",
        );
        assert_eq!(out.status, ExecStatus::Completed, "{start:?}: {}", out.stderr_tail);
        let s = &out.stdout_tail;
        for leaked in ["HAS shadow", "HAS gshadow", "HAS machine-id", "READ-SHADOW"] {
            assert!(!s.contains(leaked), "{start:?} {leaked}: {s}");
        }
        assert!(s.contains("HAS passwd") && s.lines().any(|l| l == "sandbox"), "{start:?}: {s}");
        let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
        assert!(host.trim().is_empty() || !s.contains(host.trim()), "the host name leaked: {s}");
    }
}

#[test]
fn door_5_a_disk_filler_is_stopped_at_the_workspace_budget() {
    let limits = Limits { workspace_bytes: 40 << 20, workspace_files: 300, file_size: 10 << 20, ..Limits::default() };
    let big = "i=0; while [ $i -lt 200 ]; do head -c 5000000 /dev/zero > f$i; i=$((i+1)); done\n\
               cp sample_submission.csv submission.csv\n";
    let many = "i=0; while [ $i -lt 100000 ]; do : > e$i; i=$((i+1)); done\ncp sample_submission.csv submission.csv\n";
    let sandbox = bwrap_or_skip();
    for script in [big, many] {
        let mut runs = vec![("unsandboxed", exec(SandboxMode::Unsandboxed, limits, script))];
        if sandbox {
            runs.push(("cold", sandboxed(Start::Cold, limits, script)));
            runs.push(("warm", sandboxed(Start::Warm, limits, script)));
        }
        for (mode, out) in runs {
            assert_eq!(out.status, ExecStatus::OutputLimitExceeded, "{mode}: {}", out.stderr_tail);
            assert!(out.stderr_tail.contains("workspace budget"), "{mode}: {}", out.stderr_tail);
        }
    }
}

#[test]
fn door_5_a_killed_runs_directory_is_reclaimed_by_the_next_run() {
    // What `kill -9` of a run leaves: its directory, its marker unlocked.
    let stale = std::env::temp_dir().join("sandmle-run-killed-by-test");
    std::fs::create_dir_all(stale.join("workspace")).unwrap();
    std::fs::write(stale.join(MARKER), "").unwrap();
    std::fs::write(stale.join("workspace/train.csv"), "id\n").unwrap();
    let out = exec(SandboxMode::Unsandboxed, Limits::default(), "cp sample_submission.csv submission.csv\n");
    assert_eq!(out.status, ExecStatus::Completed);
    assert!(!stale.exists(), "the dead run's directory is reclaimed");
}

#[test]
fn door_5_the_process_count_is_capped_in_the_sandbox() {
    if !bwrap_or_skip() {
        return;
    }
    let limits = Limits { processes: 20, ..Limits::default() };
    // `echo` is a shell builtin: each line is one process started.
    let script = "i=0; while [ $i -lt 60 ]; do sleep 2 & echo $i; i=$((i+1)); done\n";
    for start in STARTS {
        let out = sandboxed(start, limits, script);
        let started = out.stdout_tail.lines().count();
        assert!(started > 0 && started < 20, "{start:?}: {started} started: {:?} {}", out.status, out.stderr_tail);
        assert!(out.isolation.contains("at most 20 processes"), "{}", out.isolation);
    }
}

#[test]
fn door_6_a_two_million_column_submission_is_refused_quickly() {
    let script = "awk 'BEGIN { for (i = 0; i < 2000000; i++) printf \"c%d,\", i; print \"x\"; \
                  for (i = 0; i < 2000000; i++) printf \"1,\"; print \"1\" }' > submission.csv\n";
    let start = Instant::now();
    let out = exec(SandboxMode::Unsandboxed, Limits::default(), script);
    match &out.status {
        ExecStatus::Failed { reason } => assert!(reason.contains("columns, over the limit"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert!(out.submission.is_none());
    // A generous guard: the read used to take minutes and gigabytes.
    assert!(start.elapsed() < Duration::from_secs(50), "took {:?}", start.elapsed());
}

/// Creates a chain of nested directories as deep as it can, in Python.
const DEEP_CHAIN: &str = "python3 -c \"\nimport os\nfor i in range(30000):\n    os.mkdir('deepchain'); os.chdir('deepchain')\n\"\n\
                          cp sample_submission.csv submission.csv\n";

/// Runs `f` on a thread with a 256 KiB stack: removing a 30,000-deep chain
/// recursively would overflow it (it overflowed the server's 2 MiB blocking
/// threads and aborted the process).
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(256 << 10).spawn(f).unwrap().join().unwrap()
}

/// Run directories whose workspace still holds `name` at its top.
fn leftovers_holding(name: &str) -> Vec<PathBuf> {
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("sandmle-run-")))
        .filter(|p| common::exists(&p.join("workspace").join(name)))
        .collect()
}

#[test]
fn door_5_a_30000_deep_directory_chain_is_stopped_and_removed() {
    let sandbox = bwrap_or_skip();
    let runs = small_stack(move || {
        let mut runs = vec![("unsandboxed", exec(SandboxMode::Unsandboxed, Limits::default(), DEEP_CHAIN))];
        if sandbox {
            runs.push(("cold", sandboxed(Start::Cold, Limits::default(), DEEP_CHAIN)));
            runs.push(("warm", sandboxed(Start::Warm, Limits::default(), DEEP_CHAIN)));
        }
        runs
    });
    for (mode, out) in runs {
        assert_eq!(out.status, ExecStatus::OutputLimitExceeded, "{mode}: {}", out.stderr_tail);
        assert!(
            out.stderr_tail.contains("deeper than the workspace budget of 64 levels"),
            "{mode}: {}",
            out.stderr_tail
        );
    }
    assert!(leftovers_holding("deepchain").is_empty(), "a run directory was left behind");
}

#[test]
fn door_5_a_persistent_workspace_with_a_deep_chain_is_removed_on_drop() {
    if !bwrap_or_skip() {
        return;
    }
    let env = tiny_environment();
    let mut ws = common::executor(Limits::default(), sandmle_exec::CodeSteps::Warm).open(&env.public_view()).unwrap();
    let dir = ws.dir();
    let out = common::warm_sh(&mut ws, DEEP_CHAIN, Duration::from_secs(60));
    assert_eq!(out.status, ExecStatus::OutputLimitExceeded, "{}", out.stderr_tail);
    small_stack(move || drop(ws));
    assert!(!common::exists(&dir), "the workspace is removed");
}

/// Files under a directory path longer than PATH_MAX were invisible to the
/// budget's walk: 1.5 GiB was written past a 1 GiB budget.
#[test]
fn door_5_files_past_path_max_count_against_the_workspace_budget() {
    let limits = Limits { workspace_bytes: 40 << 20, file_size: 10 << 20, ..Limits::default() };
    let script = "python3 -c \"\nimport os, time\nfor i in range(30):\n    os.mkdir('p' * 200); os.chdir('p' * 200)\n\
                  for i in range(8):\n    open('f%d' % i, 'wb').write(b'x' * (9 << 20))\ntime.sleep(2)\n\"\n\
                  cp sample_submission.csv submission.csv\n";
    let mut runs = vec![("unsandboxed", exec(SandboxMode::Unsandboxed, limits, script))];
    if bwrap_or_skip() {
        runs.push(("cold", sandboxed(Start::Cold, limits, script)));
        runs.push(("warm", sandboxed(Start::Warm, limits, script)));
    }
    for (mode, out) in runs {
        assert_eq!(out.status, ExecStatus::OutputLimitExceeded, "{mode}: {}", out.stderr_tail);
        assert!(out.stderr_tail.contains("workspace budget of 41943040 bytes"), "{mode}: {}", out.stderr_tail);
    }
}

/// A folder made unreadable (`chmod 000`) hid what it held from the
/// budget; links, looping or pointing out, must neither stall the walks
/// nor lead them out of the workspace.
#[test]
fn door_5_chmod_000_folders_and_link_loops_neither_hide_nor_mislead() {
    let limits = Limits { workspace_bytes: 40 << 20, file_size: 30 << 20, ..Limits::default() };
    let hidden = "mkdir -p locked/inner && head -c 25000000 /dev/zero > locked/inner/a && \
                  head -c 25000000 /dev/zero > locked/inner/b && chmod 000 locked/inner locked && sleep 2\n\
                  cp sample_submission.csv submission.csv\n";
    let links = "ln -s . loop && ln -s / root && ln -s .. up && mkdir d && ln -s ../d d/back && sleep 1\n\
                 cp sample_submission.csv submission.csv\n";
    let mut runs = vec![
        ("unsandboxed", "hidden", exec(SandboxMode::Unsandboxed, limits, hidden)),
        ("unsandboxed", "links", exec(SandboxMode::Unsandboxed, limits, links)),
    ];
    if bwrap_or_skip() {
        for start in STARTS {
            runs.push(("sandboxed", "hidden", sandboxed(start, limits, hidden)));
            runs.push(("sandboxed", "links", sandboxed(start, limits, links)));
        }
    }
    for (mode, which, out) in runs {
        let expected = if which == "hidden" { ExecStatus::OutputLimitExceeded } else { ExecStatus::Completed };
        assert_eq!(out.status, expected, "{mode} {which}: {}", out.stderr_tail);
    }
    assert!(leftovers_holding("locked").is_empty() && leftovers_holding("loop").is_empty());
}
