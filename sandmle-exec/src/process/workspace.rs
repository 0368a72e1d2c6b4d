//! The per-run directory: the workspace the program sees, the `/etc` files
//! written for the sandbox, and the workspace's budget.

use super::Limits;
use super::bwrap::{HOST_UID, SYNTHETIC_ETC};
use super::error::{Error, Result};
use sandmle_core::PublicView;
use sandmle_core::csv::write_csv;
use sandmle_core::scratch::{MarkedDir, UNMARKED_GRACE, reclaim_stale};
use sandmle_core::tree::TreeUsage;
use std::path::{Path, PathBuf};

/// Files the workspace reserves for public data.
pub const PUBLIC_FILES: [&str; 4] = ["description.md", "train.csv", "test.csv", "sample_submission.csv"];

/// The name prefix of a run's directory in the system's temporary folder.
pub(super) const RUN_PREFIX: &str = "sandmle-run-";

/// A run's directory, `sandmle-run-*`: `workspace/` (bound into the
/// sandbox at `/workspace`) and `etc/` (the synthetic `/etc` files). It is
/// a [`MarkedDir`]: removed when the run ends, and reclaimed by a later run
/// if this process is killed first.
pub(super) struct RunDir {
    dir: MarkedDir,
}

impl RunDir {
    /// Reclaims the run directories of dead runs, then creates this run's.
    pub fn create() -> Result<RunDir> {
        let tmp = std::env::temp_dir();
        reclaim_stale(&tmp, RUN_PREFIX, UNMARKED_GRACE);
        let dir = MarkedDir::new_in(&tmp, RUN_PREFIX)?;
        let run = RunDir { dir };
        let (ws, etc) = (run.workspace(), run.path().join("etc"));
        for d in [&ws, &etc] {
            std::fs::create_dir(d).map_err(|e| Error::io(d, e))?;
        }
        for (name, text) in SYNTHETIC_ETC {
            let p = etc.join(name);
            std::fs::write(&p, text).map_err(|e| Error::io(&p, e))?;
        }
        Ok(run)
    }

    /// The run directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The program's workspace.
    pub fn workspace(&self) -> PathBuf {
        self.dir.path().join("workspace")
    }

    /// Hands the workspace to [`HOST_UID`] (for a root caller dropping to
    /// it), leaving the run directory traversable but not listable.
    pub fn hand_over(&self) -> Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let root = self.path();
        std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o711)).map_err(|e| Error::io(root, e))?;
        chown_tree(&self.workspace())
    }
}

/// Gives the workspace and everything in it to [`HOST_UID`], never
/// following a link.
fn chown_tree(path: &Path) -> Result<()> {
    use nix::fcntl::AtFlags;
    use nix::unistd::{Gid, Uid, fchownat};
    let (uid, gid) = (Some(Uid::from_raw(HOST_UID)), Some(Gid::from_raw(HOST_UID)));
    std::os::unix::fs::lchown(path, Some(HOST_UID), Some(HOST_UID)).map_err(|e| Error::io(path, e))?;
    let mut failed = None;
    sandmle_core::tree::for_each_entry(path, COPY_DEPTH, |parent, name, _| {
        let done = fchownat(parent, name, uid, gid, AtFlags::AT_SYMLINK_NOFOLLOW);
        failed = done.err();
        failed.is_none()
    })
    .map_err(|e| Error::io(path, e))?;
    failed.map_or(Ok(()), |e| Err(Error::io(path, std::io::Error::from(e))))
}

/// How deep a code directory copied into the workspace may nest.
const COPY_DEPTH: usize = 64;

/// Copies a directory tree (regular files and directories; links are not
/// followed, so a code directory cannot smuggle in a link to the answers),
/// at most [`COPY_DEPTH`] levels deep, without recursion. At the top level
/// the public file names and `submission.csv` are reserved.
pub(super) fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    let mut stack = vec![(from.to_path_buf(), to.to_path_buf(), 0usize)];
    while let Some((from, to, depth)) = stack.pop() {
        if depth >= COPY_DEPTH {
            return Err(Error::Sandbox {
                reason: format!("the code directory nests deeper than {COPY_DEPTH} levels at {}", from.display()),
            });
        }
        let entries = std::fs::read_dir(&from).map_err(|e| Error::io(&from, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&from, e))?;
            let (src, dst) = (entry.path(), to.join(entry.file_name()));
            let kind = entry.file_type().map_err(|e| Error::io(&src, e))?;
            let name = entry.file_name();
            if depth == 0 && (PUBLIC_FILES.iter().any(|f| name == *f) || name == "submission.csv") {
                return Err(Error::Sandbox {
                    reason: format!("the code directory holds {}, a name the workspace reserves", src.display()),
                });
            }
            if kind.is_dir() {
                std::fs::create_dir(&dst).map_err(|e| Error::io(&dst, e))?;
                stack.push((src, dst, depth + 1));
            } else if kind.is_file() {
                std::fs::copy(&src, &dst).map_err(|e| Error::io(&src, e))?;
            }
        }
    }
    Ok(())
}

pub(super) fn write_public(view: &PublicView<'_>, ws: &Path) -> Result<()> {
    let desc = ws.join("description.md");
    std::fs::write(&desc, view.description).map_err(|e| Error::io(&desc, e))?;
    write_csv(view.train, ws.join("train.csv"))?;
    write_csv(view.test, ws.join("test.csv"))?;
    write_csv(view.sample_submission, ws.join("sample_submission.csv"))?;
    if let Some(spec) = &view.task.images {
        spec.check().map_err(|e| Error::Sandbox { reason: e.to_string() })?;
        let dir = ws.join(&spec.dir);
        std::fs::create_dir(&dir).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => Error::Sandbox {
                reason: format!("the code directory holds `{}`, the name of the task's image folder", spec.dir),
            },
            _ => Error::io(&dir, e),
        })?;
        for (name, bytes) in view.images.iter() {
            let path = dir.join(name);
            std::fs::write(&path, bytes).map_err(|e| Error::io(&path, e))?;
        }
    }
    Ok(())
}

/// What the workspace holds, as far as it was counted.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Usage(TreeUsage);

impl Usage {
    /// The reason the workspace grew past its budget since `base`, if it did.
    pub fn over(&self, base: &Usage, limits: &Limits) -> Option<String> {
        let (now, base) = (&self.0, &base.0);
        let (bytes, entries) = (now.bytes.saturating_sub(base.bytes), now.entries.saturating_sub(base.entries));
        if bytes > limits.workspace_bytes {
            Some(format!(
                "the program wrote more than the workspace budget of {} bytes ({bytes} bytes seen)",
                limits.workspace_bytes
            ))
        } else if entries > limits.workspace_files {
            Some(format!("the program created more than the workspace budget of {} files", limits.workspace_files))
        } else if now.too_deep {
            Some(format!(
                "the program nested directories deeper than the workspace budget of {} levels",
                limits.workspace_depth
            ))
        } else if now.unreadable > base.unreadable {
            Some(
                "the program made a directory of its workspace that cannot be read, so its size cannot be counted"
                    .into(),
            )
        } else {
            None
        }
    }
}

/// Measures the workspace, stopping as soon as it is over budget since
/// `base` (so a directory of millions of files costs no more than the
/// budget to scan). The walk is descriptor-relative and iterative
/// ([`sandmle_core::tree::measure`]): no nesting depth overflows it and no
/// path length hides a file from it; nesting past the depth budget is
/// itself over budget.
pub(super) fn usage(dir: &Path, base: &Usage, limits: &Limits) -> Usage {
    let max_depth = limits.workspace_depth.max(base.0.depth);
    Usage(sandmle_core::tree::measure(dir, max_depth, |u| Usage(*u).over(base, limits).is_some()))
}

/// `true` if some file in the workspace stopped at the file-size limit
/// (looking at no more than `max_entries` entries).
pub(super) fn reached_size_limit(dir: &Path, limit: u64, max_entries: u64, max_depth: usize) -> bool {
    let (mut seen, mut reached) = (0u64, false);
    let _ = sandmle_core::tree::for_each_entry(dir, max_depth, |_, _, st| {
        seen += 1;
        use nix::sys::stat::SFlag;
        let regular = SFlag::from_bits_truncate(st.st_mode & SFlag::S_IFMT.bits()) == SFlag::S_IFREG;
        reached = regular && u64::try_from(st.st_size).is_ok_and(|size| size >= limit);
        !reached && seen <= max_entries
    });
    reached
}
