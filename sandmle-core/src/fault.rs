//! Whose fault a failure is, decided once: every crate's error answers
//! [`Blame::fault`], and one table ([`FailureKind`]) turns it into what each
//! front end shows — the command line's `error.kind` and exit code, the
//! server's OpenEnv error code, the Python exception class.
//!
//! | fault | kind (`--json` `error.kind`) | exit | server code | Python class |
//! |---|---|---|---|---|
//! | [`Fault::Agent`] | `invalid_submission` / `solution_failed` | 1 | `EXECUTION_ERROR` | `InvalidSubmission` / `SolutionFailed` |
//! | [`Fault::Caller`] | `bad_arguments` | 2 | `VALIDATION_ERROR` | `BadArguments` |
//! | [`Fault::Environment`] | `broken_environment` | 2 | `FACTORY_ERROR` | `BrokenEnvironment` |
//! | [`Fault::System`] | `system` | 2 | `EXECUTION_ERROR` | `SystemFault` |
//!
//! An agent's fault has two kinds: a submission the grader refuses
//! (`invalid_submission`) and a program that failed (`solution_failed`);
//! errors choose with [`Blame::kind`], which defaults to the fault's
//! usual kind ([`Fault::kind`]).

use serde::{Deserialize, Serialize};

/// Whose fault a failure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Fault {
    /// The agent's: its submission is invalid, its program failed, timed
    /// out or went over a limit.
    Agent,
    /// The caller's: bad arguments or options.
    Caller,
    /// The environment's (or seed's): broken, inconsistent, or hostile.
    Environment,
    /// The machine's or a dependency's: no sandbox, a full disk, an
    /// executor or server that failed.
    System,
}

impl Fault {
    /// The fault's usual failure kind (an agent's is `solution_failed`).
    pub fn kind(self) -> FailureKind {
        match self {
            Fault::Agent => FailureKind::SolutionFailed,
            Fault::Caller => FailureKind::BadArguments,
            Fault::Environment => FailureKind::BrokenEnvironment,
            Fault::System => FailureKind::System,
        }
    }
}

/// What the front ends show for a failure (the table of the
/// [module documentation](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FailureKind {
    /// The grader refused the submission.
    InvalidSubmission,
    /// The agent's solution failed to run, timed out or went over a limit.
    SolutionFailed,
    /// The arguments or options are wrong.
    BadArguments,
    /// The environment cannot be read or graded.
    BrokenEnvironment,
    /// The machine or a dependency failed.
    System,
}

impl FailureKind {
    /// Every kind, in the table's order.
    pub const ALL: [FailureKind; 5] = [
        FailureKind::InvalidSubmission,
        FailureKind::SolutionFailed,
        FailureKind::BadArguments,
        FailureKind::BrokenEnvironment,
        FailureKind::System,
    ];

    /// Whose fault it is.
    pub fn fault(self) -> Fault {
        match self {
            FailureKind::InvalidSubmission | FailureKind::SolutionFailed => Fault::Agent,
            FailureKind::BadArguments => Fault::Caller,
            FailureKind::BrokenEnvironment => Fault::Environment,
            FailureKind::System => Fault::System,
        }
    }

    /// The command line's `error.kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::InvalidSubmission => "invalid_submission",
            FailureKind::SolutionFailed => "solution_failed",
            FailureKind::BadArguments => "bad_arguments",
            FailureKind::BrokenEnvironment => "broken_environment",
            FailureKind::System => "system",
        }
    }

    /// The command line's exit code: 1 when the agent is at fault, 2
    /// otherwise.
    pub fn exit_code(self) -> u8 {
        if self.fault() == Fault::Agent { 1 } else { 2 }
    }

    /// The server's OpenEnv error code.
    pub fn wire_code(self) -> &'static str {
        match self.fault() {
            Fault::Caller => "VALIDATION_ERROR",
            Fault::Environment => "FACTORY_ERROR",
            _ => "EXECUTION_ERROR",
        }
    }

    /// The Python package's exception class.
    pub fn python_class(self) -> &'static str {
        match self {
            FailureKind::InvalidSubmission => "InvalidSubmission",
            FailureKind::SolutionFailed => "SolutionFailed",
            FailureKind::BadArguments => "BadArguments",
            FailureKind::BrokenEnvironment => "BrokenEnvironment",
            FailureKind::System => "SystemFault",
        }
    }
}

/// An error that knows whose fault it is. Every error type of the
/// workspace implements it; [`crate::Error::port`] keeps it across the
/// ports.
pub trait Blame {
    /// Whose fault the error is.
    fn fault(&self) -> Fault;

    /// What the front ends show for it (default: the fault's usual kind).
    fn kind(&self) -> FailureKind {
        self.fault().kind()
    }
}

impl<T: Blame + ?Sized> Blame for &T {
    fn fault(&self) -> Fault {
        (**self).fault()
    }
    fn kind(&self) -> FailureKind {
        (**self).kind()
    }
}

impl<T: Blame + ?Sized> Blame for Box<T> {
    fn fault(&self) -> Fault {
        (**self).fault()
    }
    fn kind(&self) -> FailureKind {
        (**self).kind()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_goes_back_to_its_fault_and_agents_alone_exit_1() {
        for k in FailureKind::ALL {
            assert_eq!(k.fault().kind().fault(), k.fault());
            assert_eq!(k.exit_code() == 1, k.fault() == Fault::Agent, "{k:?}");
            assert_eq!(serde_json::to_value(k).unwrap(), serde_json::json!(k.as_str()));
        }
    }
}
