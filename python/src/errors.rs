//! Python exception classes named after the command line's failure kinds
//! (`sandmle --json` prints them as `error.kind`), all subclasses of
//! `sandmle.SandmleError`, and the one place Rust errors become them.
//!
//! | class | `kind` | raised for |
//! |---|---|---|
//! | `InvalidSubmission` | `invalid_submission` | a submission `evaluate` refuses (`.report` holds the evaluator's dict) |
//! | `SolutionFailed` | `solution_failed` | an agent's solution that failed to run |
//! | `BadArguments` | `bad_arguments` | an unknown codec, reward, estimator or policy; a bad budget; a step outside an episode |
//! | `BrokenEnvironment` | `broken_environment` | an environment that cannot be read or graded (hashes, files, metric, thresholds) |
//! | `SystemFault` | `system` | I/O, no sandbox, an executor or chat server that failed |

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

pyo3::create_exception!(
    sandmle,
    SandmleError,
    PyException,
    "Every error of the sandmle package; `kind` names it as `sandmle --json` does."
);
pyo3::create_exception!(sandmle, InvalidSubmission, SandmleError, "The submission is invalid (`invalid_submission`).");
pyo3::create_exception!(sandmle, SolutionFailed, SandmleError, "The agent's solution failed (`solution_failed`).");
pyo3::create_exception!(sandmle, BadArguments, SandmleError, "An argument is wrong (`bad_arguments`).");
pyo3::create_exception!(
    sandmle,
    BrokenEnvironment,
    SandmleError,
    "The environment cannot grade anything (`broken_environment`)."
);
pyo3::create_exception!(
    sandmle,
    SystemFault,
    SandmleError,
    "A file, the sandbox, an executor or a server failed (`system`)."
);

/// Whose fault an error is: the command line's failure kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `invalid_submission`.
    InvalidSubmission,
    /// `solution_failed`.
    SolutionFailed,
    /// `bad_arguments`.
    BadArguments,
    /// `broken_environment`.
    BrokenEnvironment,
    /// `system`.
    System,
}

/// An error on its way to Python: a kind, a one-line message and, for an
/// invalid submission, the evaluator's report.
#[derive(Debug)]
pub struct Failure {
    /// Whose fault.
    pub kind: Kind,
    /// What happened.
    pub message: String,
    /// The evaluator's JSON, for an invalid submission.
    pub report: Option<serde_json::Value>,
}

/// The longest message raised, in characters (as the command line's).
const MESSAGE_CHARS: usize = 600;

impl Failure {
    /// A failure of `kind`.
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Failure { kind, message: sandmle_core::one_line(&message.into(), MESSAGE_CHARS), report: None }
    }

    /// The same failure, its message prefixed with the path it concerns.
    pub fn with_context(self, path: &std::path::Path) -> Self {
        Failure {
            message: sandmle_core::one_line(&format!("{}: {}", path.display(), self.message), MESSAGE_CHARS),
            ..self
        }
    }
}

impl From<sandmle_core::Error> for Failure {
    fn from(e: sandmle_core::Error) -> Self {
        use sandmle_core::Error as E;
        let kind = match &e {
            E::Io { .. } | E::Port { .. } | E::Unsupported { .. } => Kind::System,
            _ => Kind::BrokenEnvironment,
        };
        Failure::new(kind, e.to_string())
    }
}

impl From<sandmle_agents::Error> for Failure {
    fn from(e: sandmle_agents::Error) -> Self {
        use sandmle_agents::Error as E;
        match e {
            E::Core(inner) => inner.into(),
            E::BadSetting { .. } => Failure::new(Kind::BadArguments, e.to_string()),
            E::EpisodeNotRunning => Failure::new(Kind::BadArguments, e.to_string()),
            other => Failure::new(Kind::System, other.to_string()),
        }
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        let err = match f.kind {
            Kind::InvalidSubmission => InvalidSubmission::new_err(f.message),
            Kind::SolutionFailed => SolutionFailed::new_err(f.message),
            Kind::BadArguments => BadArguments::new_err(f.message),
            Kind::BrokenEnvironment => BrokenEnvironment::new_err(f.message),
            Kind::System => SystemFault::new_err(f.message),
        };
        if let Some(report) = f.report {
            Python::attach(|py| {
                if let Ok(obj) = crate::convert::to_py(py, &report) {
                    // Setting an attribute on a fresh exception cannot fail
                    // in practice; the message stands either way.
                    let _ = err.value(py).setattr("report", obj);
                }
            });
        }
        err
    }
}

/// A `bad_arguments` error.
pub fn bad(message: impl Into<String>) -> PyErr {
    Failure::new(Kind::BadArguments, message).into()
}

/// A `system` error.
pub fn system(message: impl Into<String>) -> PyErr {
    Failure::new(Kind::System, message).into()
}

/// Registers the classes in `m`, each with its `kind` (and `report`,
/// `None` but on an invalid submission).
///
/// # Errors
/// Python's own.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let classes = [
        ("SandmleError", py.get_type::<SandmleError>(), None),
        ("InvalidSubmission", py.get_type::<InvalidSubmission>(), Some("invalid_submission")),
        ("SolutionFailed", py.get_type::<SolutionFailed>(), Some("solution_failed")),
        ("BadArguments", py.get_type::<BadArguments>(), Some("bad_arguments")),
        ("BrokenEnvironment", py.get_type::<BrokenEnvironment>(), Some("broken_environment")),
        ("SystemFault", py.get_type::<SystemFault>(), Some("system")),
    ];
    for (name, class, kind) in classes {
        class.setattr("kind", kind)?;
        class.setattr("report", py.None())?;
        m.add(name, class)?;
    }
    Ok(())
}
