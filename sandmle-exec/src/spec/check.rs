//! [`CheckedPipeline`]: a [`PipelineSpec`] whose every parameter has been
//! checked, the only form the executor runs.
//!
//! The idea is linfa's `ParamGuard` (unchecked parameters become checked
//! ones before anything is fitted), with typed errors where linfa panics:
//! every range a model or step needs, and every size cap that keeps a
//! hostile or mistaken spec from exhausting memory or time, is checked here
//! once. What depends on the data (k neighbours against the rows, features
//! against the rows) is checked when the data is there.

use super::{Kernel, MAX_LEVELS, MAX_TEXT_FEATURES, MAX_TREES, ModelSpec, PipelineSpec, Step};
use crate::error::{Error, Result};
use serde::Serialize;

/// A pipeline spec that passed [`PipelineSpec::check`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct CheckedPipeline(PipelineSpec);

impl CheckedPipeline {
    /// The spec.
    pub fn spec(&self) -> &PipelineSpec {
        &self.0
    }

    /// The spec, to change it (and check it again).
    pub fn into_spec(self) -> PipelineSpec {
        self.0
    }
}

impl std::ops::Deref for CheckedPipeline {
    type Target = PipelineSpec;

    fn deref(&self) -> &PipelineSpec {
        &self.0
    }
}

fn bad(model: &'static str, param: &'static str, reason: &str) -> Error {
    Error::BadParameter { model, param, reason: reason.to_owned() }
}

fn at_least_one(model: &'static str, param: &'static str, v: usize) -> Result<()> {
    if v == 0 { Err(bad(model, param, "must be at least 1")) } else { Ok(()) }
}

fn at_most(model: &'static str, param: &'static str, v: usize, max: usize) -> Result<()> {
    if v > max { Err(bad(model, param, &format!("must be at most {max}"))) } else { Ok(()) }
}

fn non_negative(model: &'static str, param: &'static str, v: f64) -> Result<()> {
    if v >= 0.0 && v.is_finite() { Ok(()) } else { Err(bad(model, param, "must be a finite number >= 0")) }
}

fn positive(model: &'static str, param: &'static str, v: f64) -> Result<()> {
    if v > 0.0 && v.is_finite() { Ok(()) } else { Err(bad(model, param, "must be a finite positive number")) }
}

fn check_step(step: &Step) -> Result<()> {
    match step {
        Step::SelectBest { k } => at_least_one("select_best", "k", *k),
        Step::Encode { max_levels: Some(n), .. } => {
            at_least_one("encode", "max_levels", *n)?;
            at_most("encode", "max_levels", *n, MAX_LEVELS)
        }
        Step::Text { n_features, ngram_max, .. } => {
            if let Some(n) = n_features {
                at_least_one("text", "n_features", *n)?;
                at_most("text", "n_features", *n, MAX_TEXT_FEATURES)?;
            }
            match ngram_max {
                Some(n) if !(1..=2).contains(n) => Err(bad("text", "ngram_max", "must be 1 or 2")),
                _ => Ok(()),
            }
        }
        Step::Impute { value: Some(v), .. } if !v.is_finite() => Err(bad("impute", "value", "must be finite")),
        Step::Drop { .. } | Step::Select { .. } | Step::Impute { .. } | Step::Scale { .. } | Step::Encode { .. } => {
            Ok(())
        }
    }
}

fn check_forest(
    model: &'static str,
    n_trees: usize,
    min_samples_leaf: usize,
    max_features: Option<usize>,
) -> Result<()> {
    at_least_one(model, "n_trees", n_trees)?;
    at_most(model, "n_trees", n_trees, MAX_TREES)?;
    at_least_one(model, "min_samples_leaf", min_samples_leaf)?;
    max_features.map_or(Ok(()), |m| at_least_one(model, "max_features", m))
}

fn check_model(model: &ModelSpec) -> Result<()> {
    match model {
        ModelSpec::Constant { .. } | ModelSpec::LinearRegression | ModelSpec::LogisticRegression { c: None } => Ok(()),
        ModelSpec::LogisticRegression { c: Some(c) } => positive("logistic_regression", "c", *c),
        ModelSpec::Ridge { alpha } => non_negative("ridge", "alpha", *alpha),
        ModelSpec::Lasso { alpha } => non_negative("lasso", "alpha", *alpha),
        ModelSpec::ElasticNet { alpha, l1_ratio } => {
            non_negative("elastic_net", "alpha", *alpha)?;
            if (0.0..=1.0).contains(l1_ratio) {
                Ok(())
            } else {
                Err(bad("elastic_net", "l1_ratio", "must lie in [0, 1]"))
            }
        }
        ModelSpec::DecisionTree { min_samples_leaf, .. } => {
            at_least_one("decision_tree", "min_samples_leaf", *min_samples_leaf)
        }
        ModelSpec::RandomForest { n_trees, min_samples_leaf, max_features, .. } => {
            check_forest("random_forest", *n_trees, *min_samples_leaf, *max_features)
        }
        ModelSpec::HistForest { n_trees, min_samples_leaf, max_features, .. } => {
            check_forest("hist_forest", *n_trees, *min_samples_leaf, *max_features)
        }
        ModelSpec::Knn { k, .. } => at_least_one("knn", "k", *k),
        ModelSpec::GaussianNb { var_smoothing } => non_negative("gaussian_nb", "var_smoothing", *var_smoothing),
        ModelSpec::MultinomialNb { alpha } => non_negative("multinomial_nb", "alpha", *alpha),
        ModelSpec::Svm { c, kernel } => {
            positive("svm", "c", *c)?;
            match kernel {
                Kernel::Rbf { gamma: Some(g) } => positive("svm", "gamma", *g),
                Kernel::Rbf { gamma: None } | Kernel::Linear => Ok(()),
            }
        }
    }
}

impl PipelineSpec {
    /// Checks every parameter and size cap, giving the pipeline the
    /// executor runs: at most [`MAX_TREES`] trees, [`MAX_TEXT_FEATURES`]
    /// hash buckets and [`MAX_LEVELS`] one-hot levels; counts at least 1;
    /// penalties finite and in range.
    ///
    /// # Errors
    /// [`Error::BadParameter`] naming the step or model and the parameter.
    pub fn check(self) -> Result<CheckedPipeline> {
        self.steps.iter().try_for_each(check_step)?;
        check_model(&self.model)?;
        Ok(CheckedPipeline(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn checked(model: serde_json::Value) -> Result<CheckedPipeline> {
        PipelineSpec::from_json(&json!({ "model": model }))
    }

    #[test]
    fn out_of_range_parameters_are_refused_before_anything_runs() {
        for (model, param) in [
            (json!({"type": "hist_forest", "n_trees": 0}), "n_trees"),
            (json!({"type": "hist_forest", "n_trees": 10_001}), "n_trees"),
            (json!({"type": "random_forest", "min_samples_leaf": 0}), "min_samples_leaf"),
            (json!({"type": "knn", "k": 0}), "k"),
            (json!({"type": "logistic_regression", "c": -1.0}), "c"),
            (json!({"type": "ridge", "alpha": -0.5}), "alpha"),
            (json!({"type": "elastic_net", "l1_ratio": 1.5}), "l1_ratio"),
            (json!({"type": "svm", "kernel": {"kind": "rbf", "gamma": 0.0}}), "gamma"),
            (json!({"type": "gaussian_nb", "var_smoothing": -1.0}), "var_smoothing"),
        ] {
            match checked(model.clone()) {
                Err(Error::BadParameter { param: p, .. }) => assert_eq!(p, param, "{model}"),
                other => panic!("{model}: {other:?}"),
            }
        }
        let step =
            |s: serde_json::Value| PipelineSpec::from_json(&json!({"steps": [s], "model": {"type": "constant"}}));
        assert!(step(json!({"op": "text", "ngram_max": 3})).is_err());
        assert!(step(json!({"op": "text", "n_features": 0})).is_err());
        assert!(step(json!({"op": "select_best", "k": 0})).is_err());
        assert!(step(json!({"op": "encode", "method": "one_hot", "max_levels": 10_001})).is_err());
        assert!(checked(json!({"type": "hist_forest"})).is_ok());
    }

    #[test]
    fn type_names_are_serde_tags() {
        for name in [
            "constant",
            "logistic_regression",
            "linear_regression",
            "ridge",
            "lasso",
            "elastic_net",
            "decision_tree",
            "random_forest",
            "hist_forest",
            "knn",
            "gaussian_nb",
            "multinomial_nb",
            "svm",
        ] {
            let spec = checked(json!({ "type": name })).unwrap();
            assert_eq!(spec.model.type_name(), name);
        }
    }
}
