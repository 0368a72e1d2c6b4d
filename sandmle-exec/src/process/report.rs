//! The `isolation` report of an execution: what the program was isolated
//! from, what was not enforced, the Python environment it saw and how the
//! step started.

use super::Limits;
use super::bwrap::Plan;
use super::python::PythonEnv;

/// Printed on standard error by every unsandboxed run.
pub(super) const UNSANDBOXED_WARNING: &str = "sandmle: warning: running the program WITHOUT a sandbox (unsandboxed \
mode): it runs as this user and can read this user's files, the answers included, and use the network";

/// The report of a run in the sandbox of `plan` (`None`: unsandboxed) with
/// `python`, whose start is described by `start` (`a fresh interpreter per
/// run`, the warm interpreter, a fallback and its reason).
pub(super) fn isolation_report(plan: Option<&Plan>, limits: &Limits, python: &PythonEnv, start: &str) -> String {
    let common = format!(
        "wall-clock limit over the process group; per-process address space {} bytes and file size {} bytes; \
         workspace budget {} bytes / {} files (checked every ~50 ms)",
        limits.address_space, limits.file_size, limits.workspace_bytes, limits.workspace_files
    );
    let python = format!("{}; code steps: {start}", python.describe());
    match plan {
        Some(plan) => format!(
            "bubblewrap: no network; new user, PID, IPC, UTS and mount namespaces; only public files in the \
             workspace (the environment's private files are unreachable); minimal read-only /etc and /dev; \
             /tmp {} bytes and /dev/shm {} bytes (tmpfs); only descriptors 0-2; {common}; {}; not enforced: \
             the total memory of several processes together (no cgroups); {python}",
            limits.tmp_bytes,
            limits.shm_bytes,
            if plan.counts_processes() {
                format!("at most {} processes", limits.processes)
            } else {
                format!(
                    "not enforced: the process count (running as root: dropping to nobody failed{})",
                    plan.no_drop.as_deref().map(|why| format!(": {why}")).unwrap_or_default()
                )
            }
        ),
        None => format!(
            "none (unsandboxed, explicitly requested): the program runs as this user with this user's file and \
             network access, so it could read answers stored elsewhere on this machine; only descriptors 0-2, \
             the fresh working directory and these limits apply: {common}; not enforced: process count, total \
             memory, and a child that starts its own session escapes the wall-clock kill; {python}"
        ),
    }
}
