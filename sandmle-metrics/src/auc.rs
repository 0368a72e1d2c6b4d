//! Ranking metrics on scores: ROC AUC, its column-wise mean, and average
//! precision.

use crate::error::{Error, Result};
use crate::labels::{Labels, encode};

/// Checks lengths and finiteness of a score vector.
pub(crate) fn check_scores(truth_len: usize, scores: &[f64]) -> Result<()> {
    if truth_len != scores.len() {
        return Err(Error::LengthMismatch { truth: truth_len, prediction: scores.len() });
    }
    if scores.is_empty() {
        return Err(Error::Empty);
    }
    match scores.iter().position(|s| !s.is_finite()) {
        Some(row) => Err(Error::NonFinite { side: "prediction", index: row }),
        None => Ok(()),
    }
}

/// The positive-class mask of a binary truth: the greater of its two labels
/// is positive, as `roc_auc_score` decides.
fn binary_truth(truth: &Labels, metric: &'static str) -> Result<Vec<bool>> {
    let e = encode(truth, truth)?;
    match e.n_classes {
        2 => Ok(e.truth.iter().map(|&t| t == 1).collect()),
        1 => Err(Error::SingleClass { metric }),
        classes => Err(Error::NotBinary { metric, classes }),
    }
}

/// Row indices sorted by score, ascending (ties in index order).
fn order_by_score(scores: &[f64]) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..scores.len() as u32).collect();
    idx.sort_unstable_by(|&a, &b| scores[a as usize].total_cmp(&scores[b as usize]).then(a.cmp(&b)));
    idx
}

/// Binary ROC AUC (`roc_auc_score`): the Mann–Whitney statistic with tied
/// scores counted as one half, which equals the trapezoidal area under the
/// ROC curve. The greater truth label is the positive class.
///
/// # Errors
/// [`Error::SingleClass`] for a one-class truth, [`Error::NotBinary`] for
/// more classes, non-finite scores, length mismatch.
pub fn roc_auc(truth: &Labels, scores: &[f64]) -> Result<f64> {
    check_scores(truth.len(), scores)?;
    let positive = binary_truth(truth, "roc_auc")?;
    Ok(auc_from_mask(&positive, scores))
}

/// ROC AUC for a 0/1 mask known to hold both classes.
pub(crate) fn auc_from_mask(positive: &[bool], scores: &[f64]) -> f64 {
    let order = order_by_score(scores);
    // Sum of the (mid)ranks of the positives.
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < order.len() {
        let s = scores[order[i] as usize];
        let mut j = i;
        let mut pos_in_group = 0.0;
        while j < order.len() && scores[order[j] as usize] == s {
            if positive[order[j] as usize] {
                pos_in_group += 1.0;
            }
            j += 1;
        }
        // Ranks i+1 ..= j share the midrank (i + 1 + j) / 2.
        rank_sum += pos_in_group * (i + 1 + j) as f64 / 2.0;
        i = j;
    }
    let n_pos = positive.iter().filter(|&&p| p).count() as f64;
    let n_neg = positive.len() as f64 - n_pos;
    (rank_sum - n_pos * (n_pos + 1.0) / 2.0) / (n_pos * n_neg)
}

/// Mean of per-column binary ROC AUC over several target columns.
///
/// # Errors
/// Column count mismatch, no columns, or any column's [`roc_auc`] error.
pub fn mean_column_roc_auc(truth: &[Labels], scores: &[Vec<f64>]) -> Result<f64> {
    if truth.len() != scores.len() {
        return Err(Error::ColumnCountMismatch { truth: truth.len(), prediction: scores.len() });
    }
    if truth.is_empty() {
        return Err(Error::Empty);
    }
    let mut sum = 0.0;
    for (t, s) in truth.iter().zip(scores) {
        sum += roc_auc(t, s)?;
    }
    Ok(sum / truth.len() as f64)
}

/// Average precision of the positive label 1 (`average_precision_score`):
/// `sum_k (R_k - R_{k-1}) P_k` over distinct score thresholds, highest
/// first. A truth without positives gives 0 (scikit-learn warns and returns
/// -0.0).
///
/// # Errors
/// More than two truth classes, two classes without 1, non-finite scores.
pub fn average_precision(truth: &Labels, scores: &[f64]) -> Result<f64> {
    check_scores(truth.len(), scores)?;
    let e = encode(truth, truth)?;
    if e.n_classes > 2 {
        return Err(Error::NotBinary { metric: "average_precision", classes: e.n_classes });
    }
    let pos_index = e.names.iter().position(|n| n == "1");
    if pos_index.is_none() && e.n_classes == 2 {
        return Err(Error::NoPositiveLabel { metric: "average_precision" });
    }
    let positive: Vec<bool> = e.truth.iter().map(|&t| Some(t) == pos_index).collect();
    let total_pos = positive.iter().filter(|&&p| p).count() as f64;
    if total_pos == 0.0 {
        return Ok(0.0);
    }
    let mut order = order_by_score(scores);
    order.reverse();
    let (mut tp, mut fp, mut prev_recall, mut ap) = (0.0, 0.0, 0.0, 0.0);
    let mut i = 0;
    while i < order.len() {
        let s = scores[order[i] as usize];
        while i < order.len() && scores[order[i] as usize] == s {
            if positive[order[i] as usize] {
                tp += 1.0
            } else {
                fp += 1.0
            }
            i += 1;
        }
        let recall = tp / total_pos;
        ap += (recall - prev_recall) * (tp / (tp + fp));
        prev_recall = recall;
    }
    Ok(ap)
}
