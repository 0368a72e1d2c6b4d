//! The walks over trees agents' programs write: each test is named for a
//! tree that used to crash, blind or stall the old path-based, recursive
//! walks (`std::fs::remove_dir_all`, `read_dir` on joined paths).
#![cfg(unix)]

use nix::fcntl::{OFlag, openat};
use nix::sys::stat::{Mode, mkdirat};
use sandmle_core::scratch::{MarkedDir, UNMARKED_GRACE, reclaim_stale};
use sandmle_core::tree::{measure, remove_tree};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Makes a chain of `depth` directories named `name` under `root`, each
/// made relative to its parent (the chain's path may be far past
/// PATH_MAX); returns the deepest directory, open.
fn chain(root: &Path, depth: usize, name: &str) -> OwnedFd {
    let mut fd = nix::fcntl::open(root, OFlag::O_RDONLY | OFlag::O_DIRECTORY, Mode::empty()).unwrap();
    for _ in 0..depth {
        mkdirat(fd.as_fd(), name, Mode::S_IRWXU).unwrap();
        fd = openat(fd.as_fd(), name, OFlag::O_RDONLY | OFlag::O_DIRECTORY, Mode::empty()).unwrap();
    }
    fd
}

/// Runs `f` on a thread with a 64 KiB stack: a walk that recursed once per
/// level would overflow it on any of these trees.
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(64 << 10).spawn(f).unwrap().join().unwrap()
}

fn write_at(dir: &OwnedFd, name: &str, bytes: &[u8]) {
    let fd = openat(dir.as_fd(), name, OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL, Mode::S_IRUSR | Mode::S_IWUSR)
        .unwrap();
    let mut file = std::fs::File::from(fd);
    std::io::Write::write_all(&mut file, bytes).unwrap();
}

/// A program's 30,000-deep directory chain overflowed a 2 MiB thread's
/// stack when its workspace was removed, aborting the whole server.
#[test]
fn a_30000_deep_chain_is_removed_on_a_small_stack() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    let bottom = chain(&root, 30_000, "d");
    write_at(&bottom, "leaf.txt", b"x");
    drop(bottom);
    let r = root.clone();
    small_stack(move || remove_tree(&r)).unwrap();
    assert!(!root.exists());
}

/// Files under a directory path longer than PATH_MAX were skipped by the
/// budget's walk (`read_dir` on the joined path failed with ENAMETOOLONG):
/// 1.5 GiB went past a 1 GiB budget.
#[test]
fn files_past_path_max_are_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let name = "n".repeat(200);
    // 30 levels of 201 bytes: a path of over 6,000 bytes.
    let bottom = chain(tmp.path(), 30, &name);
    write_at(&bottom, "big.bin", &vec![7u8; 1 << 20]);
    drop(bottom);
    let u = measure(tmp.path(), 64, |_| false);
    assert_eq!(u.entries, 31, "30 directories and the file");
    assert!(u.bytes >= 1 << 20, "the megabyte at the bottom is counted: {u:?}");
    assert_eq!(u.depth, 31);
    assert!(!u.too_deep && u.unreadable == 0);
    remove_tree(tmp.path()).unwrap();
}

#[test]
fn nesting_past_the_depth_budget_is_reported_not_walked() {
    let tmp = tempfile::tempdir().unwrap();
    drop(chain(tmp.path(), 100, "d"));
    let u = small_stack({
        let p = tmp.path().to_path_buf();
        move || measure(&p, 64, |_| false)
    });
    assert!(u.too_deep, "{u:?}");
    assert_eq!(u.depth, 64);
    // The walk can stop as soon as its caller has seen enough.
    let early = measure(tmp.path(), 64, |u| u.entries >= 10);
    assert_eq!(early.entries, 10);
}

/// A directory its owner made unreadable and unwritable (`chmod 000`)
/// hid its content from the budget and stopped its removal.
#[test]
fn chmod_000_directories_are_measured_and_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    let locked = root.join("locked");
    std::fs::create_dir_all(locked.join("inner")).unwrap();
    std::fs::write(locked.join("inner/data.bin"), vec![1u8; 64 << 10]).unwrap();
    for d in [locked.join("inner"), locked.clone()] {
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    let u = measure(&root, 64, |_| false);
    assert_eq!(u.entries, 3, "{u:?}");
    assert!(u.bytes >= 64 << 10, "{u:?}");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    remove_tree(&root).unwrap();
    assert!(!root.exists());
}

/// Links are never followed: a loop does not spin the walks, and a link
/// out of the tree removes only the link.
#[test]
fn links_are_never_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(root.join("a")).unwrap();
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "answers").unwrap();
    std::os::unix::fs::symlink(&root, root.join("a/loop")).unwrap();
    std::os::unix::fs::symlink("..", root.join("a/up")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
    std::os::unix::fs::symlink(outside.join("keep.txt"), root.join("keep-link")).unwrap();
    let u = measure(&root, 64, |_| false);
    assert_eq!(u.entries, 5, "a, a/loop, a/up, out, keep-link: {u:?}");
    remove_tree(&root).unwrap();
    assert!(!root.exists());
    assert_eq!(std::fs::read_to_string(outside.join("keep.txt")).unwrap(), "answers");
}

#[test]
fn a_file_is_unlinked_and_a_missing_path_is_no_error() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("f");
    std::fs::write(&f, "x").unwrap();
    remove_tree(&f).unwrap();
    assert!(!f.exists());
    remove_tree(&tmp.path().join("missing")).unwrap();
}

/// A killed server's leftover workspace holding a deep chain aborted every
/// restart: the reclaimer removed it with the same recursive walk.
#[test]
fn a_dead_owners_deep_leftover_is_reclaimed_on_a_small_stack() {
    let tmp = tempfile::tempdir().unwrap();
    let dead = tmp.path().join("sandmle-run-dead");
    std::fs::create_dir(&dead).unwrap();
    std::fs::write(dead.join(sandmle_core::scratch::MARKER), "").unwrap();
    drop(chain(&dead, 20_000, "d"));
    let live = MarkedDir::new_in(tmp.path(), "sandmle-run-").unwrap();
    let p = tmp.path().to_path_buf();
    let removed = small_stack(move || reclaim_stale(&p, "sandmle-run-", UNMARKED_GRACE));
    assert_eq!(removed, 1);
    assert!(!dead.exists() && live.path().is_dir());
    // A live directory with a deep chain is removed when dropped.
    drop(chain(live.path(), 20_000, "d"));
    let path = live.path().to_path_buf();
    small_stack(move || drop(live));
    assert!(!path.exists());
}
