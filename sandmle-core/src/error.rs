//! The one error type of `sandmle-core`.

use crate::fault::{Blame, FailureKind, Fault};
use std::path::PathBuf;

/// Everything that can go wrong in the core: reading and writing tables and
/// environments, and failures reported by implementations of the ports.
///
/// The enum is `#[non_exhaustive]`: match the variants you handle and keep a
/// catch-all arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A CSV file is malformed or a field does not fit its column's type.
    #[error("{}:{line}{}: {reason}", path.display(), column.as_ref().map(|c| format!(": column `{c}`")).unwrap_or_default())]
    Csv {
        /// The file (or `<memory>` for in-memory input).
        path: PathBuf,
        /// 1-based line of the offending record (the header is line 1).
        line: u64,
        /// The column, where one is involved.
        column: Option<String>,
        /// What is wrong.
        reason: String,
    },
    /// A JSON file could not be parsed or does not match its schema.
    #[error("{}: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// A path to read names a FIFO, a device, a socket or a directory
    /// instead of a regular file (refused before it could block the reader).
    #[error("{}: is {kind}, not a regular file", path.display())]
    NotRegularFile {
        /// The path.
        path: PathBuf,
        /// What it is (`"a FIFO"`, `"a character device"`, ...).
        kind: &'static str,
    },
    /// A file to read is over its size limit (for a gzip file: its
    /// decompressed content).
    #[error("{}: {size} bytes or more, over the limit of {limit}", path.display())]
    FileTooLarge {
        /// The file.
        path: PathBuf,
        /// Its size, or the bytes read when the limit was passed.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// A CSV header has more columns than [`crate::csv::CsvLimits::max_columns`].
    #[error("{}: {found} columns, over the limit of {limit}", path.display())]
    TooManyColumns {
        /// The file.
        path: PathBuf,
        /// Columns in the header.
        found: usize,
        /// The limit.
        limit: usize,
    },
    /// A CSV field is longer than [`crate::csv::CsvLimits::max_field_bytes`].
    #[error("{}:{line}: column `{column}`: a field of {length} bytes, over the limit of {limit}", path.display())]
    FieldTooLong {
        /// The file.
        path: PathBuf,
        /// 1-based line of the record.
        line: u64,
        /// The column (or `#n` for a header field).
        column: String,
        /// The field's length in bytes.
        length: usize,
        /// The limit.
        limit: usize,
    },
    /// A write was refused because it would replace something this crate
    /// did not write: a device, a link, a directory that is no environment,
    /// or a file inside an environment's `prepared/` folder.
    #[error("refusing to write {}: it {reason}", path.display())]
    UnsafeOutput {
        /// The destination asked for.
        path: PathBuf,
        /// Why it is refused.
        reason: String,
    },
    /// A column was looked up by a name the table does not have.
    #[error("no column named `{name}`")]
    ColumnNotFound {
        /// The name asked for.
        name: String,
    },
    /// Two columns would share one name.
    #[error("duplicate column name `{name}`")]
    DuplicateColumn {
        /// The repeated name.
        name: String,
    },
    /// A column's length differs from the table's row count.
    #[error("column `{column}` has {found} rows, the table has {expected}")]
    LengthMismatch {
        /// The column.
        column: String,
        /// The table's row count.
        expected: usize,
        /// The column's length.
        found: usize,
    },
    /// A column was used as numbers but is not numeric.
    #[error("column `{column}` is not numeric")]
    NotNumeric {
        /// The column.
        column: String,
    },
    /// A row index is past the end of the table.
    #[error("row index {index} is out of range for a table of {rows} rows")]
    RowOutOfRange {
        /// The index asked for.
        index: usize,
        /// The table's row count.
        rows: usize,
    },
    /// A file the environment format requires is absent.
    #[error("missing file {}", path.display())]
    MissingFile {
        /// The path that should exist.
        path: PathBuf,
    },
    /// A file's content differs from the sha256 recorded in `grading.json`.
    #[error("hash mismatch in {}: grading.json records {expected}, the file has {found}", path.display())]
    HashMismatch {
        /// The file that changed.
        path: PathBuf,
        /// The recorded hash.
        expected: String,
        /// The hash of the file as it is.
        found: String,
    },
    /// `prepared/` holds an entry `grading.json` does not list (and so no
    /// hash protects): refused, since tools serving `public/` would hand it
    /// to agents.
    #[error("{} is not listed in grading.json", path.display())]
    UnlistedFile {
        /// The entry.
        path: PathBuf,
    },
    /// A file of `prepared/public/` that `grading.json` lists but that is no
    /// part of an environment's public files (`description.md`, the three
    /// tables, the image folder): agents would be handed whatever it holds
    /// (a copy of the answers, resealed), so it is refused and named.
    #[error("{} is listed in grading.json but is no part of an environment's public files", path.display())]
    UnexpectedPublicFile {
        /// The file.
        path: PathBuf,
    },
    /// `grading.json` has a schema version this build does not read.
    #[error("{}: schema version {found} is not supported (this build reads {supported})", path.display())]
    SchemaVersion {
        /// The `grading.json` file.
        path: PathBuf,
        /// The version found.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// The destination of a write exists and overwriting was not asked for.
    #[error("{} already exists", path.display())]
    AlreadyExists {
        /// The destination.
        path: PathBuf,
    },
    /// An environment or task is inconsistent (for example a target column
    /// missing from `train.csv`).
    #[error("invalid environment: {reason}")]
    InvalidEnvironment {
        /// What is inconsistent.
        reason: String,
    },
    /// A modality mix ([`crate::Mix`]) that cannot be read.
    #[error("invalid mix: {reason}")]
    InvalidMix {
        /// What is wrong.
        reason: String,
    },
    /// A leaderboard is empty or has no usable score column.
    #[error("invalid leaderboard {}: {reason}", path.display())]
    InvalidLeaderboard {
        /// The leaderboard file (or `<memory>`).
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// An environment that cannot grade any submission (an unknown metric,
    /// answers with no rows or repeated ids, no thresholds, answers the
    /// metric cannot score): the environment is at fault, not the agent.
    #[error("broken environment: {}: {reason}", file.display())]
    BrokenEnvironment {
        /// The file at fault, relative to the environment directory
        /// (`prepared/private/answers.csv`, ...).
        file: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A metric name the catalogue does not hold.
    #[error("unknown metric `{name}`")]
    UnknownMetric {
        /// The name.
        name: String,
    },
    /// A metric parameter is not one the metric takes, is missing, or is
    /// out of range.
    #[error("metric `{metric}`: parameter `{param}` {reason}")]
    MetricParameter {
        /// The metric.
        metric: String,
        /// The parameter.
        param: String,
        /// What is wrong.
        reason: String,
    },
    /// An implementation was asked for something it does not do (for example
    /// a pipeline executor given a program to run).
    #[error("{component} does not support {what}")]
    Unsupported {
        /// The implementation.
        component: String,
        /// What it was asked for.
        what: String,
    },
    /// An error raised by an implementation of one of the ports
    /// ([`crate::Metric`], [`crate::Executor`], ...). The source keeps the
    /// implementation's own typed error; downcast it to inspect it. Its
    /// fault and kind are the implementation's.
    #[error("{port}: {source}")]
    Port {
        /// The port (`"metric"`, `"executor"`, ...).
        port: &'static str,
        /// Whose fault, as the implementation's error says.
        fault: Fault,
        /// What the front ends show, as the implementation's error says.
        kind: FailureKind,
        /// The implementation's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
}

impl Blame for Error {
    /// I/O is the system's; a caller's unsafe output path or unsupported
    /// request the caller's; a port error the implementation's; everything
    /// else — a file of an environment or seed that is missing, changed,
    /// malformed or inconsistent — the environment's.
    fn fault(&self) -> Fault {
        match self {
            Error::Io { .. } => Fault::System,
            Error::UnsafeOutput { .. }
            | Error::Unsupported { .. }
            | Error::AlreadyExists { .. }
            | Error::InvalidMix { .. } => Fault::Caller,
            Error::Port { fault, .. } => *fault,
            _ => Fault::Environment,
        }
    }

    fn kind(&self) -> FailureKind {
        match self {
            Error::Port { kind, .. } => *kind,
            other => other.fault().kind(),
        }
    }
}

impl Error {
    /// Wraps an implementation's error as a [`Error::Port`], keeping its
    /// fault and kind.
    pub fn port<E>(port: &'static str, source: E) -> Self
    where
        E: std::error::Error + Blame + Send + Sync + 'static,
    {
        Error::Port { port, fault: source.fault(), kind: source.kind(), source: Box::new(source) }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
