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
    /// A generator program the ML Developer wrote kept failing (to run, to
    /// fit its brief, or a gate) through every repair.
    #[error("ml developer: no working generator program after {attempts} attempts: {reason}")]
    GeneratorProgram {
        /// Programs asked for.
        attempts: u32,
        /// Why the last one failed.
        reason: String,
    },
    /// A description would reveal the hidden rule.
    #[error("the description {leak}")]
    LeakingDescription {
        /// The first leak found.
        leak: String,
    },
    /// A chat server answered with an error that retrying cannot mend
    /// (a 4xx other than 429).
    #[error("the chat server answered HTTP {status}: {message}")]
    Http {
        /// The status.
        status: u16,
        /// The server's message, bounded.
        message: String,
    },
    /// A chat server stayed unreachable or overloaded through every retry.
    #[error("the chat server is unavailable after {attempts} attempts: {reason}")]
    Unavailable {
        /// Attempts made.
        attempts: u32,
        /// The last failure.
        reason: String,
    },
    /// A chat server's reply is not the protocol's JSON.
    #[error("the chat server's reply is malformed: {reason}")]
    BadReply {
        /// What is wrong.
        reason: String,
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

impl Error {
    /// `true` when an LLM-backed role or its chat model is at fault: replies
    /// that stayed invalid, or a server that failed.
    pub fn is_llm_failure(&self) -> bool {
        match self {
            Error::LlmReply { .. }
            | Error::GeneratorProgram { .. }
            | Error::Http { .. }
            | Error::Unavailable { .. }
            | Error::BadReply { .. } => true,
            Error::Core(sandmle_core::Error::Port { source, .. }) => {
                source.downcast_ref::<Error>().is_some_and(Error::is_llm_failure)
            }
            _ => false,
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl sandmle_core::Blame for Error {
    /// A bad setting, or a step outside a running episode, is the caller's;
    /// a policy that failed the agent's; chat servers, LLM roles and
    /// outputs the system's.
    fn fault(&self) -> sandmle_core::Fault {
        use sandmle_core::Fault;
        match self {
            Error::Core(inner) => inner.fault(),
            Error::BadSetting { .. } | Error::EpisodeNotRunning => Fault::Caller,
            Error::Policy { .. } => Fault::Agent,
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
            other => sandmle_core::Error::port("agents", other),
        }
    }
}
