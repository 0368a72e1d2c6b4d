//! Metric and grading speed at 1e3, 1e5 and 1e6 rows.
//!
//! `cargo bench -p sandmle-metrics`. The side-by-side comparison with
//! scikit-learn is `benches/compare_sklearn.py`.

// criterion_group! generates undocumented public functions.
#![allow(missing_docs)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sandmle_core::csv::{ReadOptions, read_csv, write_csv};
use sandmle_core::{Column, Direction, GradingSpec, GradingTask, MetricSpec, Modality, Table, TaskKind, TaskSpec};
use sandmle_metrics::{Labels, StandardGrader, log_loss, rmse, roc_auc};
use std::hint::black_box;

/// A deterministic pseudo-random stream (SplitMix64), enough for bench data.
fn stream(seed: u64) -> impl FnMut() -> f64 {
    let mut s = seed;
    move || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Binary truth and a correlated probability, rounded to 4 decimals so
/// that ties occur as in real submissions.
fn binary(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut r = stream(n as u64);
    let truth: Vec<f64> = (0..n).map(|_| if r() < 0.3 { 1.0 } else { 0.0 }).collect();
    let score = truth.iter().map(|&t| ((0.3 * t + 0.7 * r()) * 1e4).round() / 1e4).collect();
    (truth, score)
}

const SIZES: [usize; 3] = [1_000, 100_000, 1_000_000];

fn metrics(c: &mut Criterion) {
    let mut g = c.benchmark_group("metric");
    for n in SIZES {
        let (truth, score) = binary(n);
        let labels = Labels::from(truth.clone());
        g.bench_with_input(BenchmarkId::new("roc_auc", n), &n, |b, _| b.iter(|| roc_auc(black_box(&labels), &score)));
        g.bench_with_input(BenchmarkId::new("log_loss", n), &n, |b, _| b.iter(|| log_loss(black_box(&labels), &score)));
        g.bench_with_input(BenchmarkId::new("rmse", n), &n, |b, _| b.iter(|| rmse(black_box(&truth), &score)));
    }
    g.finish();
}

fn grading(c: &mut Criterion) {
    let mut g = c.benchmark_group("grade_from_csv");
    g.sample_size(10);
    let dir = tempfile::tempdir().unwrap();
    for n in SIZES {
        let (truth, score) = binary(n);
        let ids: Column = Column::Text((0..n).map(|i| Some(format!("id{i:07}").into())).collect());
        let answers = Table::from_columns([("id", ids.clone()), ("target", Column::Numeric(truth))]).unwrap();
        let sub = Table::from_columns([("id", ids), ("target", Column::Numeric(score))]).unwrap();
        let (a_path, s_path) = (dir.path().join(format!("a{n}.csv")), dir.path().join(format!("s{n}.csv")));
        write_csv(&answers, &a_path).unwrap();
        write_csv(&sub, &s_path).unwrap();
        let spec = GradingSpec::new(TaskSpec {
            id: "bench".into(),
            modality: Modality::Tabular,
            kind: TaskKind::BinaryClassification,
            id_column: "id".into(),
            target_columns: vec!["target".into()],
            prediction_columns: vec!["target".into()],
            metric: MetricSpec::named("roc_auc"),
            direction: Direction::HigherIsBetter,
            images: None,
            train_only_columns: Vec::new(),
            group_column: None,
        });
        g.bench_with_input(BenchmarkId::new("roc_auc", n), &n, |b, _| {
            b.iter(|| {
                let answers = read_csv(&a_path, &ReadOptions::with_id("id")).unwrap();
                let task = GradingTask::new(&spec, &answers, None);
                let sub = StandardGrader.read_submission(&task, &s_path).unwrap();
                StandardGrader.score(&task, &sub).unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, metrics, grading);
criterion_main!(benches);
