//! k nearest neighbours (Euclidean, smartcore's cover tree).

use super::{Data, need_rows};
use crate::error::Result;
use ndarray::{Array1, Array2};
use smartcore::neighbors::KNNWeightFunction;
use smartcore::neighbors::knn_classifier::{KNNClassifier, KNNClassifierParameters};
use smartcore::neighbors::knn_regressor::{KNNRegressor, KNNRegressorParameters};

fn weight(distance_weighted: bool) -> KNNWeightFunction {
    if distance_weighted { KNNWeightFunction::Distance } else { KNNWeightFunction::Uniform }
}

fn check(k: usize, rows: usize) -> Result<()> {
    need_rows(&format!("knn with k = {k}"), k, rows)
}

/// Class probabilities: the (weighted) share of each class among the `k`
/// nearest training rows.
pub(super) fn classifier(
    d: &Data<'_>,
    y: &Array1<i32>,
    classes: usize,
    k: usize,
    distance_weighted: bool,
) -> Result<Array2<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    check(k, x.nrows())?;
    let params = KNNClassifierParameters::default().with_k(k).with_weight(weight(distance_weighted));
    let model = clock.fit("knn", || KNNClassifier::fit(x, y, params))?;
    let proba = clock.predict("knn", || model.predict_proba(x_test))?;
    Ok(Array2::from_shape_fn((x_test.nrows(), classes), |(i, j)| proba[i].get(j).copied().unwrap_or(0.0)))
}

/// The (weighted) mean of the `k` nearest training targets.
pub(super) fn regressor(d: &Data<'_>, y: &Array1<f64>, k: usize, distance_weighted: bool) -> Result<Vec<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    check(k, x.nrows())?;
    let params = KNNRegressorParameters::default().with_k(k).with_weight(weight(distance_weighted));
    let model = clock.fit("knn", || KNNRegressor::fit(x, y, params))?;
    clock.predict("knn", || model.predict(x_test)).map(|p: Array1<f64>| p.to_vec())
}
