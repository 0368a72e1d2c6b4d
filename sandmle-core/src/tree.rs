//! Walks over directory trees an agent's program wrote: measuring them
//! against a budget and removing them, at any depth and path length.
//!
//! Design decision: every step is relative to an open directory
//! (`openat`, `fstatat`, `unlinkat`, `renameat2`), never a path built by
//! joining names, and never a recursive call. So a chain of 100,000
//! nested directories, or a file under a path of 100 KB, is measured and
//! removed like any other tree: no `ENAMETOOLONG` skips part of it and no
//! thread's stack overflows on it. No link is ever followed, and a
//! directory whose owner took away its permissions (`chmod 000`) is
//! opened up (it is the caller's own) before it is read or emptied.
//!
//! Both walks bound the descriptors they hold:
//! - [`measure`] holds one per level it has descended and refuses to
//!   descend past `max_depth` ([`TreeUsage::too_deep`]): a budget for
//!   nesting, which callers treat like the byte and file budgets.
//! - [`remove_tree`] holds at most [`REMOVE_FRAMES`]: a directory found
//!   deeper than that is first moved up to the top of the tree (a rename
//!   within the same file system), which flattens any chain.

use std::ffi::{CStr, CString};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::path::Path;

use nix::dir::Dir;
use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag};
use nix::sys::stat::{FchmodatFlags, FileStat, Mode, SFlag, fchmodat, fstatat};
use nix::unistd::{UnlinkatFlags, unlinkat};

/// The most directories [`remove_tree`] holds open at once.
pub const REMOVE_FRAMES: usize = 32;

/// What [`measure`] counted under a directory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TreeUsage {
    /// Bytes allocated on disk (sparse files count what they use).
    pub bytes: u64,
    /// Files, directories, links and other entries.
    pub entries: u64,
    /// The deepest level reached (the directory's own entries are level 1).
    pub depth: usize,
    /// `true` when a directory lies deeper than the walk's `max_depth`, so
    /// the tree was not counted past it.
    pub too_deep: bool,
    /// Directories that could not be opened even after their permissions
    /// were restored, so their content was not counted.
    pub unreadable: u64,
}

fn open_flags() -> OFlag {
    OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC
}

/// The name of a directory entry, as the `*at` calls take it.
fn c_name(name: &CStr) -> Option<CString> {
    let bytes = name.to_bytes();
    (bytes != b"." && bytes != b"..").then(|| name.to_owned())
}

fn is_dir(st: &FileStat) -> bool {
    SFlag::from_bits_truncate(st.st_mode & SFlag::S_IFMT.bits()) == SFlag::S_IFDIR
}

/// Gives the directory `parent/name` its owner's full permissions, without
/// following a link: it is opened as a path (`O_PATH | O_NOFOLLOW`, which
/// needs no permission on it) and changed through `/proc/self/fd`, so the
/// change lands on that directory whatever is renamed meanwhile.
fn open_up(parent: BorrowedFd<'_>, name: &CStr) -> nix::Result<()> {
    let fd = nix::fcntl::openat(
        parent,
        name,
        OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
        Mode::empty(),
    )?;
    let st = nix::sys::stat::fstat(&fd)?;
    let mode = Mode::from_bits_truncate(st.st_mode & 0o7777) | Mode::S_IRWXU;
    let proc = format!("/proc/self/fd/{}", fd.as_raw_fd());
    fchmodat(nix::fcntl::AT_FDCWD, proc.as_str(), mode, FchmodatFlags::FollowSymlink)
}

/// Opens the directory `parent/name` for reading, restoring its owner's
/// permissions first if they were taken away.
fn open_dir(parent: BorrowedFd<'_>, name: &CStr) -> nix::Result<Dir> {
    match Dir::openat(parent, name, open_flags(), Mode::empty()) {
        Err(Errno::EACCES) => {
            open_up(parent, name)?;
            Dir::openat(parent, name, open_flags(), Mode::empty())
        }
        other => other,
    }
}

/// Up to `max` entry names of `dir` (not `.` or `..`), from its start,
/// skipping those `skip` holds.
fn names(dir: &mut Dir, max: usize, skip: &[CString]) -> nix::Result<Vec<CString>> {
    let mut out = Vec::new();
    for entry in dir.iter() {
        let entry = entry?;
        if let Some(name) = c_name(entry.file_name())
            && !skip.contains(&name)
        {
            out.push(name);
            if out.len() >= max {
                break;
            }
        }
    }
    Ok(out)
}

/// Measures the tree under `dir` (its entries, not `dir` itself),
/// descending at most `max_depth` levels and stopping as soon as `stop`
/// says the count so far is enough (over a budget, say), so a directory of
/// millions of files costs no more than the budget to scan.
///
/// Nothing is followed or changed but the permissions of a directory its
/// owner made unreadable. A missing or unreadable `dir` counts nothing.
pub fn measure(dir: &Path, max_depth: usize, mut stop: impl FnMut(&TreeUsage) -> bool) -> TreeUsage {
    let mut usage = TreeUsage::default();
    let Ok(root) = Dir::open(dir, open_flags(), Mode::empty()) else {
        return usage;
    };
    // Each frame: an open directory and its subdirectories not yet walked.
    let mut frames: Vec<(Dir, Vec<CString>)> = Vec::new();
    let mut next = Some(root);
    while let Some(mut d) = next.take() {
        let level = frames.len() + 1;
        usage.depth = usage.depth.max(level);
        // Listed first (counting entries, so a huge directory stops the
        // walk early), then looked at one by one.
        let mut listed = Vec::new();
        for entry in d.iter() {
            let Ok(entry) = entry else { break };
            let Some(name) = c_name(entry.file_name()) else { continue };
            usage.entries += 1;
            listed.push(name);
            if stop(&usage) {
                return usage;
            }
        }
        let mut subdirs = Vec::new();
        for name in listed {
            if let Ok(st) = fstatat(d.as_fd(), name.as_c_str(), AtFlags::AT_SYMLINK_NOFOLLOW) {
                let blocks = u64::try_from(st.st_blocks).unwrap_or(0);
                usage.bytes = usage.bytes.saturating_add(blocks.saturating_mul(512));
                if is_dir(&st) {
                    subdirs.push(name);
                }
            }
            if stop(&usage) {
                return usage;
            }
        }
        frames.push((d, subdirs));
        // The next directory to walk: the deepest frame's next subdirectory.
        while next.is_none() {
            let depth = frames.len();
            let Some((top, pending)) = frames.last_mut() else { return usage };
            let Some(name) = pending.pop() else {
                frames.pop();
                continue;
            };
            if depth >= max_depth {
                usage.too_deep = true;
                return usage;
            }
            match open_dir(top.as_fd(), &name) {
                Ok(child) => next = Some(child),
                Err(Errno::ENOENT) | Err(Errno::ENOTDIR) | Err(Errno::ELOOP) => {}
                Err(_) => {
                    usage.unreadable += 1;
                    if stop(&usage) {
                        return usage;
                    }
                }
            }
        }
    }
    usage
}

/// One directory being emptied by [`remove_tree`].
struct Frame {
    dir: Dir,
    /// Its name in the directory below it on the stack.
    name: CString,
    /// Entries that could not be removed (not read again).
    failed: Vec<CString>,
}

/// Removes `path` and everything under it: a file or link is unlinked (a
/// link is never followed), a directory emptied and removed, at any depth
/// and path length, holding at most [`REMOVE_FRAMES`] directories open.
/// Directories whose owner took away their permissions are opened up
/// first. A missing `path` is no error.
///
/// Meant for trees no other process writes any more (a finished run's
/// workspace, a dead owner's temporary directory): a directory found
/// [`REMOVE_FRAMES`] levels down is moved up to `path`'s top level before
/// it is emptied.
///
/// # Errors
/// The first error that left something behind; everything else that could
/// be removed is removed.
pub fn remove_tree(path: &Path) -> std::io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        other => other?,
    };
    if !meta.is_dir() {
        return std::fs::remove_file(path);
    }
    let root = match Dir::open(path, open_flags(), Mode::empty()) {
        Err(Errno::EACCES) => {
            use std::os::unix::fs::PermissionsExt;
            let mode = meta.permissions().mode() | 0o700;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
            Dir::open(path, open_flags(), Mode::empty())?
        }
        other => other?,
    };
    ensure_writable(root.as_fd(), &meta);
    let mut first_error: Option<std::io::Error> = None;
    empty_tree(root, &mut first_error);
    match std::fs::remove_dir(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(first_error.unwrap_or(e)),
        _ => first_error.map_or(Ok(()), Err),
    }
}

/// Makes an open directory writable and searchable by its owner (to remove
/// its entries), when it was not.
fn ensure_writable(dir: BorrowedFd<'_>, meta: &std::fs::Metadata) {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode();
    if mode & 0o700 != 0o700 {
        let _ = nix::sys::stat::fchmod(dir, Mode::from_bits_truncate(mode & 0o7777) | Mode::S_IRWXU);
    }
}

/// Empties the directory `root` (held open), depth first.
fn empty_tree(root: Dir, first_error: &mut Option<std::io::Error>) {
    let mut note = |e: Errno| {
        if first_error.is_none() {
            *first_error = Some(std::io::Error::from(e));
        }
    };
    let mut frames = vec![Frame { dir: root, name: CString::default(), failed: Vec::new() }];
    let mut moved = 0u64;
    loop {
        let depth = frames.len();
        let Some(top) = frames.last_mut() else { return };
        let batch = match names(&mut top.dir, 256, &top.failed) {
            Ok(b) => b,
            Err(e) => {
                note(e);
                Vec::new()
            }
        };
        if batch.is_empty() {
            let Some(done) = frames.pop() else { return };
            let Some(parent) = frames.last_mut() else { return };
            drop(done.dir);
            if let Err(e) = unlinkat(parent.dir.as_fd(), done.name.as_c_str(), UnlinkatFlags::RemoveDir) {
                note(e);
                parent.failed.push(done.name);
            }
            continue;
        }
        let mut descend = None;
        for name in batch {
            let Some(top) = frames.last_mut() else { return };
            let st = match fstatat(top.dir.as_fd(), name.as_c_str(), AtFlags::AT_SYMLINK_NOFOLLOW) {
                Ok(st) => st,
                Err(Errno::ENOENT) => continue,
                Err(e) => {
                    note(e);
                    top.failed.push(name);
                    continue;
                }
            };
            if !is_dir(&st) {
                if let Err(e) = unlinkat(top.dir.as_fd(), name.as_c_str(), UnlinkatFlags::NoRemoveDir) {
                    note(e);
                    top.failed.push(name);
                }
                continue;
            }
            match unlinkat(top.dir.as_fd(), name.as_c_str(), UnlinkatFlags::RemoveDir) {
                Ok(()) | Err(Errno::ENOENT) => continue,
                Err(Errno::ENOTEMPTY) | Err(Errno::EEXIST) | Err(Errno::EACCES) | Err(Errno::EPERM) => {}
                Err(e) => {
                    note(e);
                    top.failed.push(name);
                    continue;
                }
            }
            if st.st_mode & 0o700 != 0o700 {
                let _ = open_up(top.dir.as_fd(), &name);
            }
            if depth >= REMOVE_FRAMES {
                // Too deep to hold open: moved up to the top level, where
                // the root's frame finds it again.
                match move_to_root(&frames, &name, &mut moved) {
                    Ok(()) => continue,
                    Err(e) if depth >= REMOVE_FRAMES * 4 => {
                        note(e);
                        if let Some(top) = frames.last_mut() {
                            top.failed.push(name);
                        }
                        continue;
                    }
                    // Not movable (another file system under it): held open.
                    Err(_) => {}
                }
            }
            let Some(top) = frames.last_mut() else { return };
            match open_dir(top.dir.as_fd(), &name) {
                Ok(dir) => {
                    descend = Some(Frame { dir, name, failed: Vec::new() });
                    break;
                }
                Err(Errno::ENOENT) => {}
                Err(e) => {
                    note(e);
                    top.failed.push(name);
                }
            }
        }
        if let Some(frame) = descend {
            frames.push(frame);
        }
    }
}

/// Moves the top frame's subdirectory `name` to the root frame under a
/// fresh name.
fn move_to_root(frames: &[Frame], name: &CStr, moved: &mut u64) -> Result<(), Errno> {
    let (Some(root), Some(top)) = (frames.first(), frames.last()) else { return Err(Errno::EINVAL) };
    loop {
        *moved += 1;
        let fresh = CString::new(format!(".sandmle-flattened-{moved}")).map_err(|_| Errno::EINVAL)?;
        match rename_noreplace(top.dir.as_fd(), name, root.dir.as_fd(), &fresh) {
            Err(Errno::EEXIST) | Err(Errno::ENOTEMPTY) => continue,
            other => return other,
        }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn rename_noreplace(from: BorrowedFd<'_>, name: &CStr, to: BorrowedFd<'_>, fresh: &CStr) -> Result<(), Errno> {
    nix::fcntl::renameat2(from, name, to, fresh, nix::fcntl::RenameFlags::RENAME_NOREPLACE)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn rename_noreplace(from: BorrowedFd<'_>, name: &CStr, to: BorrowedFd<'_>, fresh: &CStr) -> Result<(), Errno> {
    if fstatat(to, fresh, AtFlags::AT_SYMLINK_NOFOLLOW).is_ok() {
        return Err(Errno::EEXIST);
    }
    nix::fcntl::renameat(from, name, to, fresh)
}

/// Calls `visit(parent, name, stat)` for every entry under `dir` (not `dir`
/// itself), parents before their entries, descending at most `max_depth`
/// levels and no link; the visitor returns `false` to stop the walk. For
/// changes relative to the entry's own directory (`fchownat`, say) that
/// must never follow a link.
///
/// # Errors
/// The first error opening or reading a directory; `ELOOP`-free by
/// construction. A directory deeper than `max_depth` is `E2BIG`.
pub fn for_each_entry(
    dir: &Path,
    max_depth: usize,
    mut visit: impl FnMut(BorrowedFd<'_>, &CStr, &FileStat) -> bool,
) -> std::io::Result<()> {
    let root = Dir::open(dir, open_flags(), Mode::empty()).map_err(std::io::Error::from)?;
    let mut frames: Vec<(Dir, Vec<CString>)> = Vec::new();
    let mut next = Some(root);
    while let Some(mut d) = next.take() {
        let mut subdirs = Vec::new();
        let listed = names(&mut d, usize::MAX, &[]).map_err(std::io::Error::from)?;
        for name in listed {
            let st = fstatat(d.as_fd(), name.as_c_str(), AtFlags::AT_SYMLINK_NOFOLLOW).map_err(std::io::Error::from)?;
            if !visit(d.as_fd(), &name, &st) {
                return Ok(());
            }
            if is_dir(&st) {
                subdirs.push(name);
            }
        }
        frames.push((d, subdirs));
        while next.is_none() {
            let depth = frames.len();
            let Some((top, pending)) = frames.last_mut() else { return Ok(()) };
            let Some(name) = pending.pop() else {
                frames.pop();
                continue;
            };
            if depth >= max_depth {
                return Err(std::io::Error::from(Errno::E2BIG));
            }
            next = Some(open_dir(top.as_fd(), &name).map_err(std::io::Error::from)?);
        }
    }
    Ok(())
}
