//! Decision trees and random forests.
//!
//! Forest class probabilities are the trees' vote shares. smartcore's
//! forest keeps its trees private, so each tree is grown as a one-tree
//! forest (stratified bootstrap and per-split feature sampling as in the
//! forest) with its own seed drawn from the pipeline seed.

use super::{Data, need_rows};
use crate::error::Result;
use ndarray::{Array1, Array2};
use rand_chacha::rand_core::Rng;
use sandmle_core::rng_for;
use smartcore::ensemble::random_forest_classifier::{RandomForestClassifier, RandomForestClassifierParameters};
use smartcore::ensemble::random_forest_regressor::{RandomForestRegressor, RandomForestRegressorParameters};
use smartcore::tree::decision_tree_classifier::{DecisionTreeClassifier, DecisionTreeClassifierParameters};
use smartcore::tree::decision_tree_regressor::{DecisionTreeRegressor, DecisionTreeRegressorParameters};

/// The shape of a forest.
pub(super) struct ForestShape {
    pub n_trees: usize,
    pub max_depth: Option<u16>,
    pub min_samples_leaf: usize,
    pub m: usize,
}

/// smartcore counts depth in levels of nodes (the root is level 1); the
/// spec counts splits, as scikit-learn does.
fn levels(max_depth: Option<u16>) -> Option<u16> {
    max_depth.map(|d| d.saturating_add(1))
}

/// One-hot probabilities of the leaf's majority class (smartcore exposes
/// no leaf frequencies).
pub(super) fn tree_classifier(
    d: &Data<'_>,
    y: &Array1<i32>,
    k: usize,
    max_depth: Option<u16>,
    min_samples_leaf: usize,
) -> Result<Array2<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    need_rows("decision_tree", 2, x.nrows())?;
    let mut params = DecisionTreeClassifierParameters::default().with_min_samples_leaf(min_samples_leaf);
    params.max_depth = levels(max_depth);
    let model = clock.fit("decision_tree", || DecisionTreeClassifier::fit(x, y, params))?;
    let pred: Array1<i32> = clock.predict("decision_tree", || model.predict(x_test))?;
    Ok(one_hot(&pred, k))
}

fn one_hot(pred: &Array1<i32>, k: usize) -> Array2<f64> {
    Array2::from_shape_fn((pred.len(), k), |(i, j)| if pred[i] as usize == j { 1.0 } else { 0.0 })
}

/// Vote shares of `n_trees` trees.
pub(super) fn forest_classifier(d: &Data<'_>, y: &Array1<i32>, k: usize, shape: ForestShape) -> Result<Array2<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    let seed = d.seed;
    need_rows("random_forest", 2, x.nrows())?;
    let mut rng = rng_for(seed, "random_forest");
    let mut votes = Array2::<f64>::zeros((x_test.nrows(), k));
    for _ in 0..shape.n_trees {
        let mut params = RandomForestClassifierParameters::default()
            .with_n_trees(1)
            .with_m(shape.m)
            .with_min_samples_leaf(shape.min_samples_leaf)
            .with_seed(rng.next_u64());
        params.max_depth = levels(shape.max_depth);
        let tree = clock.fit("random_forest", || RandomForestClassifier::fit(x, y, params))?;
        let pred: Array1<i32> = clock.predict("random_forest", || tree.predict(x_test))?;
        for (i, &c) in pred.iter().enumerate() {
            votes[[i, c as usize]] += 1.0;
        }
    }
    votes /= shape.n_trees as f64;
    Ok(votes)
}

/// A regression tree (its feature order is shuffled with the seed).
pub(super) fn tree_regressor(
    d: &Data<'_>,
    y: &Array1<f64>,
    max_depth: Option<u16>,
    min_samples_leaf: usize,
) -> Result<Vec<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    let seed = d.seed;
    need_rows("decision_tree", 2, x.nrows())?;
    let mut params = DecisionTreeRegressorParameters::default().with_min_samples_leaf(min_samples_leaf);
    params.max_depth = levels(max_depth);
    params.seed = Some(rng_for(seed, "decision_tree").next_u64());
    let model = clock.fit("decision_tree", || DecisionTreeRegressor::fit(x, y, params))?;
    clock.predict("decision_tree", || model.predict(x_test)).map(|p: Array1<f64>| p.to_vec())
}

/// A regression forest: the mean of its trees.
pub(super) fn forest_regressor(d: &Data<'_>, y: &Array1<f64>, shape: ForestShape) -> Result<Vec<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    let seed = d.seed;
    need_rows("random_forest", 2, x.nrows())?;
    let mut params = RandomForestRegressorParameters::default()
        .with_n_trees(shape.n_trees)
        .with_m(shape.m)
        .with_min_samples_leaf(shape.min_samples_leaf)
        .with_seed(rng_for(seed, "random_forest").next_u64());
    params.max_depth = levels(shape.max_depth);
    let model = clock.fit("random_forest", || RandomForestRegressor::fit(x, y, params))?;
    clock.predict("random_forest", || model.predict(x_test)).map(|p: Array1<f64>| p.to_vec())
}
