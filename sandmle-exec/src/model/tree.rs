//! smartcore's random forests (the `random_forest` model; decision trees
//! and the histogram forest are grown in [`super::hist_forest`]).
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
