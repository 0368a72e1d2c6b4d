//! The fast path of reading a submission: numbers of known columns placed
//! by key, without building a table of strings.

use super::{CsvLimits, plain_bytes, reader};
use crate::error::Result;
use std::path::Path;

/// Numeric columns read by key ([`read_numbers_by_key`]).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyedNumbers {
    /// `order[i]`: the file's 0-based data row that holds key position `i`.
    pub order: Vec<usize>,
    /// The requested columns' values, each in key-position order.
    pub columns: Vec<Vec<f64>>,
}

/// Reads a CSV (plain or gzip, within `limits`) whose header is exactly
/// `key` and `columns` (in any order), placing each record at
/// `position(key field)`, and parses the columns' fields as plain numbers
/// (Rust's `f64` syntax, `NaN` and `inf` included).
///
/// It answers only for a clean file: `Ok(None)` when the header differs,
/// a record is malformed or has another width, a field is over the limit,
/// a key is empty, unknown (`position` gives `None`) or repeated, a value is
/// not a plain number (missing-value tokens included), or the file has
/// other than `rows` records. The caller then reads the file with
/// [`super::read_csv`] to say what is wrong.
///
/// # Errors
/// [`crate::Error::FileTooLarge`] or a bad gzip stream, as
/// [`super::read_csv_bytes`].
pub fn read_numbers_by_key(
    bytes: &[u8],
    origin: impl AsRef<Path>,
    limits: &CsvLimits,
    key: &str,
    columns: &[String],
    rows: usize,
    mut position: impl FnMut(&str) -> Option<usize>,
) -> Result<Option<KeyedNumbers>> {
    let data = plain_bytes(bytes, origin.as_ref(), limits.max_bytes)?;
    let mut rdr = reader(&data);
    let Ok(header) = rdr.byte_headers() else { return Ok(None) };
    let width = header.len();
    if width != columns.len() + 1 || width > limits.max_columns {
        return Ok(None);
    }
    let find = |name: &str| header.iter().position(|h| h == name.as_bytes());
    let Some(key_at) = find(key) else { return Ok(None) };
    let mut at = Vec::with_capacity(columns.len());
    for c in columns {
        match find(c) {
            Some(j) if j != key_at && !at.contains(&j) => at.push(j),
            _ => return Ok(None),
        }
    }
    // Parse first, keys into one arena and values in file order; then look
    // the keys up in a loop of their own, where the lookups' cache misses
    // overlap (interleaved with parsing they run one at a time).
    let mut arena: Vec<u8> = Vec::with_capacity(data.len() / 2);
    let mut ends: Vec<usize> = Vec::with_capacity(rows);
    let mut in_file: Vec<Vec<f64>> = vec![Vec::with_capacity(rows); columns.len()];
    let mut record = csv::ByteRecord::new();
    loop {
        match rdr.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(_) => return Ok(None),
        }
        if record.len() != width || record.as_slice().len() > limits.max_field_bytes || ends.len() == rows {
            return Ok(None);
        }
        let id = record.get(key_at).unwrap_or_default();
        if id.is_empty() {
            return Ok(None);
        }
        arena.extend_from_slice(id);
        ends.push(arena.len());
        for (col, &j) in in_file.iter_mut().zip(&at) {
            let field = record.get(j).unwrap_or_default();
            let Some(x) = std::str::from_utf8(field).ok().and_then(|s| s.parse::<f64>().ok()) else {
                return Ok(None);
            };
            col.push(x);
        }
    }
    if ends.len() != rows {
        return Ok(None);
    }
    let Ok(arena) = std::str::from_utf8(&arena) else { return Ok(None) };
    let mut order = vec![usize::MAX; rows];
    let mut begin = 0;
    for (n, &end) in ends.iter().enumerate() {
        // Each key is whole UTF-8 (the arena is), so these are char boundaries.
        let Some(i) = arena.get(begin..end).and_then(&mut position).filter(|&i| i < rows) else {
            return Ok(None);
        };
        if order[i] != usize::MAX {
            return Ok(None);
        }
        order[i] = n;
        begin = end;
    }
    let values = in_file.iter().map(|col| order.iter().map(|&n| col[n]).collect()).collect();
    Ok(Some(KeyedNumbers { order, columns: values }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(csv: &str, rows: usize) -> Option<KeyedNumbers> {
        let keys = ["a", "b", "c"];
        let position = |k: &str| keys.iter().position(|&x| x == k);
        read_numbers_by_key(csv.as_bytes(), "<t>", &CsvLimits::DEFAULT, "id", &["p".into()], rows, position).unwrap()
    }

    #[test]
    fn clean_files_are_placed_by_key() {
        let k = read("p,id\n0.5,c\n0.25,a\n1e-3,b\n", 3).unwrap();
        assert_eq!(k.order, vec![1, 2, 0]);
        assert_eq!(k.columns, vec![vec![0.25, 1e-3, 0.5]]);
        assert!(read("id,p\na,NaN\nb,1\nc,2\n", 3).unwrap().columns[0][0].is_nan());
    }

    #[test]
    fn anything_unusual_is_left_to_the_full_reader() {
        for bad in [
            "id,p,x\na,1,1\nb,1,1\nc,1,1\n",
            "id,q\na,1\nb,1\nc,1\n",
            "id,p\na,1\nb,1\n",
            "id,p\na,1\nb,1\nc,1\nc,1\n",
            "id,p\na,1\na,1\nc,1\n",
            "id,p\na,1\nb,\nc,1\n",
            "id,p\na,1\nd,1\nc,1\n",
            "id,p\na,1\n,1\nc,1\n",
            "id,p\na,1\nb, 1\nc,1\n",
            "id,p\na,1\nb,1,2\nc,1\n",
        ] {
            assert_eq!(read(bad, 3), None, "{bad:?}");
        }
    }
}
