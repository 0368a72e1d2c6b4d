//! Hostile programs against the process executor.
//!
//! With bubblewrap (installed by `.ci/run`; `SANDMLE_REQUIRE_BWRAP=1` makes
//! its absence a failure) a program that hunts for the answers must not
//! score better than chance. Without it (only when explicitly asked for),
//! the same program finds them — which is what the executor's `isolation`
//! field then says. `tests/doors.rs` holds one test per door of the threat
//! model. Every sandboxed program runs both cold and as a step on a
//! workspace's warm interpreter.

mod common;

use common::{STARTS, bwrap_or_skip, processes_with, run_sh};
use sandmle_core::testing::tiny_environment;
use sandmle_core::{Environment, ExecStatus, Execution, Grader, Program, WriteOptions};
use sandmle_exec::{Limits, ProcessExecutor, SandboxMode};
use sandmle_metrics::StandardGrader;
use std::path::Path;
use std::time::{Duration, Instant};

fn breast_cancer() -> Environment {
    Environment::read(format!("{}/../examples/seeds/breast_cancer", env!("CARGO_MANIFEST_DIR"))).unwrap()
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
    for start in STARTS {
        let boxed = run_sh(start, Limits::default(), &env, THIEF, Duration::from_secs(120));
        assert_eq!(boxed.status, ExecStatus::Completed, "{start:?}: {}", boxed.stderr_tail);
        assert!(boxed.isolation.starts_with("bubblewrap"));
        let r = StandardGrader.grade(&env.grading_task(), boxed.submission.as_ref().unwrap()).unwrap();
        assert!(r.score.unwrap() <= 0.5, "the sandboxed thief ({start:?}) scored {:?}", r.score);
    }
}

fn no_survivors_after_timeout(run: impl Fn(Duration) -> Execution, marker: &str) {
    let timeout = Duration::from_secs(1);
    let out = run(timeout);
    assert_eq!(out.status, ExecStatus::TimedOut);
    // From the start of the program (a warm interpreter's start, before it,
    // is the workspace's setup) to the return.
    let us: u64 = out.timings.phases.iter().filter(|(phase, _)| phase != "setup").map(|(_, us)| us).sum();
    let took = Duration::from_micros(us);
    assert!(took < timeout + Duration::from_secs(1), "returned after {took:?}");
    let survivors = processes_with(marker);
    assert!(survivors.is_empty(), "still running: {survivors:?}");
}

#[test]
fn sleeping_children_are_gone_within_a_second_of_the_timeout() {
    // Without a sandbox the process group is killed.
    let env = tiny_environment();
    no_survivors_after_timeout(
        |t| {
            run(
                SandboxMode::Unsandboxed,
                Limits::default(),
                &env,
                "sleep 4242 & sleep 4243 & (sleep 4244 &) ; sleep 4245\n",
                t,
            )
        },
        "sleep 424",
    );
    if bwrap_or_skip() {
        // In the sandbox even a child that starts its own session dies.
        for (start, n) in STARTS.into_iter().zip([5, 6]) {
            let script = format!("sleep 42{n}2 & setsid sleep 42{n}3 & (sleep 42{n}4 &) ; sleep 42{n}5\n");
            no_survivors_after_timeout(|t| run_sh(start, Limits::default(), &env, &script, t), &format!("sleep 42{n}"));
        }
    }
}

#[test]
fn a_memory_hog_is_stopped_and_reported() {
    let env = tiny_environment();
    let limits = Limits { address_space: 512 << 20, ..Limits::default() };
    let hog = "awk 'BEGIN { s = \"x\"; while (1) s = s s }'\ncp sample_submission.csv submission.csv\n";
    let hog = hog.replace("\ncp", " && cp");
    let mut runs = vec![("unsandboxed", run(SandboxMode::Unsandboxed, limits, &env, &hog, Duration::from_secs(60)))];
    if bwrap_or_skip() {
        for (start, name) in STARTS.into_iter().zip(["cold", "warm"]) {
            runs.push((name, run_sh(start, limits, &env, &hog, Duration::from_secs(60))));
        }
    }
    for (mode, out) in runs {
        assert_eq!(out.status, ExecStatus::MemoryExceeded, "{mode}: {}", out.stderr_tail);
        assert!(out.submission.is_none());
    }
}

#[test]
fn a_huge_file_is_stopped_at_the_size_limit() {
    let env = tiny_environment();
    let limits = Limits { file_size: 10 << 20, ..Limits::default() };
    let script = "head -c 5000000000 /dev/zero > big.bin && cp sample_submission.csv submission.csv\n";
    let sandbox = bwrap_or_skip();
    for mode in ["unsandboxed", "cold", "warm"] {
        let began = Instant::now();
        let out = match mode {
            "unsandboxed" => run(SandboxMode::Unsandboxed, limits, &env, script, Duration::from_secs(60)),
            _ if !sandbox => continue,
            "cold" => run_sh(STARTS[0], limits, &env, script, Duration::from_secs(60)),
            _ => run_sh(STARTS[1], limits, &env, script, Duration::from_secs(60)),
        };
        assert_eq!(out.status, ExecStatus::OutputLimitExceeded, "{mode}: {}", out.stderr_tail);
        assert!(began.elapsed() < Duration::from_secs(30));
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
    let script = "echo hello; cp sample_submission.csv submission.csv\n";
    let mut runs = vec![run(SandboxMode::Unsandboxed, Limits::default(), &env, script, Duration::from_secs(30))];
    if bwrap_or_skip() {
        runs.extend(STARTS.map(|start| run_sh(start, Limits::default(), &env, script, Duration::from_secs(30))));
    }
    for out in runs {
        assert_eq!(out.status, ExecStatus::Completed, "{}", out.stderr_tail);
        assert_eq!(out.stdout_tail.trim(), "hello");
        let r = StandardGrader.grade(&env.grading_task(), out.submission.as_ref().unwrap()).unwrap();
        assert_eq!(r.score, Some(0.5));
    }
    let out = run(SandboxMode::Unsandboxed, Limits::default(), &env, "exit 3\n", Duration::from_secs(30));
    assert!(matches!(out.status, ExecStatus::Failed { .. }));
    let out = run(SandboxMode::Unsandboxed, Limits::default(), &env, "true\n", Duration::from_secs(30));
    assert!(matches!(out.status, ExecStatus::Failed { ref reason } if reason.contains("no submission.csv")));
}
