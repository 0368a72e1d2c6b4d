//! The metric catalogue: every metric a task may name, with its direction,
//! what a submission for it holds, its family and its parameters.
//!
//! This is the one place a metric name means something. [`TaskSpec`]
//! reads the submission form from it, `sandmle-metrics` attaches one
//! scoring function to each entry (and its tests check that every entry
//! has one), and `sandmle-synth` takes the DNA's metric family from it. A
//! metric is added by adding an entry here and its scoring function there.
//!
//! ```
//! use sandmle_core::{MetricFamily, MetricSpec, SubmissionForm, metric_info};
//!
//! let auc = metric_info("roc_auc").unwrap();
//! assert_eq!(auc.input.submission_form(), SubmissionForm::Probability);
//! assert_eq!(auc.family, MetricFamily::Auc);
//! // A parameter the metric does not take is an error, not ignored.
//! let mut spec = MetricSpec::named("rmse");
//! spec.params.insert("k".into(), 5.into());
//! assert!(spec.check().is_err());
//! ```
//!
//! [`TaskSpec`]: crate::TaskSpec

use crate::error::{Error, Result};
use crate::task::{Direction, MetricSpec, SubmissionForm};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a metric reads from each side, which also decides how a grader
/// validates a submission for it and what a solution must predict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricInput {
    /// One column of class labels each side.
    Labels,
    /// Truth labels; one column of scores (any finite numbers).
    Scores,
    /// Truth labels; one column of probabilities in `[0, 1]`.
    Probability,
    /// Several binary truth columns; one probability column for each.
    ColumnProbabilities,
    /// One-hot truth columns; one probability column per class, rows
    /// summing to 1.
    ClassProbabilities,
    /// One column of numbers each side.
    Values,
    /// Several columns of numbers each side.
    ColumnValues,
    /// One column of space-separated labels each side.
    LabelLists,
    /// One column of space-separated label sets each side (order and
    /// repeats ignored).
    LabelSets,
}

impl MetricInput {
    /// `true` if the prediction columns must hold numbers.
    pub fn numeric_prediction(self) -> bool {
        !matches!(self, MetricInput::Labels | MetricInput::LabelLists | MetricInput::LabelSets)
    }

    /// `true` if each side's one column holds space-separated labels,
    /// read as text whatever the labels look like.
    pub fn label_text(self) -> bool {
        matches!(self, MetricInput::LabelLists | MetricInput::LabelSets)
    }

    /// `true` if predictions must lie in `[0, 1]`.
    pub fn probabilities(self) -> bool {
        matches!(self, MetricInput::Probability | MetricInput::ColumnProbabilities | MetricInput::ClassProbabilities)
    }

    /// What a submission's prediction columns hold for a metric reading
    /// this input.
    pub fn submission_form(self) -> SubmissionForm {
        match self {
            MetricInput::Labels => SubmissionForm::Label,
            MetricInput::Scores | MetricInput::Probability => SubmissionForm::Probability,
            MetricInput::ColumnProbabilities => SubmissionForm::ColumnProbabilities,
            MetricInput::ClassProbabilities => SubmissionForm::ClassProbabilities,
            MetricInput::Values | MetricInput::ColumnValues => SubmissionForm::Value,
            MetricInput::LabelLists => SubmissionForm::LabelList,
            MetricInput::LabelSets => SubmissionForm::LabelSet,
        }
    }
}

/// The family a metric belongs to, as a task's DNA records it (a metric
/// can be swapped for another of its family when a task is re-homed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricFamily {
    /// Areas under ROC curves.
    Auc,
    /// Precision-recall summaries.
    Precision,
    /// Log losses.
    LogLoss,
    /// Share of correct labels.
    Accuracy,
    /// F-scores, precision and recall of labels.
    FScore,
    /// Agreement coefficients (MCC, kappa).
    Agreement,
    /// Regression errors (lower is better).
    RegressionError,
    /// Correlations and explained variance (higher is better).
    Correlation,
    /// Ranked lists (MAP@k).
    Ranking,
}

/// A parameter a metric takes: a whole number at least `min`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamInfo {
    /// The parameter's name (`"k"`).
    pub name: &'static str,
    /// Its value when a spec leaves it out; `None` makes it required.
    pub default: Option<u64>,
    /// The smallest value allowed.
    pub min: u64,
    /// One line on what it means.
    pub summary: &'static str,
}

/// One catalogue entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricInfo {
    /// Canonical name.
    pub name: &'static str,
    /// Whether lower or higher scores are better.
    pub direction: Direction,
    /// What it reads.
    pub input: MetricInput,
    /// Its family.
    pub family: MetricFamily,
    /// The parameters it takes (most take none).
    pub params: &'static [ParamInfo],
    /// One line on what it is.
    pub summary: &'static str,
}

/// A metric spec checked against the catalogue: a known metric with every
/// parameter it takes, defaults filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedMetric {
    /// The catalogue entry.
    pub info: &'static MetricInfo,
    /// Every parameter of the entry, in catalogue order, with its value.
    pub params: Vec<(&'static str, u64)>,
}

impl CheckedMetric {
    /// The value of a parameter the metric takes.
    pub fn param(&self, name: &str) -> Option<u64> {
        self.params.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }
}

use Direction::{HigherIsBetter as HIGHER, LowerIsBetter as LOWER};
use MetricFamily as F;
use MetricInput as I;

const K: &[ParamInfo] =
    &[ParamInfo { name: "k", default: None, min: 1, summary: "how many ranked labels count (MAP@k)" }];

macro_rules! catalogue {
    ($(($name:literal, $dir:ident, $input:ident, $family:ident, $params:expr, $summary:literal)),* $(,)?) => {
        /// Every metric, by canonical name.
        pub const METRICS: &[MetricInfo] = &[
            $(MetricInfo {
                name: $name,
                direction: $dir,
                input: I::$input,
                family: F::$family,
                params: $params,
                summary: $summary,
            }),*
        ];
    };
}

catalogue![
    ("accuracy", HIGHER, Labels, Accuracy, &[], "share of exact label matches"),
    ("balanced_accuracy", HIGHER, Labels, Accuracy, &[], "mean recall over the classes in the truth"),
    ("f1", HIGHER, Labels, FScore, &[], "binary F1 of label 1"),
    ("f1_macro", HIGHER, Labels, FScore, &[], "unweighted mean of per-class F1"),
    ("f1_micro", HIGHER, Labels, FScore, &[], "F1 of global counts"),
    ("f1_weighted", HIGHER, Labels, FScore, &[], "per-class F1 weighted by true counts"),
    ("precision", HIGHER, Labels, FScore, &[], "binary precision of label 1"),
    ("recall", HIGHER, Labels, FScore, &[], "binary recall of label 1"),
    ("mcc", HIGHER, Labels, Agreement, &[], "Matthews correlation coefficient"),
    ("quadratic_weighted_kappa", HIGHER, Labels, Agreement, &[], "Cohen's kappa with quadratic weights"),
    ("roc_auc", HIGHER, Probability, Auc, &[], "binary ROC AUC, ties counted one half"),
    (
        "mean_column_roc_auc",
        HIGHER,
        ColumnProbabilities,
        Auc,
        &[],
        "mean of per-column binary ROC AUC; answer rows whose labels sum below 0 are not scored"
    ),
    ("average_precision", HIGHER, Scores, Precision, &[], "area under the precision-recall steps"),
    ("log_loss", LOWER, Probability, LogLoss, &[], "binary log loss, one probability column"),
    ("multiclass_log_loss", LOWER, ClassProbabilities, LogLoss, &[], "log loss over one-hot answers"),
    ("rmse", LOWER, Values, RegressionError, &[], "root mean squared error"),
    ("mse", LOWER, Values, RegressionError, &[], "mean squared error"),
    ("mae", LOWER, Values, RegressionError, &[], "mean absolute error"),
    ("r2", HIGHER, Values, Correlation, &[], "coefficient of determination"),
    ("rmsle", LOWER, Values, RegressionError, &[], "root mean squared log error (values above -1)"),
    ("mean_column_rmsle", LOWER, ColumnValues, RegressionError, &[], "mean of per-column RMSLE"),
    ("mape", LOWER, Values, RegressionError, &[], "mean absolute percentage error (a fraction)"),
    ("pearson", HIGHER, Values, Correlation, &[], "Pearson correlation"),
    ("spearman", HIGHER, Values, Correlation, &[], "Spearman rank correlation"),
    ("map_at_k", HIGHER, LabelLists, Ranking, K, "mean average precision at k"),
    (
        "label_set_f1_micro",
        HIGHER,
        LabelSets,
        FScore,
        &[],
        "micro F1 over space-separated label sets; labels the answers never hold are ignored"
    ),
    ("mean_column_spearman", HIGHER, ColumnValues, Correlation, &[], "mean of per-column Spearman correlations"),
];

/// The catalogue entry of a metric name, if there is one.
pub fn metric_info(name: &str) -> Option<&'static MetricInfo> {
    METRICS.iter().find(|m| m.name == name)
}

impl MetricSpec {
    /// Checks the spec against the catalogue.
    ///
    /// # Errors
    /// [`Error::UnknownMetric`]; [`Error::MetricParameter`] for a parameter
    /// the metric does not take, a required one left out, or a value that
    /// is not a whole number at least the parameter's minimum.
    pub fn check(&self) -> Result<CheckedMetric> {
        let info = metric_info(&self.name).ok_or_else(|| Error::UnknownMetric { name: self.name.clone() })?;
        let bad = |param: &str, reason: String| Error::MetricParameter {
            metric: self.name.clone(),
            param: param.to_owned(),
            reason,
        };
        if let Some(extra) = self.params.keys().find(|k| !info.params.iter().any(|p| p.name == k.as_str())) {
            return Err(bad(extra, format!("`{}` takes no such parameter", self.name)));
        }
        let params = info
            .params
            .iter()
            .map(|p| {
                let value = match self.params.get(p.name) {
                    Some(v) => v.as_u64().ok_or_else(|| bad(p.name, format!("{v} is not a whole number")))?,
                    None => p.default.ok_or_else(|| bad(p.name, "is required".into()))?,
                };
                if value < p.min {
                    return Err(bad(p.name, format!("must be at least {}, got {value}", p.min)));
                }
                Ok((p.name, value))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(CheckedMetric { info, params })
    }
}

/// The names of the catalogue, for messages.
pub fn metric_names() -> Vec<&'static str> {
    METRICS.iter().map(|m| m.name).collect()
}

/// Parameters as a JSON object, for a [`MetricSpec`].
pub fn params_map(params: &[(&str, u64)]) -> BTreeMap<String, serde_json::Value> {
    params.iter().map(|&(n, v)| (n.to_owned(), serde_json::Value::from(v))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_snake_case() {
        let mut names = metric_names();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
        assert!(names.iter().all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')));
    }

    #[test]
    fn parameters_are_checked() {
        let mut map = MetricSpec::named("map_at_k");
        assert!(matches!(map.check(), Err(Error::MetricParameter { .. })), "k is required");
        map.params.insert("k".into(), 0.into());
        assert!(matches!(map.check(), Err(Error::MetricParameter { .. })), "k >= 1");
        map.params.insert("k".into(), 2.5.into());
        assert!(matches!(map.check(), Err(Error::MetricParameter { .. })), "k whole");
        map.params.insert("k".into(), 5.into());
        assert_eq!(map.check().unwrap().param("k"), Some(5));
        map.params.insert("eps".into(), 1.into());
        assert!(matches!(map.check(), Err(Error::MetricParameter { .. })), "unknown parameter");
        assert!(matches!(MetricSpec::named("nope").check(), Err(Error::UnknownMetric { .. })));
        assert!(params_map(&[("k", 3)]).contains_key("k"));
    }
}
