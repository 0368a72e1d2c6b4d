//! Temporary directories that say whether their owner is alive, so that
//! those left by a killed process can be reclaimed safely.
//!
//! A [`MarkedDir`] holds an exclusive advisory lock (`flock`) on a marker
//! file, [`MARKER`], inside it for as long as it lives. The kernel drops the
//! lock when the owning process dies, however it dies (`kill -9`
//! included), so [`reclaim_stale`] can tell a directory whose writer is
//! dead (the lock can be taken) from one still in use (it cannot) without
//! trusting process ids, which are reused. A directory without a marker
//! (its owner died between creating it and the marker, or it predates
//! markers) is reclaimed only once it is older than a grace period.
//!
//! Used for the atomic writes of environments (`.sandmle-writing-*`
//! siblings of the destination) and for the process executor's per-run
//! directories. On systems without `flock` only the age rule applies.

use crate::error::{Error, Result};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The marker file inside a [`MarkedDir`].
pub const MARKER: &str = ".sandmle-owner";

/// The marker's name while it is being locked.
const PENDING_MARKER: &str = ".sandmle-owner-pending";

/// The name prefix of an environment write's temporary directory.
pub const WRITING_PREFIX: &str = ".sandmle-writing-";

/// The name prefix of an environment moved aside while being replaced.
pub const REPLACED_PREFIX: &str = ".sandmle-replaced-";

/// How old a temporary directory without a marker must be before it is
/// reclaimed: 10 minutes.
pub const UNMARKED_GRACE: Duration = Duration::from_secs(600);

/// `true` for the names of this crate's temporary directories (never valid
/// environment directories).
pub fn is_temporary_name(name: &str) -> bool {
    name.starts_with(WRITING_PREFIX) || name.starts_with(REPLACED_PREFIX)
}

/// A temporary directory marked as owned by this process while it lives;
/// removed (with its content, at any depth: [`remove_tree`]) when dropped,
/// unless kept.
#[derive(Debug)]
pub struct MarkedDir {
    // Field order matters: the directory is removed before the lock drops.
    dir: Option<PathBuf>,
    #[cfg(unix)]
    _lock: Option<nix::fcntl::Flock<File>>,
}

impl MarkedDir {
    /// Creates `parent/<prefix><random>` with its marker, locked.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn new_in(parent: &Path, prefix: &str) -> Result<MarkedDir> {
        let dir = tempfile::Builder::new().prefix(prefix).tempdir_in(parent).map_err(|e| Error::io(parent, e))?;
        let marker = dir.path().join(MARKER);
        #[cfg(unix)]
        {
            use nix::fcntl::{Flock, FlockArg};
            // Locked under another name, then renamed: a reclaimer never
            // sees the marker unlocked, which it would take for a dead
            // owner's (the lock stays with the file across the rename).
            let pending = dir.path().join(PENDING_MARKER);
            let file = File::create(&pending).map_err(|e| Error::io(&pending, e))?;
            let lock = Flock::lock(file, FlockArg::LockExclusiveNonblock)
                .map_err(|(_, errno)| Error::io(&pending, std::io::Error::from(errno)))?;
            std::fs::rename(&pending, &marker).map_err(|e| Error::io(&marker, e))?;
            Ok(MarkedDir { dir: Some(dir.keep()), _lock: Some(lock) })
        }
        #[cfg(not(unix))]
        {
            File::create(&marker).map_err(|e| Error::io(&marker, e))?;
            Ok(MarkedDir { dir: Some(dir.keep()) })
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.dir.as_deref().unwrap_or(Path::new(""))
    }

    /// Removes the marker file (the lock is held until drop), for a
    /// directory about to be renamed into place. Until then a reclaimer
    /// sees an unmarked directory younger than the grace period and leaves
    /// it alone.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn unmark(&self) -> Result<()> {
        let marker = self.path().join(MARKER);
        std::fs::remove_file(&marker).map_err(|e| Error::io(&marker, e))
    }

    /// Keeps the directory (it was renamed away, say) and releases the lock.
    pub fn keep(mut self) -> PathBuf {
        self.dir.take().unwrap_or_default()
    }
}

impl Drop for MarkedDir {
    fn drop(&mut self) {
        if let Some(dir) = self.dir.take() {
            let _ = remove_tree(&dir);
        }
    }
}

/// Removes a directory tree however deep or hostile it is, never following
/// a link ([`crate::tree::remove_tree`] on Unix).
pub fn remove_tree(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        crate::tree::remove_tree(path)
    }
    #[cfg(not(unix))]
    {
        match std::fs::remove_dir_all(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }
}

/// Removes the directories `parent/<prefix>*` owned by this user whose
/// owner is dead (their marker's lock can be taken), or that have no marker
/// and are older than `grace`. Returns how many were removed. Errors are
/// ignored: reclaiming is best effort and never fails the caller.
pub fn reclaim_stale(parent: &Path, prefix: &str, grace: Duration) -> usize {
    let Ok(entries) = std::fs::read_dir(parent) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(|n| n.starts_with(prefix)) {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if !meta.is_dir() || !owned_by_me(&meta) {
            continue;
        }
        if stale(&path, &meta, grace) && remove_tree(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(unix)]
fn owned_by_me(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.uid() == nix::unistd::geteuid().as_raw()
}

#[cfg(not(unix))]
fn owned_by_me(_: &std::fs::Metadata) -> bool {
    true
}

fn stale(path: &Path, meta: &std::fs::Metadata, grace: Duration) -> bool {
    match File::open(path.join(MARKER)) {
        #[cfg(unix)]
        Ok(file) => {
            use nix::fcntl::{Flock, FlockArg};
            use std::os::unix::fs::MetadataExt;
            // Taken: the owner is dead. The lock is released on return,
            // after which nobody will use the directory again. But an
            // owner removing its directory (or renaming it away) unlinks
            // the marker before it lets the lock go: a lock taken on a
            // marker no longer at its path is no dead owner's, and the
            // directory is not ours to count.
            let Ok(locked) = Flock::lock(file, FlockArg::LockExclusiveNonblock) else { return false };
            let (Ok(held), Ok(now)) = (locked.metadata(), std::fs::symlink_metadata(path.join(MARKER))) else {
                return false;
            };
            held.ino() == now.ino() && held.dev() == now.dev()
        }
        #[cfg(not(unix))]
        Ok(_) => meta.modified().ok().and_then(|m| m.elapsed().ok()).is_some_and(|age| age > grace),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            meta.modified().ok().and_then(|m| m.elapsed().ok()).is_some_and(|age| age > grace)
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory created while another thread reclaims used to be taken
    /// for a dead owner's: its marker existed for a moment before it was
    /// locked.
    #[test]
    fn a_directory_being_created_is_never_reclaimed() {
        let parent = tempfile::tempdir().unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let reclaimer = {
            let (parent, stop) = (parent.path().to_path_buf(), std::sync::Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut removed = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    removed += reclaim_stale(&parent, "run-", UNMARKED_GRACE);
                }
                removed
            })
        };
        for _ in 0..2000 {
            let d = MarkedDir::new_in(parent.path(), "run-").unwrap();
            assert!(d.path().join(MARKER).is_file(), "a live directory lost its marker");
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(reclaimer.join().unwrap(), 0, "a live directory was reclaimed");
    }

    #[test]
    fn live_directories_are_kept_and_dead_ones_reclaimed() {
        let parent = tempfile::tempdir().unwrap();
        let live = MarkedDir::new_in(parent.path(), "run-").unwrap();
        // A dead owner's directory: its marker is unlocked.
        let dead = parent.path().join("run-dead");
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join(MARKER), "").unwrap();
        // A fresh unmarked one (an owner between mkdir and marker).
        let young = parent.path().join("run-young");
        std::fs::create_dir(&young).unwrap();
        assert_eq!(reclaim_stale(parent.path(), "run-", UNMARKED_GRACE), 1);
        assert!(live.path().is_dir() && young.is_dir() && !dead.exists());
        assert_eq!(reclaim_stale(parent.path(), "run-", Duration::ZERO), 1, "unmarked past the grace period");
        assert!(!young.exists() && live.path().is_dir());
        let p = live.path().to_path_buf();
        drop(live);
        assert!(!p.exists());
    }
}
