//! Two-class trees grown over row records kept in node order.
//!
//! A two-class tree that counts every candidate in packed integers
//! ([`count`](super::count)) reads, for each candidate of a node, the bin of
//! each of the node's rows: one load from that feature's codes per row.
//! Once a tree's nodes are small and their rows far apart in a large
//! table, each load is a cache miss. Here each row's bins are instead one
//! 16-byte record, which in a tree also holds the row's weight and
//! second-class weight, and the tree keeps its rows' records in node
//! order: each split moves them to its children's places, so a node's
//! candidates read its own records in sequence. A table whose features fit
//! in 14 bytes qualifies; one-hot columns make that common, because the
//! two-bin features of which each row has at most one in the upper bin (a
//! one-hot group) share one byte, the group member that row holds. A
//! node's group histograms come down the tree by subtraction, so a group
//! member candidate is read, not counted. The counts are the same integers
//! as the per-feature path's, so the trees are the same.

use crate::model::hist_forest::Node;
use crate::model::hist_forest::grow::Grower;
use crate::model::hist_forest::scan::{Split, two_bin_packed_cut, unpack};

/// The bytes of a row record.
pub(in crate::model::hist_forest) const WIDTH: usize = 16;

/// One row's bins, then, in a tree, its weight if its class is the second
/// ([`SECOND`]) and its weight ([`WEIGHT`]).
pub(in crate::model::hist_forest) type Record = [u8; WIDTH];

/// The byte of a record that holds the row's weight if its class is the
/// second, else 0.
const SECOND: usize = WIDTH - 2;

/// The byte of a record that holds the row's weight in the tree (its
/// bootstrap multiplicity: a tree with a weight above 255 does not grow
/// over records).
const WEIGHT: usize = WIDTH - 1;

/// A record's packed weights ([`pack`](crate::model::hist_forest::scan::pack)).
#[inline]
fn packed(r: &Record) -> u64 {
    u64::from(r[WEIGHT]) | u64::from(r[SECOND]) << 32
}

/// Where a feature's bin lies in a [`Record`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::model::hist_forest) enum Place {
    /// The bin is the byte at this index.
    Bin(u8),
    /// A member of a group of two-bin features: the row is in the upper
    /// bin when the byte at the first index holds the second number (the
    /// member's number in its group, from 1; 0 is no member).
    Member(u8, u8),
}

impl Place {
    /// The feature's bin in `record`.
    #[inline]
    fn code(self, record: &Record) -> u8 {
        match self {
            Place::Bin(at) => record[at as usize],
            Place::Member(at, v) => u8::from(record[at as usize] == v),
        }
    }
}

/// Every training row's record, and where each feature lies in them.
pub(in crate::model::hist_forest) struct Records {
    pub rows: Vec<Record>,
    pub places: Vec<Place>,
    /// The bytes that hold groups, each with where its values start in a
    /// node's group histogram.
    groups: Vec<(usize, usize)>,
    /// Per feature, a member's place in a node's group histogram.
    slots: Vec<usize>,
    /// The numbers in a node's group histogram: every group's values.
    hist_len: usize,
}

impl Records {
    /// The records of the binned table `codes` (`codes[f][row]`, feature
    /// `f` with `bins[f]` bins), or `None` when its features do not fit in
    /// the [`SECOND`] bytes before a row's weights. Consecutive two-bin
    /// features join one group as long as no row holds two of them in the
    /// upper bin and the group has fewer than 255 members; every other
    /// feature takes a byte.
    pub fn new(codes: &[Vec<u8>], bins: &[usize], rows: usize) -> Option<Records> {
        let mut places = Vec::with_capacity(codes.len());
        // The open group: its byte, its members so far, the rows it holds.
        let mut group: Option<(u8, u8)> = None;
        let mut held = vec![false; rows];
        let mut bytes = 0usize;
        for (f, col) in codes.iter().enumerate() {
            let joins = bins[f] == 2
                && group.is_some_and(|(_, members)| members < u8::MAX)
                && col.iter().zip(&held).all(|(&c, &h)| !(c == 1 && h));
            if joins {
                let (at, members) = group.as_mut()?;
                *members += 1;
                places.push(Place::Member(*at, *members));
            } else {
                if bytes == SECOND {
                    return None;
                }
                let at = bytes as u8;
                bytes += 1;
                if bins[f] == 2 {
                    group = Some((at, 1));
                    held.fill(false);
                    places.push(Place::Member(at, 1));
                } else {
                    group = None;
                    places.push(Place::Bin(at));
                }
            }
            if bins[f] == 2 {
                for (h, &c) in held.iter_mut().zip(col) {
                    *h |= c == 1;
                }
            }
        }
        let mut records = vec![[0u8; WIDTH]; rows];
        for (col, &place) in codes.iter().zip(&places) {
            for (record, &c) in records.iter_mut().zip(col) {
                match place {
                    Place::Bin(at) => record[at as usize] = c,
                    Place::Member(at, v) if c == 1 => record[at as usize] = v,
                    Place::Member(..) => {}
                }
            }
        }
        // Each group byte takes the values 0 to its number of members.
        let mut values = [0usize; WIDTH];
        for &place in &places {
            if let Place::Member(at, v) = place {
                values[at as usize] = values[at as usize].max(usize::from(v) + 1);
            }
        }
        let mut groups = Vec::new();
        let mut starts = [0usize; WIDTH];
        let mut hist_len = 0;
        for (b, &n) in values.iter().enumerate().filter(|&(_, &n)| n > 0) {
            groups.push((b, hist_len));
            starts[b] = hist_len;
            hist_len += n;
        }
        let slots = places
            .iter()
            .map(|&place| match place {
                Place::Member(at, v) => starts[at as usize] + usize::from(v),
                Place::Bin(_) => usize::MAX,
            })
            .collect();
        Some(Records { rows: records, places, groups, slots, hist_len })
    }
}

/// A tree's records in node order: a node at place `at` with `len` rows
/// holds `recs[at..at + len]`.
#[derive(Default)]
pub(in crate::model::hist_forest) struct NodeRecords {
    recs: Vec<Record>,
    /// Scratch through which a node's last rows are partitioned, both
    /// sides ([`NodeRecords::partition`]).
    through_recs: Vec<Record>,
    /// Group histograms ([`Records::groups`]) of the nodes on the path
    /// being grown: per depth, the left child's, then the right child's.
    hists: Vec<u64>,
}

impl Grower<'_> {
    /// Grows the tree over `rows` (increasing, of weights `w`) from their
    /// records, if every weight fits in a record's byte; returns whether
    /// it did.
    pub(super) fn grow_by_records(&mut self, records: &Records, rows: &[u32], w: &[u32]) -> bool {
        if rows.iter().any(|&r| w[r as usize] > u32::from(u8::MAX)) {
            return false;
        }
        let mut nr = std::mem::take(&mut self.node_records);
        nr.recs.clear();
        nr.recs.extend(rows.iter().map(|&r| {
            let mut record = records.rows[r as usize];
            let weight = w[r as usize] as u8;
            record[SECOND] = if self.y_class[r as usize] == 1 { weight } else { 0 };
            record[WEIGHT] = weight;
            record
        }));
        let h = records.hist_len;
        nr.hists.clear();
        nr.hists.resize(2 * h, 0);
        nr.count_groups(records, 0, rows.len(), 0);
        self.node_records = nr;
        self.grow_records(records, (0, rows.len()), 0, (0, 0));
        true
    }

    /// [`Grower::grow`] for the node of `len` rows at place `at`, at
    /// `depth`, `turns` from the root, whose
    /// group histogram is at `hist` in [`NodeRecords::hists`]. A member
    /// candidate's upper bin is read there; each split counts the groups
    /// of its smaller child's rows and finds the larger child's by
    /// subtraction.
    fn grow_records(
        &mut self,
        records: &Records,
        (at, len): (usize, usize),
        hist: usize,
        (depth, turns): (u16, u64),
    ) -> usize {
        let h = records.hist_len;
        let nr = &self.node_records;
        // Every row holds one value of a group byte, so the first group's
        // histogram sums to the node's totals.
        let sum: u64 = match records.groups.first() {
            Some(&(_, start)) => nr.hists[hist + start..][..records.hist_len_of_first()].iter().sum(),
            None => nr.recs[at..at + len].iter().map(packed).sum(),
        };
        self.sums[..3].copy_from_slice(&unpack(sum));
        let total = self.sums[0];
        let id = self.nodes.len();
        self.nodes.push(Node::leaf(id, 0));
        self.depth = depth;
        let split = if !self.may_split(sum, depth) {
            None
        } else {
            self.place_draws(turns);
            if len == 2 {
                self.split_two_records(records, at, total)
            } else {
                self.best_split_with(|g, f| match records.places[f] {
                    Place::Member(..) => {
                        let upper = g.node_records.hists[hist + records.slots[f]];
                        g.cut_two_bins_packed(f, upper, total)
                    }
                    Place::Bin(byte) => g.split_record(byte, f, at, len, total),
                })
            }
        };
        match split {
            Some((feature, bin, next, _)) => {
                self.keep_inner(id, total);
                let threshold = self.bins.threshold(feature, bin, next);
                let place = records.places[feature];
                let goes_left = |r: &Record| place.code(r) <= bin;
                // Children that will both be leaves need neither their
                // records moved nor their groups counted: known from the
                // left side's packed sum where it is cheap to find (a
                // member's lower bin is the node's less its histogram's
                // upper bin; a small node's rows are summed).
                let nr = &self.node_records;
                let left_sum = match place {
                    Place::Member(..) => Some(sum - nr.hists[hist + records.slots[feature]]),
                    Place::Bin(_) if len < LEAVES_CHECKED_BELOW => {
                        Some(nr.recs[at..at + len].iter().map(|r| packed(r) * u64::from(goes_left(r))).sum())
                    }
                    Place::Bin(_) => None,
                };
                if let Some(l) =
                    left_sum.filter(|&l| !self.may_split(l, depth + 1) && !self.may_split(sum - l, depth + 1))
                {
                    let left = self.leaf_of_sum(l);
                    let right = self.leaf_of_sum(sum - l);
                    self.nodes[id] = Node::split(id, feature, threshold, left, right);
                    return id;
                }
                let nr = &mut self.node_records;
                let mid = nr.partition(at, len, goes_left);
                // The children's histograms, the left's then the right's,
                // one depth down.
                let children = 2 * h * (usize::from(depth) + 1);
                if nr.hists.len() < children + 2 * h {
                    nr.hists.resize(children + 2 * h, 0);
                }
                let left_small = mid <= len - mid;
                if left_small {
                    nr.count_groups(records, at, mid, children);
                } else {
                    nr.count_groups(records, at + mid, len - mid, children + h);
                }
                let (above, below) = nr.hists.split_at_mut(children);
                let (left, right) = below[..2 * h].split_at_mut(h);
                let (small, large) = if left_small { (left, right) } else { (right, left) };
                for ((l, &p), &s) in large.iter_mut().zip(&above[hist..hist + h]).zip(small.iter()) {
                    *l = p - s;
                }
                let right_turns = super::right_turns(turns, depth);
                let left = self.grow_records(records, (at, mid), children, (depth + 1, turns));
                let right = self.grow_records(records, (at + mid, len - mid), children + h, (depth + 1, right_turns));
                self.nodes[id] = Node::split(id, feature, threshold, left, right);
            }
            None => self.leaf(id, total),
        }
        id
    }

    /// Whether a node of packed sum `sum` at depth `depth` may split: not
    /// past the depth limit, heavy enough for two leaves, and not pure
    /// (every row weighs at least one, so a class holding the whole
    /// weight holds every row).
    fn may_split(&self, sum: u64, depth: u16) -> bool {
        let [total, first, second] = unpack(sum);
        let depth_ok = self.p.max_depth.is_none_or(|d| depth < d);
        depth_ok && total >= 2.0 * self.p.min_samples_leaf as f64 && first != total && second != total
    }

    /// A leaf node of packed sum `sum`, made as [`Grower::grow_records`]
    /// makes one; returns its index.
    fn leaf_of_sum(&mut self, sum: u64) -> usize {
        self.sums[..3].copy_from_slice(&unpack(sum));
        let id = self.nodes.len();
        self.nodes.push(Node::leaf(id, 0));
        self.leaf(id, self.sums[0]);
        id
    }

    /// [`Grower::grow_records`]' split search of a node of two rows, at
    /// `at`: a candidate either holds them in one bin (no cut) or cuts
    /// between their two bins, one row on each side, and every such cut
    /// has one gain (the two sides' purities are added, and addition
    /// commutes, so which row is on the left does not change a bit). It is
    /// found once, by [`two_bin_packed_cut`] of the upper row's packed
    /// weights: the expression [`PackedScan`](crate::model::hist_forest::scan::PackedScan)
    /// evaluates for a feature's one cut, of the same whole numbers (a
    /// side is the node's totals less the other, exactly), so the same
    /// bits; every other candidate only compares the two rows' bins. About
    /// a third of a fully grown tree's splits are of two rows.
    fn split_two_records(&mut self, records: &Records, at: usize, total: f64) -> Option<Split> {
        let (r0, r1) = (self.node_records.recs[at], self.node_records.recs[at + 1]);
        // The gain of a cut between the rows, once found.
        let mut gain: Option<Option<f64>> = None;
        self.best_split_with(|g, f| {
            let place = records.places[f];
            let (c0, c1) = (place.code(&r0), place.code(&r1));
            if c0 == c1 {
                return None;
            }
            let gain = *gain.get_or_insert_with(|| {
                let min_leaf = g.p.min_samples_leaf as f64;
                two_bin_packed_cut(min_leaf, f, total, &g.sums[..3], packed(&r1)).map(|s| s.3)
            });
            gain.map(|gain| (f, c0.min(c1), c0.max(c1), gain))
        })
    }

    /// The best split on feature `feature`, whose bin is the records' byte
    /// `byte`, of the node of `len` rows at `at`: the counts of
    /// [`Grower::split_packed`], from the node's own records. (Every
    /// two-bin feature is a group member, read from the node's group
    /// histogram, so these features have one bin or more than two.)
    fn split_record(&mut self, byte: u8, feature: usize, at: usize, len: usize, total: f64) -> Option<Split> {
        let recs = &self.node_records.recs[at..at + len];
        let b = usize::from(byte);
        // A feature all of the node's rows share has one occupied bin, so
        // no cut: known at the first row that differs (at once, for most
        // candidates), where the search would sort or count the rows.
        if recs.iter().all(|r| r[b] == recs[0][b]) {
            return None;
        }
        let nr = std::mem::take(&mut self.node_records);
        let recs = &nr.recs[at..at + len];
        let best = self.cut_packed(feature, recs.iter().map(|r| (r[b], packed(r))), total);
        self.node_records = nr;
        best
    }
}

impl Records {
    /// The values of the first group byte.
    fn hist_len_of_first(&self) -> usize {
        self.groups.get(1).map_or(self.hist_len, |&(_, start)| start)
    }
}

impl NodeRecords {
    /// The group histogram of the `len` rows at `at` into `hists[to..]`:
    /// per group byte, per value, the sum of the packed weights of the
    /// rows holding it.
    fn count_groups(&mut self, records: &Records, at: usize, len: usize, to: usize) {
        if records.groups.is_empty() {
            return;
        }
        let out = &mut self.hists[to..to + records.hist_len];
        out.fill(0);
        let recs = &self.recs[at..at + len];
        // Up to four groups (one-hot columns of up to four categorical
        // features) in a loop the compiler unrolls.
        match *records.groups.as_slice() {
            [a] => count_into(recs, [a], out),
            [a, b] => count_into(recs, [a, b], out),
            [a, b, c] => count_into(recs, [a, b, c], out),
            [a, b, c, d] => count_into(recs, [a, b, c, d], out),
            ref groups => {
                for r in recs {
                    let p = packed(r);
                    for &(b, start) in groups {
                        out[start + usize::from(r[b])] += p;
                    }
                }
            }
        }
    }

    /// Moves the rows at `at..at + len` whose record `left` accepts to the
    /// front; returns their count. The order within each side is not kept:
    /// every count over a node's records is an integer sum, the same in
    /// any order.
    ///
    /// Blocks of [`BLOCK`] rows from both ends are scanned without a
    /// branch for the rows on the wrong side, which are then swapped in
    /// pairs (Hoare's partition by blocks, as in BlockQuicksort): a split
    /// that sends few rows one way moves few records, where moving every
    /// record to a scratch side and back cost a tenth of a fit. The last
    /// few blocks' worth are split by [`NodeRecords::partition_through`].
    fn partition(&mut self, at: usize, len: usize, left: impl Fn(&Record) -> bool) -> usize {
        let recs = &mut self.recs[at..at + len];
        let (mut lo, mut hi) = (0, len);
        // Offsets in the current left block of rows going right, and in
        // the current right block (counted from its end) of rows going left.
        let (mut off_l, mut off_r) = ([0u8; BLOCK], [0u8; BLOCK]);
        let (mut n_l, mut n_r, mut s_l, mut s_r) = (0, 0, 0, 0);
        while hi - lo > 2 * BLOCK {
            if n_l == 0 {
                s_l = 0;
                for (i, r) in recs[lo..lo + BLOCK].iter().enumerate() {
                    off_l[n_l] = i as u8;
                    n_l += usize::from(!left(r));
                }
            }
            if n_r == 0 {
                s_r = 0;
                for (i, r) in recs[hi - BLOCK..hi].iter().rev().enumerate() {
                    off_r[n_r] = i as u8;
                    n_r += usize::from(left(r));
                }
            }
            let m = n_l.min(n_r);
            for (&a, &b) in off_l[s_l..s_l + m].iter().zip(&off_r[s_r..s_r + m]) {
                recs.swap(lo + usize::from(a), hi - 1 - usize::from(b));
            }
            (n_l, n_r, s_l, s_r) = (n_l - m, n_r - m, s_l + m, s_r + m);
            if n_l == 0 {
                lo += BLOCK;
            }
            if n_r == 0 {
                hi -= BLOCK;
            }
        }
        // Rows before `lo` go left, from `hi` on right; the rest, in order.
        lo + self.partition_through(at + lo, hi - lo, left)
    }

    /// [`NodeRecords::partition`] of a few rows, through the scratch
    /// records: each record is written once, to the next free place from
    /// the front if it goes left and from the back if it goes right, read
    /// from where it lies, and the scratch is copied back. Where each
    /// record was copied out first (a write to the stack) and then written
    /// to both sides, flights' fit at 20,000 rows took 1,439 million
    /// instructions against 1,398 million, and 1.8 % more time.
    fn partition_through(&mut self, at: usize, len: usize, left: impl Fn(&Record) -> bool) -> usize {
        let recs = &mut self.recs[at..at + len];
        if self.through_recs.len() < len {
            self.through_recs.resize(len, [0; WIDTH]);
        }
        let through = &mut self.through_recs[..len];
        let (mut i, mut k) = (0, len);
        for r in recs.iter() {
            let l = left(r);
            k -= usize::from(!l);
            through[std::hint::select_unpredictable(l, i, k)] = *r;
            i += usize::from(l);
        }
        recs.copy_from_slice(through);
        i
    }
}

/// [`NodeRecords::count_groups`] for `N` groups (byte, start in `out`).
#[inline]
fn count_into<const N: usize>(recs: &[Record], groups: [(usize, usize); N], out: &mut [u64]) {
    for r in recs {
        let p = packed(r);
        for &(b, start) in &groups {
            out[start + usize::from(r[b])] += p;
        }
    }
}

/// Rows per block of [`NodeRecords::partition`] (offsets fit in a byte).
const BLOCK: usize = 64;

/// A node split on a feature with a byte of its own, of fewer than this many
/// rows, sums its left side's rows to find whether both children are
/// leaves (then it moves no records); larger nodes seldom have two.
const LEAVES_CHECKED_BELOW: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    /// Three one-hot columns, a many-bin feature, two flags that overlap:
    /// the one-hot columns share a byte, the second flag opens a group of
    /// its own because a row holds both flags.
    #[test]
    fn one_hot_columns_share_a_byte_and_overlapping_flags_do_not() {
        let codes = vec![
            vec![1, 0, 0, 0],
            vec![0, 1, 0, 0],
            vec![0, 0, 0, 1],
            vec![3, 0, 7, 2],
            vec![1, 1, 0, 0],
            vec![0, 1, 1, 0],
        ];
        let bins = [2, 2, 2, 9, 2, 2];
        let r = Records::new(&codes, &bins, 4).unwrap();
        use Place::*;
        assert_eq!(r.places, [Member(0, 1), Member(0, 2), Member(0, 3), Bin(1), Member(2, 1), Member(3, 1)]);
        for (f, col) in codes.iter().enumerate() {
            let read: Vec<u8> = r.rows.iter().map(|rec| r.places[f].code(rec)).collect();
            assert_eq!(&read, col, "feature {f}");
        }
    }

    /// Partitions by blocks put exactly the rows going left first, the
    /// same rows as before, whatever the share going left and the length
    /// (below, at and past the blocks' sizes).
    #[test]
    fn partition_by_blocks_puts_each_row_on_its_side() {
        let mut state = 5u64;
        for len in [0, 1, 7, 64, 128, 129, 130, 200, 1000, 4099] {
            for share in [0, 1, 3, 50, 97, 100] {
                let recs = (0..len)
                    .map(|i| {
                        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                        let mut r = [0u8; WIDTH];
                        r[0] = ((state >> 33) % 100) as u8;
                        r[1..9].copy_from_slice(&(i as u64).to_le_bytes());
                        r
                    })
                    .collect();
                let mut nr = NodeRecords { recs, ..NodeRecords::default() };
                let before = nr.recs.clone();
                let goes_left = |r: &Record| usize::from(r[0]) < share;
                let mid = nr.partition(0, len, goes_left);
                assert_eq!(mid, before.iter().filter(|r| goes_left(r)).count(), "{len} rows, {share} %");
                assert!(nr.recs[..mid].iter().all(goes_left) && !nr.recs[mid..].iter().any(goes_left));
                let (mut a, mut b) = (before, nr.recs.clone());
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b, "the same rows");
            }
        }
    }

    /// More than 14 bytes' worth of features (the last two hold a row's
    /// class and weight): no records.
    #[test]
    fn tables_wider_than_a_record_have_none() {
        let codes = vec![vec![0u8, 1, 2]; 15];
        assert!(Records::new(&codes, &[3; 15], 3).is_none());
        assert!(Records::new(&codes[..14], &[3; 14], 3).is_some());
    }
}
