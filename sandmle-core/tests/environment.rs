//! Writing, reading and tamper detection of the environment format.

use sandmle_core::testing::tiny_environment;
use sandmle_core::{Environment, Error, Leaderboard, LeaderboardEntry, WriteOptions};
use std::path::{Path, PathBuf};

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() { stack.push(p) } else { out.push(p) }
        }
    }
    out.sort();
    out
}

fn env_with_leaderboard() -> Environment {
    let mut env = tiny_environment();
    env.leaderboard = Some(Leaderboard {
        entries: vec![
            LeaderboardEntry { name: "forest".into(), score: 0.9 },
            LeaderboardEntry { name: "prior".into(), score: 0.5 },
        ],
    });
    env
}

#[test]
fn write_then_read_gives_the_same_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let env = env_with_leaderboard();
    let dir = env.write_into(tmp.path(), &WriteOptions::default()).unwrap();
    assert_eq!(dir.file_name().unwrap().to_str().unwrap(), env.id().unwrap());
    let back = Environment::read(&dir).unwrap();
    assert_eq!(back.train, env.train);
    assert_eq!(back.test, env.test);
    assert_eq!(back.answers, env.answers);
    assert_eq!(back.leaderboard, env.leaderboard);
    assert_eq!(back.provenance, env.provenance);
    assert_eq!(back.description, env.description);
    // Nothing but the environment is left in the parent directory.
    let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn flipping_any_byte_of_any_file_is_a_hash_mismatch_naming_that_file() {
    let tmp = tempfile::tempdir().unwrap();
    let env = env_with_leaderboard();
    let dir = env.write_into(tmp.path(), &WriteOptions::default()).unwrap();
    let files = files_under(&dir);
    assert_eq!(files.len(), 8, "{files:?}");
    for file in &files {
        let original = std::fs::read(file).unwrap();
        // First, middle and last byte of every file.
        for at in [0, original.len() / 2, original.len() - 1] {
            let mut bytes = original.clone();
            bytes[at] ^= 0x01;
            std::fs::write(file, &bytes).unwrap();
            match Environment::read(&dir) {
                Err(Error::HashMismatch { path, .. }) => assert_eq!(&path, file, "byte {at}"),
                other => panic!("{}: byte {at}: expected a hash mismatch, got {other:?}", file.display()),
            }
            std::fs::write(file, &original).unwrap();
        }
    }
    Environment::read(&dir).unwrap();
}

#[test]
fn a_missing_file_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tiny_environment().write_into(tmp.path(), &WriteOptions::default()).unwrap();
    let answers = dir.join("prepared/private/answers.csv");
    std::fs::remove_file(&answers).unwrap();
    assert!(matches!(Environment::read(&dir), Err(Error::MissingFile { path }) if path == answers));
}

#[test]
fn existing_destination_needs_overwrite() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("env");
    let mut env = tiny_environment();
    env.write(&dir, &WriteOptions::default()).unwrap();
    assert!(matches!(env.write(&dir, &WriteOptions::default()), Err(Error::AlreadyExists { .. })));
    std::fs::write(dir.join("SOURCE.md"), "where it came from").unwrap();
    env.description = "# Changed\n".into();
    env.write(&dir, &WriteOptions { overwrite: true, ..Default::default() }).unwrap();
    assert_eq!(Environment::read(&dir).unwrap().description, "# Changed\n");
    assert_eq!(std::fs::read_to_string(dir.join("SOURCE.md")).unwrap(), "where it came from", "kept beside prepared/");
    let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("env")]);
}

#[test]
fn an_inconsistent_environment_is_not_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("env");
    let mut env = tiny_environment();
    env.test = env.train.clone();
    assert!(matches!(env.write(&dir, &WriteOptions::default()), Err(Error::InvalidEnvironment { .. })));
    assert!(!dir.exists());
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn same_environment_gives_the_same_bytes_and_gzip_reads_back() {
    let env = env_with_leaderboard();
    let a = env.render(&WriteOptions::default()).unwrap();
    let b = env.render(&WriteOptions::default()).unwrap();
    assert_eq!(a, b);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("gz");
    env.write(&dir, &WriteOptions { gzip_over_bytes: Some(0), ..Default::default() }).unwrap();
    assert!(dir.join("prepared/public/train.csv.gz").exists());
    assert_eq!(Environment::read(&dir).unwrap().train, env.train);
}

#[test]
fn unsupported_schema_version_is_a_typed_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("env");
    let mut env = tiny_environment();
    env.grading.schema_version = 99;
    // The writer always stamps the current version; edit the file by hand
    // and re-stamp its own hash so that only the version is wrong.
    env.write(&dir, &WriteOptions::default()).unwrap();
    let path = dir.join("prepared/private/grading.json");
    let text = std::fs::read_to_string(&path).unwrap().replace("\"schema_version\": 1", "\"schema_version\": 99");
    let at = text.rfind("\"self_sha256\": \"").unwrap() + 16;
    let mut zeroed = text.clone();
    zeroed.replace_range(at..at + 64, &"0".repeat(64));
    let mut fixed = text.clone();
    fixed.replace_range(at..at + 64, &sandmle_core::sha256_hex(zeroed.as_bytes()));
    std::fs::write(&path, fixed).unwrap();
    assert!(matches!(Environment::read(&dir), Err(Error::SchemaVersion { found: 99, .. })));
}

#[test]
fn grading_bundle_reads_and_checks_only_private_files() {
    let tmp = tempfile::tempdir().unwrap();
    let env = env_with_leaderboard();
    let dir = env.write_into(tmp.path(), &WriteOptions::default()).unwrap();
    let bundle = sandmle_core::GradingBundle::read(&dir).unwrap();
    assert_eq!(bundle.answers, env.answers);
    assert_eq!(bundle.leaderboard, env.leaderboard);
    // A changed public file does not concern grading...
    std::fs::write(dir.join("prepared/public/train.csv"), "changed").unwrap();
    sandmle_core::GradingBundle::read(&dir).unwrap();
    // ...a changed answers file does.
    let answers = dir.join("prepared/private/answers.csv");
    let mut bytes = std::fs::read(&answers).unwrap();
    bytes[5] ^= 1;
    std::fs::write(&answers, bytes).unwrap();
    assert!(
        matches!(sandmle_core::GradingBundle::read(&dir), Err(Error::HashMismatch { path, .. }) if path == answers)
    );
}

#[test]
fn an_environment_without_test_rows_is_invalid() {
    let mut env = tiny_environment();
    env.test = env.test.take(&[]).unwrap();
    env.answers = env.answers.take(&[]).unwrap();
    env.sample_submission = env.sample_submission.take(&[]).unwrap();
    assert!(matches!(env.validate(), Err(Error::InvalidEnvironment { .. })));
}

/// A copy of the answers dropped into `public/` (with every hash still
/// right) is refused when the environment is read, so no tool serves it.
#[test]
fn an_unlisted_file_in_prepared_is_refused() {
    let env = tiny_environment();
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("env");
    env.write(&dir, &WriteOptions::default()).unwrap();
    Environment::read(&dir).unwrap();
    let copy = dir.join("prepared/public/answers_copy.csv");
    std::fs::copy(dir.join("prepared/private/answers.csv"), &copy).unwrap();
    match Environment::read(&dir) {
        Err(Error::UnlistedFile { path }) => assert_eq!(path, copy),
        other => panic!("{other:?}"),
    }
    std::fs::remove_file(&copy).unwrap();
    std::fs::create_dir(dir.join("prepared/private/notes")).unwrap();
    assert!(matches!(Environment::read(&dir), Err(Error::UnlistedFile { .. })));
}

/// The id column of `t` replaced by these ids (`None`: an empty cell).
fn with_ids(t: &sandmle_core::Table, ids: &[Option<&str>]) -> sandmle_core::Table {
    let mut columns = vec![("id".to_string(), sandmle_core::Column::text(ids.iter().copied()))];
    for n in t.names().iter().filter(|n| *n != "id") {
        columns.push((n.clone(), t.column(n).unwrap().clone()));
    }
    sandmle_core::Table::from_columns(columns).unwrap()
}

fn invalid(env: &Environment) -> String {
    match env.validate() {
        Err(Error::InvalidEnvironment { reason }) => reason,
        other => panic!("expected InvalidEnvironment, got {other:?}"),
    }
}

#[test]
fn validation_names_the_first_repeated_id_going_down() {
    let mut env = tiny_environment();
    env.test = with_ids(&env.test, &[Some("r6"), Some("r9"), Some("r9"), Some("r6")]);
    assert_eq!(invalid(&env), "test.csv repeats id `r9`");
    // Rows without an id are skipped, above or below the repeat.
    env.test = with_ids(&env.test, &[None, Some("r7"), Some("r8"), Some("r7")]);
    assert_eq!(invalid(&env), "test.csv repeats id `r7`");
    env.test = with_ids(&env.test, &[Some("r7"), Some("r8"), Some("r7"), None]);
    assert_eq!(invalid(&env), "test.csv repeats id `r7`");
}

#[test]
fn validation_compares_the_test_ids_of_three_tables() {
    let mut env = tiny_environment();
    assert!(env.validate().is_ok());
    let good = env.answers.clone();
    env.answers = with_ids(&good, &[Some("r9"), Some("r8"), Some("r7"), Some("r6")]);
    assert!(env.validate().is_ok(), "the same ids in another order");
    env.answers = with_ids(&good, &[Some("r9"), Some("r8"), Some("r7"), Some("r5")]);
    assert_eq!(invalid(&env), "answers.csv does not hold exactly the ids of test.csv");
    env.answers = good;
    let sample = env.sample_submission.clone();
    env.sample_submission = sample.take(&[0, 1, 2]).unwrap();
    assert_eq!(invalid(&env), "sample_submission.csv does not hold exactly the ids of test.csv");
    env.sample_submission = sample;
    // The same present ids and row counts, one cell empty in each: accepted,
    // as before the indexed checks.
    for t in [&mut env.test, &mut env.sample_submission, &mut env.answers] {
        *t = with_ids(t, &[Some("r6"), None, Some("r8"), Some("r9")]);
    }
    assert!(env.validate().is_ok());
    env.answers = with_ids(&env.answers, &[Some("r6"), Some("r7"), Some("r8"), Some("r9")]);
    assert_eq!(invalid(&env), "answers.csv does not hold exactly the ids of test.csv");
}

#[test]
fn validation_refuses_ids_in_both_splits() {
    let mut env = tiny_environment();
    let ids = [Some("r6"), Some("r7"), Some("r3"), Some("r9")];
    env.test = with_ids(&env.test, &ids);
    env.sample_submission = with_ids(&env.sample_submission, &ids);
    env.answers = with_ids(&env.answers, &ids);
    assert_eq!(invalid(&env), "train.csv and test.csv share ids");
    // With a missing id somewhere, through sets.
    env.train = with_ids(&env.train, &[Some("r0"), None, Some("r2"), Some("r3"), Some("r4"), Some("r5")]);
    assert_eq!(invalid(&env), "train.csv and test.csv share ids");
    env.train = with_ids(&env.train, &[Some("r0"), None, Some("r2"), Some("r10"), Some("r4"), Some("r5")]);
    assert!(env.validate().is_ok());
}

/// Lists `rel` in `grading.json` with the hash of the file there, and
/// reseals `grading.json` (its own hash recomputed), as someone who edits
/// an environment by hand would.
fn reseal_with(dir: &std::path::Path, rel: &str) {
    let zero = "0".repeat(64);
    let g = dir.join("prepared/private/grading.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&g).unwrap()).unwrap();
    let bytes = std::fs::read(dir.join(rel)).unwrap();
    v["files"][rel] = serde_json::Value::String(sandmle_core::sha256_hex(&bytes));
    v["self_sha256"] = serde_json::Value::String(zero.clone());
    let text = serde_json::to_string_pretty(&v).unwrap();
    let hash = sandmle_core::sha256_hex(text.as_bytes());
    std::fs::write(&g, text.replace(&zero, &hash)).unwrap();
}

/// The answers copied to `public/extra.csv`, listed in `grading.json` and
/// resealed, passed every check and every gate; an environment's public
/// files are a closed set, so it is refused and named.
#[test]
fn a_listed_and_resealed_extra_public_file_is_refused_and_named() {
    let env = tiny_environment();
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("env");
    env.write(&dir, &WriteOptions::default()).unwrap();
    let extra = dir.join("prepared/public/extra.csv");
    std::fs::copy(dir.join("prepared/private/answers.csv"), &extra).unwrap();
    reseal_with(&dir, "prepared/public/extra.csv");
    match Environment::read(&dir) {
        Err(Error::UnexpectedPublicFile { path }) => assert_eq!(path, extra),
        other => panic!("{other:?}"),
    }
    // Without the extra file, the resealed spec reads (the file is missing).
    std::fs::remove_file(&extra).unwrap();
    assert!(matches!(Environment::read(&dir), Err(Error::MissingFile { .. })));
}

/// Rows sharing files by a key column: every key needs its file, no file
/// may belong to no key, and a key that looks like a number (`0`) still
/// names `0.png` after a write and a read.
#[test]
fn rows_sharing_files_by_a_key_column_round_trip_and_are_checked() {
    use sandmle_core::{Column, ImageSet, testing::tiny_image_environment};
    let mut env = tiny_image_environment();
    let key = |n: usize| Column::Text((0..n).map(|r| Some(((r % 2) as u32).to_string().into())).collect());
    env.train.push_column("group", key(env.train.n_rows())).unwrap();
    env.test.push_column("group", key(env.test.n_rows())).unwrap();
    env.grading.task.images.as_mut().unwrap().key_column = Some("group".into());
    let e = env.validate().unwrap_err().to_string();
    assert!(e.contains("the group column must be `group`"), "{e}");
    env.grading.task.group_column = Some("group".into());
    let bytes = env.images.iter().next().map(|(_, b)| b.to_vec()).unwrap();
    let mut images = ImageSet::new();
    images.insert("0.png", bytes.clone()).unwrap();
    env.images = images.clone();
    let e = env.validate().unwrap_err().to_string();
    assert!(e.contains("no image `images/1.png` for group `1`"), "{e}");
    images.insert("1.png", bytes.clone()).unwrap();
    let mut extra = images.clone();
    extra.insert("2.png", bytes).unwrap();
    env.images = extra;
    let e = env.validate().unwrap_err().to_string();
    assert!(e.contains("`images/2.png` belongs to no row"), "{e}");
    env.images = images;
    env.validate().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = env.write_into(tmp.path(), &WriteOptions::default()).unwrap();
    let back = Environment::read(&dir).unwrap();
    assert_eq!(back.train.column("group").unwrap().get_str(0).unwrap(), "0");
    assert_eq!(back.images.len(), 2);
    // A key column missing from test.csv is named.
    let mut broken = back.clone();
    broken.test = broken.test.without(&["group".to_string()]);
    let e = broken.validate().unwrap_err().to_string();
    assert!(e.contains("group column `group` is not in both train.csv and test.csv"), "{e}");
}
