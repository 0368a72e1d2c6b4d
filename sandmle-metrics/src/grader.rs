//! [`StandardGrader`]: MLE-bench-style grading behind core's
//! [`sandmle_core::Grader`] port.

use crate::error::Error;
use crate::registry::{Input, StandardMetric};
use crate::thresholds::{human_rank, round5, thresholds_from_scores};
use crate::validate::validate_submission;
use sandmle_core::csv::{ReadOptions, read_csv};
use sandmle_core::{ColumnType, Direction, GradeReport, Grader, GradingTask, Leaderboard, Table, Thresholds};
use std::path::Path;

/// The grader for every metric of the catalogue.
///
/// It validates the submission ([`crate::validate_submission`]), scores it,
/// rounds the score to 5 decimals as MLE-bench does, and compares the
/// rounded score with the thresholds: medals inclusive (`>=` gold, or `<=`
/// when lower is better) and exclusive of each other, above-median strict.
/// A NaN score (a constant prediction under Pearson, say) or an overflowing
/// one is a valid submission without a score or medal; the report's
/// `error` says why.
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
            return Err(Error::SubmissionMissing { path: path.display().to_string() });
        }
        let spec = &task.spec.task;
        let mut options = ReadOptions::with_id(spec.id_column.clone());
        if StandardMetric::from_spec(&spec.metric).is_ok_and(|m| m.info().input == Input::LabelLists) {
            for c in &spec.prediction_columns {
                options.types.insert(c.clone(), ColumnType::Text);
            }
        }
        read_csv(path, &options).map_err(|e| Error::NotCsv { reason: e.to_string() })
    }
}

/// The report for a score: rounding, medals, median and HumanRank.
pub fn report_for_score(
    score: f64,
    direction: Direction,
    thresholds: Option<&Thresholds>,
    leaderboard: Option<&Leaderboard>,
) -> GradeReport {
    let mut r = GradeReport::invalid(direction, thresholds, "");
    r.valid_submission = true;
    r.error = None;
    if score.is_nan() {
        r.error = Some("the metric is undefined on this submission (NaN), for example for constant predictions".into());
        return r;
    }
    if score.is_infinite() {
        r.error = Some("the metric overflowed on this submission (its predictions are too large)".into());
        return r;
    }
    let rounded = round5(score);
    r.score = Some(score);
    r.score_rounded = Some(rounded);
    if let Some(t) = thresholds {
        r.gold_medal = direction.at_least(rounded, t.gold);
        r.silver_medal = !r.gold_medal && direction.at_least(rounded, t.silver);
        r.bronze_medal = !r.gold_medal && !r.silver_medal && direction.at_least(rounded, t.bronze);
        r.any_medal = r.gold_medal || r.silver_medal || r.bronze_medal;
        r.above_median = direction.better(rounded, t.median);
    }
    r.human_rank = leaderboard.and_then(|lb| human_rank(rounded, &lb.scores(), direction));
    r
}

impl StandardGrader {
    /// Grades a submission, telling the two kinds of failure apart: an
    /// invalid submission is an `Ok` report with `valid_submission: false`;
    /// a fault of the environment ([`Error::is_environment_fault`]: unknown
    /// metric, unscorable answers) is an `Err`.
    ///
    /// # Errors
    /// The environment faults.
    pub fn grade_checked(&self, task: &GradingTask<'_>, submission: &Table) -> Result<GradeReport, Error> {
        let spec = task.spec;
        match self.score(task, submission) {
            Ok(score) => Ok(report_for_score(score, spec.task.direction, spec.thresholds.as_ref(), task.leaderboard)),
            Err(e) if e.is_environment_fault() => Err(e),
            Err(e) => Ok(GradeReport::invalid(spec.task.direction, spec.thresholds.as_ref(), e.to_string())),
        }
    }
}

impl Grader for StandardGrader {
    /// Grades a submission; an environment fault is reported as an invalid
    /// submission whose error starts with `environment:` (use
    /// [`StandardGrader::grade_checked`] to tell it apart).
    fn grade(&self, task: &GradingTask<'_>, submission: &Table) -> GradeReport {
        let spec = task.spec;
        self.grade_checked(task, submission).unwrap_or_else(|e| {
            GradeReport::invalid(spec.task.direction, spec.thresholds.as_ref(), format!("environment: {e}"))
        })
    }

    fn thresholds(&self, leaderboard: &Leaderboard) -> sandmle_core::Result<Thresholds> {
        Ok(thresholds_from_scores(&leaderboard.scores())?)
    }

    fn grade_file(&self, task: &GradingTask<'_>, path: &Path) -> GradeReport {
        match self.read_submission(task, path) {
            Ok(sub) => self.grade(task, &sub),
            Err(e) => GradeReport::invalid(task.spec.task.direction, task.spec.thresholds.as_ref(), e.to_string()),
        }
    }
}
