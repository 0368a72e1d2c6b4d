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

    // --- the RL environment, codecs, rewards and rollouts ---
    /// A step was asked of an episode that was not reset or has ended.
    #[error("the episode is not running (call reset first; it ends at its answer or budget)")]
    EpisodeNotRunning,
    /// A policy could not produce a turn.
    #[error("policy `{policy}`: {reason}")]
    Policy {
        /// The policy's name.
        policy: String,
        /// What went wrong.
        reason: String,
    },
    /// A trajectory or export file could not be written or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
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
