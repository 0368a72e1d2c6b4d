//! Small file-system helpers: bounded reads, guarded atomic writes and
//! hashing.
//!
//! **Reading.** Every file the tools read goes through [`read_regular`]: the
//! path must name a regular file (a FIFO, a device, a socket or a directory
//! is refused with [`Error::NotRegularFile`] before anything could block on
//! it), the file is opened with `O_NONBLOCK` and checked again on the open
//! descriptor (so a file swapped for a FIFO between the check and the open
//! cannot hang the reader), and at most the given number of bytes is read
//! ([`Error::FileTooLarge`] beyond it).
//!
//! **Writing.** [`write_atomic`] (and so [`crate::csv::write_csv`]) only
//! replaces what [`check_output_file`] accepts: a regular file, or nothing,
//! outside every environment's `prepared/` folder. It never renames over a
//! device, a FIFO, a link or a directory, and never writes into
//! `prepared/private/` (an environment's answers) or `prepared/public/`.

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

/// The largest file read by default: 4 GiB (tables; see
/// [`crate::csv::CsvLimits`]).
pub const DEFAULT_MAX_READ_BYTES: u64 = 4 << 30;

/// The largest JSON or text file read (`grading.json`, `provenance.json`,
/// `description.md`, pipeline specs): 64 MiB.
pub const MAX_JSON_BYTES: u64 = 64 << 20;

/// What kind of non-regular file a file type is, in words.
fn kind_of(t: &std::fs::FileType) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    if t.is_dir() {
        Some("a directory")
    } else if t.is_symlink() {
        Some("a symbolic link")
    } else if t.is_file() {
        None
    } else {
        Some("not a regular file")
    }
}

/// Reads the regular file at `path` (links are followed), at most
/// `max_bytes` of it. Never blocks on a FIFO or a device.
///
/// # Errors
/// [`Error::MissingFile`] for a file that is not there,
/// [`Error::NotRegularFile`], [`Error::FileTooLarge`], [`Error::Io`].
pub fn read_regular(path: &Path, max_bytes: u64) -> Result<Vec<u8>> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::MissingFile { path: path.to_path_buf() },
        _ => Error::io(path, e),
    })?;
    check_regular(path, &meta, max_bytes)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits());
    }
    let file = options.open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    check_regular(path, &meta, max_bytes)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if read > max_bytes {
        return Err(Error::FileTooLarge { path: path.to_path_buf(), size: read, limit: max_bytes });
    }
    Ok(bytes)
}

/// As [`read_regular`], as UTF-8 text.
///
/// # Errors
/// As [`read_regular`]; [`Error::InvalidEnvironment`]-free: a file that is
/// not UTF-8 is an [`Error::Io`] of kind `InvalidData`.
pub fn read_regular_string(path: &Path, max_bytes: u64) -> Result<String> {
    let bytes = read_regular(path, max_bytes)?;
    String::from_utf8(bytes)
        .map_err(|_| Error::io(path, std::io::Error::new(std::io::ErrorKind::InvalidData, "not valid UTF-8")))
}

fn check_regular(path: &Path, meta: &std::fs::Metadata, max_bytes: u64) -> Result<()> {
    if let Some(kind) = kind_of(&meta.file_type()) {
        return Err(Error::NotRegularFile { path: path.to_path_buf(), kind });
    }
    if meta.len() > max_bytes {
        return Err(Error::FileTooLarge { path: path.to_path_buf(), size: meta.len(), limit: max_bytes });
    }
    Ok(())
}

/// `path` made absolute with its existing part resolved (links and `..`
/// followed, as the kernel would when creating it); the part that does not
/// exist yet is appended as given.
pub(crate) fn resolve(path: &Path) -> Result<PathBuf> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map_err(|e| Error::io(".", e))?.join(path)
    };
    let mut existing = abs.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        match std::fs::canonicalize(existing) {
            Ok(mut base) => {
                for part in rest.iter().rev() {
                    base.push(part);
                }
                return Ok(base);
            }
            Err(_) => match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name);
                    existing = parent;
                }
                _ => return Ok(abs),
            },
        }
    }
}

/// The environment folder (`.../prepared`) that `resolved` lies in, if
/// any: a path under a `prepared/private` folder (an environment's or an
/// MLE-bench competition's answers), or under a `prepared` folder holding
/// `private/grading.json`.
fn enclosing_prepared(resolved: &Path) -> Option<PathBuf> {
    let mut ancestor = resolved.parent();
    let mut child: Option<&std::ffi::OsStr> = resolved.file_name();
    while let Some(dir) = ancestor {
        let name = dir.file_name();
        if name.is_some_and(|n| n == "prepared")
            && (child.is_some_and(|c| c == "private") || dir.join("private").join("grading.json").is_file())
        {
            return Some(dir.to_path_buf());
        }
        child = name;
        ancestor = dir.parent();
    }
    None
}

fn unsafe_output(path: &Path, reason: impl Into<String>) -> Error {
    Error::UnsafeOutput { path: path.to_path_buf(), reason: reason.into() }
}

/// Checks that a file may be written (or replaced) at `path`: nothing is
/// there or a regular file is, and the path is not inside an environment's
/// `prepared/` folder (checked on the path with its links and `..`
/// resolved).
///
/// # Errors
/// [`Error::UnsafeOutput`] saying why.
pub fn check_output_file(path: &Path) -> Result<()> {
    if path.file_name().is_none() || path.components().next_back() == Some(Component::ParentDir) {
        return Err(unsafe_output(path, "names no file"));
    }
    match std::fs::symlink_metadata(path) {
        Ok(meta) => {
            if let Some(kind) = kind_of(&meta.file_type()) {
                return Err(unsafe_output(path, format!("is {kind}; only a regular file is replaced")));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(path, e)),
    }
    let resolved = resolve(path)?;
    if let Some(prepared) = enclosing_prepared(&resolved) {
        return Err(unsafe_output(
            path,
            format!("lies inside the environment folder {}, which only environment writes change", prepared.display()),
        ));
    }
    Ok(())
}

/// Checks that an environment directory may be written (or replaced) at
/// `dir`: nothing is there, an empty directory is, or an environment
/// directory is (one holding `prepared/private/grading.json`); and `dir` is
/// neither a temporary directory of a write nor inside another
/// environment's `prepared/` folder.
///
/// # Errors
/// [`Error::UnsafeOutput`] saying why.
pub fn check_output_dir(dir: &Path) -> Result<()> {
    let resolved = resolve(dir)?;
    if resolved.file_name().and_then(|n| n.to_str()).is_some_and(crate::scratch::is_temporary_name) {
        return Err(unsafe_output(dir, "is the name of a temporary directory"));
    }
    if let Some(prepared) = enclosing_prepared(&resolved.join("x")) {
        return Err(unsafe_output(dir, format!("lies inside the environment folder {}", prepared.display())));
    }
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => {
            let is_env = dir.join(crate::environment::PRIVATE_DIR).join("grading.json").is_file();
            let empty = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?.next().is_none();
            if is_env || empty {
                Ok(())
            } else {
                Err(unsafe_output(dir, "is a directory that holds no environment; it is not replaced"))
            }
        }
        Ok(meta) => Err(unsafe_output(
            dir,
            format!("is {}; only an environment directory is replaced", kind_of(&meta.file_type()).unwrap_or("a file")),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(dir, e)),
    }
}

/// Writes `bytes` to `path` atomically: into a temporary file in the same
/// directory, flushed to disk, then renamed over `path`. Readers see the old
/// content or the new, never a part. Only what [`check_output_file`]
/// accepts is replaced.
///
/// # Errors
/// [`Error::UnsafeOutput`], [`Error::Io`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    check_output_file(path)?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new().prefix(".sandmle-file-").tempfile_in(dir).map_err(|e| Error::io(dir, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(tmp.path(), e))?;
    tmp.as_file().sync_all().map_err(|e| Error::io(tmp.path(), e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// The lower-case hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        s.push(char::from_digit(u32::from(b & 15), 16).unwrap_or('0'));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifos_devices_and_directories_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        for p in [fifo.as_path(), Path::new("/dev/zero"), dir.path()] {
            let e = read_regular(p, 1 << 20).unwrap_err();
            assert!(matches!(e, Error::NotRegularFile { .. }), "{e}");
        }
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'x'; 100]).unwrap();
        assert!(matches!(read_regular(&big, 99), Err(Error::FileTooLarge { size: 100, limit: 99, .. })));
        assert_eq!(read_regular(&big, 100).unwrap().len(), 100);
    }

    #[test]
    fn outputs_never_replace_devices_or_environment_files() {
        let dir = tempfile::tempdir().unwrap();
        for p in ["/dev/null", "/dev/full"] {
            let e = write_atomic(Path::new(p), b"x").unwrap_err();
            assert!(matches!(e, Error::UnsafeOutput { .. }), "{e}");
        }
        assert!(Path::new("/dev/null").metadata().unwrap().file_type().is_char_device_like());
        let private = dir.path().join("env/prepared/private");
        std::fs::create_dir_all(&private).unwrap();
        std::fs::create_dir_all(dir.path().join("env/prepared/public")).unwrap();
        std::fs::write(private.join("grading.json"), "{}").unwrap();
        std::fs::write(private.join("answers.csv"), "id,y\n").unwrap();
        for rel in
            ["env/prepared/private/answers.csv", "env/prepared/public/../private/new.csv", "env/prepared/public/x.csv"]
        {
            let e = write_atomic(&dir.path().join(rel), b"x").unwrap_err();
            assert!(matches!(e, Error::UnsafeOutput { .. }), "{rel}: {e}");
        }
        assert_eq!(std::fs::read(private.join("answers.csv")).unwrap(), b"id,y\n");
        write_atomic(&dir.path().join("env/submission.csv"), b"ok").unwrap();
        // Directories: only environments (or empty ones) are replaced.
        assert!(check_output_dir(dir.path()).is_err());
        assert!(check_output_dir(&dir.path().join("env")).is_ok());
        assert!(check_output_dir(&dir.path().join("new")).is_ok());
        assert!(check_output_dir(&private.join("nested")).is_err());
        assert!(check_output_dir(Path::new("/dev/null")).is_err());
    }

    trait CharDevice {
        fn is_char_device_like(&self) -> bool;
    }
    impl CharDevice for std::fs::FileType {
        fn is_char_device_like(&self) -> bool {
            use std::os::unix::fs::FileTypeExt;
            self.is_char_device()
        }
    }
}
