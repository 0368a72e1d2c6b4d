//! Rendering an environment to bytes and writing it atomically.

use super::{Environment, PRIVATE_DIR, PUBLIC_DIR};
use crate::csv::{gzip, to_csv_bytes};
use crate::error::{Error, Result};
use crate::fsutil::sha256_hex;
use crate::grading::GradingSpec;
use crate::table::Table;
use crate::task::SCHEMA_VERSION;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// How to write an environment.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// Replace an existing directory at the destination (atomically: the old
    /// one is moved aside, the new one renamed in, the old one removed).
    /// Files beside `prepared/` in the old directory are kept.
    pub overwrite: bool,
    /// Gzip a table whose CSV is larger than this many bytes (`None`: never).
    pub gzip_over_bytes: Option<usize>,
}

pub(super) const SELF_HASH_KEY: &str = "\"self_sha256\": \"";
const ZERO_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

#[derive(Serialize)]
struct OnDisk<'a> {
    #[serde(flatten)]
    spec: &'a GradingSpec,
    self_sha256: &'a str,
}

impl Environment {
    /// Every file of the environment as `(path relative to the environment
    /// directory, bytes)`, in a fixed order, `grading.json` last with the
    /// hashes of all the others and its own.
    ///
    /// # Errors
    /// [`Error::InvalidEnvironment`] if the tables disagree with the task
    /// ([`Environment::validate`]).
    pub fn render(&self, options: &WriteOptions) -> Result<Vec<(String, Vec<u8>)>> {
        self.validate()?;
        let table = |dir: &str, stem: &str, t: &Table| {
            let bytes = to_csv_bytes(t);
            match options.gzip_over_bytes {
                Some(limit) if bytes.len() > limit => (format!("{dir}/{stem}.csv.gz"), gzip(&bytes)),
                _ => (format!("{dir}/{stem}.csv"), bytes),
            }
        };
        let mut files = vec![
            (format!("{PUBLIC_DIR}/description.md"), self.description.as_bytes().to_vec()),
            table(PUBLIC_DIR, "train", &self.train),
            table(PUBLIC_DIR, "test", &self.test),
            table(PUBLIC_DIR, "sample_submission", &self.sample_submission),
            table(PRIVATE_DIR, "answers", &self.answers),
            (format!("{PRIVATE_DIR}/provenance.json"), self.provenance.to_json_bytes()),
        ];
        let mut spec = self.grading.clone();
        spec.schema_version = SCHEMA_VERSION;
        spec.leaderboard = None;
        if let Some(lb) = &self.leaderboard {
            files.push((format!("{PRIVATE_DIR}/leaderboard.csv"), to_csv_bytes(&lb.to_table())));
            spec.leaderboard = Some("leaderboard.csv".into());
        }
        spec.files = files.iter().map(|(p, b)| (p.clone(), sha256_hex(b))).collect();
        files.push((format!("{PRIVATE_DIR}/grading.json"), grading_bytes(&spec)));
        Ok(files)
    }

    /// Writes the environment at `dir` atomically: into a temporary sibling
    /// directory, then renamed into place. An interrupted write leaves no
    /// partial environment at `dir`.
    ///
    /// # Errors
    /// [`Error::AlreadyExists`] if `dir` exists and `options.overwrite` is
    /// off; [`Error::Io`]; [`Error::InvalidEnvironment`].
    pub fn write(&self, dir: impl AsRef<Path>, options: &WriteOptions) -> Result<()> {
        let dir = dir.as_ref();
        let files = self.render(options)?;
        if dir.exists() && !options.overwrite {
            return Err(Error::AlreadyExists { path: dir.to_path_buf() });
        }
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        let tmp = tempfile::Builder::new()
            .prefix(".sandmle-writing-")
            .tempdir_in(&parent)
            .map_err(|e| Error::io(&parent, e))?;
        for (rel, bytes) in &files {
            let path = tmp.path().join(rel);
            if let Some(p) = path.parent() {
                std::fs::create_dir_all(p).map_err(|e| Error::io(p, e))?;
            }
            write_synced(&path, bytes)?;
        }
        if dir.exists() {
            carry_over_extra_files(dir, tmp.path())?;
            let old = tempfile::Builder::new()
                .prefix(".sandmle-replaced-")
                .tempdir_in(&parent)
                .map_err(|e| Error::io(&parent, e))?;
            let aside = old.path().join("env");
            std::fs::rename(dir, &aside).map_err(|e| Error::io(dir, e))?;
            if let Err(e) = std::fs::rename(tmp.path(), dir) {
                // Put the old environment back; the new one is dropped.
                let _ = std::fs::rename(&aside, dir);
                return Err(Error::io(dir, e));
            }
            // `old` (with the replaced environment) is removed on drop.
        } else {
            std::fs::rename(tmp.path(), dir).map_err(|e| Error::io(dir, e))?;
        }
        // The temporary directory was renamed away; forget it.
        let _ = tmp.keep();
        Ok(())
    }

    /// Writes the environment as `parent/<env-id>` and returns that path.
    ///
    /// # Errors
    /// As [`Environment::write`].
    pub fn write_into(&self, parent: impl AsRef<Path>, options: &WriteOptions) -> Result<PathBuf> {
        let dir = parent.as_ref().join(self.id());
        self.write(&dir, options)?;
        Ok(dir)
    }
}

/// Moves what the old directory holds besides `prepared/` (a README, a
/// SOURCE.md, ...) into the new one, so that replacing an environment keeps
/// the files kept beside it.
fn carry_over_extra_files(old: &Path, new: &Path) -> Result<()> {
    for entry in std::fs::read_dir(old).map_err(|e| Error::io(old, e))? {
        let entry = entry.map_err(|e| Error::io(old, e))?;
        if entry.file_name() != "prepared" {
            let to = new.join(entry.file_name());
            std::fs::rename(entry.path(), &to).map_err(|e| Error::io(entry.path(), e))?;
        }
    }
    Ok(())
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut f = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))?;
    f.sync_all().map_err(|e| Error::io(path, e))
}

/// `grading.json`'s bytes with its own hash in `self_sha256` (computed over
/// the file with that field set to 64 zeros).
pub(super) fn grading_bytes(spec: &GradingSpec) -> Vec<u8> {
    let mut text = serde_json::to_string_pretty(&OnDisk { spec, self_sha256: ZERO_HASH }).unwrap_or_default();
    text.push('\n');
    let hash = sha256_hex(text.as_bytes());
    if let Some(at) = text.rfind(SELF_HASH_KEY) {
        let start = at + SELF_HASH_KEY.len();
        text.replace_range(start..start + 64, &hash);
    }
    text.into_bytes()
}

/// Checks `grading.json`'s own hash; returns `(recorded, actual)` on a mismatch.
pub(super) fn check_self_hash(bytes: &[u8]) -> std::result::Result<(), (String, String)> {
    let Some(at) = find_last(bytes, SELF_HASH_KEY.as_bytes()) else {
        return Err(("(no self_sha256 field)".into(), sha256_hex(bytes)));
    };
    let start = at + SELF_HASH_KEY.len();
    let Some(recorded) = bytes.get(start..start + 64) else {
        return Err(("(truncated self_sha256 field)".into(), sha256_hex(bytes)));
    };
    let recorded = String::from_utf8_lossy(recorded).into_owned();
    let mut zeroed = bytes.to_vec();
    zeroed[start..start + 64].copy_from_slice(ZERO_HASH.as_bytes());
    let actual = sha256_hex(&zeroed);
    if actual == recorded { Ok(()) } else { Err((recorded, actual)) }
}

fn find_last(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}
