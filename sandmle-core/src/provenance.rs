//! [`Provenance`]: where an environment came from, enough to regenerate it.

use crate::dna::TaskDna;
use crate::error::{Error, Result};
use crate::fsutil::sha256_hex;
use crate::task::SCHEMA_VERSION;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The `generator` of a synthesized environment's provenance.
pub const SYNTH_GENERATOR: &str = "synth";

/// The content of `private/provenance.json`: the seed task, the generator
/// and its version, the seed, the task DNA and the hidden rule.
///
/// The environment id is derived from it ([`Provenance::env_id`]), so the
/// same inputs name the same environment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The schema version ([`crate::SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The seed task's id.
    pub seed_task: String,
    /// The generator's name (`import`, `shrink`, `synth`, ...).
    pub generator: String,
    /// The generator's version; bumped whenever its output changes.
    pub generator_version: String,
    /// The seed.
    pub seed: u64,
    /// The task DNA the environment was built from, if any.
    pub dna: Option<TaskDna>,
    /// The hidden rule `label = f(z) + noise`, if the data is synthetic.
    pub hidden_rule: Option<serde_json::Value>,
    /// Generator-specific settings (domain, mutations, sizes, ...).
    #[serde(default)]
    pub details: BTreeMap<String, serde_json::Value>,
}

impl Provenance {
    /// A provenance with no DNA, rule or details.
    pub fn new(
        seed_task: impl Into<String>,
        generator: impl Into<String>,
        generator_version: impl Into<String>,
        seed: u64,
    ) -> Self {
        Provenance {
            schema_version: SCHEMA_VERSION,
            seed_task: seed_task.into(),
            generator: generator.into(),
            generator_version: generator_version.into(),
            seed,
            dna: None,
            hidden_rule: None,
            details: BTreeMap::new(),
        }
    }

    /// Whether the environment's leaderboard is a real competition's: it
    /// was imported ([`crate::IMPORT_GENERATOR`]) and no baseline panel
    /// replaced its leaderboard since (`sandmle panel --write` records
    /// `details.panel`). A generated or shrunk environment's leaderboard is
    /// the stock panel's.
    pub fn has_real_leaderboard(&self) -> bool {
        self.generator == crate::IMPORT_GENERATOR && !self.details.contains_key("panel")
    }

    /// `true` if the rows were made by the synthesizer (`generator` is
    /// [`SYNTH_GENERATOR`]), not taken from a real competition (imported,
    /// or shrunk from real rows).
    pub fn synthesized(&self) -> bool {
        self.generator == SYNTH_GENERATOR
    }

    /// The canonical JSON bytes (pretty, fields in declaration order, maps
    /// sorted, floats shortest round-trip).
    ///
    /// # Errors
    /// [`Error::Json`] if serde cannot serialise a value of `details`.
    pub fn to_json_bytes(&self) -> Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(self)
            .map_err(|source| Error::Json { path: PathBuf::from("provenance.json"), source })?;
        v.push(b'\n');
        Ok(v)
    }

    /// The environment id: `<seed task>-<first 12 hex digits of the sha256
    /// of the canonical JSON>`, with the seed task reduced to `[a-z0-9-]`.
    ///
    /// # Errors
    /// As [`Provenance::to_json_bytes`].
    pub fn env_id(&self) -> Result<String> {
        let slug: String = self
            .seed_task
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
            .collect();
        let hash = sha256_hex(&self.to_json_bytes()?);
        Ok(format!("{}-{}", slug.trim_matches('-'), &hash[..12]))
    }
}
