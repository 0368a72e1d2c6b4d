//! The one error type of `sandmle-exec`.

/// Why a solution could not be run.
///
/// Every variant carries its context in fields; smartcore's errors are
/// wrapped at one boundary ([`Error::Model`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The pipeline spec is not valid JSON for [`crate::PipelineSpec`].
    #[error("invalid pipeline spec: {reason}")]
    Spec {
        /// serde's message.
        reason: String,
    },
    /// A step names a column the data does not have.
    #[error("unknown column `{column}`")]
    UnknownColumn {
        /// The column.
        column: String,
    },
    /// A training feature is absent from `test.csv`.
    #[error("feature `{column}` is in train.csv but not in test.csv")]
    MissingTestColumn {
        /// The column.
        column: String,
    },
    /// The model cannot serve the task (a classifier for regression, ...).
    #[error("model `{model}` cannot {task}")]
    ModelUnfit {
        /// The model's type name.
        model: String,
        /// What it was asked to do.
        task: String,
    },
    /// A hyper-parameter is out of range.
    #[error("model `{model}`: `{param}` {reason}")]
    BadParameter {
        /// The model or step.
        model: &'static str,
        /// The parameter.
        param: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// Too few rows for what was asked (k neighbours, more features than rows, ...).
    #[error("{what} needs at least {needed} training rows, there are {found}")]
    TooFewRows {
        /// What needs them.
        what: String,
        /// Rows needed.
        needed: usize,
        /// Rows available.
        found: usize,
    },
    /// A feature is still categorical or text when the model runs.
    #[error("feature `{column}` is not numeric: add an `encode` (categories) or `text` step")]
    NonNumericFeature {
        /// The column.
        column: String,
    },
    /// A feature still has missing values when the model runs.
    #[error("feature `{column}` has missing values: add an `impute` step")]
    MissingValues {
        /// The column.
        column: String,
    },
    /// No features are left to learn from.
    #[error("no features left after preprocessing")]
    NoFeatures,
    /// A target value is missing or not usable.
    #[error("target `{column}` row {row}: {reason}")]
    BadTarget {
        /// The target column.
        column: String,
        /// 1-based data row of train.csv.
        row: usize,
        /// What is wrong.
        reason: String,
    },
    /// The training target has one class where the task needs two or more.
    #[error("target `{column}` has a single class in the training rows")]
    SingleClass {
        /// The target column.
        column: String,
    },
    /// The task cannot be served by a pipeline (for example a metric whose
    /// submission form needs something no model predicts).
    #[error("unsupported task: {reason}")]
    UnsupportedTask {
        /// Why.
        reason: String,
    },
    /// smartcore failed to fit or predict.
    #[error("model `{model}`: {message}")]
    Model {
        /// The model's type name.
        model: &'static str,
        /// smartcore's message.
        message: String,
    },
    /// smartcore panicked; the panic was contained.
    #[error("model `{model}` panicked: {message}")]
    ModelPanicked {
        /// The model's type name.
        model: &'static str,
        /// The panic message.
        message: String,
    },
    /// The model produced a non-finite prediction.
    #[error("model `{model}` produced a non-finite prediction")]
    NonFinitePrediction {
        /// The model's type name.
        model: String,
    },
    /// The run went past its time limit (checked between steps, before
    /// every model call and between the trees of a forest).
    #[error("the pipeline ran past its time limit of {limit:?}")]
    TimeLimit {
        /// The limit.
        limit: std::time::Duration,
    },
    /// The process executor (the sandbox) could not run a program: its
    /// own error type, [`crate::SandboxError`].
    #[error(transparent)]
    Process(#[from] crate::process::Error),
    /// An image of the environment is missing or cannot be decoded: the
    /// environment is broken, not the solution (converted into
    /// [`sandmle_core::Error::InvalidEnvironment`]).
    #[error("image `{file}`: {reason}")]
    Image {
        /// The file (`images/17.png`), or the row without an id.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// An audio clip is missing or cannot be decoded (the environment is
    /// broken).
    #[error("audio `{file}`: {reason}")]
    Audio {
        /// The file (`audio/17.wav`), or the row without an id.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// An error from `sandmle-core` (reading or writing tables).
    #[error(transparent)]
    Core(#[from] sandmle_core::Error),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl sandmle_core::Blame for Error {
    /// The solution's errors ([`Error::is_solution_fault`]) are the agent's;
    /// a broken image the environment's; the sandbox's its own (the
    /// system's).
    fn fault(&self) -> sandmle_core::Fault {
        use sandmle_core::Fault;
        match self {
            Error::Core(inner) => inner.fault(),
            Error::Process(inner) => inner.fault(),
            Error::Image { .. } | Error::Audio { .. } => Fault::Environment,
            e if e.is_solution_fault() => Fault::Agent,
            _ => Fault::System,
        }
    }

    fn kind(&self) -> sandmle_core::FailureKind {
        match self {
            Error::Core(inner) => inner.kind(),
            other => other.fault().kind(),
        }
    }
}

impl From<Error> for sandmle_core::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Core(inner) => inner,
            Error::Image { file, reason } => {
                sandmle_core::Error::InvalidEnvironment { reason: format!("image `{file}`: {reason}") }
            }
            Error::Audio { file, reason } => {
                sandmle_core::Error::InvalidEnvironment { reason: format!("audio `{file}`: {reason}") }
            }
            other => sandmle_core::Error::port("executor", other),
        }
    }
}

impl Error {
    /// `true` when the solution is at fault, not the executor: an invalid
    /// spec, a step or model unfit for the task's data, a model that fails
    /// or panics on it, a run past its time limit. Executors report these
    /// as [`sandmle_core::ExecStatus::Rejected`] (or `TimedOut`) executions;
    /// the rest ([`Error::Process`], the sandbox's, and [`Error::Core`]) are
    /// the executor's own faults, and [`Error::Image`] the environment's.
    pub fn is_solution_fault(&self) -> bool {
        !matches!(self, Error::Process(_) | Error::Image { .. } | Error::Audio { .. } | Error::Core(_))
    }
}
