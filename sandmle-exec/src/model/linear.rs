//! Logistic regression and the linear regressors.

use super::{Data, drop_constant, need_rows, sigmoid, softmax_rows};
use crate::error::Result;
use ndarray::{Array1, Array2};
use smartcore::linear::elastic_net::{ElasticNet, ElasticNetParameters};
use smartcore::linear::lasso::{Lasso, LassoParameters};
use smartcore::linear::linear_regression::{LinearRegression, LinearRegressionParameters};
use smartcore::linear::logistic_regression::{LogisticRegression, LogisticRegressionParameters};
use smartcore::linear::ridge_regression::{RidgeRegression, RidgeRegressionParameters};

/// Class probabilities from the fitted coefficients: the sigmoid of the
/// linear score for two classes, the softmax of the per-class scores for
/// more (smartcore's multinomial form). `c` is scikit-learn's `C`; smartcore's
/// L2 penalty is `alpha = 1 / C`.
pub(super) fn logistic(d: &Data<'_>, y: &Array1<i32>, c: Option<f64>) -> Result<Array2<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    // `c` was checked positive with the spec.
    let alpha = c.map_or(0.0, |c| 1.0 / c);
    need_rows("logistic_regression", 2, x.nrows())?;
    let model = clock.fit("logistic_regression", || {
        LogisticRegression::fit(x, y, LogisticRegressionParameters::default().with_alpha(alpha))
    })?;
    let (coef, intercept) = (model.coefficients(), model.intercept());
    let mut scores = x_test.dot(&coef.t());
    for mut row in scores.rows_mut() {
        for (j, s) in row.iter_mut().enumerate() {
            *s += intercept[[j, 0]];
        }
    }
    if scores.ncols() == 1 {
        let p1: Vec<f64> = scores.column(0).iter().map(|&z| sigmoid(z)).collect();
        return Ok(Array2::from_shape_fn((x_test.nrows(), 2), |(i, j)| if j == 1 { p1[i] } else { 1.0 - p1[i] }));
    }
    softmax_rows(&mut scores);
    Ok(scores)
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
