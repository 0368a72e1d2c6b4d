//! The one error type of `sandmle-import`.

use std::path::PathBuf;

/// Why a competition could not be imported.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The competition's files are not laid out as expected: names the
    /// file or folder and what was expected there.
    #[error("{}: expected {expected}", path.display())]
    Layout {
        /// The file or folder.
        path: PathBuf,
        /// What was expected.
        expected: String,
    },
    /// A file (on disk or in an archive; its path below `prepared/`)
    /// cannot be read as what it should be.
    #[error("{file}: {reason}")]
    File {
        /// The file.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// The options are wrong, or what they leave to detection is
    /// ambiguous: says which option settles it.
    #[error("{reason}")]
    Options {
        /// What is wrong, and what to give.
        reason: String,
    },
    /// An error from `sandmle-core` (tables, images, the environment).
    #[error(transparent)]
    Core(#[from] sandmle_core::Error),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl sandmle_core::Blame for Error {
    /// A layout or file the import cannot read is the competition's (the
    /// environment's); options the caller's.
    fn fault(&self) -> sandmle_core::Fault {
        use sandmle_core::Fault;
        match self {
            Error::Core(inner) => inner.fault(),
            Error::Layout { .. } | Error::File { .. } => Fault::Environment,
            Error::Options { .. } => Fault::Caller,
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
            other => sandmle_core::Error::port("import", other),
        }
    }
}
