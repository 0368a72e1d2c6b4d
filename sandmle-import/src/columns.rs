//! The training table's columns: a labels table joined, one-hot classes
//! collapsed, the target columns chosen, prose detected.

use crate::error::{Error, Result};
use crate::files::Files;
use crate::options::ImportOptions;
use crate::tables::read_table;
use sandmle_core::csv::ReadOptions;
use sandmle_core::{Column, MetricInput, Table};
use std::collections::BTreeMap;

pub(crate) fn layout(files: &Files, rel: &str, expected: impl Into<String>) -> Error {
    Error::Layout { path: files.prepared().join(rel), expected: expected.into() }
}

/// Reads `rel`, checking it has the columns `needs`.
pub(crate) fn table_with(files: &Files, rel: &str, options: &ReadOptions, needs: &[&String]) -> Result<Table> {
    let table = read_table(files, rel, options)?;
    if let Some(missing) = needs.iter().find(|c| !table.has_column(c)) {
        let has = table.names().join(", ");
        return Err(layout(files, rel, format!("a column `{missing}` (it has {has})")));
    }
    Ok(table)
}

pub(crate) fn ids(table: &Table, id: &str) -> Result<Vec<String>> {
    let column = table.column(id)?;
    Ok((0..column.len()).map(|r| column.get_str(r).map(|s| s.into_owned()).unwrap_or_default()).collect())
}

pub(crate) fn text_column(values: &[String]) -> Column {
    Column::text(values.iter().map(|v| Some(v.as_str())))
}

/// A table with `column` first.
pub(crate) fn prepend(table: Table, name: &str, column: Column) -> Result<Table> {
    let mut out = Table::from_columns([(name.to_owned(), column)])?;
    for (n, c) in table.iter() {
        out.push_column(n, c.clone())?;
    }
    Ok(out)
}

/// The training table, with its labels table joined when it lacks the
/// prediction columns; the labels table used.
pub(crate) fn train_table(
    files: &Files,
    rel: &str,
    labels_file: Option<&str>,
    options: &ImportOptions,
    id: &str,
    predictions: &[String],
) -> Result<(Table, Option<String>)> {
    let mut table = read_table(files, rel, &ReadOptions::with_id(id))?;
    let wanted: &[String] = if options.targets.is_empty() { predictions } else { &options.targets };
    let lacking: Vec<&String> = wanted.iter().filter(|c| !table.has_column(c)).collect();
    let labels = match (labels_file, lacking.is_empty(), &options.labels) {
        (Some(l), false, _) | (Some(l), _, Some(_)) => Some(l.to_owned()),
        _ => None,
    };
    if let Some(l) = &labels {
        let labels_table = read_table(files, l, &ReadOptions::with_id(id))?;
        table = join(files, table, labels_table, l, id, &lacking)?;
    }
    if !table.has_column(id) {
        // Rows numbered in order: only when no column could be the id.
        refuse_id_like(files, &table, rel, id)?;
        let n: Vec<String> = (0..table.n_rows()).map(|i| i.to_string()).collect();
        table = prepend(table, id, text_column(&n))?;
    }
    Ok((table, labels))
}

/// Joins a labels table: by the id column when both have it, else row by
/// row (a one-column labels table then gives the one lacking column).
pub(crate) fn join(
    files: &Files,
    train: Table,
    labels: Table,
    rel: &str,
    id: &str,
    lacking: &[&String],
) -> Result<Table> {
    let mut train = train;
    if train.has_column(id) && labels.has_column(id) {
        let mut at: BTreeMap<String, usize> = BTreeMap::new();
        for (i, key) in ids(&labels, id)?.into_iter().enumerate() {
            if at.insert(key.clone(), i).is_some() {
                return Err(layout(files, rel, format!("one row for id `{key}`, not several")));
            }
        }
        let mut rows = Vec::with_capacity(train.n_rows());
        for key in ids(&train, id)? {
            rows.push(*at.get(&key).ok_or_else(|| layout(files, rel, format!("a row for training id `{key}`")))?);
        }
        let picked = labels.take(&rows)?;
        for (n, c) in picked.iter() {
            if n != id && !train.has_column(n) {
                train.push_column(n, c.clone())?;
            }
        }
        return Ok(train);
    }
    // Row by row only when neither table has an id: a labels table with
    // ids of its own is never matched by position.
    for (table, what) in [(&train, "the training table"), (&labels, rel)] {
        if table.has_column(id) {
            return Err(layout(files, rel, format!("ids in both tables to join by (`{id}` is only in {what})")));
        }
        refuse_id_like(files, table, rel, id)?;
    }
    if labels.n_rows() != train.n_rows() {
        return Err(layout(
            files,
            rel,
            format!(
                "a column `{id}` or one row per training row ({} rows, it has {})",
                train.n_rows(),
                labels.n_rows()
            ),
        ));
    }
    let rename = labels.n_cols() == 1 && lacking.len() == 1;
    for (n, c) in labels.iter() {
        let name = if rename { lacking[0].as_str() } else { n };
        if !train.has_column(name) {
            train.push_column(name, c.clone())?;
        }
    }
    Ok(train)
}

/// The training table's target columns: the task's or the caller's; the
/// prediction columns when the table has them all; else its one column
/// that neither the test table nor the submission has.
pub(crate) fn targets(
    files: &Files,
    train: &Table,
    test: &Table,
    given: &[String],
    id: &str,
    predictions: &[String],
) -> Result<Vec<String>> {
    let chosen = if !given.is_empty() {
        given.to_vec()
    } else if predictions.iter().all(|c| train.has_column(c)) {
        predictions.to_vec()
    } else {
        let only: Vec<&String> = train.names().iter().filter(|n| *n != id && !test.has_column(n)).collect();
        match only.as_slice() {
            [one] => vec![(*one).clone()],
            _ => {
                return Err(Error::Options {
                    reason: format!(
                        "the training table lacks the submission's columns ({}); name its target columns with --targets",
                        predictions.join(", ")
                    ),
                });
            }
        }
    };
    if let Some(missing) = chosen.iter().find(|c| !train.has_column(c)) {
        return Err(layout(
            files,
            "public",
            format!("a training column `{missing}` (the training rows have {})", train.names().join(", ")),
        ));
    }
    Ok(chosen)
}

/// Whether a feature column holds prose: text of 40 bytes or more on
/// average, most values with a space.
pub(crate) fn has_free_text(train: &Table, id: &str, targets: &[String]) -> bool {
    train.iter().filter(|(n, _)| *n != id && !targets.iter().any(|t| t == n)).any(|(_, c)| {
        let Column::Text(values) = c else { return false };
        let present: Vec<&str> = values.iter().flatten().map(|v| v.as_ref()).collect();
        if present.is_empty() {
            return false;
        }
        let bytes: usize = present.iter().map(|v| v.len()).sum();
        let spaced = present.iter().filter(|v| v.contains(' ')).count();
        bytes / present.len() >= 40 && spaced * 2 > present.len()
    })
}

/// Replaces one-hot class columns (each row one 1, the rest 0) with one
/// label column holding the hot column's name, called `name` or `label`
/// (`class` when taken); `None`, the table untouched, when the columns
/// are not one-hot.
pub(crate) fn collapse_one_hot(train: &mut Table, classes: &[String], name: Option<&str>) -> Result<Option<String>> {
    if classes.len() < 2 || !classes.iter().all(|c| train.has_column(c)) {
        return Ok(None);
    }
    let columns: Vec<&[f64]> = match classes.iter().map(|c| train.numeric(c)).collect() {
        Ok(columns) => columns,
        Err(_) => return Ok(None),
    };
    let hot_class = |r: usize| -> Option<&str> {
        let hot: Vec<usize> = columns.iter().enumerate().filter(|(_, c)| c[r] == 1.0).map(|(k, _)| k).collect();
        let cold = columns.iter().filter(|c| c[r] == 0.0).count();
        match hot.as_slice() {
            [k] if cold + 1 == classes.len() => Some(classes[*k].as_str()),
            _ => None,
        }
    };
    let Some(labels) = (0..train.n_rows()).map(hot_class).collect::<Option<Vec<&str>>>() else { return Ok(None) };
    let name = name.map(str::to_owned).unwrap_or_else(|| {
        ["label", "class", "target_class"]
            .into_iter()
            .find(|n| !train.has_column(n))
            .unwrap_or("target_class")
            .to_owned()
    });
    for c in classes {
        train.remove_column(c)?;
    }
    train.push_column(name.clone(), Column::categorical(labels.into_iter().map(Some)))?;
    Ok(Some(name))
}

/// Fills the sample submission's prediction columns that hold no value at
/// all (a template, such as a sample whose label column is empty) with a
/// constant valid prediction: the most frequent training label (the
/// smallest on ties) for labels, 0.5 for probabilities, the training mean
/// for values. An empty sample is no valid submission, and the
/// environment's sample must be one. Returns the columns filled.
pub(crate) fn fill_empty_sample(
    sample: &mut Table,
    train: &Table,
    targets: &[String],
    predictions: &[String],
    input: MetricInput,
) -> Result<Vec<String>> {
    let mut filled = Vec::new();
    let n = sample.n_rows();
    for (k, column) in predictions.iter().enumerate() {
        let values = sample.column(column)?;
        if n == 0 || values.missing_count() < n {
            continue;
        }
        let target = train.column(targets.get(k).or(targets.first()).map_or(column.as_str(), String::as_str))?;
        let constant = match input {
            MetricInput::Labels => {
                let mut counts: BTreeMap<String, usize> = BTreeMap::new();
                for label in target.label_texts().into_iter().filter(|l| !l.is_empty()) {
                    *counts.entry(label).or_insert(0) += 1;
                }
                let Some((label, _)) = counts.iter().rev().max_by_key(|(_, c)| **c) else { continue };
                match target {
                    Column::Numeric(_) => Column::Numeric(vec![label.parse::<f64>().unwrap_or(0.0); n]),
                    _ => Column::categorical(std::iter::repeat_n(Some(label.as_str()), n)),
                }
            }
            MetricInput::Probability | MetricInput::ColumnProbabilities => Column::Numeric(vec![0.5; n]),
            MetricInput::Values | MetricInput::ColumnValues => {
                let v: Vec<f64> =
                    target.to_f64_lenient().unwrap_or_default().into_iter().filter(|x| x.is_finite()).collect();
                if v.is_empty() {
                    continue;
                }
                Column::Numeric(vec![v.iter().sum::<f64>() / v.len() as f64; n])
            }
            _ => continue,
        };
        sample.set_column(column, constant)?;
        filled.push(column.clone());
    }
    Ok(filled)
}

/// Refuses to number the rows of a table by position when a column of it
/// is named like the id (`id` for `Id`): its rows may be in another order.
pub(crate) fn refuse_id_like(files: &Files, table: &Table, rel: &str, id: &str) -> Result<()> {
    match table.names().iter().find(|n| {
        n.eq_ignore_ascii_case(id) || n.replace(['_', ' '], "").eq_ignore_ascii_case(&id.replace(['_', ' '], ""))
    }) {
        Some(similar) => Err(Error::Options {
            reason: format!(
                "{}: no column `{id}` but a column `{similar}`; rows are not matched by position when a column may be \
                 the id: name the id with --id-column, or rename the column",
                files.prepared().join(rel).display()
            ),
        }),
        None => Ok(()),
    }
}

/// Refuses training rows that repeat test rows with their answers: the
/// training ids that are test ids carry the answers' values in most rows.
pub(crate) fn refuse_answers_in_train(
    files: &Files,
    train: &Table,
    answers: &Table,
    id: &str,
    predictions: &[String],
    test_ids: &std::collections::BTreeSet<&String>,
) -> Result<()> {
    let train_ids = ids(train, id)?;
    let answer_ids = ids(answers, id)?;
    let at: BTreeMap<&String, usize> = answer_ids.iter().enumerate().map(|(i, k)| (k, i)).collect();
    for column in predictions.iter().filter(|c| train.has_column(c)) {
        let (ours, theirs) = (train.column(column)?, answers.column(column)?);
        let (mut shared, mut same) = (0usize, 0usize);
        for (r, key) in train_ids.iter().enumerate() {
            if let (true, Some(&a)) = (test_ids.contains(key), at.get(key)) {
                shared += 1;
                same += usize::from(ours.get_label(r).is_some() && ours.get_label(r) == theirs.get_label(a));
            }
        }
        if shared >= 10 && same * 10 >= shared * 9 {
            return Err(layout(
                files,
                "public",
                format!(
                    "training rows that are not the test rows: {same} of the {shared} training rows whose ids are test ids \
                     hold the answers' `{column}`"
                ),
            ));
        }
    }
    Ok(())
}
