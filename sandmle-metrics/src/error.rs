//! The one error type of `sandmle-metrics`.

/// Why a metric cannot be computed or a submission is invalid.
///
/// Every variant carries its context in fields and prints as one line a
/// person understands; graders put that line in the report's `error`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    // --- metric inputs ---
    /// Truth and prediction lengths differ.
    #[error("truth has {truth} values, prediction has {prediction}")]
    LengthMismatch {
        /// Truth length.
        truth: usize,
        /// Prediction length.
        prediction: usize,
    },
    /// No rows to score.
    #[error("nothing to score: no rows")]
    Empty,
    /// Too few rows for the metric (for example Pearson needs two).
    #[error("{metric} needs at least {needed} rows, got {found}")]
    TooFewRows {
        /// The metric.
        metric: &'static str,
        /// Rows needed.
        needed: usize,
        /// Rows given.
        found: usize,
    },
    /// A value is NaN or infinite where a finite number is needed.
    #[error("{side} holds a missing or infinite value at index {index}")]
    NonFinite {
        /// `"truth"` or `"prediction"`.
        side: &'static str,
        /// 0-based index into the aligned values.
        index: usize,
    },
    /// The truth has one class where two are needed (ROC AUC, log loss).
    #[error("{metric} is undefined when the truth holds a single class")]
    SingleClass {
        /// The metric.
        metric: &'static str,
    },
    /// A value at or below -1, where the metric takes `log(1 + x)` (RMSLE;
    /// scikit-learn 1.9 accepts every value above -1).
    #[error("{metric} cannot be used when {side} holds values at or below -1 (index {index})")]
    LogDomain {
        /// The metric.
        metric: &'static str,
        /// `"truth"` or `"prediction"`.
        side: &'static str,
        /// 0-based index into the aligned values.
        index: usize,
    },
    /// Labels are continuous (non-integral numbers) where classes are needed.
    #[error("{side} holds a non-integral number ({value}) where class labels are needed")]
    ContinuousLabels {
        /// `"truth"` or `"prediction"`.
        side: &'static str,
        /// The offending value.
        value: f64,
    },
    /// One side has string labels and the other numbers.
    #[error("mix of label types: truth holds {truth} labels, prediction holds {prediction} labels")]
    MixedLabelTypes {
        /// `"string"` or `"number"`.
        truth: &'static str,
        /// `"string"` or `"number"`.
        prediction: &'static str,
    },
    /// A binary metric was given more than two classes.
    #[error("{metric} is binary but the labels hold more than two classes")]
    NotBinary {
        /// The metric.
        metric: &'static str,
    },
    /// The positive label 1 is absent from two-class labels.
    #[error("{metric}: the positive label 1 is not one of the two labels present")]
    NoPositiveLabel {
        /// The metric.
        metric: &'static str,
    },
    /// Truth and prediction have different numbers of columns.
    #[error("truth has {truth} columns, prediction has {prediction}")]
    ColumnCountMismatch {
        /// Truth columns.
        truth: usize,
        /// Prediction columns.
        prediction: usize,
    },
    /// A metric name nobody implements.
    #[error("unknown metric `{name}`")]
    UnknownMetric {
        /// The name.
        name: String,
    },
    /// A metric parameter is missing or invalid.
    #[error("metric parameter `{param}`: {reason}")]
    BadParameter {
        /// The parameter.
        param: String,
        /// What is wrong.
        reason: String,
    },
    /// A leaderboard has no rows.
    #[error("the leaderboard is empty")]
    EmptyLeaderboard,

    // --- submissions ---
    /// The submission file does not exist.
    #[error("submission file not found: {path}")]
    SubmissionMissing {
        /// The path.
        path: String,
    },
    /// The submission could not be read as CSV.
    #[error("submission is not a readable CSV: {reason}")]
    NotCsv {
        /// The reader's message.
        reason: String,
    },
    /// Required columns are absent.
    #[error("submission lacks column(s) {}", columns.join(", "))]
    MissingColumns {
        /// The absent columns, quoted (at most ten, then how many more).
        columns: Vec<String>,
    },
    /// Columns besides the id and prediction columns.
    #[error("submission has unexpected column(s) {}", columns.join(", "))]
    ExtraColumns {
        /// The unexpected columns, quoted (at most ten, then how many more).
        columns: Vec<String>,
    },
    /// The submission's row count differs from the answers'.
    #[error("submission has {found} rows, expected {expected}")]
    RowCount {
        /// The answers' row count.
        expected: usize,
        /// The submission's.
        found: usize,
    },
    /// An id appears more than once.
    #[error("submission repeats id `{id}`")]
    DuplicateId {
        /// The repeated id.
        id: String,
    },
    /// A submission row has no id.
    #[error("submission row {row} has no id")]
    MissingId {
        /// 1-based data row of the submission (the header not counted).
        row: usize,
    },
    /// The submission's ids are not the answers' ids.
    #[error("submission ids do not match the test ids: `{unexpected}` is not a test id")]
    UnknownId {
        /// An id of the submission that the answers lack.
        unexpected: String,
    },
    /// A value that should be a number is not.
    #[error("column `{column}` row {row}: `{value}` is not a number")]
    NotNumeric {
        /// The column.
        column: String,
        /// 1-based data row of the submission (the header not counted).
        row: usize,
        /// The value.
        value: String,
    },
    /// A value is missing (empty or NaN) where one is needed.
    #[error("column `{column}` row {row} is missing or NaN")]
    MissingValue {
        /// The column.
        column: String,
        /// 1-based data row of the submission (the header not counted).
        row: usize,
    },
    /// A probability outside `[0, 1]`.
    #[error("column `{column}` row {row}: {value} is not a probability in [0, 1]")]
    ProbabilityOutOfRange {
        /// The column.
        column: String,
        /// 1-based data row of the submission (the header not counted).
        row: usize,
        /// The value.
        value: f64,
    },
    /// A row of class probabilities does not sum to 1.
    #[error("row {row}: class probabilities sum to {sum}, not 1 (tolerance {tolerance})")]
    RowSum {
        /// 1-based data row of the submission (the header not counted).
        row: usize,
        /// The sum.
        sum: f64,
        /// The tolerance.
        tolerance: f64,
    },
}

impl Error {
    /// `true` when the fault lies with the environment rather than the
    /// submission: an unknown metric or bad parameter, or truth values the
    /// metric cannot score (a single class, missing, negative or
    /// non-integral labels in the answers).
    pub fn is_environment_fault(&self) -> bool {
        matches!(
            self,
            Error::UnknownMetric { .. }
                | Error::BadParameter { .. }
                | Error::SingleClass { .. }
                | Error::EmptyLeaderboard
        ) || matches!(
            self,
            Error::NonFinite { side: "truth", .. }
                | Error::LogDomain { side: "truth", .. }
                | Error::ContinuousLabels { side: "truth", .. }
        )
    }
}

/// `answers.csv`'s path inside an environment.
pub(crate) const ANSWERS_FILE: &str = "prepared/private/answers.csv";

impl Error {
    /// The environment file an environment fault lies in, relative to the
    /// environment directory: `grading.json` for the metric and its
    /// parameters, `leaderboard.csv` for an empty leaderboard, `answers.csv`
    /// otherwise.
    pub fn fault_file(&self) -> &'static str {
        match self {
            Error::UnknownMetric { .. } | Error::BadParameter { .. } => "prepared/private/grading.json",
            Error::EmptyLeaderboard => "prepared/private/leaderboard.csv",
            _ => ANSWERS_FILE,
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl sandmle_core::Blame for Error {
    /// The environment's ([`Error::is_environment_fault`]), else the
    /// submission's: an invalid submission.
    fn fault(&self) -> sandmle_core::Fault {
        if self.is_environment_fault() { sandmle_core::Fault::Environment } else { sandmle_core::Fault::Agent }
    }

    fn kind(&self) -> sandmle_core::FailureKind {
        match self.fault() {
            sandmle_core::Fault::Agent => sandmle_core::FailureKind::InvalidSubmission,
            other => other.kind(),
        }
    }
}

impl From<Error> for sandmle_core::Error {
    fn from(e: Error) -> Self {
        sandmle_core::Error::port("metric", e)
    }
}
