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

mod read;
mod validate;
mod write;

/// The generator an imported competition's provenance names
/// ([`crate::Provenance::generator`]); the import itself is the
/// `sandmle-import` crate's.
pub const IMPORT_GENERATOR: &str = "mlebench-import";
pub use read::GradingBundle;
pub use write::WriteOptions;

use crate::error::Result;
use crate::grading::{GradingSpec, Leaderboard};
use crate::images::ImageSet;
use crate::ports::{GradingTask, PublicView};
use crate::provenance::Provenance;
use crate::table::Table;
use crate::task::TaskSpec;

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
}
