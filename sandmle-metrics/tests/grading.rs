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
    let a = g.grade(&env.grading_task(), &ordered);
    let b = g.grade(&env.grading_task(), &shuffled);
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
    let r = StandardGrader.grade(&env.grading_task(), &sub("id,label\nr6,0.5\nr7,0.4\nr8,0.9\nr9,0.2\n"));
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
        matches!(score_err(&env, "id,prob\nr6,0.1\nr7,0.8\nr8,0.9\nr9,0.2\n"), Error::MissingColumns { columns } if columns == ["label"])
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
    let r = StandardGrader.grade_file(&env.grading_task(), std::path::Path::new("/nonexistent/sub.csv"));
    assert!(!r.valid_submission && r.score.is_none());
    assert!(r.error.unwrap().contains("not found"));
}

#[test]
fn extra_columns_can_be_allowed() {
    let mut env = env();
    env.grading.submission.allow_extra_columns = true;
    let r = StandardGrader.grade(&env.grading_task(), &sub("id,label,x\nr6,0.1,1\nr7,0.8,1\nr8,0.9,1\nr9,0.2,1\n"));
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
fn a_nan_score_is_valid_without_a_score() {
    let mut env = tiny_environment();
    env.grading.task.metric = MetricSpec::named("pearson");
    let r = StandardGrader.grade(&env.grading_task(), &sub("id,label\nr6,0.5\nr7,0.5\nr8,0.5\nr9,0.5\n"));
    assert!(r.valid_submission);
    assert!(r.score.is_none() && r.error.is_some());
}

#[test]
fn grader_works_as_a_trait_object() {
    let env = env();
    let g: Box<dyn Grader> = Box::new(StandardGrader);
    let t = g.thresholds(env.leaderboard.as_ref().unwrap()).unwrap();
    assert_eq!((t.gold, t.silver, t.bronze, t.median), (1.0, 1.0, 0.9, 0.75));
    let r = g.grade(&env.grading_task(), &env.sample_submission);
    assert_eq!(r.score, Some(0.5));
}
