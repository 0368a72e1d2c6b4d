use super::forward_impls;
use crate::error::Result;
use crate::table::Table;
use crate::task::Direction;

/// A metric: scores predictions against the truth.
///
/// `truth` and `prediction` hold the same columns (the task's prediction
/// columns, in order) with rows already aligned; lining rows up by id is the
/// [`crate::Grader`]'s job. Implementations return an error, never a panic,
/// for inputs the metric is undefined on (a single-class truth for AUC,
/// negative values for RMSLE, ...).
pub trait Metric: Send + Sync {
    /// The canonical name (`roc_auc`, `rmse`, ...).
    fn name(&self) -> &str;
    /// Whether lower or higher scores are better.
    fn direction(&self) -> Direction;
    /// The score of `prediction` against `truth`.
    ///
    /// # Errors
    /// When the metric is undefined on the inputs.
    fn score(&self, truth: &Table, prediction: &Table) -> Result<f64>;
}

forward_impls!(Metric {
    fn name(&self) -> &str;
    fn direction(&self) -> Direction;
    fn score(&self, truth: &Table, prediction: &Table) -> Result<f64>;
});
