//! Output and failure conventions shared by the subcommands.

use std::fmt;

/// Why a command failed, and so its exit code.
#[derive(Debug)]
pub enum Failure {
    /// The submission is invalid (exit 1).
    InvalidSubmission(String),
    /// Bad arguments or a broken environment (exit 2).
    Usage(String),
}

impl Failure {
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::InvalidSubmission(_) => 1,
            Failure::Usage(_) => 2,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::InvalidSubmission(m) => write!(f, "invalid submission: {m}"),
            Failure::Usage(m) => f.write_str(m),
        }
    }
}

impl From<sandmle_core::Error> for Failure {
    fn from(e: sandmle_core::Error) -> Self {
        Failure::Usage(e.to_string())
    }
}

impl From<sandmle_metrics::Error> for Failure {
    fn from(e: sandmle_metrics::Error) -> Self {
        Failure::Usage(e.to_string())
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

/// A float for human output (`-` when absent).
pub fn fmt_opt(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |v| format!("{v}"))
}
