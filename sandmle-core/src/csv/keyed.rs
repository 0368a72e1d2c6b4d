//! The fast path of reading a submission: numbers of known columns placed
//! by key, without building a table of strings.

use super::records::{Record, each_record};
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

/// The keys of a file's records, in file order ([`KeyPlacer`]).
#[derive(Debug, Clone, Copy)]
pub struct KeyList<'a> {
    /// The file's text: most keys are spans of it, read where they lie.
    text: &'a [u8],
    /// Keys the CSV reader unquoted, one after another.
    arena: &'a [u8],
    /// Each key's span: in `text`, or, from `text.len()` on, in `arena`
    /// (32 bits: a file of more bytes is left to the full reader).
    spans: &'a [[u32; 2]],
}

impl<'a> KeyList<'a> {
    /// The number of keys.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// `true` when there are none.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The bytes of the key of data row `n` (0-based); `None` past the end.
    #[inline]
    pub fn bytes(&self, n: usize) -> Option<&'a [u8]> {
        let [begin, end] = self.spans.get(n)?.map(|x| x as usize);
        match end.checked_sub(self.text.len()) {
            Some(past) if past > 0 => self.arena.get(begin.checked_sub(self.text.len())?..past),
            _ => self.text.get(begin..end),
        }
    }

    /// The key of data row `n` as text; `None` past the end, or for a key
    /// that is not whole UTF-8 by itself.
    pub fn get(&self, n: usize) -> Option<&'a str> {
        std::str::from_utf8(self.bytes(n)?).ok()
    }
}

/// Where the records of a file go, by key ([`read_numbers_by_key`]).
///
/// A closure `FnMut(usize, &str) -> Option<usize>` is a placer: it gives
/// the position of each key in turn (the data row and the key).
pub trait KeyPlacer {
    /// For each position `i` (as many as there are keys), the data row whose
    /// key goes there, or `None` when the keys cannot be placed (a key with
    /// no position, or two keys at one).
    fn place(&mut self, keys: &KeyList<'_>) -> Option<Vec<usize>>;
}

impl<F: FnMut(usize, &str) -> Option<usize>> KeyPlacer for F {
    fn place(&mut self, keys: &KeyList<'_>) -> Option<Vec<usize>> {
        let mut order = vec![usize::MAX; keys.len()];
        for n in 0..keys.len() {
            let slot = order.get_mut(self(n, keys.get(n)?)?)?;
            if *slot != usize::MAX {
                return None;
            }
            *slot = n;
        }
        Some(order)
    }
}

/// Reads a CSV (plain or gzip, within `limits`) whose header is exactly
/// `key` and `columns` (in any order), placing each record at the position
/// `placer` gives its key ([`KeyPlacer`]), and parses the columns' fields
/// as plain numbers (Rust's `f64` syntax, `NaN` and `inf` included). A file
/// without quotes or lone `\r` line ends is split at its line ends and
/// commas directly; any other goes through the CSV reader.
///
/// It answers only for a clean file: `Ok(None)` when the header differs,
/// a record is malformed or has another width, a field is over the limit,
/// a key is empty, the placer cannot place the keys (one unknown or
/// repeated), a value is not a plain number (missing-value tokens
/// included), or the file has other than `rows` records. The caller then reads the file with
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
    mut placer: impl KeyPlacer,
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
    // Parse first, keys as spans (of the text, or of an arena for keys the
    // CSV reader unquoted) and values in file order; then the placer places
    // all the keys at once.
    let mut arena: Vec<u8> = Vec::new();
    let mut spans: Vec<[u32; 2]> = Vec::with_capacity(rows);
    let mut in_file: Vec<Vec<f64>> = vec![Vec::with_capacity(rows); columns.len()];
    let text_len = data.len();
    let take = |record: Record<'_>| {
        if record.len() != width || spans.len() == rows || record.bytes.len() > limits.max_field_bytes {
            return Err(());
        }
        let id = record.field(key_at);
        if id.is_empty() {
            return Err(());
        }
        let (begin, end) = match (record.offset, record.bounds.get(key_at)) {
            (Some(start), Some(b)) => (start + b.start, start + b.end),
            _ => {
                let begin = text_len + arena.len();
                arena.extend_from_slice(id);
                (begin, begin + id.len())
            }
        };
        spans.push([u32::try_from(begin).map_err(|_| ())?, u32::try_from(end).map_err(|_| ())?]);
        for (col, &j) in in_file.iter_mut().zip(&at) {
            col.push(super::number::parse(record.field(j)).ok_or(())?);
        }
        Ok(())
    };
    if each_record(&data, |_| (), take).is_err() {
        return Ok(None);
    }
    if spans.len() != rows {
        return Ok(None);
    }
    let keys = KeyList { text: &data, arena: &arena, spans: &spans };
    let Some(order) = placer.place(&keys) else { return Ok(None) };
    // The placer's order must be a permutation of the rows: each in range
    // and none twice, seen in a bitset without a branch per row.
    if order.len() != rows || order.iter().any(|&n| n >= rows) {
        return Ok(None);
    }
    let mut seen = vec![0u64; rows.div_ceil(64)];
    let mut twice = 0u64;
    for &n in &order {
        let (word, bit) = (&mut seen[n / 64], 1u64 << (n % 64));
        twice |= *word & bit;
        *word |= bit;
    }
    if twice != 0 {
        return Ok(None);
    }
    drop(seen);
    let values = in_file.iter().map(|col| order.iter().map(|&n| col[n]).collect()).collect();
    Ok(Some(KeyedNumbers { order, columns: values }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(csv: &str, rows: usize) -> Option<KeyedNumbers> {
        let keys = ["a", "b", "c"];
        let position = |_, k: &str| keys.iter().position(|&x| x == k);
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
    fn quotes_line_ends_and_blank_lines_read_alike() {
        let plain = read("p,id\n0.5,c\n0.25,a\n1e-3,b\n", 3).unwrap();
        // (file, split directly rather than by the CSV reader)
        for (other, simple) in [
            ("p,id\r\n0.5,c\r\n0.25,a\r\n1e-3,b\r\n", true),
            ("p,id\n\n0.5,c\n0.25,a\n\r\n1e-3,b", true),
            ("\u{feff}p,id\n0.5,c\n0.25,a\n1e-3,b\n", true),
            ("p,\"id\"\n0.5,\"c\"\n\"0.25\",a\n1e-3,b\n", false),
            ("p,id\r0.5,c\r0.25,a\r1e-3,b\r", false),
        ] {
            assert_eq!(super::super::records::is_simple(other.as_bytes()), simple, "{other:?}");
            assert_eq!(read(other, 3).as_ref(), Some(&plain), "{other:?}");
        }
        // A quoted key holding the delimiter.
        let keys = ["a,b", "c"];
        let position = |_, k: &str| keys.iter().position(|&x| x == k);
        let csv = "id,p\n\"a,b\",1\nc,2\n";
        let k = read_numbers_by_key(csv.as_bytes(), "<t>", &CsvLimits::DEFAULT, "id", &["p".into()], 2, position);
        assert_eq!(k.unwrap().unwrap().columns, vec![vec![1.0, 2.0]]);
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

    /// A placer's answer is used only when it is a permutation of the rows.
    struct Fixed(Vec<usize>);

    impl KeyPlacer for Fixed {
        fn place(&mut self, _: &KeyList<'_>) -> Option<Vec<usize>> {
            Some(self.0.clone())
        }
    }

    #[test]
    fn a_placer_that_repeats_or_drops_a_row_is_not_trusted() {
        // 70 rows: the bitset of seen rows spans two words.
        let csv: String = std::iter::once("id,p\n".to_owned()).chain((0..70).map(|i| format!("k{i},{i}\n"))).collect();
        let read = |order: Vec<usize>| {
            read_numbers_by_key(csv.as_bytes(), "<t>", &CsvLimits::DEFAULT, "id", &["p".into()], 70, Fixed(order))
                .unwrap()
        };
        let reversed: Vec<usize> = (0..70).rev().collect();
        let k = read(reversed.clone()).unwrap();
        assert_eq!(k.columns[0], (0..70).rev().map(f64::from).collect::<Vec<_>>());
        for (at, to) in [(0, 68), (65, 3), (69, 64)] {
            let mut repeated = reversed.clone();
            repeated[at] = to;
            assert_eq!(read(repeated), None, "row {to} twice");
        }
        let mut beyond = reversed.clone();
        beyond[5] = 70;
        assert_eq!(read(beyond), None);
        assert_eq!(read(reversed[1..].to_vec()), None);
    }
}
