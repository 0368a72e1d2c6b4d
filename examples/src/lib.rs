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

use sandmle_core::{BaselinePanel, Environment, Grader, Result};
use sandmle_exec::Panel;
use sandmle_metrics::StandardGrader;
use sandmle_synth::{DnaSynthesizer, GateVerifier, Generator};
use std::path::PathBuf;
use std::sync::Arc;

/// The concrete crates composed behind core's traits: the standard grader,
/// the baseline panel, the gate verifier and the generator.
#[derive(Clone)]
pub struct Composition {
    /// Grades submissions (sandmle-metrics).
    pub grader: Arc<dyn Grader>,
    /// Ranks baselines (sandmle-exec).
    pub panel: Arc<dyn BaselinePanel>,
    /// Checks environments (sandmle-synth), with the panel and grader above.
    pub verifier: GateVerifier,
}

impl Composition {
    /// The default composition.
    pub fn new() -> Self {
        let grader: Arc<dyn Grader> = Arc::new(StandardGrader);
        let panel: Arc<dyn BaselinePanel> = Arc::new(Panel::default());
        let verifier = GateVerifier::new(Arc::clone(&panel), Arc::clone(&grader));
        Composition { grader, panel, verifier }
    }

    /// A generator synthesizing with the default [`DnaSynthesizer`].
    pub fn generator(&self) -> Generator {
        Generator { synthesizer: Arc::new(DnaSynthesizer::default()), verifier: self.verifier.clone() }
    }

    /// The panel's version.
    pub fn panel_version(&self) -> &str {
        self.panel.version()
    }
}

impl Default for Composition {
    fn default() -> Self {
        Self::new()
    }
}

/// A short JSON summary of an environment.
pub fn env_summary(env: &Environment) -> serde_json::Value {
    let task = env.task();
    serde_json::json!({
        "id": env.id(),
        "task": task.id,
        "kind": task.kind,
        "metric": task.metric.name,
        "train_rows": env.train.n_rows(),
        "test_rows": env.test.n_rows(),
        "thresholds": env.grading.thresholds,
    })
}

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
