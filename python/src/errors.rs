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

/// Whose fault an error is: core's one table (`sandmle_core::FailureKind`).
pub use sandmle_core::FailureKind as Kind;

/// An error on its way to Python: the failure every front end reports
/// (`sandmle::failure::Failure`, built from any crate's error by its
/// `Blame`), here so that it can become a `PyErr`.
#[derive(Debug)]
pub struct Failure(pub sandmle::failure::Failure);

impl Failure {
    /// A failure of `kind`.
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Failure(sandmle::failure::Failure::new(kind, message))
    }

    /// The same failure, its message prefixed with the path it concerns.
    pub fn with_context(self, path: &std::path::Path) -> Self {
        Failure(self.0.with_context(path))
    }

    /// The same failure, carrying `output` (the evaluator's report, for an
    /// invalid submission) as the exception's `report`.
    pub fn with_output(self, output: serde_json::Value) -> Self {
        Failure(self.0.with_output(output))
    }
}

macro_rules! failure_from {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for Failure {
            fn from(e: $error) -> Self {
                Failure(e.into())
            }
        }
    )*};
}

failure_from!(sandmle::failure::Failure, sandmle_core::Error, sandmle_agents::Error);

impl From<Failure> for PyErr {
    fn from(Failure(f): Failure) -> PyErr {
        // The class is the kind's (`Kind::python_class` names the same ones).
        let err = match f.kind {
            Kind::InvalidSubmission => InvalidSubmission::new_err(f.message),
            Kind::SolutionFailed => SolutionFailed::new_err(f.message),
            Kind::BadArguments => BadArguments::new_err(f.message),
            Kind::BrokenEnvironment => BrokenEnvironment::new_err(f.message),
            _ => SystemFault::new_err(f.message),
        };
        if let Some(report) = f.output {
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
    let kind = |k: Kind| Some(k.as_str());
    let classes = [
        ("SandmleError", py.get_type::<SandmleError>(), None),
        (Kind::InvalidSubmission.python_class(), py.get_type::<InvalidSubmission>(), kind(Kind::InvalidSubmission)),
        (Kind::SolutionFailed.python_class(), py.get_type::<SolutionFailed>(), kind(Kind::SolutionFailed)),
        (Kind::BadArguments.python_class(), py.get_type::<BadArguments>(), kind(Kind::BadArguments)),
        (Kind::BrokenEnvironment.python_class(), py.get_type::<BrokenEnvironment>(), kind(Kind::BrokenEnvironment)),
        (Kind::System.python_class(), py.get_type::<SystemFault>(), kind(Kind::System)),
    ];
    for (name, class, kind) in classes {
        class.setattr("kind", kind)?;
        class.setattr("report", py.None())?;
        m.add(name, class)?;
    }
    Ok(())
}
