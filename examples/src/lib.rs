//! # sandmle-examples
//!
//! Where the SandMLE-rs crates meet: the bundled real seed tasks, the
//! `sandmle` command line and the runnable examples. The library part holds
//! what those share — finding the seeds and composing the concrete crates
//! behind core's traits.
//!
//! ```
//! let seeds = sandmle_examples::seed_names().unwrap();
//! assert!(seeds.iter().any(|s| s == "wine"));
//! ```
#![forbid(unsafe_code)]

use sandmle_core::{Environment, Result};
use std::path::PathBuf;

/// The folder of bundled seed environments (`examples/seeds/`).
pub fn seeds_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("seeds")
}

/// The names of the bundled seeds, sorted.
///
/// # Errors
/// [`sandmle_core::Error::Io`] if the folder cannot be listed.
pub fn seed_names() -> Result<Vec<String>> {
    let dir = seeds_dir();
    let entries = std::fs::read_dir(&dir).map_err(|source| sandmle_core::Error::Io { path: dir.clone(), source })?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("prepared").is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names)
}

/// Reads a bundled seed by name, checking every file's hash.
///
/// # Errors
/// As [`Environment::read`].
pub fn load_seed(name: &str) -> Result<Environment> {
    Environment::read(seeds_dir().join(name))
}
