//! Reading and writing tables as CSV.
//!
//! **Reading** accepts what pandas and Kaggle files contain: a header row,
//! quoted fields holding commas, quotes and newlines, `\r\n` line ends, a
//! UTF-8 byte-order mark and gzip compression (detected by its magic bytes,
//! so `.csv.gz` files read transparently). The tokens of [`MISSING_TOKENS`]
//! (pandas' default NA values: empty, `NA`, `NaN`, `nan`, `null`, `None`, ...)
//! are missing values.
//!
//! Column types are inferred unless [`ReadOptions::types`] fixes them:
//! - **numeric** if every present value parses as a float (surrounding spaces
//!   and `inf` allowed);
//! - otherwise **text** if the values average three or more whitespace-separated
//!   words and more than half of them are distinct, or if there are more
//!   distinct values than `max(64, rows / 2)`;
//! - otherwise **categorical**, with levels in first-seen order.
//!
//! The id column ([`ReadOptions::id_column`]) is always text and keeps its
//! values verbatim (only an empty field is missing), so ids like `007` or `NA`
//! survive.
//!
//! **Writing** is deterministic: the header, one line per row ended by `\n`,
//! fields quoted only where needed, missing values as empty fields, floats in
//! shortest round-trip form ([`crate::format_f64`]). A text value equal to a
//! missing token is read back as missing, as pandas does.

use crate::error::{Error, Result};
use crate::table::{Categorical, CellText, Column, ColumnType, Table};

mod keyed;
mod number;
mod records;
pub use keyed::{KeyList, KeyPlacer, KeyedNumbers, read_numbers_by_key};
use records::Record;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// pandas' default missing-value tokens.
pub const MISSING_TOKENS: &[&str] = &[
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA",
    "NULL", "NaN", "None", "n/a", "nan", "null",
];

/// Bounds on what a CSV reader accepts, so that a hostile file costs time
/// and memory linear in its size and no more than these caps allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsvLimits {
    /// The largest file, in bytes (for gzip input: the decompressed
    /// content). Default [`crate::DEFAULT_MAX_READ_BYTES`], 4 GiB.
    pub max_bytes: u64,
    /// The most columns a header may have. Default 100,000.
    pub max_columns: usize,
    /// The longest field, in bytes. Default 16 MiB.
    pub max_field_bytes: usize,
}

impl CsvLimits {
    /// The default caps (see the fields).
    pub const DEFAULT: CsvLimits =
        CsvLimits { max_bytes: crate::fsutil::DEFAULT_MAX_READ_BYTES, max_columns: 100_000, max_field_bytes: 16 << 20 };
}

impl Default for CsvLimits {
    fn default() -> Self {
        CsvLimits::DEFAULT
    }
}

/// How to read a CSV file.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The id column: always read as verbatim text.
    pub id_column: Option<String>,
    /// Column types that override inference.
    pub types: BTreeMap<String, ColumnType>,
    /// Size, column and field caps.
    pub limits: CsvLimits,
}

impl ReadOptions {
    /// Options with the given id column.
    pub fn with_id(id_column: impl Into<String>) -> Self {
        ReadOptions { id_column: Some(id_column.into()), ..ReadOptions::default() }
    }

    /// Options that fix every column's type to the given schema.
    pub fn with_schema(schema: &[(String, ColumnType)]) -> Self {
        ReadOptions { types: schema.iter().cloned().collect(), ..ReadOptions::default() }
    }
}

fn is_missing(s: &str) -> bool {
    // A `match` compiles to length-then-bytes comparisons: far cheaper than
    // scanning the token list for every field.
    matches!(
        s,
        "" | "#N/A"
            | "#N/A N/A"
            | "#NA"
            | "-1.#IND"
            | "-1.#QNAN"
            | "-NaN"
            | "-nan"
            | "1.#IND"
            | "1.#QNAN"
            | "<NA>"
            | "N/A"
            | "NA"
            | "NULL"
            | "NaN"
            | "None"
            | "n/a"
            | "nan"
            | "null"
    )
}

/// Reads a CSV file (plain or gzip). The path must name a regular file
/// (see [`crate::read_regular`]: a FIFO or a device is refused without
/// blocking) within [`CsvLimits::max_bytes`].
///
/// # Errors
/// [`Error::Io`] if the file cannot be read, [`Error::NotRegularFile`],
/// [`Error::FileTooLarge`], [`Error::TooManyColumns`],
/// [`Error::FieldTooLong`], [`Error::Csv`] naming the line and column of a
/// malformed record or a value that does not fit its type.
pub fn read_csv(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Table> {
    let path = path.as_ref();
    let bytes = crate::fsutil::read_regular(path, options.limits.max_bytes)?;
    read_csv_bytes(&bytes, path, options)
}

/// Reads CSV from bytes (plain or gzip); `origin` names the source in errors.
///
/// # Errors
/// As [`read_csv`].
pub fn read_csv_bytes(bytes: &[u8], origin: impl AsRef<Path>, options: &ReadOptions) -> Result<Table> {
    let origin = origin.as_ref();
    let data = plain_bytes(bytes, origin, options.limits.max_bytes)?;
    Parser::new(&data, origin, options)?.parse()
}

/// The CSV text of a file's bytes: gunzipped (bounded by `max`) when they
/// are gzip, without a UTF-8 byte-order mark.
fn plain_bytes<'b>(bytes: &'b [u8], origin: &Path, max: u64) -> Result<Cow<'b, [u8]>> {
    let too_large = |size: usize| Error::FileTooLarge {
        path: origin.to_path_buf(),
        size: u64::try_from(size).unwrap_or(u64::MAX),
        limit: max,
    };
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > max {
        return Err(too_large(bytes.len()));
    }
    let mut data = Cow::Borrowed(bytes);
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        // Bounded: a small gzip bomb must not expand past the limit.
        flate2::read::MultiGzDecoder::new(bytes).take(max.saturating_add(1)).read_to_end(&mut out).map_err(|e| {
            Error::Csv { path: origin.to_path_buf(), line: 0, column: None, reason: format!("bad gzip stream: {e}") }
        })?;
        if u64::try_from(out.len()).unwrap_or(u64::MAX) > max {
            return Err(too_large(out.len()));
        }
        data = Cow::Owned(out);
    }
    Ok(match data {
        Cow::Borrowed(b) => Cow::Borrowed(b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b)),
        Cow::Owned(mut v) => {
            if v.starts_with(b"\xEF\xBB\xBF") {
                v.drain(..3);
            }
            Cow::Owned(v)
        }
    })
}

/// A column while it is being read.
enum Building {
    Numeric(Vec<f64>),
    Strings(Vec<Option<CellText>>),
    /// Not numeric after all; collected as strings in a second pass.
    Deferred,
}

struct Parser<'a> {
    data: &'a [u8],
    origin: PathBuf,
    header: Vec<String>,
    fixed: Vec<Option<ColumnType>>,
    id_index: Option<usize>,
    max_field: usize,
}

impl<'a> Parser<'a> {
    fn new(data: &'a [u8], origin: &Path, options: &ReadOptions) -> Result<Self> {
        let mut rdr = reader(data);
        let limits = options.limits;
        let raw = rdr.byte_headers().map_err(|e| csv_error(origin, &e, None))?;
        if raw.len() > limits.max_columns {
            return Err(Error::TooManyColumns {
                path: origin.to_path_buf(),
                found: raw.len(),
                limit: limits.max_columns,
            });
        }
        if let Some((i, h)) = raw.iter().enumerate().find(|(_, h)| h.len() > limits.max_field_bytes) {
            return Err(Error::FieldTooLong {
                path: origin.to_path_buf(),
                line: 1,
                column: format!("#{}", i + 1),
                length: h.len(),
                limit: limits.max_field_bytes,
            });
        }
        let header = raw
            .iter()
            .enumerate()
            .map(|(i, h)| {
                String::from_utf8(h.to_vec()).map_err(|_| Error::Csv {
                    path: origin.to_path_buf(),
                    line: 1,
                    column: Some(format!("#{}", i + 1)),
                    reason: "header is not valid UTF-8".into(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut seen = HashSet::new();
        if let Some(dup) = header.iter().find(|h| !seen.insert(h.as_str())) {
            return Err(Error::Csv {
                path: origin.to_path_buf(),
                line: 1,
                column: Some(crate::bounded(dup)),
                reason: "duplicate column name".into(),
            });
        }
        let id_index = options.id_column.as_ref().and_then(|id| header.iter().position(|h| h == id));
        let fixed = header
            .iter()
            .enumerate()
            .map(|(i, h)| if Some(i) == id_index { Some(ColumnType::Text) } else { options.types.get(h).copied() })
            .collect();
        Ok(Parser { data, origin: origin.to_path_buf(), header, fixed, id_index, max_field: limits.max_field_bytes })
    }

    fn parse(self) -> Result<Table> {
        let ncol = self.header.len();
        // Line count bounds the row count: reserve once instead of regrowing.
        let rows = memchr::memchr_iter(b'\n', self.data).count();
        let mut cols: Vec<Building> = self
            .fixed
            .iter()
            .map(|t| match t {
                Some(ColumnType::Numeric) | None => Building::Numeric(Vec::with_capacity(rows)),
                Some(_) => Building::Strings(Vec::with_capacity(rows)),
            })
            .collect();
        self.each_record(|record| {
            let line = record.line;
            for (j, col) in cols.iter_mut().enumerate() {
                let field = record.field(j);
                match col {
                    Building::Numeric(v) => match self.number(field) {
                        Some(x) => v.push(x),
                        None if self.fixed[j] == Some(ColumnType::Numeric) => {
                            return Err(self.field_error(line, j, "expected a number"));
                        }
                        None => *col = Building::Deferred,
                    },
                    Building::Strings(v) => v.push(self.string(line, j, field)?),
                    Building::Deferred => {}
                }
            }
            Ok(())
        })?;
        if cols.iter().any(|c| matches!(c, Building::Deferred)) {
            let deferred: Vec<usize> = (0..ncol).filter(|&j| matches!(cols[j], Building::Deferred)).collect();
            let mut strings: Vec<Vec<Option<CellText>>> = vec![Vec::new(); deferred.len()];
            self.each_record(|record| {
                for (k, &j) in deferred.iter().enumerate() {
                    strings[k].push(self.string(record.line, j, record.field(j))?);
                }
                Ok(())
            })?;
            for (k, j) in deferred.into_iter().enumerate() {
                cols[j] = Building::Strings(std::mem::take(&mut strings[k]));
            }
        }
        let mut table = Table::new();
        for (j, (name, col)) in self.header.iter().zip(cols).enumerate() {
            let column = match col {
                Building::Numeric(v) => Column::Numeric(v),
                Building::Strings(v) => match self.fixed[j] {
                    Some(ColumnType::Text) => Column::Text(v),
                    Some(ColumnType::Categorical) => {
                        Column::Categorical(Categorical::from_values(v.iter().map(|s| s.as_deref())))
                    }
                    _ => infer_string_column(v),
                },
                Building::Deferred => Column::Text(Vec::new()),
            };
            table.push_column(name.clone(), column)?;
        }
        Ok(table)
    }

    /// Calls `f` with each record ([`records::each_record`]), checking its
    /// width and its fields' lengths.
    fn each_record(&self, mut f: impl FnMut(&Record<'_>) -> Result<()>) -> Result<()> {
        records::each_record(
            self.data,
            |e| csv_error(&self.origin, e, None),
            |record| {
                let line = record.line;
                if record.len() != self.header.len() {
                    return Err(Error::Csv {
                        path: self.origin.clone(),
                        line,
                        column: None,
                        reason: format!("{} fields, the header has {}", record.len(), self.header.len()),
                    });
                }
                // One comparison per record in the common case: no field
                // can be longer than the whole record.
                if record.bytes.len() > self.max_field
                    && let Some(j) = (0..record.len()).find(|&j| record.field(j).len() > self.max_field)
                {
                    return Err(Error::FieldTooLong {
                        path: self.origin.clone(),
                        line,
                        column: crate::bounded(&self.header[j]),
                        length: record.field(j).len(),
                        limit: self.max_field,
                    });
                }
                f(&record)
            },
        )
    }

    fn number(&self, field: &[u8]) -> Option<f64> {
        // Most fields are plain numbers: parse first, look at tokens after.
        if let Some(x) = number::parse(field) {
            return Some(x);
        }
        let s = std::str::from_utf8(field).ok()?;
        if is_missing(s) {
            return Some(f64::NAN);
        }
        s.trim().parse::<f64>().ok()
    }

    fn string(&self, line: u64, j: usize, field: &[u8]) -> Result<Option<CellText>> {
        let s = std::str::from_utf8(field).map_err(|_| self.field_error(line, j, "not valid UTF-8"))?;
        let missing = if Some(j) == self.id_index { s.is_empty() } else { is_missing(s) };
        Ok((!missing).then(|| CellText::from(s)))
    }

    fn field_error(&self, line: u64, j: usize, reason: &str) -> Error {
        Error::Csv {
            path: self.origin.clone(),
            line,
            column: Some(crate::bounded(&self.header[j])),
            reason: reason.to_owned(),
        }
    }
}

fn reader(data: &[u8]) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(data)
}

fn csv_error(origin: &Path, e: &csv::Error, column: Option<String>) -> Error {
    Error::Csv { path: origin.to_path_buf(), line: e.position().map_or(0, |p| p.line()), column, reason: e.to_string() }
}

fn infer_string_column(values: Vec<Option<CellText>>) -> Column {
    let present: Vec<&str> = values.iter().flatten().map(CellText::as_str).collect();
    let words: usize = present.iter().map(|s| s.split_whitespace().count()).sum();
    let distinct: HashSet<&str> = present.iter().copied().collect();
    // Free text: several words per value and mostly distinct values (short
    // labels such as "2. Married" repeat, documents do not).
    let free_text = !present.is_empty() && words >= 3 * present.len() && distinct.len() * 2 > present.len();
    if free_text || distinct.len() > 64.max(values.len() / 2) {
        Column::Text(values)
    } else {
        Column::Categorical(Categorical::from_values(values.iter().map(|s| s.as_deref())))
    }
}

/// Writes a table as CSV into `out` (see the module docs for the format).
///
/// # Errors
/// [`Error::Io`] (with `<writer>` as the path) if `out` fails.
pub fn write_csv_to<W: Write>(table: &Table, out: W) -> Result<()> {
    let io =
        |e: csv::Error| Error::Csv { path: PathBuf::from("<writer>"), line: 0, column: None, reason: e.to_string() };
    let mut w = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(out);
    w.write_record(table.names()).map_err(io)?;
    let cols: Vec<&Column> = table.iter().map(|(_, c)| c).collect();
    let mut record: Vec<std::borrow::Cow<'_, str>> = Vec::with_capacity(cols.len());
    for r in 0..table.n_rows() {
        record.clear();
        record.extend(cols.iter().map(|c| c.get_str(r).unwrap_or_default()));
        w.write_record(record.iter().map(|s| s.as_bytes())).map_err(io)?;
    }
    w.flush().map_err(|e| Error::io("<writer>", e))
}

/// The CSV bytes of a table.
///
/// # Errors
/// As [`write_csv_to`] (the csv writer's own errors; a `Vec` never fails).
pub fn to_csv_bytes(table: &Table) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write_csv_to(table, &mut out)?;
    Ok(out)
}

/// Gzip-compresses bytes deterministically (no file name, mtime 0).
///
/// # Errors
/// [`Error::Io`] if the compressor fails.
pub fn gzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut enc = flate2::GzBuilder::new().mtime(0).write(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).and_then(|()| enc.finish()).map_err(|e| Error::io("<gzip>", e))
}

/// Writes a table as CSV to `path` atomically (a temporary file in the same
/// directory, then a rename). A path ending in `.gz` is gzip-compressed.
///
/// # Errors
/// [`Error::Io`].
pub fn write_csv(table: &Table, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let mut bytes = to_csv_bytes(table)?;
    if path.extension().is_some_and(|e| e == "gz") {
        bytes = gzip(&bytes)?;
    }
    crate::fsutil::write_atomic(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Table {
        read_csv_bytes(s.as_bytes(), "<test>", &ReadOptions::with_id("id")).unwrap()
    }

    #[test]
    fn infers_types() {
        let t = read("id,x,c,t\n1,1.5,a,the quick brown fox\n2,,b,jumps over the dog\n3,inf,a,NA\n");
        assert_eq!(t.column("id").unwrap().column_type(), ColumnType::Text);
        assert_eq!(t.column("x").unwrap().column_type(), ColumnType::Numeric);
        assert_eq!(t.column("c").unwrap().column_type(), ColumnType::Categorical);
        assert_eq!(t.column("t").unwrap().column_type(), ColumnType::Text);
        assert!(t.numeric("x").unwrap()[1].is_nan());
        assert!(t.column("t").unwrap().is_missing(2));
    }

    #[test]
    fn id_column_is_verbatim() {
        let t = read("id,y\n007,1\nNA,2\n");
        let id = t.column("id").unwrap();
        assert_eq!(id.get_str(0).unwrap(), "007");
        assert_eq!(id.get_str(1).unwrap(), "NA");
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = read_csv_bytes(b"id,x\n1,2\n3\n", "f.csv", &ReadOptions::default()).unwrap_err();
        assert!(matches!(e, Error::Csv { line: 3, .. }), "{e}");
        let mut o = ReadOptions::default();
        o.types.insert("x".into(), ColumnType::Numeric);
        let e = read_csv_bytes(b"id,x\n1,2\n3,abc\n", "f.csv", &o).unwrap_err();
        match e {
            Error::Csv { line, column, .. } => {
                assert_eq!(line, 3);
                assert_eq!(column.as_deref(), Some("x"));
            }
            other => panic!("{other}"),
        }
        let e = read_csv_bytes(b"a,a\n1,2\n", "f.csv", &o).unwrap_err();
        assert!(matches!(e, Error::Csv { line: 1, .. }));
    }

    #[test]
    fn writes_shortest_floats_and_empty_missing() {
        let t = Table::from_columns([
            ("id", Column::text([Some("a,b"), None])),
            ("x", Column::Numeric(vec![0.1, f64::NAN])),
        ])
        .unwrap();
        assert_eq!(String::from_utf8(to_csv_bytes(&t).unwrap()).unwrap(), "id,x\n\"a,b\",0.1\n,\n");
    }

    #[test]
    fn column_and_field_caps_are_typed_errors() {
        let limits = CsvLimits { max_columns: 3, max_field_bytes: 5, ..CsvLimits::DEFAULT };
        let o = ReadOptions { limits, ..ReadOptions::default() };
        let e = read_csv_bytes(b"a,b,c,d\n1,2,3,4\n", "f.csv", &o).unwrap_err();
        assert!(matches!(e, Error::TooManyColumns { found: 4, limit: 3, .. }), "{e}");
        let e = read_csv_bytes(b"a,b\n1,123456\n", "f.csv", &o).unwrap_err();
        assert!(matches!(e, Error::FieldTooLong { line: 2, length: 6, ref column, .. } if column == "b"), "{e}");
        let e = read_csv_bytes(b"a,bbbbbb\n1,2\n", "f.csv", &o).unwrap_err();
        assert!(matches!(e, Error::FieldTooLong { line: 1, .. }), "{e}");
        let o = ReadOptions { limits: CsvLimits { max_bytes: 100, ..CsvLimits::DEFAULT }, ..ReadOptions::default() };
        let bomb = gzip(&vec![b'1'; 10_000]).unwrap();
        assert!(matches!(read_csv_bytes(&bomb, "z.gz", &o), Err(Error::FileTooLarge { limit: 100, .. })));
    }

    #[test]
    fn a_two_million_column_header_is_refused_quickly() {
        let mut header = (0..2_000_000).map(|i| format!("c{i}")).collect::<Vec<_>>().join(",");
        header.push('\n');
        let e = read_csv_bytes(header.as_bytes(), "wide.csv", &ReadOptions::default()).unwrap_err();
        assert!(matches!(e, Error::TooManyColumns { found: 2_000_000, .. }), "{e}");
        // Under the cap, wide tables read in time linear in their width.
        let wide = (0..100_000).map(|i| format!("c{i}")).collect::<Vec<_>>().join(",");
        let t = read_csv_bytes(
            format!("{wide}\n{}\n", vec!["1"; 100_000].join(",")).as_bytes(),
            "w",
            &ReadOptions::default(),
        )
        .unwrap();
        assert_eq!(t.n_cols(), 100_000);
        assert_eq!(t.index_of("c99999"), Some(99_999));
    }

    #[test]
    fn gzip_round_trip() {
        let t = read("id,x\n1,2.5\n");
        let z = gzip(&to_csv_bytes(&t).unwrap()).unwrap();
        assert_eq!(read_csv_bytes(&z, "<gz>", &ReadOptions::with_id("id")).unwrap(), t);
    }
}
