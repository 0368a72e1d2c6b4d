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
