//! Times metrics and whole-submission grading on CSV files written by
//! `benches/compare_sklearn.py`, printing one JSON line of median seconds.
//!
//! `cargo run --release -p sandmle-metrics --example timing -- DIR N...`

use sandmle_core::csv::{ReadOptions, read_csv};
use sandmle_core::{Direction, GradingSpec, GradingTask, MetricSpec, Modality, TaskKind, TaskSpec};
use sandmle_metrics::{Labels, StandardGrader, log_loss, rmse, roc_auc};
use std::time::Instant;

fn median_seconds(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(&args[1]);
    let spec = GradingSpec::new(TaskSpec {
        id: "timing".into(),
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
    let mut out = serde_json::Map::new();
    for n in &args[2..] {
        let (a_path, s_path) = (dir.join(format!("answers_{n}.csv")), dir.join(format!("submission_{n}.csv")));
        let answers = read_csv(&a_path, &ReadOptions::with_id("id"))?;
        let sub = read_csv(&s_path, &ReadOptions::with_id("id"))?;
        let task = GradingTask::new(&spec, &answers, None);
        let aligned = sandmle_metrics::validate_submission(&spec, sandmle_metrics::Input::Probability, &answers, &sub)?;
        let truth = aligned.truth.numeric("target")?.to_vec();
        let pred = aligned.prediction.numeric("target")?.to_vec();
        let labels = Labels::from(truth.clone());
        let reps = if n.len() > 6 { 7 } else { 25 };
        let grade = median_seconds(reps, || {
            let answers = read_csv(&a_path, &ReadOptions::with_id("id")).unwrap_or_default();
            let task = GradingTask::new(&spec, &answers, None);
            let sub = StandardGrader.read_submission(&task, &s_path).unwrap_or_default();
            std::hint::black_box(StandardGrader.score(&task, &sub).ok());
        });
        let auc = roc_auc(&labels, &pred)?;
        let _ = task;
        out.insert(
            n.clone(),
            serde_json::json!({
                "roc_auc": median_seconds(reps, || { std::hint::black_box(roc_auc(&labels, &pred).ok()); }),
                "log_loss": median_seconds(reps, || { std::hint::black_box(log_loss(&labels, &pred).ok()); }),
                "rmse": median_seconds(reps, || { std::hint::black_box(rmse(&truth, &pred).ok()); }),
                "grade_from_csv": grade,
                "auc_value": auc,
            }),
        );
    }
    println!("{}", serde_json::Value::Object(out));
    Ok(())
}
