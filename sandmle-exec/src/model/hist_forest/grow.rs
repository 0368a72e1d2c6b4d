//! Growing one tree: the split search over histograms of bins.
//!
//! A node's rows are a slice of the tree's row indices, in increasing
//! order: each split partitions them stably into its children's slices,
//! so no node rescans rows outside its own. Large nodes build the
//! histograms of all their candidate features in one pass over their
//! rows, reading each row's bins from the row-major copy of the codes
//! (one cache line per row instead of one per feature), except for
//! features with more bins than the node has rows; small nodes, and those
//! features, sort the node's rows by the candidate's bin and scan the runs
//! of equal bins. On a table of at most [`super::RowOrder::MAX_ROWS`] rows
//! and [`super::RowOrder::MAX_CELLS`] cells, a node of at least
//! [`ROW_ORDER_MIN_ROWS`] rows sorts through the feature's rows listed once
//! in bin order: the node's rows marked in a bitmap by their place in that
//! list, read back in order (no pass over the bins, as a counting sort
//! makes); smaller nodes, and other tables, rank or count their keys.
//! Class trees count in integers instead where they can ([`count`]):
//! a two-bin candidate's upper bin, and with two classes every histogram.
//! Two-class trees on a table whose features fit in a 16-byte row record
//! grow over those records kept in node order instead ([`records`]).
//! A tree whose nodes try every feature (forests and trees for values by
//! default) instead keeps every feature's rows sorted by bin, sorted once
//! and partitioned stably with the node's rows, and scans them without
//! any sort or histogram. Every path adds each bin's numbers in row order
//! and then the bins in bin order, so all find the same splits: the tree
//! does not depend on which path a node took.

mod count;
pub(crate) mod places;
mod records;
mod replay;
mod search;
mod sort;

use super::scan::{Add, Cuts, PackedScan, Scan, ScanRuns, Split, purity, unpack};
use super::{Bins, HistParams, Kind, MAX_BINS, Node, Tree};
#[cfg(test)]
pub(super) use places::PLACED_DEPTHS;
pub(super) use places::{CUT_DEPTHS, right_turns};
use places::{node_place, node_stream};
#[cfg(test)]
pub(super) use records::Place;
pub(super) use records::Records;
pub(super) use replay::{Searched, sort_log};
use sandmle_core::{SeedRng, rng_for};
pub(super) use sort::best_grouping;
use sort::*;

/// Nodes with at least this many rows sort their rows by a candidate's
/// bins through its row order ([`super::RowOrder`]) rather than by ranks or
/// counts. Fewer are ranked about as fast (measured on `digits_png`'s panel:
/// from 0 to 32 rows, the forests took the same time within noise; 16 was
/// the fastest by a little).
pub(super) const ROW_ORDER_MIN_ROWS: usize = 16;

/// Nodes with at least this many rows build their candidates' histograms
/// in one row-major pass.
pub(super) const BATCH_MIN_ROWS: usize = 48;

pub(super) struct Grower<'a> {
    pub bins: &'a Bins,
    pub kind: Kind,
    pub p: HistParams,
    /// The tree's seed: the nodes above [`PLACED_DEPTHS`](places::PLACED_DEPTHS) draw their
    /// candidates from their own place in one stream of it, the deeper
    /// ones from one more ([`node_stream`]).
    pub seed: u64,
    /// The streams made so far ([`node_stream`]'s `k`).
    rngs: Vec<SeedRng>,
    /// The depth of the node whose split is searched.
    depth: u16,
    /// Whether that node draws from its place ([`Grower::place_draws`]).
    placed: bool,
    pub nodes: Vec<Node>,
    pub leaves: Vec<f64>,
    /// The nodes that split at depths up to `p.keep_inner`, in node order,
    /// and their payloads (`width` numbers each, as a leaf's), in `inner`:
    /// what a cut of the tree at such a depth reads ([`super::Tree::cut`]).
    pub inner_nodes: Vec<u32>,
    pub inner: Vec<f64>,
    /// Nodes with at least this many rows take the batched path.
    pub batch_min_rows: usize,
    /// When every node tries every feature, scan presorted rows instead
    /// (the same trees, faster).
    pub presort: bool,
    /// Batched nodes sort the rows of candidates with more bins than the
    /// node has rows instead of building their histograms (the same trees,
    /// faster). Two-class nodes that count in packed integers
    /// (`count_binary`) are unaffected: they mark the occupied bins when
    /// rows are few instead ([`Grower::cut_packed`]).
    pub sort_wide: bool,
    /// Class nodes count in integers: a two-bin candidate's upper bin, and
    /// with two classes every candidate's histogram of packed weights,
    /// instead of building histograms of floats or sorting rows (the same
    /// trees, faster).
    pub count_binary: bool,
    /// Two-class trees that count every candidate grow over row records
    /// in node order, when the table has them (the same trees, faster).
    pub records: bool,
    /// Nodes of two rows compare each candidate's two bins
    /// ([`Grower::split_two_values`], [`Grower::split_two_rows`]).
    pub two_rows: bool,
    /// Nodes of at least [`ROW_ORDER_MIN_ROWS`] rows sort their rows by a
    /// candidate's bins through its row order ([`super::RowOrder`]) when
    /// the table has row orders (the same trees, faster).
    pub row_order: bool,
    /// Class nodes search no candidate after a cut none can beat
    /// ([`Grower::unbeatable`]; the same trees, faster).
    pub stop_unbeatable: bool,
    y_class: &'a [usize],
    y_value: &'a [f64],
    /// Per row, what it adds (set by [`Grower::grow_tree`]).
    adds: Vec<Add>,
    /// Two classes: per row, its weight and its second-class weight in one
    /// integer ([`scan::pack`](super::scan::pack), set by [`Grower::grow_tree`]).
    packed: Vec<u64>,
    /// Scratch: a two-bin candidate's bins, `stride` numbers each.
    two_bins: Vec<f64>,
    /// Two classes: the node's rows' `packed`, by place in the node (set by
    /// [`Grower::totals`], read by the node's counts: read in place order,
    /// they are read in sequence, where `packed` by row is read at random).
    local_packed: Vec<u64>,
    /// Scratch: a two-class histogram of packed weights, all zeros
    /// between calls ([`Grower::cut_packed`]).
    packed_hist: Box<[u64; MAX_BINS + 1]>,
    /// Scratch: a two-class cut search over packed sums.
    packed_scan: PackedScan,
    /// Scratch: a scan's runs and cuts.
    scan_runs: ScanRuns,
    /// Scratch: per candidate, per bin, the weight then the class weights
    /// (or the weighted sum); all zero between calls.
    hist: Vec<f64>,
    /// Scratch: a small node's (bin, place) keys of one feature, or its
    /// bitmap and sorted rows ([`super::RowOrder::sort`]).
    keys: Vec<u64>,
    /// Scratch: what each of a small node's rows adds, by place in the
    /// node (gathered once per node, read by every candidate's scan),
    /// except in a node that sorts through row orders
    /// ([`Grower::sorts_by_row_order`]), whose scans read `adds` by row.
    local: Vec<Add>,
    /// Scratch: totals, left and right sums.
    sums: Vec<f64>,
    /// Classes: the node being searched's sum of squared class weights
    /// ([`scan::node_squares`](super::scan::node_squares) of its totals), which every candidate's scan starts
    /// from.
    squares: f64,
    /// The gain no cut of the node being searched can beat (classes: the
    /// best grouping's, [`best_grouping`]; values: none, +inf).
    perfect: f64,
    /// Scratch: the feature order of a split search.
    order: Vec<usize>,
    /// Every feature's number, in order: what `order` starts from at each
    /// node (a copy, where counting them out was a store and an add per
    /// feature: the copy saves 0.7 % of a `flights` fit's instructions).
    features: Vec<usize>,
    /// Scratch: the candidates a batched node builds histograms of.
    listed: Vec<usize>,
    /// When every node tries every feature: per feature, the tree's rows
    /// sorted by (bin, row), each node's rows a segment at the node's place.
    presorted: Option<Presorted>,
    /// Scratch: the presorted lists' buffer when the tree has none.
    lists: Vec<u32>,
    /// Scratch: the rows going right while a segment is partitioned.
    right: Vec<u32>,
    /// Two-class trees grown over row records: the records in node order.
    node_records: records::NodeRecords,
    /// When set, each split search is logged here, for a tree of larger
    /// leaves to replay ([`replay`]).
    pub log: Option<Vec<Searched>>,
    /// The logged searches of a tree of smaller leaves of this one's seed,
    /// sorted by place ([`sort_log`]), which this tree replays where it
    /// may ([`replay`]; the same tree, faster).
    pub replay: &'a [Searched],
    /// How many nodes replayed a logged search.
    pub replayed: usize,
}

/// What one thread's trees reuse, one tree after another: buffers the
/// size of the training rows, whose memory would otherwise be mapped and
/// zeroed anew for every tree (a tenth of a forest's fit on 50,000 rows).
#[derive(Default)]
pub(super) struct Scratch {
    hist: Vec<f64>,
    adds: Vec<Add>,
    packed: Vec<u64>,
    local_packed: Vec<u64>,
    keys: Vec<u64>,
    local: Vec<Add>,
    right: Vec<u32>,
    lists: Vec<u32>,
    node_records: records::NodeRecords,
    /// Scan lists and histograms of fixed size, each overwritten where it
    /// is read: boxed once per thread instead of once per tree.
    fixed: Fixed,
    /// The node streams' list (emptied for each tree).
    rngs: Vec<SeedRng>,
    /// A tree's row weights, kept by [`Grower::finish`].
    pub w: Vec<u32>,
    /// A tree's rows, kept by [`Grower::finish`].
    pub rows: Vec<u32>,
}

/// The grower's fixed-size scratch: each buffer is written before it is
/// read, or (the packed histogram) left all zeros after each use, so a
/// finished tree's hands over to the next as they are.
pub(super) struct Fixed {
    packed_hist: Box<[u64; MAX_BINS + 1]>,
    packed_scan: PackedScan,
    scan_runs: ScanRuns,
}

impl Default for Fixed {
    fn default() -> Self {
        Fixed {
            packed_hist: Box::new([0; MAX_BINS + 1]),
            packed_scan: PackedScan::default(),
            scan_runs: ScanRuns::default(),
        }
    }
}

/// Every feature's rows in (bin, row) order, `m` rows a feature: a node at
/// place `at` with `len` rows has its rows of feature `f` sorted at
/// `lists[f * m + at..][..len]`, because each split partitions every list
/// stably.
struct Presorted {
    lists: Vec<u32>,
    m: usize,
}

impl<'a> Grower<'a> {
    pub fn new(
        bins: &'a Bins,
        y_class: &'a [usize],
        y_value: &'a [f64],
        kind: Kind,
        p: HistParams,
        seed: u64,
        scratch: Scratch,
    ) -> Self {
        let stride = kind.width() + 1;
        let Scratch {
            hist, adds, packed, local_packed, keys, local, right, lists, node_records, fixed, mut rngs, ..
        } = scratch;
        rngs.clear();
        let Fixed { packed_hist, packed_scan, scan_runs } = fixed;
        // `hist` is all zeros (a fresh vector, or a finished grower's); it
        // grows when a batch first needs more (`Grower::best_split`).
        Grower {
            bins,
            kind,
            p,
            seed,
            rngs,
            depth: 0,
            placed: false,
            nodes: Vec::new(),
            leaves: Vec::new(),
            inner_nodes: Vec::new(),
            inner: Vec::new(),
            batch_min_rows: BATCH_MIN_ROWS,
            presort: true,
            sort_wide: true,
            count_binary: true,
            records: true,
            two_rows: true,
            row_order: true,
            stop_unbeatable: true,
            y_class,
            y_value,
            adds,
            packed,
            two_bins: vec![0.0; 2 * stride],
            packed_hist,
            packed_scan,
            scan_runs,
            local_packed,
            hist,
            keys,
            local,
            sums: vec![0.0; 3 * stride],
            squares: 0.0,
            perfect: f64::INFINITY,
            order: Vec::new(),
            features: (0..bins.codes.len()).collect(),
            listed: Vec::new(),
            presorted: None,
            lists,
            right,
            node_records,
            log: None,
            replay: &[],
            replayed: 0,
        }
    }

    /// The tree grown, and the buffers for the next tree (the histograms
    /// all zeros).
    pub fn finish(self, into: &mut Scratch) -> Tree {
        let lists = self.presorted.map_or(self.lists, |p| p.lists);
        let Grower { hist, adds, packed, local_packed, keys, local, right, node_records, rngs, .. } = self;
        let fixed = Fixed { packed_hist: self.packed_hist, packed_scan: self.packed_scan, scan_runs: self.scan_runs };
        let (w, rows) = (std::mem::take(&mut into.w), std::mem::take(&mut into.rows));
        *into =
            Scratch { hist, adds, packed, local_packed, keys, local, right, lists, node_records, fixed, rngs, w, rows };
        let (mut nodes, mut leaves) = (self.nodes, self.leaves);
        nodes.shrink_to_fit();
        leaves.shrink_to_fit();
        Tree { nodes, leaves, width: self.kind.width(), inner_nodes: self.inner_nodes, inner: self.inner }
    }

    /// The stream the node being searched draws from (made when it is
    /// first drawn from): at its place, or the deeper nodes' stream.
    fn node_rng(&mut self) -> &mut SeedRng {
        let k = usize::from(!self.placed);
        while self.rngs.len() <= k {
            let made = node_stream(self.seed, self.rngs.len());
            self.rngs.push(made);
        }
        &mut self.rngs[k]
    }

    /// Readies the draws of the node at `self.depth`, `turns` from the
    /// root, for its search: its place in stream 0 ([`node_place`]), or
    /// the deeper nodes' stream where it has none.
    pub(super) fn place_draws(&mut self, turns: u64) {
        let place = node_place(self.depth, turns, self.bins.codes.len());
        self.placed = place.is_some();
        if let Some(place) = place {
            self.node_rng().set_word_pos(place);
        }
    }

    /// Keeps node `id`'s payload (its totals in `sums`, of weight
    /// `total`) when it splits at a depth a cut may end on.
    fn keep_inner(&mut self, id: usize, total: f64) {
        if self.p.keep_inner.is_some_and(|d| self.depth <= d) {
            let width = self.kind.width();
            self.inner_nodes.push(id as u32);
            self.inner.extend(self.sums[1..=width].iter().map(|s| s / total));
        }
    }

    fn stride(&self) -> usize {
        self.kind.width() + 1
    }

    /// Grows the tree over `rows`, the training rows with multiplicity
    /// `w[row] > 0` (sorted first: every node then holds its rows in
    /// increasing order, and adds them in that order).
    pub fn grow_tree(&mut self, rows: &mut [u32], w: &[u32]) {
        rows.sort_unstable();
        // A tree of m rows has at most 2m - 1 nodes and m leaves: room for
        // them at once, so they never move while the tree grows (the
        // memory past what the tree uses is given back by `finish`).
        self.nodes.reserve(2 * rows.len());
        self.leaves.reserve(rows.len() * self.kind.width());
        // Presorting costs a partition of every feature's rows at each
        // split, against a sort or a histogram of each candidate's: worth
        // it when every feature is a candidate (measured: with 5 of 30
        // features, 4 of 17 or 8 of 64, class forests fit 10-90 % slower).
        let features = self.bins.codes.len();
        self.presorted = if self.presort && self.p.max_features >= features {
            Some(Presorted::new(self.bins, rows, std::mem::take(&mut self.lists)))
        } else {
            None
        };
        // Two classes counted in packed integers, without presorted rows:
        // over row records, when the table has them.
        let two_counted = self.count_binary && matches!(self.kind, Kind::Classes(2)) && self.presorted.is_none();
        if let (true, true, Some(records)) = (self.records, two_counted, self.bins.records.as_ref()) {
            self.packed.clear();
            if self.grow_by_records(records, rows, w) {
                return;
            }
        }
        self.pack_rows(w);
        self.adds.clear();
        if !self.counts_every_feature() {
            let (kind, y_class, y_value) = (self.kind, self.y_class, self.y_value);
            self.adds.extend(w.iter().enumerate().map(|(r, &w)| {
                let weight = f64::from(w);
                match kind {
                    Kind::Classes(_) => Add { weight, slot: 1 + y_class[r], amount: weight },
                    Kind::Values => Add { weight, slot: 1, amount: weight * y_value[r] },
                }
            }));
        }
        self.grow(rows, 0, 0, 0, true);
    }

    /// Grows the node over `rows`, the tree's rows from place `at` on, at
    /// `depth`, `turns` from the root (see [`replay`]; `same`: its
    /// ancestors split as the replayed tree's did), and returns its index.
    fn grow(&mut self, rows: &mut [u32], at: usize, depth: u16, turns: u64, same: bool) -> usize {
        // The node's totals, in row order; the weights are whole numbers,
        // so their sum is exact.
        self.totals(rows);
        let total = self.sums[0];
        let id = self.nodes.len();
        self.nodes.push(Node::leaf(id, 0));
        let depth_ok = self.p.max_depth.is_none_or(|d| depth < d);
        self.depth = depth;
        let (split, same) = if depth_ok && total >= 2.0 * self.p.min_samples_leaf as f64 && !self.pure(rows, total) {
            self.search(rows, at, total, turns, same)
        } else {
            (None, false)
        };
        match split {
            Some((feature, bin, next, _)) => {
                self.keep_inner(id, total);
                let threshold = self.bins.threshold(feature, bin, next);
                let codes = &self.bins.codes[feature];
                let goes_left = |r: u32| codes[r as usize] <= bin;
                let mid = partition(rows, &mut self.right, goes_left);
                // Two children of one row each are leaves (a row is pure)
                // and never read the lists.
                let presorted = self.presorted.as_mut().filter(|_| rows.len() > 2);
                if let Some(pre) = presorted {
                    // The split feature's own list is in bin order: its
                    // left rows are already its first `mid`.
                    for f in (0..self.bins.codes.len()).filter(|&f| f != feature) {
                        let list = &mut pre.lists[f * pre.m + at..][..rows.len()];
                        partition(list, &mut self.right, goes_left);
                    }
                }
                let (l, r) = rows.split_at_mut(mid);
                let left = self.grow(l, at, depth + 1, turns, same);
                let right = self.grow(r, at + mid, depth + 1, right_turns(turns, depth), same);
                self.nodes[id] = Node::split(id, feature, threshold, left, right);
            }
            None => self.leaf(id, total),
        }
        id
    }

    /// Makes node `id` a leaf of total weight `total`, its totals in `sums`.
    fn leaf(&mut self, id: usize, total: f64) {
        // The totals after the weight are the leaf's sums (each added in
        // row order from zero).
        let start = self.leaves.len();
        let width = self.kind.width();
        self.leaves.extend(self.sums[1..=width].iter().map(|s| s / total));
        self.nodes[id] = Node::leaf(id, start);
    }

    /// Whether the node's rows share one target, its totals in `sums`:
    /// for classes, whether one class holds the whole weight (every row
    /// weighs at least one).
    fn pure(&self, rows: &[u32], total: f64) -> bool {
        match self.kind {
            Kind::Classes(k) => self.sums[1..=k].contains(&total),
            Kind::Values => rows.iter().all(|&r| self.y_value[r as usize] == self.y_value[rows[0] as usize]),
        }
    }

    /// The node's totals into `sums[..stride]`: its weight, then its class
    /// weights or its weighted sum of values (added in row order).
    fn totals(&mut self, rows: &[u32]) {
        if let Kind::Values = self.kind {
            // One slot: the same additions, held in registers.
            let (w, s) = rows.iter().fold((0.0, 0.0), |(w, s), &r| {
                let a = self.adds[r as usize];
                (w + a.weight, s + a.amount)
            });
            self.sums[..2].copy_from_slice(&[w, s]);
            return;
        }
        if !self.packed.is_empty() {
            // Two classes: one integer sum (see `packed`), over the node's
            // packed rows gathered for its split search.
            self.local_packed.clear();
            self.local_packed.extend(rows.iter().map(|&r| self.packed[r as usize]));
            let sum: u64 = self.local_packed.iter().sum();
            self.sums[..3].copy_from_slice(&unpack(sum));
            return;
        }
        // Class weights are whole numbers, so every sum is exact in any
        // order: the weight is the sum of the class weights.
        let stride = self.stride();
        let totals = &mut self.sums[..stride];
        totals.fill(0.0);
        for &r in rows {
            let a = self.adds[r as usize];
            totals[a.slot] += a.amount;
        }
        totals[0] = totals[1..].iter().sum();
    }

    /// Draws the node's first candidates into `order` (a partial
    /// Fisher–Yates shuffle of every feature) and returns how many.
    fn draw_candidates(&mut self) -> usize {
        let n_features = self.bins.codes.len();
        self.order.clear();
        self.order.extend_from_slice(&self.features);
        let wanted = self.p.max_features.min(n_features);
        let mut order = std::mem::take(&mut self.order);
        let rng = self.node_rng();
        for i in 0..wanted {
            order.swap(i, super::draw(rng, i, n_features));
        }
        self.order = order;
        wanted
    }

    /// The `i`-th candidate, `i` past the first ones: drawn from the
    /// features not tried yet, when none of the earlier could be cut.
    fn draw_further(&mut self, i: usize) -> usize {
        let n_features = self.bins.codes.len();
        let j = super::draw(self.node_rng(), i, n_features);
        self.order.swap(i, j);
        self.order[i]
    }

    /// Whether `best` is a cut no candidate can beat: a class node's cut
    /// that puts each class whole on one side, in the grouping of the
    /// greatest gain ([`best_grouping`]). No cut's gain is greater, every
    /// cut of that grouping computes it exactly, and a later cut of an
    /// equal gain is not kept: the candidates after it cannot change the
    /// split, and are not searched. (They were drawn already, so the draws
    /// of deeper nodes do not move.)
    fn unbeatable(&self, best: Option<Split>) -> bool {
        self.stop_unbeatable && best.is_some_and(|b| b.3 >= self.perfect)
    }

    /// The best split over `max_features` random candidates, each found by
    /// `split`, trying further features (in random order) until one can be
    /// cut.
    fn best_split_with(&mut self, mut split: impl FnMut(&mut Self, usize) -> Option<Split>) -> Option<Split> {
        let wanted = self.draw_candidates();
        let mut best = None;
        for i in 0..wanted {
            let s = split(self, self.order[i]);
            keep(s, &mut best);
            if self.unbeatable(best) {
                break;
            }
        }
        for i in wanted..self.bins.codes.len() {
            if best.is_some() {
                break;
            }
            let f = self.draw_further(i);
            keep(split(self, f), &mut best);
        }
        best
    }
}

#[cfg(test)]
mod tests;
