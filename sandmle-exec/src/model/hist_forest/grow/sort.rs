//! Sorting a node's rows by bin, partitioning them between its children,
//! and the bounds on a class node's greatest gain.

use super::*;

impl Presorted {
    /// Each feature's `rows` (increasing) put in bin order by a counting
    /// sort, which keeps rows of one bin in increasing order.
    pub(super) fn new(bins: &Bins, rows: &[u32], mut lists: Vec<u32>) -> Presorted {
        let m = rows.len();
        lists.clear();
        lists.resize(bins.codes.len() * m, 0);
        let mut all_starts = [0usize; MAX_BINS + 2];
        for (f, codes) in bins.codes.iter().enumerate() {
            // Counts over the feature's own bins only.
            let starts = &mut all_starts[..bins.edges[f].len() + 2];
            starts.fill(0);
            for &r in rows {
                starts[codes[r as usize] as usize + 1] += 1;
            }
            for b in 1..starts.len() {
                starts[b] += starts[b - 1];
            }
            let list = &mut lists[f * m..(f + 1) * m];
            for &r in rows {
                let slot = &mut starts[codes[r as usize] as usize];
                list[*slot] = r;
                *slot += 1;
            }
        }
        Presorted { lists, m }
    }
}

/// Classes present in a node up to which [`best_grouping`] looks for the
/// greatest gain (2^(n-1) - 1 groupings of n classes).
pub(super) const GROUPED_CLASSES: usize = 5;

/// The greatest gain a cut of a class node can have, as the scans compute
/// it, or +inf when the node holds more than [`GROUPED_CLASSES`] classes;
/// `classes` are its class weights, `parent` its purity, `total` its
/// weight.
///
/// A side's sum of squared class weights over its weight is convex in its
/// class weights (the perspective of a square), so the gain of a cut,
/// over the box of how much of each class goes left, is greatest at a
/// corner: each class whole on one side. So the greatest gain is the
/// greatest over the groupings of the classes present in two, and every
/// cut of that grouping has the same sums of squares and weights on its
/// sides (whole numbers, exact), so the same computed gain
/// (`lsq / lw + rsq / rw - parent`, over the total, the two sides added
/// in either order). A cut that splits a class falls short by far more
/// than rounding. With two classes the grouping is the two pure sides.
/// (A node of 2^26 or more rows' weight gets +inf: its sums of squares
/// need not be exact.)
pub(crate) fn best_grouping(classes: &[f64], parent: f64, total: f64) -> f64 {
    // Below 2^26 rows' weight every sum of squares is a whole number
    // below 2^53, exact in any order (see the scans); above, no bound.
    if total >= (1u64 << 26) as f64 {
        return f64::INFINITY;
    }
    let mut present = [0.0; GROUPED_CLASSES];
    let mut n = 0;
    for &c in classes {
        if c > 0.0 {
            if n == GROUPED_CLASSES {
                return f64::INFINITY;
            }
            present[n] = c;
            n += 1;
        }
    }
    if n < 2 {
        // A pure node is not searched; nothing is unbeatable in it.
        return f64::INFINITY;
    }
    let mut most = f64::NEG_INFINITY;
    // Each grouping once: the first class on the left.
    for left in (1u32..1 << n).step_by(2) {
        if left == (1 << n) - 1 {
            continue;
        }
        let side = |on_left: bool| {
            let (mut squares, mut weight) = (0.0, 0.0);
            for (i, &c) in present[..n].iter().enumerate() {
                if (left >> i & 1 == 1) == on_left {
                    squares += c * c;
                    weight += c;
                }
            }
            squares / weight
        };
        most = most.max(side(true) + side(false));
    }
    (most - parent) / total
}

/// Keeps split `s` in `best` if its gain beats the best's (the first of
/// equal gains is kept).
pub(super) fn keep(s: Option<Split>, best: &mut Option<Split>) {
    if let Some(s) = s
        && best.is_none_or(|b| s.3 > b.3)
    {
        *best = Some(s);
    }
}

/// Nodes of at least this many rows sort by counting (a pass over 256 bin
/// counters costs about what ranking this many keys does); fewer, by rank
/// ([`sort_by_bin`], for nodes and tables without row orders).
pub(super) const COUNT_SORT_MIN: usize = 32;

/// Sorts the places of a node's rows by their bins `codes` (in place
/// order), then by place, and returns the sorted keys: each key holds a
/// bin 32 bits up ([`key_bin`]) and a place below ([`key_place`]). `keys`
/// is scratch: it only grows, to twice the largest node's rows, the `n`
/// keys in its first `n` places and the sorted keys in the next `n`, each
/// written before it is read (a buffer cleared and zeroed again at each
/// call cost a call to `memset` a scan).
///
/// A node of fewer than [`COUNT_SORT_MIN`] rows is sorted by rank
/// ([`rank_sort`]), one of more by counting: the keys are made in place
/// order and each is put after every key of a lower bin and every earlier
/// key of its own, which is the order a comparison sort of the keys gives,
/// in a pass over the rows and one over the bins.
#[inline(always)]
pub(super) fn sort_by_bin(keys: &mut Vec<u64>, codes: impl ExactSizeIterator<Item = u8>) -> &[u64] {
    let n = codes.len();
    if keys.len() < 2 * n {
        keys.resize(2 * n, 0);
    }
    let (unsorted, sorted) = keys[..2 * n].split_at_mut(n);
    for (k, (i, c)) in unsorted.iter_mut().zip(codes.enumerate()) {
        *k = (u64::from(c) << 32) | i as u64;
    }
    if n < COUNT_SORT_MIN {
        rank_sort(unsorted, sorted);
        return sorted;
    }
    let mut next = [0u32; 256];
    for &k in unsorted.iter() {
        next[usize::from(key_bin(k))] += 1;
    }
    let mut before = 0;
    for slot in &mut next {
        let count = *slot;
        *slot = before;
        before += count;
    }
    for &k in unsorted.iter() {
        let slot = &mut next[usize::from(key_bin(k))];
        sorted[*slot as usize] = k;
        *slot += 1;
    }
    sorted
}

/// [`sort_by_bin`] of fewer than [`COUNT_SORT_MIN`] keys, into `sorted`
/// (as long as `keys`): each key goes to its rank, the number of keys
/// below it (keys are distinct: their places are). The ranks are counted
/// over 16-bit copies of the keys, `bin · 32 + place` (the same order, as
/// a place is below 32), all 16 or 32 at once without a branch, where a
/// comparison sort's every comparison is as good as random to the
/// processor.
#[inline(always)]
pub(super) fn rank_sort(keys: &[u64], sorted: &mut [u64]) {
    if keys.len() < COUNT_SORT_MIN / 2 {
        rank_sort_in::<{ COUNT_SORT_MIN / 2 }>(keys, sorted);
    } else {
        rank_sort_in::<COUNT_SORT_MIN>(keys, sorted);
    }
}

/// [`rank_sort`] of at most `LANES` keys.
#[inline(always)]
pub(super) fn rank_sort_in<const LANES: usize>(keys: &[u64], sorted: &mut [u64]) {
    let n = keys.len();
    debug_assert!(n <= LANES && LANES <= 32 && sorted.len() == n);
    // Unused lanes hold a key above every real one (at most 255 · 32 + 31).
    let mut small = [i16::MAX; LANES];
    for (s, &k) in small.iter_mut().zip(keys) {
        *s = (i16::from(key_bin(k)) << 5) | key_place(k) as i16;
    }
    // Every key's rank at once: each key adds one to the rank of every
    // key above it, a comparison of all the lanes per key.
    let mut rank = [0i16; LANES];
    for &other in &small[..n] {
        for (r, &me) in rank.iter_mut().zip(&small) {
            *r += i16::from(other < me);
        }
    }
    for (&k, &r) in keys.iter().zip(&rank) {
        sorted[r as usize] = k;
    }
}

/// The bin of a [`sort_by_bin`] key.
#[inline(always)]
pub(super) fn key_bin(key: u64) -> u8 {
    (key >> 32) as u8
}

/// The place of a [`sort_by_bin`] key.
#[inline(always)]
pub(super) fn key_place(key: u64) -> usize {
    key as u32 as usize
}

/// Moves the rows for which `left` holds to the front, keeping the order
/// of each side (`right` is scratch); returns their count.
///
/// Branch-free: each row is written to both sides and only its own side's
/// count moves on (which side is as good as random to the processor).
pub(super) fn partition(rows: &mut [u32], right: &mut Vec<u32>, left: impl Fn(u32) -> bool) -> usize {
    if right.len() < rows.len() {
        right.resize(rows.len(), 0);
    }
    let (mut i, mut k) = (0, 0);
    for j in 0..rows.len() {
        let r = rows[j];
        let l = left(r);
        rows[i] = r;
        right[k] = r;
        i += usize::from(l);
        k += usize::from(!l);
    }
    rows[i..].copy_from_slice(&right[..k]);
    i
}
