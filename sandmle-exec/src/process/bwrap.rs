//! The bubblewrap command line: what the sandbox holds, and the probe that
//! checks it can be created here before a program is trusted to it.

use super::Limits;
use super::error::{Error, Result};
use super::python::PythonEnv;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The `PATH` a program sees.
pub(super) const SAFE_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The user and group the program runs as inside the sandbox.
pub(super) const SANDBOX_UID: u32 = 1000;

/// The host user a root caller drops to before creating the sandbox
/// (`nobody`), so that the process-count limit applies (the kernel does
/// not count processes of the host's root) and the program is no one on
/// the host even if it escaped the namespaces.
pub(super) const HOST_UID: u32 = 65534;

/// Entries of the host's `/etc` an interpreter needs, bound read-only when
/// present; everything else of `/etc` (`shadow`, `hostname`,
/// `machine-id`, ...) is absent inside. Entries starting with `python`
/// (Debian's `sitecustomize` links) are added at run time.
const ETC_ENTRIES: &[&str] = &[
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "localtime",
    "timezone",
    "nsswitch.conf",
    "mime.types",
    "fonts",
];

/// The files of `/etc` written for the sandbox: its own user, group, host
/// name and hosts, naming nothing of this machine.
pub(super) const SYNTHETIC_ETC: &[(&str, &str)] = &[
    (
        "passwd",
        "root:x:0:0:root:/nonexistent:/usr/sbin/nologin\nsandbox:x:1000:1000:sandbox:/workspace:/bin/sh\n\
         nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
    ),
    ("group", "root:x:0:\nsandbox:x:1000:\nnogroup:x:65534:\n"),
    ("hostname", "sandbox\n"),
    ("hosts", "127.0.0.1 localhost sandbox\n::1 localhost\n"),
];

/// How the sandbox is created on this machine.
#[derive(Debug, Clone)]
pub(super) struct Plan {
    /// The bubblewrap executable.
    pub bwrap: PathBuf,
    /// `setpriv`, when a root caller drops to [`HOST_UID`] first.
    pub setpriv: Option<PathBuf>,
    /// Why a root caller could not drop to [`HOST_UID`] (bubblewrap's
    /// message: a bound path `nobody` cannot read, say).
    pub no_drop: Option<String>,
}

impl Plan {
    /// Whether the process-count limit holds (it does not for processes of
    /// the host's root).
    pub fn counts_processes(&self) -> bool {
        self.setpriv.is_some() || !nix::unistd::geteuid().is_root()
    }
}

/// The first executable called `name` on the caller's `PATH`, then on
/// [`SAFE_PATH`].
pub(super) fn find_program(name: &str) -> Option<PathBuf> {
    let caller = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&caller)
        .chain(std::env::split_paths(SAFE_PATH))
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// What a sandbox holds beyond the fixed part: the Python environment's
/// read-only binds, and whether it hosts a warm interpreter (which runs as
/// the sandbox's PID 1 and gets an `mqueue` mount to empty between steps).
#[derive(Debug, Clone, Copy)]
pub(super) struct Shape<'a> {
    /// The Python environment bound in.
    pub python: &'a PythonEnv,
    /// A warm interpreter's sandbox.
    pub warm: bool,
}

/// The whole command up to the program: `[setpriv ...] bwrap ... --`.
pub(super) fn command_prefix(plan: &Plan, scratch: &Path, limits: &Limits, shape: &Shape<'_>) -> Vec<OsString> {
    let mut argv: Vec<OsString> = Vec::new();
    if let Some(setpriv) = &plan.setpriv {
        argv.push(setpriv.into());
        argv.extend(
            [format!("--reuid={HOST_UID}"), format!("--regid={HOST_UID}"), "--clear-groups".into(), "--".into()]
                .map(OsString::from),
        );
    }
    argv.push(plan.bwrap.clone().into());
    let mut push = |args: &[&str]| argv.extend(args.iter().map(OsString::from));
    push(&["--unshare-all", "--die-with-parent", "--new-session", "--hostname", "sandbox"]);
    push(&["--uid", &SANDBOX_UID.to_string(), "--gid", &SANDBOX_UID.to_string()]);
    if shape.warm {
        push(&["--as-pid-1"]);
    }
    push(&["--ro-bind", "/usr", "/usr"]);
    for dir in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] {
        match std::fs::read_link(dir) {
            // A merged-/usr link such as /bin -> usr/bin stays a link.
            Ok(target) => push(&["--symlink", &target.to_string_lossy(), dir]),
            Err(_) if Path::new(dir).is_dir() => push(&["--ro-bind", dir, dir]),
            Err(_) => {}
        }
    }
    let mut etc: Vec<String> = ETC_ENTRIES.iter().map(|e| (*e).to_owned()).collect();
    if let Ok(entries) = std::fs::read_dir("/etc") {
        let mut python: Vec<String> = entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.starts_with("python"))
            .collect();
        python.sort();
        etc.extend(python);
    }
    for entry in &etc {
        let host = format!("/etc/{entry}");
        push(&["--ro-bind-try", &host, &host]);
    }
    for (name, _) in SYNTHETIC_ETC {
        let host = scratch.join("etc").join(name);
        push(&["--ro-bind", &host.to_string_lossy(), &format!("/etc/{name}")]);
    }
    push(&["--proc", "/proc", "--dev", "/dev"]);
    push(&["--size", &limits.shm_bytes.to_string(), "--tmpfs", "/dev/shm"]);
    if shape.warm {
        push(&["--mqueue", "/dev/mqueue"]);
    }
    push(&["--size", &limits.tmp_bytes.to_string(), "--tmpfs", "/tmp"]);
    push(&["--bind", &scratch.join("workspace").to_string_lossy(), "/workspace"]);
    // After the tmpfs mounts: an environment under /tmp is bound over it.
    argv.extend(shape.python.bwrap_args());
    let mut push = |args: &[&str]| argv.extend(args.iter().map(OsString::from));
    // The root and /dev are tmpfs mounts without a size cap: read-only,
    // nothing can be stored there.
    push(&["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/workspace", "--"]);
    argv
}

/// Finds bubblewrap and checks that it creates this very sandbox (the
/// kernel may refuse user namespaces, a wrapper may be broken): `true` is
/// run in it. A root caller first tries dropping to [`HOST_UID`] and falls
/// back to running as root in the namespace if that fails.
///
/// # Errors
/// [`Error::SandboxUnavailable`] with bubblewrap's own message.
pub(super) fn probe(bwrap: Option<&Path>, scratch: &Path, limits: &Limits, shape: &Shape<'_>) -> Result<Plan> {
    let bwrap = match bwrap {
        Some(p) => p.to_path_buf(),
        None => find_program("bwrap").ok_or_else(|| Error::SandboxUnavailable {
            reason: "bubblewrap (`bwrap`) is not installed or not on PATH".into(),
        })?,
    };
    let mut plans = Vec::new();
    if nix::unistd::geteuid().is_root()
        && let Some(setpriv) = find_program("setpriv")
    {
        plans.push(Plan { bwrap: bwrap.clone(), setpriv: Some(setpriv), no_drop: None });
    }
    plans.push(Plan { bwrap: bwrap.clone(), setpriv: None, no_drop: None });
    let mut last = String::new();
    for mut plan in plans {
        if !last.is_empty() {
            plan.no_drop = Some(last.clone());
        }
        let mut argv = command_prefix(&plan, scratch, limits, shape);
        argv.push("true".into());
        let out = Command::new(&argv[0])
            .args(&argv[1..])
            .env_clear()
            .env("PATH", SAFE_PATH)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output();
        match out {
            Ok(o) if o.status.success() => return Ok(plan),
            Ok(o) => {
                let msg = String::from_utf8_lossy(&o.stderr);
                let msg: String = msg.trim().chars().take(300).collect();
                last = format!("{} exited with {}: {msg}", plan.bwrap.display(), o.status);
            }
            Err(e) => last = format!("{} cannot be started: {e}", plan.bwrap.display()),
        }
    }
    Err(Error::SandboxUnavailable { reason: last })
}
