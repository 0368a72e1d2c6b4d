//! Log loss, binary and multi-class, as scikit-learn 1.5 computes it:
//! probabilities clipped to `[eps, 1 - eps]`, no renormalisation.

use crate::auc::{binary_truth, check_scores};
use crate::error::{Error, Result};
use crate::labels::Labels;

/// The clipping bound: `np.finfo(float64).eps`.
pub const EPS: f64 = f64::EPSILON;

fn clip(p: f64) -> f64 {
    p.clamp(EPS, 1.0 - EPS)
}

/// Binary log loss with one probability column, the probability of the
/// greater of the truth's two labels (`log_loss(y, p)` with 1-D `p`).
/// `1 - p` is formed before clipping, as scikit-learn does.
///
/// # Errors
/// A one-class truth ([`Error::SingleClass`]), more than two classes,
/// non-finite probabilities, length mismatch.
pub fn log_loss(truth: &Labels, prob: &[f64]) -> Result<f64> {
    check_scores(truth.len(), prob)?;
    let positive = binary_truth(truth, "log_loss")?;
    let total: f64 =
        positive.iter().zip(prob).map(|(&t, &p)| if t { -clip(p).ln() } else { -clip(1.0 - p).ln() }).sum();
    Ok(total / prob.len() as f64)
}

/// Multi-class log loss over one-hot truth columns and one probability
/// column per class (`log_loss(onehot, probs)`): the mean over rows of
/// `-sum_k y_k ln(clip(p_k))`.
///
/// # Errors
/// Column count or length mismatch, no rows, non-finite values.
pub fn multiclass_log_loss(onehot: &[Vec<f64>], probs: &[Vec<f64>]) -> Result<f64> {
    if onehot.len() != probs.len() {
        return Err(Error::ColumnCountMismatch { truth: onehot.len(), prediction: probs.len() });
    }
    let Some(first) = onehot.first() else {
        return Err(Error::Empty);
    };
    let n = first.len();
    for (t, p) in onehot.iter().zip(probs) {
        if t.len() != n {
            return Err(Error::LengthMismatch { truth: n, prediction: t.len() });
        }
        check_scores(n, p)?;
        if let Some(row) = t.iter().position(|x| !x.is_finite()) {
            return Err(Error::NonFinite { side: "truth", index: row });
        }
    }
    let mut total = 0.0;
    for row in 0..n {
        for (t, p) in onehot.iter().zip(probs) {
            if t[row] != 0.0 {
                total -= t[row] * clip(p[row]).ln();
            }
        }
    }
    Ok(total / n as f64)
}
