//! `sandmle evaluate`, `score` and `thresholds`: output and exit codes.

mod common;

use common::{json, sandmle, seed};

use std::path::Path;

#[test]
fn evaluate_scores_a_valid_submission() {
    let env = seed("breast_cancer");
    let sample = format!("{env}/prepared/public/sample_submission.csv");
    let out = sandmle(&["evaluate", "--env", &env, "--submission_path", &sample, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["score"], 0.5);
    assert_eq!(v["valid_submission"], true);
    assert_eq!(v["is_lower_better"], false);
    for key in [
        "gold_threshold",
        "silver_threshold",
        "bronze_threshold",
        "median_threshold",
        "medal",
        "above_median",
        "human_rank",
        "error",
    ] {
        assert!(v.get(key).is_some(), "missing key {key}");
    }
}

#[test]
fn evaluate_rejects_an_invalid_submission_with_exit_1() {
    let env = seed("breast_cancer");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("sub.csv");
    std::fs::write(&bad, "id,diagnosis\n1,0.5\n").unwrap();
    let out = sandmle(&["evaluate", "--env", &env, "--submission_path", bad.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["valid_submission"], false);
    assert!(v["error"].as_str().unwrap().contains("rows"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "one-line reason: {stderr}");
    assert!(!stderr.contains("panicked"));
}

#[test]
fn evaluate_on_a_broken_environment_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = sandmle(&["evaluate", "--env", dir.path().to_str().unwrap(), "--submission_path", "x.csv"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("grading.json"));
    let out = sandmle(&["evaluate", "--env"]);
    assert_eq!(out.status.code(), Some(2), "bad arguments");
}

#[test]
fn score_computes_one_metric() {
    let dir = tempfile::tempdir().unwrap();
    let answers = dir.path().join("answers.csv");
    let sub = dir.path().join("sub.csv");
    std::fs::write(&answers, "id,y\na,0\nb,0\nc,1\nd,1\n").unwrap();
    std::fs::write(&sub, "id,y\nd,0.8\nc,0.35\nb,0.4\na,0.1\n").unwrap();
    let (a, s) = (answers.to_str().unwrap(), sub.to_str().unwrap());
    let out = sandmle(&["score", "--metric", "roc_auc", "--answers", a, "--submission", s, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["score"], 0.75);
    assert_eq!(v["metric"], "roc_auc");
    assert_eq!(v["is_lower_better"], false);
    let out = sandmle(&["score", "--metric", "no_such_metric", "--answers", a, "--submission", s]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::write(&sub, "id,y\nd,0.8\nc,0.35\n").unwrap();
    let out = sandmle(&["score", "--metric", "rmse", "--answers", a, "--submission", s]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn score_map_at_k_keeps_labels_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let answers = dir.path().join("answers.csv");
    let sub = dir.path().join("sub.csv");
    std::fs::write(&answers, "id,labels\n1,007\n2,b c\n").unwrap();
    std::fs::write(&sub, "id,labels\n1,x 007\n2,c\n").unwrap();
    let out = sandmle(&[
        "score",
        "--metric",
        "map_at_k",
        "--k",
        "5",
        "--answers",
        answers.to_str().unwrap(),
        "--submission",
        sub.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // Row 1: hit at position 2 -> 0.5; row 2: hit at 1 of 2 labels -> 0.5.
    assert_eq!(json(&out)["score"], 0.5);
}

#[test]
fn thresholds_of_a_real_leaderboard() {
    let lb = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../sandmle-metrics/tests/fixtures/leaderboards/dogs-vs-cats-redux-kernels-edition.csv");
    let out = sandmle(&["thresholds", "--leaderboard", lb.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    // Values from MLE-bench's rule computed with pandas (thresholds.json).
    assert_eq!(v["num_teams"], 1315);
    assert_eq!(v["is_lower_better"], true);
    assert_eq!(v["gold"], 0.03882);
    assert_eq!(v["median"], 0.12216);
}
