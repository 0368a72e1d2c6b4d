//! [`PipelineSpec`]: a declarative pipeline in JSON — preprocessing steps,
//! then one model.
//!
//! ```json
//! {
//!   "name": "forest-100",
//!   "seed": 7,
//!   "steps": [
//!     {"op": "impute", "strategy": "median"},
//!     {"op": "encode", "method": "one_hot", "max_levels": 20},
//!     {"op": "text", "n_features": 512, "ngram_max": 2, "tfidf": true},
//!     {"op": "scale", "method": "standard"}
//!   ],
//!   "model": {"type": "random_forest", "n_trees": 100}
//! }
//! ```
//!
//! Steps run in order; each is fitted on the training rows and applied to
//! training and test rows alike. Unknown fields are errors, so a typo in a
//! spec is caught rather than silently ignored.
//!
//! A spec is checked once, before anything runs, into a [`CheckedPipeline`]
//! (every hyper-parameter in range, every size within its cap); only a
//! checked pipeline can be run, so the models never re-check their
//! parameters and a bad spec never reaches them.

mod check;

pub use check::CheckedPipeline;
use sandmle_core::bounded;
use serde::{Deserialize, Serialize};

/// The most trees a forest may have.
pub const MAX_TREES: usize = 10_000;
/// The most hash buckets a `text` step may have.
pub const MAX_TEXT_FEATURES: usize = 1 << 16;
/// The most one-hot levels an `encode` step may keep.
pub const MAX_LEVELS: usize = 10_000;

/// A pipeline: preprocessing steps and one model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineSpec {
    /// A name for reports and leaderboards.
    #[serde(default = "default_name")]
    pub name: String,
    /// Seed for every random choice of the pipeline (forest bootstraps,
    /// tree feature order, SVM sample order).
    #[serde(default)]
    pub seed: u64,
    /// Preprocessing steps, in order.
    #[serde(default)]
    pub steps: Vec<Step>,
    /// The model.
    pub model: ModelSpec,
    /// Clip predicted values to the training target's range (regression
    /// only; default false). Keeps, for example, a linear model's
    /// predictions non-negative for RMSLE when every training target is.
    #[serde(default)]
    pub clip_to_target_range: bool,
}

fn default_name() -> String {
    "pipeline".into()
}

/// How an imputer fills missing values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImputeStrategy {
    /// Mean of the training values (numeric columns; categories get the most frequent level).
    Mean,
    /// Median of the training values (numeric columns; categories get the most frequent level).
    Median,
    /// The most frequent training value (smallest on ties).
    MostFrequent,
    /// A constant: `value` for numbers, `"missing"` for categories.
    Constant,
}

/// How a scaler rescales numeric columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScaleMethod {
    /// `(x - mean) / sd` with the training mean and population sd (sd 0 → 1).
    Standard,
    /// `(x - min) / (max - min)` with the training range (range 0 → 1).
    MinMax,
}

/// How categorical columns become numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EncodeMethod {
    /// One 0/1 column per level, for the `max_levels` most frequent training
    /// levels; rarer and unseen levels share an `__other` column.
    OneHot,
    /// One column of level ranks in sorted level order; unseen and missing
    /// values become -1.
    Ordinal,
}

/// A preprocessing step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Drop the named feature columns.
    Drop {
        /// Columns to drop.
        columns: Vec<String>,
    },
    /// Keep only the named feature columns.
    Select {
        /// Columns to keep.
        columns: Vec<String>,
    },
    /// Keep the `k` numeric features most associated with the target on the
    /// training rows (squared correlation for regression, correlation ratio
    /// for classes); ties keep the earlier column.
    SelectBest {
        /// How many to keep.
        k: usize,
    },
    /// Fill missing values.
    Impute {
        /// The strategy.
        strategy: ImputeStrategy,
        /// The constant for [`ImputeStrategy::Constant`] (default 0).
        #[serde(default)]
        value: Option<f64>,
    },
    /// Rescale numeric columns.
    Scale {
        /// The method.
        method: ScaleMethod,
    },
    /// Turn categorical columns into numbers.
    Encode {
        /// The method.
        method: EncodeMethod,
        /// The level cap of one-hot encoding (default 20).
        #[serde(default)]
        max_levels: Option<usize>,
    },
    /// Turn text columns into hashed bag-of-words counts.
    Text {
        /// Hash buckets per text column (default 256).
        #[serde(default)]
        n_features: Option<usize>,
        /// Longest n-gram: 1 or 2 (default 1).
        #[serde(default)]
        ngram_max: Option<usize>,
        /// Weight counts by smoothed inverse document frequency and
        /// L2-normalise each row (default false).
        #[serde(default)]
        tfidf: bool,
    },
}

/// Logistic regression's regularisation: scikit-learn's `C` (the objective
/// `C sum_i loss_i + ||w||^2 / 2`, intercept unpenalised), or `null` for
/// none (scikit-learn's `C=np.inf`).
pub type InverseRegularisation = Option<f64>;

/// The SVM kernel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Kernel {
    /// `x·y`.
    Linear,
    /// `exp(-gamma |x - y|^2)`; `gamma` defaults to scikit-learn's
    /// `"scale"`, `1 / (p · var(X))`.
    Rbf {
        /// The width.
        #[serde(default)]
        gamma: Option<f64>,
    },
}

/// The model and its hyper-parameters. Models with a classifier and a
/// regressor form (trees, forests, kNN, SVM) take the form the task needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ModelSpec {
    /// Predicts the training class shares or the training mean (median with
    /// `median: true`) for every row: the baseline every model must beat.
    Constant {
        /// Predict the training median instead of the mean (regression).
        #[serde(default)]
        median: bool,
    },
    /// Logistic regression (classification): scikit-learn's
    /// `LogisticRegression(solver="lbfgs")`, multinomial for more than two
    /// classes.
    LogisticRegression {
        /// scikit-learn's `C`; `null` for no penalty. Default 1.0, as in
        /// scikit-learn.
        #[serde(default = "default_c")]
        c: InverseRegularisation,
    },
    /// Ordinary least squares (regression).
    LinearRegression,
    /// Ridge regression (regression), features standardised internally.
    Ridge {
        /// Penalty (default 1).
        #[serde(default = "one")]
        alpha: f64,
    },
    /// Lasso (regression), features standardised internally.
    Lasso {
        /// Penalty in smartcore's scale (default 1).
        #[serde(default = "one")]
        alpha: f64,
    },
    /// Elastic net (regression), features standardised internally.
    ElasticNet {
        /// Penalty (default 1).
        #[serde(default = "one")]
        alpha: f64,
        /// L1 share of the penalty in [0, 1] (default 0.5).
        #[serde(default = "half")]
        l1_ratio: f64,
    },
    /// A decision tree, grown as scikit-learn's `DecisionTreeClassifier`
    /// and `DecisionTreeRegressor` grow theirs (every row, every feature
    /// per split, Gini or squared error); class probabilities are the
    /// leaf's class frequencies.
    DecisionTree {
        /// Maximum depth in splits (scikit-learn's meaning); `null` for none.
        #[serde(default)]
        max_depth: Option<u16>,
        /// Minimum rows in a leaf (default 1).
        #[serde(default = "one_usize")]
        min_samples_leaf: usize,
    },
    /// smartcore's random forest; class probabilities are the trees' vote
    /// shares.
    RandomForest {
        /// Number of trees (default 100).
        #[serde(default = "hundred")]
        n_trees: usize,
        /// Maximum depth in splits; `null` for none.
        #[serde(default)]
        max_depth: Option<u16>,
        /// Minimum rows in a leaf (default 1).
        #[serde(default = "one_usize")]
        min_samples_leaf: usize,
        /// Features tried per split (default: the square root of the
        /// feature count for classes, a third for regression).
        #[serde(default)]
        max_features: Option<usize>,
    },
    /// The histogram forest (this crate's own learner): trees grown on
    /// features cut into at most 255 bins; class probabilities are the mean
    /// of the trees' leaf class frequencies, as in scikit-learn. Much faster
    /// than smartcore's forest on both micro and full-size tables.
    HistForest {
        /// Number of trees (default 100).
        #[serde(default = "hundred")]
        n_trees: usize,
        /// Maximum depth in splits; `null` for none.
        #[serde(default)]
        max_depth: Option<u16>,
        /// Minimum rows in a leaf (default 1).
        #[serde(default = "one_usize")]
        min_samples_leaf: usize,
        /// Features tried per split (default: the square root of the
        /// feature count for classes, all of them for regression: scikit-learn's
        /// random forest defaults).
        #[serde(default)]
        max_features: Option<usize>,
    },
    /// k nearest neighbours (Euclidean, brute force; equally distant
    /// neighbours are taken in training-row order).
    Knn {
        /// Neighbours (default 5).
        #[serde(default = "five")]
        k: usize,
        /// Weight neighbours by inverse distance (default false: uniform).
        #[serde(default)]
        distance_weighted: bool,
    },
    /// Gaussian naive Bayes (classification).
    GaussianNb {
        /// Added to every variance, times the largest feature variance
        /// (scikit-learn's `var_smoothing`, default 1e-9).
        #[serde(default = "var_smoothing")]
        var_smoothing: f64,
    },
    /// Multinomial naive Bayes (classification) on non-negative integer
    /// features such as the counts of the `text` step.
    MultinomialNb {
        /// Additive smoothing (default 1).
        #[serde(default = "one")]
        alpha: f64,
    },
    /// Support vector machine: one-vs-rest SVC for classes, SVR for values.
    Svm {
        /// Penalty (default 1).
        #[serde(default = "one")]
        c: f64,
        /// Kernel (default RBF with `gamma = "scale"`).
        #[serde(default = "default_kernel")]
        kernel: Kernel,
    },
}

fn default_c() -> InverseRegularisation {
    Some(1.0)
}
fn one() -> f64 {
    1.0
}
fn half() -> f64 {
    0.5
}
fn one_usize() -> usize {
    1
}
fn hundred() -> usize {
    100
}
fn five() -> usize {
    5
}
fn var_smoothing() -> f64 {
    1e-9
}
fn default_kernel() -> Kernel {
    Kernel::Rbf { gamma: None }
}

impl ModelSpec {
    /// The model's `type` name, as serde writes it (`"hist_forest"`, ...).
    pub fn type_name(&self) -> String {
        // Serialising a model spec cannot fail: it holds no maps, and
        // serde_json writes non-finite floats as null. The test
        // `type_names_are_serde_tags` checks every variant.
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(fields)) => match fields.get("type") {
                Some(serde_json::Value::String(name)) => name.clone(),
                _ => String::from("model"),
            },
            _ => String::from("model"),
        }
    }
}

impl PipelineSpec {
    /// The default pipeline: median imputation, one-hot encoding, hashed
    /// text, standard scaling and a 100-tree histogram forest.
    pub fn default_forest() -> Self {
        PipelineSpec {
            name: "default-forest-100".into(),
            seed: 0,
            steps: vec![
                Step::Impute { strategy: ImputeStrategy::Median, value: None },
                Step::Encode { method: EncodeMethod::OneHot, max_levels: None },
                Step::Text { n_features: None, ngram_max: None, tfidf: false },
                Step::Scale { method: ScaleMethod::Standard },
            ],
            model: ModelSpec::HistForest { n_trees: 100, max_depth: None, min_samples_leaf: 1, max_features: None },
            clip_to_target_range: false,
        }
    }

    /// Parses a spec from JSON and checks it ([`PipelineSpec::check`]).
    ///
    /// # Errors
    /// [`crate::Error::Spec`] with serde's message (unknown fields included),
    /// or [`crate::Error::BadParameter`].
    pub fn from_json(value: &serde_json::Value) -> crate::Result<CheckedPipeline> {
        let spec: PipelineSpec = serde_json::from_value(value.clone())
            .map_err(|e| crate::Error::Spec { reason: bounded(&e.to_string()) })?;
        spec.check()
    }
}
