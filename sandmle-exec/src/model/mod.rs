//! Models: the smartcore wrapper behind every [`ModelSpec`], returning class
//! probabilities or values.
//!
//! smartcore is called at one boundary ([`guarded`]): its errors become
//! [`Error::Model`] and a panic inside it — its known panics are guarded
//! by checks before each call, so this is a last line of defence — becomes
//! [`Error::ModelPanicked`].

mod bayes;
mod hist_forest;
mod knn;
mod linear;
mod svm;
mod tree;

use crate::error::{Error, Result};
use crate::spec::ModelSpec;
use crate::target::Classes;
use ndarray::{Array1, Array2, Axis};
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

/// What every model function works on: the training and test matrices,
/// the clock that times smartcore's calls, and the seed.
pub(crate) struct Data<'a> {
    pub clock: &'a Clock,
    pub x: &'a Array2<f64>,
    pub x_test: &'a Array2<f64>,
    pub seed: u64,
}

/// Class probabilities (`rows x classes`, classes in sorted label order)
/// for the test rows.
pub(crate) fn classify(d: &Data<'_>, spec: &ModelSpec, c: &Classes) -> Result<Array2<f64>> {
    let p = class_probabilities(d, spec, c)?;
    if p.iter().any(|v| !v.is_finite()) {
        return Err(Error::NonFinitePrediction { model: spec.type_name() });
    }
    Ok(p)
}

fn class_probabilities(d: &Data<'_>, spec: &ModelSpec, c: &Classes) -> Result<Array2<f64>> {
    let (x, x_test) = (d.x, d.x_test);
    if c.k() < 2 && !matches!(spec, ModelSpec::Constant { .. }) {
        return Err(Error::SingleClass { column: c.column.clone() });
    }
    let y: Array1<i32> = c.y.iter().map(|&v| v as i32).collect();
    match spec {
        ModelSpec::Constant { .. } => {
            let shares = c.shares();
            Ok(Array2::from_shape_fn((x_test.nrows(), c.k()), |(_, j)| shares[j]))
        }
        ModelSpec::LogisticRegression { c: inv } => linear::logistic(d, &y, *inv),
        ModelSpec::DecisionTree { max_depth, min_samples_leaf } => {
            tree::tree_classifier(d, &y, c.k(), *max_depth, *min_samples_leaf)
        }
        ModelSpec::RandomForest { n_trees, max_depth, min_samples_leaf, max_features } => {
            let m = max_features.unwrap_or_else(|| ((x.ncols() as f64).sqrt() as usize).max(1));
            let shape =
                tree::ForestShape { n_trees: *n_trees, max_depth: *max_depth, min_samples_leaf: *min_samples_leaf, m };
            tree::forest_classifier(d, &y, c.k(), shape)
        }
        ModelSpec::HistForest { n_trees, max_depth, min_samples_leaf, max_features } => {
            let max_features = max_features.unwrap_or_else(|| ((x.ncols() as f64).sqrt() as usize).max(1));
            let p = hist_forest::HistParams {
                n_trees: *n_trees,
                max_depth: *max_depth,
                min_samples_leaf: *min_samples_leaf,
                max_features,
            };
            hist_forest::classifier(d, &c.y, c.k(), p)
        }
        ModelSpec::Knn { k, distance_weighted } => knn::classifier(d, &y, c.k(), *k, *distance_weighted),
        ModelSpec::GaussianNb { var_smoothing } => bayes::gaussian(d, &c.y, c.k(), *var_smoothing),
        ModelSpec::MultinomialNb { alpha } => bayes::multinomial(d, &c.y, c.k(), *alpha),
        ModelSpec::Svm { c: penalty, kernel } => svm::classifier(d, &c.y, c.k(), *penalty, *kernel),
        other => Err(Error::ModelUnfit { model: other.type_name(), task: "predict classes".into() }),
    }
}

/// Predicted values for the test rows.
pub(crate) fn regress(d: &Data<'_>, spec: &ModelSpec, y: &[f64]) -> Result<Vec<f64>> {
    let (x, x_test) = (d.x, d.x_test);
    let ya: Array1<f64> = Array1::from(y.to_vec());
    let out = match spec {
        ModelSpec::Constant { median } => {
            let v = if *median { median_of(y) } else { y.iter().sum::<f64>() / y.len().max(1) as f64 };
            vec![v; x_test.nrows()]
        }
        ModelSpec::LinearRegression => linear::least_squares(d, &ya)?,
        ModelSpec::Ridge { alpha } => linear::ridge(d, &ya, *alpha)?,
        ModelSpec::Lasso { alpha } => linear::lasso(d, &ya, *alpha)?,
        ModelSpec::ElasticNet { alpha, l1_ratio } => linear::elastic_net(d, &ya, *alpha, *l1_ratio)?,
        ModelSpec::DecisionTree { max_depth, min_samples_leaf } => {
            tree::tree_regressor(d, &ya, *max_depth, *min_samples_leaf)?
        }
        ModelSpec::RandomForest { n_trees, max_depth, min_samples_leaf, max_features } => {
            let m = max_features.unwrap_or_else(|| (x.ncols() / 3).max(1));
            let shape =
                tree::ForestShape { n_trees: *n_trees, max_depth: *max_depth, min_samples_leaf: *min_samples_leaf, m };
            tree::forest_regressor(d, &ya, shape)?
        }
        ModelSpec::HistForest { n_trees, max_depth, min_samples_leaf, max_features } => {
            let max_features = max_features.unwrap_or_else(|| (x.ncols() / 3).max(1));
            let p = hist_forest::HistParams {
                n_trees: *n_trees,
                max_depth: *max_depth,
                min_samples_leaf: *min_samples_leaf,
                max_features,
            };
            hist_forest::regressor(d, y, p)?
        }
        ModelSpec::Knn { k, distance_weighted } => knn::regressor(d, &ya, *k, *distance_weighted)?,
        ModelSpec::Svm { c, kernel } => svm::regressor(d, &ya, *c, *kernel)?,
        other => return Err(Error::ModelUnfit { model: other.type_name(), task: "predict values".into() }),
    };
    if out.iter().any(|v| !v.is_finite()) {
        return Err(Error::NonFinitePrediction { model: spec.type_name() });
    }
    Ok(out)
}

/// The median (mean of the two middle values for an even count; 0 for none).
pub(crate) fn median_of(y: &[f64]) -> f64 {
    let mut v = y.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Fit and predict time of one pipeline run, summed over its models.
#[derive(Debug, Default)]
pub(crate) struct Clock {
    fit: Cell<Duration>,
    predict: Cell<Duration>,
}

impl Clock {
    /// Times a smartcore fit.
    fn fit<T>(&self, model: &'static str, f: impl FnOnce() -> Result<T, smartcore::error::Failed>) -> Result<T> {
        let start = Instant::now();
        let out = guarded(model, f);
        self.fit.set(self.fit.get() + start.elapsed());
        out
    }

    /// Times a smartcore prediction.
    fn predict<T>(&self, model: &'static str, f: impl FnOnce() -> Result<T, smartcore::error::Failed>) -> Result<T> {
        let start = Instant::now();
        let out = guarded(model, f);
        self.predict.set(self.predict.get() + start.elapsed());
        out
    }

    /// Adds fit time measured outside smartcore.
    fn add_fit(&self, d: Duration) {
        self.fit.set(self.fit.get() + d);
    }

    /// Adds prediction time measured outside smartcore.
    fn add_predict(&self, d: Duration) {
        self.predict.set(self.predict.get() + d);
    }

    /// `(fit, predict)` so far.
    pub(crate) fn totals(&self) -> (Duration, Duration) {
        (self.fit.get(), self.predict.get())
    }
}

/// Calls smartcore, turning its errors and any panic into typed errors.
fn guarded<T>(model: &'static str, f: impl FnOnce() -> Result<T, smartcore::error::Failed>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(Error::Model { model, message: e.to_string() }),
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Error::ModelPanicked { model, message })
        }
    }
}

/// Both matrices without the columns that are constant on the training
/// rows (they carry no signal and break smartcore's rescaling).
pub(crate) fn drop_constant(x: &Array2<f64>, x_test: &Array2<f64>) -> (Array2<f64>, Array2<f64>) {
    let keep: Vec<usize> = (0..x.ncols())
        .filter(|&j| {
            let col = x.column(j);
            col.iter().any(|&v| v != col[0])
        })
        .collect();
    if keep.len() == x.ncols() {
        return (x.clone(), x_test.clone());
    }
    (x.select(Axis(1), &keep), x_test.select(Axis(1), &keep))
}

/// Row-wise softmax of scores.
pub(crate) fn softmax_rows(scores: &mut Array2<f64>) {
    for mut row in scores.rows_mut() {
        let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        row.mapv_inplace(|s| (s - max).exp());
        let sum: f64 = row.sum();
        row.mapv_inplace(|p| p / sum);
    }
}

/// The logistic function, stable for large `|z|`.
pub(crate) fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 { 1.0 / (1.0 + (-z).exp()) } else { z.exp() / (1.0 + z.exp()) }
}

/// Rows needed before fitting.
pub(crate) fn need_rows(what: &str, needed: usize, found: usize) -> Result<()> {
    if found < needed { Err(Error::TooFewRows { what: what.to_owned(), needed, found }) } else { Ok(()) }
}
