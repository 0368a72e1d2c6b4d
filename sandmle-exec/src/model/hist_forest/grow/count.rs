//! The integer counts of a class tree's split search.
//!
//! Bootstrap weights are whole numbers, so a class tree's sums are exact
//! in any order and can be kept in integers. A two-bin candidate (a
//! one-hot column, a flag) has its upper bin's weights counted over the
//! node's rows, the lower bin's being the node's totals less those. With
//! two classes, a row's weight and its second-class weight are packed in
//! one `u64` ([`pack`]): the node's totals, a two-bin count and any other
//! candidate's histogram are then one integer addition per row. The cuts
//! are found by [`two_bin_cut`] and [`PackedScan`](crate::model::hist_forest::scan::PackedScan), which find what
//! [`Cuts`](crate::model::hist_forest::scan::Cuts) finds for the same bins.

use crate::model::hist_forest::Kind;
use crate::model::hist_forest::grow::Grower;
use crate::model::hist_forest::scan::{Split, pack, two_bin_cut, two_bin_packed_cut};

/// A two-class node with fewer rows than this many per bin of a feature
/// marks the bins its rows occupy as it counts them, and lists only
/// those ([`PackedScan::list_occupied`](crate::model::hist_forest::scan::PackedScan::list_occupied));
/// one with more lists every bin. At 1 or 4, flights' fit at 20,000 rows
/// took 0.1 % and 0.2 % more instructions.
const MARK_BELOW_ROWS_PER_BIN: usize = 2;

impl Grower<'_> {
    /// Packs the tree's rows, of multiplicities `w`, when it has two
    /// classes and counts (else leaves `packed` empty).
    pub(super) fn pack_rows(&mut self, w: &[u32]) {
        self.packed.clear();
        if let (Kind::Classes(2), true) = (self.kind, self.count_binary) {
            self.packed.extend(w.iter().zip(self.y_class).map(|(&w, &y)| pack(w, y == 1)));
        }
    }

    /// Whether the node counts feature `feature`'s weights in integers
    /// rather than sorting its rows or building a histogram of floats: a
    /// two-bin feature of a class tree, and every feature of a tree that
    /// [`Grower::counts_every_feature`].
    pub(super) fn counts(&self, feature: usize) -> bool {
        self.counts_every_feature()
            || (self.count_binary && matches!(self.kind, Kind::Classes(_)) && self.bins.edges[feature].len() == 1)
    }

    /// Whether the tree counts every feature in packed integers: two
    /// classes (its rows packed) and no presorted rows. Such a tree never
    /// reads what a row adds.
    pub(super) fn counts_every_feature(&self) -> bool {
        !self.packed.is_empty() && self.presorted.is_none()
    }

    /// The best split on a counted feature (see [`Grower::counts`]).
    pub(super) fn split_counted(&mut self, feature: usize, rows: &[u32], total: f64) -> Option<Split> {
        if self.bins.edges[feature].len() == 1 {
            self.split_two_bins(feature, rows, total)
        } else {
            self.split_packed(feature, rows, total)
        }
    }

    /// The cut of a two-bin class feature: the weight and class weights of
    /// the upper bin counted over the node's rows, the lower bin's being
    /// the node's totals less those. Every one is a whole number, so both
    /// bins are the ones a histogram holds, exactly, and the gain is the
    /// one [`Cuts`](crate::model::hist_forest::scan::Cuts) finds for them (see [`two_bin_cut`]).
    fn split_two_bins(&mut self, feature: usize, rows: &[u32], total: f64) -> Option<Split> {
        let codes = &self.bins.codes[feature];
        if !self.packed.is_empty() {
            // Two classes: the weights and the second class's weights, in
            // one integer sum (each below 2^32), without a branch.
            let packed = self.local_packed.iter();
            let upper: u64 = rows.iter().zip(packed).map(|(&r, &p)| p * u64::from(codes[r as usize])).sum();
            return self.cut_two_bins_packed(feature, upper, total);
        }
        let stride = self.stride();
        let upper = &mut self.two_bins[stride..];
        upper.fill(0.0);
        for &r in rows {
            if codes[r as usize] != 0 {
                let a = self.adds[r as usize];
                upper[0] += a.weight;
                upper[a.slot] += a.amount;
            }
        }
        self.cut_two_bins(feature, total)
    }

    /// The cut of a two-class, two-bin feature whose upper bin's rows sum
    /// to `upper` in packed integers.
    pub(super) fn cut_two_bins_packed(&mut self, feature: usize, upper: u64, total: f64) -> Option<Split> {
        // A bin that holds no weight, or all of it, is no cut (most
        // candidates of a small node), found without converting the sums.
        let weight = upper & 0xFFFF_FFFF;
        if weight == 0 || weight as f64 == total {
            return None;
        }
        two_bin_packed_cut(self.p.min_samples_leaf as f64, feature, total, &self.sums[..3], upper)
    }

    /// The cut of a two-bin feature, its upper bin in `two_bins` after the
    /// first `stride` numbers (the lower bin's, set here).
    fn cut_two_bins(&mut self, feature: usize, total: f64) -> Option<Split> {
        let stride = self.stride();
        let (lower, upper) = self.two_bins.split_at_mut(stride);
        let totals = &self.sums[..stride];
        for ((l, t), u) in lower.iter_mut().zip(totals).zip(upper.iter()) {
            *l = t - u;
        }
        two_bin_cut(self.p.min_samples_leaf as f64, feature, total, totals, lower, upper)
    }

    /// The best split on one feature of a two-class node, over the node's
    /// rows: see [`Grower::cut_packed`].
    fn split_packed(&mut self, feature: usize, rows: &[u32], total: f64) -> Option<Split> {
        let codes = &self.bins.codes[feature];
        let local = std::mem::take(&mut self.local_packed);
        debug_assert_eq!(local.len(), rows.len(), "a packed weight for each of the node's rows");
        let best = self.cut_packed(feature, rows.iter().map(|&r| codes[r as usize]).zip(local.iter().copied()), total);
        self.local_packed = local;
        best
    }

    /// The best split on one feature of a two-class node whose `rows` are
    /// each a bin and a packed weight: the integer sum of the rows' packed
    /// weights per occupied bin, counted in a histogram and scanned by
    /// [`PackedScan`](crate::model::hist_forest::scan::PackedScan). The
    /// rows come as pairs, where a closure from a row's place to its packed
    /// weight cost a bounds check a row (flights' fit at 20,000 rows: 1,529
    /// to 1,439 million instructions, about 1.5 % faster).
    ///
    /// The histogram is all zeros between calls. A node with few rows for
    /// the feature's bins marks each row's bin as it counts, then lists and
    /// zeroes the marked bins alone. Where such a node sorted its rows by
    /// bin (below 8 bins a row) or listed every bin, flights' fit at
    /// 20,000 rows took 1,669 million instructions against 1,529 million
    /// with the marks, most of them a pass over 256 bins for a node of a
    /// few dozen rows, and its time fell about 4 %.
    pub(super) fn cut_packed(
        &mut self,
        feature: usize,
        rows: impl ExactSizeIterator<Item = (u8, u64)>,
        total: f64,
    ) -> Option<Split> {
        let len = rows.len();
        let n_bins = self.bins.edges[feature].len() + 1;
        let hist = &mut self.packed_hist;
        debug_assert!(hist.iter().all(|&h| h == 0), "the packed histogram is all zeros between calls");
        if len < MARK_BELOW_ROWS_PER_BIN * n_bins {
            let mut occupied = [0u64; 4];
            for (c, p) in rows {
                debug_assert!(usize::from(c) < n_bins, "bin {c} of a feature with {n_bins} bins");
                hist[usize::from(c)] += p;
                occupied[usize::from(c >> 6)] |= 1 << (c & 63);
            }
            self.packed_scan.list_occupied(hist, occupied);
        } else {
            for (c, p) in rows {
                debug_assert!(usize::from(c) < n_bins, "bin {c} of a feature with {n_bins} bins");
                hist[usize::from(c)] += p;
            }
            self.packed_scan.list_histogram(&hist[..], n_bins);
            hist[..n_bins].fill(0);
        }
        self.packed_scan.best(self.p.min_samples_leaf as f64, feature, total, &self.sums[..3])
    }
}
