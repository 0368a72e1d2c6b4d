use super::forward_impls;
use crate::csv::{ReadOptions, read_csv};
use crate::error::Result;
use crate::grading::{GradeReport, GradingSpec, Leaderboard, Thresholds};
use crate::table::Table;
use std::path::Path;

/// What grading a submission needs: the spec, the answers and, for
/// HumanRank, the reference leaderboard.
#[derive(Debug, Clone, Copy)]
pub struct GradingTask<'a> {
    /// The grading spec (task, metric, thresholds, submission rules).
    pub spec: &'a GradingSpec,
    /// The answers: id and true prediction columns.
    pub answers: &'a Table,
    /// The reference leaderboard, if any.
    pub leaderboard: Option<&'a Leaderboard>,
}

/// A grader: validates a submission, scores it and places it against the
/// thresholds.
///
/// Grading never fails on a bad submission: an invalid one gets a report
/// with `valid_submission: false` and a one-line `error`.
pub trait Grader: Send + Sync {
    /// Grades a submission table.
    fn grade(&self, task: &GradingTask<'_>, submission: &Table) -> GradeReport;

    /// Medal and median thresholds from a reference leaderboard.
    ///
    /// # Errors
    /// When the leaderboard cannot give thresholds (for example it is empty).
    fn thresholds(&self, leaderboard: &Leaderboard) -> Result<Thresholds>;

    /// Grades a submission file. The default reads it with the task's id
    /// column as text and reports a file that cannot be read as invalid.
    fn grade_file(&self, task: &GradingTask<'_>, path: &Path) -> GradeReport {
        let spec = &task.spec.task;
        match read_csv(path, &ReadOptions::with_id(spec.id_column.clone())) {
            Ok(sub) => self.grade(task, &sub),
            Err(e) => GradeReport::invalid(spec.direction, task.spec.thresholds.as_ref(), e.to_string()),
        }
    }
}

forward_impls!(Grader {
    fn grade(&self, task: &GradingTask<'_>, submission: &Table) -> GradeReport;
    fn thresholds(&self, leaderboard: &Leaderboard) -> Result<Thresholds>;
    fn grade_file(&self, task: &GradingTask<'_>, path: &Path) -> GradeReport;
});
