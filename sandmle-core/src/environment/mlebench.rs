//! Import of a prepared MLE-bench competition.

use super::Environment;
use super::read::answer_options;
use crate::csv::{ReadOptions, read_csv};
use crate::error::{Error, Result};
use crate::grading::{GradingSpec, Leaderboard};
use crate::provenance::Provenance;
use crate::task::TaskSpec;
use std::path::PathBuf;

/// Version of the import, recorded in provenance.
pub const IMPORT_VERSION: &str = "1";

/// Where a prepared MLE-bench competition lives and what it is.
///
/// MLE-bench prepares a competition as `<id>/prepared/public/` (what the
/// agent sees) and `<id>/prepared/private/` (the answers, usually
/// `test.csv` or `answers.csv`); its registry holds the competition's
/// `leaderboard.csv`.
#[derive(Debug, Clone)]
pub struct MlebenchImport {
    /// The competition directory (holding `prepared/`).
    pub competition_dir: PathBuf,
    /// The answers file's name inside `prepared/private/`.
    pub answers_file: String,
    /// The task: id, targets, prediction columns, metric and direction.
    pub task: TaskSpec,
    /// The public training file's name (default `train.csv`).
    pub train_file: String,
    /// The public test file's name (default `test.csv`).
    pub test_file: String,
    /// The sample submission's name (default `sample_submission.csv`).
    pub sample_submission_file: String,
    /// A reference leaderboard CSV, if any.
    pub leaderboard: Option<PathBuf>,
}

impl MlebenchImport {
    /// An import with MLE-bench's usual file names.
    pub fn new(competition_dir: impl Into<PathBuf>, answers_file: impl Into<String>, task: TaskSpec) -> Self {
        MlebenchImport {
            competition_dir: competition_dir.into(),
            answers_file: answers_file.into(),
            task,
            train_file: "train.csv".into(),
            test_file: "test.csv".into(),
            sample_submission_file: "sample_submission.csv".into(),
            leaderboard: None,
        }
    }
}

/// Imports a prepared MLE-bench competition as an [`Environment`].
///
/// Each CSV may also be stored gzip-compressed as `<name>.gz`.
/// The answers keep only the id and prediction columns; `test.csv` loses any
/// target columns it holds. Thresholds are left unset: derive them from the
/// leaderboard with a [`crate::Grader`].
///
/// # Errors
/// [`Error::MissingFile`], [`Error::Csv`], [`Error::InvalidLeaderboard`],
/// [`Error::InvalidEnvironment`].
pub fn import_mlebench(import: &MlebenchImport) -> Result<Environment> {
    let prepared = import.competition_dir.join("prepared");
    let public = prepared.join("public");
    let private = prepared.join("private");
    let task = &import.task;
    let opts = ReadOptions::with_id(task.id_column.clone());
    // A file may also be stored gzip-compressed as `<name>.gz`.
    let read = |path: PathBuf, opts: &ReadOptions| {
        let gz = PathBuf::from(format!("{}.gz", path.display()));
        if path.exists() {
            read_csv(&path, opts)
        } else if gz.exists() {
            read_csv(&gz, opts)
        } else {
            Err(Error::MissingFile { path })
        }
    };
    let description_path = public.join("description.md");
    let description =
        crate::fsutil::read_regular_string(&description_path, crate::fsutil::MAX_JSON_BYTES).map_err(|e| match e {
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                Error::MissingFile { path: description_path.clone() }
            }
            other => other,
        })?;
    let train = read(public.join(&import.train_file), &opts)?;
    // Test features take the training features' types (see `Environment::read`).
    let test_options = ReadOptions {
        id_column: Some(task.id_column.clone()),
        types: train
            .schema()
            .into_iter()
            .filter(|(n, _)| *n != task.id_column && !task.target_columns.contains(n))
            .collect(),
        ..ReadOptions::default()
    };
    let test = read(public.join(&import.test_file), &test_options)?.without(&task.target_columns);
    let sample_submission = read(public.join(&import.sample_submission_file), &answer_options(task))?;
    let mut keep = vec![task.id_column.clone()];
    keep.extend(task.prediction_columns.iter().cloned());
    let answers = read(private.join(&import.answers_file), &answer_options(task))?.select(&keep)?;
    let leaderboard = import.leaderboard.as_ref().map(Leaderboard::read).transpose()?;
    let mut provenance = Provenance::new(&task.id, "mlebench-import", IMPORT_VERSION, 0);
    provenance.details.insert("answers_file".into(), serde_json::Value::String(import.answers_file.clone()));
    let env = Environment {
        description,
        train,
        test,
        sample_submission,
        answers,
        grading: GradingSpec::new(task.clone()),
        leaderboard,
        provenance,
        images: crate::images::ImageSet::new(),
    };
    env.validate()?;
    Ok(env)
}
