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
mod records;
mod replay;

use super::scan::{Add, Cuts, PackedScan, Scan, ScanRuns, Split, purity, unpack};
use super::{Bins, HistParams, Kind, MAX_BINS, Node, Tree};
#[cfg(test)]
pub(super) use records::Place;
pub(super) use records::Records;
pub(super) use replay::{Searched, sort_log};
use sandmle_core::{SeedRng, rng_for};

/// Forests and trees of a depth limit of at most this share the deeper
/// forest of their seed, cut at their depth ([`Tree::cut`]). A cut is the
/// tree grown to that depth for any limit up to [`PLACED_DEPTHS`] (every
/// node above it draws from its own place); the limit is kept small
/// because the shared forest keeps the payload of each inner node down
/// to the deepest cut asked for.
pub(super) const CUT_DEPTHS: u16 = 6;

/// Nodes above this depth draw their candidates from a place of their own
/// in their tree's stream ([`Grower::place_draws`]): what such a node
/// draws depends on its seed, depth and turns from the root alone, not on
/// which other nodes were searched before it. So a tree cut at a depth up
/// to this is the tree grown to it ([`CUT_DEPTHS`]), and a tree of larger
/// leaves draws what the tree of smaller leaves drew at every node above
/// it they share ([`replay`]). Deeper nodes share one more stream, in the
/// order the tree grows.
///
/// Each place starts a fresh block of the stream, four ChaCha blocks made
/// at once (about 90 ns), so the depth is a trade. Measured on the 2-core
/// AMD EPYC VM (medians of alternated runs; before: one stream per depth
/// above 6, and one for the deeper nodes):
/// - the panel's forest of 100 trees with leaves of 5 on a `digits_png`
///   environment, which replays the forest of 100's searches: 10.6 ms
///   before, 7.8 ms with places above depth 6, 7.4 ms above 8, 6.9 ms
///   above 40 (where the nodes of a 200-row table's trees all have one);
/// - the default forest's fit on 20,000 `flights` rows, whose trees are
///   deep and replay nothing: 180 ms before, 186 ms above depth 8, 188 ms
///   above 12, 200 ms above 40 (builds without link-time optimisation).
pub(super) const PLACED_DEPTHS: u16 = 8;

/// Stream `k` of the node draws of the tree of seed `seed`: 0 for the
/// nodes above [`PLACED_DEPTHS`], each at its place, 1 for the deeper
/// ones.
fn node_stream(seed: u64, k: usize) -> SeedRng {
    let mut rng = rng_for(seed, "tree-depth");
    rng.set_stream(rng.get_stream().wrapping_add(k as u64));
    rng
}

/// Where the node at `depth`, `turns` from the root (bit `d` set: right
/// at depth `d`), starts drawing in stream 0 of a table of `features`
/// features: its number in a heap (`2^depth + turns`) times a window of
/// at least 2^20 words and at least twice the features (a node draws at
/// most two words a candidate and tries each feature once at most), so
/// no two nodes' draws overlap. `None` at [`PLACED_DEPTHS`] and deeper,
/// or where the place would pass the stream's 2^68 words (which no table
/// of fewer than 2^59 features reaches).
fn node_place(depth: u16, turns: u64, features: usize) -> Option<u128> {
    let window = (2 * features as u128).next_power_of_two().trailing_zeros().max(20);
    let fits = u32::from(depth) + 1 + window <= 68;
    (depth < PLACED_DEPTHS && fits).then(|| ((1u128 << depth) | u128::from(turns)) << window)
}

/// The turns from the root of the right child of the node at `depth`,
/// `turns` from the root: bit `depth` set (none past 64 bits, where no
/// node has a place).
pub(super) fn right_turns(turns: u64, depth: u16) -> u64 {
    turns | 1u64.checked_shl(depth.into()).unwrap_or(0)
}

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
    /// The tree's seed: the nodes above [`PLACED_DEPTHS`] draw their
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

    /// The best split over `max_features` random candidates, trying further
    /// features (in random order) until one can be cut.
    fn best_split(&mut self, rows: &[u32], at: usize, total: f64) -> Option<Split> {
        if let (true, &[r0, r1]) = (self.two_rows, rows) {
            return match self.kind {
                Kind::Values => self.split_two_values(r0 as usize, r1 as usize, total),
                Kind::Classes(_) => self.split_two_rows(rows, at, total),
            };
        }
        let batched = self.presorted.is_none()
            && rows.len() >= self.batch_min_rows
            && self.p.max_features.min(self.bins.codes.len()) > 1;
        if !batched {
            // Rows are gathered once, if a candidate sorts them.
            let mut gathered = false;
            return self.best_split_with(|g, f| {
                if !gathered && !g.counts(f) && g.presorted.is_none() {
                    g.gather(rows);
                    gathered = true;
                }
                g.split_one(f, rows, at, total)
            });
        }
        let wanted = self.draw_candidates();
        let order = std::mem::take(&mut self.order);
        let mut best: Option<Split> = None;
        // A feature with more bins than the node has rows is cheaper to
        // sort than to scan bin by bin; the candidates keep their order.
        let mut listed = std::mem::take(&mut self.listed);
        listed.clear();
        listed
            .extend(order[..wanted].iter().copied().filter(|&f| !self.counts(f) && self.histogram_pays(f, rows.len())));
        // Rows are gathered once, if a candidate sorts them: neither a
        // counted one nor a histogram candidate does; a further feature
        // does unless counted.
        let mut gathered = false;
        if order[..wanted].iter().any(|&f| !self.counts(f) && !listed.contains(&f)) {
            self.gather(rows);
            gathered = true;
        }
        if !listed.is_empty() {
            // Zeros for as many histograms as the batch has: a tree of
            // every feature (hundreds of them) would otherwise zero
            // megabytes per tree that its presorted nodes never read.
            let need = listed.len() * (MAX_BINS + 1) * self.stride();
            if self.hist.len() < need {
                self.hist.resize(need, 0.0);
            }
            self.batch_histograms(&listed, rows);
        }
        let mut c = 0;
        for &f in &order[..wanted] {
            let s = if listed.get(c) == Some(&f) {
                // Scanned even past an unbeatable cut: the scan leaves
                // the histogram zeroed for the next node.
                c += 1;
                self.scan_histogram(f, c - 1, total)
            } else if self.unbeatable(best) {
                continue;
            } else {
                self.split_one(f, rows, at, total)
            };
            keep(s, &mut best);
        }
        self.listed = listed;
        self.order = order;
        for i in wanted..self.bins.codes.len() {
            if best.is_some() {
                break;
            }
            let f = self.draw_further(i);
            if !gathered && !self.counts(f) {
                self.gather(rows);
                gathered = true;
            }
            keep(self.split_one(f, rows, at, total), &mut best);
        }
        best
    }

    /// [`Grower::best_split`] of a class node of two rows, `r0 < r1`: a
    /// candidate either holds them in one bin (no cut) or cuts between
    /// their two bins, and the cut's gain depends only on which row is in
    /// the lower bin. So the first candidate of each order is searched as
    /// any node's, and the others only compare their two bins and take
    /// its gain. A third of a fully grown tree's splits are of two rows.
    fn split_two_rows(&mut self, rows: &[u32], at: usize, total: f64) -> Option<Split> {
        let (r0, r1) = (rows[0] as usize, rows[1] as usize);
        // By which row is in the lower bin: the gain, once searched.
        let mut gains: [Option<Option<f64>>; 2] = [None, None];
        let mut gathered = false;
        self.best_split_with(|g, f| {
            let (c0, c1) = (g.bins.codes[f][r0], g.bins.codes[f][r1]);
            if c0 == c1 {
                return None;
            }
            let order = usize::from(c0 > c1);
            let gain = match gains[order] {
                Some(gain) => gain,
                None => {
                    if !gathered && !g.counts(f) && g.presorted.is_none() {
                        g.gather(rows);
                        gathered = true;
                    }
                    let gain = g.split_one(f, rows, at, total).map(|s| s.3);
                    gains[order] = Some(gain);
                    gain
                }
            };
            gain.map(|gain| (f, c0.min(c1), c0.max(c1), gain))
        })
    }

    /// [`Grower::best_split`] of a value node of two rows, `r0 < r1`: a
    /// candidate's one cut puts one row on each side, and its gain is one
    /// of two numbers, by which row is on the left. Both are computed once
    /// as [`Scan::values`] computes them (the same additions in the same
    /// order), and each candidate only compares its two bins. A third of
    /// a fully grown value tree's splits are of two rows.
    fn split_two_values(&mut self, r0: usize, r1: usize, total: f64) -> Option<Split> {
        let (tw, ts) = (self.sums[0], self.sums[1]);
        let parent = purity(Kind::Values, &[tw, ts]);
        let min_leaf = self.p.min_samples_leaf as f64;
        let gain = |a: Add| {
            let (lw, ls) = (0.0 + (0.0 + a.weight), 0.0 + (0.0 + a.amount));
            let (rw, rs) = (tw - lw, ts - ls);
            (lw >= min_leaf && rw >= min_leaf).then(|| (ls * ls / lw + rs * rs / rw - parent) / total)
        };
        let (first, second) = (gain(self.adds[r0]), gain(self.adds[r1]));
        self.best_split_with(|g, f| {
            let codes = &g.bins.codes[f];
            match codes[r0].cmp(&codes[r1]) {
                std::cmp::Ordering::Less => first.map(|gain| (f, codes[r0], codes[r1], gain)),
                std::cmp::Ordering::Greater => second.map(|gain| (f, codes[r1], codes[r0], gain)),
                std::cmp::Ordering::Equal => None,
            }
        })
    }

    /// Whether a batched node of `rows` rows scans feature `feature`'s
    /// histogram rather than sorting its rows by bin: a histogram costs a
    /// look at every bin and, for classes, an update of every class per
    /// occupied bin; a sort, a few steps per row. With more bins than rows
    /// (a continuous feature in a node of 200 rows) the sort wins: digits_png
    /// (350 image features, 10 classes) and breast_cancer generate about
    /// 18 % faster.
    fn histogram_pays(&self, feature: usize, rows: usize) -> bool {
        !self.sort_wide || self.bins.edges[feature].len() < rows
    }

    /// What each of the node's rows adds, by place, for [`Grower::split_on`]
    /// (presorted scans, and nodes that sort through row orders, read it
    /// by row instead).
    fn gather(&mut self, rows: &[u32]) {
        if self.presorted.is_none() && !self.sorts_by_row_order(rows.len()) {
            self.local.clear();
            self.local.extend(rows.iter().map(|&r| self.adds[r as usize]));
        }
    }

    /// Whether a node of `n` rows sorts them by a candidate's bins through
    /// the candidate's row order (and so never reads `local`).
    fn sorts_by_row_order(&self, n: usize) -> bool {
        self.row_order && n >= ROW_ORDER_MIN_ROWS && self.bins.row_order().is_some()
    }

    /// The best split on one feature without a histogram of floats: by
    /// counting a two-bin feature's upper bin, a two-class histogram of
    /// packed weights, over the presorted rows, or by sorting the node's
    /// rows.
    fn split_one(&mut self, feature: usize, rows: &[u32], at: usize, total: f64) -> Option<Split> {
        if self.counts(feature) {
            self.split_counted(feature, rows, total)
        } else if self.presorted.is_some() {
            self.split_presorted(feature, at, rows.len(), total)
        } else {
            self.split_on(feature, rows, total)
        }
    }

    /// One pass over the rows: each candidate's histogram (candidate `c` at
    /// `c * (MAX_BINS + 1) * stride`).
    fn batch_histograms(&mut self, candidates: &[usize], rows: &[u32]) {
        let stride = self.stride();
        let per = (MAX_BINS + 1) * stride;
        let width = self.bins.codes.len();
        let bins = self.bins;
        let codes = bins.row_codes();
        for &r in rows {
            let a = self.adds[r as usize];
            let row = &codes[r as usize * width..(r as usize + 1) * width];
            for (c, &f) in candidates.iter().enumerate() {
                let at = c * per + row[f] as usize * stride;
                self.hist[at] += a.weight;
                self.hist[at + a.slot] += a.amount;
            }
        }
    }

    /// The best split in candidate `c`'s histogram (feature `feature`),
    /// which it then zeroes.
    fn scan_histogram(&mut self, feature: usize, c: usize, total: f64) -> Option<Split> {
        let stride = self.stride();
        let n_bins = self.bins.edges[feature].len() + 1;
        let base = c * (MAX_BINS + 1) * stride;
        let hist = &mut self.hist[base..base + n_bins * stride];
        let mut cut = Cuts::new(self.kind, self.p.min_samples_leaf, feature, total, &mut self.sums);
        for b in 0..n_bins {
            let bin = &hist[b * stride..(b + 1) * stride];
            if bin[0] != 0.0 {
                cut.add_bin(b as u8, bin);
            }
        }
        hist.fill(0.0);
        cut.best.split
    }

    /// The best split of `rows` on one feature: the rows sorted by bin
    /// (then by their place in `rows`) and scanned in that order, cuts
    /// between runs of equal bins. Small nodes cost a sort of their own
    /// rows, no histogram: through the feature's row order when the table
    /// has row orders and the node has at least [`ROW_ORDER_MIN_ROWS`]
    /// rows (rows in increasing order, so the same order), else by ranks
    /// or counts ([`sort_by_bin`]).
    ///
    /// Compiled for AVX2 where the processor has it ([`pulp::Arch`]): the
    /// rank sort compares twice the keys to an instruction. The same IEEE
    /// additions, products and quotients either way (nothing fused), so
    /// the same split; a `digits_png` candidate took 2 % less time.
    fn split_on(&mut self, feature: usize, rows: &[u32], total: f64) -> Option<Split> {
        struct SplitOn<'g, 'a>(&'g mut Grower<'a>, usize, &'g [u32], f64);
        impl pulp::WithSimd for SplitOn<'_, '_> {
            type Output = Option<Split>;
            #[inline(always)]
            fn with_simd<S: pulp::Simd>(self, _simd: S) -> Option<Split> {
                let SplitOn(g, feature, rows, total) = self;
                g.split_on_in(feature, rows, total)
            }
        }
        pulp::Arch::new().dispatch(SplitOn(self, feature, rows, total))
    }

    /// [`Grower::split_on`]'s work, inlined into each processor's route.
    #[inline(always)]
    fn split_on_in(&mut self, feature: usize, rows: &[u32], total: f64) -> Option<Split> {
        if self.bins.edges[feature].is_empty() {
            return None;
        }
        let codes = &self.bins.codes[feature];
        let scan = Scan { min_leaf: self.p.min_samples_leaf as f64, feature, total, squares: self.squares };
        if let Some(order) = self.bins.row_order().filter(|_| self.sorts_by_row_order(rows.len())) {
            let sorted = order.sort(feature, rows, &mut self.keys);
            let adds = &self.adds;
            let sorted = sorted.iter().map(|&r| (codes[r as usize], adds[r as usize]));
            return match self.kind {
                Kind::Values => scan.values(sorted, &self.sums, &mut self.scan_runs),
                Kind::Classes(k) => scan.classes(sorted, k, &mut self.sums, &mut self.scan_runs),
            };
        }
        let mut keys = std::mem::take(&mut self.keys);
        let sorted = sort_by_bin(&mut keys, rows.iter().map(|&r| codes[r as usize]));
        let local = &self.local;
        let sorted = sorted.iter().map(|&k| (key_bin(k), local[key_place(k)]));
        let best = match self.kind {
            Kind::Values => scan.values(sorted, &self.sums, &mut self.scan_runs),
            Kind::Classes(k) => scan.classes(sorted, k, &mut self.sums, &mut self.scan_runs),
        };
        self.keys = keys;
        best
    }

    /// [`Grower::split_on`] over the presorted rows of the node at place
    /// `at` with `len` rows: the same scan in the same order, without a sort.
    fn split_presorted(&mut self, feature: usize, at: usize, len: usize, total: f64) -> Option<Split> {
        let pre = self.presorted.as_ref()?;
        if self.bins.edges[feature].is_empty() {
            return None;
        }
        let (codes, adds) = (&self.bins.codes[feature], &self.adds);
        let list = &pre.lists[feature * pre.m + at..][..len];
        let sorted = list.iter().map(|&r| (codes[r as usize], adds[r as usize]));
        let scan = Scan { min_leaf: self.p.min_samples_leaf as f64, feature, total, squares: self.squares };
        match self.kind {
            Kind::Values => scan.values(sorted, &self.sums, &mut self.scan_runs),
            Kind::Classes(k) => scan.classes(sorted, k, &mut self.sums, &mut self.scan_runs),
        }
    }
}

impl Presorted {
    /// Each feature's `rows` (increasing) put in bin order by a counting
    /// sort, which keeps rows of one bin in increasing order.
    fn new(bins: &Bins, rows: &[u32], mut lists: Vec<u32>) -> Presorted {
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
const GROUPED_CLASSES: usize = 5;

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
fn best_grouping(classes: &[f64], parent: f64, total: f64) -> f64 {
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
fn keep(s: Option<Split>, best: &mut Option<Split>) {
    if let Some(s) = s
        && best.is_none_or(|b| s.3 > b.3)
    {
        *best = Some(s);
    }
}

/// Nodes of at least this many rows sort by counting (a pass over 256 bin
/// counters costs about what ranking this many keys does); fewer, by rank
/// ([`sort_by_bin`], for nodes and tables without row orders).
const COUNT_SORT_MIN: usize = 32;

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
fn sort_by_bin(keys: &mut Vec<u64>, codes: impl ExactSizeIterator<Item = u8>) -> &[u64] {
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
fn rank_sort(keys: &[u64], sorted: &mut [u64]) {
    if keys.len() < COUNT_SORT_MIN / 2 {
        rank_sort_in::<{ COUNT_SORT_MIN / 2 }>(keys, sorted);
    } else {
        rank_sort_in::<COUNT_SORT_MIN>(keys, sorted);
    }
}

/// [`rank_sort`] of at most `LANES` keys.
#[inline(always)]
fn rank_sort_in<const LANES: usize>(keys: &[u64], sorted: &mut [u64]) {
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
fn key_bin(key: u64) -> u8 {
    (key >> 32) as u8
}

/// The place of a [`sort_by_bin`] key.
#[inline(always)]
fn key_place(key: u64) -> usize {
    key as u32 as usize
}

/// Moves the rows for which `left` holds to the front, keeping the order
/// of each side (`right` is scratch); returns their count.
///
/// Branch-free: each row is written to both sides and only its own side's
/// count moves on (which side is as good as random to the processor).
fn partition(rows: &mut [u32], right: &mut Vec<u32>, left: impl Fn(u32) -> bool) -> usize {
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;
    use sandmle_core::rng_for;

    /// Nodes on both sides of [`COUNT_SORT_MIN`], with codes from one bin
    /// to all 256: the keys come out in (bin, place) order, each place
    /// once, as a comparison sort puts them.
    #[test]
    fn rank_and_counting_sorts_by_bin_order_keys_as_a_comparison_sort() {
        let mut rng = rng_for(7, "sort_by_bin");
        let mut keys = Vec::new();
        let count = COUNT_SORT_MIN;
        for len in [0, 1, 2, 5, 15, 16, 17, count - 1, count, count + 1, 200, 1000] {
            for bins in [1u16, 2, 17, 256] {
                let codes: Vec<u8> = (0..len).map(|_| rng.random_range(0..bins) as u8).collect();
                let mut expected: Vec<u64> =
                    codes.iter().enumerate().map(|(i, &c)| (u64::from(c) << 32) | i as u64).collect();
                expected.sort();
                let sorted = sort_by_bin(&mut keys, codes.iter().copied());
                assert_eq!(sorted, &expected[..], "{len} rows, {bins} bins");
                assert!(sorted.iter().all(|&k| codes[key_place(k)] == key_bin(k)));
            }
        }
    }

    /// Node places never share a word: every node above [`PLACED_DEPTHS`]
    /// starts its own window, wide enough for two words a feature, and the
    /// last place ends within the stream's 2^68 words.
    #[test]
    fn node_places_are_disjoint_windows_within_the_stream() {
        for features in [1usize, 202, 1 << 19, (1 << 19) + 1, 1 << 26, 1 << 32] {
            let window = (2 * features as u128).max(1 << 20);
            let mut starts: Vec<u128> = Vec::new();
            for depth in 0..PLACED_DEPTHS {
                for turns in 0..1u64 << depth {
                    starts.push(node_place(depth, turns, features).expect("a place"));
                }
            }
            starts.sort_unstable();
            assert!(starts.windows(2).all(|w| w[1] - w[0] >= window), "{features} features");
            assert!(starts.last().unwrap() + window <= 1u128 << 68, "{features} features");
        }
        assert_eq!(node_place(PLACED_DEPTHS, 0, 202), None);
    }
}
