//! Per-token and label-set layouts as MLE-bench's `prepare.py` writes them
//! (text-normalization-challenge-english-language, plant-pathology-2021-fgvc8),
//! made small at test time and imported by detection alone.

use sandmle_core::{MetricSpec, SubmissionForm, TaskKind};
use sandmle_import::{ImportOptions, import};
use std::path::Path;

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn options(dir: &Path, metric: &str) -> ImportOptions {
    ImportOptions { competition: dir.to_owned(), metric: Some(MetricSpec::named(metric)), ..ImportOptions::default() }
}

/// Text normalization: one row per token, the test table without an id,
/// the sample's ids `<sentence_id>_<token_id>`; sentence ids restart at 0
/// in each split; `class` only in the training table.
#[test]
fn token_rows_with_composed_ids_become_items_of_a_sentence() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("normalization");
    let public = dir.join("prepared/public");
    let words = ["the", "12", "km", "road", "."];
    let spoken = ["the", "twelve", "kilometers", "road", "."];
    let class = ["PLAIN", "CARDINAL", "MEASURE", "PLAIN", "PUNCT"];
    let mut train = String::from("\"sentence_id\",\"token_id\",\"class\",\"before\",\"after\"\n");
    for s in 0..6 {
        for t in 0..5 {
            train.push_str(&format!("{s},{t},\"{}\",\"{}\",\"{}\"\n", class[t], words[t], spoken[t]));
        }
    }
    let mut test = String::from("\"sentence_id\",\"token_id\",\"before\"\n");
    let (mut sample, mut answers) = (String::from("\"id\",\"after\"\n"), String::from("\"id\",\"after\"\n"));
    for s in 0..3 {
        for t in 0..(3 + s) {
            test.push_str(&format!("{s},{t},\"{}\"\n", words[t]));
            sample.push_str(&format!("\"{s}_{t}\",\"{}\"\n", words[t]));
            answers.push_str(&format!("\"{s}_{t}\",\"{}\"\n", spoken[t]));
        }
    }
    write(&public.join("en_train.csv"), train);
    write(&public.join("en_test_2.csv"), test);
    write(&public.join("en_sample_submission_2.csv"), sample);
    write(&public.join("description.md"), "# Normalization\n");
    write(&dir.join("prepared/private/answers.csv"), answers);

    let done = import(&options(&dir, "accuracy")).unwrap();
    assert_eq!(done.plan.composed_ids, Some(("sentence_id".into(), "token_id".into())));
    let task = done.environment.task();
    assert_eq!(task.group_column.as_deref(), Some("sentence_id"));
    assert_eq!(task.train_only_columns, ["class"]);
    assert_eq!(task.target_columns, ["after"]);
    let test = &done.environment.test;
    assert_eq!(test.column("id").unwrap().get_str(4).unwrap(), "1_1", "ids follow the rows");
    assert!(done.environment.description.contains("joined by `_`"));
    // Training ids are row numbers, test ids `s_t`: nothing to rekey.
    assert!(done.plan.rekeyed.is_none());

    // Ids that do not follow the columns are not composed: the rows are
    // matched by position only when no column may be the id, as before.
    let bad = std::fs::read_to_string(public.join("en_sample_submission_2.csv")).unwrap().replace("\"2_4\"", "\"2_9\"");
    write(&public.join("en_sample_submission_2.csv"), bad);
    let answers =
        std::fs::read_to_string(dir.join("prepared/private/answers.csv")).unwrap().replace("\"2_4\"", "\"2_9\"");
    write(&dir.join("prepared/private/answers.csv"), answers);
    match import(&options(&dir, "accuracy")) {
        Ok(done) => assert!(done.environment.task().group_column.is_none()),
        Err(e) => assert!(e.to_string().contains("en_test_2.csv"), "{e}"),
    }
}

/// Plant pathology 2021: space-separated label sets, scored by micro F1
/// over the sets: a multi-label task whose submission is a label set.
#[test]
fn space_separated_label_sets_are_a_multi_label_task() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("leaves");
    let public = dir.join("prepared/public");
    let sets = ["healthy", "scab", "rust scab", "frog_eye_leaf_spot", "scab powdery_mildew"];
    let mut train = String::from("image,labels\n");
    for i in 0..20 {
        train.push_str(&format!("t{i}.jpg,{}\n", sets[i % 5]));
    }
    let (mut sample, mut answers) = (String::from("image,labels\n"), String::from("image,labels\n"));
    for i in 0..6 {
        sample.push_str(&format!("s{i}.jpg,healthy\n"));
        answers.push_str(&format!("s{i}.jpg,{}\n", sets[(i + 2) % 5]));
    }
    write(&public.join("train.csv"), train);
    write(&public.join("sample_submission.csv"), sample);
    write(&public.join("description.md"), "# Leaves\n");
    write(&dir.join("prepared/private/answers.csv"), answers);
    let pixels = sandmle_core::Pixels { width: 4, height: 3, channels: 3, data: vec![90; 36] };
    let jpeg = sandmle_core::encode_png(&pixels).unwrap();
    for i in 0..20 {
        write(&public.join(format!("train_images/t{i}.jpg")), &jpeg);
    }
    for i in 0..6 {
        write(&public.join(format!("test_images/s{i}.jpg")), &jpeg);
    }
    let done = import(&options(&dir, "label_set_f1_micro")).unwrap();
    let task = done.environment.task();
    assert_eq!(task.kind, TaskKind::MultiLabelClassification);
    assert_eq!(task.submission_form(), SubmissionForm::LabelSet);
    assert_eq!(done.environment.answers.column("labels").unwrap().get_str(0).unwrap(), "rust scab");
}

fn png(width: u32, height: u32, channels: u8, data: Vec<u8>) -> Vec<u8> {
    sandmle_core::encode_png(&sandmle_core::Pixels { width, height, channels, data }).unwrap()
}

/// Denoising dirty documents: `train/` scans beside `train_cleaned/` pages
/// of the same names, `test/` scans, a per-pixel `sampleSubmission.csv`
/// (`<image>_<row>_<col>`, from 1). Grey levels are Pillow's
/// `convert("L")` over 255: (200, 100, 50) is 124 and (13, 240, 77) is 154
/// in Pillow 11.
#[test]
fn a_per_pixel_submission_makes_pixel_rows_grouped_by_image() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("denoising");
    let public = dir.join("prepared/public");
    // 3 x 2 pages; the training scan in colour.
    let scan = png(3, 2, 3, [[200, 100, 50], [13, 240, 77]].iter().cycle().take(6).flatten().copied().collect());
    let clean = png(3, 2, 1, vec![255, 0, 255, 255, 0, 255]);
    write(&public.join("train/7.png"), &scan);
    write(&public.join("train_cleaned/7.png"), &clean);
    write(&public.join("train/8.png"), &clean);
    write(&public.join("train_cleaned/8.png"), &clean);
    write(&public.join("test/12.png"), png(3, 2, 1, vec![10, 20, 30, 40, 50, 60]));
    let (mut sample, mut answers) = (String::from("id,value\n"), String::from("id,value\n"));
    for r in 1..=2 {
        for c in 1..=3 {
            sample.push_str(&format!("12_{r}_{c},1\n"));
            answers.push_str(&format!("12_{r}_{c},{}\n", if c == 2 { 0.0 } else { 1.0 }));
        }
    }
    write(&public.join("sampleSubmission.csv"), sample);
    write(&public.join("description.md"), "# Pages\n");
    write(&dir.join("prepared/private/answers.csv"), answers);
    let done = import(&options(&dir, "rmse")).unwrap();
    let env = &done.environment;
    let task = env.task();
    assert_eq!(task.group_column.as_deref(), Some("image"));
    assert_eq!(task.kind, TaskKind::Regression);
    assert_eq!(env.train.names(), ["id", "image", "row", "col", "pixel", "value"]);
    assert_eq!(env.train.n_rows(), 12);
    let ids = env.train.column("id").unwrap().label_texts();
    assert_eq!(ids[..3], ["7_1_1", "7_1_2", "7_1_3"]);
    let pixel = env.train.column("pixel").unwrap().to_f64_lenient().unwrap();
    assert_eq!(pixel[..2], [124.0 / 255.0, 154.0 / 255.0]);
    let value = env.train.column("value").unwrap().to_f64_lenient().unwrap();
    assert_eq!(value[..3], [1.0, 0.0, 1.0]);
    let test_pixels = env.test.column("pixel").unwrap().to_f64_lenient().unwrap();
    assert_eq!(test_pixels[5], 60.0 / 255.0);
    assert!(matches!(done.plan.train, sandmle_import::TrainSource::Pixels { .. }));

    // A target page of another size than its scan: one error naming it.
    write(&public.join("train_cleaned/8.png"), png(2, 2, 1, vec![0; 4]));
    let e = import(&options(&dir, "rmse")).unwrap_err();
    assert!(e.to_string().contains("train_cleaned/8.png") && e.to_string().contains("3 x 2"), "{e}");
}

/// mlsp-2013-birds: labels in a ragged text file (`?` for a test item, the
/// id alone for no label), the sample one row per (recording, species)
/// with `Id = rec_id * 100 + species`, the clips named through
/// `rec_id2filename.txt`.
fn birds(dir: &Path, labels: &str) {
    let ess = dir.join("prepared/public/essential_data");
    let clip = |pitch: f64| {
        let samples: Vec<f32> = (0..800).map(|t| (0.3 * (t as f64 * pitch / 8000.0).sin()) as f32).collect();
        sandmle_core::encode_wav(&samples, 8000).unwrap()
    };
    let mut names = String::from("rec_id,filename\n");
    for rec in 0..6 {
        write(&ess.join(format!("src_wavs/PC{rec}_2009.wav")), clip(500.0 + 100.0 * rec as f64));
        names.push_str(&format!("{rec},PC{rec}_2009\n"));
    }
    write(&ess.join("rec_id2filename.txt"), names);
    write(&ess.join("rec_labels_test_hidden.txt"), labels);
    let (mut sample, mut answers) = (String::from("Id,Probability\n"), String::from("Id,Probability\n"));
    for rec in [1, 4] {
        for s in 0..3 {
            sample.push_str(&format!("{},0\n", rec * 100 + s));
            answers.push_str(&format!("{},{}\n", rec * 100 + s, u8::from(s == rec % 3)));
        }
    }
    write(&dir.join("prepared/public/sample_submission.csv"), sample);
    write(&dir.join("prepared/public/description.md"), "# Birds\n");
    write(&dir.join("prepared/private/answers.csv"), answers);
}

fn birds_options(dir: &Path) -> ImportOptions {
    ImportOptions {
        item_labels: Some("essential_data/rec_labels_test_hidden.txt".into()),
        item_files: Some("essential_data/rec_id2filename.txt".into()),
        ..options(dir, "roc_auc")
    }
}

#[test]
fn flattened_item_label_rows_share_their_items_clip() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("birds");
    birds(&dir, "rec_id,[labels]\n0,2\n1,?\n2,0,1\n3\n4,?\n5,1\n");
    let done = import(&birds_options(&dir)).unwrap();
    let env = &done.environment;
    let task = env.task();
    assert_eq!(task.kind, TaskKind::BinaryClassification);
    assert_eq!(task.group_column.as_deref(), Some("rec_id"));
    assert_eq!(task.images.as_ref().unwrap().key_column.as_deref(), Some("rec_id"));
    // Four training recordings (0, 2, 3, 5) of three species each, in order.
    assert_eq!(env.train.n_rows(), 12);
    let id = |r| env.train.column("Id").unwrap().get_str(r).unwrap().into_owned();
    assert_eq!((id(0), id(3), id(11)), ("0".into(), "200".into(), "502".into()));
    let target: Vec<f64> = env.train.column("Probability").unwrap().to_f64_lenient().unwrap();
    assert_eq!(target, [0., 0., 1., 1., 1., 0., 0., 0., 0., 0., 1., 0.]);
    // Six clips, one per recording, named by rec_id; the test rows carry
    // their recording and species.
    assert_eq!(env.images.len(), 6);
    assert!(env.images.get("4.wav").is_some());
    assert_eq!(env.test.column("rec_id").unwrap().get_str(5).unwrap(), "4");
    assert_eq!(env.test.column("label").unwrap().to_f64_lenient().unwrap()[5], 2.0);
    assert!(env.description.contains("`Id` = `rec_id` × 100 + `label`"), "{}", env.description);
}

#[test]
fn a_test_items_labels_in_the_labels_file_are_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("birds");
    birds(&dir, "rec_id,[labels]\n0,2\n1,0\n2,0,1\n3\n4,?\n5,1\n");
    let e = import(&birds_options(&dir)).unwrap_err().to_string();
    assert!(e.contains("rec_labels_test_hidden.txt") && e.contains("test item 1"), "{e}");
}

#[test]
fn a_label_outside_the_submissions_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("birds");
    birds(&dir, "rec_id,[labels]\n0,7\n1,?\n2,0\n3\n4,?\n5,1\n");
    let e = import(&birds_options(&dir)).unwrap_err().to_string();
    assert!(e.contains("rec_labels_test_hidden.txt") && e.contains("item 0 has 7"), "{e}");
}

#[test]
fn an_item_without_a_file_name_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("birds");
    birds(&dir, "rec_id,[labels]\n0,2\n1,?\n2,0\n3\n4,?\n5,1\n9,1\n");
    let e = import(&birds_options(&dir)).unwrap_err().to_string();
    assert!(e.contains("rec_id2filename.txt") && e.contains("item 9"), "{e}");
}

/// An item id past `u64::MAX / 100` overflowed `item * 100 + label`.
#[test]
fn an_item_id_too_large_to_flatten_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("birds");
    birds(&dir, "rec_id,[labels]\n0,2\n1,?\n2,0\n3\n4,?\n18446744073709551615,1\n");
    let e = import(&birds_options(&dir)).unwrap_err().to_string();
    assert!(e.contains("rec_labels_test_hidden.txt") && e.contains("too large"), "{e}");
}

/// A byte-order mark before the labels file's first line hid its header
/// (and, without a header, dropped item 0); file names of digits lost
/// their leading zeros (`0010` read as the number 10).
#[test]
fn a_bom_and_file_names_of_digits_are_read_as_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("birds");
    birds(&dir, "\u{feff}0,2\n1,?\n2,0\n3\n4,?\n5,1\n");
    let ess = dir.join("prepared/public/essential_data");
    let mut names = String::from("rec_id,filename\n");
    for rec in 0..6 {
        let wav = std::fs::read(ess.join(format!("src_wavs/PC{rec}_2009.wav"))).unwrap();
        write(&ess.join(format!("src_wavs/{:04}.wav", rec * 10)), wav);
        names.push_str(&format!("{rec},{:04}\n", rec * 10));
    }
    std::fs::remove_dir_all(ess.join("src_wavs")).unwrap();
    for rec in 0..6 {
        let samples: Vec<f32> = (0..800).map(|t| ((t * (rec + 1)) as f32 / 50.0).sin() * 0.3).collect();
        write(&ess.join(format!("src_wavs/{:04}.wav", rec * 10)), sandmle_core::encode_wav(&samples, 8000).unwrap());
    }
    write(&ess.join("rec_id2filename.txt"), names);
    let done = import(&birds_options(&dir)).unwrap();
    let env = &done.environment;
    // No header: the item column is `item`, and item 0 is a training item.
    assert_eq!(env.task().group_column.as_deref(), Some("item"));
    assert_eq!(env.train.column("item").unwrap().get_str(0).unwrap(), "0");
    assert_eq!(env.train.n_rows(), 12);
    assert_eq!(env.images.len(), 6);
}
