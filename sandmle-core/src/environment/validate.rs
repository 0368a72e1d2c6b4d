//! [`Environment::validate`]: the tables against the task spec.
//!
//! The id checks — no id twice in one table, the same test ids in
//! `test.csv`, `sample_submission.csv` and `answers.csv`, no id in both
//! splits — run on [`IdIndex`]es (ids hashed, sorted and compared exactly)
//! rather than on sets of owned strings: reading a seed of a few hundred
//! thousand rows spends most of its checking there. A table with a missing
//! id (an empty cell) takes sets of the present ids instead, as before.

use super::Environment;
use crate::error::{Error, Result};
use crate::id_index::{IdIndex, IdIndexError};
use crate::table::Table;
use std::borrow::Cow;
use std::collections::HashSet;

/// A table's ids as text, borrowed from a text or categorical column.
type Ids<'t> = Vec<Option<Cow<'t, str>>>;

impl Environment {
    /// Checks that the tables agree with the task spec: rows in both splits,
    /// id and target columns where they belong, no targets in `test.csv`,
    /// unique ids, and the same test ids in `test.csv`,
    /// `sample_submission.csv` and `answers.csv`.
    ///
    /// # Errors
    /// [`Error::InvalidEnvironment`] saying what is wrong.
    pub fn validate(&self) -> Result<()> {
        let task = self.task();
        let bad = |reason: String| Err(Error::InvalidEnvironment { reason });
        let id = task.id_column.as_str();
        let train = checked_ids("train.csv", &self.train, id)?;
        let test = checked_ids("test.csv", &self.test, id)?;
        let sample = checked_ids("sample_submission.csv", &self.sample_submission, id)?;
        let answers = checked_ids("answers.csv", &self.answers, id)?;
        if self.train.n_rows() == 0 || self.test.n_rows() == 0 {
            return bad("train.csv and test.csv must both have rows".into());
        }
        if task.target_columns.is_empty() || task.prediction_columns.is_empty() {
            return bad("the task names no target or prediction columns".into());
        }
        for c in &task.target_columns {
            if !self.train.has_column(c) {
                return bad(format!("train.csv has no target column `{c}`"));
            }
            if self.test.has_column(c) {
                return bad(format!("test.csv holds the target column `{c}`"));
            }
        }
        for c in &task.train_only_columns {
            if !self.train.has_column(c) {
                return bad(format!("train.csv has no train-only column `{c}`"));
            }
            if self.test.has_column(c) {
                return bad(format!("test.csv holds `{c}`, which the task says only train.csv has"));
            }
            if *c == task.id_column || task.target_columns.contains(c) {
                return bad(format!("`{c}` is the id or a target, not a train-only column"));
            }
        }
        if let Some(g) = &task.group_column {
            if !self.train.has_column(g) || !self.test.has_column(g) {
                return bad(format!("the group column `{g}` is not in both train.csv and test.csv"));
            }
            if *g == task.id_column || task.target_columns.contains(g) {
                return bad(format!("`{g}` is the id or a target, not a group column"));
            }
        }
        for c in &task.prediction_columns {
            for (file, t) in [("sample_submission.csv", &self.sample_submission), ("answers.csv", &self.answers)] {
                if !t.has_column(c) {
                    return bad(format!("{file} has no prediction column `{c}`"));
                }
            }
        }
        let complete = [&train, &test, &sample, &answers].iter().all(|l| l.iter().all(Option::is_some));
        let test_index = if complete { IdIndex::new(&test).ok() } else { None };
        for (file, other) in [("sample_submission.csv", &sample), ("answers.csv", &answers)] {
            let same = match &test_index {
                Some(index) => index.align(other.len(), |j| other[j].as_deref().map(str::as_bytes)).is_some(),
                None => other.len() == test.len() && present(other) == present(&test),
            };
            if !same {
                return bad(format!("{file} does not hold exactly the ids of test.csv"));
            }
        }
        let shared = if complete {
            // Each split's ids are distinct: a repeat in both together is an
            // id they share.
            let both: Ids<'_> = train.iter().chain(&test).cloned().collect();
            matches!(IdIndex::new(&both), Err(IdIndexError::Duplicate { .. }))
        } else {
            present(&train).intersection(&present(&test)).next().is_some()
        };
        if shared {
            return bad("train.csv and test.csv share ids".into());
        }
        self.validate_images(&train, &test)
    }

    /// An image task has exactly one file per row's key (its id, or its
    /// value of the spec's key column), in a safe folder; any other task
    /// has none.
    fn validate_images(&self, train: &Ids<'_>, test: &Ids<'_>) -> Result<()> {
        let Some(spec) = &self.task().images else {
            if self.images.is_empty() {
                return Ok(());
            }
            return Err(Error::InvalidEnvironment { reason: "image files given for a task without images".into() });
        };
        spec.check()?;
        if let Some(key) = &spec.key_column
            && self.task().group_column.as_ref() != Some(key)
        {
            // Rows sharing a file split between train and test would show
            // the test rows' file with training labels.
            return Err(Error::InvalidEnvironment {
                reason: format!("rows sharing files by `{key}` must be one item: the group column must be `{key}`"),
            });
        }
        let keyed;
        let (train, test) = match &spec.key_column {
            None => (train, test),
            Some(key) => {
                keyed = (self.file_keys("train.csv", &self.train, key)?, self.file_keys("test.csv", &self.test, key)?);
                (&keyed.0, &keyed.1)
            }
        };
        // Every row's key once, sorted (the first missing image named is
        // the same on every run).
        let mut ids: Vec<&str> = train.iter().chain(test).flatten().map(AsRef::as_ref).collect();
        ids.sort_unstable();
        ids.dedup();
        let whose = spec.key_column.as_deref().unwrap_or("row");
        for id in &ids {
            if self.images.get(&spec.file_name(id)).is_none() {
                return Err(Error::InvalidEnvironment {
                    reason: format!("no image `{}` for {whose} `{id}`", spec.public_path(id)),
                });
            }
        }
        if self.images.len() != ids.len() {
            let names: HashSet<String> = ids.iter().map(|id| spec.file_name(id)).collect();
            let extra = self.images.iter().map(|(n, _)| n).find(|n| !names.contains(*n)).unwrap_or_default();
            return Err(Error::InvalidEnvironment {
                reason: format!("image `{}/{extra}` belongs to no row", spec.dir),
            });
        }
        Ok(())
    }

    /// A table's values of the key column naming its rows' files, every
    /// row holding one.
    fn file_keys<'t>(&self, file: &str, t: &'t Table, key: &str) -> Result<Ids<'t>> {
        let bad = |reason: String| Err(Error::InvalidEnvironment { reason });
        let task = self.task();
        if *key == task.id_column || task.target_columns.iter().any(|c| c == key) {
            return bad(format!("the file key column `{key}` is the id or a target"));
        }
        let Ok(column) = t.column(key) else {
            return bad(format!("{file} has no file key column `{key}`"));
        };
        let keys: Ids<'t> = (0..t.n_rows()).map(|r| column.get_str(r)).collect();
        if let Some(r) = keys.iter().position(Option::is_none) {
            return bad(format!("row {} of {file} has no `{key}` naming its file", r + 1));
        }
        Ok(keys)
    }
}

/// `file`'s ids (its column `id`), refused if the column is missing or an
/// id repeats.
fn checked_ids<'t>(file: &str, t: &'t Table, id: &str) -> Result<Ids<'t>> {
    let bad = |reason: String| Err(Error::InvalidEnvironment { reason });
    let Ok(column) = t.column(id) else {
        return bad(format!("{file} has no id column `{id}`"));
    };
    let ids: Ids<'t> = (0..column.len()).map(|i| column.get_str(i)).collect();
    if let Some(dup) = first_repeat(&ids) {
        return bad(format!("{file} repeats id `{dup}`"));
    }
    Ok(ids)
}

/// The first id, going down, that repeats an earlier row's (rows without
/// an id skipped).
fn first_repeat<'a>(ids: &'a [Option<Cow<'a, str>>]) -> Option<&'a str> {
    match IdIndex::new(ids) {
        Ok(_) => None,
        // A repeat above the first missing id comes before any below it.
        Err(IdIndexError::Duplicate { row }) => ids[row].as_deref(),
        Err(IdIndexError::Missing { .. }) => {
            let mut seen = HashSet::with_capacity(ids.len());
            ids.iter().flatten().map(AsRef::as_ref).find(|v| !seen.insert(*v))
        }
    }
}

/// The ids present (rows without an id skipped).
fn present<'a>(ids: &'a [Option<Cow<'a, str>>]) -> HashSet<&'a str> {
    ids.iter().flatten().map(AsRef::as_ref).collect()
}
