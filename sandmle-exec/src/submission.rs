//! Turning model outputs into a submission table of the task's form.

use crate::error::{Error, Result};
use crate::target::{Classes, Label};
use ndarray::Array2;
use sandmle_core::{Column, SubmissionForm, Table, TaskSpec};

/// A model's output for one target column.
pub(crate) enum Output {
    /// Class probabilities (test rows x classes).
    Probs(Classes, Array2<f64>),
    /// Values.
    Values(Vec<f64>),
}

/// The submission: the test ids, then the prediction columns in the task's
/// order and form.
pub(crate) fn assemble(task: &TaskSpec, ids: &Column, outputs: Vec<Output>) -> Result<Table> {
    let mut t = Table::new();
    t.push_column(task.id_column.clone(), ids.clone())?;
    let form = task.submission_form();
    let unsupported = |reason: String| Err(Error::UnsupportedTask { reason });
    match form {
        SubmissionForm::Label | SubmissionForm::Value | SubmissionForm::ColumnProbabilities => {
            for (name, out) in task.prediction_columns.iter().zip(outputs) {
                let col = match (form, out) {
                    (SubmissionForm::Label, Output::Probs(c, p)) => labels(&c, &p),
                    (SubmissionForm::Value, Output::Values(v)) => Column::Numeric(v),
                    (SubmissionForm::ColumnProbabilities, Output::Probs(c, p)) => {
                        Column::Numeric(positive(&c, &p, true)?)
                    }
                    _ => {
                        return unsupported(format!(
                            "column `{name}`: model output does not fit a {form:?} submission"
                        ));
                    }
                };
                t.push_column(name.clone(), col)?;
            }
        }
        SubmissionForm::Probability => {
            let (Some(name), Some(Output::Probs(c, p))) = (task.prediction_columns.first(), outputs.into_iter().next())
            else {
                return unsupported("a probability submission needs one class target".into());
            };
            t.push_column(name.clone(), Column::Numeric(positive(&c, &p, false)?))?;
        }
        SubmissionForm::ClassProbabilities => {
            let Some(Output::Probs(c, p)) = outputs.into_iter().next() else {
                return unsupported("a class-probability submission needs one class target".into());
            };
            let texts: Vec<String> = c.labels.iter().map(Label::text).collect();
            let mut cols: Vec<Vec<f64>> = task
                .prediction_columns
                .iter()
                .map(|name| match texts.iter().position(|l| l == name) {
                    Some(j) => p.column(j).to_vec(),
                    None => vec![0.0; p.nrows()],
                })
                .collect();
            // Renormalise over the submission's classes (a training class
            // outside them would leave rows short of 1).
            for i in 0..p.nrows() {
                let sum: f64 = cols.iter().map(|c| c[i]).sum();
                let k = cols.len() as f64;
                for c in cols.iter_mut() {
                    c[i] = if sum > 0.0 { c[i] / sum } else { 1.0 / k };
                }
            }
            for (name, v) in task.prediction_columns.iter().zip(cols) {
                t.push_column(name.clone(), Column::Numeric(v))?;
            }
        }
        SubmissionForm::LabelSet => {
            // Each distinct set of the training rows is a class; the most
            // probable one is the prediction, as text.
            let (Some(name), Some(Output::Probs(c, p))) = (task.prediction_columns.first(), outputs.into_iter().next())
            else {
                return unsupported("a label-set submission needs one class target".into());
            };
            let best = labels(&c, &p);
            t.push_column(
                name.clone(),
                Column::Text(best.label_texts().into_iter().map(|l| Some(l.into())).collect()),
            )?;
        }
        SubmissionForm::LabelList => {
            let (Some(name), Some(Output::Probs(c, p))) = (task.prediction_columns.first(), outputs.into_iter().next())
            else {
                return unsupported("a label-list submission needs one class target".into());
            };
            let k = task.metric.params.get("k").and_then(serde_json::Value::as_u64).unwrap_or(5) as usize;
            let lists = p
                .rows()
                .into_iter()
                .map(|row| {
                    let mut order: Vec<usize> = (0..row.len()).collect();
                    order.sort_by(|&a, &b| row[b].total_cmp(&row[a]).then(a.cmp(&b)));
                    Some(order.iter().take(k).map(|&j| c.labels[j].text()).collect::<Vec<_>>().join(" ").into())
                })
                .collect();
            t.push_column(name.clone(), Column::Text(lists))?;
        }
    }
    Ok(t)
}

/// The most probable class of each row (the first on ties).
fn labels(c: &Classes, p: &Array2<f64>) -> Column {
    let best: Vec<usize> = p
        .rows()
        .into_iter()
        .map(|row| row.iter().enumerate().fold(0, |b, (j, &v)| if v > row[b] { j } else { b }))
        .collect();
    if c.numeric() {
        Column::Numeric(best.iter().map(|&j| if let Label::Num(x) = c.labels[j] { x } else { f64::NAN }).collect())
    } else {
        Column::Text(best.iter().map(|&j| Some(c.labels[j].text().into())).collect())
    }
}

/// The probability of the greater of two classes. With `one_class_ok`, a
/// single training class gives 1 if its label is `1` and 0 otherwise.
fn positive(c: &Classes, p: &Array2<f64>, one_class_ok: bool) -> Result<Vec<f64>> {
    match c.k() {
        2 => Ok(p.column(1).to_vec()),
        1 if one_class_ok => Ok(vec![if c.labels[0].text() == "1" { 1.0 } else { 0.0 }; p.nrows()]),
        1 => Err(Error::SingleClass { column: c.column.clone() }),
        k => Err(Error::UnsupportedTask {
            reason: format!("target `{}` has {k} classes but the metric scores a binary probability", c.column),
        }),
    }
}
