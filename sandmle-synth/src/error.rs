//! The one error type of `sandmle-synth`.

/// Why a micro environment could not be made or checked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The seed has too few labelled rows for the requested sizes.
    #[error("the seed has {available} labelled rows, {needed} are needed")]
    TooFewRows {
        /// Rows needed.
        needed: usize,
        /// Rows available.
        available: usize,
    },
    /// A size or setting is out of range.
    #[error("`{setting}` {reason}")]
    BadSetting {
        /// The setting.
        setting: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The task cannot be shrunk or synthesised (for example a target that
    /// is neither classes nor numbers).
    #[error("unsupported task: {reason}")]
    Unsupported {
        /// Why.
        reason: String,
    },
    /// A task plan cannot be realised as given (names not distinct, an
    /// unknown rule family, ...): the planner's fault, an LLM's included.
    #[error("invalid task plan: {reason}")]
    BadPlan {
        /// What is wrong.
        reason: String,
    },
    /// A stratified sample kept missing rates or rare categories outside
    /// the tolerance, for every attempt.
    #[error("no sample within tolerance after {attempts} attempts: {reason}")]
    OutOfTolerance {
        /// Attempts made.
        attempts: usize,
        /// The last violation.
        reason: String,
    },
    /// An error from `sandmle-core` (tables, environments, ports).
    #[error(transparent)]
    Core(#[from] sandmle_core::Error),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl sandmle_core::Blame for Error {
    /// A seed too small or of an unsupported task is the environment's; a
    /// bad setting the caller's; a plan or a draw that fails the system's
    /// (the generator's).
    fn fault(&self) -> sandmle_core::Fault {
        use sandmle_core::Fault;
        match self {
            Error::Core(inner) => inner.fault(),
            Error::TooFewRows { .. } | Error::Unsupported { .. } => Fault::Environment,
            Error::BadSetting { .. } => Fault::Caller,
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
            other => sandmle_core::Error::port("synth", other),
        }
    }
}
