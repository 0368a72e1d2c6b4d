//! The agent's Python environment in the sandbox: which interpreter code
//! steps run, and exactly which of its files are bound (read-only) so that
//! it starts and finds its packages.
//!
//! The chosen interpreter is asked once, on the host and in isolated mode
//! (`-I`: no `PYTHONPATH`, no user site), where it lives: its executable,
//! prefix and base prefix, `sys.path`, the directory of its shared
//! libraries. The sandbox then gets, at the same paths: the interpreter
//! executable (under the names `python`, `python3` and `pythonX.Y` that
//! resolve to it), the `pyvenv.cfg` of a virtual environment, every
//! `sys.path` entry (standard library, `lib-dynload`, the environment's
//! `site-packages`), and the shared-library files of `LIBDIR` (`libpython`,
//! a conda environment's `libssl`, ...). Nothing else of the prefix: a
//! base installation's `site-packages` that the environment does not use
//! is hidden under an empty read-only mount. Paths under `/usr` and the
//! `/bin`, `/lib*` directories are in the sandbox anyway; a path that would
//! expose too much (`/`, `/home`, anything of `/etc`, `/proc`, `/dev`) is
//! refused with [`Error::Python`].

use super::bwrap::{SAFE_PATH, find_program};
use super::error::{Error, Result};
use super::wait::{Waited, tail_reader, wait_with_deadline};
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The packages a warm interpreter imports ahead of time by default, those
/// of them that are installed (with their submodules of
/// [`PRELOAD_SUBMODULES`]).
pub const DEFAULT_PRELOAD: [&str; 4] = ["numpy", "pandas", "sklearn", "scipy"];

/// The submodules of [`DEFAULT_PRELOAD`]'s packages imported with them:
/// importing `sklearn` alone loads none of its estimators, and a program's
/// `from sklearn.linear_model import ...` would cost ~70 ms per step.
pub const PRELOAD_SUBMODULES: [(&str, &[&str]); 2] = [
    (
        "sklearn",
        &[
            "linear_model",
            "ensemble",
            "tree",
            "preprocessing",
            "pipeline",
            "compose",
            "impute",
            "model_selection",
            "metrics",
            "neighbors",
            "svm",
            "feature_extraction.text",
        ],
    ),
    ("scipy", &["sparse", "stats"]),
];

/// Which Python environment programs see in the sandbox.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PythonChoice {
    /// The environment that `python3` on the caller's `PATH` belongs to (a
    /// pyenv shim, a virtualenv's or conda's `bin/` first on `PATH`, or the
    /// system's); the system's `python3` if there is none.
    #[default]
    CallerPath,
    /// An interpreter (`/opt/venv/bin/python`) or the prefix of a
    /// virtualenv or conda environment (`/opt/venv`, whose `bin/python3`
    /// is used).
    Interpreter(PathBuf),
    /// The system's `python3` (`/usr/local/bin`, `/usr/bin`, `/bin`).
    System,
}

/// How a persistent workspace runs a Python code step (`python3 FILE.py`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CodeSteps {
    /// On the workspace's warm interpreter: one Python process started in
    /// the sandbox when the workspace opens, with the preload modules
    /// imported, which forks a fresh child per step. A step falls back to
    /// a cold start when the warm interpreter cannot start or has died.
    #[default]
    Warm,
    /// A fresh interpreter in a fresh sandbox for every step.
    Cold,
}

/// The Python settings of the process executor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonSettings {
    /// The environment exposed in the sandbox.
    pub choice: PythonChoice,
    /// Warm or cold code steps in persistent workspaces.
    pub code_steps: CodeSteps,
    /// Modules the warm interpreter imports before the first step; `None`
    /// for [`PythonEnv::default_preload`] (those of [`DEFAULT_PRELOAD`]
    /// that are installed, with their [`PRELOAD_SUBMODULES`]).
    pub preload: Option<Vec<String>>,
    /// How long the warm interpreter may take to start (its imports
    /// included) before steps fall back to cold starts (60 s). Not counted
    /// against any step's limit.
    pub warm_start_timeout: Duration,
}

impl Default for PythonSettings {
    fn default() -> Self {
        PythonSettings {
            choice: PythonChoice::CallerPath,
            code_steps: CodeSteps::Warm,
            preload: None,
            warm_start_timeout: Duration::from_secs(60),
        }
    }
}

/// A path bound read-only into the sandbox, or hidden there.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mount {
    /// `src` (a resolved host path) bound read-only at `dest`.
    Bind { src: PathBuf, dest: PathBuf },
    /// An empty read-only directory over `dest`.
    Mask(PathBuf),
}

/// A resolved Python environment: the interpreter programs run in the
/// sandbox and the paths bound for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonEnv {
    interpreter: PathBuf,
    prefix: PathBuf,
    base_prefix: PathBuf,
    version: String,
    installed: Vec<String>,
    mounts: Vec<Mount>,
    note: Option<String>,
}

/// What the interpreter says about itself (`python_probe.py`).
#[derive(Debug, serde::Deserialize)]
struct Probe {
    executable: PathBuf,
    prefix: PathBuf,
    base_prefix: PathBuf,
    version: String,
    path: Vec<PathBuf>,
    libdir: PathBuf,
    installed: Vec<String>,
}

const PROBE: &str = include_str!("python_probe.py");

/// Directories the sandbox holds anyway (read-only).
const SYSTEM_ROOTS: [&str; 7] = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// Places no Python path may be bound over.
const FORBIDDEN: [&str; 7] = ["/proc", "/dev", "/sys", "/workspace", "/etc", "/run", "/var"];

impl PythonEnv {
    /// Resolves `choice`: runs the interpreter once on the host to learn
    /// its layout and plans what the sandbox binds.
    ///
    /// # Errors
    /// [`Error::Python`] when an explicitly chosen interpreter or prefix
    /// cannot be found, does not run, or would expose too much. For
    /// [`PythonChoice::CallerPath`] and [`PythonChoice::System`] a missing
    /// interpreter is no error: the environment is then the bare `python3`
    /// name, and [`PythonEnv::describe`] says so.
    pub fn resolve(choice: &PythonChoice) -> Result<PythonEnv> {
        match choice {
            PythonChoice::Interpreter(path) => {
                let interp = interpreter_of(path)
                    .ok_or_else(|| python_error(path, "no python3 or python there, and it is no interpreter"))?;
                let probe = probe(&interp).map_err(|reason| python_error(path, &reason))?;
                PythonEnv::plan(probe, None).map_err(|reason| python_error(path, &reason))
            }
            PythonChoice::CallerPath => match find_program("python3") {
                Some(interp) => match probe(&interp).and_then(|p| PythonEnv::plan(p, None)) {
                    Ok(env) => Ok(env),
                    Err(reason) => Ok(PythonEnv::system(Some(format!("{}: {reason}", interp.display())))),
                },
                None => Ok(PythonEnv::system(Some("no python3 on PATH".into()))),
            },
            PythonChoice::System => Ok(PythonEnv::system(None)),
        }
    }

    fn system(note: Option<String>) -> PythonEnv {
        let found = std::env::split_paths(SAFE_PATH).map(|d| d.join("python3")).find(|p| p.is_file());
        let resolved = found.as_deref().map(|p| probe(p).and_then(|probe| PythonEnv::plan(probe, note.clone())));
        match resolved {
            Some(Ok(env)) => env,
            Some(Err(reason)) => PythonEnv::bare(Some(reason), note),
            None => PythonEnv::bare(Some("no system python3".into()), note),
        }
    }

    /// No interpreter: the bare `python3` name, nothing bound.
    pub(super) fn bare(reason: Option<String>, note: Option<String>) -> PythonEnv {
        let note = [note, reason].into_iter().flatten().collect::<Vec<_>>().join("; ");
        let note = (!note.is_empty()).then_some(note);
        PythonEnv {
            interpreter: PathBuf::from("python3"),
            prefix: PathBuf::new(),
            base_prefix: PathBuf::new(),
            version: String::new(),
            installed: Vec::new(),
            mounts: Vec::new(),
            note,
        }
    }

    fn plan(probe: Probe, note: Option<String>) -> std::result::Result<PythonEnv, String> {
        let exe = probe.executable.clone();
        if !exe.is_absolute() {
            return Err(format!("the interpreter names no absolute executable ({})", exe.display()));
        }
        let real = std::fs::canonicalize(&exe).map_err(|e| format!("{}: {e}", exe.display()))?;
        let mut dests: Vec<PathBuf> = Vec::new();
        if let Some(dir) = exe.parent() {
            let short: String = probe.version.split('.').take(2).collect::<Vec<_>>().join(".");
            for name in ["python".to_owned(), "python3".to_owned(), format!("python{short}")] {
                let sibling = dir.join(name);
                if std::fs::canonicalize(&sibling).is_ok_and(|r| r == real) {
                    dests.push(sibling);
                }
            }
            dests.push(exe.clone());
            dests.extend([dir.join("pyvenv.cfg"), dir.join("../pyvenv.cfg")].iter().filter_map(|p| lexical(p)));
        }
        dests.extend(probe.path.iter().cloned());
        if probe.libdir.is_absolute() {
            let mut libs: Vec<PathBuf> = std::fs::read_dir(&probe.libdir)
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().contains(".so"))
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .take(5000)
                .collect();
            libs.sort();
            dests.extend(libs);
        }
        dests.sort();
        dests.dedup();
        let mut mounts = Vec::new();
        let mut dirs: Vec<PathBuf> = Vec::new();
        for dest in dests {
            if let Some(mount) = bind_for(&dest, &dirs)? {
                if let Mount::Bind { src, dest } = &mount
                    && src.is_dir()
                {
                    dirs.push(dest.clone());
                }
                mounts.push(mount);
            }
        }
        // A base installation's site-packages inside a bound standard
        // library, which this environment does not use, stays hidden.
        let mut masks = Vec::new();
        for dir in &dirs {
            for sub in ["site-packages", "dist-packages"] {
                let m = dir.join(sub);
                if m.is_dir() && !probe.path.iter().any(|p| p.starts_with(&m)) {
                    masks.push(Mount::Mask(m));
                }
            }
        }
        mounts.extend(masks);
        let installed = probe.installed.into_iter().filter(|m| DEFAULT_PRELOAD.contains(&m.as_str())).collect();
        Ok(PythonEnv {
            interpreter: exe,
            prefix: probe.prefix,
            base_prefix: probe.base_prefix,
            version: probe.version,
            installed,
            mounts,
            note,
        })
    }

    /// The interpreter programs run in the sandbox (the first `python3` on
    /// its `PATH`), at the same path as on the host; a bare `python3` when
    /// no interpreter was found.
    pub fn interpreter(&self) -> &Path {
        &self.interpreter
    }

    /// `sys.prefix` (the virtualenv or conda environment); empty when no
    /// interpreter was found.
    pub fn prefix(&self) -> &Path {
        &self.prefix
    }

    /// `sys.base_prefix` (the installation a virtualenv was made from).
    pub fn base_prefix(&self) -> &Path {
        &self.base_prefix
    }

    /// The Python version (`3.11.7`); empty when no interpreter was found.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Which of [`DEFAULT_PRELOAD`] the environment has installed.
    pub fn installed(&self) -> &[String] {
        &self.installed
    }

    /// The default preload list: the installed packages of
    /// [`DEFAULT_PRELOAD`], each followed by its [`PRELOAD_SUBMODULES`].
    pub fn default_preload(&self) -> Vec<String> {
        let mut list = Vec::new();
        for package in &self.installed {
            list.push(package.clone());
            for (p, subs) in PRELOAD_SUBMODULES {
                if p == package {
                    list.extend(subs.iter().map(|s| format!("{p}.{s}")));
                }
            }
        }
        list
    }

    /// The paths bound read-only into the sandbox for it (outside `/usr`
    /// and the other system directories, which the sandbox holds anyway).
    pub fn exposed(&self) -> Vec<&Path> {
        self.mounts
            .iter()
            .filter_map(|m| match m {
                Mount::Bind { dest, .. } => Some(dest.as_path()),
                Mount::Mask(_) => None,
            })
            .collect()
    }

    /// Whether a command's program `name` runs this interpreter in the
    /// sandbox: its own path, or `python3` when that is the name it is
    /// found under first on the sandbox's `PATH`.
    pub fn runs_as(&self, name: &str) -> bool {
        if self.version.is_empty() {
            return false;
        }
        if Path::new(name) == self.interpreter {
            return true;
        }
        name == "python3"
            && (self.interpreter.file_name().is_some_and(|f| f == "python3")
                || self.interpreter.parent().is_some_and(|d| self.exposed().contains(&d.join("python3").as_path())))
    }

    /// One line for isolation reports: the interpreter, its environment
    /// and how much of it is bound.
    pub fn describe(&self) -> String {
        let mut s = if self.version.is_empty() {
            "python: none found (programs see only what /usr holds)".to_owned()
        } else {
            let kind = if self.prefix != self.base_prefix {
                format!("virtualenv {} over {}", self.prefix.display(), self.base_prefix.display())
            } else if self.prefix.join("conda-meta").is_dir() {
                format!("conda environment {}", self.prefix.display())
            } else {
                format!("prefix {}", self.prefix.display())
            };
            format!(
                "python {} ({kind}) at {}, {} paths outside /usr bound read-only",
                self.version,
                self.interpreter.display(),
                self.exposed().len()
            )
        };
        if let Some(note) = &self.note {
            s.push_str(&format!(" [{note}]"));
        }
        s
    }

    /// bubblewrap's arguments that bind the environment.
    pub(super) fn bwrap_args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = Vec::new();
        for m in &self.mounts {
            match m {
                Mount::Bind { src, dest } => args.extend(["--ro-bind".into(), src.into(), dest.into()]),
                Mount::Mask(dest) => {
                    args.extend(["--tmpfs".into(), dest.into(), "--remount-ro".into(), dest.into()]);
                }
            }
        }
        args
    }

    /// The `PATH` of programs: the interpreter's directory, then the
    /// system's.
    pub(super) fn path_var(&self) -> String {
        match self.interpreter.parent() {
            Some(dir) if self.interpreter.is_absolute() && !std::env::split_paths(SAFE_PATH).any(|d| d == dir) => {
                format!("{}:{SAFE_PATH}", dir.display())
            }
            _ => SAFE_PATH.to_owned(),
        }
    }
}

fn python_error(path: &Path, reason: &str) -> Error {
    Error::Python { interpreter: path.to_path_buf(), reason: sandmle_core::bounded(reason) }
}

/// The interpreter of `path`: itself if it is a file, else the prefix's
/// `bin/python3` or `bin/python`.
fn interpreter_of(path: &Path) -> Option<PathBuf> {
    if path.is_file() {
        return Some(path.to_path_buf());
    }
    ["bin/python3", "bin/python"].iter().map(|b| path.join(b)).find(|p| p.is_file())
}

/// `p` with `..` resolved lexically (`bin/../pyvenv.cfg`), if absolute.
fn lexical(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out.is_absolute().then_some(out)
}

fn under_any(p: &Path, roots: &[&str]) -> bool {
    roots.iter().any(|r| p.starts_with(r))
}

/// The mount that makes `dest` what it is on the host, `None` when the
/// sandbox has it already (a system directory, a bound parent) or it does
/// not exist.
fn bind_for(dest: &Path, dirs: &[PathBuf]) -> std::result::Result<Option<Mount>, String> {
    if !dest.is_absolute() || dest.components().any(|c| matches!(c, Component::ParentDir | Component::CurDir)) {
        return Err(format!("{} is not a plain absolute path", dest.display()));
    }
    let Ok(src) = std::fs::canonicalize(dest) else { return Ok(None) };
    if (under_any(dest, &SYSTEM_ROOTS) && under_any(&src, &SYSTEM_ROOTS)) || dirs.iter().any(|d| dest.starts_with(d)) {
        return Ok(None);
    }
    for p in [dest, src.as_path()] {
        if p.components().count() < 3 || under_any(p, &FORBIDDEN) || p == Path::new("/tmp") {
            return Err(format!("refusing to expose {} in the sandbox (too broad or a system place)", p.display()));
        }
    }
    Ok(Some(Mount::Bind { src, dest: dest.to_path_buf() }))
}

/// Asks the interpreter where it lives, with a 30-second limit.
fn probe(interp: &Path) -> std::result::Result<Probe, String> {
    use std::os::unix::process::CommandExt;
    let candidates = serde_json::to_string(&DEFAULT_PRELOAD).map_err(|e| e.to_string())?;
    let mut child = Command::new(interp)
        .args(["-I", "-c", PROBE, &candidates])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot be started: {e}"))?;
    let out = tail_reader(child.stdout.take(), 1 << 20);
    let err = tail_reader(child.stderr.take(), 1 << 10);
    let deadline = Instant::now() + Duration::from_secs(30);
    let waited = wait_with_deadline(&mut child, deadline, Duration::from_secs(3600), || None);
    let (out, err) = (out.finish(), err.finish());
    match waited {
        Ok(Waited::Exited(s)) if s.success() => {
            serde_json::from_str(out.trim()).map_err(|e| format!("unexpected answer ({e}): {}", out.trim()))
        }
        Ok(Waited::Exited(s)) => Err(format!("exited with {s}: {}", err.trim())),
        Ok(_) => Err("did not answer within 30 s".into()),
        Err(e) => Err(e.to_string()),
    }
}
