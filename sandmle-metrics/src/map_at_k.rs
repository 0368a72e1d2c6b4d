//! Mean average precision at k, as MLE-bench's
//! `mean_average_precision_at_k` computes it.

use crate::error::{Error, Result};

/// AP@k of one row: predictions truncated to `k`; a hit counts only the
/// first time a label appears; the sum of precisions at hits is divided by
/// `min(|actual|, k)`; 0 when `actual` is empty.
pub fn average_precision_at_k(actual: &[&str], predicted: &[&str], k: usize) -> f64 {
    let mut actual: Vec<&str> = actual.to_vec();
    actual.sort_unstable();
    actual.dedup();
    if actual.is_empty() || k == 0 {
        return 0.0;
    }
    let predicted = &predicted[..predicted.len().min(k)];
    let (mut hits, mut score) = (0.0, 0.0);
    for (i, p) in predicted.iter().enumerate() {
        if actual.binary_search(p).is_ok() && !predicted[..i].contains(p) {
            hits += 1.0;
            score += hits / (i as f64 + 1.0);
        }
    }
    score / actual.len().min(k) as f64
}

/// Mean of [`average_precision_at_k`] over rows of space-separated labels.
///
/// # Errors
/// Length mismatch, no rows, `k == 0`.
pub fn map_at_k(actual: &[String], predicted: &[String], k: usize) -> Result<f64> {
    if actual.len() != predicted.len() {
        return Err(Error::LengthMismatch { truth: actual.len(), prediction: predicted.len() });
    }
    if actual.is_empty() {
        return Err(Error::Empty);
    }
    if k == 0 {
        return Err(Error::BadParameter { param: "k".into(), reason: "must be at least 1".into() });
    }
    let total: f64 = actual
        .iter()
        .zip(predicted)
        .map(|(a, p)| {
            let a: Vec<&str> = a.split_whitespace().collect();
            let p: Vec<&str> = p.split_whitespace().collect();
            average_precision_at_k(&a, &p, k)
        })
        .sum();
    Ok(total / actual.len() as f64)
}
