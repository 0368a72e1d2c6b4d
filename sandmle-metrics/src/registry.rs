//! The metric catalogue: canonical names, directions, what each metric
//! reads, and [`StandardMetric`], the [`sandmle_core::Metric`] behind every
//! name.

use crate::classification::{self as cls, Average};
use crate::error::{Error, Result};
use crate::labels::Labels;
use crate::{auc, logloss, map_at_k, regression as reg};
use sandmle_core::{Column, Direction, MetricSpec, Table};

/// What a metric reads from each side, which also decides how a grader
/// validates submissions for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
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
}

impl Input {
    /// `true` if the prediction columns must hold numbers.
    pub fn numeric_prediction(self) -> bool {
        !matches!(self, Input::Labels | Input::LabelLists)
    }

    /// `true` if predictions must lie in `[0, 1]`.
    pub fn probabilities(self) -> bool {
        matches!(self, Input::Probability | Input::ColumnProbabilities | Input::ClassProbabilities)
    }
}

/// One catalogue entry.
#[derive(Debug, Clone, Copy)]
pub struct MetricInfo {
    /// Canonical name.
    pub name: &'static str,
    /// Direction.
    pub direction: Direction,
    /// What it reads.
    pub input: Input,
    /// One line on what it is.
    pub summary: &'static str,
}

const HIGHER: Direction = Direction::HigherIsBetter;
const LOWER: Direction = Direction::LowerIsBetter;

macro_rules! catalogue {
    ($(($name:literal, $dir:ident, $input:ident, $summary:literal)),* $(,)?) => {
        /// Every metric, by canonical name.
        pub const METRICS: &[MetricInfo] = &[
            $(MetricInfo { name: $name, direction: $dir, input: Input::$input, summary: $summary }),*
        ];
    };
}

catalogue![
    ("accuracy", HIGHER, Labels, "share of exact label matches"),
    ("balanced_accuracy", HIGHER, Labels, "mean recall over the classes in the truth"),
    ("f1", HIGHER, Labels, "binary F1 of label 1"),
    ("f1_macro", HIGHER, Labels, "unweighted mean of per-class F1"),
    ("f1_micro", HIGHER, Labels, "F1 of global counts"),
    ("f1_weighted", HIGHER, Labels, "per-class F1 weighted by true counts"),
    ("precision", HIGHER, Labels, "binary precision of label 1"),
    ("recall", HIGHER, Labels, "binary recall of label 1"),
    ("mcc", HIGHER, Labels, "Matthews correlation coefficient"),
    ("quadratic_weighted_kappa", HIGHER, Labels, "Cohen's kappa with quadratic weights"),
    ("roc_auc", HIGHER, Probability, "binary ROC AUC, ties counted one half"),
    ("mean_column_roc_auc", HIGHER, ColumnProbabilities, "mean of per-column binary ROC AUC"),
    ("average_precision", HIGHER, Scores, "area under the precision-recall steps"),
    ("log_loss", LOWER, Probability, "binary log loss, one probability column"),
    ("multiclass_log_loss", LOWER, ClassProbabilities, "log loss over one-hot answers"),
    ("rmse", LOWER, Values, "root mean squared error"),
    ("mse", LOWER, Values, "mean squared error"),
    ("mae", LOWER, Values, "mean absolute error"),
    ("r2", HIGHER, Values, "coefficient of determination"),
    ("rmsle", LOWER, Values, "root mean squared log error"),
    ("mean_column_rmsle", LOWER, ColumnValues, "mean of per-column RMSLE"),
    ("mape", LOWER, Values, "mean absolute percentage error (a fraction)"),
    ("pearson", HIGHER, Values, "Pearson correlation"),
    ("spearman", HIGHER, Values, "Spearman rank correlation"),
    ("map_at_k", HIGHER, LabelLists, "mean average precision at k (parameter k)"),
];

/// The catalogue entry of a metric name.
///
/// # Errors
/// [`Error::UnknownMetric`].
pub fn info(name: &str) -> Result<&'static MetricInfo> {
    METRICS.iter().find(|m| m.name == name).ok_or_else(|| Error::UnknownMetric { name: name.to_owned() })
}

/// A metric of the catalogue, with its parameters, as a
/// [`sandmle_core::Metric`].
#[derive(Debug, Clone)]
pub struct StandardMetric {
    info: &'static MetricInfo,
    k: usize,
}

impl StandardMetric {
    /// The metric a spec names.
    ///
    /// # Errors
    /// [`Error::UnknownMetric`]; [`Error::BadParameter`] for `map_at_k`
    /// without a positive integer `k`.
    pub fn from_spec(spec: &MetricSpec) -> Result<Self> {
        let info = info(&spec.name)?;
        let k = if spec.name == "map_at_k" {
            let k = spec.params.get("k").and_then(serde_json::Value::as_u64).ok_or_else(|| Error::BadParameter {
                param: "k".into(),
                reason: "map_at_k needs a positive integer k".into(),
            })?;
            usize::try_from(k)
                .ok()
                .filter(|&k| k > 0)
                .ok_or_else(|| Error::BadParameter { param: "k".into(), reason: "must be at least 1".into() })?
        } else {
            0
        };
        Ok(StandardMetric { info, k })
    }

    /// The metric called `name`, without parameters.
    ///
    /// # Errors
    /// As [`StandardMetric::from_spec`].
    pub fn named(name: &str) -> Result<Self> {
        Self::from_spec(&MetricSpec::named(name))
    }

    /// Its catalogue entry.
    pub fn info(&self) -> &'static MetricInfo {
        self.info
    }

    /// Scores aligned truth and prediction tables (same columns, same row
    /// order), returning this crate's typed error.
    ///
    /// # Errors
    /// The metric's errors; [`Error::ColumnCountMismatch`] if the tables do
    /// not have the columns the metric reads.
    pub fn evaluate(&self, truth: &Table, pred: &Table) -> Result<f64> {
        let (t, p) = (columns(truth), columns(pred));
        if t.len() != p.len() || t.is_empty() {
            return Err(Error::ColumnCountMismatch { truth: t.len(), prediction: p.len() });
        }
        let single = || {
            if t.len() == 1 {
                Ok((t[0], p[0]))
            } else {
                Err(Error::ColumnCountMismatch { truth: t.len(), prediction: 1 })
            }
        };
        match self.info.input {
            Input::Labels => {
                let (t, p) = single()?;
                let (t, p) = (Labels::from_column(t, "truth")?, Labels::from_column(p, "prediction")?);
                self.labels(&t, &p)
            }
            Input::Scores | Input::Probability => {
                let (t, p) = single()?;
                let (t, p) = (Labels::from_column(t, "truth")?, numbers(p, "prediction")?);
                match self.info.name {
                    "roc_auc" => auc::roc_auc(&t, &p),
                    "average_precision" => auc::average_precision(&t, &p),
                    _ => logloss::log_loss(&t, &p),
                }
            }
            Input::ColumnProbabilities => {
                let t = t.iter().map(|c| Labels::from_column(c, "truth")).collect::<Result<Vec<_>>>()?;
                let p = p.iter().map(|c| numbers(c, "prediction")).collect::<Result<Vec<_>>>()?;
                auc::mean_column_roc_auc(&t, &p)
            }
            Input::ClassProbabilities | Input::ColumnValues => {
                let t = t.iter().map(|c| numbers(c, "truth")).collect::<Result<Vec<_>>>()?;
                let p = p.iter().map(|c| numbers(c, "prediction")).collect::<Result<Vec<_>>>()?;
                if self.info.name == "multiclass_log_loss" {
                    logloss::multiclass_log_loss(&t, &p)
                } else {
                    reg::mean_column_rmsle(&t, &p)
                }
            }
            Input::Values => {
                let (t, p) = single()?;
                let (t, p) = (numbers(t, "truth")?, numbers(p, "prediction")?);
                let f = match self.info.name {
                    "rmse" => reg::rmse,
                    "mse" => reg::mse,
                    "mae" => reg::mae,
                    "r2" => reg::r2,
                    "rmsle" => reg::rmsle,
                    "mape" => reg::mape,
                    "pearson" => reg::pearson,
                    _ => reg::spearman,
                };
                f(&t, &p)
            }
            Input::LabelLists => {
                let (t, p) = single()?;
                map_at_k::map_at_k(&t.label_texts(), &p.label_texts(), self.k)
            }
        }
    }

    fn labels(&self, t: &Labels, p: &Labels) -> Result<f64> {
        match self.info.name {
            "accuracy" => cls::accuracy(t, p),
            "balanced_accuracy" => cls::balanced_accuracy(t, p),
            "f1" => cls::f1(t, p),
            "f1_macro" => cls::f1_averaged(t, p, Average::Macro),
            "f1_micro" => cls::f1_averaged(t, p, Average::Micro),
            "f1_weighted" => cls::f1_averaged(t, p, Average::Weighted),
            "precision" => cls::precision(t, p),
            "recall" => cls::recall(t, p),
            "mcc" => cls::mcc(t, p),
            _ => cls::quadratic_weighted_kappa(t, p),
        }
    }
}

fn columns(t: &Table) -> Vec<&Column> {
    t.iter().map(|(_, c)| c).collect()
}

/// A column's values as numbers (`true`/`false` as 1/0); missing values stay
/// NaN and are rejected by the metric.
fn numbers(c: &Column, side: &'static str) -> Result<Vec<f64>> {
    c.to_f64_lenient().ok_or_else(|| {
        let row = (0..c.len()).find(|&i| c.get_str(i).is_some_and(|s| sandmle_core::parse_f64_lenient(&s).is_none()));
        Error::NonFinite { side, index: row.unwrap_or(0) }
    })
}

impl sandmle_core::Metric for StandardMetric {
    fn name(&self) -> &str {
        self.info.name
    }

    fn direction(&self) -> Direction {
        self.info.direction
    }

    fn score(&self, truth: &Table, prediction: &Table) -> sandmle_core::Result<f64> {
        Ok(self.evaluate(truth, prediction)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandmle_core::{Modality, SubmissionForm, TaskKind, TaskSpec};

    /// Core's `submission_form` (what solutions predict) agrees with what
    /// each metric reads.
    #[test]
    fn core_submission_forms_match_metric_inputs() {
        for m in METRICS {
            let task = TaskSpec {
                id: "t".into(),
                modality: Modality::Tabular,
                kind: TaskKind::Regression,
                id_column: "id".into(),
                target_columns: vec![],
                prediction_columns: vec![],
                metric: MetricSpec::named(m.name),
                direction: m.direction,
            };
            let expected = match m.input {
                Input::Labels => SubmissionForm::Label,
                Input::Scores | Input::Probability => SubmissionForm::Probability,
                Input::ColumnProbabilities => SubmissionForm::ColumnProbabilities,
                Input::ClassProbabilities => SubmissionForm::ClassProbabilities,
                Input::Values | Input::ColumnValues => SubmissionForm::Value,
                Input::LabelLists => SubmissionForm::LabelList,
            };
            assert_eq!(task.submission_form(), expected, "{}", m.name);
        }
    }
}
