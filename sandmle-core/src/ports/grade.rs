use super::forward_impls;
use crate::csv::{ReadOptions, read_csv};
use crate::error::{Error, Result};
use crate::grading::{GradeReport, GradingSpec, Leaderboard, Thresholds};
use crate::id_index::{IdIndex, IdIndexError};
use crate::table::{CellText, Column, Table};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// `answers.csv`'s path inside an environment, for errors.
const ANSWERS: &str = "prepared/private/answers.csv";
/// `grading.json`'s path inside an environment, for errors.
const GRADING: &str = "prepared/private/grading.json";

/// What grading a submission needs: the spec, the answers and, for
/// HumanRank, the reference leaderboard; and, optionally, an index of the
/// answers' ids ([`GradingTask::with_answer_index`]).
///
/// Build it with [`GradingTask::new`]. Grading a large submission places
/// each of its ids among the answers' ids, and checking the task
/// ([`GradingTask::check`]) indexes them to find repeats; a caller that
/// checks and then grades, or grades many submissions against the same
/// answers, indexes them once ([`GradingTask::index_answers`]) and attaches
/// the index, which every later step takes instead of building its own.
#[derive(Debug, Clone, Copy)]
pub struct GradingTask<'a> {
    /// The grading spec (task, metric, thresholds, submission rules).
    pub spec: &'a GradingSpec,
    /// The answers: id and true prediction columns.
    pub answers: &'a Table,
    /// The reference leaderboard, if any.
    pub leaderboard: Option<&'a Leaderboard>,
    answer_index: Option<&'a IdIndex<'a, CellText>>,
}

impl<'a> GradingTask<'a> {
    /// A task of these parts, without an index of the answers' ids.
    pub fn new(spec: &'a GradingSpec, answers: &'a Table, leaderboard: Option<&'a Leaderboard>) -> Self {
        GradingTask { spec, answers, leaderboard, answer_index: None }
    }

    /// An index of the answers' ids ([`IdIndex::new`] on the id column),
    /// when the id column is text and no id is missing or repeated; `None`
    /// otherwise (and [`GradingTask::check`] then says what is wrong).
    pub fn index_answers(&self) -> Option<IdIndex<'a, CellText>> {
        match self.answers.column(&self.spec.task.id_column) {
            Ok(Column::Text(texts)) => IdIndex::new(texts).ok(),
            _ => None,
        }
    }

    /// The same task with `index` attached: an index of this task's own
    /// answers' ids, from [`GradingTask::index_answers`]. An index of any
    /// other column is never taken ([`GradingTask::answer_index`] is then
    /// `None`), so attaching one can make grading faster but never different.
    #[must_use]
    pub fn with_answer_index(self, index: Option<&'a IdIndex<'a, CellText>>) -> Self {
        GradingTask { answer_index: index, ..self }
    }

    /// The attached index of the answers' ids, if one is attached and it
    /// indexes this task's id column itself (the very rows, borrowed).
    pub fn answer_index(&self) -> Option<&'a IdIndex<'a, CellText>> {
        let index = self.answer_index?;
        match self.answers.column(&self.spec.task.id_column) {
            Ok(Column::Text(texts)) if index.indexes(texts) => Some(index),
            _ => None,
        }
    }

    /// Checks what every grader needs before any submission is graded: a
    /// metric of the catalogue with valid parameters, and answers with rows,
    /// the id column and every prediction column, and no missing or repeated
    /// ids. A task failing this is broken whatever is submitted, so callers
    /// run it before running an agent's program rather than blaming the
    /// program afterwards.
    ///
    /// # Errors
    /// [`Error::BrokenEnvironment`] naming `grading.json` or `answers.csv`.
    pub fn check(&self) -> Result<()> {
        let task = &self.spec.task;
        let broken = |file: &str, reason: String| Error::BrokenEnvironment { file: PathBuf::from(file), reason };
        task.metric.check().map_err(|e| broken(GRADING, e.to_string()))?;
        let a = self.answers;
        if a.n_rows() == 0 {
            return Err(broken(ANSWERS, "no rows".into()));
        }
        let ids =
            a.column(&task.id_column).map_err(|_| broken(ANSWERS, format!("no id column `{}`", task.id_column)))?;
        if let Some(c) = task.prediction_columns.iter().find(|c| !a.has_column(c)) {
            return Err(broken(ANSWERS, format!("no prediction column `{c}`")));
        }
        if task.prediction_columns.is_empty() {
            return Err(broken(GRADING, "the task names no prediction columns".into()));
        }
        let no_id = |row: usize| broken(ANSWERS, format!("row {} has no id", row + 1));
        let repeats = |id: &str| broken(ANSWERS, format!("repeats id `{}`", crate::bounded(id)));
        if self.answer_index().is_some() {
            // Built from these very ids, which it found present and distinct.
            return Ok(());
        }
        if let Column::Text(texts) = ids {
            match IdIndex::new(texts) {
                Ok(_) => return Ok(()),
                Err(IdIndexError::Missing { row }) => return Err(no_id(row)),
                Err(IdIndexError::Duplicate { row }) => {
                    return Err(repeats(texts.get(row).and_then(Option::as_deref).unwrap_or_default()));
                }
            }
        }
        let mut seen = HashSet::with_capacity(ids.len());
        for i in 0..ids.len() {
            let Some(id) = ids.get_label(i) else {
                return Err(no_id(i));
            };
            if !seen.insert(id.clone()) {
                return Err(repeats(&id));
            }
        }
        Ok(())
    }
}

impl GradingSpec {
    /// The medal thresholds, which grading an agent's submission needs.
    ///
    /// # Errors
    /// [`Error::BrokenEnvironment`] naming `grading.json` when it has none.
    pub fn require_thresholds(&self) -> Result<&Thresholds> {
        self.thresholds.as_ref().ok_or_else(|| Error::BrokenEnvironment {
            file: PathBuf::from(GRADING),
            reason: "no medal thresholds (run the baseline panel to derive them)".into(),
        })
    }
}

/// A grader: validates a submission, scores it and places it against the
/// thresholds.
///
/// The result says whose fault a failure is. `Ok` with
/// `valid_submission: false` and a one-line `error`: the submission is at
/// fault (missing columns, wrong ids, values out of range, a score the
/// metric cannot define). `Err`: the environment or the grader is broken
/// (an unknown metric, answers the metric cannot score) and no submission
/// could have been graded.
pub trait Grader: Send + Sync {
    /// Grades a submission table.
    ///
    /// # Errors
    /// When the environment or the grader is broken; never for a bad
    /// submission.
    fn grade(&self, task: &GradingTask<'_>, submission: &Table) -> Result<GradeReport>;

    /// Medal and median thresholds from a reference leaderboard.
    ///
    /// # Errors
    /// When the leaderboard cannot give thresholds (for example it is empty).
    fn thresholds(&self, leaderboard: &Leaderboard) -> Result<Thresholds>;

    /// Checks that `task` can be graded at all, before anything runs. The
    /// default runs [`GradingTask::check`]; graders add their own checks
    /// (for example that the answers are scorable by the metric).
    ///
    /// # Errors
    /// [`Error::BrokenEnvironment`] naming the file at fault.
    fn check(&self, task: &GradingTask<'_>) -> Result<()> {
        task.check()
    }

    /// Grades a submission file. The default reads it with the task's id
    /// column as text and reports a file that cannot be read as an invalid
    /// submission.
    ///
    /// # Errors
    /// As [`Grader::grade`].
    fn grade_file(&self, task: &GradingTask<'_>, path: &Path) -> Result<GradeReport> {
        let spec = &task.spec.task;
        match read_csv(path, &ReadOptions::with_id(spec.id_column.clone())) {
            Ok(sub) => self.grade(task, &sub),
            Err(e) => {
                Ok(GradeReport::invalid(spec.direction, task.spec.thresholds.as_ref(), crate::bounded(&e.to_string())))
            }
        }
    }
}

forward_impls!(Grader {
    fn grade(&self, task: &GradingTask<'_>, submission: &Table) -> Result<GradeReport>;
    fn thresholds(&self, leaderboard: &Leaderboard) -> Result<Thresholds>;
    fn check(&self, task: &GradingTask<'_>) -> Result<()>;
    fn grade_file(&self, task: &GradingTask<'_>, path: &Path) -> Result<GradeReport>;
});
