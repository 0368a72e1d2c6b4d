//! Naive Bayes. smartcore fits the class statistics; the probabilities are
//! computed here from them (smartcore predicts labels only).

use super::{Data, need_rows, softmax_rows};
use crate::error::{Error, Result};
use ndarray::{Array1, Array2};
use smartcore::naive_bayes::gaussian::{GaussianNB, GaussianNBParameters};
use smartcore::naive_bayes::multinomial::{MultinomialNB, MultinomialNBParameters};

/// Gaussian naive Bayes with scikit-learn's variance smoothing: every class
/// variance is increased by `var_smoothing` times the largest feature
/// variance (at least 1e-12, so a constant feature is no division by zero).
pub(super) fn gaussian(d: &Data<'_>, y: &[usize], k: usize, var_smoothing: f64) -> Result<Array2<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    need_rows("gaussian_nb", 2, x.nrows())?;
    let yu: Array1<u32> = y.iter().map(|&c| c as u32).collect();
    let model = clock.fit("gaussian_nb", || GaussianNB::fit(x, &yu, GaussianNBParameters::default()))?;
    let max_var = x.columns().into_iter().map(|c| c.var(0.0)).fold(0.0, f64::max);
    let eps = (var_smoothing * max_var).max(1e-12);
    let (theta, var, priors) = (model.theta(), model.var(), model.class_priors());
    let mut scores = Array2::<f64>::zeros((x_test.nrows(), k));
    for (i, row) in x_test.rows().into_iter().enumerate() {
        for c in 0..k.min(theta.len()) {
            let mut s = priors[c].ln();
            for (j, &xj) in row.iter().enumerate() {
                let v = var[c][j].max(0.0) + eps;
                s -= 0.5 * (2.0 * std::f64::consts::PI * v).ln() + (xj - theta[c][j]).powi(2) / (2.0 * v);
            }
            scores[[i, c]] = s;
        }
    }
    softmax_rows(&mut scores);
    Ok(scores)
}

/// Multinomial naive Bayes on non-negative integer features (counts, such
/// as the `text` step's without tf-idf).
pub(super) fn multinomial(d: &Data<'_>, y: &[usize], k: usize, alpha: f64) -> Result<Array2<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    need_rows("multinomial_nb", 2, x.nrows())?;
    let counts = |m: &Array2<f64>| -> Result<Array2<u32>> {
        if m.iter().any(|&v| v < 0.0 || v.fract() != 0.0 || v > f64::from(u32::MAX)) {
            return Err(Error::BadParameter {
                model: "multinomial_nb",
                param: "features",
                reason: "must be non-negative whole numbers (counts); use the text step without tf-idf and no scaling"
                    .into(),
            });
        }
        Ok(m.mapv(|v| v as u32))
    };
    let (xu, xu_test) = (counts(x)?, counts(x_test)?);
    let yu: Array1<u32> = y.iter().map(|&c| c as u32).collect();
    // As scikit-learn, a zero alpha is raised to 1e-10 so that no log is -inf.
    let alpha = alpha.max(1e-10);
    let model = clock
        .fit("multinomial_nb", || MultinomialNB::fit(&xu, &yu, MultinomialNBParameters::default().with_alpha(alpha)))?;
    let (flp, class_count) = (model.feature_log_prob(), model.class_count());
    let n = class_count.iter().sum::<usize>() as f64;
    let mut scores = Array2::<f64>::zeros((x_test.nrows(), k));
    for (i, row) in xu_test.rows().into_iter().enumerate() {
        for c in 0..k.min(flp.len()) {
            let dot: f64 = row.iter().zip(&flp[c]).map(|(&xj, &l)| if xj == 0 { 0.0 } else { f64::from(xj) * l }).sum();
            scores[[i, c]] = (class_count[c] as f64 / n).ln() + dot;
        }
    }
    softmax_rows(&mut scores);
    Ok(scores)
}
