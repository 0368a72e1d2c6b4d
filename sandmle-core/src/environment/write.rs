//! Rendering an environment to bytes and writing it atomically.

use super::{Environment, IMAGE_MANIFEST, PRIVATE_DIR, PUBLIC_DIR};
use crate::csv::{gzip, to_csv_bytes};
use crate::error::{Error, Result};
use crate::fsutil::sha256_hex;
use crate::grading::GradingSpec;
use crate::scratch;
use crate::table::Table;
use crate::task::SCHEMA_VERSION;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// How to write an environment.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// Replace an existing directory at the destination: an atomic exchange
    /// on Linux, two renames elsewhere (see [`Environment::write`]). Files
    /// beside `prepared/` in the old directory are kept.
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
    /// hashes of all the others and its own (an image task's images are
    /// covered by the manifest `private/images.sha256`, which it hashes).
    ///
    /// # Errors
    /// [`Error::InvalidEnvironment`] if the tables disagree with the task
    /// ([`Environment::validate`]).
    pub fn render(&self, options: &WriteOptions) -> Result<Vec<(String, Vec<u8>)>> {
        self.validate()?;
        let table = |dir: &str, stem: &str, t: &Table| -> Result<(String, Vec<u8>)> {
            let bytes = to_csv_bytes(t)?;
            Ok(match options.gzip_over_bytes {
                Some(limit) if bytes.len() > limit => (format!("{dir}/{stem}.csv.gz"), gzip(&bytes)?),
                _ => (format!("{dir}/{stem}.csv"), bytes),
            })
        };
        let mut files = vec![
            (format!("{PUBLIC_DIR}/description.md"), self.description.as_bytes().to_vec()),
            table(PUBLIC_DIR, "train", &self.train)?,
            table(PUBLIC_DIR, "test", &self.test)?,
            table(PUBLIC_DIR, "sample_submission", &self.sample_submission)?,
            table(PRIVATE_DIR, "answers", &self.answers)?,
            (format!("{PRIVATE_DIR}/provenance.json"), self.provenance.to_json_bytes()?),
        ];
        let mut spec = self.grading.clone();
        spec.schema_version = SCHEMA_VERSION;
        spec.leaderboard = None;
        if let Some(lb) = &self.leaderboard {
            files.push((format!("{PRIVATE_DIR}/leaderboard.csv"), to_csv_bytes(&lb.to_table()?)?));
            spec.leaderboard = Some("leaderboard.csv".into());
        }
        if self.task().images.is_some() {
            files.push((format!("{PRIVATE_DIR}/{IMAGE_MANIFEST}"), self.images.manifest()));
        }
        spec.files = files.iter().map(|(p, b)| (p.clone(), sha256_hex(b))).collect();
        if let Some(images) = &self.task().images {
            for (name, bytes) in self.images.iter() {
                files.push((format!("{PUBLIC_DIR}/{}/{name}", images.dir), bytes.to_vec()));
            }
        }
        files.push((format!("{PRIVATE_DIR}/grading.json"), grading_bytes(&spec)?));
        Ok(files)
    }

    /// Writes the environment at `dir` atomically: into a temporary sibling
    /// directory, then renamed into place. An interrupted write leaves no
    /// partial environment at `dir`. Replacing an existing environment
    /// (`overwrite`) exchanges the two directories in one step on Linux
    /// (`renameat2`); elsewhere it takes two renames, between which `dir`
    /// briefly does not exist.
    ///
    /// Only an environment directory (or an empty one) is ever replaced,
    /// never a device, a link or a directory of other files, and nothing is
    /// written inside another environment's `prepared/` folder
    /// ([`crate::check_output_dir`]). The temporary directory
    /// (`.sandmle-writing-*`) is a [`crate::scratch::MarkedDir`]: those left
    /// beside `dir` by an interrupted write whose writer is dead are removed
    /// by the next write into the same parent, while a concurrent writer's
    /// is left alone; and [`Environment::read`] refuses them.
    ///
    /// # Errors
    /// [`Error::AlreadyExists`] if `dir` exists and `options.overwrite` is
    /// off; [`Error::UnsafeOutput`]; [`Error::Io`];
    /// [`Error::InvalidEnvironment`].
    pub fn write(&self, dir: impl AsRef<Path>, options: &WriteOptions) -> Result<()> {
        let dir = dir.as_ref();
        let files = self.render(options)?;
        crate::fsutil::check_output_dir(dir)?;
        if dir.exists() && !options.overwrite {
            return Err(Error::AlreadyExists { path: dir.to_path_buf() });
        }
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        scratch::reclaim_stale(&parent, scratch::WRITING_PREFIX, scratch::UNMARKED_GRACE);
        scratch::reclaim_stale(&parent, scratch::REPLACED_PREFIX, scratch::UNMARKED_GRACE);
        let tmp = scratch::MarkedDir::new_in(&parent, scratch::WRITING_PREFIX)?;
        // Each file reaches the disk before the directory is renamed into
        // place: synced one by one, or — for an image task's hundreds of
        // files, where one sync per file would take most of the write —
        // with one `syncfs` over them all (Linux).
        let one_sync = files.len() > PER_FILE_SYNC_MAX && cfg!(any(target_os = "linux", target_os = "android"));
        for (rel, bytes) in &files {
            let path = tmp.path().join(rel);
            if let Some(p) = path.parent() {
                std::fs::create_dir_all(p).map_err(|e| Error::io(p, e))?;
            }
            write_file(&path, bytes, !one_sync)?;
        }
        if one_sync {
            sync_filesystem(tmp.path())?;
        }
        tmp.unmark()?;
        if dir.exists() {
            // Files kept beside `prepared/` are copied into the new
            // directory first, so that a failure anywhere leaves the old
            // directory as it was.
            copy_extra_files(dir, tmp.path())?;
            // After the swap the temporary path holds the old environment,
            // which is removed when `tmp` drops.
            return swap_dirs(tmp.path(), dir, &parent);
        }
        std::fs::rename(tmp.path(), dir).map_err(|e| Error::io(dir, e))?;
        // The temporary directory was renamed away; forget it.
        let _ = tmp.keep();
        Ok(())
    }

    /// Writes the environment as `parent/<env-id>` and returns that path.
    ///
    /// # Errors
    /// As [`Environment::write`].
    pub fn write_into(&self, parent: impl AsRef<Path>, options: &WriteOptions) -> Result<PathBuf> {
        let dir = parent.as_ref().join(self.id()?);
        self.write(&dir, options)?;
        Ok(dir)
    }
}

/// Copies what the old directory holds besides `prepared/` (a README, a
/// SOURCE.md, ...) into the new one, so that replacing an environment keeps
/// the files kept beside it.
fn copy_extra_files(old: &Path, new: &Path) -> Result<()> {
    for entry in std::fs::read_dir(old).map_err(|e| Error::io(old, e))? {
        let entry = entry.map_err(|e| Error::io(old, e))?;
        if entry.file_name() != "prepared" && entry.file_name() != scratch::MARKER {
            copy_tree(&entry.path(), &new.join(entry.file_name()))?;
        }
    }
    Ok(())
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    let meta = std::fs::symlink_metadata(from).map_err(|e| Error::io(from, e))?;
    if meta.is_dir() {
        std::fs::create_dir(to).map_err(|e| Error::io(to, e))?;
        for entry in std::fs::read_dir(from).map_err(|e| Error::io(from, e))? {
            let entry = entry.map_err(|e| Error::io(from, e))?;
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        }
    } else if meta.is_file() {
        std::fs::copy(from, to).map_err(|e| Error::io(from, e))?;
    }
    Ok(())
}

/// Swaps the new directory into place: one atomic exchange where the
/// system has it (Linux `renameat2` with `RENAME_EXCHANGE`), otherwise two
/// renames, the old directory moved aside first and put back if the second
/// rename fails.
fn swap_dirs(new: &Path, dir: &Path, parent: &Path) -> Result<()> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use nix::fcntl::{AT_FDCWD, RenameFlags, renameat2};
        if renameat2(AT_FDCWD, new, AT_FDCWD, dir, RenameFlags::RENAME_EXCHANGE).is_ok() {
            return Ok(());
        }
    }
    let old = tempfile::Builder::new()
        .prefix(scratch::REPLACED_PREFIX)
        .tempdir_in(parent)
        .map_err(|e| Error::io(parent, e))?;
    let aside = old.path().join("env");
    std::fs::rename(dir, &aside).map_err(|e| Error::io(dir, e))?;
    if let Err(e) = std::fs::rename(new, dir) {
        let _ = std::fs::rename(&aside, dir);
        return Err(Error::io(dir, e));
    }
    Ok(())
}

/// Environments of more files than this are synced with one `syncfs`.
const PER_FILE_SYNC_MAX: usize = 32;

fn write_file(path: &Path, bytes: &[u8], sync: bool) -> Result<()> {
    use std::io::Write;
    let mut f = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))?;
    if sync { f.sync_all().map_err(|e| Error::io(path, e)) } else { Ok(()) }
}

/// Flushes the file system holding `dir` (every file just written there).
fn sync_filesystem(dir: &Path) -> Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let d = std::fs::File::open(dir).map_err(|e| Error::io(dir, e))?;
        nix::unistd::syncfs(&d).map_err(|e| Error::io(dir, std::io::Error::from(e)))?;
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = dir;
    Ok(())
}

/// `grading.json`'s bytes with its own hash in `self_sha256` (computed over
/// the file with that field set to 64 zeros).
pub(super) fn grading_bytes(spec: &GradingSpec) -> Result<Vec<u8>> {
    let mut text = serde_json::to_string_pretty(&OnDisk { spec, self_sha256: ZERO_HASH })
        .map_err(|source| Error::Json { path: PathBuf::from("grading.json"), source })?;
    text.push('\n');
    let hash = sha256_hex(text.as_bytes());
    if let Some(at) = text.rfind(SELF_HASH_KEY) {
        let start = at + SELF_HASH_KEY.len();
        text.replace_range(start..start + 64, &hash);
    }
    Ok(text.into_bytes())
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
