//! The failure every front end reports — the command line, the Python
//! package — built from any crate's error through its [`Blame`]: one
//! mapping, so the same error is the same kind everywhere (the table is
//! [`sandmle_core::FailureKind`]'s).

use sandmle_core::{Blame, FailureKind, one_line};
use std::path::Path;

/// The longest message reported, in characters.
pub const MESSAGE_CHARS: usize = 600;

/// A failed operation: its kind, a one-line bounded message and, when the
/// operation has more to say (an invalid submission's report, a run's
/// tails), the JSON object reported instead of the bare error.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// What the front ends show.
    pub kind: FailureKind,
    /// What happened, one line.
    pub message: String,
    /// The object printed (or attached) with the error, if any.
    pub output: Option<serde_json::Value>,
}

impl Failure {
    /// A failure of `kind`.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        Failure { kind, message: one_line(&message.into(), MESSAGE_CHARS), output: None }
    }

    /// The failure an error stands for: its kind and its message.
    pub fn blamed(e: &(impl Blame + std::fmt::Display + ?Sized)) -> Self {
        Failure::new(e.kind(), e.to_string())
    }

    /// `invalid_submission`.
    pub fn invalid(message: impl Into<String>) -> Self {
        Failure::new(FailureKind::InvalidSubmission, message)
    }

    /// `solution_failed`.
    pub fn solution(message: impl Into<String>) -> Self {
        Failure::new(FailureKind::SolutionFailed, message)
    }

    /// `bad_arguments`.
    pub fn usage(message: impl Into<String>) -> Self {
        Failure::new(FailureKind::BadArguments, message)
    }

    /// `broken_environment`.
    pub fn broken(message: impl Into<String>) -> Self {
        Failure::new(FailureKind::BrokenEnvironment, message)
    }

    /// `system`.
    pub fn system(message: impl Into<String>) -> Self {
        Failure::new(FailureKind::System, message)
    }

    /// The same failure, its message prefixed with the path it concerns.
    pub fn with_context(self, path: &Path) -> Self {
        Failure { message: one_line(&format!("{}: {}", path.display(), self.message), MESSAGE_CHARS), ..self }
    }

    /// The object reported instead of the bare error.
    pub fn with_output(mut self, output: serde_json::Value) -> Self {
        self.output = Some(output);
        self
    }

    /// The command line's exit code.
    pub fn exit_code(&self) -> u8 {
        self.kind.exit_code()
    }
}

macro_rules! blamed_from {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for Failure {
            fn from(e: $error) -> Self {
                Failure::blamed(&e)
            }
        }
    )*};
}

blamed_from!(
    sandmle_core::Error,
    sandmle_metrics::Error,
    sandmle_exec::Error,
    sandmle_exec::SandboxError,
    sandmle_synth::Error,
    sandmle_agents::Error,
    sandmle_import::Error
);
