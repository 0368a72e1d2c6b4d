//! Tables from the record files competitions ship: CSV, TSV, JSON, JSON
//! lines and NumPy arrays, each optionally gzip-compressed
//! ([`TableFormat`], [`read_table`]).
//!
//! TSV, JSON and JSON lines become CSV text first and are read by the
//! project's CSV reader, so their columns are typed as a CSV's would be
//! (numbers, pandas' missing-value tokens, categories and text). A JSON
//! file is an array of records (objects) or one object per line; a record
//! key is a column, in the order keys first appear; `null` is missing; a
//! boolean is `True` or `False` (as pandas writes it); an array of numbers
//! that has the same length in every record (up to [`MAX_SPREAD`]) is
//! spread over columns `<key>_0`, `<key>_1`, ... (the pixel arrays of
//! `statoil-iceberg-classifier-challenge`); any other array or object is
//! kept as its JSON text. A NumPy file (`.npy`, C or Fortran order) of one
//! dimension is one column named after the file; of two, one column per
//! column of the array, `x0`, `x1`, ... (the same names in a training and
//! a test array, whatever the files are called); numbers stay numbers and
//! strings are text.

use crate::error::{Error, Result};
use crate::files::Files;
use sandmle_core::csv::{ReadOptions, read_csv_bytes};
use sandmle_core::{Column, Table};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;

/// The longest numeric array spread over columns.
pub const MAX_SPREAD: usize = 16_384;

/// A table file's format, from its name (a `.gz` suffix aside).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum TableFormat {
    /// Comma-separated values.
    Csv,
    /// Tab-separated values.
    Tsv,
    /// A JSON array of records.
    Json,
    /// One JSON record a line (`.jsonl`, `.ndjson`).
    JsonLines,
    /// A NumPy array (`.npy`).
    Npy,
}

impl TableFormat {
    /// The format a file name says, if it names a table.
    pub fn of(name: &str) -> Option<TableFormat> {
        let lower = name.to_ascii_lowercase();
        let lower = lower.strip_suffix(".gz").unwrap_or(&lower);
        let ext = lower.rsplit_once('.').map(|(_, e)| e)?;
        Some(match ext {
            "csv" => TableFormat::Csv,
            "tsv" => TableFormat::Tsv,
            "json" => TableFormat::Json,
            "jsonl" | "ndjson" => TableFormat::JsonLines,
            "npy" => TableFormat::Npy,
            _ => return None,
        })
    }
}

/// The plain bytes of a file that may be gzip-compressed.
fn plain(bytes: &[u8], rel: &str, max: u64) -> Result<Vec<u8>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes.to_vec());
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .take(max.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| Error::File { file: rel.into(), reason: format!("bad gzip stream: {e}") })?;
    if out.len() as u64 > max {
        return Err(Error::File { file: rel.into(), reason: format!("expands past {max} bytes") });
    }
    Ok(out)
}

/// Reads the table file `rel` of `files`.
///
/// # Errors
/// [`Error::File`] if the name is no table format or the content is not
/// what it says; the CSV reader's errors.
pub fn read_table(files: &Files, rel: &str, options: &ReadOptions) -> Result<Table> {
    let format = TableFormat::of(rel).ok_or_else(|| Error::File {
        file: rel.into(),
        reason: "not a table file (CSV, TSV, JSON, JSON lines or .npy)".into(),
    })?;
    let bytes = files.read(rel)?;
    let origin = files.prepared().join(rel);
    if format == TableFormat::Csv {
        return Ok(read_csv_bytes(&bytes, &origin, options)?);
    }
    let data = plain(&bytes, rel, options.limits.max_bytes)?;
    let csv = match format {
        TableFormat::Tsv => tsv_to_csv(&data, rel)?,
        TableFormat::Json => records_to_csv(json_records(&data, rel)?, rel)?,
        TableFormat::JsonLines => records_to_csv(json_lines(&data, rel)?, rel)?,
        _ => match npy_table(&data, rel)? {
            Npy::Numbers(table) => return Ok(table),
            Npy::Strings(csv) => csv,
        },
    };
    Ok(read_csv_bytes(&csv, &origin, options)?)
}

fn bad(rel: &str, reason: impl std::fmt::Display) -> Error {
    Error::File { file: rel.into(), reason: reason.to_string() }
}

fn tsv_to_csv(data: &[u8], rel: &str) -> Result<Vec<u8>> {
    let mut reader = csv::ReaderBuilder::new().delimiter(b'\t').has_headers(false).flexible(true).from_reader(data);
    let mut out = csv::Writer::from_writer(Vec::with_capacity(data.len() + data.len() / 8));
    for record in reader.byte_records() {
        let record = record.map_err(|e| bad(rel, format!("not readable as TSV ({e})")))?;
        out.write_byte_record(&record).map_err(|e| bad(rel, e))?;
    }
    out.into_inner().map_err(|e| bad(rel, e))
}

/// A JSON record with its keys in the file's order (`serde_json`'s map
/// sorts them).
struct Record {
    fields: Vec<(String, Value)>,
    index: BTreeMap<String, usize>,
}

impl Record {
    fn get(&self, key: &str) -> Option<&Value> {
        self.index.get(key).map(|&i| &self.fields[i].1)
    }
}

impl<'de> serde::Deserialize<'de> for Record {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Record, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Record;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a record (a JSON object)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Record, A::Error> {
                let mut record = Record { fields: Vec::new(), index: BTreeMap::new() };
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    match record.index.get(&k) {
                        Some(&i) => record.fields[i].1 = v,
                        None => {
                            record.index.insert(k.clone(), record.fields.len());
                            record.fields.push((k, v));
                        }
                    }
                }
                Ok(record)
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

fn json_records(data: &[u8], rel: &str) -> Result<Vec<Record>> {
    serde_json::from_slice(data).map_err(|e| bad(rel, format!("expected a JSON array of records ({e})")))
}

fn json_lines(data: &[u8], rel: &str) -> Result<Vec<Record>> {
    let mut records = Vec::new();
    for (i, line) in data.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let record =
            serde_json::from_slice(line).map_err(|e| bad(rel, format!("line {}: expected a record ({e})", i + 1)))?;
        records.push(record);
    }
    Ok(records)
}

/// A record's cell as CSV text.
fn cell(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::Bool(b)) => if *b { "True" } else { "False" }.to_owned(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn records_to_csv(records: Vec<Record>, rel: &str) -> Result<Vec<u8>> {
    if records.is_empty() {
        return Err(bad(rel, "no records"));
    }
    // Keys in the order they first appear.
    let mut keys: Vec<String> = Vec::new();
    let mut seen: BTreeMap<String, ()> = BTreeMap::new();
    for r in &records {
        for (k, _) in &r.fields {
            if seen.insert(k.clone(), ()).is_none() {
                keys.push(k.clone());
            }
        }
    }
    // Numeric arrays of one length in every record are spread.
    let spread: Vec<Option<usize>> = keys
        .iter()
        .map(|k| {
            let len = match records[0].get(k) {
                Some(Value::Array(a)) if !a.is_empty() && a.len() <= MAX_SPREAD => a.len(),
                _ => return None,
            };
            records
                .iter()
                .all(|r| matches!(r.get(k), Some(Value::Array(a)) if a.len() == len && a.iter().all(Value::is_number)))
                .then_some(len)
        })
        .collect();
    let mut out = csv::Writer::from_writer(Vec::new());
    let mut header = Vec::new();
    for (k, s) in keys.iter().zip(&spread) {
        match s {
            Some(len) => header.extend((0..*len).map(|i| format!("{k}_{i}"))),
            None => header.push(k.clone()),
        }
    }
    // Records with keys of their own (a new key on every line) would make
    // a table of rows x keys cells, nearly all empty: refused before one
    // is written.
    let limits = sandmle_core::csv::CsvLimits::DEFAULT;
    let cells = (records.len() as u64).saturating_mul(header.len() as u64);
    if header.len() > limits.max_columns || cells > limits.max_bytes {
        return Err(bad(
            rel,
            format!(
                "{} records with {} distinct keys make a table of {cells} cells, more than a table may hold                  ({} columns, {} cells)",
                records.len(),
                header.len(),
                limits.max_columns,
                limits.max_bytes
            ),
        ));
    }
    out.write_record(&header).map_err(|e| bad(rel, e))?;
    let mut row: Vec<String> = Vec::with_capacity(header.len());
    for r in &records {
        row.clear();
        for (k, s) in keys.iter().zip(&spread) {
            match (s, r.get(k)) {
                (Some(_), Some(Value::Array(a))) => row.extend(a.iter().map(|v| cell(Some(v)))),
                _ => row.push(cell(r.get(k))),
            }
        }
        out.write_record(&row).map_err(|e| bad(rel, e))?;
    }
    out.into_inner().map_err(|e| bad(rel, e))
}

/// A NumPy array read: a table of numbers, or the CSV text of strings
/// (typed by the CSV reader, as a CSV of the same strings would be).
enum Npy {
    Numbers(Table),
    Strings(Vec<u8>),
}

/// Refuses a header whose shape's product overflows (the reader
/// multiplies it unchecked): the shape is read from the header's text,
/// `'shape': (2, 3)`.
fn check_npy_shape(data: &[u8], rel: &str) -> Result<()> {
    let head = String::from_utf8_lossy(&data[..data.len().min(1 << 16)]);
    let Some(at) = head.find("'shape'") else { return Ok(()) };
    let rest = &head[at..];
    let (Some(open), Some(close)) = (rest.find('('), rest.find(')')) else { return Ok(()) };
    if close < open {
        return Ok(());
    }
    let mut product: u64 = 1;
    for part in rest[open + 1..close].split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let n: u64 = part.parse().map_err(|_| bad(rel, format!("a shape dimension `{part}`")))?;
        product = product
            .checked_mul(n)
            .filter(|p| *p <= usize::MAX as u64 / 16)
            .ok_or_else(|| bad(rel, format!("a shape of {} values", &rest[open..=close])))?;
    }
    Ok(())
}

/// The values of an array of a small integer type, as numbers.
fn numbers<T>(npy: npyz::NpyFile<&[u8]>, unreadable: impl Fn(std::io::Error) -> Error) -> Result<Vec<f64>>
where
    T: npyz::Deserialize + Into<f64>,
{
    Ok(npy.into_vec::<T>().map_err(unreadable)?.into_iter().map(Into::into).collect())
}

/// A NumPy array as a table (see the module docs).
fn npy_table(data: &[u8], rel: &str) -> Result<Npy> {
    check_npy_shape(data, rel)?;
    let npy = npyz::NpyFile::new(data).map_err(|e| bad(rel, format!("not a readable .npy file ({e})")))?;
    let shape = npy.shape().to_vec();
    let size = |n: u64| usize::try_from(n).map_err(|_| bad(rel, format!("a dimension of {n} elements")));
    let (rows, cols) = match shape.as_slice() {
        [n] => (size(*n)?, 1),
        [n, m] => (size(*n)?, size(*m)?),
        other => return Err(bad(rel, format!("an array of shape {other:?}: one or two dimensions are read"))),
    };
    let max_columns = sandmle_core::csv::CsvLimits::DEFAULT.max_columns;
    if cols > max_columns {
        return Err(bad(rel, format!("{cols} columns, more than {max_columns}")));
    }
    let fortran = npy.order() == npyz::Order::Fortran;
    let npyz::DType::Plain(ts) = npy.dtype() else {
        return Err(bad(rel, "a structured array: plain numbers or strings are read"));
    };
    // The header's shape is a claim: the file must hold that many values.
    let item = usize::try_from(ts.size_field()).unwrap_or(0);
    let needed = rows.checked_mul(cols).and_then(|n| n.checked_mul(item));
    if item == 0 || needed.is_none_or(|n| n > data.len()) {
        return Err(bad(rel, format!("a shape of {shape:?} values of {item} bytes that the file does not hold")));
    }
    let stem = rel.rsplit('/').next().unwrap_or(rel);
    let stem = stem.split('.').next().unwrap_or(stem).to_owned();
    let at = |r: usize, c: usize| if fortran { c * rows + r } else { r * cols + c };
    let name = |c: usize| if cols == 1 && shape.len() == 1 { stem.clone() } else { format!("x{c}") };
    let unreadable = |e: std::io::Error| bad(rel, format!("not a readable .npy file ({e})"));
    let mut table = Table::new();
    use npyz::TypeChar;
    match ts.type_char() {
        TypeChar::Float | TypeChar::Int | TypeChar::Uint | TypeChar::Bool => {
            let values: Vec<f64> = match (ts.type_char(), ts.size_field()) {
                (TypeChar::Float, 4) => npy.into_vec::<f32>().map_err(unreadable)?.into_iter().map(f64::from).collect(),
                (TypeChar::Float, _) => npy.into_vec::<f64>().map_err(unreadable)?,
                (TypeChar::Bool, _) => {
                    npy.into_vec::<bool>().map_err(unreadable)?.into_iter().map(|b| f64::from(u8::from(b))).collect()
                }
                (TypeChar::Uint, 1) => numbers::<u8>(npy, unreadable)?,
                (TypeChar::Uint, 2) => numbers::<u16>(npy, unreadable)?,
                (TypeChar::Uint, 4) => numbers::<u32>(npy, unreadable)?,
                (TypeChar::Uint, _) => {
                    npy.into_vec::<u64>().map_err(unreadable)?.into_iter().map(|v| v as f64).collect()
                }
                (TypeChar::Int, 1) => numbers::<i8>(npy, unreadable)?,
                (TypeChar::Int, 2) => numbers::<i16>(npy, unreadable)?,
                (TypeChar::Int, 4) => numbers::<i32>(npy, unreadable)?,
                _ => npy.into_vec::<i64>().map_err(unreadable)?.into_iter().map(|v| v as f64).collect(),
            };
            for c in 0..cols {
                table.push_column(name(c), Column::Numeric((0..rows).map(|r| values[at(r, c)]).collect()))?;
            }
        }
        TypeChar::UnicodeStr | TypeChar::ByteStr => {
            let values: Vec<String> = if ts.type_char() == TypeChar::UnicodeStr {
                npy.into_vec::<String>().map_err(unreadable)?
            } else {
                npy.into_vec::<Vec<u8>>()
                    .map_err(unreadable)?
                    .into_iter()
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .collect()
            };
            let mut out = csv::Writer::from_writer(Vec::new());
            out.write_record((0..cols).map(name)).map_err(|e| bad(rel, e))?;
            for r in 0..rows {
                out.write_record((0..cols).map(|c| values[at(r, c)].as_str())).map_err(|e| bad(rel, e))?;
            }
            return Ok(Npy::Strings(out.into_inner().map_err(|e| bad(rel, e))?));
        }
        other => return Err(bad(rel, format!("an array of {other:?}: numbers or strings are read"))),
    }
    Ok(Npy::Numbers(table))
}
