//! # sandmle-core
//!
//! The vocabulary and the ports of SandMLE-rs: tables, the task and grading
//! types, the on-disk environment format, and the traits the other crates
//! implement. It holds no model training and no randomness beyond a seeded
//! generator type, so that a crate implementing one port depends on this
//! small crate and nothing else.
//!
//! - [`Table`] and [`Column`]: a column store (numbers, categories, text,
//!   whose cells are [`CellText`]: inline up to 24 bytes, so an id column
//!   is one block of memory, not an allocation per row); [`csv`] reads what
//!   pandas and Kaggle write and writes deterministically.
//! - [`TaskSpec`], [`TaskDna`], [`GradingSpec`], [`Thresholds`],
//!   [`GradeReport`], [`Provenance`]: the task vocabulary, serde types.
//! - [`Environment`]: read, verify and atomically write the
//!   `prepared/public` + `prepared/private` layout, and import prepared
//!   MLE-bench competitions.
//! - The ports: [`Metric`], [`Grader`], [`Executor`], [`BaselinePanel`],
//!   [`Shrinker`], [`Synthesizer`], [`Verifier`], [`ChatModel`].
//! - [`calibrate`]: panel, leaderboard, oracle, thresholds and gates,
//!   through the ports alone; [`ladder`]: medal thresholds between the
//!   stock baselines and the oracle, spaced as real leaderboards are.
//! - The [metric catalogue](METRICS): every metric's direction, input,
//!   family and parameters, in one place.
//! - [`read_regular`], [`write_atomic`], [`check_output_file`]: bounded
//!   reads that never block on a FIFO or device, and writes that never
//!   replace what this crate did not write; [`scratch`]: temporary
//!   directories reclaimed once their owner is dead; [`tree`]: measuring
//!   and removing the trees agents' programs write, at any depth.
//! - [`rng_for`]: the seeded ChaCha8 generator every random choice uses.
//! - [`Mix`]: the modality mix a generation run asks its candidates for
//!   (the SandMLE paper's spread, or weights), drawn per slot.
//! - [`ImageSpec`], [`ImageSet`], [`encode_png`], [`decode_image`]: image
//!   tasks, whose rows are image files (PNG, JPEG, TIFF) beside the tables.
//!
//! ```
//! use sandmle_core::{Environment, WriteOptions, testing::tiny_environment};
//!
//! # fn main() -> Result<(), sandmle_core::Error> {
//! let env = tiny_environment();
//! let dir = std::env::temp_dir().join(format!("sandmle-doc-{}", std::process::id()));
//! env.write(&dir, &WriteOptions { overwrite: true, ..WriteOptions::default() })?;
//! let back = Environment::read(&dir)?; // checks every file's sha256
//! assert_eq!(back.train, env.train);
//! assert_eq!(back.public_view().test.n_rows(), 4);
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod audio;
mod calibrate;
mod catalogue;
pub mod csv;
mod difficulty;
mod dna;
mod environment;
mod error;
pub mod fault;
mod fsutil;
mod grading;
mod id_index;
mod images;
mod ladder;
mod message;
mod mix;
mod oracle;
pub mod pixel_rows;
mod plan;
mod png_io;
mod ports;
mod provenance;
mod raster;
mod rng;
pub mod scratch;
pub mod stats;
mod table;
mod task;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
#[cfg(unix)]
pub mod tree;

pub use audio::{AudioDna, AudioFormat, Clip, MAX_AUDIO_SAMPLES, decode_audio, encode_wav};
pub use calibrate::{calibrate, set_thresholds};
pub use catalogue::{
    CheckedMetric, METRICS, MetricFamily, MetricInfo, MetricInput, ParamInfo, metric_info, metric_names, params_map,
};
pub use difficulty::{BAND_EDGES, Ceiling, Difficulty};
pub use dna::{FeatureDna, NumericShape, Signal, TargetDna, TaskDna};
pub use environment::{
    Environment, GradingBundle, IMAGE_MANIFEST, IMPORT_GENERATOR, PRIVATE_DIR, PUBLIC_DIR, WriteOptions,
};
pub use error::{Error, Result};
pub use fault::{Blame, FailureKind, Fault};
pub use fsutil::{
    DEFAULT_MAX_READ_BYTES, MAX_JSON_BYTES, check_output_dir, check_output_file, read_regular, read_regular_string,
    sha256_hex, write_atomic,
};
pub use grading::{
    GradeReport, GradeView, GradingSpec, Leaderboard, LeaderboardEntry, Medal, SubmissionRules, Thresholds, human_rank,
    round5,
};
pub use id_index::{IdIndex, IdIndexError};
pub use images::{
    EncodedImage, ImageDna, ImageSet, ImageSpec, MAX_IMAGE_BYTES, MAX_IMAGES, is_plain_name, parse_manifest,
};
pub use ladder::{
    LADDER_BRONZE, LADDER_FIELD_QUANTILE, LADDER_GOLD, LADDER_SILVER, LADDER_TOP_SHARE, Oracle, ladder,
    reference_thresholds,
};
pub use message::{QUOTE_CHARS, bounded, one_line};
pub use mix::{MIX_MODALITIES, Mix};
pub use oracle::{ORACLE_DETAIL, OraclePrediction, OracleRecord, SE_DRAWS, grade_oracle};
pub use pixel_rows::PixelDna;
pub use plan::{Mutations, PlanRequest, PlannedFeature, TaskPlan, TaskStory};
pub use png_io::{MAX_DECODED_BYTES, MAX_IMAGE_SIDE, Pixels, decode_png, encode_png};
pub use ports::{
    BaselinePanel, Cancel, ChatModel, ChatReply, ExecStatus, Execution, Executor, FinishReason, GateResult, Grader,
    GradingTask, Message, Metric, Program, PublicView, RESERVED_WORKSPACE_FILES, Role, Sampling, Shrinker, Solution,
    Synthesizer, Timings, TokenTrace, ToolCall, ToolSpec, Usage, Verifier, Workspace,
};
pub use provenance::{Provenance, SYNTH_GENERATOR};
pub use raster::{ImageFormat, decode_image};
pub use rng::{SeedRng, derive_seed, rng_for};
pub use table::{
    Categorical, CellText, CellValue, Column, ColumnType, Table, format_f64, format_label, parse_f64_lenient,
};
pub use task::{Direction, MetricSpec, Modality, SCHEMA_VERSION, SubmissionForm, TaskKind, TaskSpec};
