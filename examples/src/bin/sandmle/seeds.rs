//! `seeds`, and `--env NAME` / `--seed-env NAME` resolved in the seeds
//! folder.

use crate::Globals;
use crate::output::{Failure, print_json, say};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The environment directory an `--env` argument names: the path itself
/// when it exists, else a bundled seed of that name.
pub fn resolve(arg: &Path, g: &Globals) -> Result<PathBuf, Failure> {
    if arg.exists() {
        return Ok(arg.to_path_buf());
    }
    let is_name = arg.components().count() == 1 && !arg.as_os_str().is_empty();
    if is_name && let Ok(dir) = sandmle::find_seeds(g.seeds.as_deref()) {
        let seed = dir.join(arg);
        if seed.join("prepared").is_dir() {
            return Ok(seed);
        }
    }
    Err(Failure::usage(format!("{}: no such environment directory (nor a seed of that name)", arg.display())))
}

pub fn list(g: &Globals) -> Result<ExitCode, Failure> {
    let dir = sandmle::find_seeds(g.seeds.as_deref()).map_err(|e| Failure::usage(e.to_string()))?;
    let names = sandmle::seed_names_in(&dir)?;
    if g.json {
        print_json(&serde_json::json!({"seeds": dir, "names": names}));
    } else {
        for n in &names {
            say!("{n}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
