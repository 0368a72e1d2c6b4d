//! From labelled rows to the files of an environment: the test table
//! without targets, the answers in the submission's form, and a constant
//! sample submission.

use crate::error::{Error, Result};
use sandmle_core::{Column, SubmissionForm, Table, TaskSpec};
use std::collections::BTreeMap;

/// The tables of an environment made from labelled train and test rows.
#[derive(Debug, Clone)]
pub(crate) struct Tables {
    pub train: Table,
    pub test: Table,
    pub answers: Table,
    pub sample: Table,
}

/// Builds the tables from labelled rows: `train` keeps its targets,
/// `test` loses them to the answers.
pub(crate) fn tables(task: &TaskSpec, train: Table, labelled_test: Table) -> Result<Tables> {
    let form = task.submission_form();
    let ids = labelled_test.column(&task.id_column)?.clone();
    let mut answers = Table::new();
    answers.push_column(task.id_column.clone(), ids.clone())?;
    let mut sample = Table::new();
    sample.push_column(task.id_column.clone(), ids)?;
    let n = labelled_test.n_rows();
    match form {
        SubmissionForm::ClassProbabilities => {
            let target = single(task)?;
            let truth = labelled_test.column(target)?.label_texts();
            let k = task.prediction_columns.len() as f64;
            for class in &task.prediction_columns {
                answers.push_column(
                    class.clone(),
                    Column::Numeric(truth.iter().map(|t| f64::from(u8::from(t == class))).collect()),
                )?;
                sample.push_column(class.clone(), Column::Numeric(vec![1.0 / k; n]))?;
            }
        }
        _ => {
            if task.target_columns.len() != task.prediction_columns.len() {
                return Err(Error::Unsupported { reason: "target and prediction columns differ in number".into() });
            }
            for (target, pred) in task.target_columns.iter().zip(&task.prediction_columns) {
                answers.push_column(pred.clone(), labelled_test.column(target)?.clone())?;
                sample.push_column(pred.clone(), constant(form, train.column(target)?, n, task)?)?;
            }
        }
    }
    // The test rows lose the targets and what only the training rows have.
    let hidden: Vec<&String> = task.target_columns.iter().chain(&task.train_only_columns).collect();
    let test = labelled_test.without(&hidden);
    Ok(Tables { train, test, answers, sample })
}

fn single(task: &TaskSpec) -> Result<&String> {
    match task.target_columns.as_slice() {
        [one] => Ok(one),
        _ => Err(Error::Unsupported { reason: "a class-probability task needs exactly one target column".into() }),
    }
}

/// `true` for metrics a constant prediction leaves undefined (Pearson and
/// Spearman correlations, one column or many).
fn rank_or_correlation(task: &TaskSpec) -> bool {
    ["pearson", "spearman", "mean_column_spearman"].contains(&task.metric.name.as_str())
}

/// A constant valid prediction: 0.5 for probabilities, the training mean
/// for values (the training values in row order under a correlation), the most frequent training label (smallest on ties) for
/// labels, the most frequent labels for label lists.
fn constant(form: SubmissionForm, train_target: &Column, n: usize, task: &TaskSpec) -> Result<Column> {
    Ok(match form {
        SubmissionForm::Probability | SubmissionForm::ColumnProbabilities => Column::Numeric(vec![0.5; n]),
        SubmissionForm::Value => {
            let v = train_target.to_f64_lenient().unwrap_or_default();
            let present: Vec<f64> = v.into_iter().filter(|x| x.is_finite()).collect();
            if rank_or_correlation(task) && !present.is_empty() {
                // A correlation is undefined on a constant column: the
                // training values in their row order instead, which say
                // nothing about the test rows (scores near 0).
                Column::Numeric((0..n).map(|i| present[i % present.len()]).collect())
            } else {
                Column::Numeric(vec![present.iter().sum::<f64>() / present.len().max(1) as f64; n])
            }
        }
        SubmissionForm::Label
        | SubmissionForm::LabelList
        | SubmissionForm::LabelSet
        | SubmissionForm::ClassProbabilities => {
            let mut counts: BTreeMap<String, usize> = BTreeMap::new();
            for t in train_target.label_texts() {
                *counts.entry(t).or_insert(0) += 1;
            }
            let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
            ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            if form == SubmissionForm::LabelList {
                let k = task.metric.params.get("k").and_then(serde_json::Value::as_u64).unwrap_or(5) as usize;
                let top: Vec<String> = ranked.iter().take(k).map(|(l, _)| l.clone()).collect();
                Column::Text(vec![Some(top.join(" ").into()); n])
            } else {
                let best = ranked.first().map(|(l, _)| l.clone()).unwrap_or_default();
                match train_target {
                    Column::Numeric(_) if form != SubmissionForm::LabelSet => {
                        Column::Numeric(vec![best.parse().unwrap_or(0.0); n])
                    }
                    _ => Column::Text(vec![Some(best.into()); n]),
                }
            }
        }
    })
}
