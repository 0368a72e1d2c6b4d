//! [`StandardGrader`]: MLE-bench-style grading behind core's
//! [`sandmle_core::Grader`] port.

use crate::error::Error;
use crate::registry::StandardMetric;
use crate::thresholds::thresholds_from_scores;
use crate::validate::{read_aligned, validate_submission};
use sandmle_core::csv::{ReadOptions, read_csv};
use sandmle_core::{ColumnType, GradeReport, Grader, GradingTask, Leaderboard, Table, Thresholds, bounded};
use std::path::{Path, PathBuf};

/// The grader for every metric of the catalogue.
///
/// It validates the submission ([`crate::validate_submission`]), scores it,
/// and reports through [`GradeReport::scored`]: the score rounded to 5
/// decimals as MLE-bench does, medals decided on the rounded score
/// (inclusive, exclusive of each other), above-median strict. A NaN score
/// (a constant prediction under Pearson, say) is an invalid submission.
///
/// Faults are told apart as the port says: a bad submission is an `Ok`
/// report with `valid_submission: false`; a broken environment (unknown
/// metric, answers the metric cannot score: [`Error::is_environment_fault`])
/// is an `Err` naming the file at fault.
#[derive(Debug, Clone, Copy, Default)]
pub struct StandardGrader;

impl StandardGrader {
    /// Validates and scores a submission, returning the typed error.
    ///
    /// # Errors
    /// The validation and metric errors of this crate.
    pub fn score(&self, task: &GradingTask<'_>, submission: &Table) -> Result<f64, Error> {
        let metric = StandardMetric::from_spec(&task.spec.task.metric)?;
        let aligned = validate_submission(task.spec, metric.info().input, task.answers, submission)?;
        metric.evaluate(&aligned.truth, &aligned.prediction)
    }

    /// Reads a submission file with the id column (and, for label-list
    /// metrics, the prediction columns) as text.
    ///
    /// # Errors
    /// [`Error::SubmissionMissing`] or [`Error::NotCsv`].
    pub fn read_submission(&self, task: &GradingTask<'_>, path: &Path) -> Result<Table, Error> {
        if !path.is_file() {
            return Err(Error::SubmissionMissing { path: bounded(&path.display().to_string()) });
        }
        let spec = &task.spec.task;
        let mut options = ReadOptions::with_id(spec.id_column.clone());
        if StandardMetric::from_spec(&spec.metric).is_ok_and(|m| m.info().input.label_text()) {
            for c in &spec.prediction_columns {
                options.types.insert(c.clone(), ColumnType::Text);
            }
        }
        read_csv(path, &options).map_err(|e| Error::NotCsv { reason: bounded(&e.to_string()) })
    }

    /// [`Grader::grade_file`] without a table of the submission's strings,
    /// for a clean file of a numeric metric (see
    /// [`crate::validate::read_aligned`]); `None` when it does not apply.
    /// The report is the one [`Grader::grade`] gives on the file's table.
    fn grade_file_fast(&self, task: &GradingTask<'_>, path: &Path) -> Option<sandmle_core::Result<GradeReport>> {
        let spec = task.spec;
        let metric = StandardMetric::from_spec(&spec.task.metric).ok()?;
        let bytes = sandmle_core::read_regular(path, sandmle_core::DEFAULT_MAX_READ_BYTES).ok()?;
        let aligned = read_aligned(spec, metric.info().input, task.answers, task.answer_index(), &bytes)?;
        drop(bytes);
        let (direction, thresholds) = (spec.task.direction, spec.thresholds.as_ref());
        let score = aligned.and_then(|prediction| {
            let truth = prediction_columns(task)?;
            metric.evaluate_columns(&truth, &crate::registry::columns(&prediction))
        });
        Some(match score {
            Ok(score) => Ok(GradeReport::scored(score, direction, thresholds, task.leaderboard)),
            Err(e) if e.is_environment_fault() => Err(broken(&e)),
            Err(e) => Ok(GradeReport::invalid(direction, thresholds, e.to_string())),
        })
    }
}

/// The answers' prediction columns, in the task's order, borrowed.
fn prediction_columns<'a>(task: &GradingTask<'a>) -> Result<Vec<&'a sandmle_core::Column>, Error> {
    let answers = task.answers;
    task.spec
        .task
        .prediction_columns
        .iter()
        .map(|c| answers.column(c).map_err(crate::validate::not_in_answers))
        .collect()
}

/// A fault of the environment as core's error, naming the file at fault.
fn broken(e: &Error) -> sandmle_core::Error {
    sandmle_core::Error::BrokenEnvironment { file: PathBuf::from(e.fault_file()), reason: e.to_string() }
}

impl Grader for StandardGrader {
    fn grade(&self, task: &GradingTask<'_>, submission: &Table) -> sandmle_core::Result<GradeReport> {
        let spec = task.spec;
        let (direction, thresholds) = (spec.task.direction, spec.thresholds.as_ref());
        match self.score(task, submission) {
            Ok(score) => Ok(GradeReport::scored(score, direction, thresholds, task.leaderboard)),
            Err(e) if e.is_environment_fault() => Err(broken(&e)),
            Err(e) => Ok(GradeReport::invalid(direction, thresholds, e.to_string())),
        }
    }

    fn thresholds(&self, leaderboard: &Leaderboard) -> sandmle_core::Result<Thresholds> {
        Ok(thresholds_from_scores(&leaderboard.scores())?)
    }

    /// Core's checks, then the answers scored against themselves: a metric
    /// that cannot score its own answers (one class under ROC AUC, a
    /// constant truth under Pearson, values RMSLE cannot take) cannot score
    /// any submission.
    fn check(&self, task: &GradingTask<'_>) -> sandmle_core::Result<()> {
        task.check()?;
        let metric = StandardMetric::from_spec(&task.spec.task.metric).map_err(|e| broken(&e))?;
        let truth = prediction_columns(task).map_err(|e| broken(&e))?;
        match metric.self_score(&truth) {
            Ok(s) if s.is_nan() => Err(sandmle_core::Error::BrokenEnvironment {
                file: PathBuf::from(crate::error::ANSWERS_FILE),
                reason: format!("`{}` is undefined (NaN) on the answers themselves", metric.info().name),
            }),
            Ok(_) => Ok(()),
            Err(e) => Err(sandmle_core::Error::BrokenEnvironment {
                file: PathBuf::from(e.fault_file()),
                reason: format!("the answers cannot be scored: {e}"),
            }),
        }
    }

    fn grade_file(&self, task: &GradingTask<'_>, path: &Path) -> sandmle_core::Result<GradeReport> {
        if let Some(report) = self.grade_file_fast(task, path) {
            return report;
        }
        match self.read_submission(task, path) {
            Ok(sub) => self.grade(task, &sub),
            Err(e) => Ok(GradeReport::invalid(task.spec.task.direction, task.spec.thresholds.as_ref(), e.to_string())),
        }
    }
}
