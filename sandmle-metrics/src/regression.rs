//! Regression metrics: errors, R², RMSLE, MAPE and the correlations.

use crate::error::{Error, Result};
use sandmle_core::stats::{average_ranks, pearson_correlation};

/// Checks lengths, emptiness and finiteness of both sides.
fn check(truth: &[f64], pred: &[f64]) -> Result<()> {
    if truth.len() != pred.len() {
        return Err(Error::LengthMismatch { truth: truth.len(), prediction: pred.len() });
    }
    if truth.is_empty() {
        return Err(Error::Empty);
    }
    for (side, v) in [("truth", truth), ("prediction", pred)] {
        if let Some(row) = v.iter().position(|x| !x.is_finite()) {
            return Err(Error::NonFinite { side, index: row });
        }
    }
    Ok(())
}

fn mean_of(n: usize, f: impl Iterator<Item = f64>) -> f64 {
    f.sum::<f64>() / n as f64
}

/// Mean squared error.
///
/// # Errors
/// Length mismatch, no rows, non-finite values.
pub fn mse(truth: &[f64], pred: &[f64]) -> Result<f64> {
    check(truth, pred)?;
    Ok(mean_of(truth.len(), truth.iter().zip(pred).map(|(t, p)| (t - p) * (t - p))))
}

/// Root mean squared error.
///
/// # Errors
/// As [`mse`].
pub fn rmse(truth: &[f64], pred: &[f64]) -> Result<f64> {
    mse(truth, pred).map(f64::sqrt)
}

/// Mean absolute error.
///
/// # Errors
/// As [`mse`].
pub fn mae(truth: &[f64], pred: &[f64]) -> Result<f64> {
    check(truth, pred)?;
    Ok(mean_of(truth.len(), truth.iter().zip(pred).map(|(t, p)| (t - p).abs())))
}

/// Coefficient of determination (`r2_score`): NaN for a single row; for a
/// constant truth 1 if predicted exactly, else 0.
///
/// # Errors
/// As [`mse`].
pub fn r2(truth: &[f64], pred: &[f64]) -> Result<f64> {
    check(truth, pred)?;
    if truth.len() < 2 {
        return Ok(f64::NAN);
    }
    let mean = mean_of(truth.len(), truth.iter().copied());
    let ss_res: f64 = truth.iter().zip(pred).map(|(t, p)| (t - p) * (t - p)).sum();
    let ss_tot: f64 = truth.iter().map(|t| (t - mean) * (t - mean)).sum();
    Ok(if ss_tot == 0.0 { if ss_res == 0.0 { 1.0 } else { 0.0 } } else { 1.0 - ss_res / ss_tot })
}

/// Root mean squared logarithmic error. A value at or below -1, where
/// `log(1 + x)` is undefined, is an error, as in scikit-learn 1.9
/// (`root_mean_squared_log_error`); values in `(-1, 0)` are scored (1.5
/// refused every negative value).
///
/// # Errors
/// [`Error::LogDomain`] for a value at or below -1, and as [`mse`].
pub fn rmsle(truth: &[f64], pred: &[f64]) -> Result<f64> {
    check(truth, pred)?;
    for (side, v) in [("truth", truth), ("prediction", pred)] {
        if let Some(row) = v.iter().position(|&x| x <= -1.0) {
            return Err(Error::LogDomain { metric: "rmsle", side, index: row });
        }
    }
    let sq = truth.iter().zip(pred).map(|(t, p)| (t.ln_1p() - p.ln_1p()).powi(2));
    Ok(mean_of(truth.len(), sq).sqrt())
}

/// Mean over columns of [`rmsle`].
///
/// # Errors
/// Column count mismatch, no columns, or any column's error.
pub fn mean_column_rmsle(truth: &[Vec<f64>], pred: &[Vec<f64>]) -> Result<f64> {
    mean_over_columns(truth, pred, rmsle)
}

/// Mean of per-column [`spearman`] correlations (MLE-bench's column-wise
/// Spearman): NaN when any column's is (a constant column each side).
///
/// # Errors
/// Column-count mismatch, no columns, and [`spearman`]'s errors.
pub fn mean_column_spearman(truth: &[Vec<f64>], pred: &[Vec<f64>]) -> Result<f64> {
    mean_over_columns(truth, pred, spearman)
}

/// The mean of `metric` over paired columns.
///
/// # Errors
/// Column-count mismatch, no columns, and `metric`'s errors.
fn mean_over_columns(truth: &[Vec<f64>], pred: &[Vec<f64>], metric: fn(&[f64], &[f64]) -> Result<f64>) -> Result<f64> {
    if truth.len() != pred.len() {
        return Err(Error::ColumnCountMismatch { truth: truth.len(), prediction: pred.len() });
    }
    if truth.is_empty() {
        return Err(Error::Empty);
    }
    let mut sum = 0.0;
    for (t, p) in truth.iter().zip(pred) {
        sum += metric(t, p)?;
    }
    Ok(sum / truth.len() as f64)
}

/// Mean absolute percentage error (`mean_absolute_percentage_error`): the
/// denominator is `max(|y|, eps)`, so a zero truth gives a huge but finite
/// value. A fraction, not a percentage.
///
/// # Errors
/// As [`mse`].
pub fn mape(truth: &[f64], pred: &[f64]) -> Result<f64> {
    check(truth, pred)?;
    Ok(mean_of(truth.len(), truth.iter().zip(pred).map(|(t, p)| (t - p).abs() / t.abs().max(f64::EPSILON))))
}

/// Pearson's correlation (`scipy.stats.pearsonr`); NaN if either side is
/// constant.
///
/// # Errors
/// [`Error::TooFewRows`] under two rows, and as [`mse`].
pub fn pearson(truth: &[f64], pred: &[f64]) -> Result<f64> {
    check(truth, pred)?;
    if truth.len() < 2 {
        return Err(Error::TooFewRows { metric: "pearson", needed: 2, found: truth.len() });
    }
    Ok(pearson_correlation(truth, pred))
}

/// Spearman's rank correlation (`scipy.stats.spearmanr`): Pearson on
/// average ranks (ties share their mean rank); NaN if either side is
/// constant.
///
/// # Errors
/// As [`pearson`].
pub fn spearman(truth: &[f64], pred: &[f64]) -> Result<f64> {
    check(truth, pred)?;
    if truth.len() < 2 {
        return Err(Error::TooFewRows { metric: "spearman", needed: 2, found: truth.len() });
    }
    Ok(pearson_correlation(&average_ranks(truth), &average_ranks(pred)))
}
