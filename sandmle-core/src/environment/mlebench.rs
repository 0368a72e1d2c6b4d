//! Import of a prepared MLE-bench competition.

use super::Environment;
use super::read::answer_options;
use crate::csv::{ReadOptions, read_csv};
use crate::error::{Error, Result};
use crate::grading::{GradingSpec, Leaderboard};
use crate::images::{ImageSet, ImageSpec};
use crate::provenance::Provenance;
use crate::task::TaskSpec;
use std::path::{Path, PathBuf};

/// Version of the import, recorded in provenance.
pub const IMPORT_VERSION: &str = "1";

/// The generator an imported competition's provenance names
/// ([`crate::Provenance::generator`]).
pub const IMPORT_GENERATOR: &str = "mlebench-import";

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
    /// For an image task ([`TaskSpec::images`]): the folders of
    /// `prepared/public/` a row's image is looked for in, in order (empty:
    /// the task's image folder, then `train`, `test` and `images`).
    pub image_dirs: Vec<String>,
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
            image_dirs: Vec::new(),
        }
    }
}

/// Imports a prepared MLE-bench competition as an [`Environment`].
///
/// Each CSV may also be stored gzip-compressed as `<name>.gz`. For an image
/// task each row's file (`<id><suffix>`) is taken from the first of
/// [`MlebenchImport::image_dirs`] that holds it — MLE-bench's `train/` and
/// `test/` folders, say — and lands in the environment's one image folder,
/// its bytes unchanged. Every image must be a PNG, JPEG or TIFF file (the
/// formats the in-process tools decode); the task's width, height and channels are
/// filled in when all images share them.
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
    let root = &import.competition_dir;
    let read = |path: PathBuf, opts: &ReadOptions| {
        let gz = PathBuf::from(format!("{}.gz", path.display()));
        if path.exists() {
            inside(root, &path)?;
            read_csv(&path, opts)
        } else if gz.exists() {
            inside(root, &gz)?;
            read_csv(&gz, opts)
        } else {
            Err(Error::MissingFile { path })
        }
    };
    let description_path = public.join("description.md");
    if description_path.exists() {
        inside(root, &description_path)?;
    }
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
        types: train.schema().into_iter().filter(|(n, _)| task.is_feature(n)).collect(),
        ..ReadOptions::default()
    };
    let test = read(public.join(&import.test_file), &test_options)?.without(&task.target_columns);
    let sample_submission = read(public.join(&import.sample_submission_file), &answer_options(task))?;
    let mut keep = vec![task.id_column.clone()];
    keep.extend(task.prediction_columns.iter().cloned());
    let answers = read(private.join(&import.answers_file), &answer_options(task))?.select(&keep)?;
    let leaderboard = import.leaderboard.as_ref().map(Leaderboard::read).transpose()?;
    let mut provenance = Provenance::new(&task.id, IMPORT_GENERATOR, IMPORT_VERSION, 0);
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
        images: ImageSet::new(),
    };
    let mut env = env;
    if let Some(spec) = &task.images {
        let (images, shape) = import_images(import, spec, &public, &env)?;
        env.images = images;
        let spec = env.grading.task.images.get_or_insert_with(|| spec.clone());
        spec.dir = "images".into();
        (spec.width, spec.height, spec.channels) =
            shape.map_or((None, None, None), |(w, h, c)| (Some(w), Some(h), Some(c)));
    }
    env.validate()?;
    Ok(env)
}

/// Refuses `path` unless it resolves (links followed) to a place inside the
/// competition directory: a link out of it would copy a host file, say
/// `/etc/passwd` or another competition's answers, into what agents see.
fn inside(root: &Path, path: &Path) -> Result<()> {
    let real_root = std::fs::canonicalize(root).map_err(|e| Error::io(root, e))?;
    let real = std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
    if real.starts_with(&real_root) {
        Ok(())
    } else {
        Err(Error::InvalidEnvironment {
            reason: format!(
                "{} is a link out of the competition (to {}); copy the file in instead",
                path.display(),
                real.display()
            ),
        })
    }
}

/// Width, height and channels.
type Shape = (u32, u32, u8);

/// Reads every row's image; returns them with their common shape, if any.
fn import_images(
    import: &MlebenchImport,
    spec: &ImageSpec,
    public: &Path,
    env: &Environment,
) -> Result<(ImageSet, Option<Shape>)> {
    spec.check()?;
    let dirs: Vec<String> = if import.image_dirs.is_empty() {
        let mut d = vec![spec.dir.clone()];
        d.extend(["train", "test", "images"].iter().map(|s| s.to_string()).filter(|s| *s != spec.dir));
        d
    } else {
        import.image_dirs.clone()
    };
    if let Some(bad) = dirs.iter().find(|d| !crate::images::is_plain_name(d)) {
        return Err(Error::InvalidEnvironment { reason: format!("image folder `{bad}` is not a plain name") });
    }
    let id = &env.grading.task.id_column;
    let mut images = ImageSet::new();
    let mut shape: Option<Option<Shape>> = None;
    for table in [&env.train, &env.test] {
        let ids = table.column(id)?;
        for r in 0..ids.len() {
            let row_id = ids.get_str(r).unwrap_or_default();
            let name = spec.file_name(&row_id);
            let Some(path) = dirs.iter().map(|d| public.join(d).join(&name)).find(|p| p.is_file()) else {
                return Err(Error::MissingFile {
                    path: public.join(dirs.first().map_or("images", String::as_str)).join(&name),
                });
            };
            inside(&import.competition_dir, &path)?;
            let bytes = crate::fsutil::read_regular(&path, crate::images::MAX_IMAGE_BYTES)?;
            let pixels = crate::raster::decode_image(&bytes, &path.display().to_string())?;
            let this = (pixels.width, pixels.height, pixels.channels);
            shape = Some(match shape {
                None => Some(this),
                Some(Some(s)) if s == this => Some(s),
                Some(_) => None,
            });
            images.insert(name, bytes)?;
        }
    }
    Ok((images, shape.flatten()))
}
