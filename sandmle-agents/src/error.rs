//! The one error type of `sandmle-agents`.

/// What can go wrong in the agents layer. Variants say whose fault it is:
/// the agent's (a malformed turn, a failed program: usually an observation,
/// not an error), a role's (an LLM reply that stays invalid), or the
/// system's (a broken environment, an executor fault, a failed write).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An error from `sandmle-core` or from a port's implementation.
    #[error(transparent)]
    Core(#[from] sandmle_core::Error),
    /// A setting is out of range.
    #[error("{setting}: {reason}")]
    BadSetting {
        /// The setting.
        setting: &'static str,
        /// What is wrong.
        reason: String,
    },
    // --- generation: roles and the Foundry ---
    /// An LLM-backed role's replies stayed invalid through every repair.
    #[error("{role}: no valid reply after {attempts} attempts: {reason}")]
    LlmReply {
        /// The role.
        role: &'static str,
        /// Replies asked for.
        attempts: u32,
        /// Why the last one was invalid.
        reason: String,
    },
    /// A description would reveal the hidden rule.
    #[error("the description {leak}")]
    LeakingDescription {
        /// The first leak found.
        leak: String,
    },
    /// A file of the Foundry's output could not be written or read.
    #[error("{}: {reason}", path.display())]
    Output {
        /// The file.
        path: std::path::PathBuf,
        /// What went wrong.
        reason: String,
    },
    // --- the RL environment, codecs, rewards and rollouts ---
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<Error> for sandmle_core::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Core(inner) => inner,
            other => sandmle_core::Error::port("agents", other),
        }
    }
}
