//! `export`: kept environments in the layouts other programs read.
//!
//! - `--format sandmle-release` ([`release`]): SandMLE's released RL code.
//! - `--format mlebench` ([`mlebench`]): MLE-bench competitions, graded by
//!   MLE-bench's own `grade-sample` and `grade`.
//! - `--format harbor` ([`harbor`]): Harbor tasks (`harbor lint` passes,
//!   its `Task` loader reads them).
//! - `--format openenv` ([`openenv`]): an OpenEnv package of every
//!   environment and the server (`openenv validate` passes with `--lock`).
//!
//! Every environment is checked first (hashes, the grader accepts the
//! task, thresholds set). The export is written into a hidden sibling of
//! `--out` and renamed into place when complete, so a failed export leaves
//! nothing behind and never touches files it did not write; `--out` must
//! be new or an empty folder.

mod harbor;
mod mlebench;
mod openenv;
mod release;

use crate::Globals;
use crate::output::{Failure, Kind, print_json, say};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct ExportArgs {
    /// The layout to write: `sandmle-release`, `mlebench`, `harbor` or
    /// `openenv`.
    #[arg(long, default_value = "sandmle-release")]
    format: String,
    /// A folder of environment directories.
    #[arg(long, conflicts_with = "index")]
    envs: Option<PathBuf>,
    /// A manifest of environments (JSON lines with a `path` field).
    #[arg(long)]
    index: Option<PathBuf>,
    /// The folder to write (new, or empty).
    #[arg(long)]
    out: PathBuf,
    /// The `sandmle` binary the release's evaluators call, or Harbor's
    /// tests and the OpenEnv package ship (default: this one).
    #[arg(long = "sandmle-bin")]
    sandmle_bin: Option<PathBuf>,
    /// `--format openenv`: run `uv lock` in the package (OpenEnv's
    /// `validate` requires a `uv.lock`; needs `uv` and the package index).
    #[arg(long)]
    lock: bool,
}

/// Refuses an environment that cannot grade: every hash checked, the
/// grader accepts the task, thresholds set.
pub fn check_gradable(dir: &Path) -> Result<(), Failure> {
    use sandmle_core::Grader;
    let broken = |e: sandmle_core::Error| Failure::broken(format!("{}: {e}", dir.display()));
    let bundle = sandmle_core::GradingBundle::read(dir).map_err(broken)?;
    sandmle_metrics::StandardGrader.check(&bundle.grading_task()).map_err(broken)?;
    bundle.spec.require_thresholds().map_err(broken)?;
    Ok(())
}

/// The binary to ship or call: `given`, else this one (resolved).
fn binary(given: Option<&Path>) -> Result<PathBuf, Failure> {
    let bin = match given {
        Some(b) => b.to_path_buf(),
        None => std::env::current_exe().map_err(|e| Failure::new(Kind::System, format!("this binary's path: {e}")))?,
    };
    Ok(std::fs::canonicalize(&bin).unwrap_or(bin))
}

/// One environment to export, under a unique task name.
pub struct Source {
    /// The environment directory.
    pub dir: PathBuf,
    /// Its folder name: the task's name in the export.
    pub name: String,
}

fn io(what: &Path, e: std::io::Error) -> Failure {
    Failure::new(Kind::System, format!("{}: {e}", what.display()))
}

/// Copies a folder's regular files and folders (symlinks and special
/// files are not part of an environment).
pub fn copy_tree(from: &Path, to: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(to).map_err(|e| io(to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| io(from, e))? {
        let entry = entry.map_err(|e| io(from, e))?;
        let kind = entry.file_type().map_err(|e| io(&entry.path(), e))?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).map_err(|e| io(&entry.path(), e))?;
        }
    }
    Ok(())
}

/// Writes `bytes` to `path`, creating its folder.
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), Failure> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    }
    std::fs::write(path, bytes).map_err(|e| io(path, e))
}

fn sources(a: &ExportArgs) -> Result<Vec<Source>, Failure> {
    let dirs = crate::rollout::env_dirs(a.envs.as_deref(), a.index.as_deref())?;
    let mut out: Vec<Source> = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if name.is_empty() || !plain || out.iter().any(|s| s.name == name) {
            return Err(Failure::usage(format!(
                "{}: task names must be unique folder names of letters, digits, `-` and `_`",
                dir.display()
            )));
        }
        out.push(Source { dir, name });
    }
    Ok(out)
}

pub fn export(a: &ExportArgs, g: &Globals) -> Result<ExitCode, Failure> {
    const FORMATS: [&str; 4] = ["sandmle-release", "mlebench", "harbor", "openenv"];
    if !FORMATS.contains(&a.format.as_str()) {
        return Err(Failure::usage(format!("--format: one of {}, not `{}`", FORMATS.join(", "), a.format)));
    }
    if a.lock && a.format != "openenv" {
        return Err(Failure::usage("--lock applies to --format openenv"));
    }
    let sources = sources(a)?;
    let empty_dir = a.out.is_dir() && std::fs::read_dir(&a.out).map(|mut d| d.next().is_none()).unwrap_or(false);
    if a.out.exists() && !empty_dir {
        return Err(Failure::usage(format!("--out {}: exists and is not an empty folder", a.out.display())));
    }
    let parent = match a.out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| io(&parent, e))?;
    let staging =
        tempfile::Builder::new().prefix(".sandmle-export-").tempdir_in(&parent).map_err(|e| io(&parent, e))?;
    let summary = match a.format.as_str() {
        "mlebench" => mlebench::write_all(&sources, staging.path())?,
        "harbor" => harbor::write(&sources, staging.path(), &binary(a.sandmle_bin.as_deref())?)?,
        "openenv" => openenv::write(&sources, staging.path(), &binary(a.sandmle_bin.as_deref())?, a.lock)?,
        _ => release::write(&sources, staging.path(), &binary(a.sandmle_bin.as_deref())?)?,
    };
    if empty_dir {
        std::fs::remove_dir(&a.out).map_err(|e| io(&a.out, e))?;
    }
    let staged = staging.keep();
    std::fs::rename(&staged, &a.out).map_err(|e| {
        let _ = std::fs::remove_dir_all(&staged);
        io(&a.out, e)
    })?;
    if g.json {
        let mut v = summary;
        if let Some(o) = v.as_object_mut() {
            o.insert("format".into(), a.format.clone().into());
            o.insert("out".into(), serde_json::json!(a.out));
            if a.format == "mlebench" {
                o.insert("competitions".into(), serde_json::json!(a.out.join("competitions")));
                o.insert("data_dir".into(), serde_json::json!(a.out.join("data")));
            }
        }
        print_json(&v);
    } else {
        let n = summary["tasks"].as_array().map_or(0, Vec::len);
        let skipped = summary["skipped"].as_array().map_or(0, Vec::len);
        say!("{n} task(s) written to {} in the {} layout ({skipped} skipped)", a.out.display(), a.format);
    }
    Ok(ExitCode::SUCCESS)
}

/// The plain bytes of an environment's table `rel` (`prepared/public/train.csv`,
/// say), read from `rel` or from `rel.gz` and decompressed.
pub fn plain_table(dir: &Path, rel: &str) -> Result<Vec<u8>, Failure> {
    use std::io::Read;
    let plain = dir.join(rel);
    let path = if plain.is_file() { plain } else { dir.join(format!("{rel}.gz")) };
    let bytes = sandmle_core::read_regular(&path, sandmle_core::DEFAULT_MAX_READ_BYTES)
        .map_err(|e| Failure::broken(format!("{}: {e}", path.display())))?;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes.as_slice())
        .take(sandmle_core::DEFAULT_MAX_READ_BYTES.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| Failure::broken(format!("{}: bad gzip stream: {e}", path.display())))?;
    if out.len() as u64 > sandmle_core::DEFAULT_MAX_READ_BYTES {
        return Err(Failure::broken(format!("{}: larger than a table may be", path.display())));
    }
    Ok(out)
}
