//! Interrupted writes, clobbering outputs and unreadable inputs.

use sandmle_core::scratch::{MARKER, MarkedDir, WRITING_PREFIX};
use sandmle_core::testing::tiny_environment;
use sandmle_core::{Environment, Error, GradingBundle, Leaderboard, WriteOptions};
use std::path::Path;

fn write(env: &Environment, dir: &Path, overwrite: bool) -> sandmle_core::Result<()> {
    env.write(dir, &WriteOptions { overwrite, ..WriteOptions::default() })
}

/// What a writer killed mid-write leaves: a copy of a complete environment
/// in a `.sandmle-writing-*` directory whose marker nobody holds.
fn abandoned_write(parent: &Path) -> std::path::PathBuf {
    let env = tiny_environment();
    let stale = parent.join(format!("{WRITING_PREFIX}killed"));
    write(&env, &parent.join("scratch"), false).unwrap();
    std::fs::rename(parent.join("scratch"), &stale).unwrap();
    std::fs::write(stale.join(MARKER), "").unwrap();
    stale
}

#[test]
fn a_stale_temporary_directory_is_refused_as_an_environment_and_reclaimed() {
    let parent = tempfile::tempdir().unwrap();
    let stale = abandoned_write(parent.path());
    for e in [Environment::read(&stale).unwrap_err(), GradingBundle::read(&stale).unwrap_err()] {
        assert!(matches!(e, Error::InvalidEnvironment { ref reason } if reason.contains("unfinished write")), "{e}");
    }
    // Renamed to look like an environment, its marker still gives it away.
    let renamed = parent.path().join("looks-fine");
    std::fs::rename(&stale, &renamed).unwrap();
    assert!(matches!(Environment::read(&renamed), Err(Error::InvalidEnvironment { .. })));
    std::fs::rename(&renamed, &stale).unwrap();

    // A live writer's directory beside it is left alone.
    let live = MarkedDir::new_in(parent.path(), WRITING_PREFIX).unwrap();
    write(&tiny_environment(), &parent.path().join("env"), false).unwrap();
    assert!(!stale.exists(), "the dead writer's directory is reclaimed by the next write");
    assert!(live.path().join(MARKER).is_file(), "a live writer's directory is kept");
    let left: Vec<_> = std::fs::read_dir(parent.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(".sandmle"))
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    // The finished environment carries no marker.
    assert!(!parent.path().join("env").join(MARKER).exists());
    Environment::read(parent.path().join("env")).unwrap();
}

#[test]
fn environment_writes_never_replace_other_directories_or_write_into_environments() {
    let parent = tempfile::tempdir().unwrap();
    let env = tiny_environment();
    // A directory of someone else's files is not swapped away.
    let home = parent.path().join("home");
    std::fs::create_dir(&home).unwrap();
    std::fs::write(home.join("notes.txt"), "mine").unwrap();
    let e = write(&env, &home, true).unwrap_err();
    assert!(matches!(e, Error::UnsafeOutput { .. }), "{e}");
    assert_eq!(std::fs::read_to_string(home.join("notes.txt")).unwrap(), "mine");
    // Nor a file or a device.
    let e = write(&env, Path::new("/dev/null"), true).unwrap_err();
    assert!(matches!(e, Error::UnsafeOutput { .. }), "{e}");
    // Nor inside an environment.
    let dir = parent.path().join("env");
    write(&env, &dir, false).unwrap();
    for inner in ["prepared/private/answers.csv", "prepared/private/nested", "prepared/public/x"] {
        let e = write(&env, &dir.join(inner), true).unwrap_err();
        assert!(matches!(e, Error::UnsafeOutput { .. }), "{inner}: {e}");
    }
    let e = sandmle_core::csv::write_csv(&env.sample_submission, dir.join("prepared/private/answers.csv")).unwrap_err();
    assert!(matches!(e, Error::UnsafeOutput { .. }), "{e}");
    // An environment is replaced.
    write(&env, &dir, true).unwrap();
    Environment::read(&dir).unwrap();
}

#[test]
fn fifos_are_refused_as_inputs_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.csv");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let opts = sandmle_core::csv::ReadOptions::default();
    assert!(matches!(sandmle_core::csv::read_csv(&fifo, &opts), Err(Error::NotRegularFile { .. })));
    assert!(matches!(Leaderboard::read(&fifo), Err(Error::NotRegularFile { .. })));
    assert!(matches!(sandmle_core::csv::read_csv("/dev/zero", &opts), Err(Error::NotRegularFile { .. })));
    // An environment whose answers were replaced by a FIFO.
    let env_dir = dir.path().join("env");
    tiny_environment().write(&env_dir, &WriteOptions::default()).unwrap();
    let answers = env_dir.join("prepared/private/answers.csv");
    std::fs::remove_file(&answers).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&answers).status().unwrap().success());
    assert!(matches!(GradingBundle::read(&env_dir), Err(Error::NotRegularFile { .. })));
}
