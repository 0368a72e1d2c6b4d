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
mod lanes;
mod lbfgs;
mod linear;
mod logistic;
mod svm;
mod tree;

use crate::error::{Error, Result};
use crate::spec::ModelSpec;
use crate::target::Classes;
pub(crate) use hist_forest::{ForestShare, SharedBins, SharedForests};
pub(crate) use knn::NeighbourCache;

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
    /// `x`'s columns, each a slice, when the caller holds them so: read
    /// by models that work column by column instead of gathering them.
    pub columns: Option<&'a [&'a [f64]]>,
    pub seed: u64,
}

/// What the models of one panel run on the same matrices share, passed
/// explicitly to the models that read it (kNN, the histogram forests and
/// trees); a model fitted alone shares nothing ([`Caches::default`]).
#[derive(Clone, Copy, Default)]
pub(crate) struct Caches<'a> {
    /// Neighbour lists shared with other kNN models.
    pub neighbours: Option<&'a NeighbourCache>,
    /// The binned training matrix shared with other histogram models.
    pub bins: Option<&'a SharedBins>,
    /// Forests shared with other histogram forests of the same seed and
    /// shape, and how many trees this one grows into them.
    pub forests: Option<ForestShare<'a>>,
}

/// What a model predicts for: the classes of a label target or the values
/// of a numeric one.
pub(crate) enum Target<'a> {
    /// Class labels (test predictions are class probabilities).
    Classes(&'a Classes),
    /// Values (test predictions are values).
    Values(&'a [f64]),
}

/// A model's test-row predictions.
pub(crate) enum Prediction {
    /// Class probabilities, `rows x classes`, classes in sorted label order.
    Probs(Array2<f64>),
    /// Values.
    Values(Vec<f64>),
}

/// Fits `spec` on the training rows and predicts the test rows: the one
/// place a model spec meets its implementation. Parameters were checked
/// with the spec ([`crate::CheckedPipeline`]); what depends on the data is
/// checked here and in the model functions.
pub(crate) fn fit_predict(
    d: &Data<'_>,
    caches: Caches<'_>,
    spec: &ModelSpec,
    target: Target<'_>,
) -> Result<Prediction> {
    d.clock.check_deadline()?;
    let (x, x_test) = (d.x, d.x_test);
    if let Target::Classes(c) = target
        && c.k() < 2
        && !matches!(spec, ModelSpec::Constant { .. })
    {
        return Err(Error::SingleClass { column: c.column.clone() });
    }
    let sqrt_features = || ((x.ncols() as f64).sqrt() as usize).max(1);
    let third_features = || (x.ncols() / 3).max(1);
    use Prediction::{Probs, Values};
    use Target::{Classes as C, Values as V};
    let labels = |c: &Classes| -> Array1<i32> { c.y.iter().map(|&v| v as i32).collect() };
    let prediction = match (spec, target) {
        (ModelSpec::Constant { .. }, C(c)) => {
            let shares = c.shares();
            Probs(Array2::from_shape_fn((x_test.nrows(), c.k()), |(_, j)| shares[j]))
        }
        (ModelSpec::Constant { median }, V(y)) => {
            let v = if *median { median_of(y) } else { y.iter().sum::<f64>() / y.len().max(1) as f64 };
            Values(vec![v; x_test.nrows()])
        }
        (ModelSpec::LogisticRegression { c: inv }, C(c)) => Probs(linear::logistic(d, &c.y, c.k(), *inv)?),
        (ModelSpec::LinearRegression, V(y)) => Values(linear::least_squares(d, &Array1::from(y.to_vec()))?),
        (ModelSpec::Ridge { alpha }, V(y)) => Values(linear::ridge(d, &Array1::from(y.to_vec()), *alpha)?),
        (ModelSpec::Lasso { alpha }, V(y)) => Values(linear::lasso(d, &Array1::from(y.to_vec()), *alpha)?),
        (ModelSpec::ElasticNet { alpha, l1_ratio }, V(y)) => {
            Values(linear::elastic_net(d, &Array1::from(y.to_vec()), *alpha, *l1_ratio)?)
        }
        (ModelSpec::DecisionTree { max_depth, min_samples_leaf }, target) => {
            // scikit-learn's decision tree: one tree on every row, every
            // feature tried per split (in a random order, which breaks ties).
            let params = hist_forest::HistParams {
                n_trees: 1,
                max_depth: *max_depth,
                min_samples_leaf: *min_samples_leaf,
                max_features: x.ncols().max(1),
                bootstrap: false,
                keep_inner: None,
            };
            match target {
                C(c) => Probs(hist_forest::classifier(d, caches, &c.y, c.k(), params)?),
                V(y) => Values(hist_forest::regressor(d, caches, y, params)?),
            }
        }
        (ModelSpec::RandomForest { n_trees, max_depth, min_samples_leaf, max_features }, target) => {
            let (n_trees, max_depth, min_samples_leaf) = (*n_trees, *max_depth, *min_samples_leaf);
            match target {
                C(c) => {
                    let m = max_features.unwrap_or_else(sqrt_features);
                    let shape = tree::ForestShape { n_trees, max_depth, min_samples_leaf, m };
                    Probs(tree::forest_classifier(d, &labels(c), c.k(), shape)?)
                }
                V(y) => {
                    let m = max_features.unwrap_or_else(third_features);
                    let shape = tree::ForestShape { n_trees, max_depth, min_samples_leaf, m };
                    Values(tree::forest_regressor(d, &Array1::from(y.to_vec()), shape)?)
                }
            }
        }
        (ModelSpec::HistForest { n_trees, max_depth, min_samples_leaf, max_features }, target) => {
            let params = |max_features: usize| hist_forest::HistParams {
                n_trees: *n_trees,
                max_depth: *max_depth,
                min_samples_leaf: *min_samples_leaf,
                max_features,
                bootstrap: true,
                keep_inner: None,
            };
            match target {
                C(c) => Probs(hist_forest::classifier(
                    d,
                    caches,
                    &c.y,
                    c.k(),
                    params(max_features.unwrap_or_else(sqrt_features)),
                )?),
                V(y) => Values(hist_forest::regressor(d, caches, y, params(max_features.unwrap_or(x.ncols().max(1))))?),
            }
        }
        (ModelSpec::Knn { k, distance_weighted }, C(c)) => {
            Probs(knn::classifier(d, caches.neighbours, &c.y, c.k(), *k, *distance_weighted)?)
        }
        (ModelSpec::Knn { k, distance_weighted }, V(y)) => {
            Values(knn::regressor(d, caches.neighbours, y, *k, *distance_weighted)?)
        }
        (ModelSpec::GaussianNb { var_smoothing }, C(c)) => Probs(bayes::gaussian(d, &c.y, c.k(), *var_smoothing)?),
        (ModelSpec::MultinomialNb { alpha }, C(c)) => Probs(bayes::multinomial(d, &c.y, c.k(), *alpha)?),
        (ModelSpec::Svm { c: penalty, kernel }, C(c)) => Probs(svm::classifier(d, &c.y, c.k(), *penalty, *kernel)?),
        (ModelSpec::Svm { c, kernel }, V(y)) => Values(svm::regressor(d, &Array1::from(y.to_vec()), *c, *kernel)?),
        (
            ModelSpec::LogisticRegression { .. } | ModelSpec::GaussianNb { .. } | ModelSpec::MultinomialNb { .. },
            V(_),
        ) => return Err(Error::ModelUnfit { model: spec.type_name(), task: "predict values".into() }),
        (
            ModelSpec::LinearRegression
            | ModelSpec::Ridge { .. }
            | ModelSpec::Lasso { .. }
            | ModelSpec::ElasticNet { .. },
            C(_),
        ) => return Err(Error::ModelUnfit { model: spec.type_name(), task: "predict classes".into() }),
    };
    let finite = match &prediction {
        Probs(p) => p.iter().all(|v| v.is_finite()),
        Values(v) => v.iter().all(|v| v.is_finite()),
    };
    if !finite {
        return Err(Error::NonFinitePrediction { model: spec.type_name() });
    }
    Ok(prediction)
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

/// Fit and predict time of one pipeline run, summed over its models, and
/// the run's deadline.
#[derive(Debug, Default)]
pub(crate) struct Clock {
    fit: Cell<Duration>,
    predict: Cell<Duration>,
    /// When the run must stop, with the limit it came from.
    pub deadline: Option<(Instant, Duration)>,
}

impl Clock {
    /// A clock whose run must end within `limit` of now.
    pub(crate) fn with_limit(limit: Option<Duration>) -> Self {
        Clock { deadline: limit.and_then(|l| Instant::now().checked_add(l).map(|at| (at, l))), ..Clock::default() }
    }

    /// [`Error::TimeLimit`] once the deadline has passed. Checked between
    /// steps, before every model call and between the trees of a forest:
    /// a single smartcore call already running is not interrupted.
    pub(crate) fn check_deadline(&self) -> Result<()> {
        match self.deadline {
            Some((at, limit)) if Instant::now() >= at => Err(Error::TimeLimit { limit }),
            _ => Ok(()),
        }
    }

    /// Times a smartcore fit.
    fn fit<T>(&self, model: &'static str, f: impl FnOnce() -> Result<T, smartcore::error::Failed>) -> Result<T> {
        self.check_deadline()?;
        let start = Instant::now();
        let out = guarded(model, f);
        self.fit.set(self.fit.get() + start.elapsed());
        out
    }

    /// Times a smartcore prediction.
    fn predict<T>(&self, model: &'static str, f: impl FnOnce() -> Result<T, smartcore::error::Failed>) -> Result<T> {
        self.check_deadline()?;
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
