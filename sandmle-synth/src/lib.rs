//! # sandmle-synth
//!
//! From one real seed task to many micro environments that keep its
//! structure, can be regenerated bit for bit, and are checked before anyone
//! trains on them:
//!
//! - [`extract_dna`]: the Data Strategist's analysis — a [`sandmle_core::TaskDna`]
//!   stripped of names and meaning; [`measure_signal`] adds a
//!   cross-validated signal estimate through any [`sandmle_core::Executor`];
//! - [`StratifiedShrinker`]: deterministic stratified sampling of a real
//!   seed to 50–200 training rows ([`sandmle_core::Shrinker`]);
//! - [`DnaSynthesizer`]: brand-new data with the DNA's structure, dressed in
//!   a domain and labelled by a hidden rule ([`sandmle_core::Synthesizer`]);
//! - [`GateVerifier`]: the verification gates ([`sandmle_core::Verifier`]);
//! - [`Generator`] and [`funnel`]: candidates through synthesis, the
//!   baseline panel and the gates, with the yield at each stage;
//! - [`kendall_tau`]: fidelity of a micro task's baseline ranking.
//!
//! Design decision: this crate never names a model or a metric. The panel
//! that ranks candidates and the grader that scores them arrive as core's
//! trait objects, so the generators can be tested with stand-ins and run
//! with any panel. Every random choice draws from ChaCha8 streams split by
//! purpose ([`sandmle_core::rng_for`]); candidates run in parallel but are
//! collected in index order, so output is byte-identical whatever the
//! thread count.
//!
//! ```
//! use sandmle_core::testing::tiny_dna;
//! use sandmle_synth::{DnaSynthesizer, extract_dna};
//!
//! let env = DnaSynthesizer::default().synthesize_env(&tiny_dna(), "tiny", 7).unwrap();
//! assert_eq!(env.train.n_rows(), 200);
//! let dna = extract_dna(&env).unwrap();
//! assert_eq!(dna.features.len(), env.train.n_cols() - 2); // id and target aside
//! // The hidden rule is in the private provenance, never in the public files.
//! assert!(env.provenance.hidden_rule.is_some());
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod describe;
mod dna;
mod error;
mod features;
mod fidelity;
mod gates;
mod labelled;
mod lexicon;
mod mutations;
mod random;
mod rule;
mod shrink;
mod sizes;
mod stats;
mod synthesize;
mod units;

pub use dna::{CORRELATION_FLOOR, extract_dna, measure_signal};
pub use error::{Error, Result};
pub use fidelity::kendall_tau;
pub use gates::{Gate, GateVerifier};
pub use lexicon::{DOMAINS, Domain, domain};
pub use rule::{FAMILIES, Family, Rule, Tree};
pub use shrink::{SHRINK_VERSION, StratifiedShrinker};
pub use sizes::test_rows_for;
pub use synthesize::{DnaSynthesizer, SYNTH_VERSION};
pub use units::unit_range;
