//! Logistic regression and the linear regressors.

use super::logistic::Logistic;
use super::{Data, drop_constant, need_rows};
use crate::error::{Error, Result};
use ndarray::{Array1, Array2};
use smartcore::linear::elastic_net::{ElasticNet, ElasticNetParameters};
use smartcore::linear::lasso::{Lasso, LassoParameters};
use smartcore::linear::linear_regression::{LinearRegression, LinearRegressionParameters};
use smartcore::linear::ridge_regression::{RidgeRegression, RidgeRegressionParameters};
use std::time::Instant;

/// Class probabilities of L2-penalised logistic regression
/// ([`super::logistic`]: scikit-learn's lbfgs objective and settings);
/// `c` is scikit-learn's `C`, `None` for no penalty.
pub(super) fn logistic(d: &Data<'_>, y: &[usize], k: usize, c: Option<f64>) -> Result<Array2<f64>> {
    const MODEL: &str = "logistic_regression";
    need_rows(MODEL, 2, d.x.nrows())?;
    d.clock.check_deadline()?;
    let start = Instant::now();
    let fitted = Logistic::fit(d.x.view(), y, k, c);
    d.clock.add_fit(start.elapsed());
    let model = fitted.map_err(|e| Error::Model { model: MODEL, message: e.to_string() })?;
    d.clock.check_deadline()?;
    let start = Instant::now();
    let probs = model.predict_proba(d.x_test.view());
    d.clock.add_predict(start.elapsed());
    Ok(probs)
}

/// Ordinary least squares (SVD solver), constant columns dropped.
pub(super) fn least_squares(d: &Data<'_>, y: &Array1<f64>) -> Result<Vec<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    let (x, x_test) = drop_constant(x, x_test);
    if x.ncols() == 0 {
        return Ok(mean_prediction(y, x_test.nrows()));
    }
    need_rows("linear_regression", x.ncols() + 1, x.nrows())?;
    let m = clock.fit("linear_regression", || LinearRegression::fit(&x, y, LinearRegressionParameters::default()))?;
    clock.predict("linear_regression", || m.predict(&x_test)).map(|p| p.to_vec())
}

/// Ridge regression on standardised features, constant columns dropped.
pub(super) fn ridge(d: &Data<'_>, y: &Array1<f64>, alpha: f64) -> Result<Vec<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    let (x, x_test) = drop_constant(x, x_test);
    if x.ncols() == 0 {
        return Ok(mean_prediction(y, x_test.nrows()));
    }
    need_rows("ridge", x.ncols() + 1, x.nrows())?;
    let m =
        clock.fit("ridge", || RidgeRegression::fit(&x, y, RidgeRegressionParameters::default().with_alpha(alpha)))?;
    clock.predict("ridge", || m.predict(&x_test)).map(|p| p.to_vec())
}

/// Lasso on standardised features, constant columns dropped.
pub(super) fn lasso(d: &Data<'_>, y: &Array1<f64>, alpha: f64) -> Result<Vec<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    let (x, x_test) = drop_constant(x, x_test);
    if x.ncols() == 0 {
        return Ok(mean_prediction(y, x_test.nrows()));
    }
    need_rows("lasso", x.ncols().max(2), x.nrows())?;
    let m = clock.fit("lasso", || Lasso::fit(&x, y, LassoParameters::default().with_alpha(alpha)))?;
    clock.predict("lasso", || m.predict(&x_test)).map(|p| p.to_vec())
}

/// Elastic net on standardised features, constant columns dropped.
pub(super) fn elastic_net(d: &Data<'_>, y: &Array1<f64>, alpha: f64, l1: f64) -> Result<Vec<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    let (x, x_test) = drop_constant(x, x_test);
    if x.ncols() == 0 {
        return Ok(mean_prediction(y, x_test.nrows()));
    }
    need_rows("elastic_net", 2, x.nrows())?;
    let params = ElasticNetParameters::default().with_alpha(alpha).with_l1_ratio(l1);
    let m = clock.fit("elastic_net", || ElasticNet::fit(&x, y, params))?;
    clock.predict("elastic_net", || m.predict(&x_test)).map(|p| p.to_vec())
}

/// With every feature constant, a linear model's best fit is the mean.
fn mean_prediction(y: &Array1<f64>, n: usize) -> Vec<f64> {
    vec![y.mean().unwrap_or(0.0); n]
}
