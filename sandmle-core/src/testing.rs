//! Small hand-made environments for tests, examples and documentation.

use crate::dna::{FeatureDna, NumericShape, TargetDna, TaskDna};
use crate::environment::Environment;
use crate::grading::GradingSpec;
use crate::provenance::Provenance;
use crate::table::{Column, Table};
use crate::task::{Direction, MetricSpec, Modality, TaskKind, TaskSpec};

fn ids(range: std::ops::Range<usize>) -> Column {
    Column::Text(range.map(|i| Some(format!("r{i}").into())).collect())
}

/// A binary-classification environment of 6 training and 4 test rows, scored
/// by `roc_auc`, with no thresholds.
pub fn tiny_environment() -> Environment {
    let train = Table::from_columns([
        ("id", ids(0..6)),
        ("x", Column::Numeric(vec![0.1, 0.9, 0.2, 0.8, f64::NAN, 0.7])),
        ("colour", Column::categorical([Some("red"), Some("blue"), None, Some("blue"), Some("red"), Some("blue")])),
        ("label", Column::Numeric(vec![0.0, 1.0, 0.0, 1.0, 0.0, 1.0])),
    ]);
    let test = Table::from_columns([
        ("id", ids(6..10)),
        ("x", Column::Numeric(vec![0.3, 0.6, 0.95, 0.05])),
        ("colour", Column::categorical([Some("red"), Some("blue"), Some("blue"), None])),
    ]);
    let sample = Table::from_columns([("id", ids(6..10)), ("label", Column::Numeric(vec![0.5; 4]))]);
    let answers = Table::from_columns([("id", ids(6..10)), ("label", Column::Numeric(vec![0.0, 1.0, 1.0, 0.0]))]);
    let task = TaskSpec {
        id: "tiny".into(),
        modality: Modality::Tabular,
        kind: TaskKind::BinaryClassification,
        id_column: "id".into(),
        target_columns: vec!["label".into()],
        prediction_columns: vec!["label".into()],
        metric: MetricSpec::named("roc_auc"),
        direction: Direction::HigherIsBetter,
        images: None,
        train_only_columns: Vec::new(),
        group_column: None,
    };
    // The tables above are well formed, so building them cannot fail.
    Environment {
        description: "# Tiny\n\nPredict `label` from `x` and `colour`.\n".into(),
        train: train.unwrap_or_default(),
        test: test.unwrap_or_default(),
        sample_submission: sample.unwrap_or_default(),
        answers: answers.unwrap_or_default(),
        grading: GradingSpec::new(task),
        leaderboard: None,
        provenance: Provenance::new("tiny", "hand-made", "1", 0),
        images: crate::ImageSet::new(),
    }
}

/// A DNA of the shape of [`tiny_environment`].
pub fn tiny_dna() -> TaskDna {
    TaskDna {
        modality: Modality::Tabular,
        kind: TaskKind::BinaryClassification,
        metric: MetricSpec::named("roc_auc"),
        direction: Direction::HigherIsBetter,
        metric_family: crate::MetricFamily::Auc,
        n_train: 6,
        n_test: 4,
        features: vec![
            FeatureDna::Numeric {
                missing_rate: 1.0 / 6.0,
                shape: NumericShape {
                    mean: 0.54,
                    sd: 0.33,
                    skew: -0.2,
                    min: 0.1,
                    max: 0.9,
                    quantiles: [0.12, 0.2, 0.7, 0.8, 0.88],
                    integer: false,
                    distinct: 5,
                },
            },
            FeatureDna::Categorical { missing_rate: 1.0 / 6.0, cardinality: 2, shares: vec![0.6, 0.4] },
        ],
        targets: vec![TargetDna::Classes { shares: vec![0.5, 0.5], numeric_labels: true }],
        n_prediction_columns: 1,
        correlations: vec![],
        signal: None,
        images: None,
        audio: None,
        pixels: None,
    }
}

/// [`tiny_environment`] as an image task: the same rows with no feature
/// columns, each row's 4 x 4 grey PNG in `public/images/<id>.png` (bright
/// for label 1, dark for label 0; the test rows' brightness follows their
/// answers).
pub fn tiny_image_environment() -> Environment {
    let mut env = tiny_environment();
    env.grading.task.modality = Modality::Image;
    env.grading.task.images = Some(crate::ImageSpec::png(4, 4, 1));
    env.train = env.train.select(&["id".to_string(), "label".to_string()]).unwrap_or_default();
    env.test = env.test.select(&["id".to_string()]).unwrap_or_default();
    let mut images = crate::ImageSet::new();
    for t in [&env.train, &env.answers] {
        let (Ok(ids), Ok(labels)) = (t.column("id"), t.column("label")) else { continue };
        for r in 0..t.n_rows() {
            let one = labels.get_str(r).and_then(|s| s.parse::<f64>().ok()) == Some(1.0);
            let level = if one { 200 } else { 40 } + r as u8;
            let png = crate::encode_png(&crate::Pixels { width: 4, height: 4, channels: 1, data: vec![level; 16] });
            let id = ids.get_str(r).unwrap_or_default();
            let _ = images.insert(format!("{id}.png"), png.unwrap_or_default());
        }
    }
    env.images = images;
    env
}
