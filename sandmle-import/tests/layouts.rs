//! The layouts MLE-bench's `prepare.py` writes, made small at test time
//! (the same shapes as its output for the competitions named; checked
//! against `examples/scripts/mlebench_import_check.py`'s run on the real
//! `prepare.py` output), imported by detection alone.

use sandmle_core::{MetricSpec, Modality, Pixels, TaskKind, encode_png};
use sandmle_import::{Error, ImportOptions, LabelSource, TestSource, TrainSource, import};
use std::io::Write;
use std::path::{Path, PathBuf};

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn zip(path: &Path, members: &[(String, Vec<u8>)]) {
    let mut out = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, bytes) in members {
        out.start_file(name.as_str(), zip::write::SimpleFileOptions::default()).unwrap();
        out.write_all(bytes).unwrap();
    }
    out.finish().unwrap();
}

fn options(dir: &Path, metric: &str) -> ImportOptions {
    ImportOptions { competition: dir.to_owned(), metric: Some(MetricSpec::named(metric)), ..ImportOptions::default() }
}

fn png(shade: u8) -> Vec<u8> {
    encode_png(&Pixels { width: 4, height: 3, channels: 3, data: vec![shade; 36] }).unwrap()
}

/// `dogs-vs-cats-redux-kernels-edition`: no training table, the labels in
/// the names (`cat.3.png`), the training images zipped at the archive's
/// root, test ids only in `sampleSubmission.csv`, answers in
/// `private/answers.csv`, integer test ids that repeat nothing.
fn dogs(dir: &Path) {
    let public = dir.join("prepared/public");
    let mut members = Vec::new();
    for i in 0..12u8 {
        let label = if i % 2 == 0 { "cat" } else { "dog" };
        members.push((format!("{label}.{i}.png"), png(i * 10 + u8::from(i % 2 == 1) * 100)));
    }
    std::fs::create_dir_all(&public).unwrap();
    zip(&public.join("train.zip"), &members);
    let (mut sample, mut answers) = (String::from("id,label\n"), String::from("id,label\n"));
    for i in 1..=6u8 {
        write(&public.join(format!("test/{i}.png")), png(i * 20));
        sample.push_str(&format!("{i},0.5\n"));
        answers.push_str(&format!("{i},{}\n", i % 2));
    }
    write(&public.join("sampleSubmission.csv"), sample);
    write(&public.join("description.md"), "# Dogs and cats\n");
    write(&dir.join("prepared/private/answers.csv"), answers);
}

#[test]
fn labels_in_names_and_zipped_images_become_an_image_task() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dogs");
    dogs(&dir);
    let done = import(&options(&dir, "log_loss")).unwrap();
    let plan = &done.plan;
    assert_eq!(plan.sample_submission, "public/sampleSubmission.csv");
    assert_eq!(plan.answers, "private/answers.csv");
    assert_eq!(plan.train, TrainSource::Files { dirs: vec!["public/train".into()], labels: LabelSource::NamePrefix });
    assert_eq!(plan.test, TestSource::SampleIds);
    assert_eq!(plan.archives, ["public/train.zip"]);
    assert_eq!(plan.label_codes, [("cat".to_owned(), "0".to_owned()), ("dog".to_owned(), "1".to_owned())]);
    let env = &done.environment;
    assert_eq!((env.task().modality, env.task().kind), (Modality::Image, TaskKind::BinaryClassification));
    assert_eq!((env.train.n_rows(), env.test.n_rows(), env.images.len()), (12, 6, 18));
    let spec = env.task().images.clone().unwrap();
    assert_eq!((spec.suffix.as_str(), spec.width, spec.height), (".png", Some(4), Some(3)));
    let ids = env.train.column("id").unwrap();
    let labels = env.train.column("label").unwrap();
    for r in 0..env.train.n_rows() {
        let id = ids.get_str(r).unwrap();
        let want = if id.starts_with("dog.") { "1" } else { "0" };
        assert_eq!(labels.get_label(r).unwrap(), want, "{id}");
    }
    assert!(env.description.contains("named after the row's `id` followed by `.png`"), "{}", env.description);
}

/// `movie-review-sentiment-analysis-kernels-only`: zipped TSV tables and
/// `sampleSubmission.csv`; `ml2021spring-hw2`: a labels table beside the
/// features and test rows whose ids are their row numbers, which the
/// training rows' numbers repeat.
#[test]
fn zipped_tsv_and_row_number_ids_import() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("reviews");
    let public = dir.join("prepared/public");
    std::fs::create_dir_all(&public).unwrap();
    let mut train = String::from("PhraseId\tSentenceId\tPhrase\tSentiment\n");
    for i in 0..20 {
        train.push_str(&format!("{i}\t{}\tphrase number {i}\t{}\n", i / 4, i % 5));
    }
    let mut test = String::from("PhraseId\tSentenceId\tPhrase\n");
    let (mut sample, mut answers) = (String::from("PhraseId,Sentiment\n"), String::from("PhraseId,Sentiment\n"));
    for i in 20..28 {
        test.push_str(&format!("{i}\t{}\tanother phrase {i}\n", i / 4));
        sample.push_str(&format!("{i},2\n"));
        answers.push_str(&format!("{i},{}\n", i % 5));
    }
    zip(&public.join("train.tsv.zip"), &[("train.tsv".into(), train.into_bytes())]);
    zip(&public.join("test.tsv.zip"), &[("test.tsv".into(), test.into_bytes())]);
    write(&public.join("sampleSubmission.csv"), sample);
    write(&public.join("description.md"), "# Reviews\n");
    write(&dir.join("prepared/private/answers.csv"), answers);
    let done = import(&options(&dir, "accuracy")).unwrap();
    assert_eq!(done.plan.train, TrainSource::Table { file: "public/train.tsv".into(), labels: None });
    assert_eq!(done.plan.test, TestSource::Table { file: "public/test.tsv".into() });
    assert_eq!(done.plan.id_column, "PhraseId");
    assert_eq!(done.plan.target_columns, ["Sentiment"]);
    assert_eq!(done.environment.task().kind, TaskKind::MulticlassClassification);

    // Features and labels as NumPy arrays, ids the test rows' numbers.
    let dir = tmp.path().join("frames");
    let public = dir.join("prepared/public/timit/timit");
    write(&public.join("train_11.npy"), npy_f64(&[30, 3], |i| (i % 7) as f64));
    write(&public.join("train_label_11.npy"), npy_f64(&[30], |i| (i % 3) as f64));
    write(&public.join("test_11.npy"), npy_f64(&[9, 3], |i| (i % 5) as f64));
    let (mut sample, mut answers) = (String::from("Id,ClassId\n"), String::from("Id,ClassId\n"));
    for i in 0..9 {
        sample.push_str(&format!("{i},0\n"));
        answers.push_str(&format!("{i},{}\n", i % 3));
    }
    write(&dir.join("prepared/public/sampleSubmission.csv"), sample);
    write(&dir.join("prepared/public/description.md"), "# Frames\n");
    write(&dir.join("prepared/private/answers.csv"), answers);
    let done = import(&options(&dir, "accuracy")).unwrap();
    assert_eq!(
        done.plan.train,
        TrainSource::Table {
            file: "public/timit/timit/train_11.npy".into(),
            labels: Some("public/timit/timit/train_label_11.npy".into())
        }
    );
    assert!(done.plan.rekeyed.is_some(), "training row numbers repeat the test ids");
    let env = &done.environment;
    assert_eq!(env.train.names(), ["Id", "x0", "x1", "x2", "ClassId"]);
    assert_eq!(env.test.names(), ["Id", "x0", "x1", "x2"]);
    assert_eq!(env.train.column("Id").unwrap().get_str(0).unwrap(), "train_0");
}

/// A little-endian `<f8` NumPy file of `shape`, values `f(i)` in C order.
fn npy_f64(shape: &[usize], f: impl Fn(usize) -> f64) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let shape_text = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let mut header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape_text}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&u16::try_from(header.len()).unwrap().to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for i in 0..shape.iter().product() {
        out.extend_from_slice(&f(i).to_le_bytes());
    }
    out
}

/// `lmsys-chatbot-arena`: class probabilities shipped one-hot in the
/// training table, with training columns the test lacks.
#[test]
fn one_hot_classes_become_one_label_and_train_only_columns_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("arena");
    let public = dir.join("prepared/public");
    let mut train = String::from("id,model_a,prompt,winner_model_a,winner_model_b,winner_tie\n");
    for i in 0..15 {
        let hot = i % 3;
        let cells: Vec<&str> = (0..3).map(|k| if k == hot { "1" } else { "0" }).collect();
        train.push_str(&format!("{i},m{},question {i},{}\n", i % 2, cells.join(",")));
    }
    let mut test = String::from("id,prompt\n");
    let (mut sample, mut answers) = (
        String::from("id,winner_model_a,winner_model_b,winner_tie\n"),
        String::from("id,winner_model_a,winner_model_b,winner_tie\n"),
    );
    for i in 100..106 {
        test.push_str(&format!("{i},question {i}\n"));
        sample.push_str(&format!("{i},0.3333333333333333,0.3333333333333333,0.3333333333333333\n"));
        answers.push_str(&format!("{i},1,0,0\n"));
    }
    write(&public.join("train.csv"), train);
    write(&public.join("test.csv"), test);
    write(&public.join("sample_submission.csv"), sample);
    write(&public.join("description.md"), "# Arena\n");
    write(&dir.join("prepared/private/answers.csv"), answers);
    let done = import(&options(&dir, "multiclass_log_loss")).unwrap();
    assert_eq!(done.plan.one_hot, ["winner_model_a", "winner_model_b", "winner_tie"]);
    assert_eq!(done.plan.target_columns, ["label"]);
    assert_eq!(done.plan.train_only_columns, ["model_a"]);
    let env = &done.environment;
    assert_eq!(env.train.column("label").unwrap().get_label(4).unwrap(), "winner_model_b");
    assert!(env.description.contains("lacks these columns of `train.csv`") && env.description.contains("`model_a`"));
}

/// `paddy-disease-classification`: the sample submission leaves every
/// label empty and `grade.py` scores it 0.0. The environment's sample holds
/// the most frequent training label, and the grading rule that scores an
/// empty label as a wrong one is set (said in the description); under a
/// metric of probabilities an empty template sets no such rule.
#[test]
fn an_empty_label_sample_makes_empty_labels_wrong_predictions() {
    for (metric, rule) in [("accuracy", true), ("roc_auc", false)] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("paddy");
        let public = dir.join("prepared/public");
        let label =
            |i: usize| if metric == "accuracy" { ["blast", "hispa", "normal"][i % 3] } else { ["0", "1"][i % 2] };
        let mut train = String::from("image_id,label,variety,age\n");
        for i in 0..20 {
            train.push_str(&format!("{i}.jpg,{},ADT45,{}\n", label(i % 5 % 3), 40 + i));
        }
        let mut test = String::from("image_id,variety,age\n");
        let (mut sample, mut answers) = (String::from("image_id,label\n"), String::from("image_id,label\n"));
        for i in 100..106 {
            test.push_str(&format!("{i}.jpg,ADT45,{}\n", i - 40));
            sample.push_str(&format!("{i}.jpg,\n"));
            answers.push_str(&format!("{i}.jpg,{}\n", label(i)));
        }
        write(&public.join("train.csv"), train);
        write(&public.join("test.csv"), test);
        write(&public.join("sample_submission.csv"), sample);
        write(&public.join("description.md"), "# Paddy\n");
        write(&dir.join("prepared/private/answers.csv"), answers);
        let done = import(&options(&dir, metric)).unwrap();
        assert_eq!(done.plan.sample_filled, ["label"], "{metric}");
        let env = &done.environment;
        assert_eq!(env.grading.submission.empty_labels_are_wrong, rule, "{metric}");
        assert_eq!(env.description.contains("An empty label in a submission counts as a wrong prediction"), rule);
        assert_eq!(env.sample_submission.column("label").unwrap().missing_count(), 0, "{metric}");
    }
}

/// Layouts the import cannot settle: one error naming the file or the
/// option, and no environment.
#[test]
fn unsettled_layouts_name_the_file_or_the_option() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dogs");
    dogs(&dir);
    let message = |o: &ImportOptions| import(o).unwrap_err().to_string();

    // No sample submission anywhere.
    std::fs::rename(dir.join("prepared/public/sampleSubmission.csv"), tmp.path().join("sample.csv")).unwrap();
    let text = message(&options(&dir, "log_loss"));
    assert!(text.contains("sample submission") && text.contains("--sample-submission"), "{text}");
    std::fs::rename(tmp.path().join("sample.csv"), dir.join("prepared/public/sampleSubmission.csv")).unwrap();

    // Two tables that could be the training table.
    write(&dir.join("prepared/public/train_a.csv"), "id,label\n1,0\n");
    write(&dir.join("prepared/public/train_b.csv"), "id,label\n1,0\n");
    let e = import(&options(&dir, "log_loss")).unwrap_err();
    assert!(matches!(e, Error::Options { .. }), "{e}");
    assert!(e.to_string().contains("public/train_a.csv, public/train_b.csv") && e.to_string().contains("--train"));
    std::fs::remove_file(dir.join("prepared/public/train_b.csv")).unwrap();
    std::fs::remove_file(dir.join("prepared/public/train_a.csv")).unwrap();

    // A test image missing: the row and the file it should be.
    std::fs::remove_file(dir.join("prepared/public/test/4.png")).unwrap();
    let text = message(&options(&dir, "log_loss"));
    assert!(text.contains("`4.png` for row `4`"), "{text}");

    // A leaderboard that is a Git LFS pointer.
    let board: PathBuf = tmp.path().join("leaderboard.csv");
    write(&board, "version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 10\n");
    write(&dir.join("prepared/public/test/4.png"), png(80));
    let o = ImportOptions { leaderboard: Some(board), ..options(&dir, "log_loss") };
    let text = message(&o);
    assert!(text.contains("Git LFS pointer"), "{text}");
}

/// A 16-bit mono PCM WAV file of `n` samples of a tone.
fn wav(n: usize, pitch: f64) -> Vec<u8> {
    let data: Vec<u8> = (0..n)
        .flat_map(|i| {
            let x = (i as f64 * pitch * std::f64::consts::TAU / 8000.0).sin() * 8000.0;
            (x.round() as i16).to_le_bytes()
        })
        .collect();
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&8000u32.to_le_bytes());
    out.extend_from_slice(&16000u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(&data);
    out
}

/// `tensorflow-speech-recognition-challenge`: clips under one folder per
/// label, the same clip name under several labels, test ids that carry
/// the `.wav` extension.
#[test]
fn audio_clips_labelled_by_folder_with_repeated_names_import() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("speech");
    let public = dir.join("prepared/public");
    for (k, label) in ["no", "yes", "up"].iter().enumerate() {
        for i in 0..4 {
            write(
                &public.join(format!("train/audio/{label}/speaker{i}_nohash_0.wav")),
                wav(400, 200.0 * (k + 1) as f64),
            );
        }
    }
    let (mut sample, mut answers) = (String::from("fname,label\n"), String::from("fname,label\n"));
    for i in 0..5 {
        write(&public.join(format!("test/audio/clip_{i:04}.wav")), wav(400, 300.0));
        sample.push_str(&format!("clip_{i:04}.wav,silence\n"));
        answers.push_str(&format!("clip_{i:04}.wav,{}\n", ["no", "yes", "up"][i % 3]));
    }
    write(&public.join("sample_submission.csv"), sample);
    write(&public.join("description.md"), "# Speech\n");
    write(&dir.join("prepared/private/test.csv"), answers);
    let done = import(&options(&dir, "accuracy")).unwrap();
    assert_eq!(done.plan.answers, "private/test.csv");
    assert_eq!(done.plan.train, TrainSource::Files { dirs: vec!["public/train".into()], labels: LabelSource::Folder });
    let env = &done.environment;
    assert_eq!(env.task().modality, Modality::Audio);
    assert_eq!(env.task().images.as_ref().unwrap().suffix, "", "the ids carry their extension");
    let ids = env.train.column("fname").unwrap();
    let names: Vec<String> = (0..ids.len()).map(|r| ids.get_str(r).unwrap().into_owned()).collect();
    assert!(names.contains(&"yes_speaker2_nohash_0.wav".to_owned()), "{names:?}");
    assert_eq!(env.images.len(), 12 + 5);
    assert!(env.images.get("clip_0003.wav").is_some());
}

/// `statoil-iceberg-classifier-challenge`: JSON arrays of records whose
/// pixel bands are fixed-length number lists, spread over columns, and an
/// angle that is sometimes `"na"`.
#[test]
fn json_records_with_band_arrays_become_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ice");
    let public = dir.join("prepared/public");
    let record = |id: &str, k: usize, label: Option<u8>| {
        let angle = if k.is_multiple_of(4) { "\"na\"".to_owned() } else { format!("{}", 30.0 + k as f64) };
        let band: Vec<String> = (0..6).map(|j| format!("{}", -(j as f64) - k as f64 / 10.0)).collect();
        let label = label.map_or_else(String::new, |l| format!(", \"is_iceberg\": {l}"));
        format!("{{\"id\": \"{id}\", \"band_1\": [{}], \"inc_angle\": {angle}{label}}}", band.join(", "))
    };
    let train: Vec<String> = (0..12).map(|k| record(&format!("a{k:03x}"), k, Some((k % 2) as u8))).collect();
    let test: Vec<String> = (0..5).map(|k| record(&format!("b{k:03x}"), k + 20, None)).collect();
    write(&public.join("train.json"), format!("[{}]", train.join(", ")));
    write(&public.join("test.json"), format!("[{}]", test.join(", ")));
    let (mut sample, mut answers) = (String::from("id,is_iceberg\n"), String::from("id,is_iceberg\n"));
    for k in 0..5 {
        sample.push_str(&format!("b{k:03x},0.5\n"));
        answers.push_str(&format!("b{k:03x},{}\n", k % 2));
    }
    write(&dir.join("prepared/private/sample_submission.csv"), sample);
    write(&public.join("description.md"), "# Icebergs\n");
    write(&dir.join("prepared/private/test.csv"), answers);
    let done = import(&options(&dir, "log_loss")).unwrap();
    assert_eq!(done.plan.sample_submission, "private/sample_submission.csv");
    let env = &done.environment;
    let names: Vec<&str> = env.train.names().iter().map(String::as_str).collect();
    assert_eq!(
        names,
        ["id", "band_1_0", "band_1_1", "band_1_2", "band_1_3", "band_1_4", "band_1_5", "inc_angle", "is_iceberg"]
    );
    assert_eq!(env.test.n_cols(), 8);
    assert_eq!(env.train.numeric("band_1_2").unwrap()[1], -2.1);
}
