//! [`TaskDna`]: a task's structure stripped of its meaning.
//!
//! The DNA holds what a generator needs to build a new task of the same
//! shape — types, counts, cardinalities, missingness, marginal shapes, label
//! balance, metric — and nothing that names or describes the original data:
//! features are listed by position, never by name, and categorical levels by
//! share, never by value.

use crate::catalogue::MetricFamily;
use crate::table::ColumnType;
use crate::task::{Direction, MetricSpec, Modality, TaskKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The shape of a numeric distribution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NumericShape {
    /// Mean of the present values.
    pub mean: f64,
    /// Standard deviation (population).
    pub sd: f64,
    /// Skewness (population, Fisher).
    pub skew: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// The 5th, 25th, 50th, 75th and 95th percentiles.
    pub quantiles: [f64; 5],
    /// All present values are whole numbers.
    pub integer: bool,
    /// Number of distinct present values.
    pub distinct: usize,
}

/// One feature column, by type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FeatureDna {
    /// A numeric feature.
    Numeric {
        /// Share of missing values.
        missing_rate: f64,
        /// Marginal shape.
        shape: NumericShape,
    },
    /// A categorical feature.
    Categorical {
        /// Share of missing values.
        missing_rate: f64,
        /// Number of distinct levels.
        cardinality: usize,
        /// Level shares, largest first (at most 50 kept).
        shares: Vec<f64>,
    },
    /// A free-text feature.
    Text {
        /// Share of missing values.
        missing_rate: f64,
        /// Mean number of whitespace-separated tokens.
        mean_tokens: f64,
        /// Standard deviation of the token count.
        sd_tokens: f64,
        /// Number of distinct lower-cased tokens.
        vocab_size: usize,
    },
}

impl FeatureDna {
    /// The column type this feature has.
    pub fn column_type(&self) -> ColumnType {
        match self {
            FeatureDna::Numeric { .. } => ColumnType::Numeric,
            FeatureDna::Categorical { .. } => ColumnType::Categorical,
            FeatureDna::Text { .. } => ColumnType::Text,
        }
    }

    /// Its share of missing values.
    pub fn missing_rate(&self) -> f64 {
        match self {
            FeatureDna::Numeric { missing_rate, .. }
            | FeatureDna::Categorical { missing_rate, .. }
            | FeatureDna::Text { missing_rate, .. } => *missing_rate,
        }
    }
}

/// One target column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TargetDna {
    /// Discrete classes.
    Classes {
        /// Class shares in sorted label order.
        shares: Vec<f64>,
        /// Labels are numbers (`0, 1, ...`) rather than names.
        numeric_labels: bool,
    },
    /// A continuous target.
    Continuous {
        /// Marginal shape.
        shape: NumericShape,
    },
}

/// How much signal the task holds: a quick model against the constant
/// baseline, scored with the task's metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signal {
    /// Score of the constant (prior) prediction.
    pub constant_score: f64,
    /// Cross-validated score of a quick model.
    pub model_score: f64,
    /// `model_score - constant_score`, sign-adjusted so positive is better.
    pub gap: f64,
}

/// A task's structure without its semantics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskDna {
    /// What the data is made of.
    pub modality: Modality,
    /// What is predicted.
    pub kind: TaskKind,
    /// The metric.
    pub metric: MetricSpec,
    /// Its direction.
    pub direction: Direction,
    /// The metric's family, from the catalogue.
    pub metric_family: MetricFamily,
    /// Training rows.
    pub n_train: usize,
    /// Test rows.
    pub n_test: usize,
    /// The features, in column order, without names.
    pub features: Vec<FeatureDna>,
    /// The targets, one per target column.
    pub targets: Vec<TargetDna>,
    /// Number of submission columns besides the id.
    pub n_prediction_columns: usize,
    /// Pearson correlations between numeric features whose absolute value
    /// exceeds 0.3, as `(i, j, r)` with `i < j` feature positions and `r`
    /// signed.
    pub correlations: Vec<(usize, usize, f64)>,
    /// Signal strength, when measured.
    pub signal: Option<Signal>,
    /// The shape of the task's image files, when its data are images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<crate::images::ImageDna>,
    /// The shape of the task's audio clips, when its data are clips.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio: Option<crate::audio::AudioDna>,
    /// The shape of the task's images, when its rows are their pixels
    /// ([`crate::pixel_rows`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixels: Option<crate::pixel_rows::PixelDna>,
}

impl TaskDna {
    /// Number of features of each type.
    pub fn counts_by_type(&self) -> BTreeMap<ColumnType, usize> {
        let mut m = BTreeMap::new();
        for f in &self.features {
            *m.entry(f.column_type()).or_insert(0) += 1;
        }
        m
    }
}
