//! Label metrics: accuracy, balanced accuracy, F1 / precision / recall,
//! Matthews correlation and quadratic weighted kappa — each as
//! scikit-learn 1.5 computes it, zero divisions giving 0.

use crate::error::{Error, Result};
use crate::labels::{Encoded, Labels, encode};

/// Share of exact matches (`accuracy_score`). Numbers compare numerically
/// (`2 == 2.0`); a string label never equals a number, as in scikit-learn.
///
/// # Errors
/// Length mismatch, no rows, missing values or non-integral numbers.
pub fn accuracy(truth: &Labels, pred: &Labels) -> Result<f64> {
    match encode(truth, pred) {
        Ok(e) => Ok(matches(&e) as f64 / e.truth.len() as f64),
        Err(Error::MixedLabelTypes { .. }) => Ok(0.0),
        Err(e) => Err(e),
    }
}

fn matches(e: &Encoded) -> usize {
    e.truth.iter().zip(&e.pred).filter(|(t, p)| t == p).count()
}

/// Mean per-class recall over the classes present in the truth
/// (`balanced_accuracy_score`).
///
/// # Errors
/// As [`accuracy`], and mixed label types.
pub fn balanced_accuracy(truth: &Labels, pred: &Labels) -> Result<f64> {
    let e = encode(truth, pred)?;
    let k = e.n_classes;
    let c = e.confusion();
    let recalls: Vec<f64> = (0..k)
        .filter_map(|i| {
            let support: f64 = c[i * k..(i + 1) * k].iter().sum();
            (support > 0.0).then(|| c[i * k + i] / support)
        })
        .collect();
    Ok(recalls.iter().sum::<f64>() / recalls.len() as f64)
}

/// Per-class true positives, predicted counts and true counts.
struct PerClass {
    tp: Vec<f64>,
    pred: Vec<f64>,
    truth: Vec<f64>,
}

fn per_class(e: &Encoded) -> PerClass {
    let k = e.n_classes;
    let mut pc = PerClass { tp: vec![0.0; k], pred: vec![0.0; k], truth: vec![0.0; k] };
    for (&t, &p) in e.truth.iter().zip(&e.pred) {
        pc.truth[t] += 1.0;
        pc.pred[p] += 1.0;
        if t == p {
            pc.tp[t] += 1.0;
        }
    }
    pc
}

fn ratio(num: f64, den: f64) -> f64 {
    if den == 0.0 { 0.0 } else { num / den }
}

/// The index of the positive label 1 for a binary metric, or `None` when
/// the only label present is not 1 (then every count for 1 is zero).
fn positive_index(e: &Encoded, metric: &'static str) -> Result<Option<usize>> {
    if e.n_classes > 2 {
        return Err(Error::NotBinary { metric });
    }
    match e.names.iter().position(|n| n == "1") {
        Some(i) => Ok(Some(i)),
        None if e.n_classes == 2 => Err(Error::NoPositiveLabel { metric }),
        None => Ok(None),
    }
}

/// Binary counts `(tp, predicted positives, true positives)` for label 1.
fn binary_counts(truth: &Labels, pred: &Labels, metric: &'static str) -> Result<(f64, f64, f64)> {
    let e = encode(truth, pred)?;
    Ok(match positive_index(&e, metric)? {
        Some(i) => {
            let pc = per_class(&e);
            (pc.tp[i], pc.pred[i], pc.truth[i])
        }
        None => (0.0, 0.0, 0.0),
    })
}

/// Binary F1 of the positive label 1 (`f1_score(average="binary")`).
///
/// # Errors
/// More than two classes, two classes without 1, and the label errors.
pub fn f1(truth: &Labels, pred: &Labels) -> Result<f64> {
    let (tp, p, t) = binary_counts(truth, pred, "f1")?;
    Ok(ratio(2.0 * tp, p + t))
}

/// Binary precision of the positive label 1.
///
/// # Errors
/// As [`f1`].
pub fn precision(truth: &Labels, pred: &Labels) -> Result<f64> {
    let (tp, p, _) = binary_counts(truth, pred, "precision")?;
    Ok(ratio(tp, p))
}

/// Binary recall of the positive label 1.
///
/// # Errors
/// As [`f1`].
pub fn recall(truth: &Labels, pred: &Labels) -> Result<f64> {
    let (tp, _, t) = binary_counts(truth, pred, "recall")?;
    Ok(ratio(tp, t))
}

/// How per-class F1 scores are averaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Average {
    /// Unweighted mean over the union of labels.
    Macro,
    /// Global counts (equals accuracy for single-label data).
    Micro,
    /// Mean weighted by each class's true count.
    Weighted,
}

/// Averaged F1 over the union of truth and prediction labels.
///
/// # Errors
/// The label errors, including mixed label types.
pub fn f1_averaged(truth: &Labels, pred: &Labels, average: Average) -> Result<f64> {
    let e = encode(truth, pred)?;
    let pc = per_class(&e);
    let f1s: Vec<f64> = (0..e.n_classes).map(|i| ratio(2.0 * pc.tp[i], pc.pred[i] + pc.truth[i])).collect();
    Ok(match average {
        Average::Macro => f1s.iter().sum::<f64>() / f1s.len() as f64,
        Average::Micro => {
            let tp: f64 = pc.tp.iter().sum();
            ratio(2.0 * tp, 2.0 * e.truth.len() as f64)
        }
        Average::Weighted => {
            let total: f64 = pc.truth.iter().sum();
            ratio(f1s.iter().zip(&pc.truth).map(|(f, w)| f * w).sum(), total)
        }
    })
}

/// Matthews correlation coefficient, multiclass form (`matthews_corrcoef`);
/// 0 when either side has a single class.
///
/// # Errors
/// The label errors.
pub fn mcc(truth: &Labels, pred: &Labels) -> Result<f64> {
    let e = encode(truth, pred)?;
    let pc = per_class(&e);
    let n = e.truth.len() as f64;
    let correct: f64 = pc.tp.iter().sum();
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let cov_tp = correct * n - dot(&pc.truth, &pc.pred);
    let cov_pp = n * n - dot(&pc.pred, &pc.pred);
    let cov_tt = n * n - dot(&pc.truth, &pc.truth);
    if cov_pp * cov_tt == 0.0 { Ok(0.0) } else { Ok(cov_tp / (cov_tt * cov_pp).sqrt()) }
}

/// Quadratic weighted kappa as MLE-bench calls it
/// (`cohen_kappa_score(pred, truth, weights="quadratic")`): weights
/// `(i - j)^2` over positions in the sorted union of labels, not label
/// values. NaN when both sides hold one and the same label.
///
/// # Errors
/// The label errors, including non-integral predictions.
pub fn quadratic_weighted_kappa(truth: &Labels, pred: &Labels) -> Result<f64> {
    let e = encode(truth, pred)?;
    let k = e.n_classes;
    // sklearn builds the confusion matrix of (pred, truth): rows pred.
    let mut c = vec![0.0; k * k];
    for (&t, &p) in e.truth.iter().zip(&e.pred) {
        c[p * k + t] += 1.0;
    }
    let rows: Vec<f64> = (0..k).map(|i| c[i * k..(i + 1) * k].iter().sum()).collect();
    let cols: Vec<f64> = (0..k).map(|j| (0..k).map(|i| c[i * k + j]).sum()).collect();
    let n: f64 = rows.iter().sum();
    let (mut observed, mut expected) = (0.0, 0.0);
    for i in 0..k {
        for j in 0..k {
            let w = ((i as f64) - (j as f64)).powi(2);
            observed += w * c[i * k + j];
            expected += w * cols[i] * rows[j] / n;
        }
    }
    Ok(1.0 - observed / expected)
}
