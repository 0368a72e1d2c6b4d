//! Micro F1 over label sets, as MLE-bench's multi-label graders compute it
//! (scikit-learn's `MultiLabelBinarizer` over the answers' labels, then
//! `f1_score(average="micro")`).

use crate::error::{Error, Result};
use std::collections::BTreeSet;

/// Micro F1 over rows of space-separated label sets.
///
/// Each row is a set (order and repeats ignored; an empty field is the
/// empty set). The labels that count are those the answers hold: a
/// predicted label no answer row holds is ignored, as the binarizer fitted
/// on the answers ignores it. With true positives `tp`, false positives
/// `fp` and false negatives `fn` summed over rows, the score is
/// `2 tp / (2 tp + fp + fn)`, and 0 when that is 0 / 0. `_k` is unused
/// (the shape every label-text metric shares).
///
/// # Errors
/// Length mismatch, no rows.
pub fn label_set_f1_micro(actual: &[String], predicted: &[String], _k: usize) -> Result<f64> {
    if actual.len() != predicted.len() {
        return Err(Error::LengthMismatch { truth: actual.len(), prediction: predicted.len() });
    }
    if actual.is_empty() {
        return Err(Error::Empty);
    }
    let known: BTreeSet<&str> = actual.iter().flat_map(|a| a.split_whitespace()).collect();
    let (mut tp, mut fp, mut fn_) = (0usize, 0usize, 0usize);
    for (a, p) in actual.iter().zip(predicted) {
        let a: BTreeSet<&str> = a.split_whitespace().collect();
        let p: BTreeSet<&str> = p.split_whitespace().filter(|l| known.contains(l)).collect();
        let hits = a.intersection(&p).count();
        tp += hits;
        fp += p.len() - hits;
        fn_ += a.len() - hits;
    }
    let denominator = 2 * tp + fp + fn_;
    Ok(if denominator == 0 { 0.0 } else { (2 * tp) as f64 / denominator as f64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| (*x).to_owned()).collect()
    }

    #[test]
    fn unknown_predicted_labels_are_not_false_positives() {
        // One hit, one miss; `zzz` is in no answer and does not count.
        let f1 = label_set_f1_micro(&s(&["a b", "c"]), &s(&["a zzz", "c"]), 0).unwrap();
        assert!((f1 - 4.0 / 5.0).abs() < 1e-15, "{f1}");
    }

    #[test]
    fn order_and_repeats_do_not_matter() {
        assert_eq!(label_set_f1_micro(&s(&["a b"]), &s(&["b a a"]), 0).unwrap(), 1.0);
    }
}
