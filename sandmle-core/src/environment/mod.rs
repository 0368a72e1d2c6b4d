//! [`Environment`]: one task in the on-disk format every tool here reads.
//!
//! ```text
//! <env-id>/
//!   prepared/
//!     public/                   the only folder an agent's code may see
//!       description.md
//!       train.csv               id + features + target column(s)
//!       test.csv                id + features
//!       sample_submission.csv   id + prediction column(s), a valid constant prediction
//!     private/                  never shown to an agent
//!       answers.csv             id + true values of the prediction column(s)
//!       grading.json            task, metric, thresholds, sha256 of every other file
//!       leaderboard.csv         reference leaderboard, best first (optional)
//!       provenance.json         seed task, generator, seed, DNA, hidden rule
//! ```
//!
//! An image task ([`TaskSpec::images`]) adds one folder of image files to
//! `public/` (`images/<id>.png`, both splits) and their manifest to
//! `private/` (`images.sha256`, hashed in `grading.json`); see
//! [`crate::ImageSet`].
//!
//! Tables over a size threshold may be stored gzip-compressed
//! (`train.csv.gz`, ...; see [`WriteOptions`]). `grading.json` carries its own
//! hash in a `self_sha256` field, so a change to any file of the environment —
//! `grading.json` included — is reported as [`crate::Error::HashMismatch`]
//! naming the file.

mod mlebench;
mod read;
mod write;

pub use mlebench::{MlebenchImport, import_mlebench};
pub use read::GradingBundle;
pub use write::WriteOptions;

use crate::error::{Error, Result};
use crate::grading::{GradingSpec, Leaderboard};
use crate::images::ImageSet;
use crate::ports::{GradingTask, PublicView};
use crate::provenance::Provenance;
use crate::table::Table;
use crate::task::TaskSpec;
use std::collections::HashSet;

/// Path of the public folder inside an environment directory.
pub const PUBLIC_DIR: &str = "prepared/public";
/// Path of the private folder inside an environment directory.
pub const PRIVATE_DIR: &str = "prepared/private";
/// The image manifest's name inside the private folder.
pub const IMAGE_MANIFEST: &str = "images.sha256";

/// A task with its public data, private answers, grading spec and provenance.
#[derive(Debug, Clone, PartialEq)]
pub struct Environment {
    /// `description.md`.
    pub description: String,
    /// `train.csv`: id, features and target column(s).
    pub train: Table,
    /// `test.csv`: id and features.
    pub test: Table,
    /// `sample_submission.csv`: id and prediction column(s).
    pub sample_submission: Table,
    /// `answers.csv`: id and the true prediction column(s) for the test rows.
    pub answers: Table,
    /// `grading.json`. Its `files` map is filled in when the environment is
    /// written and checked when it is read.
    pub grading: GradingSpec,
    /// `leaderboard.csv`, if any.
    pub leaderboard: Option<Leaderboard>,
    /// `provenance.json`.
    pub provenance: Provenance,
    /// The image files of `public/<dir>/`, for a task with
    /// [`TaskSpec::images`]; empty otherwise.
    pub images: ImageSet,
}

impl Environment {
    /// The task spec.
    pub fn task(&self) -> &TaskSpec {
        &self.grading.task
    }

    /// The content-derived environment id ([`Provenance::env_id`]).
    ///
    /// # Errors
    /// As [`Provenance::env_id`].
    pub fn id(&self) -> Result<String> {
        self.provenance.env_id()
    }

    /// What an agent may see: the task spec, description and public tables.
    pub fn public_view(&self) -> PublicView<'_> {
        PublicView {
            task: &self.grading.task,
            description: &self.description,
            train: &self.train,
            test: &self.test,
            sample_submission: &self.sample_submission,
            images: &self.images,
        }
    }

    /// What a grader needs: the grading spec, answers and leaderboard.
    pub fn grading_task(&self) -> GradingTask<'_> {
        GradingTask::new(&self.grading, &self.answers, self.leaderboard.as_ref())
    }

    /// Checks that the tables agree with the task spec: rows in both splits,
    /// id and target columns where they belong, no targets in `test.csv`,
    /// unique ids, and
    /// the same test ids in `test.csv`, `sample_submission.csv` and
    /// `answers.csv`.
    ///
    /// # Errors
    /// [`Error::InvalidEnvironment`] saying what is wrong.
    pub fn validate(&self) -> Result<()> {
        let task = self.task();
        let bad = |reason: String| Err(Error::InvalidEnvironment { reason });
        let tables = [
            ("train.csv", &self.train),
            ("test.csv", &self.test),
            ("sample_submission.csv", &self.sample_submission),
            ("answers.csv", &self.answers),
        ];
        for (file, t) in tables {
            if !t.has_column(&task.id_column) {
                return bad(format!("{file} has no id column `{}`", task.id_column));
            }
            if let Some(dup) = duplicate_id(t, &task.id_column) {
                return bad(format!("{file} repeats id `{dup}`"));
            }
        }
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
        for c in &task.prediction_columns {
            for (file, t) in [("sample_submission.csv", &self.sample_submission), ("answers.csv", &self.answers)] {
                if !t.has_column(c) {
                    return bad(format!("{file} has no prediction column `{c}`"));
                }
            }
        }
        let test_ids = id_set(&self.test, &task.id_column);
        for (file, t) in [("sample_submission.csv", &self.sample_submission), ("answers.csv", &self.answers)] {
            if t.n_rows() != self.test.n_rows() || id_set(t, &task.id_column) != test_ids {
                return bad(format!("{file} does not hold exactly the ids of test.csv"));
            }
        }
        let train_ids = id_set(&self.train, &task.id_column);
        if train_ids.intersection(&test_ids).next().is_some() {
            return bad("train.csv and test.csv share ids".into());
        }
        self.validate_images(&train_ids, &test_ids)
    }

    /// An image task has exactly one file per row, in a safe folder; any
    /// other task has none.
    fn validate_images(&self, train_ids: &HashSet<String>, test_ids: &HashSet<String>) -> Result<()> {
        let Some(spec) = &self.task().images else {
            if self.images.is_empty() {
                return Ok(());
            }
            return Err(Error::InvalidEnvironment { reason: "image files given for a task without images".into() });
        };
        spec.check()?;
        let mut ids: Vec<&String> = train_ids.iter().chain(test_ids).collect();
        ids.sort();
        for id in &ids {
            if self.images.get(&spec.file_name(id)).is_none() {
                return Err(Error::InvalidEnvironment {
                    reason: format!("no image `{}` for row `{id}`", spec.public_path(id)),
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
}

fn id_set(t: &Table, id: &str) -> HashSet<String> {
    match t.column(id) {
        Ok(c) => (0..c.len()).filter_map(|i| c.get_str(i).map(|s| s.into_owned())).collect(),
        Err(_) => HashSet::new(),
    }
}

fn duplicate_id(t: &Table, id: &str) -> Option<String> {
    let c = t.column(id).ok()?;
    let mut seen = HashSet::with_capacity(c.len());
    (0..c.len()).find_map(|i| {
        let v = c.get_str(i)?;
        (!seen.insert(v.clone())).then(|| v.into_owned())
    })
}
