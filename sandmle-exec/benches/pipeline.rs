//! The default pipeline on a 200-row, 20-feature task: the histogram
//! forest (the default) against smartcore's forest, and a linear model;
//! and multinomial logistic regression on 200 rows of digits (64 features,
//! 10 classes).
//!
//! `cargo bench -p sandmle-exec`. The side-by-side comparison with
//! scikit-learn is `benches/compare_sklearn.py`.

// criterion_group! generates undocumented public functions.
#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use sandmle_core::{Environment, Grader};
use sandmle_exec::{CheckedPipeline, PipelineExecutor, PipelineSpec};
use sandmle_metrics::StandardGrader;
use std::hint::black_box;

/// breast_cancer cut to its first 200 training rows and 20 features.
fn micro() -> Environment {
    let mut env = Environment::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/seeds/breast_cancer")).unwrap();
    let keep: Vec<String> = env.train.names()[..21].iter().cloned().chain(["diagnosis".to_owned()]).collect();
    env.train = env.train.select(&keep).unwrap().take(&(0..200).collect::<Vec<_>>()).unwrap();
    env.test = env.test.select(&keep[..21]).unwrap();
    env
}

/// digits cut to its first 200 training rows.
fn digits() -> Environment {
    let mut env = Environment::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/seeds/digits")).unwrap();
    env.train = env.train.take(&(0..200).collect::<Vec<_>>()).unwrap();
    env
}

fn spec(model: &str) -> CheckedPipeline {
    PipelineSpec::from_json(&serde_json::json!({
        "steps": [{"op": "impute", "strategy": "median"}, {"op": "scale", "method": "standard"}],
        "model": serde_json::from_str::<serde_json::Value>(model).unwrap(),
    }))
    .unwrap()
}

fn pipeline(c: &mut Criterion) {
    let env = micro();
    let mut g = c.benchmark_group("fit_predict_grade_200x20");
    for (name, model) in [
        ("hist_forest_100", r#"{"type": "hist_forest", "n_trees": 100}"#),
        ("smartcore_forest_100", r#"{"type": "random_forest", "n_trees": 100}"#),
        ("logistic", r#"{"type": "logistic_regression"}"#),
    ] {
        let s = spec(model);
        g.bench_function(name, |b| {
            b.iter(|| {
                let run = PipelineExecutor::default().run(black_box(&s), &env.public_view()).unwrap();
                StandardGrader.grade(&env.grading_task(), &run.submission).unwrap().score
            })
        });
    }
    g.finish();
    let env = digits();
    let s = spec(r#"{"type": "logistic_regression"}"#);
    c.bench_function("fit_predict_grade_digits_200x64/logistic", |b| {
        b.iter(|| {
            let run = PipelineExecutor::default().run(black_box(&s), &env.public_view()).unwrap();
            StandardGrader.grade(&env.grading_task(), &run.submission).unwrap().score
        })
    });
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
