//! Import of MLE-bench competitions: reads what `mlebench prepare` writes
//! and makes an environment of it.
//!
//! Kaggle competitions ship their data in many layouts, and MLE-bench's
//! `prepare.py` keeps most of them: sample submissions under several
//! names, test ids only in the sample submission, labels in a separate
//! file or in the file names, archives, TSV, JSON and NumPy files, nested
//! image folders. This crate finds its way through them in layers:
//!
//! - [`Files`]: every file of `prepared/`, on disk or inside its ZIP and
//!   7z archives, under one tree of relative paths;
//! - [`read_table`]: a table from any record file among them;
//! - [`import`]: which file is the sample submission, the answers, the
//!   training and test tables, a labels table or the rows' images and
//!   clips, found by name where one reading is possible and named by the
//!   caller ([`ImportOptions`]) where not; the result is an environment
//!   and an [`ImportPlan`] recording every decision.
//!
//! Three submission shapes make rows of parts: sample ids that are two test
//! columns joined by `_` (a sentence's tokens) make the first column the
//! task's group column, and pixel ids `<image>_<row>_<col>` over test
//! images, with input and target images of the same names for training,
//! make one row per pixel (`sandmle_core::pixel_rows`), grouped by image.
//! A third, named by the caller ([`ImportOptions::item_labels`]), flattens
//! a multi-label task to one row per (item, label) with ids `item × 10ᵏ +
//! label`: the item is the group column and the key naming each row's file
//! (`sandmle_core::ImageSpec::key_column`), so an item's file is stored
//! once for all its rows.
//!
//! The design decision: detection never guesses between two readings. It
//! takes the one file a name allows, and where two could play a part it
//! stops with an [`Error::Options`] naming both and the option that
//! settles it. A competition's own mistakes (a missing file, a row
//! without its image) are [`Error::Layout`] naming the file.
//!
//! It depends on `sandmle-core` alone; the environment it builds is
//! core's [`sandmle_core::Environment`] (thresholds unset: a grader derives
//! them from the leaderboard).
//!
//! ```
//! use sandmle_import::TableFormat;
//! assert_eq!(TableFormat::of("en_train.csv.gz"), Some(TableFormat::Csv));
//! assert_eq!(TableFormat::of("train.json"), Some(TableFormat::Json));
//! assert_eq!(TableFormat::of("train.zip"), None);
//!
//! // A competition folder without MLE-bench's layout is refused by name.
//! let options = sandmle_import::ImportOptions {
//!     competition: "no/such/competition".into(),
//!     metric: Some(sandmle_core::MetricSpec::named("accuracy")),
//!     ..Default::default()
//! };
//! let error = sandmle_import::import(&options).unwrap_err();
//! assert!(error.to_string().contains("prepared/public"));
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod build;
mod columns;
mod detect;
mod error;
mod files;
mod label_rows;
mod media;
mod options;
mod pixels;
mod rows;
mod tables;

pub use build::{Imported, import};
pub use error::{Error, Result};
pub use files::{Budget, Files};
pub use options::{FilePlan, ImportOptions, ImportPlan, LabelSource, TestSource, TrainSource};
pub use tables::{MAX_SPREAD, TableFormat, read_table};
