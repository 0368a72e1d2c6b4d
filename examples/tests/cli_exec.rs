//! `sandmle run` (both modes) and `sandmle panel`.

mod common;

use common::{json, sandmle, seed};

#[test]
fn run_a_pipeline_spec_and_grade_it() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.json");
    std::fs::write(
        &spec,
        r#"{"name": "lr", "steps": [{"op": "scale", "method": "standard"}], "model": {"type": "logistic_regression"}}"#,
    )
    .unwrap();
    let out_csv = dir.path().join("submission.csv");
    let out = sandmle(&[
        "run",
        "--env",
        &seed("breast_cancer"),
        "--pipeline",
        spec.to_str().unwrap(),
        "--out",
        out_csv.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert!(v["grade"]["score"].as_f64().unwrap() > 0.95);
    for phase in ["read_env_us", "load_us", "preprocess_us", "fit_us", "predict_us", "write_us", "grade_us"] {
        assert!(v["timings"][phase].is_u64(), "missing {phase}: {}", v["timings"]);
    }
    assert!(out_csv.exists());
    // A spec with an unknown field is the solution's fault: exit 1.
    std::fs::write(&spec, r#"{"model": {"type": "knn", "kay": 3}}"#).unwrap();
    let out = sandmle(&["run", "--env", &seed("breast_cancer"), "--pipeline", spec.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn run_a_program_in_the_process_executor() {
    let code = tempfile::tempdir().unwrap();
    std::fs::write(code.path().join("main.sh"), "cp sample_submission.csv submission.csv\n").unwrap();
    let out = sandmle(&[
        "run",
        "--env",
        &seed("wine"),
        "--command",
        "sh main.sh",
        "--code-dir",
        code.path().to_str().unwrap(),
        "--timeout",
        "30",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["run"]["executor"], "process");
    assert!(v["run"]["isolation"].as_str().unwrap().len() > 10);
    let expected = (3.0f64).ln();
    assert!((v["grade"]["score_raw"].as_f64().unwrap() - expected).abs() < 1e-9, "uniform over 3 classes: ln 3");
    // A program that writes nothing: exit 1 with the reason.
    std::fs::write(code.path().join("main.sh"), "true\n").unwrap();
    let out = sandmle(&[
        "run",
        "--env",
        &seed("wine"),
        "--command",
        "sh main.sh",
        "--code-dir",
        code.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn panel_prints_a_leaderboard() {
    let out = sandmle(&["panel", "--env", &seed("wine"), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    let lb = v["panel"]["leaderboard"]["entries"].as_array().unwrap();
    assert!(lb.len() >= 20);
    assert!(
        v["thresholds"]["gold"].as_f64().unwrap() < v["thresholds"]["median"].as_f64().unwrap(),
        "log loss: lower is better"
    );
}
