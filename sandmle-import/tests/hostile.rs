//! Competitions built to break the import, each pinned by the failure it
//! caused: a panic, unbounded memory, or an environment that was wrong
//! (test rows among the training rows, rows matched by position, the
//! answers shown to agents). Each must now be one clear error, or the
//! right environment.

use sandmle_core::{MetricSpec, Pixels, encode_png};
use sandmle_import::{Error, ImportOptions, TrainSource, import};
use std::path::Path;

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn options(dir: &Path, metric: &str) -> ImportOptions {
    ImportOptions { competition: dir.to_owned(), metric: Some(MetricSpec::named(metric)), ..ImportOptions::default() }
}

/// 40 training rows `tr0..`, 20 test rows `te0..`, labels `a`/`b`.
fn tabular(dir: &Path) {
    let public = dir.join("prepared/public");
    let mut train = String::from("id,feature,label\n");
    for i in 0..40 {
        train.push_str(&format!("tr{i},{}.0,{}\n", i % 7, if i % 2 == 0 { "a" } else { "b" }));
    }
    let mut test = String::from("id,feature\n");
    let (mut sample, mut answers) = (String::from("id,label\n"), String::from("id,label\n"));
    for i in 0..20 {
        test.push_str(&format!("te{i},{}.0\n", i % 5));
        sample.push_str(&format!("te{i},a\n"));
        answers.push_str(&format!("te{i},{}\n", if i % 3 == 0 { "a" } else { "b" }));
    }
    write(&public.join("train.csv"), train);
    write(&public.join("test.csv"), test);
    write(&public.join("sample_submission.csv"), sample);
    write(&public.join("description.md"), "# Rows\n");
    write(&dir.join("prepared/private/answers.csv"), answers);
}

fn npy_header(descr: &str, shape: &str) -> Vec<u8> {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&u16::try_from(header.len()).unwrap().to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out
}

/// A shape whose product overflows panicked on an index out of bounds; a
/// zero-size string type grew without bound; a shape of millions of
/// columns and no rows took a gigabyte.
#[test]
fn npy_headers_that_claim_more_than_the_file_holds_are_refused() {
    for (descr, shape) in [("<f8", "(2, 9223372036854775808)"), ("|S0", "(1000000000000,)"), ("<f8", "(0, 3000000)")] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("c");
        tabular(&dir);
        std::fs::remove_file(dir.join("prepared/public/train.csv")).unwrap();
        write(&dir.join("prepared/public/train.npy"), npy_header(descr, shape));
        let e = import(&options(&dir, "accuracy")).unwrap_err();
        assert!(matches!(e, Error::File { .. }), "{descr} {shape}: {e}");
        assert!(e.to_string().contains("train.npy"), "{e}");
    }
}

/// Small integer types were refused though the docs said numbers are read.
#[test]
fn npy_arrays_of_small_integers_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    tabular(&dir);
    let mut bytes = npy_header("<i4", "(40,)");
    for i in 0..40i32 {
        bytes.extend_from_slice(&(i * 3).to_le_bytes());
    }
    write(&dir.join("prepared/public/train_labels_extra.npy"), &bytes);
    let files = sandmle_import::Files::scan(&dir, sandmle_import::Budget::default()).unwrap();
    let table = sandmle_import::read_table(&files, "public/train_labels_extra.npy", &Default::default()).unwrap();
    assert_eq!(table.numeric("train_labels_extra").unwrap()[5], 15.0);
}

/// An AIFF clip with a sample rate of 0 made the decoder panic.
#[test]
fn an_aiff_clip_with_no_sample_rate_is_refused() {
    let mut comm = Vec::new();
    comm.extend_from_slice(&1u16.to_be_bytes()); // channels
    comm.extend_from_slice(&4u32.to_be_bytes()); // frames
    comm.extend_from_slice(&16u16.to_be_bytes()); // bits
    comm.extend_from_slice(&[0u8; 10]); // sample rate 0.0 (80-bit)
    let mut ssnd = vec![0u8; 8];
    ssnd.extend_from_slice(&[0u8; 8]);
    let mut body = b"AIFF".to_vec();
    for (id, chunk) in [(b"COMM", &comm), (b"SSND", &ssnd)] {
        body.extend_from_slice(id);
        body.extend_from_slice(&u32::try_from(chunk.len()).unwrap().to_be_bytes());
        body.extend_from_slice(chunk);
    }
    let mut file = b"FORM".to_vec();
    file.extend_from_slice(&u32::try_from(body.len()).unwrap().to_be_bytes());
    file.extend_from_slice(&body);
    let e = sandmle_core::decode_audio(&file, "clip.aif").unwrap_err();
    assert!(e.to_string().contains("clip.aif"), "{e}");
}

/// Images of both splits under one folder: the test images became
/// training rows labelled `test`.
#[test]
fn a_test_folder_inside_a_shared_folder_gives_no_training_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let public = dir.join("prepared/public");
    let png = |v: u8| encode_png(&Pixels { width: 2, height: 2, channels: 1, data: vec![v; 4] }).unwrap();
    for i in 0..6u8 {
        write(&public.join(format!("images/train/cat/c{i}.png")), png(i));
        write(&public.join(format!("images/train/dog/d{i}.png")), png(100 + i));
    }
    let (mut sample, mut answers) = (String::from("id,label\n"), String::from("id,label\n"));
    for i in 0..4u8 {
        write(&public.join(format!("images/test/s{i}.png")), png(50 + i));
        sample.push_str(&format!("s{i},cat\n"));
        answers.push_str(&format!("s{i},dog\n"));
    }
    write(&public.join("sample_submission.csv"), sample);
    write(&public.join("description.md"), "# Pets\n");
    write(&dir.join("prepared/private/answers.csv"), answers);
    let done = import(&options(&dir, "accuracy")).unwrap();
    let labels = done.environment.train.column("label").unwrap().label_texts();
    assert_eq!(labels.len(), 12, "{labels:?}");
    assert!(labels.iter().all(|l| l == "cat" || l == "dog"), "{labels:?}");
}

/// A test table whose id is spelt `id` against the sample's `Id` had the
/// sample's ids given by position: rows took other rows' features.
#[test]
fn rows_are_not_matched_by_position_when_a_column_may_be_the_id() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    tabular(&dir);
    let sample = std::fs::read_to_string(dir.join("prepared/public/sample_submission.csv")).unwrap();
    write(&dir.join("prepared/public/sample_submission.csv"), sample.replacen("id,", "Id,", 1));
    let answers = std::fs::read_to_string(dir.join("prepared/private/answers.csv")).unwrap();
    write(&dir.join("prepared/private/answers.csv"), answers.replacen("id,", "Id,", 1));
    let e = import(&options(&dir, "accuracy")).unwrap_err();
    assert!(matches!(e, Error::Options { .. }) && e.to_string().contains("--id-column"), "{e}");
}

/// A labels table with ids of its own, in another order, was joined by
/// position; one with a repeated id kept its last row.
#[test]
fn labels_tables_join_by_id_and_refuse_repeated_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    tabular(&dir);
    let public = dir.join("prepared/public");
    write(&public.join("train.csv"), (0..40).fold(String::from("id,feature\n"), |s, i| s + &format!("tr{i},{i}.0\n")));
    let mut labels = String::from("Id,label\n");
    for i in (0..40).rev() {
        labels.push_str(&format!("tr{i},{}\n", if i % 2 == 0 { "a" } else { "b" }));
    }
    write(&public.join("train_labels.csv"), &labels);
    let e = import(&options(&dir, "accuracy")).unwrap_err();
    assert!(e.to_string().contains("train_labels.csv"), "{e}");

    write(&public.join("train_labels.csv"), labels.replacen("Id,", "id,", 1));
    let done = import(&options(&dir, "accuracy")).unwrap();
    let env = &done.environment;
    assert_eq!(env.train.column("label").unwrap().get_label(3).unwrap(), "b", "tr3's own label");

    write(&public.join("train_labels.csv"), labels.replacen("Id,", "id,", 1) + "tr3,a\n");
    let e = import(&options(&dir, "accuracy")).unwrap_err();
    assert!(e.to_string().contains("`tr3`"), "{e}");
}

/// A labels table and the training images, no training table
/// (`invasive-species-monitoring`): the labels table was ignored, even
/// named with --labels.
#[test]
fn a_labels_table_without_a_training_table_is_the_training_table() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    let public = dir.join("prepared/public");
    let png = |v: u8| encode_png(&Pixels { width: 2, height: 2, channels: 1, data: vec![v; 4] }).unwrap();
    let mut labels = String::from("name,invasive\n");
    for i in 1..=12u8 {
        write(&public.join(format!("train/batch_{}/{i}.png", i % 2)), png(i * 10));
        labels.push_str(&format!("{i},{}\n", i % 3 == 0));
    }
    let (mut sample, mut answers) = (String::from("name,invasive\n"), String::from("name,invasive\n"));
    for i in 13..=18u8 {
        write(&public.join(format!("test/{i}.png")), png(i * 10));
        sample.push_str(&format!("{i},0.5\n"));
        answers.push_str(&format!("{i},{}\n", i % 2));
    }
    write(&public.join("train_labels.csv"), labels.replace("true", "1").replace("false", "0"));
    write(&public.join("description.md"), "# Plants\n");
    write(&dir.join("prepared/private/sample_submission.csv"), sample);
    write(&dir.join("prepared/private/answers.csv"), answers);
    let done = import(&options(&dir, "roc_auc")).unwrap();
    assert_eq!(done.plan.train, TrainSource::Table { file: "public/train_labels.csv".into(), labels: None });
    let env = &done.environment;
    assert_eq!(env.train.column("invasive").unwrap().get_label(2).unwrap(), "1", "row `3` is invasive");
    assert_eq!(env.images.len(), 18);
}

/// The answers put where agents see them: a private table named as the
/// training rows, a sample that is the answers, training rows that are
/// the test rows with their answers (renamed, and the description said
/// how).
#[test]
fn the_answers_are_never_made_public() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    tabular(&dir);
    let o = ImportOptions { train: Some("private/answers.csv".into()), ..options(&dir, "accuracy") };
    let e = import(&o).unwrap_err();
    assert!(matches!(e, Error::Options { .. }) && e.to_string().contains("public/"), "{e}");

    let o = ImportOptions {
        sample_submission: Some("private/answers.csv".into()),
        answers: Some("private/answers.csv".into()),
        ..options(&dir, "accuracy")
    };
    let e = import(&o).unwrap_err();
    assert!(e.to_string().contains("not the answers"), "{e}");

    let answers = std::fs::read_to_string(dir.join("prepared/private/answers.csv")).unwrap();
    let mut train = std::fs::read_to_string(dir.join("prepared/public/train.csv")).unwrap();
    for line in answers.lines().skip(1) {
        let (id, label) = line.split_once(',').unwrap();
        train.push_str(&format!("{id},1.0,{label}\n"));
    }
    write(&dir.join("prepared/public/train.csv"), train);
    let e = import(&options(&dir, "accuracy")).unwrap_err();
    assert!(e.to_string().contains("hold the answers"), "{e}");
}

/// A ZIP whose entries share one stored stream (copies that expand to m
/// × n bytes from an archive of about m + n) was expanded in full.
#[test]
fn zip_entries_sharing_their_bytes_are_refused() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    tabular(&dir);
    let path = dir.join("prepared/public/extra.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    zip.start_file("a.bin", zip::write::SimpleFileOptions::default()).unwrap();
    zip.write_all(&vec![7u8; 100_000]).unwrap();
    for i in 0..50 {
        zip.shallow_copy_file("a.bin", &format!("copy{i}.bin")).unwrap();
    }
    zip.finish().unwrap();
    let e = import(&options(&dir, "accuracy")).unwrap_err();
    assert!(e.to_string().contains("extra.zip") && e.to_string().contains("overlap"), "{e}");
}

/// `--files ""` named `public/` itself, and cut a non-ASCII folder name in
/// the middle of a character.
#[test]
fn an_empty_files_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c");
    tabular(&dir);
    let png = encode_png(&Pixels { width: 2, height: 2, channels: 1, data: vec![9; 4] }).unwrap();
    write(&dir.join("prepared/public/éclair/cat/x.png"), png);
    for given in ["", "/", "../private"] {
        let o = ImportOptions { file_dirs: vec![given.into()], ..options(&dir, "accuracy") };
        let e = import(&o).unwrap_err();
        assert!(matches!(e, Error::Options { .. }) && e.to_string().contains("--files"), "{given}: {e}");
    }
}

/// JSON lines each with a key of its own would make a table of rows x keys
/// cells: refused by name before the table is built.
#[test]
fn json_lines_with_a_new_key_on_every_line_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("keys");
    tabular(&dir);
    let mut lines = String::new();
    for i in 0..100_001 {
        lines.push_str(&format!("{{\"id\": {i}, \"k{i}\": 1}}\n"));
    }
    std::fs::remove_file(dir.join("prepared/public/train.csv")).unwrap();
    write(&dir.join("prepared/public/train.jsonl"), lines);
    let e = import(&options(&dir, "accuracy")).unwrap_err();
    assert!(e.to_string().contains("train.jsonl") && e.to_string().contains("distinct keys"), "{e}");
}

/// `prepared/` is held to the rule every link below it is: a link out of
/// the competition is refused and named.
#[test]
fn a_prepared_folder_linked_out_of_the_competition_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    tabular(&elsewhere);
    let dir = tmp.path().join("linked");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("prepared"), dir.join("prepared")).unwrap();
    let e = import(&options(&dir, "accuracy")).unwrap_err();
    assert!(e.to_string().contains("prepared") && e.to_string().contains("link out of the competition"), "{e}");
    // A link that stays inside the competition is followed.
    let inside = tmp.path().join("inside");
    tabular(&inside.join("data"));
    std::os::unix::fs::symlink(inside.join("data/prepared"), inside.join("prepared")).unwrap();
    import(&options(&inside, "accuracy")).unwrap();
}
