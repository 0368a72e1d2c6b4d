//! The persistent workspace of an RL episode: files persist across runs,
//! written files never follow a run's links, and the directory goes when
//! the workspace is dropped.

use sandmle_core::testing::tiny_environment;
use sandmle_core::{ExecStatus, Executor, Workspace};
use sandmle_exec::{ProcessExecutor, bubblewrap_available};
use std::time::Duration;

fn bwrap_or_skip() -> bool {
    let ok = bubblewrap_available();
    if !ok {
        assert!(std::env::var_os("SANDMLE_REQUIRE_BWRAP").is_none(), "bubblewrap is required but cannot run here");
        eprintln!("bubblewrap cannot run here: this test is skipped");
    }
    ok
}

fn sh(script: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), script.into()]
}

#[test]
fn files_persist_across_runs_and_the_workspace_goes_on_drop() {
    if !bwrap_or_skip() {
        return;
    }
    let env = tiny_environment();
    let exec = ProcessExecutor::default();
    let dir = exec.open(&env.public_view()).unwrap().dir();
    assert!(!dir.exists(), "a dropped workspace is removed");
    let mut ws = exec.open_workspace(&env.public_view()).unwrap();
    assert!(!ws.has_submission());
    let first = ws.run(&sh("echo kept > notes.txt; pwd"), Duration::from_secs(30)).unwrap();
    assert_eq!(first.stdout_tail.trim(), "/workspace");
    // No submission yet: the run is a failure to produce one, not an error.
    assert!(matches!(first.status, ExecStatus::Failed { .. }), "{:?}", first.status);
    ws.write_file("step.py", b"print('hi')\n").unwrap();
    let second =
        ws.run(&sh("cat notes.txt step.py; cp sample_submission.csv submission.csv"), Duration::from_secs(30)).unwrap();
    assert_eq!(second.status, ExecStatus::Completed, "{}", second.stderr_tail);
    assert!(second.stdout_tail.contains("kept") && second.stdout_tail.contains("print('hi')"));
    assert!(ws.has_submission());
    assert_eq!(ws.submission().unwrap().unwrap().n_rows(), 4);
    assert!(ws.isolation().starts_with("bubblewrap"));
}

#[test]
fn written_files_replace_links_and_directories_without_following_them() {
    if !bwrap_or_skip() {
        return;
    }
    let env = tiny_environment();
    let target = std::env::temp_dir().join(format!("sandmle-victim-{}.txt", std::process::id()));
    std::fs::write(&target, "untouched").unwrap();
    let mut ws = ProcessExecutor::default().open(&env.public_view()).unwrap();
    // A link planted to a host file the program guessed: writing the
    // episode's file under that name must replace the link, not write
    // through it.
    std::os::unix::fs::symlink(&target, ws.dir().join("code.py")).unwrap();
    let run = ws.run(&sh("mkdir main.py"), Duration::from_secs(30)).unwrap();
    assert!(!matches!(run.status, ExecStatus::TimedOut));
    ws.write_file("main.py", b"x = 1\n").unwrap();
    ws.write_file("code.py", b"y = 2\n").unwrap();
    let check = ws.run(&sh("cat main.py code.py; test -L code.py && echo link"), Duration::from_secs(30)).unwrap();
    assert_eq!(check.stdout_tail, "x = 1\ny = 2\n");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "untouched");
    std::fs::remove_file(&target).ok();
    for bad in ["../x", "train.csv", "", ".hidden", "a/b"] {
        assert!(ws.write_file(bad, b"z").is_err(), "{bad}");
    }
}

#[test]
fn a_run_past_its_limit_times_out_and_the_next_run_still_works() {
    if !bwrap_or_skip() {
        return;
    }
    let env = tiny_environment();
    let mut ws = ProcessExecutor::default().open(&env.public_view()).unwrap();
    let slow = ws.run(&sh("sleep 30"), Duration::from_millis(300)).unwrap();
    assert_eq!(slow.status, ExecStatus::TimedOut);
    let next = ws.run(&sh("cp sample_submission.csv submission.csv"), Duration::from_secs(30)).unwrap();
    assert_eq!(next.status, ExecStatus::Completed);
}

#[test]
fn the_pipeline_executor_has_no_workspaces() {
    let env = tiny_environment();
    let err = sandmle_exec::PipelineExecutor::default().open_workspace(&env.public_view()).err().unwrap();
    assert!(err.to_string().contains("persistent workspaces"));
}
