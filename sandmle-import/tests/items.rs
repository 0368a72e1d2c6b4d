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
