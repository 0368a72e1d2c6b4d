//! Many-class seeds shrunk to a learnable micro task: the seed's most
//! frequent classes only.
//!
//! 200 training rows over 120 classes (dog breeds) or thousands (whale
//! ids) leave one or two rows a class: no model learns, and the gates
//! fail. A micro task of such a seed keeps its [`MAX_MICRO_CLASSES`] most
//! frequent classes (the earlier label on ties) and the rows of those
//! alone; under a class-probability metric the submission's columns are
//! those classes. The provenance (`details.kept_classes`) and the
//! description say so.

use crate::error::Result;
use sandmle_core::{SubmissionForm, Table, TaskSpec};
use std::collections::BTreeMap;

/// The most classes a micro task keeps.
pub const MAX_MICRO_CLASSES: usize = 10;

/// The classes a micro task of `task` keeps, in label order, when its
/// first target has more than [`MAX_MICRO_CLASSES`] labels in `rows` and
/// its submission is one label, a ranked list or one probability per
/// class; `None` otherwise.
pub(crate) fn kept_classes(task: &TaskSpec, rows: &Table) -> Result<Option<Vec<String>>> {
    let form = task.submission_form();
    if !matches!(form, SubmissionForm::Label | SubmissionForm::LabelList | SubmissionForm::ClassProbabilities) {
        return Ok(None);
    }
    let Some(target) = task.target_columns.first() else { return Ok(None) };
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for label in rows.column(target)?.label_texts() {
        *counts.entry(label).or_default() += 1;
    }
    if counts.len() <= MAX_MICRO_CLASSES {
        return Ok(None);
    }
    let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut kept: Vec<String> = ranked.into_iter().take(MAX_MICRO_CLASSES).map(|(l, _)| l).collect();
    kept.sort();
    Ok(Some(kept))
}

/// The rows of the kept classes, and the task narrowed to them (a
/// class-probability submission's columns become the kept classes, in the
/// seed's order).
pub(crate) fn narrow(task: &TaskSpec, rows: &Table, kept: &[String]) -> Result<(TaskSpec, Table)> {
    let target = &task.target_columns[0];
    let labels = rows.column(target)?.label_texts();
    let keep: Vec<usize> = (0..labels.len()).filter(|&r| kept.binary_search(&labels[r]).is_ok()).collect();
    let mut task = task.clone();
    if task.submission_form() == SubmissionForm::ClassProbabilities {
        task.prediction_columns.retain(|c| kept.binary_search(c).is_ok());
    }
    Ok((task, rows.take(&keep)?))
}
