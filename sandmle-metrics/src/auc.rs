//! Ranking metrics on scores: ROC AUC, its column-wise mean, and average
//! precision.

use crate::error::{Error, Result};
use crate::labels::{Labels, binary_classes};

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
pub(crate) fn binary_truth(truth: &Labels, metric: &'static str) -> Result<Vec<bool>> {
    match binary_classes(truth, "truth")? {
        Some((second, names)) if names.len() == 2 => Ok(second),
        Some(_) => Err(Error::SingleClass { metric }),
        None => Err(Error::NotBinary { metric }),
    }
}

/// A `u64` whose unsigned order is the total order of finite floats
/// (`-0.0` and `0.0` map to neighbours; callers fold `-0.0` first).
fn sort_key(x: f64) -> u64 {
    let bits = (x + 0.0).to_bits();
    if bits >> 63 == 1 { !bits } else { bits | (1 << 63) }
}

/// Row indices sorted by score, ascending (ties in index order).
fn order_by_score(scores: &[f64]) -> Vec<u32> {
    let mut keyed: Vec<(u64, u32)> = scores.iter().zip(0u32..).map(|(&s, i)| (sort_key(s), i)).collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
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

/// [`roc_auc`] of numeric labels scored by their own values, as a grader's
/// check scores the answers against themselves: the same checks in the
/// same order, then the area, which needs no sort. The positive class is
/// the greater label, so the positive rows are exactly those of the
/// greater score and the area is 1.
///
/// # Errors
/// As [`roc_auc`].
pub(crate) fn roc_auc_of_itself(labels: &[f64]) -> Result<f64> {
    check_scores(labels.len(), labels)?;
    match crate::labels::numeric_binary_labels(labels, "truth")? {
        Some(labels) if labels.len() == 2 => Ok(1.0),
        Some(_) => Err(Error::SingleClass { metric: "roc_auc" }),
        None => Err(Error::NotBinary { metric: "roc_auc" }),
    }
}

/// ROC AUC for a 0/1 mask known to hold both classes.
///
/// Positive and negative scores are sorted apart and merged: each positive
/// counts the negatives below it plus half the tied ones. The count is kept
/// doubled in integers, so the result is the exact ratio rounded once.
pub(crate) fn auc_from_mask(positive: &[bool], scores: &[f64]) -> f64 {
    // One buffer, positives from the front and negatives from the back,
    // filled without a branch per row (shuffled classes mispredict one):
    // each key is written at both ends and the end it belongs to advances.
    let n = positive.len().min(scores.len());
    let mut keys = vec![0u64; n];
    let (mut front, mut back) = (0, n);
    for (&p, &s) in positive.iter().zip(scores) {
        let k = sort_key(s);
        keys[front] = k;
        keys[back - 1] = k;
        front += usize::from(p);
        back -= usize::from(!p);
    }
    let (pos, neg) = keys.split_at_mut(front);
    pos.sort_unstable();
    neg.sort_unstable();
    let (mut below, mut doubled) = (0usize, 0u128);
    let mut i = 0;
    while i < pos.len() {
        let key = pos[i];
        let group = pos[i..].iter().take_while(|&&k| k == key).count();
        while below < neg.len() && neg[below] < key {
            below += 1;
        }
        let ties = neg[below..].iter().take_while(|&&k| k == key).count();
        doubled += group as u128 * (2 * below + ties) as u128;
        i += group;
    }
    doubled as f64 / (2.0 * pos.len() as f64 * neg.len() as f64)
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

/// [`mean_column_roc_auc`] as MLE-bench grades a multi-label task
/// (jigsaw-toxic-comment-classification-challenge): answer rows whose
/// labels sum below 0 — Kaggle's `-1` rows, never labelled — are dropped
/// from both sides before scoring.
///
/// # Errors
/// Column count or length mismatch, no rows left, or any column's
/// [`roc_auc`] error.
pub fn mean_column_roc_auc_labelled(truth: &[Vec<f64>], scores: &[Vec<f64>]) -> Result<f64> {
    if truth.len() != scores.len() {
        return Err(Error::ColumnCountMismatch { truth: truth.len(), prediction: scores.len() });
    }
    let rows = truth.first().map_or(0, Vec::len);
    if let Some(c) = truth.iter().chain(scores).find(|c| c.len() != rows) {
        return Err(Error::LengthMismatch { truth: rows, prediction: c.len() });
    }
    let keep: Vec<usize> = (0..rows).filter(|&r| truth.iter().map(|c| c[r]).sum::<f64>() >= 0.0).collect();
    if keep.is_empty() {
        return Err(Error::Empty);
    }
    let pick = |c: &Vec<f64>| keep.iter().map(|&r| c[r]).collect::<Vec<f64>>();
    let t: Vec<Labels> = truth.iter().map(|c| Labels::from(pick(c))).collect();
    let s: Vec<Vec<f64>> = scores.iter().map(pick).collect();
    mean_column_roc_auc(&t, &s)
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
    let Some((second, names)) = binary_classes(truth, "truth")? else {
        return Err(Error::NotBinary { metric: "average_precision" });
    };
    let positive: Vec<bool> = match names.iter().position(|n| n == "1") {
        Some(1) => second,
        Some(_) => second.iter().map(|s| !s).collect(),
        None if names.len() == 2 => return Err(Error::NoPositiveLabel { metric: "average_precision" }),
        None => vec![false; second.len()],
    };
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
