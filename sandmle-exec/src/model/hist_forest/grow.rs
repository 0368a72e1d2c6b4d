//! Growing one tree: the split search over histograms of bins.
//!
//! A node's rows are a slice of the tree's row indices, partitioned in
//! place into its children's slices, so no node rescans rows outside its
//! own. Large nodes build the histograms of all their candidate features
//! in one pass over their rows, reading each row's bins from the
//! row-major copy of the codes (one cache line per row instead of one per
//! feature); small nodes build one feature's histogram at a time over the
//! bins their rows occupy. Both paths add the same numbers in the same
//! row order, so they find the same splits: the tree does not depend on
//! which path a node took.

use super::{Bins, HistParams, Kind, MAX_BINS, Node};
use rand::RngExt;
use sandmle_core::SeedRng;

/// A split candidate: feature, the node's last occupied bin on the left,
/// its first occupied bin on the right, gain.
type Split = (usize, u8, u8, f64);

/// Nodes with at least this many rows build their candidates' histograms
/// in one row-major pass.
pub(super) const BATCH_MIN_ROWS: usize = 48;

pub(super) struct Grower<'a> {
    pub bins: &'a Bins,
    pub y_class: &'a [usize],
    pub y_value: &'a [f64],
    pub kind: Kind,
    pub p: HistParams,
    pub rng: SeedRng,
    pub nodes: Vec<Node>,
    pub leaves: Vec<f64>,
    /// Nodes with at least this many rows take the batched path.
    pub batch_min_rows: usize,
    /// Scratch: per candidate, per bin, the weight then the class weights
    /// (or the weighted sum); all zero between calls.
    hist: Vec<f64>,
    /// Scratch: the bins a small node's rows occupy.
    touched: Vec<u8>,
    /// Scratch: totals, left and right sums of a split search.
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
    ) -> Self {
        let stride = kind.width() + 1;
        let wanted = p.max_features.clamp(1, bins.codes.len().max(1));
        Grower {
            bins,
            y_class,
            y_value,
            kind,
            p,
            rng,
            nodes: Vec::new(),
            leaves: Vec::new(),
            batch_min_rows: BATCH_MIN_ROWS,
            hist: vec![0.0; wanted * (MAX_BINS + 1) * stride],
            touched: Vec::new(),
            sums: Vec::new(),
            order: Vec::new(),
        }
    }

    fn stride(&self) -> usize {
        self.kind.width() + 1
    }

    /// Grows the node over `rows` (with multiplicities `w`) and returns its index.
    pub fn grow(&mut self, rows: &mut [u32], w: &[u32], depth: u16) -> usize {
        // Whole multiplicities: their integer sum is the f64 sum, exactly.
        let total = rows.iter().map(|&r| u64::from(w[r as usize])).sum::<u64>() as f64;
        let id = self.nodes.len();
        self.nodes.push(Node::Leaf { at: 0 });
        let depth_ok = self.p.max_depth.is_none_or(|d| depth < d);
        let split = if depth_ok && total >= 2.0 * self.p.min_samples_leaf as f64 && !self.pure(rows) {
            self.best_split(rows, w, total)
        } else {
            None
        };
        match split {
            Some((feature, bin, next, _)) => {
                let threshold = self.bins.threshold(feature, bin, next);
                let codes = &self.bins.codes[feature];
                let mid = partition(rows, |r| codes[r as usize] <= bin);
                let (l, r) = rows.split_at_mut(mid);
                let left = self.grow(l, w, depth + 1);
                let right = self.grow(r, w, depth + 1);
                self.nodes[id] = Node::Split { feature, threshold, left, right };
            }
            None => {
                let at = self.leaves.len();
                self.leaves.extend(self.leaf_value(rows, w, total));
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

    fn leaf_value(&self, rows: &[u32], w: &[u32], total: f64) -> Vec<f64> {
        let mut v = vec![0.0; self.kind.width()];
        for &r in rows {
            let wr = f64::from(w[r as usize]);
            match self.kind {
                Kind::Classes(_) => v[self.y_class[r as usize]] += wr,
                Kind::Values => v[0] += wr * self.y_value[r as usize],
            }
        }
        v.iter_mut().for_each(|x| *x /= total);
        v
    }

    /// The histogram slot a row adds to and what it adds there.
    #[inline]
    fn contribution(&self, r: usize, wr: f64) -> (usize, f64) {
        match self.kind {
            Kind::Classes(_) => (1 + self.y_class[r], wr),
            Kind::Values => (1, wr * self.y_value[r]),
        }
    }

    /// The best split over `max_features` random candidates, trying further
    /// features (in random order) until one can be cut.
    fn best_split(&mut self, rows: &[u32], w: &[u32], total: f64) -> Option<Split> {
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
        if rows.len() >= self.batch_min_rows && wanted > 1 {
            self.batch_histograms(&order[..wanted], rows, w);
            for (c, &f) in order[..wanted].iter().enumerate() {
                let s = self.scan_histogram(f, c, total);
                keep(s, &mut best);
            }
        } else {
            for &f in &order[..wanted] {
                let s = self.split_on(f, rows, w, total);
                keep(s, &mut best);
            }
        }
        for i in wanted..n_features {
            if best.is_some() {
                break;
            }
            let j = self.rng.random_range(i..n_features);
            order.swap(i, j);
            let s = self.split_on(order[i], rows, w, total);
            keep(s, &mut best);
        }
        self.order = order;
        best
    }

    /// One pass over the rows: each candidate's histogram (candidate `c` at
    /// `c * (MAX_BINS + 1) * stride`) and the totals (in `sums`).
    fn batch_histograms(&mut self, candidates: &[usize], rows: &[u32], w: &[u32]) {
        let stride = self.stride();
        let per = (MAX_BINS + 1) * stride;
        let width = self.bins.codes.len();
        self.sums.clear();
        self.sums.resize(3 * stride, 0.0);
        let mut hist = std::mem::take(&mut self.hist);
        let mut totals = std::mem::take(&mut self.sums);
        let codes = &self.bins.row_codes;
        for &r in rows {
            let (r, wr) = (r as usize, f64::from(w[r as usize]));
            let (j, v) = self.contribution(r, wr);
            let row = &codes[r * width..(r + 1) * width];
            for (c, &f) in candidates.iter().enumerate() {
                let at = c * per + row[f] as usize * stride;
                hist[at] += wr;
                hist[at + j] += v;
            }
            totals[0] += wr;
            totals[j] += v;
        }
        self.hist = hist;
        self.sums = totals;
    }

    /// The best split in candidate `c`'s histogram (feature `feature`),
    /// which it then zeroes. The totals are in `sums[..stride]`.
    fn scan_histogram(&mut self, feature: usize, c: usize, total: f64) -> Option<Split> {
        let stride = self.stride();
        let n_bins = self.bins.edges[feature].len() + 1;
        let base = c * (MAX_BINS + 1) * stride;
        let hist = &mut self.hist[base..base + n_bins * stride];
        let occupied = (0..n_bins).rev().find(|&b| hist[b * stride] != 0.0);
        let best = occupied.and_then(|last| {
            let bins = (0..=last).filter(|&b| hist[b * stride] != 0.0).map(|b| b as u8);
            best_cut(self.kind, self.p.min_samples_leaf, feature, hist, &mut self.sums, bins, total)
        });
        hist.iter_mut().for_each(|v| *v = 0.0);
        best
    }

    /// The best split of `rows` on one feature, over the bins the node's
    /// rows occupy: small nodes cost little.
    fn split_on(&mut self, feature: usize, rows: &[u32], w: &[u32], total: f64) -> Option<Split> {
        if self.bins.edges[feature].is_empty() {
            return None;
        }
        let codes = &self.bins.codes[feature];
        let stride = self.stride();
        let mut hist = std::mem::take(&mut self.hist);
        let mut touched = std::mem::take(&mut self.touched);
        touched.clear();
        self.sums.clear();
        self.sums.resize(3 * stride, 0.0);
        for &r in rows {
            let (b, wr) = (codes[r as usize] as usize, f64::from(w[r as usize]));
            if hist[b * stride] == 0.0 {
                touched.push(b as u8);
            }
            let (j, v) = self.contribution(r as usize, wr);
            hist[b * stride] += wr;
            hist[b * stride + j] += v;
            self.sums[0] += wr;
            self.sums[j] += v;
        }
        touched.sort_unstable();
        let occupied = touched.iter().copied();
        let best = best_cut(self.kind, self.p.min_samples_leaf, feature, &hist, &mut self.sums, occupied, total);
        for &b in touched.iter() {
            hist[b as usize * stride..(b as usize + 1) * stride].iter_mut().for_each(|v| *v = 0.0);
        }
        self.hist = hist;
        self.touched = touched;
        best
    }
}

/// The best cut between two consecutive bins of `occupied` (the bins the
/// node's rows occupy, in increasing order) of one feature's histogram;
/// `sums` holds the totals in its first `stride` slots and is used as
/// scratch after them.
fn best_cut(
    kind: Kind,
    min_samples_leaf: usize,
    feature: usize,
    hist: &[f64],
    sums: &mut [f64],
    occupied: impl Iterator<Item = u8>,
    total: f64,
) -> Option<Split> {
    let stride = kind.width() + 1;
    let (totals, rest) = sums.split_at_mut(stride);
    let (left, right) = rest.split_at_mut(stride);
    left.iter_mut().for_each(|v| *v = 0.0);
    // Weighted purity: the sum of squared class weights over the weight
    // (Gini), or the squared sum over the weight (variance); higher is purer.
    let purity = |s: &[f64]| -> f64 {
        if s[0] <= 0.0 {
            return 0.0;
        }
        match kind {
            Kind::Classes(_) => s[1..].iter().map(|c| c * c).sum::<f64>() / s[0],
            Kind::Values => s[1] * s[1] / s[0],
        }
    };
    let parent = purity(totals);
    let min_leaf = min_samples_leaf as f64;
    let mut best: Option<Split> = None;
    let mut occupied = occupied.peekable();
    while let Some(b) = occupied.next() {
        let Some(&next) = occupied.peek() else { break };
        let at = b as usize * stride;
        for j in 0..stride {
            left[j] += hist[at + j];
            right[j] = totals[j] - left[j];
        }
        if left[0] < min_leaf || right[0] < min_leaf {
            continue;
        }
        // Any valid cut is a candidate, a zero gain included: as in
        // scikit-learn, a node that is not pure splits whenever one of its
        // drawn features can be cut.
        let gain = (purity(left) + purity(right) - parent) / total;
        if best.is_none_or(|s| gain > s.3) {
            best = Some((feature, b, next, gain));
        }
    }
    best
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
