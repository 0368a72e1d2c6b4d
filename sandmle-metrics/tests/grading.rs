//! Submission validation, alignment by id, medals and HumanRank.

use sandmle_core::csv::{ReadOptions, read_csv_bytes};
use sandmle_core::testing::tiny_environment;
use sandmle_core::{Column, Environment, Grader, Leaderboard, LeaderboardEntry, MetricSpec, Table, Thresholds};
use sandmle_metrics::{Error, StandardGrader};

fn env() -> Environment {
    let mut env = tiny_environment();
    env.leaderboard = Some(Leaderboard {
        entries: [1.0, 0.9, 0.75, 0.5, 0.25]
            .iter()
            .enumerate()
            .map(|(i, &score)| LeaderboardEntry { name: format!("t{i}"), score })
            .collect(),
    });
    env.grading.thresholds =
        Some(Thresholds { num_teams: 5, is_lower_better: false, gold: 1.0, silver: 0.9, bronze: 0.75, median: 0.75 });
    env
}

fn sub(csv: &str) -> Table {
    read_csv_bytes(csv.as_bytes(), "<sub>", &ReadOptions::with_id("id")).unwrap()
}

fn score_err(env: &Environment, csv: &str) -> Error {
    StandardGrader.score(&env.grading_task(), &sub(csv)).unwrap_err()
}

#[test]
fn alignment_is_by_id_not_row_order() {
    let env = env();
    // answers: r6=0, r7=1, r8=1, r9=0
    let ordered = sub("id,label\nr6,0.1\nr7,0.8\nr8,0.9\nr9,0.2\n");
    let shuffled = sub("id,label\nr9,0.2\nr8,0.9\nr6,0.1\nr7,0.8\n");
    let g = StandardGrader;
    let a = g.grade(&env.grading_task(), &ordered).unwrap();
    let b = g.grade(&env.grading_task(), &shuffled).unwrap();
    assert_eq!(a.score, Some(1.0));
    assert_eq!(a, b);
    assert!(a.gold_medal && a.any_medal && a.above_median);
    assert_eq!(a.medal(), Some(sandmle_core::Medal::Gold));
    assert_eq!(a.human_rank, Some(1.0));
}

#[test]
fn medals_are_inclusive_and_exclusive_and_median_is_strict() {
    let env = env();
    // AUC 0.75: r6 and r9 negatives; one positive below one negative.
    let r = StandardGrader.grade(&env.grading_task(), &sub("id,label\nr6,0.5\nr7,0.4\nr8,0.9\nr9,0.2\n")).unwrap();
    assert_eq!(r.score, Some(0.75));
    assert!(r.bronze_medal && !r.silver_medal && !r.gold_medal);
    assert!(!r.above_median, "a score equal to the median is not above it");
    // Position: 1.0 and 0.9 are strictly better -> position 3 of 5.
    assert_eq!(r.human_rank, Some(0.6));
}

#[test]
fn every_validation_failure_is_typed() {
    let env = env();
    assert!(
        matches!(score_err(&env, "id,prob\nr6,0.1\nr7,0.8\nr8,0.9\nr9,0.2\n"), Error::MissingColumns { columns } if columns == ["`label`"])
    );
    assert!(matches!(
        score_err(&env, "id,label,x\nr6,0.1,1\nr7,0.8,1\nr8,0.9,1\nr9,0.2,1\n"),
        Error::ExtraColumns { .. }
    ));
    assert!(matches!(score_err(&env, "id,label\nr6,0.1\nr7,0.8\nr8,0.9\n"), Error::RowCount { expected: 4, found: 3 }));
    assert!(
        matches!(score_err(&env, "id,label\nr6,0.1\nr6,0.8\nr8,0.9\nr9,0.2\n"), Error::DuplicateId { id } if id == "r6")
    );
    assert!(
        matches!(score_err(&env, "id,label\nr6,0.1\nzz,0.8\nr8,0.9\nr9,0.2\n"), Error::UnknownId { unexpected } if unexpected == "zz")
    );
    assert!(matches!(score_err(&env, "id,label\nr6,0.1\n,0.8\nr8,0.9\nr9,0.2\n"), Error::MissingId { row: 2 }));
    assert!(matches!(score_err(&env, "id,label\nr6,0.1\nr7,high\nr8,0.9\nr9,0.2\n"), Error::NotNumeric { row: 2, .. }));
    assert!(matches!(
        score_err(&env, "id,label\nr6,0.1\nr7,NaN\nr8,0.9\nr9,0.2\n"),
        Error::MissingValue { row: 2, .. }
    ));
    assert!(matches!(
        score_err(&env, "id,label\nr6,0.1\nr7,1.5\nr8,0.9\nr9,0.2\n"),
        Error::ProbabilityOutOfRange { row: 2, .. }
    ));
    let r = StandardGrader.grade_file(&env.grading_task(), std::path::Path::new("/nonexistent/sub.csv")).unwrap();
    assert!(!r.valid_submission && r.score.is_none());
    assert!(r.error.unwrap().contains("not found"));
}

#[test]
fn extra_columns_can_be_allowed() {
    let mut env = env();
    env.grading.submission.allow_extra_columns = true;
    let r = StandardGrader
        .grade(&env.grading_task(), &sub("id,label,x\nr6,0.1,1\nr7,0.8,1\nr8,0.9,1\nr9,0.2,1\n"))
        .unwrap();
    assert_eq!(r.score, Some(1.0));
}

fn multiclass_env() -> Environment {
    let mut env = tiny_environment();
    let ids = Column::text(["a", "b", "c"].map(Some));
    env.test = Table::from_columns([("id", ids.clone()), ("x", Column::Numeric(vec![1.0, 2.0, 3.0]))]).unwrap();
    env.answers = Table::from_columns([
        ("id", ids.clone()),
        ("cat", Column::Numeric(vec![1.0, 0.0, 0.0])),
        ("dog", Column::Numeric(vec![0.0, 1.0, 1.0])),
    ])
    .unwrap();
    env.sample_submission = env.answers.clone();
    env.grading.task.prediction_columns = vec!["cat".into(), "dog".into()];
    env.grading.task.metric = MetricSpec::named("multiclass_log_loss");
    env.grading.task.direction = sandmle_core::Direction::LowerIsBetter;
    env
}

#[test]
fn class_probability_rows_must_sum_to_one() {
    let env = multiclass_env();
    let t = env.grading_task();
    let ok = StandardGrader.score(&t, &sub("id,cat,dog\na,0.8,0.2\nb,0.3,0.7\nc,0.5,0.5\n")).unwrap();
    let expected = -(0.8f64.ln() + 0.7f64.ln() + 0.5f64.ln()) / 3.0;
    assert!((ok - expected).abs() < 1e-15);
    let e = StandardGrader.score(&t, &sub("id,cat,dog\na,0.8,0.3\nb,0.3,0.7\nc,0.5,0.5\n")).unwrap_err();
    assert!(matches!(e, Error::RowSum { row: 1, .. }), "{e}");
    // Within MLE-bench's tolerance (|sum - 1| <= 1e-5) is accepted.
    StandardGrader.score(&t, &sub("id,cat,dog\na,0.800001,0.2\nb,0.3,0.7\nc,0.5,0.5\n")).unwrap();
}

#[test]
fn a_nan_score_is_an_invalid_submission() {
    let mut env = tiny_environment();
    env.grading.task.metric = MetricSpec::named("pearson");
    let r = StandardGrader.grade(&env.grading_task(), &sub("id,label\nr6,0.5\nr7,0.5\nr8,0.5\nr9,0.5\n")).unwrap();
    assert!(!r.valid_submission);
    assert!(r.score.is_none() && r.score_raw.is_none());
    assert!(r.error.unwrap().contains("NaN"));
}

#[test]
fn grader_works_as_a_trait_object() {
    let env = env();
    let g: Box<dyn Grader> = Box::new(StandardGrader);
    let t = g.thresholds(env.leaderboard.as_ref().unwrap()).unwrap();
    assert_eq!((t.gold, t.silver, t.bronze, t.median), (1.0, 1.0, 0.9, 0.75));
    let r = g.grade(&env.grading_task(), &env.sample_submission).unwrap();
    assert_eq!(r.score, Some(0.5));
}

/// The reference values below are MLE-bench's jigsaw-toxic-comment grader
/// (answers and submission indexed by id and sorted, answer rows whose
/// labels sum below 0 dropped, `roc_auc_score(..., average="macro")`) and
/// scikit-learn 1.9.1's `root_mean_squared_log_error`.
fn column_auc_env() -> Environment {
    let mut env = tiny_environment();
    let ids = Column::text(["a", "b", "c", "d", "e", "f", "g", "h"].map(Some));
    env.test = Table::from_columns([("id", ids.clone()), ("x", Column::Numeric(vec![0.0; 8]))]).unwrap();
    env.answers = Table::from_columns([
        ("id", ids.clone()),
        ("toxic", Column::Numeric(vec![0.0, 1.0, -1.0, 1.0, 0.0, -1.0, 0.0, 1.0])),
        ("obscene", Column::Numeric(vec![1.0, 0.0, -1.0, 1.0, 0.0, -1.0, 0.0, 0.0])),
    ])
    .unwrap();
    env.grading.task.prediction_columns = vec!["toxic".into(), "obscene".into()];
    env.grading.task.metric = MetricSpec::named("mean_column_roc_auc");
    env
}

#[test]
fn jigsaw_unlabelled_rows_are_not_scored_as_mlebench_does() {
    let env = column_auc_env();
    let s = sub(
        "id,toxic,obscene\nh,0.9,0.2\ng,0.65,0.1\nf,0.99,0.0\ne,0.4,0.5\nd,0.6,0.8\nc,0.01,1.0\nb,0.7,0.55\na,0.3,0.6\n",
    );
    let r = StandardGrader.grade(&env.grading_task(), &s).unwrap();
    assert!(r.valid_submission, "{:?}", r.error);
    assert!((r.score_raw.unwrap() - 0.9444444444444444).abs() < 1e-12, "{r:?}");
    assert!(StandardGrader.check(&env.grading_task()).is_ok(), "-1 rows do not break the environment");
}

#[test]
fn rmsle_scores_values_above_minus_one() {
    let mut env = tiny_environment();
    env.grading.task.metric = MetricSpec::named("rmsle");
    env.grading.task.direction = sandmle_core::Direction::LowerIsBetter;
    env.answers.set_column("label", Column::Numeric(vec![1.0, 2.0, 0.0, 0.0])).unwrap();
    let ok = StandardGrader.score(&env.grading_task(), &sub("id,label\nr6,-0.5\nr7,2.5\nr8,0.25\nr9,0\n")).unwrap();
    // sklearn: root_mean_squared_log_error([1, 2, 0, 0], [-0.5, 2.5, 0.25, 0])
    let three = 0.8155504342175144f64;
    let expected = (three * three * 3.0 / 4.0).sqrt();
    assert!((ok - expected).abs() < 1e-12, "{ok} {expected}");
    let e = StandardGrader.score(&env.grading_task(), &sub("id,label\nr6,-1\nr7,2.5\nr8,0.25\nr9,0\n")).unwrap_err();
    assert!(matches!(e, Error::LogDomain { side: "prediction", .. }), "{e}");
}

/// The fault lies with the environment, not the submission: `grade` is an
/// `Err` naming the file, and `check` finds it before any submission.
#[test]
fn broken_environments_are_errors_naming_the_file() {
    let mut env = tiny_environment();
    env.answers.set_column("label", Column::Numeric(vec![1.0; 4])).unwrap();
    let e = StandardGrader.grade(&env.grading_task(), &env.sample_submission).unwrap_err();
    assert!(e.to_string().contains("prepared/private/answers.csv"), "{e}");
    let e = StandardGrader.check(&env.grading_task()).unwrap_err();
    assert!(matches!(e, sandmle_core::Error::BrokenEnvironment { .. }), "{e}");

    let mut env = tiny_environment();
    env.grading.task.metric = MetricSpec::named("no_such_metric");
    let e = StandardGrader.grade(&env.grading_task(), &env.sample_submission).unwrap_err();
    assert!(e.to_string().contains("prepared/private/grading.json"), "{e}");

    // A constant truth: Pearson is undefined for every submission.
    let mut env = tiny_environment();
    env.grading.task.metric = MetricSpec::named("pearson");
    env.answers.set_column("label", Column::Numeric(vec![1.0; 4])).unwrap();
    assert!(StandardGrader.check(&env.grading_task()).unwrap_err().to_string().contains("NaN"));
    assert!(StandardGrader.check(&tiny_environment().grading_task()).is_ok());
}

#[test]
fn messages_quoting_a_huge_field_are_bounded_and_one_line() {
    let env = env();
    let huge = format!("{}\n{}", "z".repeat(5 << 20), "y".repeat(5 << 20));
    let csv = format!("id,label\nr6,0.1\n\"{huge}\",0.8\nr8,0.9\nr9,0.2\n");
    let r = StandardGrader.grade(&env.grading_task(), &sub(&csv)).unwrap();
    let e = r.error.unwrap();
    assert!(e.len() < 400 && !e.contains('\n'), "{} bytes", e.len());
    let header = format!("id,label,\"{huge}\"\nr6,0.1,1\nr7,0.8,1\nr8,0.9,1\nr9,0.2,1\n");
    let e = StandardGrader.grade(&env.grading_task(), &sub(&header)).unwrap().error.unwrap();
    assert!(e.len() < 400 && !e.contains('\n'), "{} bytes", e.len());
}

/// Grading a file takes a fast path for clean numeric submissions; its
/// report must be the one grading the file's table gives, clean or not.
#[test]
fn grading_a_file_reports_what_grading_its_table_reports() {
    let env = env();
    let task = env.grading_task();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("submission.csv");
    for csv in [
        "id,label\nr9,0.2\nr8,0.9\nr6,0.1\nr7,0.8\n",
        "label,id\n0.2,r9\n0.9,r8\n0.1,r6\n0.8,r7\n",
        "id,label\nr9,0.2\nr8,0.9\nr6,0.1\nr7,1.5\n",
        "id,label\nr9,0.2\nr8,NaN\nr6,0.1\nr7,0.8\n",
        "id,label\nr9,0.2\nr8,\nr6,0.1\nr7,0.8\n",
        "id,label\nr9,0.2\nr8,0.9\nr6,0.1\nr6,0.8\n",
        "id,label\nr9,0.2\nr8,0.9\nr6,0.1\nzz,0.8\n",
        "id,label\nr9,0.2\nr8,0.9\nr6,0.1\n",
        "id,label,extra\nr9,0.2,1\nr8,0.9,1\nr6,0.1,1\nr7,0.8,1\n",
        "id,label\nr9,0.2\nr8,high\nr6,0.1\nr7,0.8\n",
        "id,label\nr9,0.2\nr8, 0.9\nr6,0.1\nr7,0.8\n",
    ] {
        std::fs::write(&path, csv).unwrap();
        let from_file = StandardGrader.grade_file(&task, &path).unwrap();
        let from_table = StandardGrader.grade(&task, &sub(csv)).unwrap();
        assert_eq!(from_file, from_table, "{csv:?}");
    }
}

/// MLE-bench's plant-pathology-2021-fgvc8 grader fills an empty `labels`
/// field with "" (the empty set) and scores it; so does ours. The
/// reference, 6/9, is that grader on these rows (scikit-learn 1.5.2):
/// answers {a, b}, {c}, {a}, {b}; predictions {b, a}, {}, {a, zzz}, {c}:
/// tp 3, fp 1 (`c`; `zzz` no answer holds), fn 2.
#[test]
fn an_empty_label_set_is_a_prediction_not_a_missing_value() {
    let mut env = tiny_environment();
    env.grading.task.metric = MetricSpec::named("label_set_f1_micro");
    env.grading.task.kind = sandmle_core::TaskKind::MultiLabelClassification;
    env.answers.set_column("label", Column::text(["a b", "c", "a", "b"].map(Some))).unwrap();
    let r = StandardGrader.grade(&env.grading_task(), &sub("id,label\nr6,b a\nr7,\nr8,a zzz\nr9,c\n")).unwrap();
    assert!(r.valid_submission, "{:?}", r.error);
    assert!((r.score_raw.unwrap() - 6.0 / 9.0).abs() < 1e-12, "{r:?}");
}

/// Five rows of text labels, as MLE-bench's paddy-disease-classification
/// grades them.
fn text_label_env(metric: &str) -> Environment {
    let mut env = tiny_environment();
    let ids = Column::text(["p1", "p2", "p3", "p4", "p5"].map(Some));
    env.test = Table::from_columns([("id", ids.clone()), ("x", Column::Numeric(vec![0.0; 5]))]).unwrap();
    let truth = Column::text(["blast", "brown_spot", "hispa", "blast", "normal"].map(Some));
    env.answers = Table::from_columns([("id", ids.clone()), ("label", truth)]).unwrap();
    env.sample_submission = env.answers.clone();
    env.grading.task.prediction_columns = vec!["label".into()];
    env.grading.task.metric = MetricSpec::named(metric);
    env
}

/// Regression: paddy-disease-classification's sample submission leaves
/// every label empty and MLE-bench's `grade.py` scores it 0.0 (labels
/// filled with `""`), where a missing value used to make any submission
/// invalid. Under `empty_labels_are_wrong` an empty label is a wrong
/// prediction. The references are scikit-learn 1.5.2's
/// `accuracy_score(t, p)` = 0.4 and `f1_score(t, p, average="macro")` = 0.3
/// with `p = pd.Series(["blast", None, "hispa", None, "blast"]).fillna("")`.
#[test]
fn empty_labels_score_as_wrong_predictions_when_the_rules_say_so() {
    let csv = "id,label\np1,blast\np2,\np3,hispa\np4,\np5,blast\n";
    for (metric, expected) in [("accuracy", 0.4), ("f1_macro", 0.3)] {
        let mut env = text_label_env(metric);
        let e = score_err(&env, csv);
        assert!(matches!(e, Error::MissingValue { row: 2, .. }), "{metric}: {e}");
        env.grading.submission.empty_labels_are_wrong = true;
        let s = StandardGrader.score(&env.grading_task(), &sub(csv)).unwrap();
        assert!((s - expected).abs() < 1e-12, "{metric}: {s}");
    }
    // A submission of nothing but empty labels scores 0, as grade.py has it.
    let mut env = text_label_env("accuracy");
    env.grading.submission.empty_labels_are_wrong = true;
    let s = StandardGrader.score(&env.grading_task(), &sub("id,label\np1,\np2,\np3,\np4,\np5,\n")).unwrap();
    assert_eq!(s, 0.0);
}

/// The rule is written to `grading.json` only when on, so every other
/// environment's file keeps its bytes.
#[test]
fn empty_labels_rule_is_not_written_when_off() {
    let mut env = text_label_env("accuracy");
    let off = serde_json::to_string(&env.grading).unwrap();
    assert!(!off.contains("empty_labels_are_wrong"));
    env.grading.submission.empty_labels_are_wrong = true;
    let on = serde_json::to_string(&env.grading).unwrap();
    assert!(on.contains("\"empty_labels_are_wrong\":true"));
    let back: sandmle_core::GradingSpec = serde_json::from_str(&on).unwrap();
    assert_eq!(back, env.grading);
}
