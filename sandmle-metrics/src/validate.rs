//! Submission validation and alignment by id.
//!
//! Checks run in a fixed order — columns, row count, ids, values — and the
//! first failure is returned, so a person fixes one clear problem at a time.

use crate::error::{Error, Result};
use crate::registry::Input;
use rustc_hash::FxHashMap;
use sandmle_core::{CellText, Column, GradingSpec, IdIndex, Table, bounded};
use std::borrow::Cow;

/// Truth and prediction holding the prediction columns, rows aligned by id
/// in the answers' order.
#[derive(Debug, Clone)]
pub struct Aligned {
    /// The answers' prediction columns.
    pub truth: Table,
    /// The submission's prediction columns, reordered to the answers' ids.
    pub prediction: Table,
}

/// The ids of a column as text (whole numbers without `.0`).
fn ids(c: &Column) -> Vec<Option<Cow<'_, str>>> {
    (0..c.len()).map(|i| c.get_label(i)).collect()
}

/// Validates a submission against the answers and aligns it by id.
///
/// # Errors
/// The first failed check: [`Error::MissingColumns`],
/// [`Error::ExtraColumns`], [`Error::RowCount`], [`Error::MissingId`],
/// [`Error::DuplicateId`], [`Error::UnknownId`], [`Error::NotNumeric`],
/// [`Error::MissingValue`], [`Error::ProbabilityOutOfRange`],
/// [`Error::RowSum`].
pub fn validate_submission(spec: &GradingSpec, input: Input, answers: &Table, submission: &Table) -> Result<Aligned> {
    let task = &spec.task;
    let id = task.id_column.as_str();
    let wanted: Vec<&str> = std::iter::once(id).chain(task.prediction_columns.iter().map(String::as_str)).collect();
    let missing = quoted(wanted.iter().copied().filter(|c| !submission.has_column(c)));
    if !missing.is_empty() {
        return Err(Error::MissingColumns { columns: missing });
    }
    if !spec.submission.allow_extra_columns {
        let extra = quoted(submission.names().iter().map(String::as_str).filter(|n| !wanted.contains(n)));
        if !extra.is_empty() {
            return Err(Error::ExtraColumns { columns: extra });
        }
    }
    if submission.n_rows() != answers.n_rows() {
        return Err(Error::RowCount { expected: answers.n_rows(), found: submission.n_rows() });
    }
    let order = align_ids(answers.column(id).map_err(not_in_answers)?, submission.column(id).map_err(not_in_answers)?)?;
    let truth = answers.select(&task.prediction_columns).map_err(not_in_answers)?;
    let mut prediction = submission.select(&task.prediction_columns).map_err(not_in_answers)?;
    if order.iter().enumerate().any(|(i, &r)| i != r) {
        prediction = prediction.take(&order).map_err(not_in_answers)?;
    }
    check_values(spec, input, &prediction, Some(&truth), &order)?;
    if empty_labels_wrong(spec, input) {
        prediction = with_empty_labels(prediction, &truth).map_err(not_in_answers)?;
    }
    Ok(Aligned { truth, prediction })
}

/// The fast path of grading a file: the submission's bytes read straight
/// into numbers aligned to the answers' ids
/// ([`sandmle_core::csv::read_numbers_by_key`]), then the same value checks
/// as [`validate_submission`]. `None` when that path does not apply (label
/// lists, or a file that is not clean: other columns, a malformed record,
/// a missing, unknown or repeated id, a value that is not a plain number,
/// another row count): the caller then reads the file as a table, which
/// finds and names the problem.
///
/// The result is the prediction columns in the answers' row order; the
/// truth is the answers' own columns of the same names, not copied.
///
/// `index`, an index of the answers' own ids
/// ([`sandmle_core::GradingTask::answer_index`]), saves building one.
pub(crate) fn read_aligned(
    spec: &GradingSpec,
    input: Input,
    answers: &Table,
    index: Option<&IdIndex<'_, CellText>>,
    bytes: &[u8],
) -> Option<Result<Table>> {
    if !input.numeric_prediction() {
        return None;
    }
    let task = &spec.task;
    let ids = answers.column(&task.id_column).ok()?;
    // Borrowed ids only (a text column): numbers would need formatting.
    let Column::Text(texts) = ids else { return None };
    let limits = sandmle_core::csv::CsvLimits::DEFAULT;
    let read = sandmle_core::csv::read_numbers_by_key(
        bytes,
        "submission",
        &limits,
        &task.id_column,
        &task.prediction_columns,
        ids.len(),
        AnswerIds { texts, index },
    );
    let keyed = read.ok()??;
    let columns = task.prediction_columns.iter().cloned().zip(keyed.columns.into_iter().map(Column::Numeric));
    let prediction = Table::from_columns(columns).ok()?;
    Some(check_values(spec, input, &prediction, None, &keyed.order).map(|()| prediction))
}

/// Places a submission's records among the answers' ids
/// ([`sandmle_core::csv::KeyPlacer`]).
///
/// A submission holding the answers' ids in the answers' order needs no
/// index: each record goes to its own row. Otherwise the answers' ids are
/// indexed (unless `index` already is that index) and the file's keys
/// placed all at once ([`IdIndex::align`]). Answers that repeat an id (or
/// lack one) leave the file to the full path.
struct AnswerIds<'a> {
    texts: &'a [Option<CellText>],
    index: Option<&'a IdIndex<'a, CellText>>,
}

impl sandmle_core::csv::KeyPlacer for AnswerIds<'_> {
    fn place(&mut self, keys: &sandmle_core::csv::KeyList<'_>) -> Option<Vec<usize>> {
        let n = keys.len();
        let same = |(i, t): (usize, &Option<CellText>)| t.as_ref().is_some_and(|t| Some(t.as_bytes()) == keys.bytes(i));
        if n == self.texts.len() && self.texts.iter().enumerate().all(same) {
            return Some((0..n).collect());
        }
        match self.index.filter(|ix| ix.indexes(self.texts)) {
            Some(index) => index.align(n, |j| keys.bytes(j)),
            None => IdIndex::new(self.texts).ok()?.align(n, |j| keys.bytes(j)),
        }
    }
}

/// The most names an error lists.
const LISTED: usize = 10;

/// Names for an error message: at most [`LISTED`], each bounded, then how
/// many more there are.
fn quoted<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out = Vec::new();
    let mut more = 0usize;
    for n in names {
        if out.len() < LISTED {
            out.push(format!("`{}`", bounded(n)));
        } else {
            more += 1;
        }
    }
    if more > 0 {
        out.push(format!("and {more} more"));
    }
    out
}

pub(crate) fn not_in_answers(e: sandmle_core::Error) -> Error {
    Error::NotCsv { reason: e.to_string() }
}

/// For each answers row, the submission row holding the same id.
fn align_ids(answers: &Column, submission: &Column) -> Result<Vec<usize>> {
    let want = ids(answers);
    let have = ids(submission);
    if let Some(row) = have.iter().position(Option::is_none) {
        return Err(Error::MissingId { row: row + 1 });
    }
    if want == have {
        return Ok((0..want.len()).collect());
    }
    align_by_strings(&want, &have)
}

/// Alignment through a map from the answers' ids to their rows.
///
/// Fx hashing, not SipHash: the keys are the answers' ids, which a
/// submission cannot choose, so hostile ids cannot lengthen probe chains;
/// and this is the hot path of grading a large submission.
fn align_by_strings(want: &[Option<Cow<'_, str>>], have: &[Option<Cow<'_, str>>]) -> Result<Vec<usize>> {
    let mut index: FxHashMap<&str, usize> = FxHashMap::default();
    index.reserve(want.len());
    for (i, w) in want.iter().enumerate() {
        if let Some(w) = w.as_deref() {
            index.insert(w, i);
        }
    }
    let mut order = vec![usize::MAX; want.len()];
    for (row, h) in have.iter().enumerate() {
        let h = h.as_deref().unwrap_or_default();
        let Some(&at) = index.get(h) else {
            return Err(Error::UnknownId { unexpected: bounded(h) });
        };
        if order[at] != usize::MAX {
            return Err(Error::DuplicateId { id: bounded(h) });
        }
        order[at] = row;
    }
    Ok(order)
}

/// Whether an empty text label is a wrong prediction rather than a missing
/// value ([`sandmle_core::SubmissionRules::empty_labels_are_wrong`]).
fn empty_labels_wrong(spec: &GradingSpec, input: Input) -> bool {
    spec.submission.empty_labels_are_wrong && input == Input::Labels
}

/// The prediction with each empty cell of a label column read as the label
/// `""`, which names no class of the answers (they hold no missing value),
/// so it scores as a wrong prediction, as scikit-learn's metrics count
/// labels filled with `""`. Only where the answers' labels are text: a
/// numeric label column keeps its missing values, and scoring refuses them.
fn with_empty_labels(prediction: Table, truth: &Table) -> sandmle_core::Result<Table> {
    let mut out = Table::new();
    for (name, col) in prediction.iter() {
        let text_truth = !matches!(truth.column(name)?, Column::Numeric(_));
        let col = if text_truth && col.missing_count() > 0 {
            Column::Text(
                (0..col.len()).map(|i| Some(CellText::from(col.get_label(i).unwrap_or_default().as_ref()))).collect(),
            )
        } else {
            col.clone()
        };
        out.push_column(name, col)?;
    }
    Ok(out)
}

/// Value checks on the aligned prediction (`truth`, the answers' prediction
/// columns, tells text labels from numbers); rows are reported as the
/// submission's own 1-based data rows.
fn check_values(
    spec: &GradingSpec,
    input: Input,
    prediction: &Table,
    truth: Option<&Table>,
    order: &[usize],
) -> Result<()> {
    let row_of = |i: usize| order[i] + 1;
    let answers_are_text =
        |name: &str| truth.and_then(|t| t.column(name).ok()).is_some_and(|c| !matches!(c, Column::Numeric(_)));
    let mut numeric: Vec<Cow<'_, [f64]>> = Vec::new();
    for (name, col) in prediction.iter() {
        // A numeric column's missing values are its NaNs, which the value
        // checks below find first, with the same error.
        let checked_below = input.numeric_prediction() && matches!(col, Column::Numeric(_));
        // An empty field is the empty label set, not a missing value; and
        // under the rule that says so, an empty text label is a wrong one.
        let empty_allowed = input == Input::LabelSets || (empty_labels_wrong(spec, input) && answers_are_text(name));
        if !checked_below
            && !empty_allowed
            && let Some(i) = (0..col.len()).find(|&i| col.is_missing(i))
        {
            return Err(Error::MissingValue { column: bounded(name), row: row_of(i) });
        }
        if !input.numeric_prediction() {
            continue;
        }
        let values: Cow<'_, [f64]> = match col {
            Column::Numeric(v) => Cow::Borrowed(v.as_slice()),
            _ => {
                let v = col.to_f64_lenient().ok_or_else(|| {
                    let i = (0..col.len())
                        .find(|&i| col.get_str(i).is_some_and(|s| sandmle_core::parse_f64_lenient(&s).is_none()))
                        .unwrap_or(0);
                    Error::NotNumeric {
                        column: bounded(name),
                        row: row_of(i),
                        value: bounded(&col.get_str(i).unwrap_or_default()),
                    }
                })?;
                Cow::Owned(v)
            }
        };
        if let Some(i) = values.iter().position(|x| x.is_nan()) {
            return Err(Error::MissingValue { column: bounded(name), row: row_of(i) });
        }
        if input.probabilities()
            && let Some(i) = values.iter().position(|&x| !(0.0..=1.0).contains(&x))
        {
            return Err(Error::ProbabilityOutOfRange { column: bounded(name), row: row_of(i), value: values[i] });
        }
        numeric.push(values);
    }
    if input == Input::ClassProbabilities
        && let Some(tolerance) = spec.submission.probability_sum_tolerance
    {
        for i in 0..prediction.n_rows() {
            let sum: f64 = numeric.iter().map(|c| c[i]).sum();
            if (sum - 1.0).abs() > tolerance {
                return Err(Error::RowSum { row: row_of(i), sum, tolerance });
            }
        }
    }
    Ok(())
}
