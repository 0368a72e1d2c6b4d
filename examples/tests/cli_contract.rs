//! The command line's contract (DESIGN §4): with `--json` one JSON object
//! on stdout for every outcome of every subcommand, one bounded line on
//! stderr, exit 1 for the submission's or solution's fault and 2 for bad
//! arguments or a broken environment — and a broken environment is found
//! before anything runs.

mod common;

use common::{sandmle, seed};
use sandmle_core::{Environment, MetricSpec, Thresholds, WriteOptions};
use std::path::Path;
use std::process::Output;

/// The one JSON object `out` printed.
fn one_object(out: &Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "one line of JSON on stdout: {stdout}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert!(v.is_object(), "{v}");
    v
}

fn one_line_on_stderr(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "one line on stderr: {stderr}");
    assert!(!stderr.contains("panicked"));
    stderr
}

#[test]
fn every_subcommand_failure_is_one_json_object() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let m = missing.to_str().unwrap();
    let wine = seed("wine");
    let cases: Vec<Vec<&str>> = vec![
        vec!["evaluate", "--env", m, "--submission_path", "x.csv"],
        vec!["evaluate", "--env"],
        vec!["score", "--metric", "no_such_metric", "--answers", m, "--submission", m],
        vec!["score", "--metric", "rmse", "--answers", m, "--submission", m],
        vec!["thresholds", "--leaderboard", m],
        vec!["import", "--competition", m, "--metric", "rmse", "--out", m],
        vec!["run", "--env", m, "--pipeline", m],
        vec!["run", "--env", &wine, "--pipeline", m],
        vec!["run", "--env", &wine, "--pipeline", m, "--timeout", "-1"],
        vec!["panel", "--env", m],
        vec!["shrink", "--seed-env", m, "--seed", "1", "--out", m],
        vec!["shrink", "--seed-env", &wine, "--seed", "1", "--train-rows", "5", "--out", m],
        vec!["generate", "--seed-env", &wine, "--per-seed", "18446744073709551615", "--seed", "1", "--out", m],
        vec!["generate", "--seed-env", &wine, "--per-seed", "0", "--seed", "1", "--out", m],
        vec!["generate", "--seed-env", &wine, "--shard", "2/1", "--out", m],
        vec!["verify", "--env", m],
        vec!["seeds", "--seeds", m],
        vec!["no-such-subcommand"],
    ];
    for args in cases {
        let mut with_json = args.clone();
        with_json.push("--json");
        let out = sandmle(&with_json);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let v = one_object(&out);
        let kind = v["error"]["kind"].as_str().unwrap_or_else(|| panic!("{args:?}: {v}"));
        assert!(["bad_arguments", "broken_environment", "system"].contains(&kind), "{args:?}: {kind}");
        assert!(!v["error"]["message"].as_str().unwrap().is_empty());
        one_line_on_stderr(&out);
    }
}

/// An environment that cannot grade anything: its metric is unknown.
fn broken_env(root: &Path) -> String {
    let mut env = sandmle::load_seed("breast_cancer").unwrap();
    env.grading.task.metric = MetricSpec::named("no_such_metric");
    let dir = root.join("broken");
    env.write(&dir, &WriteOptions::default()).unwrap();
    dir.display().to_string()
}

#[test]
fn a_broken_environment_exits_2_naming_the_file_and_nothing_runs() {
    let root = tempfile::tempdir().unwrap();
    let env = broken_env(root.path());
    let sample = format!("{env}/prepared/public/sample_submission.csv");
    let code = tempfile::tempdir().unwrap();
    std::fs::write(code.path().join("main.sh"), "echo the-program-ran >&2; cp sample_submission.csv submission.csv\n")
        .unwrap();
    let spec = root.path().join("spec.json");
    std::fs::write(&spec, r#"{"model": {"type": "constant"}}"#).unwrap();
    let runs: Vec<Vec<&str>> = vec![
        vec!["evaluate", "--env", &env, "--submission_path", &sample],
        vec!["verify", "--env", &env],
        vec!["run", "--env", &env, "--pipeline", spec.to_str().unwrap()],
        vec!["run", "--env", &env, "--command", "sh main.sh", "--code-dir", code.path().to_str().unwrap()],
    ];
    for args in runs {
        let mut with_json = args.clone();
        with_json.push("--json");
        let out = sandmle(&with_json);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let v = one_object(&out);
        assert_eq!(v["error"]["kind"], "broken_environment", "{args:?}: {v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains("prepared/private/grading.json"), "{args:?}: {message}");
        assert!(v.get("run").is_none(), "{args:?}: the solution must not have run: {v}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("the-program-ran"));
    }
}

/// A regression environment whose bronze threshold is `bronze`, for the
/// rounding contract.
fn rmse_env(root: &Path, bronze: f64) -> (String, Vec<f64>) {
    let mut env = sandmle::load_seed("diabetes").unwrap();
    let truth = env.answers.numeric("progression").unwrap().to_vec();
    env.grading.thresholds =
        Some(Thresholds { num_teams: 10, is_lower_better: true, gold: 1.0, silver: 2.0, bronze, median: 3.0 });
    env.leaderboard = None;
    let dir = root.join("rmse");
    env.write(&dir, &WriteOptions::default()).unwrap();
    (dir.display().to_string(), truth)
}

/// SandMLE's Score tool and RL reward compare `score` with the thresholds:
/// `score` must be the rounded value the medal was decided on, so a client
/// doing that agrees with `medal` on both sides of a threshold.
#[test]
fn a_client_comparing_score_with_the_thresholds_agrees_with_the_medal() {
    let root = tempfile::tempdir().unwrap();
    let (env, truth) = rmse_env(root.path(), 2.5);
    let ids = Environment::read(&env).unwrap().answers.column("id").unwrap().label_texts();
    for delta in [-5e-6, -2.5e-6, 0.0, 2.5e-6, 4e-6, 5e-6, 6e-6] {
        // A constant offset of `2.5 + delta` gives exactly that RMSE (up to
        // rounding of the sum).
        let offset = 2.5 + delta;
        let mut csv = String::from("id,progression\n");
        for (id, t) in ids.iter().zip(&truth) {
            csv.push_str(&format!("{id},{}\n", t + offset));
        }
        let sub = root.path().join("sub.csv");
        std::fs::write(&sub, csv).unwrap();
        let out = sandmle(&["evaluate", "--env", &env, "--submission_path", sub.to_str().unwrap(), "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let v = one_object(&out);
        let (score, raw) = (v["score"].as_f64().unwrap(), v["score_raw"].as_f64().unwrap());
        assert_eq!(score, (raw * 1e5).round() / 1e5, "score is round(score_raw, 5)");
        let client_bronze =
            score <= v["bronze_threshold"].as_f64().unwrap() && score > v["silver_threshold"].as_f64().unwrap();
        assert_eq!(v["medal"] == "bronze", client_bronze, "delta {delta}: {v}");
        assert_eq!(v["bronze_medal"], client_bronze);
    }
}

#[test]
fn a_nan_score_is_an_invalid_submission() {
    let root = tempfile::tempdir().unwrap();
    let mut env = sandmle::load_seed("diabetes").unwrap();
    env.grading.task.metric = MetricSpec::named("pearson");
    env.grading.task.direction = sandmle_core::Direction::HigherIsBetter;
    env.grading.thresholds =
        Some(Thresholds { num_teams: 10, is_lower_better: false, gold: 0.9, silver: 0.8, bronze: 0.7, median: 0.5 });
    env.leaderboard = None;
    let dir = root.path().join("pearson");
    env.write(&dir, &WriteOptions::default()).unwrap();
    // The sample submission is a constant: Pearson is undefined.
    let sample = dir.join("prepared/public/sample_submission.csv");
    let out =
        sandmle(&["evaluate", "--env", dir.to_str().unwrap(), "--submission_path", sample.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = one_object(&out);
    assert_eq!(v["valid_submission"], false);
    assert!(v["score"].is_null());
    assert!(v["error"].as_str().unwrap().contains("NaN"));
    one_line_on_stderr(&out);
}

#[test]
fn a_100_mb_field_gives_a_bounded_one_line_message() {
    let root = tempfile::tempdir().unwrap();
    let env = seed("breast_cancer");
    let sub = root.path().join("sub.csv");
    let field = format!("{}\n{}", "x".repeat(50 << 20), "y".repeat(50 << 20));
    std::fs::write(&sub, format!("id,\"{field}\"\n1,0.5\n")).unwrap();
    let out = sandmle(&["evaluate", "--env", &env, "--submission_path", sub.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = one_line_on_stderr(&out);
    assert!(stderr.len() < 1000, "{} bytes on stderr", stderr.len());
    assert!(out.stdout.len() < 4000, "{} bytes on stdout", out.stdout.len());
    one_object(&out);
}

#[test]
fn failed_solutions_exit_1_with_their_status_and_tails() {
    let root = tempfile::tempdir().unwrap();
    let spec = root.path().join("spec.json");
    std::fs::write(&spec, r#"{"model": {"type": "knn", "kay": 3}}"#).unwrap();
    let out = sandmle(&["run", "--env", &seed("breast_cancer"), "--pipeline", spec.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = one_object(&out);
    assert_eq!(v["error"]["kind"], "solution_failed");
    assert_eq!(v["run"]["status"], "rejected");
    assert!(v["run"]["reason"].as_str().unwrap().contains("kay"), "{v}");
    assert!(v["grade"].is_null());
    let code = tempfile::tempdir().unwrap();
    std::fs::write(code.path().join("main.sh"), "echo starting; echo oops >&2; exit 3\n").unwrap();
    let out = sandmle(&[
        "run",
        "--env",
        &seed("wine"),
        "--command",
        "sh main.sh",
        "--code-dir",
        code.path().to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v = one_object(&out);
    assert_eq!(v["run"]["status"], "failed");
    assert!(v["run"]["stdout_tail"].as_str().unwrap().contains("starting"));
    assert!(v["run"]["stderr_tail"].as_str().unwrap().contains("oops"));
    assert!(v["timings"].is_object());
}

#[test]
fn a_seed_is_found_by_name_with_seeds() {
    let seeds = sandmle::repository_seeds();
    let elsewhere = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_sandmle"))
            .args(args)
            .current_dir(elsewhere.path())
            .output()
            .unwrap()
    };
    let out = run(&["verify", "--seeds", seeds.to_str().unwrap(), "--env", "wine", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(one_object(&out)["passed"], true);
    // Outside a checkout and without --seeds, a name is not an environment.
    let out = run(&["verify", "--env", "wine", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["seeds", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(one_object(&out)["error"]["message"].as_str().unwrap().contains("--seeds"));
    let out = run(&["seeds", "--seeds", seeds.to_str().unwrap(), "--json"]);
    assert!(one_object(&out)["names"].as_array().unwrap().iter().any(|n| n == "wine"));
}

#[test]
fn an_extra_public_file_fails_verify() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("env");
    sandmle::load_seed("wine").unwrap().write(&dir, &WriteOptions::default()).unwrap();
    std::fs::copy(dir.join("prepared/private/answers.csv"), dir.join("prepared/public/answers.csv")).unwrap();
    let out = sandmle(&["verify", "--env", dir.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(one_object(&out)["error"]["message"].as_str().unwrap().contains("not listed"));
}

#[test]
fn inverted_thresholds_fail_verify() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("env");
    let mut env = sandmle::load_seed("wine").unwrap();
    let t = env.grading.thresholds.as_mut().unwrap();
    (t.gold, t.median) = (t.median, t.gold);
    t.is_lower_better = !t.is_lower_better;
    env.write(&dir, &WriteOptions::default()).unwrap();
    let out = sandmle(&["verify", "--env", dir.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = one_object(&out);
    assert_eq!(v["passed"], false);
    let gates = v["gates"].as_array().unwrap();
    assert!(gates.iter().any(|g| g["gate"] == "thresholds_recorded" && g["passed"] == false), "{v}");
}
