//! Careless callers and hostile programs at the command line: no silent
//! fallback, no inherited descriptors, no clobbering writes, no hanging
//! reads, no unbounded counts. Every command runs under a timeout, so a
//! regression that hangs fails instead.

mod common;

use common::seed;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `cmd` with no standard input, failing the test if it takes more
/// than a minute (the commands here take well under a second).
fn bounded(mut cmd: Command) -> Output {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("hung: {cmd:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn sandmle(args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sandmle"));
    cmd.args(args);
    bounded(cmd)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

fn bwrap_works() -> bool {
    let ok = sandmle_exec::bubblewrap_available();
    assert!(ok || std::env::var_os("SANDMLE_REQUIRE_BWRAP").is_none(), "bubblewrap is required but cannot run here");
    ok
}

#[test]
fn a_broken_sandbox_is_refused_with_exit_2_unless_unsandboxed_is_asked_for() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("bin");
    std::fs::create_dir(&fake).unwrap();
    std::fs::write(fake.join("bwrap"), "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
        .unwrap();
    std::fs::set_permissions(fake.join("bwrap"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let proof = dir.path().join("ran");
    let code = dir.path().join("code");
    std::fs::create_dir(&code).unwrap();
    let script = format!("touch {}; cp sample_submission.csv submission.csv\n", proof.display());
    std::fs::write(code.join("main.sh"), script).unwrap();
    let path = format!("{}:{}", fake.display(), std::env::var("PATH").unwrap_or_default());
    let run = |extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sandmle"));
        cmd.args(["run", "--env", &seed("wine"), "--command", "sh main.sh", "--code-dir"])
            .arg(&code)
            .args(extra)
            .env("PATH", &path);
        bounded(cmd)
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no sandbox") && stderr(&out).contains("Permission denied"), "{}", stderr(&out));
    assert!(!proof.exists(), "the program ran without its sandbox");
    let out = run(&["--unsandboxed"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("WITHOUT a sandbox"), "{}", stderr(&out));
    assert!(proof.exists());
}

#[test]
fn a_descriptor_the_caller_left_open_is_unreachable() {
    if !bwrap_works() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("secret"), "SECRET-ANSWERS\n").unwrap();
    let code = dir.path().join("code");
    std::fs::create_dir(&code).unwrap();
    std::fs::write(
        code.join("main.sh"),
        "cat /proc/self/fd/7 /dev/fd/7 2>&1; cat <&7 2>&1; cp sample_submission.csv submission.csv\n",
    )
    .unwrap();
    // A harness shell that opened the answers on descriptor 7.
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "exec 7<{}; exec \"$0\" run --env {} --command 'sh main.sh' --code-dir {} --json",
            dir.path().join("secret").display(),
            seed("wine"),
            code.display()
        ))
        .arg(env!("CARGO_BIN_EXE_sandmle"));
    let out = bounded(cmd);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("stdout_tail"), "{stdout}");
    assert!(!stdout.contains("SECRET-ANSWERS"), "the program read descriptor 7: {stdout}");
}

#[test]
fn out_never_replaces_devices_or_an_environments_answers() {
    let dir = tempfile::tempdir().unwrap();
    // A copy of a seed to attack.
    let env = dir.path().join("wine");
    copy(Path::new(&seed("wine")), &env);
    let answers = env.join("prepared/private/answers.csv");
    let before = std::fs::read(&answers).unwrap();
    let spec = dir.path().join("spec.json");
    std::fs::write(&spec, r#"{"model": {"type": "logistic_regression"}}"#).unwrap();
    for target in ["/dev/null", "/dev/full", answers.to_str().unwrap()] {
        let out =
            sandmle(&["run", "--env", env.to_str().unwrap(), "--pipeline", spec.to_str().unwrap(), "--out", target]);
        assert_eq!(out.status.code(), Some(2), "{target}: {}", stderr(&out));
        assert!(stderr(&out).contains("refusing to write"), "{target}: {}", stderr(&out));
    }
    assert_eq!(std::fs::read(&answers).unwrap(), before, "the answers were overwritten");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/full").unwrap().file_type().is_char_device());
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn fifos_and_devices_are_refused_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.csv");
    mkfifo(&fifo);
    let sub = dir.path().join("sub.csv");
    std::fs::write(&sub, "id,y\n1,0.5\n").unwrap();
    let (f, s) = (fifo.to_str().unwrap(), sub.to_str().unwrap());
    for args in [
        vec!["score", "--metric", "rmse", "--answers", f, "--submission", s],
        vec!["score", "--metric", "rmse", "--answers", "/dev/zero", "--submission", s],
        vec!["thresholds", "--leaderboard", f],
        vec!["thresholds", "--leaderboard", "/dev/zero"],
        vec!["run", "--env", &seed("wine"), "--pipeline", f],
    ] {
        let out = sandmle(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("not a regular file"), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn huge_counts_are_usage_errors() {
    let out = dir_arg();
    for count in ["18446744073709551615", "1000000000", "0"] {
        let args = ["generate", "--seed-env", &seed("wine"), "--per-seed", count, "--seed", "1", "--out", &out];
        let o = sandmle(&args);
        assert_eq!(o.status.code(), Some(2), "--per-seed {count}: {}", stderr(&o));
    }
    let o = sandmle(&["shrink", "--seed-env", &seed("wine"), "--seed", "1", "--train-rows", "100000", "--out", &out]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = sandmle(&["panel", "--env", &seed("wine"), "--max-train-rows", "18446744073709551615"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

fn dir_arg() -> String {
    std::env::temp_dir().join("sandmle-cli-doors-unused").display().to_string()
}

#[test]
fn a_stale_temporary_directory_is_not_an_environment() {
    let dir = tempfile::tempdir().unwrap();
    let stale = dir.path().join(".sandmle-writing-abc123");
    copy(Path::new(&seed("wine")), &stale);
    let sub = stale.join("prepared/public/sample_submission.csv");
    let out = sandmle(&["evaluate", "--env", stale.to_str().unwrap(), "--submission_path", sub.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("unfinished write"), "{}", stderr(&out));
}
