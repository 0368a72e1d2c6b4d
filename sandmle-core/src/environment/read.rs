//! Reading an environment and checking every file against its hash.

use super::write::check_self_hash;
use super::{Environment, IMAGE_MANIFEST, PRIVATE_DIR, PUBLIC_DIR};
use crate::csv::{ReadOptions, read_csv_bytes};
use crate::error::{Error, Result};
use crate::fsutil::sha256_hex;
use crate::grading::{GradingSpec, Leaderboard};
use crate::images::{ImageSet, parse_manifest};
use crate::provenance::Provenance;
use crate::table::Table;
use crate::task::SCHEMA_VERSION;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What grading needs from an environment directory, without its public
/// tables: the spec, the answers and the leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct GradingBundle {
    /// `grading.json`.
    pub spec: GradingSpec,
    /// `answers.csv`.
    pub answers: Table,
    /// `leaderboard.csv`, if any.
    pub leaderboard: Option<Leaderboard>,
}

impl GradingBundle {
    /// Reads only `prepared/private/` of the environment at `dir`: the
    /// grading spec (its own hash and schema version checked), the answers
    /// and the leaderboard, each checked against its recorded sha256. Much
    /// cheaper than [`Environment::read`] when the public tables are large.
    ///
    /// # Errors
    /// As [`Environment::read`].
    pub fn read(dir: impl AsRef<Path>) -> Result<GradingBundle> {
        let dir = dir.as_ref();
        check_not_temporary(dir)?;
        let spec = read_grading(dir)?;
        let private: BTreeMap<String, String> = spec
            .files
            .iter()
            .filter(|(p, _)| p.starts_with(PRIVATE_DIR))
            .map(|(p, h)| (p.clone(), h.clone()))
            .collect();
        let files = Files::check(dir, &private)?;
        let (path, bytes) = files.table(PRIVATE_DIR, "answers")?;
        let answers = read_csv_bytes(bytes, path, &answer_options(&spec.task))?;
        let leaderboard = read_leaderboard(&files, &spec)?;
        Ok(GradingBundle { spec, answers, leaderboard })
    }

    /// The view a [`crate::Grader`] takes.
    pub fn grading_task(&self) -> crate::GradingTask<'_> {
        crate::GradingTask::new(&self.spec, &self.answers, self.leaderboard.as_ref())
    }
}

/// Reads `grading.json`, checking its own hash and schema version.
fn read_grading(dir: &Path) -> Result<GradingSpec> {
    let grading_path = dir.join(PRIVATE_DIR).join("grading.json");
    let grading_bytes = read_file(&grading_path)?;
    if let Err((expected, found)) = check_self_hash(&grading_bytes) {
        return Err(Error::HashMismatch { path: grading_path, expected, found });
    }
    let value: serde_json::Value = parse_json(&grading_bytes, &grading_path)?;
    let version = value.get("schema_version").and_then(serde_json::Value::as_u64).unwrap_or(0);
    if version != u64::from(SCHEMA_VERSION) {
        return Err(Error::SchemaVersion {
            path: grading_path,
            found: u32::try_from(version).unwrap_or(u32::MAX),
            supported: SCHEMA_VERSION,
        });
    }
    serde_json::from_value(value).map_err(|source| Error::Json { path: grading_path.clone(), source })
}

fn read_leaderboard(files: &Files, spec: &GradingSpec) -> Result<Option<Leaderboard>> {
    match &spec.leaderboard {
        Some(name) => {
            let (path, bytes) = files.get(&format!("{PRIVATE_DIR}/{name}"))?;
            Ok(Some(Leaderboard::from_csv_bytes(bytes, path)?))
        }
        None => Ok(None),
    }
}

impl Environment {
    /// Reads the environment at `dir`, checking `grading.json`'s schema
    /// version and the sha256 of every file, `grading.json` included, and
    /// that `prepared/` holds nothing `grading.json` does not list (a copy
    /// of the answers dropped into `public/` is refused, not served).
    ///
    /// Every file must be a regular file within its size limit (a FIFO or
    /// a device is refused, never read), and `dir` must not be the
    /// temporary directory of an unfinished write.
    ///
    /// # Errors
    /// [`Error::MissingFile`], [`Error::HashMismatch`] naming the changed
    /// file, [`Error::UnlistedFile`], [`Error::SchemaVersion`],
    /// [`Error::Json`], [`Error::Csv`], [`Error::NotRegularFile`],
    /// [`Error::FileTooLarge`], [`Error::InvalidEnvironment`].
    pub fn read(dir: impl AsRef<Path>) -> Result<Environment> {
        let dir = dir.as_ref();
        check_not_temporary(dir)?;
        let grading = read_grading(dir)?;
        let files = Files::check(dir, &grading.files)?;
        let image_dir = grading.task.images.as_ref().map(|i| i.dir.as_str());
        only_listed_files(dir, &grading.files, image_dir)?;
        let images = match &grading.task.images {
            Some(spec) => {
                spec.check()?;
                let (_, manifest) = files.get(&format!("{PRIVATE_DIR}/{IMAGE_MANIFEST}"))?;
                read_images(&dir.join(PUBLIC_DIR).join(&spec.dir), &parse_manifest(manifest)?)?
            }
            None => ImageSet::new(),
        };
        let task = &grading.task;
        let description = String::from_utf8(files.get(&format!("{PUBLIC_DIR}/description.md"))?.1.clone())
            .map_err(|_| Error::InvalidEnvironment { reason: "description.md is not UTF-8".into() })?;
        let table = |dir: &str, stem: &str, opts: &ReadOptions| {
            let (path, bytes) = files.table(dir, stem)?;
            read_csv_bytes(bytes, path, opts)
        };
        // A column naming rows' files is names, as the id is, whatever
        // its values look like (`0` names `clips/0.wav`, not `0.0`).
        let mut train_options = ReadOptions::with_id(task.id_column.clone());
        if let Some(key) = task.images.as_ref().and_then(|i| i.key_column.clone()) {
            train_options.types.insert(key, crate::table::ColumnType::Text);
        }
        let train = table(PUBLIC_DIR, "train", &train_options)?;
        // The test features take the training features' types, so that a
        // column the two files would type differently (all whole numbers in
        // one, say) reads alike in both.
        let test_options = ReadOptions {
            id_column: Some(task.id_column.clone()),
            types: train.schema().into_iter().filter(|(n, _)| *n != task.id_column).collect(),
            ..ReadOptions::default()
        };
        let provenance_path = format!("{PRIVATE_DIR}/provenance.json");
        let (ppath, pbytes) = files.get(&provenance_path)?;
        let provenance: Provenance = parse_json(pbytes, ppath)?;
        let leaderboard = read_leaderboard(&files, &grading)?;
        let env = Environment {
            description,
            test: table(PUBLIC_DIR, "test", &test_options)?,
            sample_submission: table(PUBLIC_DIR, "sample_submission", &answer_options(task))?,
            answers: table(PRIVATE_DIR, "answers", &answer_options(task))?,
            train,
            grading,
            leaderboard,
            provenance,
            images,
        };
        env.validate()?;
        Ok(env)
    }
}

/// How answers and sample submissions are read: the id as text, and label
/// lists (MAP@k) as text too, so that a label like `0012` is not read as
/// the number 12.
pub(crate) fn answer_options(task: &crate::task::TaskSpec) -> ReadOptions {
    let mut options = ReadOptions::with_id(task.id_column.clone());
    if task.submission_form().label_text() {
        for c in &task.prediction_columns {
            options.types.insert(c.clone(), crate::table::ColumnType::Text);
        }
    }
    options
}

/// Reads a file of the environment: a regular file within the size limit
/// (JSON files: [`crate::MAX_JSON_BYTES`]; tables:
/// [`crate::DEFAULT_MAX_READ_BYTES`]).
fn read_file(path: &Path) -> Result<Vec<u8>> {
    let json = path.extension().is_some_and(|e| e == "json" || e == "md");
    let limit = if json { crate::fsutil::MAX_JSON_BYTES } else { crate::fsutil::DEFAULT_MAX_READ_BYTES };
    crate::fsutil::read_regular(path, limit).map_err(|e| match e {
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            Error::MissingFile { path: path.to_path_buf() }
        }
        other => other,
    })
}

/// Refuses a directory that is an unfinished or abandoned write: a
/// temporary directory's name, or one still holding a write's marker.
fn check_not_temporary(dir: &Path) -> Result<()> {
    let resolved = crate::fsutil::resolve(dir)?;
    let name = resolved.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    if crate::scratch::is_temporary_name(name) || dir.join(crate::scratch::MARKER).exists() {
        return Err(Error::InvalidEnvironment {
            reason: format!("{} is the temporary directory of an unfinished write, not an environment", dir.display()),
        });
    }
    Ok(())
}

fn parse_json<T: serde::de::DeserializeOwned>(bytes: &[u8], path: &Path) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|source| Error::Json { path: path.to_path_buf(), source })
}

/// Reads the image folder: every entry a regular file the manifest lists,
/// with its hash, and every listed file there.
fn read_images(folder: &Path, manifest: &BTreeMap<String, String>) -> Result<ImageSet> {
    let mut images = ImageSet::new();
    let entries = std::fs::read_dir(folder).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::MissingFile { path: folder.to_path_buf() },
        _ => Error::io(folder, e),
    })?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(folder, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(expected) = manifest.get(&name) else {
            return Err(Error::UnlistedFile { path: entry.path() });
        };
        let path = entry.path();
        let bytes = crate::fsutil::read_regular(&path, crate::images::MAX_IMAGE_BYTES)?;
        let found = sha256_hex(&bytes);
        if &found != expected {
            return Err(Error::HashMismatch { path, expected: expected.clone(), found });
        }
        images.insert(name, bytes)?;
    }
    if let Some(missing) = manifest.keys().find(|n| images.get(n).is_none()) {
        return Err(Error::MissingFile { path: folder.join(missing) });
    }
    Ok(images)
}

/// Refuses any entry of `prepared/public/` or `prepared/private/` — file,
/// folder, link or anything else — that `grading.json` does not list (an
/// image task's folder is checked against its manifest instead).
fn only_listed_files(root: &Path, listed: &BTreeMap<String, String>, image_dir: Option<&str>) -> Result<()> {
    let images = image_dir.map(|d| format!("{PUBLIC_DIR}/{d}"));
    let grading = format!("{PRIVATE_DIR}/grading.json");
    for dir in [PUBLIC_DIR, PRIVATE_DIR] {
        let path = root.join(dir);
        let entries = std::fs::read_dir(&path).map_err(|e| Error::io(&path, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&path, e))?;
            let rel = format!("{dir}/{}", entry.file_name().to_string_lossy());
            if images.as_deref() == Some(rel.as_str()) {
                if !entry.file_type().map_err(|e| Error::io(entry.path(), e))?.is_dir() {
                    return Err(Error::InvalidEnvironment {
                        reason: format!("{} is not a folder", entry.path().display()),
                    });
                }
                continue;
            }
            if rel != grading && !listed.contains_key(&rel) {
                return Err(Error::UnlistedFile { path: entry.path() });
            }
            if dir == PUBLIC_DIR && !is_public_file(&entry.file_name().to_string_lossy()) {
                return Err(Error::UnexpectedPublicFile { path: entry.path() });
            }
        }
    }
    Ok(())
}

/// The names `prepared/public/` may hold besides the image folder: the
/// description and the three tables, each plain or gzip-compressed.
fn is_public_file(name: &str) -> bool {
    let table = name.strip_suffix(".gz").unwrap_or(name);
    name == "description.md" || ["train.csv", "test.csv", "sample_submission.csv"].contains(&table)
}

/// The files listed in `grading.json`, read and checked.
struct Files {
    root: PathBuf,
    content: BTreeMap<String, (PathBuf, Vec<u8>)>,
}

impl Files {
    fn check(root: &Path, hashes: &BTreeMap<String, String>) -> Result<Files> {
        let mut content = BTreeMap::new();
        for (rel, expected) in hashes {
            if rel.split('/').any(|part| part == ".." || part.is_empty()) {
                return Err(Error::InvalidEnvironment { reason: format!("grading.json lists an unsafe path `{rel}`") });
            }
            let path = root.join(rel);
            let bytes = read_file(&path)?;
            let found = sha256_hex(&bytes);
            if &found != expected {
                return Err(Error::HashMismatch { path, expected: expected.clone(), found });
            }
            content.insert(rel.clone(), (path, bytes));
        }
        Ok(Files { root: root.to_path_buf(), content })
    }

    fn get(&self, rel: &str) -> Result<(&Path, &Vec<u8>)> {
        self.content
            .get(rel)
            .map(|(p, b)| (p.as_path(), b))
            .ok_or_else(|| Error::MissingFile { path: self.root.join(rel) })
    }

    fn table(&self, dir: &str, stem: &str) -> Result<(&Path, &Vec<u8>)> {
        let plain = format!("{dir}/{stem}.csv");
        let gz = format!("{plain}.gz");
        if self.content.contains_key(&gz) { self.get(&gz) } else { self.get(&plain) }
    }
}
