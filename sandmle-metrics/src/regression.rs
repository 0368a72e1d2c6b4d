//! Regression metrics: errors, R², RMSLE, MAPE and the correlations.

use crate::error::{Error, Result};

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

/// Root mean squared logarithmic error; any negative value is an error, as
/// in scikit-learn 1.5.
///
/// # Errors
/// [`Error::NegativeValue`], and as [`mse`].
pub fn rmsle(truth: &[f64], pred: &[f64]) -> Result<f64> {
    check(truth, pred)?;
    for (side, v) in [("truth", truth), ("prediction", pred)] {
        if let Some(row) = v.iter().position(|&x| x < 0.0) {
            return Err(Error::NegativeValue { metric: "rmsle", side, index: row });
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
    if truth.len() != pred.len() {
        return Err(Error::ColumnCountMismatch { truth: truth.len(), prediction: pred.len() });
    }
    if truth.is_empty() {
        return Err(Error::Empty);
    }
    let mut sum = 0.0;
    for (t, p) in truth.iter().zip(pred) {
        sum += rmsle(t, p)?;
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
    Ok(correlation(truth, pred))
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
    Ok(correlation(&average_ranks(truth), &average_ranks(pred)))
}

fn correlation(x: &[f64], y: &[f64]) -> f64 {
    if x.iter().all(|&v| v == x[0]) || y.iter().all(|&v| v == y[0]) {
        return f64::NAN;
    }
    let n = x.len();
    let (mx, my) = (mean_of(n, x.iter().copied()), mean_of(n, y.iter().copied()));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        let (dx, dy) = (a - mx, b - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    (sxy / (sxx.sqrt() * syy.sqrt())).clamp(-1.0, 1.0)
}

/// 1-based ranks, ties sharing their average rank (`rankdata(method="average")`).
pub fn average_ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut ranks = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j < order.len() && v[order[j]] == v[order[i]] {
            j += 1;
        }
        let rank = (i + 1 + j) as f64 / 2.0;
        for &k in &order[i..j] {
            ranks[k] = rank;
        }
        i = j;
    }
    ranks
}
