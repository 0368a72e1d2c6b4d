//! The task vocabulary: what is predicted, from what, and how it is scored.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The version of the on-disk schema (`grading.json`, `provenance.json`).
/// Bumped whenever a reader of the previous version would misread a file.
pub const SCHEMA_VERSION: u32 = 1;

/// Whether lower or higher scores are better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Higher is better (AUC, accuracy, ...).
    HigherIsBetter,
    /// Lower is better (log loss, RMSE, ...).
    LowerIsBetter,
}

impl Direction {
    /// `true` for [`Direction::LowerIsBetter`].
    pub fn is_lower_better(self) -> bool {
        self == Direction::LowerIsBetter
    }

    /// `true` if `a` is strictly better than `b`.
    pub fn better(self, a: f64, b: f64) -> bool {
        match self {
            Direction::HigherIsBetter => a > b,
            Direction::LowerIsBetter => a < b,
        }
    }

    /// `true` if `a` is at least as good as `b`.
    pub fn at_least(self, a: f64, b: f64) -> bool {
        match self {
            Direction::HigherIsBetter => a >= b,
            Direction::LowerIsBetter => a <= b,
        }
    }
}

/// What the data is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Modality {
    /// Rows of numeric and categorical features.
    Tabular,
    /// Images: pixel columns, or files beside the tables
    /// ([`TaskSpec::images`]).
    Image,
    /// Free-text fields, possibly with tabular features beside them.
    Text,
    /// Ordered measurements.
    TimeSeries,
    /// Audio clips: files beside the tables ([`TaskSpec::images`] says
    /// where, as for images).
    Audio,
    /// Images and feature columns together: image files beside the tables
    /// ([`TaskSpec::images`]), and columns in the tables that describe the
    /// same rows; the label reads both.
    Multimodal,
    /// Rows that are the nodes of a graph: their features and a column
    /// listing each row's linked rows; the label follows the links.
    Graph,
    /// Rows that are the words of documents: a group column
    /// ([`TaskSpec::group_column`]) names each row's document and a
    /// position column its place; each word is tagged (sequence
    /// labelling), and its tag follows its neighbours'.
    Sequence,
}

/// What is predicted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// Two classes; predictions are labels or the probability of the
    /// positive class.
    BinaryClassification,
    /// More than two classes; predictions are labels or one probability
    /// column per class.
    MulticlassClassification,
    /// Several binary targets, one column each.
    MultiLabelClassification,
    /// One or more continuous targets.
    Regression,
    /// Ranked lists of labels (mean average precision at k).
    Ranking,
}

impl TaskKind {
    /// `true` for the classification kinds.
    pub fn is_classification(self) -> bool {
        !matches!(self, TaskKind::Regression | TaskKind::Ranking)
    }
}

/// A metric by its canonical name with its parameters (for example
/// `map_at_k` with `{"k": 5}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricSpec {
    /// Canonical name (`roc_auc`, `rmse`, `multiclass_log_loss`, ...).
    pub name: String,
    /// Parameters; empty for most metrics.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, serde_json::Value>,
}

impl MetricSpec {
    /// A metric without parameters.
    pub fn named(name: impl Into<String>) -> Self {
        MetricSpec { name: name.into(), params: BTreeMap::new() }
    }
}

/// The public description of a task: everything an agent is told about what
/// to predict and how it is scored, and nothing about the answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskSpec {
    /// Task identifier (a competition slug or an environment id).
    pub id: String,
    /// What the data is made of.
    pub modality: Modality,
    /// What is predicted.
    pub kind: TaskKind,
    /// The id column of `train.csv`, `test.csv`, the submission and the answers.
    pub id_column: String,
    /// The label column(s) of `train.csv`.
    pub target_columns: Vec<String>,
    /// The column(s) a submission holds besides the id, in order. Usually the
    /// same as `target_columns`; for `multiclass_log_loss` one column per
    /// class, named by the class label, and the answers are one-hot.
    pub prediction_columns: Vec<String>,
    /// The metric.
    pub metric: MetricSpec,
    /// Whether lower or higher scores are better.
    pub direction: Direction,
    /// Where each row's image file is, for a task whose data are image
    /// files (`None` for tables alone; absent from `grading.json` then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<crate::images::ImageSpec>,
    /// Columns of `train.csv` that `test.csv` does not hold and that are
    /// not targets: what a real competition ships with its training rows
    /// alone (a patient id, a second diagnosis, the date a label was
    /// made). No model is given them as features; a solution may use them
    /// in training (to group folds, say). Empty for most tasks (absent
    /// from `grading.json` then).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub train_only_columns: Vec<String>,
    /// A column of `train.csv` and `test.csv` whose rows sharing a value
    /// are one item: the tokens of a sentence in a per-token task, the
    /// time steps of one series. Shrinking keeps items whole. `None` for
    /// most tasks (absent from `grading.json` then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_column: Option<String>,
}

/// What a submission's prediction columns hold, which decides what a
/// solution must predict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubmissionForm {
    /// One class label per target column.
    Label,
    /// The probability of the positive (greater) class, one target column.
    Probability,
    /// One probability column per class (named by the class label).
    ClassProbabilities,
    /// One binary target per column; the probability of 1 in each.
    ColumnProbabilities,
    /// One number per target column.
    Value,
    /// Space-separated labels, best first (for MAP@k).
    LabelList,
    /// Space-separated labels, every one that applies, in any order (a
    /// multi-label task scored on label sets).
    LabelSet,
}

impl TaskKind {
    /// What is predicted, as a description says it ("the class", "the
    /// value", ...).
    pub fn prediction_phrase(self) -> &'static str {
        match self {
            TaskKind::BinaryClassification => "which of two classes",
            TaskKind::MulticlassClassification => "the class",
            TaskKind::MultiLabelClassification => "each of several yes/no labels",
            TaskKind::Regression => "the value",
            TaskKind::Ranking => "the most likely labels",
        }
    }
}

impl SubmissionForm {
    /// `true` for space-separated labels (ranked lists and sets): read as
    /// text, so that a label like `0012` is not the number 12.
    pub fn label_text(self) -> bool {
        matches!(self, SubmissionForm::LabelList | SubmissionForm::LabelSet)
    }

    /// What a submission's prediction columns hold, as a description says
    /// it ("the predicted label", ...).
    pub fn phrase(self) -> &'static str {
        match self {
            SubmissionForm::Label => "the predicted label",
            SubmissionForm::Probability => "the probability of the positive class",
            SubmissionForm::ClassProbabilities => "one probability per class, each row summing to 1",
            SubmissionForm::ColumnProbabilities => "the probability of 1 for each label",
            SubmissionForm::Value => "the predicted value",
            SubmissionForm::LabelList => "space-separated labels, most likely first",
            SubmissionForm::LabelSet => "every label that applies, space-separated (an empty field for none)",
        }
    }
}

impl MetricSpec {
    /// The form of a submission scored by this metric, from its catalogue
    /// entry (and, for a metric the catalogue does not know, from the task
    /// kind: labels for classes, values otherwise).
    pub fn submission_form(&self, kind: TaskKind) -> SubmissionForm {
        match crate::catalogue::metric_info(&self.name) {
            Some(info) => info.input.submission_form(),
            None if kind.is_classification() => SubmissionForm::Label,
            None => SubmissionForm::Value,
        }
    }
}

impl TaskSpec {
    /// Whether a `train.csv` column is a feature: neither the id, a target
    /// nor a [train-only column](TaskSpec::train_only_columns).
    pub fn is_feature(&self, column: &str) -> bool {
        column != self.id_column
            && !self.target_columns.iter().any(|t| t == column)
            && !self.train_only_columns.iter().any(|t| t == column)
    }

    /// The form of a submission for this task ([`MetricSpec::submission_form`]).
    pub fn submission_form(&self) -> SubmissionForm {
        self.metric.submission_form(self.kind)
    }
}
