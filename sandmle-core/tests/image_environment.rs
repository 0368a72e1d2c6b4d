//! The image files of an image task: written beside the tables, covered by
//! the manifest, and every change to the folder caught on reading.

use sandmle_core::testing::tiny_image_environment;
use sandmle_core::{Environment, Error, WriteOptions, decode_png};

fn written() -> (tempfile::TempDir, std::path::PathBuf, Environment) {
    let tmp = tempfile::tempdir().unwrap();
    let env = tiny_image_environment();
    let dir = env.write_into(tmp.path(), &WriteOptions::default()).unwrap();
    (tmp, dir, env)
}

#[test]
fn images_round_trip_with_their_manifest() {
    let (_tmp, dir, env) = written();
    assert_eq!(env.images.len(), 10);
    let mut back = Environment::read(&dir).unwrap();
    back.grading.files.clear();
    assert_eq!(back, env);
    let png = std::fs::read(dir.join("prepared/public/images/r3.png")).unwrap();
    assert_eq!(decode_png(&png, "r3.png").unwrap().at(0, 0, 0), 203);
    let manifest = std::fs::read_to_string(dir.join("prepared/private/images.sha256")).unwrap();
    assert_eq!(manifest.lines().count(), 10);
    let grading = std::fs::read_to_string(dir.join("prepared/private/grading.json")).unwrap();
    assert!(grading.contains("images.sha256") && !grading.contains("r3.png"), "grading.json stays small");
}

#[test]
fn a_changed_image_is_caught() {
    let (_tmp, dir, _) = written();
    let path = dir.join("prepared/public/images/r7.png");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 20;
    bytes[last] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    assert!(matches!(Environment::read(&dir), Err(Error::HashMismatch { path: p, .. }) if p.ends_with("r7.png")));
}

#[test]
fn an_added_or_removed_image_is_caught() {
    let (_tmp, dir, _) = written();
    let images = dir.join("prepared/public/images");
    std::fs::copy(images.join("r1.png"), images.join("r99.png")).unwrap();
    assert!(matches!(Environment::read(&dir), Err(Error::UnlistedFile { .. })));
    std::fs::remove_file(images.join("r99.png")).unwrap();
    std::fs::remove_file(images.join("r2.png")).unwrap();
    assert!(matches!(Environment::read(&dir), Err(Error::MissingFile { .. })));
}

#[test]
fn a_copy_of_the_answers_in_the_image_folder_is_refused() {
    let (_tmp, dir, _) = written();
    std::fs::copy(dir.join("prepared/private/answers.csv"), dir.join("prepared/public/images/answers.csv")).unwrap();
    assert!(matches!(Environment::read(&dir), Err(Error::UnlistedFile { .. })));
}

#[test]
fn rows_and_images_must_match() {
    let mut env = tiny_image_environment();
    let mut fewer = sandmle_core::ImageSet::new();
    for (name, bytes) in env.images.iter().skip(1) {
        fewer.insert(name, bytes.to_vec()).unwrap();
    }
    env.images = fewer;
    assert!(matches!(env.validate(), Err(Error::InvalidEnvironment { .. })));
    let mut tabular = sandmle_core::testing::tiny_environment();
    tabular.images = tiny_image_environment().images;
    assert!(matches!(tabular.validate(), Err(Error::InvalidEnvironment { .. })));
}
