//! The process executor's one error type: what stops it from running a
//! program at all (a program that fails, times out or goes over a limit is
//! an execution's status, never an error). Separate from the models' errors:
//! the sandbox depends on nothing of the rest of the crate.

use std::path::PathBuf;

/// Why the process executor could not run a program; every variant is the
/// system's fault (or the environment's, for core's errors).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or process operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The sandbox is required but cannot be created on this machine
    /// (bubblewrap is missing, broken, or refused by the kernel): the
    /// system's fault, not the program's, which was not run.
    #[error("no sandbox: {reason}; the program was not run (opt out with the unsandboxed mode only if you trust it)")]
    SandboxUnavailable {
        /// Why, with bubblewrap's own message.
        reason: String,
    },
    /// The sandbox could not be set up.
    #[error("sandbox: {reason}")]
    Sandbox {
        /// Why.
        reason: String,
    },
    /// The Python environment asked for cannot be exposed in the sandbox:
    /// no interpreter there, it does not run, or it would expose too much
    /// (a path such as `/home` or `/`).
    #[error("python environment {}: {reason}", interpreter.display())]
    Python {
        /// The interpreter or prefix that was asked for.
        interpreter: PathBuf,
        /// Why it cannot be used.
        reason: String,
    },
    /// An error from `sandmle-core` (writing the public files, reading the
    /// submission back).
    #[error(transparent)]
    Core(#[from] sandmle_core::Error),
}

/// `Result` with the sandbox's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}

impl sandmle_core::Blame for Error {
    /// The machine's (no sandbox, I/O, the Python environment), or core's.
    fn fault(&self) -> sandmle_core::Fault {
        match self {
            Error::Core(inner) => inner.fault(),
            _ => sandmle_core::Fault::System,
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
            other => sandmle_core::Error::port("executor", other),
        }
    }
}
