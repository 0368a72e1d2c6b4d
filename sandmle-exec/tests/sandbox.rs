//! Hostile programs against the process executor.
//!
//! With bubblewrap (installed by `.ci/run`; `SANDMLE_REQUIRE_BWRAP=1` makes
//! its absence a failure) a program that hunts for the answers must not
//! score better than chance. Without it (only when explicitly asked for),
//! the same program finds them — which is what the executor's `isolation`
//! field then says. `tests/doors.rs` holds one test per door of the threat
//! model.

use sandmle_core::testing::tiny_environment;
use sandmle_core::{Environment, ExecStatus, Execution, Grader, Program, WriteOptions};
use sandmle_exec::{Limits, ProcessExecutor, SandboxMode, bubblewrap_available};
use sandmle_metrics::StandardGrader;
use std::path::Path;
use std::time::{Duration, Instant};

fn breast_cancer() -> Environment {
    Environment::read(format!("{}/../examples/seeds/breast_cancer", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn bwrap_or_skip() -> bool {
    let ok = bubblewrap_available();
    if !ok {
        assert!(std::env::var_os("SANDMLE_REQUIRE_BWRAP").is_none(), "bubblewrap is required but cannot run here");
        eprintln!("bubblewrap cannot run here: the sandboxed half of this test is skipped");
    }
    ok
}

fn program(dir: &Path, script: &str, timeout: Duration) -> Program {
    std::fs::write(dir.join("main.sh"), script).unwrap();
    Program { command: vec!["sh".into(), "main.sh".into()], code_dir: dir.to_path_buf(), timeout }
}

fn run(mode: SandboxMode, limits: Limits, env: &Environment, script: &str, timeout: Duration) -> Execution {
    let code = tempfile::tempdir().unwrap();
    let exec = ProcessExecutor { limits, sandbox: mode, ..ProcessExecutor::default() };
    exec.run(&program(code.path(), script, timeout), &env.public_view()).unwrap()
}

/// Looks for the answers next to the public files, then anywhere it can
/// read, and submits the first file shaped like a submission; else the
/// sample submission.
const THIEF: &str = r#"
cp ../private/answers.csv submission.csv 2>/dev/null && exit 0
header=$(head -n 1 sample_submission.csv)
rows=$(wc -l < sample_submission.csv)
for dir in /tmp /work /home /root /; do
  for f in $(find "$dir" -xdev -name 'answers.csv*' 2>/dev/null); do
    case "$f" in *.gz) continue ;; esac
    if [ "$(head -n 1 "$f")" = "$header" ] && [ "$(wc -l < "$f")" = "$rows" ]; then
      cp "$f" submission.csv; exit 0
    fi
  done
done
cp sample_submission.csv submission.csv
"#;

#[test]
fn a_program_hunting_for_answers_scores_no_better_than_chance_in_the_sandbox() {
    let env = breast_cancer();
    // The environment, answers included, sits on this machine's disk.
    let stash = tempfile::tempdir().unwrap();
    env.write(stash.path().join("env"), &WriteOptions::default()).unwrap();

    // Unsandboxed, the thief finds the answers: the test has teeth.
    let open = run(SandboxMode::Unsandboxed, Limits::default(), &env, THIEF, Duration::from_secs(120));
    assert!(open.isolation.starts_with("none"), "{}", open.isolation);
    let r = StandardGrader.grade(&env.grading_task(), open.submission.as_ref().unwrap()).unwrap();
    assert_eq!(r.score, Some(1.0), "without a sandbox the answers are reachable");

    if !bwrap_or_skip() {
        return;
    }
    let boxed = run(SandboxMode::Required, Limits::default(), &env, THIEF, Duration::from_secs(120));
    assert_eq!(boxed.status, ExecStatus::Completed, "{}", boxed.stderr_tail);
    assert!(boxed.isolation.starts_with("bubblewrap"));
    let r = StandardGrader.grade(&env.grading_task(), boxed.submission.as_ref().unwrap()).unwrap();
    assert!(r.score.unwrap() <= 0.5, "the sandboxed thief scored {:?}", r.score);
}

fn processes_with(marker: &str) -> Vec<String> {
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

fn no_survivors_after_timeout(mode: SandboxMode, script: &str, marker: &str) {
    let env = tiny_environment();
    let timeout = Duration::from_secs(1);
    let start = Instant::now();
    let out = run(mode, Limits::default(), &env, script, timeout);
    assert_eq!(out.status, ExecStatus::TimedOut);
    assert!(start.elapsed() < timeout + Duration::from_secs(1), "returned after {:?}", start.elapsed());
    let survivors = processes_with(marker);
    assert!(survivors.is_empty(), "still running: {survivors:?}");
}

#[test]
fn sleeping_children_are_gone_within_a_second_of_the_timeout() {
    // Without a sandbox the process group is killed.
    no_survivors_after_timeout(
        SandboxMode::Unsandboxed,
        "sleep 4242 & sleep 4243 & (sleep 4244 &) ; sleep 4245\n",
        "sleep 424",
    );
    if bwrap_or_skip() {
        // In the sandbox even a child that starts its own session dies.
        no_survivors_after_timeout(
            SandboxMode::Required,
            "sleep 4252 & setsid sleep 4253 & (sleep 4254 &) ; sleep 4255\n",
            "sleep 425",
        );
    }
}

#[test]
fn a_memory_hog_is_stopped_and_reported() {
    let env = tiny_environment();
    let limits = Limits { address_space: 512 << 20, ..Limits::default() };
    let hog = "awk 'BEGIN { s = \"x\"; while (1) s = s s }'\ncp sample_submission.csv submission.csv\n";
    let hog = hog.replace("\ncp", " && cp");
    for mode in [SandboxMode::Unsandboxed, SandboxMode::Required] {
        if mode == SandboxMode::Required && !bwrap_or_skip() {
            continue;
        }
        let out = run(mode, limits, &env, &hog, Duration::from_secs(60));
        assert_eq!(out.status, ExecStatus::MemoryExceeded, "{mode:?}: {}", out.stderr_tail);
        assert!(out.submission.is_none());
    }
}

#[test]
fn a_huge_file_is_stopped_at_the_size_limit() {
    let env = tiny_environment();
    let limits = Limits { file_size: 10 << 20, ..Limits::default() };
    let script = "head -c 5000000000 /dev/zero > big.bin\ncp sample_submission.csv submission.csv\n";
    for mode in [SandboxMode::Unsandboxed, SandboxMode::Required] {
        if mode == SandboxMode::Required && !bwrap_or_skip() {
            continue;
        }
        let start = Instant::now();
        let out = run(mode, limits, &env, &script.replace("\ncp", " && cp"), Duration::from_secs(60));
        assert_eq!(out.status, ExecStatus::OutputLimitExceeded, "{mode:?}: {}", out.stderr_tail);
        assert!(start.elapsed() < Duration::from_secs(30));
    }
}

#[test]
fn a_program_ignoring_the_size_signal_is_still_reported() {
    // Python ignores SIGXFSZ and fails with "File too large" instead.
    let env = tiny_environment();
    let limits = Limits { file_size: 10 << 20, ..Limits::default() };
    let script = "python3 -c \"open('big.bin', 'wb').write(b'0' * 50000000)\"\n";
    let out = run(SandboxMode::Unsandboxed, limits, &env, script, Duration::from_secs(60));
    assert_eq!(out.status, ExecStatus::OutputLimitExceeded, "{}", out.stderr_tail);
}

#[test]
fn links_fifos_and_gzip_are_not_read_as_submissions() {
    let env = tiny_environment();
    for script in [
        "ln -s /etc/hostname submission.csv\n",
        "mkfifo submission.csv\n",
        "gzip -c sample_submission.csv > submission.csv\n",
    ] {
        let start = Instant::now();
        let out = run(SandboxMode::Unsandboxed, Limits::default(), &env, script, Duration::from_secs(30));
        assert!(matches!(out.status, ExecStatus::Failed { .. }), "{script}: {:?}", out.status);
        assert!(out.submission.is_none());
        assert!(start.elapsed() < Duration::from_secs(10), "{script}");
    }
}

#[test]
fn the_program_sees_no_host_environment_variables() {
    let env = tiny_environment();
    let out = run(
        SandboxMode::Unsandboxed,
        Limits::default(),
        &env,
        "env; cp sample_submission.csv submission.csv\n",
        Duration::from_secs(30),
    );
    let names: Vec<&str> = out.stdout_tail.lines().filter_map(|l| l.split('=').next()).collect();
    for name in &names {
        assert!(
            ["PATH", "HOME", "LANG", "SANDMLE_WORKSPACE", "PWD", "SHLVL", "_", "OLDPWD"].contains(name),
            "{name} leaked"
        );
    }
    assert!(!out.stdout_tail.contains("CARGO"), "{}", out.stdout_tail);
}

#[test]
fn a_well_behaved_program_is_graded() {
    let env = breast_cancer();
    for mode in [SandboxMode::Unsandboxed, SandboxMode::Required] {
        if mode == SandboxMode::Required && !bwrap_or_skip() {
            continue;
        }
        let out = run(
            mode,
            Limits::default(),
            &env,
            "echo hello; cp sample_submission.csv submission.csv\n",
            Duration::from_secs(30),
        );
        assert_eq!(out.status, ExecStatus::Completed);
        assert_eq!(out.stdout_tail.trim(), "hello");
        let r = StandardGrader.grade(&env.grading_task(), out.submission.as_ref().unwrap()).unwrap();
        assert_eq!(r.score, Some(0.5));
    }
    let out = run(SandboxMode::Unsandboxed, Limits::default(), &env, "exit 3\n", Duration::from_secs(30));
    assert!(matches!(out.status, ExecStatus::Failed { .. }));
    let out = run(SandboxMode::Unsandboxed, Limits::default(), &env, "true\n", Duration::from_secs(30));
    assert!(matches!(out.status, ExecStatus::Failed { ref reason } if reason.contains("no submission.csv")));
}
