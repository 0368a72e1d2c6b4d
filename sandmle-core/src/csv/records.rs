//! The records of a CSV text, as the readers of this module take them: a
//! record's bytes, its fields' bounds in those bytes, and the line it
//! starts on.
//!
//! A text without quotes and without a lone `\r` (one not followed by
//! `\n`) is split directly: its records are its non-empty lines, its
//! fields the spans between commas. That is exactly how the CSV reader
//! reads such a text, and it is most files graders and synthesisers see:
//! ids, numbers and labels. Any other text goes through the `csv` crate's
//! reader, which handles quoting.

use std::ops::Range;

/// A record: its 1-based starting line, its bytes and its fields' bounds
/// in them.
pub(super) struct Record<'r> {
    /// The line the record starts on (the header is on line 1 of a file
    /// without leading blank lines).
    pub line: u64,
    /// The record's bytes (delimiters included on the direct path, not on
    /// the reader's).
    pub bytes: &'r [u8],
    /// Each field's span in `bytes`.
    pub bounds: &'r [Range<usize>],
    /// Where `bytes` starts in the text, when they are the text's own (the
    /// direct path); `None` for the CSV reader's records, which it unquotes
    /// into a buffer of its own.
    pub offset: Option<usize>,
}

impl<'r> Record<'r> {
    /// The number of fields.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Field `j`'s bytes; empty past the last field.
    #[inline]
    pub fn field(&self, j: usize) -> &'r [u8] {
        self.bounds.get(j).and_then(|b| self.bytes.get(b.clone())).unwrap_or_default()
    }
}

/// `true` when no field of `data` can be quoted and every `\r` ends a line
/// (is followed by `\n`, or ends the text): the records are then its
/// non-empty lines split at commas, exactly as the CSV reader reads them.
pub(super) fn is_simple(data: &[u8]) -> bool {
    memchr::memchr(b'"', data).is_none()
        && memchr::memchr_iter(b'\r', data).all(|i| data.get(i + 1).is_none_or(|&b| b == b'\n'))
}

/// Calls `f` with each record after the header, stopping at its first
/// error: directly for a text [`is_simple`] accepts, through the CSV
/// reader otherwise (whose errors `reader_error` converts).
pub(super) fn each_record<E>(
    data: &[u8],
    reader_error: impl Fn(&csv::Error) -> E,
    f: impl FnMut(Record<'_>) -> Result<(), E>,
) -> Result<(), E> {
    if is_simple(data) { each_simple(data, f) } else { each_quoted(data, reader_error, f) }
}

/// The bytes of a word of `x` that are zero, as their top bits: exact for
/// every byte (no borrow from one byte into the next).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    !(((x & LOW7) + LOW7) | x | LOW7)
}

/// Calls `f` with the position of every comma and `\n`, in order, then
/// with `data.len()`: eight bytes at a time (fields are short, so
/// delimiters are dense and a per-match search would restart every few
/// bytes), in one loop with no iterator state between calls.
#[inline]
fn each_delimiter<E>(data: &[u8], mut f: impl FnMut(usize) -> Result<(), E>) -> Result<(), E> {
    const COMMAS: u64 = 0x2c2c_2c2c_2c2c_2c2c;
    const NEWLINES: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    let words = data.chunks_exact(8);
    let tail = words.remainder();
    let at_tail = data.len() - tail.len();
    for (w, word) in words.enumerate() {
        let x = u64::from_le_bytes(word.try_into().unwrap_or_default());
        let mut mask = zero_bytes(x ^ COMMAS) | zero_bytes(x ^ NEWLINES);
        while mask != 0 {
            f(w * 8 + (mask.trailing_zeros() / 8) as usize)?;
            mask &= mask - 1;
        }
    }
    for (i, b) in tail.iter().enumerate() {
        if matches!(b, b',' | b'\n') {
            f(at_tail + i)?;
        }
    }
    f(data.len())
}

/// The direct split: one pass over the commas and line ends.
fn each_simple<E>(data: &[u8], mut f: impl FnMut(Record<'_>) -> Result<(), E>) -> Result<(), E> {
    let mut bounds: Vec<Range<usize>> = Vec::new();
    let (mut start, mut field, mut line) = (0usize, 0usize, 1u64);
    let mut header = true;
    each_delimiter(data, |i| {
        if data.get(i) == Some(&b',') {
            bounds.push(field - start..i - start);
            field = i + 1;
            return Ok(());
        }
        let end = if i > start && data[i - 1] == b'\r' { i - 1 } else { i };
        if end > start {
            bounds.push(field.min(end) - start..end - start);
            if header {
                header = false;
            } else {
                f(Record { line, bytes: &data[start..end], bounds: &bounds, offset: Some(start) })?;
            }
        }
        bounds.clear();
        (start, field) = (i + 1, i + 1);
        line += 1;
        Ok(())
    })
}

/// The CSV reader's records after the header.
fn each_quoted<E>(
    data: &[u8],
    reader_error: impl Fn(&csv::Error) -> E,
    mut f: impl FnMut(Record<'_>) -> Result<(), E>,
) -> Result<(), E> {
    let mut rdr = super::reader(data);
    let mut record = csv::ByteRecord::new();
    let mut bounds: Vec<Range<usize>> = Vec::new();
    // The reader's own line numbers lag after `\r\n` and blank lines (a
    // record's position is where the one before it ended), so lines are
    // counted here: the newlines before the record's first byte.
    let (mut counted, mut line) = (0usize, 1u64);
    loop {
        match rdr.read_byte_record(&mut record) {
            Ok(false) => return Ok(()),
            Ok(true) => {
                bounds.clear();
                bounds.extend((0..record.len()).filter_map(|i| record.range(i)));
                let at = record.position().map_or(0, |p| usize::try_from(p.byte()).unwrap_or(usize::MAX));
                let skipped = data.get(at..).unwrap_or_default().iter().take_while(|b| matches!(b, b'\r' | b'\n'));
                let start = (at + skipped.count()).min(data.len());
                if start > counted {
                    line += memchr::memchr_iter(b'\n', &data[counted..start]).count() as u64;
                    counted = start;
                }
                f(Record { line, bytes: record.as_slice(), bounds: &bounds, offset: None })?;
            }
            Err(e) => return Err(reader_error(&e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every record as (line, fields), by one path or the other.
    fn records(data: &[u8], simple: bool) -> Vec<(u64, Vec<Vec<u8>>)> {
        let mut out = Vec::new();
        let take = |r: Record<'_>| {
            out.push((r.line, (0..r.len()).map(|j| r.field(j).to_vec()).collect()));
            Ok::<(), ()>(())
        };
        if simple { each_simple(data, take) } else { each_quoted(data, |_| (), take) }.unwrap();
        out
    }

    #[test]
    fn the_direct_split_reads_what_the_csv_reader_reads() {
        for text in [
            "id,p\na,1\nb,2\n",
            "id,p\r\na,1\r\nb,2\r\n",
            "id,p\na,1\nb,2",
            "id,p\na,1\nb,2\r",
            "\n\nid,p\n\na,1\n\r\n\nb,2\n\n",
            "id,p,q\na,,\n,,\n,1,\nb,2,3\n",
            "id\na\n\nb\n",
            "id,p\na,1,2\nb\n",
            "",
            "id,p\n",
            "é,ü\n€,x\n",
            "id,p\r\n\r\na,1\r\nb,2\r\n",
            "id,p\r\na,1\nb,2\r\nc,3\n",
        ] {
            assert!(is_simple(text.as_bytes()), "{text:?}");
            assert_eq!(records(text.as_bytes(), true), records(text.as_bytes(), false), "{text:?}");
        }
    }

    #[test]
    fn delimiters_are_found_in_every_byte_of_a_word() {
        // Every byte value beside each delimiter, at every offset of a word.
        for len in 0..40 {
            for fill in [0u8, b'a', 0x2b, 0x2d, 0x09, 0x0b, 0x80, 0xac, 0x8a, 0xff] {
                let mut data = vec![fill; len];
                for (i, b) in data.iter_mut().enumerate() {
                    if i % 3 == 1 {
                        *b = b',';
                    } else if i % 5 == 2 {
                        *b = b'\n';
                    }
                }
                let want: Vec<usize> =
                    (0..len).filter(|&i| matches!(data[i], b',' | b'\n')).chain(std::iter::once(len)).collect();
                let mut found = Vec::new();
                each_delimiter::<()>(&data, |i| {
                    found.push(i);
                    Ok(())
                })
                .unwrap();
                assert_eq!(found, want, "{len} {fill}");
            }
        }
    }

    #[test]
    fn quotes_and_lone_carriage_returns_go_to_the_reader() {
        for text in ["id,p\n\"a\",1\n", "id,p\ra,1\rb,2\r", "id,p\na\r,1\n", "id,p\na,1\r\rb,2\n"] {
            assert!(!is_simple(text.as_bytes()), "{text:?}");
        }
        assert!(is_simple(b"id,p\na,1\r"));
    }

    #[test]
    fn lines_are_counted_after_crlf_and_blank_lines() {
        // The CSV reader's own positions say 1, 2 and 4, 6 here.
        let text = "id,p\r\na,1\r\nb,2\r\n";
        let want = vec![(2, vec![b"a".to_vec(), b"1".to_vec()]), (3, vec![b"b".to_vec(), b"2".to_vec()])];
        assert_eq!(records(text.as_bytes(), true), want);
        assert_eq!(records(text.as_bytes(), false), want);
        let text = "\n\nid,p\n\na,1\n\r\n\nb,2\n\n";
        let lines = |simple| records(text.as_bytes(), simple).into_iter().map(|(l, _)| l).collect::<Vec<_>>();
        assert_eq!((lines(true), lines(false)), (vec![5, 8], vec![5, 8]));
        // A quoted field spanning lines: the next record starts two lines on.
        let text = "id,\"p\"\r\n\"a\r\nx\",1\r\nb,2\r\n";
        assert_eq!(records(text.as_bytes(), false).into_iter().map(|(l, _)| l).collect::<Vec<_>>(), vec![2, 4]);
    }
}
