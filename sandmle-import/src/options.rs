//! What the caller says ([`ImportOptions`]) and what the import decided
//! ([`ImportPlan`]): every choice detection made, recorded in the
//! environment's provenance and printed by `sandmle import --plan`.

use crate::files::Budget;
use sandmle_core::{MetricSpec, Modality, TaskKind, TaskSpec};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Where the labels of rows made from files come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LabelSource {
    /// The folder holding the file (`train/Black-grass/0567be837.png`).
    Folder,
    /// The file name before its first dot (`train/cat.51.jpg`).
    NamePrefix,
    /// The file name after its last underscore, before the extension
    /// (`train2/20090329_005131_391s7ms_TRAIN244_0.aif`).
    NameSuffix,
}

/// What the caller gives; detection fills in the rest (see
/// [`crate::import`]). File names are relative to `prepared/`
/// (`public/train.csv`, `private/test.csv`); a bare name is looked up in
/// `public/` (in `private/` for the answers).
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The competition folder (holding `prepared/`).
    pub competition: PathBuf,
    /// A whole task spec: fixes the id, targets, prediction columns,
    /// metric, modality and kind (detection then only finds the files).
    pub task: Option<TaskSpec>,
    /// The metric (without [`ImportOptions::task`]); its direction and
    /// the task kind follow from the metric catalogue.
    pub metric: Option<MetricSpec>,
    /// The modality (without a task; default: image or audio when rows
    /// are files, text when a feature is free text, tabular otherwise).
    pub modality: Option<Modality>,
    /// The training table.
    pub train: Option<String>,
    /// The public test table.
    pub test: Option<String>,
    /// The sample submission.
    pub sample_submission: Option<String>,
    /// The answers (default: `private/answers.csv`, else
    /// `private/test.csv`, else the one other table of `private/`).
    pub answers: Option<String>,
    /// A labels table joined to the training table by id (or by row,
    /// when neither has the id column).
    pub labels: Option<String>,
    /// The id column (default: the sample submission's first column).
    pub id_column: Option<String>,
    /// Target columns of the training table (default: the prediction
    /// columns, when the training table has them).
    pub targets: Vec<String>,
    /// Folders of `public/` holding the rows' files (default: every
    /// folder holding images or audio).
    pub file_dirs: Vec<String>,
    /// What follows a row's id in its file's name (default: nothing when
    /// the ids carry an extension, else the files' common extension).
    pub file_suffix: Option<String>,
    /// Where rows made from files take their labels (default: detected).
    pub label_source: Option<LabelSource>,
    /// For two labels read from folders or names and a metric on the
    /// probability of one class: the label that is 1 (default: the later
    /// of the two in sorted order).
    pub positive_label: Option<String>,
    /// A file of each item's labels, one line per item (`<item>,<label>,
    /// <label>...`, `?` for a test item), for a submission of one row per
    /// (item, label) whose id is `item × 10ᵏ + label` (mlsp-2013-birds):
    /// the training rows are the items' (item, label) pairs.
    pub item_labels: Option<String>,
    /// With [`ImportOptions::item_labels`]: a table of two columns, each
    /// item's id and its file's name without the extension (default: files
    /// named by the item).
    pub item_files: Option<String>,
    /// A leaderboard CSV (MLE-bench's `leaderboard.csv`).
    pub leaderboard: Option<PathBuf>,
    /// What opening archives may cost.
    pub budget: Budget,
}

/// Where the training rows come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "from")]
#[non_exhaustive]
pub enum TrainSource {
    /// A table, with a labels table joined to it.
    Table {
        /// The table.
        file: String,
        /// The labels table, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        labels: Option<String>,
    },
    /// One row per pixel of the input images, the target the pixel of the
    /// image of the same name in a second folder (an image-to-image task).
    Pixels {
        /// The input images' folder.
        inputs: String,
        /// The target images' folder.
        targets: String,
    },
    /// One row per (item, label) of the items a labels file lists,
    /// flattened as the sample submission's ids are: `id = item × stride
    /// + label`, the target 1 where the item has the label.
    ItemLabels {
        /// The labels file.
        labels: String,
        /// The table naming each item's file, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        names: Option<String>,
        /// The stride.
        stride: u64,
    },
    /// One row per file of these folders, labelled from their paths.
    Files {
        /// The folders.
        dirs: Vec<String>,
        /// Where labels come from.
        labels: LabelSource,
    },
}

/// Where the test rows come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "from")]
#[non_exhaustive]
pub enum TestSource {
    /// A public table.
    Table {
        /// The table.
        file: String,
    },
    /// The sample submission's ids (the competition ships no test table).
    SampleIds,
    /// The sample submission's ids, pixels of this folder's images.
    Pixels {
        /// The test images' folder.
        dir: String,
    },
}

/// The rows' files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilePlan {
    /// Image or audio.
    pub modality: Modality,
    /// The folders the training rows' files were found in.
    pub train_dirs: Vec<String>,
    /// The folders the test rows' files were found in.
    pub test_dirs: Vec<String>,
    /// What follows an id in its file's name in the environment.
    pub suffix: String,
    /// The column naming each row's file when rows share files (the item
    /// of (item, label) rows); `None`: the id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// Every decision of an import.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportPlan {
    /// The sample submission.
    pub sample_submission: String,
    /// The answers.
    pub answers: String,
    /// The training rows.
    pub train: TrainSource,
    /// The test rows.
    pub test: TestSource,
    /// The id column.
    pub id_column: String,
    /// The training table's target columns.
    pub target_columns: Vec<String>,
    /// The submission's columns besides the id.
    pub prediction_columns: Vec<String>,
    /// Training columns the test table lacks.
    pub train_only_columns: Vec<String>,
    /// One-hot class columns of the training table collapsed into the one
    /// target column (class probabilities shipped one-hot).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub one_hot: Vec<String>,
    /// Prediction columns of the sample submission that held no value and
    /// were filled with a constant valid prediction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sample_filled: Vec<String>,
    /// Labels read from folders or names, mapped to numbers: `(label,
    /// number)` pairs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub label_codes: Vec<(String, String)>,
    /// How training ids were re-keyed, if they were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rekeyed: Option<String>,
    /// The test columns whose values, joined by `_`, are the sample
    /// submission's ids (item, then part), when the test table has no id
    /// column; the first is the task's group column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub composed_ids: Option<(String, String)>,
    /// The rows' files, if the rows are files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<FilePlan>,
    /// The archives opened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub archives: Vec<String>,
    /// The modality.
    pub modality: Modality,
    /// The task kind.
    pub kind: TaskKind,
}
