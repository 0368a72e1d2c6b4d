//! Growing one tree: the split search over histograms of bins.
//!
//! A node's rows are a slice of the tree's row indices, partitioned in
//! place into its children's slices, so no node rescans rows outside its
//! own. Large nodes build the histograms of all their candidate features
//! in one pass over their rows, reading each row's bins from the
//! row-major copy of the codes (one cache line per row instead of one per
//! feature); small nodes sort their rows by each candidate's bin and scan
//! the runs of equal bins. Both paths add each bin's numbers in row order
//! and then add the bins up in bin order, so they find the same splits:
//! the tree does not depend on which path a node took.

use super::scan::{Add, Cuts, Scan, Split};
use super::{Bins, HistParams, Kind, MAX_BINS, Node};
use rand::RngExt;
use sandmle_core::SeedRng;

/// Nodes with at least this many rows build their candidates' histograms
/// in one row-major pass.
pub(super) const BATCH_MIN_ROWS: usize = 48;

pub(super) struct Grower<'a> {
    pub bins: &'a Bins,
    pub kind: Kind,
    pub p: HistParams,
    pub rng: SeedRng,
    pub nodes: Vec<Node>,
    pub leaves: Vec<f64>,
    /// Nodes with at least this many rows take the batched path.
    pub batch_min_rows: usize,
    y_class: &'a [usize],
    y_value: &'a [f64],
    /// The tree's multiplicity of every training row.
    w: Vec<u32>,
    /// Per row, what it adds (set by [`Grower::grow_tree`]).
    adds: Vec<Add>,
    /// Scratch: per candidate, per bin, the weight then the class weights
    /// (or the weighted sum); all zero between calls.
    hist: Vec<f64>,
    /// Scratch: a small node's (bin, place) keys of one feature.
    keys: Vec<u64>,
    /// Scratch: what each of a small node's rows adds, by place in the
    /// node (gathered once per node, read by every candidate's scan).
    local: Vec<Add>,
    /// Scratch: totals, left and right sums.
    sums: Vec<f64>,
    /// Scratch: the feature order of a split search.
    order: Vec<usize>,
}

impl<'a> Grower<'a> {
    pub fn new(
        bins: &'a Bins,
        y_class: &'a [usize],
        y_value: &'a [f64],
        kind: Kind,
        p: HistParams,
        rng: SeedRng,
        mut hist: Vec<f64>,
    ) -> Self {
        let stride = kind.width() + 1;
        let wanted = p.max_features.clamp(1, bins.codes.len().max(1));
        // `hist` is all zeros (a fresh vector, or a finished grower's).
        hist.resize(wanted * (MAX_BINS + 1) * stride, 0.0);
        Grower {
            bins,
            kind,
            p,
            rng,
            nodes: Vec::new(),
            leaves: Vec::new(),
            batch_min_rows: BATCH_MIN_ROWS,
            y_class,
            y_value,
            w: Vec::new(),
            adds: Vec::new(),
            hist,
            keys: Vec::new(),
            local: Vec::new(),
            sums: vec![0.0; 3 * stride],
            order: Vec::new(),
        }
    }

    /// The tree's nodes and leaf payloads, and the histogram scratch (all
    /// zeros) for the next tree.
    pub fn finish(self) -> (Vec<Node>, Vec<f64>, Vec<f64>) {
        (self.nodes, self.leaves, self.hist)
    }

    fn stride(&self) -> usize {
        self.kind.width() + 1
    }

    /// Grows the tree over `rows`, the training rows with multiplicity
    /// `w[row] > 0`.
    pub fn grow_tree(&mut self, rows: &mut [u32], w: &[u32]) {
        self.w = w.to_vec();
        self.adds = (0..w.len())
            .map(|r| {
                let weight = f64::from(w[r]);
                match self.kind {
                    Kind::Classes(_) => Add { weight, slot: 1 + self.y_class[r], amount: weight },
                    Kind::Values => Add { weight, slot: 1, amount: weight * self.y_value[r] },
                }
            })
            .collect();
        self.grow(rows, 0);
    }

    /// Grows the node over `rows` and returns its index.
    fn grow(&mut self, rows: &mut [u32], depth: u16) -> usize {
        // Whole multiplicities: their integer sum is the f64 sum, exactly.
        let total = rows.iter().map(|&r| u64::from(self.w[r as usize])).sum::<u64>() as f64;
        let id = self.nodes.len();
        self.nodes.push(Node::Leaf { at: 0 });
        let depth_ok = self.p.max_depth.is_none_or(|d| depth < d);
        let split = if depth_ok && total >= 2.0 * self.p.min_samples_leaf as f64 && !self.pure(rows) {
            self.best_split(rows, total)
        } else {
            None
        };
        match split {
            Some((feature, bin, next, _)) => {
                let threshold = self.bins.threshold(feature, bin, next);
                let codes = &self.bins.codes[feature];
                let mid = partition(rows, |r| codes[r as usize] <= bin);
                let (l, r) = rows.split_at_mut(mid);
                let left = self.grow(l, depth + 1);
                let right = self.grow(r, depth + 1);
                self.nodes[id] = Node::Split { feature, threshold, left, right };
            }
            None => {
                let at = self.leaves.len();
                let mut v = vec![0.0; self.kind.width()];
                for &r in rows.iter() {
                    let a = self.adds[r as usize];
                    v[a.slot - 1] += a.amount;
                }
                v.iter_mut().for_each(|x| *x /= total);
                self.leaves.extend(v);
                self.nodes[id] = Node::Leaf { at };
            }
        }
        id
    }

    fn pure(&self, rows: &[u32]) -> bool {
        match self.kind {
            Kind::Classes(_) => rows.iter().all(|&r| self.y_class[r as usize] == self.y_class[rows[0] as usize]),
            Kind::Values => rows.iter().all(|&r| self.y_value[r as usize] == self.y_value[rows[0] as usize]),
        }
    }

    /// The node's totals, in row order, into `sums[..stride]`.
    fn totals(&mut self, rows: &[u32]) {
        let stride = self.stride();
        let totals = &mut self.sums[..stride];
        totals.fill(0.0);
        for &r in rows {
            let a = self.adds[r as usize];
            totals[0] += a.weight;
            totals[a.slot] += a.amount;
        }
    }

    /// The best split over `max_features` random candidates, trying further
    /// features (in random order) until one can be cut.
    fn best_split(&mut self, rows: &[u32], total: f64) -> Option<Split> {
        let n_features = self.bins.codes.len();
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend(0..n_features);
        let wanted = self.p.max_features.min(n_features);
        // Partial Fisher–Yates: the first `wanted` candidates.
        for i in 0..wanted {
            let j = self.rng.random_range(i..n_features);
            order.swap(i, j);
        }
        let mut best: Option<Split> = None;
        let keep = |s: Option<Split>, best: &mut Option<Split>| {
            if let Some(s) = s {
                if best.is_none_or(|b| s.3 > b.3) {
                    *best = Some(s);
                }
            }
        };
        self.totals(rows);
        let batched = rows.len() >= self.batch_min_rows && wanted > 1;
        let gather = |g: &mut Self| {
            g.local.clear();
            g.local.extend(rows.iter().map(|&r| g.adds[r as usize]));
        };
        if !batched {
            gather(self);
        }
        if batched {
            self.batch_histograms(&order[..wanted], rows);
            for (c, &f) in order[..wanted].iter().enumerate() {
                let s = self.scan_histogram(f, c, total);
                keep(s, &mut best);
            }
        } else {
            for &f in &order[..wanted] {
                let s = self.split_on(f, rows, total);
                keep(s, &mut best);
            }
        }
        for i in wanted..n_features {
            if best.is_some() {
                break;
            }
            if batched && i == wanted {
                gather(self);
            }
            let j = self.rng.random_range(i..n_features);
            order.swap(i, j);
            let s = self.split_on(order[i], rows, total);
            keep(s, &mut best);
        }
        self.order = order;
        best
    }

    /// One pass over the rows: each candidate's histogram (candidate `c` at
    /// `c * (MAX_BINS + 1) * stride`).
    fn batch_histograms(&mut self, candidates: &[usize], rows: &[u32]) {
        let stride = self.stride();
        let per = (MAX_BINS + 1) * stride;
        let width = self.bins.codes.len();
        let codes = &self.bins.row_codes;
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
        cut.best
    }

    /// The best split of `rows` on one feature: the rows sorted by bin
    /// (then by their place in `rows`) and scanned in that order, cuts
    /// between runs of equal bins. Small nodes cost a sort of their own
    /// rows, no histogram.
    fn split_on(&mut self, feature: usize, rows: &[u32], total: f64) -> Option<Split> {
        if self.bins.edges[feature].is_empty() {
            return None;
        }
        let codes = &self.bins.codes[feature];
        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        keys.extend(rows.iter().enumerate().map(|(i, &r)| (u64::from(codes[r as usize]) << 32) | i as u64));
        keys.sort_unstable();
        let min_leaf = self.p.min_samples_leaf as f64;
        let scan = Scan { adds: &self.local, min_leaf, feature, keys: &keys, total };
        let best = match self.kind {
            Kind::Values => scan.values(&self.sums),
            Kind::Classes(k) => scan.classes(k, &mut self.sums),
        };
        self.keys = keys;
        best
    }
}

/// Moves the rows for which `left` holds to the front; returns their count.
fn partition(rows: &mut [u32], left: impl Fn(u32) -> bool) -> usize {
    let mut i = 0;
    for j in 0..rows.len() {
        if left(rows[j]) {
            rows.swap(i, j);
            i += 1;
        }
    }
    i
}
