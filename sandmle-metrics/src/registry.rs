//! One scoring function for every entry of core's metric catalogue, and
//! [`StandardMetric`], the [`sandmle_core::Metric`] behind every name.
//!
//! The catalogue ([`sandmle_core::METRICS`]) says what a name means — its
//! direction, what it reads, its parameters. This module only attaches a
//! function to each name ([`SCORERS`]); the shape of the function says how
//! the columns are read, so there is no second dispatch on names.

use crate::classification::{self as cls, Average};
use crate::error::{Error, Result};
use crate::labels::Labels;
use crate::{auc, label_sets, logloss, map_at_k, regression as reg};
use sandmle_core::{CheckedMetric, Column, Direction, MetricInfo, MetricInput, MetricSpec, Table};

/// What a metric reads from each side (core's [`MetricInput`]).
pub type Input = MetricInput;

/// A metric over several numeric columns each side (columns, then rows).
pub type ColumnsFn = fn(&[Vec<f64>], &[Vec<f64>]) -> Result<f64>;

/// A scoring function, of the shape the metric's input needs.
#[derive(Clone, Copy)]
pub enum Scorer {
    /// Labels against labels.
    Labels(fn(&Labels, &Labels) -> Result<f64>),
    /// Truth labels against one column of scores or probabilities.
    Scores(fn(&Labels, &[f64]) -> Result<f64>),
    /// Numeric truth columns against as many prediction columns.
    Columns(ColumnsFn),
    /// One column of numbers each side.
    Values(fn(&[f64], &[f64]) -> Result<f64>),
    /// Space-separated label lists or sets each side, with `k` (unused
    /// by set metrics).
    LabelLists(fn(&[String], &[String], usize) -> Result<f64>),
}

impl Scorer {
    /// `true` if this function can read a metric of `input`.
    pub fn reads(self, input: Input) -> bool {
        matches!(
            (self, input),
            (Scorer::Labels(_), Input::Labels)
                | (Scorer::Scores(_), Input::Scores | Input::Probability)
                | (Scorer::Columns(_), Input::ColumnProbabilities | Input::ClassProbabilities | Input::ColumnValues)
                | (Scorer::Values(_), Input::Values)
                | (Scorer::LabelLists(_), Input::LabelLists | Input::LabelSets)
        )
    }
}

impl std::fmt::Debug for Scorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Scorer::Labels(_) => "Labels",
            Scorer::Scores(_) => "Scores",
            Scorer::Columns(_) => "Columns",
            Scorer::Values(_) => "Values",
            Scorer::LabelLists(_) => "LabelLists",
        })
    }
}

fn f1_macro(t: &Labels, p: &Labels) -> Result<f64> {
    cls::f1_averaged(t, p, Average::Macro)
}
fn f1_micro(t: &Labels, p: &Labels) -> Result<f64> {
    cls::f1_averaged(t, p, Average::Micro)
}
fn f1_weighted(t: &Labels, p: &Labels) -> Result<f64> {
    cls::f1_averaged(t, p, Average::Weighted)
}

/// The scoring function of every catalogue metric, by name.
pub const SCORERS: &[(&str, Scorer)] = &[
    ("accuracy", Scorer::Labels(cls::accuracy)),
    ("balanced_accuracy", Scorer::Labels(cls::balanced_accuracy)),
    ("f1", Scorer::Labels(cls::f1)),
    ("f1_macro", Scorer::Labels(f1_macro)),
    ("f1_micro", Scorer::Labels(f1_micro)),
    ("f1_weighted", Scorer::Labels(f1_weighted)),
    ("precision", Scorer::Labels(cls::precision)),
    ("recall", Scorer::Labels(cls::recall)),
    ("mcc", Scorer::Labels(cls::mcc)),
    ("quadratic_weighted_kappa", Scorer::Labels(cls::quadratic_weighted_kappa)),
    ("roc_auc", Scorer::Scores(auc::roc_auc)),
    ("mean_column_roc_auc", Scorer::Columns(auc::mean_column_roc_auc_labelled)),
    ("average_precision", Scorer::Scores(auc::average_precision)),
    ("log_loss", Scorer::Scores(logloss::log_loss)),
    ("multiclass_log_loss", Scorer::Columns(logloss::multiclass_log_loss)),
    ("rmse", Scorer::Values(reg::rmse)),
    ("mse", Scorer::Values(reg::mse)),
    ("mae", Scorer::Values(reg::mae)),
    ("r2", Scorer::Values(reg::r2)),
    ("rmsle", Scorer::Values(reg::rmsle)),
    ("mean_column_rmsle", Scorer::Columns(reg::mean_column_rmsle)),
    ("mape", Scorer::Values(reg::mape)),
    ("pearson", Scorer::Values(reg::pearson)),
    ("spearman", Scorer::Values(reg::spearman)),
    ("map_at_k", Scorer::LabelLists(map_at_k::map_at_k)),
    ("label_set_f1_micro", Scorer::LabelLists(label_sets::label_set_f1_micro)),
    ("mean_column_spearman", Scorer::Columns(reg::mean_column_spearman)),
];

/// The catalogue entry of a metric name.
///
/// # Errors
/// [`Error::UnknownMetric`].
pub fn info(name: &str) -> Result<&'static MetricInfo> {
    sandmle_core::metric_info(name).ok_or_else(|| Error::UnknownMetric { name: name.to_owned() })
}

/// A metric of the catalogue, with its parameters, as a
/// [`sandmle_core::Metric`].
#[derive(Debug, Clone)]
pub struct StandardMetric {
    checked: CheckedMetric,
    scorer: Scorer,
}

impl StandardMetric {
    /// The metric a spec names, its parameters checked against the
    /// catalogue.
    ///
    /// # Errors
    /// [`Error::UnknownMetric`]; [`Error::BadParameter`] for a parameter
    /// the metric does not take, a required one missing (`k` of
    /// `map_at_k`), or one out of range.
    pub fn from_spec(spec: &MetricSpec) -> Result<Self> {
        let checked = spec.check().map_err(|e| match e {
            sandmle_core::Error::UnknownMetric { name } => Error::UnknownMetric { name },
            sandmle_core::Error::MetricParameter { param, reason, .. } => Error::BadParameter { param, reason },
            other => Error::BadParameter { param: String::new(), reason: other.to_string() },
        })?;
        let scorer = SCORERS
            .iter()
            .find(|(n, _)| *n == checked.info.name)
            .map(|&(_, s)| s)
            .ok_or_else(|| Error::UnknownMetric { name: spec.name.clone() })?;
        Ok(StandardMetric { checked, scorer })
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
        self.checked.info
    }

    /// Scores aligned truth and prediction tables (same columns, same row
    /// order), returning this crate's typed error.
    ///
    /// # Errors
    /// The metric's errors; [`Error::ColumnCountMismatch`] if the tables do
    /// not have the columns the metric reads.
    pub fn evaluate(&self, truth: &Table, pred: &Table) -> Result<f64> {
        self.evaluate_columns(&columns(truth), &columns(pred))
    }

    /// The answers' prediction columns scored against themselves, as a
    /// grader's check asks (a metric that cannot score its own answers
    /// cannot score any submission): [`StandardMetric::evaluate_columns`]
    /// of `truth` on both sides. ROC AUC on a numeric column is known once
    /// its inputs pass the same checks (1: the positive rows are those of
    /// the greater score), so its million-row sort is skipped.
    ///
    /// # Errors
    /// As [`StandardMetric::evaluate_columns`].
    pub fn self_score(&self, truth: &[&Column]) -> Result<f64> {
        match truth {
            [Column::Numeric(v)] if self.checked.info.name == "roc_auc" => auc::roc_auc_of_itself(v),
            _ => self.evaluate_columns(truth, truth),
        }
    }

    /// [`StandardMetric::evaluate`] on borrowed columns, in the same order
    /// on both sides: a caller holding the answers' table scores its
    /// prediction columns without copying them into a table of their own.
    ///
    /// # Errors
    /// As [`StandardMetric::evaluate`].
    pub fn evaluate_columns(&self, t: &[&Column], p: &[&Column]) -> Result<f64> {
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
        match self.scorer {
            Scorer::Labels(f) => {
                let (t, p) = single()?;
                f(&Labels::from_column(t, "truth")?, &Labels::from_column(p, "prediction")?)
            }
            Scorer::Scores(f) => {
                let (t, p) = single()?;
                f(&Labels::from_column(t, "truth")?, &column_numbers(p, "prediction")?)
            }
            Scorer::Columns(f) => {
                let t = t.iter().map(|c| numbers(c, "truth")).collect::<Result<Vec<_>>>()?;
                let p = p.iter().map(|c| numbers(c, "prediction")).collect::<Result<Vec<_>>>()?;
                f(&t, &p)
            }
            Scorer::Values(f) => {
                let (t, p) = single()?;
                f(&column_numbers(t, "truth")?, &column_numbers(p, "prediction")?)
            }
            Scorer::LabelLists(f) => {
                let (t, p) = single()?;
                let k = self.checked.param("k").and_then(|k| usize::try_from(k).ok()).unwrap_or(usize::MAX);
                f(&t.label_texts(), &p.label_texts(), k)
            }
        }
    }
}

/// A table's columns, in order, borrowed.
pub(crate) fn columns(t: &Table) -> Vec<&Column> {
    t.iter().map(|(_, c)| c).collect()
}

/// A column's values as numbers (`true`/`false` as 1/0); missing values stay
/// NaN and are rejected by the metric.
/// A column's numbers, borrowed when the column is numeric (a large
/// submission's scores are not copied to be scored).
fn column_numbers<'c>(c: &'c Column, side: &'static str) -> Result<std::borrow::Cow<'c, [f64]>> {
    match c {
        Column::Numeric(v) => Ok(std::borrow::Cow::Borrowed(v)),
        _ => numbers(c, side).map(std::borrow::Cow::Owned),
    }
}

fn numbers(c: &Column, side: &'static str) -> Result<Vec<f64>> {
    c.to_f64_lenient().ok_or_else(|| {
        let row = (0..c.len()).find(|&i| c.get_str(i).is_some_and(|s| sandmle_core::parse_f64_lenient(&s).is_none()));
        Error::NonFinite { side, index: row.unwrap_or(0) }
    })
}

impl sandmle_core::Metric for StandardMetric {
    fn name(&self) -> &str {
        self.checked.info.name
    }

    fn direction(&self) -> Direction {
        self.checked.info.direction
    }

    fn score(&self, truth: &Table, prediction: &Table) -> sandmle_core::Result<f64> {
        Ok(self.evaluate(truth, prediction)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandmle_core::METRICS;

    /// Every catalogue entry has exactly one scoring function, of a shape
    /// that reads its input, and every function belongs to an entry.
    #[test]
    fn every_catalogue_metric_has_one_scorer_of_its_shape() {
        for m in METRICS {
            let found: Vec<Scorer> = SCORERS.iter().filter(|(n, _)| *n == m.name).map(|&(_, s)| s).collect();
            assert_eq!(found.len(), 1, "{}", m.name);
            assert!(found[0].reads(m.input), "{}: {:?} cannot read {:?}", m.name, found[0], m.input);
            assert!(
                StandardMetric::from_spec(&MetricSpec {
                    name: m.name.into(),
                    params: m.params.iter().map(|p| (p.name.to_owned(), serde_json::Value::from(p.min))).collect(),
                })
                .is_ok()
            );
        }
        for (name, _) in SCORERS {
            assert!(sandmle_core::metric_info(name).is_some(), "{name} is not in the catalogue");
        }
    }

    /// The answers' self-score skips ROC AUC's sort, never its verdict:
    /// the same value or the same error as scoring the column against
    /// itself, for every metric and every kind of answers.
    #[test]
    fn self_scores_are_the_answers_scored_against_themselves() {
        let columns = [
            Column::Numeric(vec![0.0, 1.0, 1.0, 0.0]),
            Column::Numeric(vec![-0.0, 3.0, 0.0]),
            Column::Numeric(vec![1.0, 1.0, 1.0]),
            Column::Numeric(vec![0.0, 1.0, 2.0]),
            Column::Numeric(vec![0.0, f64::NAN, 1.0]),
            Column::Numeric(vec![0.0, 0.5, 1.0]),
            Column::Numeric(vec![]),
            Column::text([Some("1"), Some("0"), Some("1")]),
            Column::text([Some("10"), Some("9")]),
            Column::text([Some("yes"), Some("no")]),
        ];
        for name in ["roc_auc", "rmse", "log_loss", "accuracy"] {
            let metric = StandardMetric::named(name).unwrap();
            for c in &columns {
                let (fast, full) = (metric.self_score(&[c]), metric.evaluate_columns(&[c], &[c]));
                let show = |r: Result<f64>| r.map(f64::to_bits).map_err(|e| e.to_string());
                assert_eq!(show(fast), show(full), "{name} on {c:?}");
            }
        }
    }

    #[test]
    fn parameters_a_metric_does_not_take_are_errors() {
        let mut spec = MetricSpec::named("rmse");
        spec.params.insert("k".into(), 3.into());
        assert!(matches!(StandardMetric::from_spec(&spec), Err(Error::BadParameter { .. })));
        assert!(matches!(StandardMetric::named("map_at_k"), Err(Error::BadParameter { .. })));
        assert!(matches!(StandardMetric::named("nope"), Err(Error::UnknownMetric { .. })));
    }
}
