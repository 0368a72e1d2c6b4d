//! Every model runs through a spec on classification and regression seeds
//! and yields a submission the grader accepts.

use sandmle_core::{Environment, Grader};
use sandmle_core::{ExecStatus, Executor, Solution};
use sandmle_exec::{CheckedPipeline, Error, PipelineExecutor, PipelineSpec};
use sandmle_metrics::StandardGrader;
use serde_json::json;

fn seed(name: &str) -> Environment {
    Environment::read(format!("{}/../examples/seeds/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn spec(model: serde_json::Value) -> CheckedPipeline {
    PipelineSpec::from_json(&json!({
        "name": "test",
        "seed": 3,
        "steps": [
            {"op": "impute", "strategy": "median"},
            {"op": "encode", "method": "one_hot", "max_levels": 10},
            {"op": "scale", "method": "standard"}
        ],
        "model": model
    }))
    .unwrap()
}

fn valid_score(env: &Environment, model: serde_json::Value) -> f64 {
    let run = PipelineExecutor::default()
        .run(&spec(model.clone()), &env.public_view())
        .unwrap_or_else(|e| panic!("{model}: {e}"));
    let report = StandardGrader.grade(&env.grading_task(), &run.submission).unwrap();
    assert!(report.valid_submission, "{model}: {:?}", report.error);
    report.score.unwrap()
}

#[test]
fn classifiers_give_valid_submissions() {
    let models = [
        json!({"type": "constant"}),
        json!({"type": "logistic_regression", "c": 1.0}),
        json!({"type": "logistic_regression", "c": null}),
        json!({"type": "decision_tree", "max_depth": 4}),
        json!({"type": "random_forest", "n_trees": 15}),
        json!({"type": "knn", "k": 7}),
        json!({"type": "knn", "k": 3, "distance_weighted": true}),
        json!({"type": "gaussian_nb"}),
        json!({"type": "svm", "c": 1.0}),
        json!({"type": "svm", "kernel": {"kind": "linear"}}),
    ];
    // Binary AUC, multi-class log loss (one column per class), accuracy on 10 digits.
    for name in ["breast_cancer", "wine", "digits"] {
        let mut env = seed(name);
        if name == "digits" {
            // Keep the test quick in debug builds: 400 training rows.
            env.train = env.train.take(&(0..400).collect::<Vec<_>>()).unwrap();
        }
        let constant = valid_score(&env, json!({"type": "constant"}));
        for m in &models {
            let s = valid_score(&env, m.clone());
            // A single tree's probabilities are one-hot: under log loss a
            // few confident mistakes cost more than the constant prior.
            let one_hot_under_log_loss = m["type"] == "decision_tree" && name == "wine";
            if m["type"] != "constant" && !one_hot_under_log_loss {
                let d = env.task().direction;
                assert!(d.better(s, constant), "{name} {m}: {s} vs constant {constant}");
            }
        }
    }
}

#[test]
fn regressors_give_valid_submissions() {
    let env = seed("diabetes");
    let constant = valid_score(&env, json!({"type": "constant"}));
    for m in [
        json!({"type": "constant", "median": true}),
        json!({"type": "linear_regression"}),
        json!({"type": "ridge", "alpha": 1.0}),
        json!({"type": "lasso", "alpha": 0.1}),
        json!({"type": "elastic_net", "alpha": 0.1, "l1_ratio": 0.5}),
        json!({"type": "decision_tree", "max_depth": 3}),
        json!({"type": "random_forest", "n_trees": 20}),
        json!({"type": "knn", "k": 10}),
        json!({"type": "svm", "c": 50.0}),
    ] {
        let s = valid_score(&env, m.clone());
        if m["type"] != "constant" {
            assert!(s < constant, "{m}: rmse {s} vs constant {constant}");
        }
    }
}

#[test]
fn multinomial_nb_on_text_counts() {
    let env = seed("sms_spam");
    let spec = PipelineSpec::from_json(&json!({
        "steps": [{"op": "text", "n_features": 1024, "ngram_max": 2}],
        "model": {"type": "multinomial_nb", "alpha": 1.0}
    }))
    .unwrap();
    let run = PipelineExecutor::default().run(&spec, &env.public_view()).unwrap();
    let report = StandardGrader.grade(&env.grading_task(), &run.submission).unwrap();
    assert!(report.score.unwrap() > 0.9, "{report:?}");
    // With tf-idf the features are no longer counts: a typed error.
    let tfidf = PipelineSpec::from_json(&json!({
        "steps": [{"op": "text", "tfidf": true}],
        "model": {"type": "multinomial_nb"}
    }))
    .unwrap();
    assert!(matches!(PipelineExecutor::default().run(&tfidf, &env.public_view()), Err(Error::BadParameter { .. })));
}

#[test]
fn unfit_models_and_bad_specs_are_typed_errors() {
    let (cls, reg) = (seed("breast_cancer"), seed("diabetes"));
    let run = |env: &Environment, s: CheckedPipeline| PipelineExecutor::default().run(&s, &env.public_view());
    assert!(
        matches!(run(&cls, spec(json!({"type": "ridge"}))), Err(Error::ModelUnfit { model, .. }) if model == "ridge")
    );
    assert!(matches!(run(&reg, spec(json!({"type": "gaussian_nb"}))), Err(Error::ModelUnfit { .. })));
    assert!(matches!(run(&cls, spec(json!({"type": "knn", "k": 100000}))), Err(Error::TooFewRows { .. })));
    assert!(matches!(
        PipelineSpec::from_json(&json!({"model": {"type": "random_forest", "n_trees": 0}})),
        Err(Error::BadParameter { .. })
    ));
    let drop_unknown = PipelineSpec::from_json(
        &json!({"steps": [{"op": "drop", "columns": ["nope"]}], "model": {"type": "constant"}}),
    )
    .unwrap();
    assert!(matches!(run(&cls, drop_unknown), Err(Error::UnknownColumn { .. })));
    // A typo in a field name is caught, not ignored.
    assert!(matches!(PipelineSpec::from_json(&json!({"model": {"type": "knn", "kk": 3}})), Err(Error::Spec { .. })));
    assert!(matches!(
        PipelineSpec::from_json(&json!({"steps": [{"op": "impute"}], "model": {"type": "constant"}})),
        Err(Error::Spec { .. })
    ));
}

#[test]
fn missing_values_need_an_impute_step() {
    let mut env = sandmle_core::testing::tiny_environment();
    env.train = env.train.without(&["colour"]);
    env.test = env.test.without(&["colour"]);
    let spec = PipelineSpec::from_json(&json!({"model": {"type": "logistic_regression"}})).unwrap();
    assert!(
        matches!(PipelineExecutor::default().run(&spec, &env.public_view()), Err(Error::MissingValues { column }) if column == "x")
    );
}

#[test]
fn same_seed_same_submission() {
    let env = seed("wine");
    let s = spec(json!({"type": "random_forest", "n_trees": 10}));
    let a = PipelineExecutor::default().run(&s, &env.public_view()).unwrap().submission;
    let b = PipelineExecutor::default().run(&s, &env.public_view()).unwrap().submission;
    assert_eq!(sandmle_core::csv::to_csv_bytes(&a).unwrap(), sandmle_core::csv::to_csv_bytes(&b).unwrap());
}

/// The executor port says whose fault a failure is: a spec the agent got
/// wrong is a rejected execution, a run past its limit a timed-out one, and
/// only the executor's own faults are errors.
#[test]
fn wrong_specs_are_rejected_executions_not_executor_errors() {
    let env = seed("breast_cancer");
    let exec = PipelineExecutor::default();
    for (spec, why) in [
        (json!({"model": {"type": "ridge"}}), "cannot predict classes"),
        (json!({"model": {"type": "knn", "k": 0}}), "`k`"),
        (json!({"model": {"type": "no_such_model"}}), "invalid pipeline spec"),
        (json!({"steps": [{"op": "shuffle"}], "model": {"type": "constant"}}), "invalid pipeline spec"),
        (json!({"steps": [{"op": "drop", "columns": ["nope"]}], "model": {"type": "constant"}}), "nope"),
    ] {
        let run = exec.execute(&Solution::Pipeline(spec.clone()), &env.public_view()).unwrap();
        match &run.status {
            ExecStatus::Rejected { reason } => assert!(reason.contains(why), "{spec}: {reason}"),
            other => panic!("{spec}: {other:?}"),
        }
        assert!(run.submission.is_none());
    }
    let program = Solution::Program(sandmle_core::Program {
        command: vec!["true".into()],
        code_dir: ".".into(),
        timeout: std::time::Duration::from_secs(1),
    });
    assert!(exec.execute(&program, &env.public_view()).is_err(), "programs are not this executor's to run");
}

#[test]
fn the_pipeline_executor_honours_its_time_limit() {
    let env = seed("breast_cancer");
    let slow = json!({"model": {"type": "hist_forest", "n_trees": 10000}});
    let exec = PipelineExecutor::with_time_limit(std::time::Duration::from_millis(20));
    let run = exec.execute(&Solution::Pipeline(slow.clone()), &env.public_view()).unwrap();
    assert_eq!(run.status, ExecStatus::TimedOut);
    assert!(run.submission.is_none());
    let fast = json!({"model": {"type": "constant"}});
    let run = exec.execute(&Solution::Pipeline(fast), &env.public_view()).unwrap();
    assert_eq!(run.status, ExecStatus::Completed);
}
