//! Output and failure conventions shared by the subcommands.
//!
//! With `--json` every outcome is exactly one JSON object on stdout: the
//! subcommand's result, or for a failure `{"error": {"kind", "message"},
//! ...}` (an invalid submission to `evaluate` prints the evaluator's report,
//! whose `error` is the reason). Messages are one line and bounded, on
//! stderr. Exit codes: 0 success, 1 the submission or solution is at fault,
//! 2 bad arguments or a broken environment.

use serde::Serialize;
use std::process::ExitCode;

pub use sandmle::failure::Failure;
/// Whose fault a failure is: core's one table.
pub use sandmle_core::FailureKind as Kind;

/// Reports a failure: one line on stderr and, with `--json`, one object on
/// stdout (the failure's output with `error` set to `{"kind", "message"}`
/// unless it has one); answers the exit code.
pub fn report(f: Failure, json: bool) -> ExitCode {
    let label = match f.kind {
        Kind::InvalidSubmission => "invalid submission: ",
        Kind::SolutionFailed => "solution failed: ",
        _ => "",
    };
    eprintln!("sandmle: {label}{}", f.message);
    if json {
        let error = serde_json::json!({"kind": f.kind, "message": f.message});
        let value = match f.output {
            Some(serde_json::Value::Object(mut map)) => {
                map.entry("error").or_insert(error);
                serde_json::Value::Object(map)
            }
            _ => serde_json::json!({ "error": error }),
        };
        print_json(&value);
    }
    ExitCode::from(f.kind.exit_code())
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
