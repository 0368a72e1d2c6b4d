//! Output and failure conventions shared by the subcommands.
//!
//! With `--json` every outcome is exactly one JSON object on stdout: the
//! subcommand's result, or for a failure `{"error": {"kind", "message"},
//! ...}` (an invalid submission to `evaluate` prints the evaluator's report,
//! whose `error` is the reason). Messages are one line and bounded, on
//! stderr. Exit codes: 0 success, 1 the submission or solution is at fault,
//! 2 bad arguments or a broken environment.

use sandmle_core::one_line;
use serde::Serialize;
use std::process::ExitCode;

/// The longest message printed, in characters.
const MESSAGE_CHARS: usize = 600;

/// Whose fault a failure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The submission is invalid (exit 1).
    InvalidSubmission,
    /// The agent's solution failed: it crashed, timed out, hit a limit,
    /// wrote no submission or was rejected (exit 1).
    SolutionFailed,
    /// The command line is wrong (exit 2).
    BadArguments,
    /// The environment cannot grade anything (exit 2).
    BrokenEnvironment,
    /// A file could not be read or written, or the executor failed (exit 2).
    System,
}

/// A failed command: its kind, a one-line message, and, when the command
/// has more to say, the JSON object it prints instead of the bare error.
#[derive(Debug)]
pub struct Failure {
    pub kind: Kind,
    pub message: String,
    pub output: Option<serde_json::Value>,
}

impl Failure {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Failure { kind, message: one_line(&message.into(), MESSAGE_CHARS), output: None }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Failure::new(Kind::InvalidSubmission, message)
    }

    pub fn solution(message: impl Into<String>) -> Self {
        Failure::new(Kind::SolutionFailed, message)
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Failure::new(Kind::BadArguments, message)
    }

    pub fn broken(message: impl Into<String>) -> Self {
        Failure::new(Kind::BrokenEnvironment, message)
    }

    /// The object printed with `--json` instead of the bare error; its
    /// `error` key is set to `{"kind", "message"}` unless it has one.
    pub fn with_output(mut self, output: serde_json::Value) -> Self {
        self.output = Some(output);
        self
    }

    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(match self.kind {
            Kind::InvalidSubmission | Kind::SolutionFailed => 1,
            Kind::BadArguments | Kind::BrokenEnvironment | Kind::System => 2,
        })
    }

    /// Reports the failure: one line on stderr and, with `--json`, one
    /// object on stdout.
    pub fn report(self, json: bool) -> ExitCode {
        let label = match self.kind {
            Kind::InvalidSubmission => "invalid submission: ",
            Kind::SolutionFailed => "solution failed: ",
            _ => "",
        };
        eprintln!("sandmle: {label}{}", self.message);
        let code = self.exit_code();
        if json {
            let error = serde_json::json!({"kind": self.kind, "message": self.message});
            let value = match self.output {
                Some(serde_json::Value::Object(mut map)) => {
                    map.entry("error").or_insert(error);
                    serde_json::Value::Object(map)
                }
                _ => serde_json::json!({ "error": error }),
            };
            print_json(&value);
        }
        code
    }
}

impl From<sandmle_core::Error> for Failure {
    fn from(e: sandmle_core::Error) -> Self {
        use sandmle_core::Error as E;
        let kind = match &e {
            E::Io { .. } => Kind::System,
            _ => Kind::BrokenEnvironment,
        };
        Failure::new(kind, e.to_string())
    }
}

impl From<sandmle_metrics::Error> for Failure {
    fn from(e: sandmle_metrics::Error) -> Self {
        Failure::usage(e.to_string())
    }
}

/// Prints a line on stdout. A closed pipe (`sandmle ... | head`) ends the
/// output quietly instead of panicking as `println!` does.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
pub(crate) use say;

/// Prints a value as one line of JSON.
pub fn print_json(value: &serde_json::Value) {
    say!("{value}");
}

/// A typed value as JSON.
pub fn to_json<T: Serialize>(value: &T) -> Result<serde_json::Value, Failure> {
    serde_json::to_value(value).map_err(|e| Failure::new(Kind::System, format!("JSON output: {e}")))
}

/// Prints a typed value as one line of JSON.
pub fn print_typed<T: Serialize>(value: &T) -> Result<(), Failure> {
    print_json(&to_json(value)?);
    Ok(())
}

/// A float for human output (`-` when absent).
pub fn fmt_opt(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |v| format!("{v}"))
}
