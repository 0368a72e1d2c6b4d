//! # sandmle-exec
//!
//! What runs a solution on an environment and produces a submission:
//!
//! - [`PipelineExecutor`]: runs a declarative [`PipelineSpec`] (JSON:
//!   preprocessing steps and a smartcore model) in-process — milliseconds on
//!   micro data, deterministic for a spec seed;
//! - [`Panel`]: the versioned baseline panel, weak to strong, whose
//!   graded scores form an environment's reference leaderboard;
//! - [`image`]: the features the in-process models learn from on an image
//!   task, computed from its PNG files (the pipeline executor and the panel
//!   append them to the tables);
//! - [`ProcessExecutor`]: runs an agent's own program in a fresh
//!   workspace holding only public files, inside bubblewrap — required by
//!   default: a machine where the sandbox cannot be created refuses the run
//!   ([`SandboxError::SandboxUnavailable`]) unless [`SandboxMode::Unsandboxed`] is
//!   asked for — with only descriptors 0–2, a minimal `/etc` and `/dev`,
//!   capped `/tmp` and `/dev/shm`, a wall-clock limit on the whole process
//!   group, and memory, process-count, file-size, workspace and output
//!   limits.
//!
//! Two jobs, one module boundary each: the models (`model/`, behind the
//! pipeline executor and the panel) and the sandbox (`process/`, the
//! process executor), which shares nothing with the models, not even an
//! error type ([`SandboxError`] is its own; [`Error::Process`] wraps it).
//!
//! Design decision: a model is parameters, checked, then fitted. A spec's
//! parameters ([`ModelSpec`], within a [`PipelineSpec`]) are checked once
//! into a [`CheckedPipeline`] before anything runs (linfa's `ParamGuard`
//! pattern), and the one place a spec meets its implementation fits it and
//! predicts the test rows in one call: the histogram forests predict while
//! they grow and kNN never fits, so a separate fitted object would only
//! cost copies. What the models of one panel run share — kNN's neighbour
//! lists, the binned matrix, the forests grown for several members — is
//! passed to them explicitly, never carried with their data; a model
//! fitted alone shares nothing and predicts the same bits.
//!
//! Both executors implement core's [`sandmle_core::Executor`] and the panel
//! implements [`sandmle_core::BaselinePanel`]; grading reaches this crate
//! only through core's [`sandmle_core::Grader`] trait.
//!
//! Design decision: smartcore is the model backend, wrapped at one boundary.
//! Its known panics (NaN features in trees, more features than rows in
//! SVMs, k larger than the training set, ...) are prevented by checks
//! before each call, and any other panic is contained and reported as a
//! typed error. Where a model gives no probabilities, they are derived and
//! documented: forest probabilities as tree vote shares, naive-Bayes
//! probabilities from the fitted class statistics, SVM scores as the
//! logistic function (or softmax) of margins. Two models are this crate's
//! own, for speed: the histogram forest, and logistic regression
//! (scikit-learn's lbfgs objective, followed step for step).
//!
//! ```
//! use sandmle_core::testing::tiny_environment;
//! use sandmle_exec::{PipelineExecutor, PipelineSpec};
//!
//! let env = tiny_environment();
//! let spec: PipelineSpec = serde_json::from_str(r#"{
//!     "steps": [{"op": "impute", "strategy": "median"},
//!               {"op": "encode", "method": "one_hot"}],
//!     "model": {"type": "logistic_regression", "c": 1.0}
//! }"#).unwrap();
//! let spec = spec.check().unwrap(); // every parameter checked once, here
//! let run = PipelineExecutor::default().run(&spec, &env.public_view()).unwrap();
//! assert_eq!(run.submission.n_rows(), env.test.n_rows());
//! assert!(run.submission.numeric("label").unwrap().iter().all(|p| (0.0..=1.0).contains(p)));
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod audio;
mod error;
mod executor;
pub mod image;
pub mod lookup;
mod model;
mod panel;
mod preprocess;
mod process;
mod row_files;
mod spec;
mod submission;
mod target;

pub use error::{Error, Result};
pub use executor::{PipelineExecutor, PipelineRun};
pub use panel::{KNN_MAX_ROWS, PANEL_VERSION, Panel, PanelEntry, PanelReport};
/// The process executor's error type: what stops it from running a program.
pub use process::Error as SandboxError;
pub use process::{
    CodeSteps, DEFAULT_PRELOAD, Limits, PRELOAD_SUBMODULES, PUBLIC_FILES, ProcessExecutor, ProcessWorkspace,
    PythonChoice, PythonEnv, PythonSettings, SandboxMode, bubblewrap_available, reclaim_stale_runs,
};
pub use row_files::file_features;
pub use spec::{
    CheckedPipeline, EncodeMethod, ImputeStrategy, InverseRegularisation, Kernel, MAX_LEVELS, MAX_TEXT_FEATURES,
    MAX_TREES, ModelSpec, PipelineSpec, ScaleMethod, Step,
};
