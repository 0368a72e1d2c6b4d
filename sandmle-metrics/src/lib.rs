//! # sandmle-metrics
//!
//! Exact metrics, submission validation, medal thresholds and grading for
//! SandMLE-rs environments. Every metric agrees with scikit-learn 1.5 (scipy
//! for the correlations, MLE-bench for MAP@k) to 1e-9 relative on the
//! committed reference fixtures, edge cases included: tied scores in AUC
//! and Spearman, log-loss clipping at `eps = 2.220446049250313e-16` without
//! renormalisation, kappa weights over label positions, RMSLE refusing
//! negatives, AUC refusing a single-class truth.
//!
//! Three layers, each usable alone:
//! - plain functions on slices ([`roc_auc`], [`rmse`], [`quadratic_weighted_kappa`], ...)
//!   returning this crate's typed [`Error`];
//! - [`StandardMetric`]: any catalogue metric by name ([`METRICS`]) as a
//!   [`sandmle_core::Metric`] over aligned tables;
//! - [`StandardGrader`]: a [`sandmle_core::Grader`] that validates a
//!   submission (columns, row count, ids, values), aligns it by id — never
//!   by row order — scores it, and places it against MLE-bench thresholds
//!   ([`thresholds_from_scores`]) and HumanRank.
//!
//! Design decision: scikit-learn's behaviour is the specification, including
//! its surprises (accuracy of string labels against numbers is 0 rather than
//! an error; balanced accuracy ignores classes absent from the truth;
//! kappa is NaN when both sides hold one label). Where the reference returns
//! NaN, so do the functions here; the grader turns a NaN score into a valid
//! submission without a score.
//!
//! ```
//! use sandmle_metrics::{Labels, roc_auc, rmse, thresholds_from_scores};
//!
//! # fn main() -> Result<(), sandmle_metrics::Error> {
//! let truth = Labels::from(vec![0.0, 0.0, 1.0, 1.0]);
//! assert_eq!(roc_auc(&truth, &[0.1, 0.4, 0.35, 0.8])?, 0.75);
//! assert_eq!(rmse(&[3.0, 5.0], &[3.0, 3.0])?, 2.0_f64.sqrt());
//! let t = thresholds_from_scores(&[0.99, 0.95, 0.9, 0.8, 0.7])?;
//! assert_eq!((t.gold, t.median, t.is_lower_better), (0.99, 0.9, false));
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod auc;
mod classification;
mod error;
mod grader;
mod label_sets;
mod labels;
mod logloss;
mod map_at_k;
mod registry;
mod regression;
mod thresholds;
mod validate;

pub use auc::{average_precision, mean_column_roc_auc, mean_column_roc_auc_labelled, roc_auc};
pub use classification::{
    Average, accuracy, balanced_accuracy, f1, f1_averaged, mcc, precision, quadratic_weighted_kappa, recall,
};
pub use error::{Error, Result};
pub use grader::StandardGrader;
pub use label_sets::label_set_f1_micro;
pub use labels::Labels;
pub use logloss::{EPS, log_loss, multiclass_log_loss};
pub use map_at_k::{average_precision_at_k, map_at_k};
pub use registry::{ColumnsFn, Input, SCORERS, Scorer, StandardMetric, info};
pub use regression::{mae, mape, mean_column_rmsle, mean_column_spearman, mse, pearson, r2, rmse, rmsle, spearman};
pub use sandmle_core::stats::{average_ranks, median};
pub use sandmle_core::{METRICS, MetricInfo};
pub use sandmle_core::{human_rank, round5};
pub use thresholds::{medal_positions, thresholds_from_scores};
pub use validate::{Aligned, validate_submission};
