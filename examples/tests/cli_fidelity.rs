//! `sandmle fidelity`: one row per seed with tau over the shrinks, the
//! separable-pair tau and the learnability ratio, identical across thread
//! counts; out-of-range settings refused.

mod common;

use common::{json, sandmle, sandmle_with_threads};

#[test]
fn fidelity_reports_tau_over_five_shrinks_the_separable_pairs_and_learnability_identically_on_any_thread_count() {
    let args = ["--json", "fidelity", "--seed-env", "wine", "--synthesized", "2", "--no-sensitivity"];
    let one = sandmle_with_threads(&args, "1");
    assert_eq!(one.status.code(), Some(0), "{}", String::from_utf8_lossy(&one.stderr));
    let two = sandmle_with_threads(&args, "2");
    assert_eq!(one.stdout, two.stdout, "the same figures on one and two threads");
    let v = json(&one);
    let seed = &v["seeds"][0];
    assert_eq!(seed["seed"], "wine");
    assert_eq!(seed["metric"], "multiclass_log_loss");
    let tau = &seed["tau"];
    assert_eq!(tau["n"], 5, "five shrinks: {tau}");
    let (min, median, max) =
        (tau["min"].as_f64().unwrap(), tau["median"].as_f64().unwrap(), tau["max"].as_f64().unwrap());
    assert!(-1.0 <= min && min <= median && median <= max && max <= 1.0, "{tau}");
    // The panel ranks wine's easy task much as the full seed does.
    assert!(median > 0.5, "{tau}");
    let (separable, pairs) =
        (seed["separable_pairs"][0].as_u64().unwrap(), seed["separable_pairs"][1].as_u64().unwrap());
    assert!(0 < separable && separable <= pairs, "{seed}");
    assert!(seed["separable_tau"]["median"].as_f64().unwrap() >= median - 1e-9, "separable pairs rank no worse");
    let (micro, synth) =
        (seed["micro_gain"]["median"].as_f64().unwrap(), seed["synthesized_gain"]["median"].as_f64().unwrap());
    assert!((seed["learnability_ratio"].as_f64().unwrap() - synth / micro).abs() < 1e-12);
    assert_eq!(seed["sensitivity"].as_array().unwrap().len(), 1, "no sensitivity runs asked for");
}

#[test]
fn fidelity_refuses_fewer_than_five_shrinks_and_unknown_seeds() {
    for args in
        [&["--json", "fidelity", "--shrinks", "4"][..], &["--json", "fidelity", "--seed-env", "no-such-seed"][..]]
    {
        let o = sandmle(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(json(&o)["error"]["kind"], "bad_arguments");
    }
}

/// The committed solution programs, ranked on the full task and on each
/// micro environment in the sandbox, with the Python of `SANDMLE_PYTHON`
/// (scikit-learn's; CI's sandbox virtualenv).
#[test]
fn fidelity_ranks_the_committed_solution_programs_on_micro_and_full_tasks() {
    if !common::bwrap_or_skip() {
        return;
    }
    let Some(python) = std::env::var_os("SANDMLE_PYTHON").filter(|p| !p.is_empty()) else {
        assert!(std::env::var_os("SANDMLE_REQUIRE_BWRAP").is_none(), "CI sets SANDMLE_PYTHON");
        eprintln!("SANDMLE_PYTHON (a Python with scikit-learn) is not set: this test is skipped");
        return;
    };
    let programs = sandmle::repository_seeds().parent().unwrap().join("solutions");
    let args = [
        "--json",
        "fidelity",
        "--seed-env",
        "wine",
        "--synthesized",
        "0",
        "--no-sensitivity",
        "--programs",
        programs.to_str().unwrap(),
        "--python",
        python.to_str().unwrap(),
    ];
    let o = sandmle(&args);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    let p = &v["seeds"][0]["programs"];
    let names: Vec<&str> = p["programs"].as_array().unwrap().iter().map(|x| x["program"].as_str().unwrap()).collect();
    assert_eq!(names, ["forest", "gbm", "gbm_tuned", "knn", "linear", "stack"]);
    assert_eq!(p["failed_runs"], serde_json::json!([0, 36]), "every program runs on the full task and 5 micro ones");
    for x in p["programs"].as_array().unwrap() {
        // Multiclass log loss: every program beats the uniform prediction (ln 3).
        let full = x["full"].as_f64().unwrap();
        assert!(full < 3f64.ln(), "{x}");
    }
    assert_eq!(p["tau"]["n"], 5);
    assert_eq!(v["median_program_tau"]["median"], p["tau"]["median"]);
}
