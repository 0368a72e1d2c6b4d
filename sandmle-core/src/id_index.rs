//! [`IdIndex`]: from an id to its row, over a column of ids it borrows.
//!
//! Grading a large submission places each of its ids among the answers'
//! ids. A hash map does that with one random memory access (or several)
//! per id, and on a large column each is a cache miss. This index instead
//! sorts the ids' 64-bit hashes, packed with their rows into one `u64`
//! each, and aligns a whole second column at once by sorting that
//! column's hashes the same way and walking both lists together: sorting
//! and walking read memory in order.
//!
//! The index is never iterated in hash order into any output: results are
//! rows, decided by exact comparison of the ids.

/// Why an [`IdIndex`] could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdIndexError {
    /// Row `row` (0-based) has no id.
    Missing {
        /// The row.
        row: usize,
    },
    /// Row `row` (0-based) repeats the id of an earlier row.
    Duplicate {
        /// The row.
        row: usize,
    },
}

/// The ids of a column, sorted by hash, borrowing the column.
///
/// Build it with [`IdIndex::new`] (which finds the first missing or repeated
/// id, going down the rows); look one id up with [`IdIndex::get`], or place
/// a whole column of ids at once with [`IdIndex::align`].
#[derive(Debug, Clone)]
pub struct IdIndex<'k, S> {
    keys: &'k [Option<S>],
    /// Each row's hash with its low `row_bits` bits replaced by the row,
    /// sorted (so by hash, then row).
    packed: Vec<u64>,
    row_bits: u32,
}

/// The bits that number `n` rows (at least one, at most 63).
fn bits_for(n: usize) -> u32 {
    (usize::BITS - n.leading_zeros()).clamp(1, 63)
}

/// `(hash & !low) | row`: a hash and its row in one sortable word.
#[inline]
fn pack(h: u64, row: usize, row_bits: u32) -> u64 {
    (h >> row_bits << row_bits) | row as u64
}

/// Runs of equal hash in a sorted packed list: `(start, end)` of each run
/// longer than one.
fn runs(packed: &[u64], row_bits: u32) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < packed.len() {
            let start = i;
            let h = packed[i] >> row_bits;
            i += 1;
            while i < packed.len() && packed[i] >> row_bits == h {
                i += 1;
            }
            if i - start > 1 {
                return Some((start, i));
            }
        }
        None
    })
}

/// Up to 8 bytes as one little-endian word, zero-padded.
#[inline]
fn word(b: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    buf[..b.len()].copy_from_slice(b);
    u64::from_le_bytes(buf)
}

/// A fast, well-mixed hash of bytes: the bytes folded into one word (ids
/// of up to 16 bytes, most ids, as two overlapping 8-byte words read
/// without a loop; longer ones 8 bytes at a time), then MurmurHash3's
/// finaliser, so that both the low bits (the group) and the high bits (the
/// tag) depend on every byte.
#[inline]
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let n = bytes.len();
    let fold = |h: u64, w: u64| (h ^ w).wrapping_mul(K).rotate_left(29);
    let mut h = n as u64;
    if n <= 8 {
        h = fold(h, word(bytes));
    } else if n <= 16 {
        h = fold(fold(h, word(&bytes[..8])), word(&bytes[n - 8..]));
    } else {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            h = fold(h, word(w));
        }
        h = fold(h, word(words.remainder()));
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

/// `a == b` for byte strings, without a call for short ones: ids of up to
/// 16 bytes (most) compare as their [`short_words`].
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    match a.len() {
        n if n != b.len() => false,
        0..=16 => short_words(a) == short_words(b),
        _ => a == b,
    }
}

/// An id of up to 16 bytes as two words (two overlapping 8-byte words,
/// or one zero-padded): two ids of one length are equal exactly when
/// their words are.
#[inline]
fn short_words(b: &[u8]) -> [u64; 2] {
    let n = b.len();
    match n {
        0..=8 => [word(b), 0],
        _ => [word(&b[..8]), word(&b[n - 8..])],
    }
}

/// Columns of at least this many ids compare their pairs by bucket
/// ([`IdIndex::compare_by_bucket`]); shorter ones, whose indexed ids sit in
/// cache anyway, one by one.
const BUCKETED_MIN: usize = 1 << 16;

/// A bucket's indexed rows, as bits: 2^12 cells of up to 24 bytes and the
/// 32 KB of `order` they place, well within a core's L2 cache (buckets of
/// 2^14 rows compared about a third slower on a 2-core AMD EPYC VM).
const BUCKET_ROW_BITS: u32 = 12;

/// A compare record's length code for an id longer than 16 bytes, whose
/// bytes are read again from the column.
const LONG_ID: u64 = 31;

/// A compare record's bits for the column's row (between the indexed
/// row's 32 and the length code's 5): columns of fewer than 2^27 ids are
/// compared by bucket.
const RECORD_ROW_BITS: u32 = 27;

impl<'k, S: AsRef<str>> IdIndex<'k, S> {
    /// Indexes `keys`: row `i` holds id `keys[i]`.
    ///
    /// # Errors
    /// The first row, going down, that has no id ([`IdIndexError::Missing`])
    /// or repeats an earlier row's id ([`IdIndexError::Duplicate`]).
    pub fn new(keys: &'k [Option<S>]) -> Result<Self, IdIndexError> {
        let row_bits = bits_for(keys.len());
        let mut packed = Vec::with_capacity(keys.len());
        let mut missing = None;
        for (row, key) in keys.iter().enumerate() {
            match key {
                Some(k) => packed.push(pack(hash(k.as_ref().as_bytes()), row, row_bits)),
                None => {
                    missing = Some(row);
                    break;
                }
            }
        }
        packed.sort_unstable();
        let index = IdIndex { keys, packed, row_bits };
        // Equal ids hash alike: within each run of equal hashes (rows in
        // increasing order), a row equal to an earlier one is a repeat.
        let mut repeat: Option<usize> = None;
        for (start, end) in runs(&index.packed, row_bits) {
            let run = &index.packed[start..end];
            for (j, &later) in run.iter().enumerate().skip(1) {
                let row = index.row(later);
                let id = index.id(row);
                if repeat.is_none_or(|r| row < r) && run[..j].iter().any(|&e| index.id(index.row(e)) == id) {
                    repeat = Some(row);
                    break;
                }
            }
        }
        match (repeat, missing) {
            (Some(row), _) => Err(IdIndexError::Duplicate { row }),
            (None, Some(row)) => Err(IdIndexError::Missing { row }),
            (None, None) => Ok(index),
        }
    }

    #[inline]
    fn row(&self, packed: u64) -> usize {
        (packed & ((1u64 << self.row_bits) - 1)) as usize
    }

    #[inline]
    fn id(&self, row: usize) -> Option<&str> {
        self.keys.get(row).and_then(Option::as_ref).map(AsRef::as_ref)
    }

    /// The row holding `id`, if any (a binary search).
    pub fn get(&self, id: &str) -> Option<usize> {
        let h = hash(id.as_bytes()) >> self.row_bits;
        let start = self.packed.partition_point(|&p| p >> self.row_bits < h);
        self.packed[start..]
            .iter()
            .take_while(|&&p| p >> self.row_bits == h)
            .map(|&p| self.row(p))
            .find(|&row| self.id(row) == Some(id))
    }

    /// Places a column of `n` ids, the bytes `id_at(j)` for `j` in `0..n`, among the
    /// indexed rows: `order[i]` is the `j` holding row `i`'s id. `None`
    /// unless the ids are exactly the indexed ones, each once (another
    /// count, an id the index lacks, one given twice, or an `id_at` that is
    /// `None`); `None` too for more than `u32::MAX` ids, which it does not
    /// place.
    ///
    /// The ids are hashed, sorted and walked beside the index, which pairs
    /// each with an indexed row; every pair is then compared exactly, going
    /// down the column.
    pub fn align<'a>(&self, n: usize, id_at: impl Fn(usize) -> Option<&'a [u8]>) -> Option<Vec<usize>> {
        if n != self.packed.len() || n != self.keys.len() || u32::try_from(n).is_err() {
            return None;
        }
        let rb = self.row_bits;
        let mut theirs = Vec::with_capacity(n);
        for j in 0..n {
            theirs.push(pack(hash(id_at(j)?), j, rb));
        }
        theirs.sort_unstable();
        // `by_theirs[j]`: the indexed row the column's row `j` is paired
        // with (32 bits: half the memory of a random-access list).
        let mut by_theirs = vec![u32::MAX; n];
        let mut k = 0;
        while k < n {
            let h = self.packed[k] >> rb;
            let end = k + self.packed[k..].iter().take_while(|&&p| p >> rb == h).count();
            if theirs[k..end].iter().any(|&p| p >> rb != h) || theirs.get(end).is_some_and(|&p| p >> rb == h) {
                return None;
            }
            if end - k == 1 {
                by_theirs[self.row(theirs[k])] = self.row(self.packed[k]) as u32;
            } else {
                // Ids whose hashes collide: matched by value.
                let mut left: Vec<usize> = theirs[k..end].iter().map(|&p| self.row(p)).collect();
                for &p in &self.packed[k..end] {
                    let row = self.row(p);
                    let at = left
                        .iter()
                        .position(|&j| id_at(j).is_some_and(|id| Some(id) == self.id(row).map(str::as_bytes)))?;
                    by_theirs[left.swap_remove(at)] = row as u32;
                }
            }
            k = end;
        }
        drop(theirs);
        if (BUCKETED_MIN..1 << RECORD_ROW_BITS).contains(&n) {
            return self.compare_by_bucket(by_theirs, &id_at);
        }
        // Every pair compared exactly, going down the column: its ids are
        // read in order, the indexed ones at random. Blocks of indexed ids
        // are located, and their first bytes read, before any is compared:
        // those reads do not wait on one another, and the processor
        // overlaps their cache misses. `order[i]`: the column's row holding
        // indexed row `i`'s id.
        let mut order = vec![usize::MAX; n];
        const BLOCK: usize = 32;
        let mut ours: [&[u8]; BLOCK] = [&[]; BLOCK];
        for (b, rows) in by_theirs.chunks(BLOCK).enumerate() {
            for (slot, &row) in ours.iter_mut().zip(rows) {
                *slot = self.id(row as usize)?.as_bytes();
            }
            let touched = ours[..rows.len()].iter().fold(0u8, |acc, id| acc ^ id.first().copied().unwrap_or(0));
            std::hint::black_box(touched);
            for (i, (id, &row)) in ours.iter().zip(rows).enumerate() {
                let j = b * BLOCK + i;
                if !id_at(j).is_some_and(|theirs| same_bytes(theirs, id)) {
                    return None;
                }
                order[row as usize] = j;
            }
        }
        Some(order)
    }

    /// [`IdIndex::align`]'s exact comparison of every pair, `by_theirs[j]`
    /// the indexed row paired with the column's row `j` (fewer than
    /// 2^[`RECORD_ROW_BITS`] rows), bucket by bucket of [`BUCKET_ROW_BITS`] indexed rows.
    ///
    /// Going down the column, each pair is written to its indexed row's
    /// bucket as a record carrying the column's id itself: its length and
    /// [`short_words`] (an id of more than 16 bytes is marked [`LONG_ID`]
    /// and read again from the column). The records are then compared
    /// bucket after bucket, so the indexed ids each bucket reads, and the
    /// places of `order` it writes, stay in cache. On a million ids (a
    /// 2-core AMD EPYC VM): one pass at random over the indexed ids, a
    /// cache miss a row, took about 40 ms; writing and comparing the
    /// records about 25 ms, for 24 bytes a row of memory while they live.
    fn compare_by_bucket<'a>(
        &self,
        by_theirs: Vec<u32>,
        id_at: &impl Fn(usize) -> Option<&'a [u8]>,
    ) -> Option<Vec<usize>> {
        let n = by_theirs.len();
        // Where each bucket's records start, then (as they are written)
        // where its next record goes.
        let mut next = vec![0usize; (n >> BUCKET_ROW_BITS) + 2];
        for &i in &by_theirs {
            *next.get_mut((i >> BUCKET_ROW_BITS) as usize + 1)? += 1;
        }
        for b in 1..next.len() {
            next[b] += next[b - 1];
        }
        // A record: the indexed row (32 bits up), the column's row (5 bits
        // up, [`RECORD_ROW_BITS`] of them) and the id's length code; then
        // the id's two words.
        let mut records = vec![[0u64; 3]; n];
        for (j, &i) in by_theirs.iter().enumerate() {
            let theirs = id_at(j)?;
            let (code, [w0, w1]) =
                if theirs.len() <= 16 { (theirs.len() as u64, short_words(theirs)) } else { (LONG_ID, [0, 0]) };
            let slot = next.get_mut((i >> BUCKET_ROW_BITS) as usize)?;
            records[*slot] = [(u64::from(i) << 32) | ((j as u64) << 5) | code, w0, w1];
            *slot += 1;
        }
        drop(by_theirs);
        let mut order = vec![usize::MAX; n];
        for &[head, w0, w1] in &records {
            let (row, j, code) =
                ((head >> 32) as usize, (head >> 5 & ((1 << RECORD_ROW_BITS) - 1)) as usize, head & 31);
            let ours = self.id(row)?.as_bytes();
            let same = if code == LONG_ID {
                id_at(j).is_some_and(|theirs| same_bytes(theirs, ours))
            } else {
                ours.len() as u64 == code && short_words(ours) == [w0, w1]
            };
            if !same {
                return None;
            }
            order[row] = j;
        }
        Some(order)
    }

    /// `true` when this index was built on `keys` itself (the same rows in
    /// memory, not merely equal ones).
    pub fn indexes(&self, keys: &[Option<S>]) -> bool {
        std::ptr::eq(self.keys, keys)
    }

    /// The number of indexed rows.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// `true` when no rows are indexed.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<Option<String>> {
        v.iter().map(|s| Some((*s).to_owned())).collect()
    }

    #[test]
    fn finds_every_id_and_nothing_else() {
        let keys: Vec<Option<String>> = (0..5000).map(|i| Some(format!("id{i:07}"))).collect();
        let index = IdIndex::new(&keys).unwrap();
        for (row, k) in keys.iter().enumerate() {
            assert_eq!(index.get(k.as_deref().unwrap()), Some(row));
        }
        for missing in ["", "id", "id0005000", "id000000", "id00000000", "ID0000001"] {
            assert_eq!(index.get(missing), None, "{missing}");
        }
        // A shuffled column places row by row; anything else does not place.
        let shuffled: Vec<&str> = (0..5000).map(|j| keys[(j * 7919) % 5000].as_deref().unwrap()).collect();
        let order = index.align(5000, |j| shuffled.get(j).map(|s| s.as_bytes())).unwrap();
        assert!(order.iter().enumerate().all(|(i, &j)| (j * 7919) % 5000 == i));
        let mut twice = shuffled.clone();
        twice[17] = twice[18];
        assert_eq!(index.align(5000, |j| twice.get(j).map(|s| s.as_bytes())), None);
        let mut unknown = shuffled.clone();
        unknown[0] = "id9999999";
        assert_eq!(index.align(5000, |j| unknown.get(j).map(|s| s.as_bytes())), None);
        assert_eq!(index.align(4999, |j| shuffled.get(j).map(|s| s.as_bytes())), None);
        assert_eq!(index.align(5000, |j| shuffled.get(j).map(|s| s.as_bytes()).filter(|_| j != 3)), None);
        assert_eq!(index.len(), 5000);
    }

    /// Columns long enough to be compared by bucket: ids of every length
    /// around the two words (1 to 40 bytes, so short, two-word and long
    /// ids share buckets) place row by row when shuffled, and any id
    /// changed in one byte, cut short, lengthened or repeated leaves the
    /// column unplaced, wherever it falls.
    #[test]
    fn columns_compared_by_bucket_place_exactly_the_indexed_ids() {
        let n = BUCKETED_MIN + 3_001;
        let keys: Vec<Option<String>> = (0..n)
            .map(|i| Some(format!("{i:x}-{}", "abcdefghijklmnopqrstuvwxyz0123456789"[..i % 37].to_owned())))
            .collect();
        assert!(keys.iter().flatten().any(|k| k.len() <= 8) && keys.iter().flatten().any(|k| k.len() > 16));
        let index = IdIndex::new(&keys).unwrap();
        let at = |j: usize| (j * 7_919 + 13) % n;
        let shuffled: Vec<Vec<u8>> = (0..n).map(|j| keys[at(j)].as_deref().unwrap().as_bytes().to_vec()).collect();
        let place = |column: &[Vec<u8>]| index.align(n, |j| column.get(j).map(Vec::as_slice));
        let order = place(&shuffled).unwrap();
        assert!(order.iter().enumerate().all(|(i, &j)| at(j) == i));
        for j in [0, 1, 4_096, n / 2, n - 1] {
            let len = shuffled[j].len();
            let mut changed = shuffled.clone();
            changed[j][len - 1] ^= 1;
            assert_eq!(place(&changed), None, "changed {j}");
            let mut cut = shuffled.clone();
            cut[j].pop();
            assert_eq!(place(&cut), None, "cut {j}");
            let mut longer = shuffled.clone();
            longer[j].push(b'a');
            assert_eq!(place(&longer), None, "longer {j}");
            let mut twice = shuffled.clone();
            twice[j] = shuffled[(j + 1) % n].clone();
            assert_eq!(place(&twice), None, "twice {j}");
        }
    }

    /// Columns long enough to be compared by bucket whose hashes agree
    /// with the index but one of whose ids differs from the indexed one:
    /// in its first or last byte, in the middle of a long id, or only in
    /// length (a trailing NUL, which the zero-padded words do not show).
    /// Only the exact comparison can refuse them.
    #[test]
    fn a_bucketed_comparison_refuses_an_id_whose_hash_agrees() {
        let n = BUCKETED_MIN + 5;
        let mut keys: Vec<Option<String>> = (0..n).map(|i| Some(format!("id{i:07}"))).collect();
        keys[7] = Some("x\0".into());
        keys[9] = Some("a-much-longer-identifier-9".into());
        keys[11] = Some("short".into());
        let column: Vec<String> = keys.iter().map(|k| k.clone().unwrap()).collect();
        let cases = [
            (0, "jd0000000"),
            (1, "id0000002"),
            (7, "x"),
            (9, "a-much-longer-iDentifier-9"),
            (11, "shorT"),
            (n - 1, "id0065549"),
        ];
        for (row, replacement) in cases {
            let mut index = IdIndex::new(&keys).unwrap();
            let mut theirs = column.clone();
            theirs[row] = replacement.into();
            assert_ne!(theirs[row], column[row]);
            let rb = index.row_bits;
            index.packed = theirs.iter().enumerate().map(|(r, k)| pack(hash(k.as_bytes()), r, rb)).collect();
            index.packed.sort_unstable();
            assert_eq!(index.align(n, |j| theirs.get(j).map(|s| s.as_bytes())), None, "{replacement}");
        }
        let index = IdIndex::new(&keys).unwrap();
        assert_eq!(index.align(n, |j| column.get(j).map(|s| s.as_bytes())), Some((0..n).collect()));
    }

    #[test]
    fn reports_the_first_missing_or_repeated_row() {
        assert_eq!(IdIndex::new(&ids(&["a", "b", "a", "b"])).unwrap_err(), IdIndexError::Duplicate { row: 2 });
        let keys = vec![Some("a"), None, Some("a")];
        assert_eq!(IdIndex::new(&keys).unwrap_err(), IdIndexError::Missing { row: 1 });
        // The empty id is an id like any other.
        let keys = ids(&["", "x"]);
        let index = IdIndex::new(&keys).unwrap();
        assert_eq!((index.get(""), index.get("x")), (Some(0), Some(1)));
        assert!(IdIndex::<String>::new(&[]).unwrap().is_empty());
    }

    #[test]
    fn long_and_unicode_ids() {
        let keys =
            ids(&["é", "e\u{301}", "a-much-longer-identifier-of-many-words", "a-much-longer-identifier-of-many-word"]);
        let index = IdIndex::new(&keys).unwrap();
        for (row, k) in keys.iter().enumerate() {
            assert_eq!(index.get(k.as_deref().unwrap()), Some(row));
        }
    }

    #[test]
    fn ids_whose_hashes_agree_but_whose_bytes_differ_are_refused() {
        // An index whose row 0 carries the hash of `c` while holding `a`:
        // the column `c, b` agrees with it hash for hash, and only the
        // exact comparison tells `c` from `a`.
        let keys = ids(&["a", "b"]);
        let mut index = IdIndex::new(&keys).unwrap();
        let rb = index.row_bits;
        index.packed = vec![pack(hash(b"c"), 0, rb), pack(hash(b"b"), 1, rb)];
        index.packed.sort_unstable();
        assert_eq!(index.align(2, |j| ["c", "b"].get(j).map(|s| s.as_bytes())), None);
        assert_eq!(index.align(2, |j| ["b", "a"].get(j).map(|s| s.as_bytes())), None);
    }

    #[test]
    fn same_bytes_is_byte_equality_at_every_length() {
        for n in 0..40usize {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(same_bytes(&a, &a.clone()), "{n}");
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x20;
                assert!(!same_bytes(&a, &b), "{n} {at}");
            }
            let mut longer = a.clone();
            longer.push(0);
            assert!(!same_bytes(&a, &longer) && !same_bytes(&longer, &a), "{n}");
        }
    }

    #[test]
    fn colliding_hashes_are_told_apart_by_value() {
        // With all but the top bit taken by the row, every hash collides.
        let keys = ids(&["c", "a", "b", "d"]);
        let mut index = IdIndex::new(&keys).unwrap();
        index.row_bits = 63;
        index.packed =
            keys.iter().enumerate().map(|(r, k)| pack(hash(k.as_deref().unwrap().as_bytes()), r, 63)).collect();
        index.packed.sort_unstable();
        assert!(runs(&index.packed, 63).next().is_some());
        let order = index.align(4, |j| ["a", "d", "c", "b"].get(j).map(|s| s.as_bytes())).unwrap();
        assert_eq!(order, vec![2, 0, 3, 1]);
        assert_eq!(index.align(4, |j| ["a", "a", "c", "b"].get(j).map(|s| s.as_bytes())), None);
        assert_eq!(index.get("d"), Some(3));
    }
}
