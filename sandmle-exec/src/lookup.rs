//! The lookup-and-copy baseline of tasks whose label is mostly a copy of
//! an input (text normalization: `after` is `before` for most tokens).
//!
//! The source is the feature column that equals the target on the most
//! training rows, when that is at least half of them. A test row's
//! prediction is the most frequent target of its source value in the
//! training rows (the smallest on ties), and the source value itself when
//! the training rows never hold it. No model of the panel can predict a
//! label it never saw; this one copies, as the first script written for
//! such a task does.

use sandmle_core::{Column, SubmissionForm, Table, TaskSpec};
use std::collections::BTreeMap;

/// The name of the baseline on a leaderboard.
pub const LOOKUP_COPY: &str = "lookup-copy";

/// The share of training rows on which the source must equal the target.
const MIN_COPY_SHARE: f64 = 0.5;

/// The source column of a copy task: the feature equal to the target on
/// the most training rows (the earlier column on ties), if on at least
/// half of them.
fn source(task: &TaskSpec, train: &Table, test: &Table, target: &[String]) -> Option<String> {
    let mut best: Option<(usize, String)> = None;
    for name in test.names() {
        if *name == task.id_column || !task.is_feature(name) {
            continue;
        }
        let Ok(column) = train.column(name) else { continue };
        let values = column.label_texts();
        let equal = values.iter().zip(target).filter(|(v, t)| !v.is_empty() && v == t).count();
        if best.as_ref().is_none_or(|(n, _)| equal > *n) {
            best = Some((equal, name.clone()));
        }
    }
    best.filter(|(n, _)| *n as f64 >= MIN_COPY_SHARE * target.len() as f64).map(|(_, name)| name)
}

/// The baseline's submission (the test ids and one label column), or
/// `None` when the task is no copy task: one label target, no source.
pub fn lookup_copy(task: &TaskSpec, train: &Table, test: &Table) -> Option<Table> {
    if task.submission_form() != SubmissionForm::Label
        || task.target_columns.len() != 1
        || task.prediction_columns.len() != 1
    {
        return None;
    }
    let target = train.column(&task.target_columns[0]).ok()?.label_texts();
    let source = source(task, train, test, &target)?;
    let inputs = train.column(&source).ok()?.label_texts();
    let mut counts: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for (i, t) in inputs.iter().zip(&target) {
        *counts.entry(i.as_str()).or_default().entry(t.as_str()).or_default() += 1;
    }
    let most: BTreeMap<&str, &str> = counts
        .iter()
        .map(|(i, ts)| {
            let top = ts.iter().fold(("", 0), |b, (t, &n)| if n > b.1 { (*t, n) } else { b });
            (*i, top.0)
        })
        .collect();
    let predictions: Vec<Option<String>> = test
        .column(&source)
        .ok()?
        .label_texts()
        .into_iter()
        .map(|v| Some(most.get(v.as_str()).map_or(v.clone(), |t| (*t).to_owned())))
        .collect();
    let mut out = Table::new();
    out.push_column(task.id_column.clone(), test.column(&task.id_column).ok()?.clone()).ok()?;
    out.push_column(task.prediction_columns[0].clone(), Column::text(predictions.iter().map(|p| p.as_deref()))).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandmle_core::testing::tiny_environment;

    #[test]
    fn copies_unseen_inputs_and_looks_up_seen_ones() {
        let mut env = tiny_environment();
        let text = |v: &[&str]| Column::text(v.iter().map(|s| Some(*s)));
        let train_ids = env.train.column("id").unwrap().clone();
        let n = train_ids.len();
        let before: Vec<&str> = ["12", "the", "the", "Dr.", "a", "b"].iter().cycle().take(n).copied().collect();
        let after: Vec<&str> = ["twelve", "the", "the", "doctor", "a", "b"].iter().cycle().take(n).copied().collect();
        env.train =
            Table::from_columns([("id", train_ids), ("before", text(&before)), ("label", text(&after))]).unwrap();
        let ids = env.test.column("id").unwrap().clone();
        env.test = Table::from_columns([("id", ids), ("before", text(&["12", "zebra", "the", "Dr."]))]).unwrap();
        env.grading.task.metric = sandmle_core::MetricSpec::named("accuracy");
        let sub = lookup_copy(env.task(), &env.train, &env.test).unwrap();
        assert_eq!(sub.column("label").unwrap().label_texts(), ["twelve", "zebra", "the", "doctor"]);
    }
}
