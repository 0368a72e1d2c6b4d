//! The histogram forest: random forests grown on binned features, written
//! here because smartcore's tree learner scans every row at every node and
//! keeps its trees private (no leaf class frequencies, so no real
//! probabilities).
//!
//! Each feature is cut into at most 255 bins on the training rows (one bin
//! per distinct value when there are few enough, quantile bins otherwise),
//! so a node's split search is a histogram per candidate feature plus a
//! scan over bins. Trees are grown as in Breiman's forests: a bootstrap
//! sample per tree, `max_features` candidates drawn per node (more are
//! tried if none of them splits), Gini impurity for classes and squared
//! error for values, leaves of at least `min_samples_leaf` rows (counted
//! with bootstrap multiplicity). A leaf keeps its class frequencies; the
//! forest's probabilities are their mean over trees, as in scikit-learn.
//! Every random choice comes from ChaCha8 seeded per tree, and trees are
//! combined in index order, so the result does not depend on the thread
//! count.

use super::Data;
use crate::error::{Error, Result};
use ndarray::Array2;
use rand::RngExt;
use rayon::prelude::*;
use sandmle_core::{SeedRng, rng_for};
use std::time::Instant;

const MAX_BINS: usize = 255;

/// Binned features: per feature, each row's bin and the bin upper edges.
struct Bins {
    /// `codes[f][row]`.
    codes: Vec<Vec<u8>>,
    /// `edges[f][b]`: values `<= edges[f][b]` fall in bins `0..=b`.
    edges: Vec<Vec<f64>>,
}

impl Bins {
    fn fit(x: &Array2<f64>) -> Bins {
        let edges: Vec<Vec<f64>> = x
            .columns()
            .into_iter()
            .map(|col| {
                let mut all: Vec<f64> = col.to_vec();
                all.sort_by(f64::total_cmp);
                let mut distinct = all.clone();
                distinct.dedup();
                if distinct.len() <= MAX_BINS {
                    // Midpoints between consecutive distinct values.
                    distinct.windows(2).map(|w| w[0] + (w[1] - w[0]) / 2.0).collect()
                } else {
                    // Quantiles of the values, duplicates merged.
                    let mut cuts: Vec<f64> = (1..MAX_BINS).map(|i| all[i * all.len() / MAX_BINS]).collect();
                    cuts.dedup();
                    cuts
                }
            })
            .collect();
        let codes = Self::codes_for(x, &edges);
        Bins { codes, edges }
    }

    fn codes_for(x: &Array2<f64>, edges: &[Vec<f64>]) -> Vec<Vec<u8>> {
        x.columns()
            .into_iter()
            .zip(edges)
            .map(|(col, e)| col.iter().map(|&v| e.partition_point(|&t| t < v) as u8).collect())
            .collect()
    }
}

/// What a leaf predicts: class frequencies or a mean.
#[derive(Clone, Copy)]
enum Kind {
    Classes(usize),
    Values,
}

enum Node {
    Split { feature: usize, bin: u8, left: usize, right: usize },
    Leaf { at: usize },
}

/// One tree: nodes and leaf payloads (`width` numbers per leaf).
struct Tree {
    nodes: Vec<Node>,
    leaves: Vec<f64>,
    width: usize,
}

impl Tree {
    fn leaf_of(&self, codes: &[Vec<u8>], row: usize) -> &[f64] {
        let mut n = 0;
        loop {
            match self.nodes[n] {
                Node::Split { feature, bin, left, right } => n = if codes[feature][row] <= bin { left } else { right },
                Node::Leaf { at } => return &self.leaves[at..at + self.width],
            }
        }
    }
}

/// Forest hyper-parameters.
#[derive(Debug, Clone, Copy)]
pub(super) struct HistParams {
    pub n_trees: usize,
    pub max_depth: Option<u16>,
    pub min_samples_leaf: usize,
    pub max_features: usize,
}

struct Grower<'a> {
    bins: &'a Bins,
    y_class: &'a [usize],
    y_value: &'a [f64],
    kind: Kind,
    p: HistParams,
    rng: SeedRng,
    nodes: Vec<Node>,
    leaves: Vec<f64>,
    /// Scratch: per-bin weights and class weights (or sums), all zero
    /// between calls.
    hist: Vec<f64>,
    /// Scratch: the bins a node's rows occupy.
    touched: Vec<u8>,
    /// Scratch: totals, left and right sums of a split search.
    sums: Vec<f64>,
    /// Scratch: the feature order of a split search.
    order: Vec<usize>,
}

/// A split candidate: feature, last bin of the left side, gain.
type Split = (usize, u8, f64);

impl Grower<'_> {
    fn width(&self) -> usize {
        match self.kind {
            Kind::Classes(k) => k,
            Kind::Values => 1,
        }
    }

    /// Grows the node over `rows` (with multiplicities `w`) and returns its index.
    fn grow(&mut self, rows: &mut [u32], w: &[u32], depth: u16) -> usize {
        let total: f64 = rows.iter().map(|&r| f64::from(w[r as usize])).sum();
        let id = self.nodes.len();
        self.nodes.push(Node::Leaf { at: 0 });
        let depth_ok = self.p.max_depth.is_none_or(|d| depth < d);
        let split = if depth_ok && total >= 2.0 * self.p.min_samples_leaf as f64 && !self.pure(rows) {
            self.best_split(rows, w, total)
        } else {
            None
        };
        match split {
            Some((feature, bin, _)) => {
                let codes = &self.bins.codes[feature];
                let mid = partition(rows, |r| codes[r as usize] <= bin);
                let (l, r) = rows.split_at_mut(mid);
                let left = self.grow(l, w, depth + 1);
                let right = self.grow(r, w, depth + 1);
                self.nodes[id] = Node::Split { feature, bin, left, right };
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
        let mut v = vec![0.0; self.width()];
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

    /// The best split over `max_features` random candidates, trying further
    /// features (in random order) until one splits.
    fn best_split(&mut self, rows: &[u32], w: &[u32], total: f64) -> Option<Split> {
        let n_features = self.bins.codes.len();
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend(0..n_features);
        let wanted = self.p.max_features.min(n_features);
        let mut best: Option<Split> = None;
        for i in 0..n_features {
            // Partial Fisher–Yates: draw the next candidate feature.
            let j = self.rng.random_range(i..n_features);
            order.swap(i, j);
            if let Some(s) = self.split_on(order[i], rows, w, total) {
                if best.is_none_or(|b| s.2 > b.2) {
                    best = Some(s);
                }
            }
            if i + 1 >= wanted && best.is_some() {
                break;
            }
        }
        self.order = order;
        best
    }

    /// The best split of `rows` on one feature. Only the bins the node's
    /// rows occupy are visited, so deep, small nodes cost little.
    fn split_on(&mut self, feature: usize, rows: &[u32], w: &[u32], total: f64) -> Option<Split> {
        let codes = &self.bins.codes[feature];
        if self.bins.edges[feature].is_empty() {
            return None;
        }
        let stride = self.width() + 1;
        let (hist, touched, sums) = (&mut self.hist, &mut self.touched, &mut self.sums);
        touched.clear();
        sums.clear();
        sums.resize(3 * stride, 0.0);
        let (totals, rest) = sums.split_at_mut(stride);
        let (left, right) = rest.split_at_mut(stride);
        for &r in rows {
            let (b, wr) = (codes[r as usize] as usize, f64::from(w[r as usize]));
            if hist[b * stride] == 0.0 {
                touched.push(b as u8);
            }
            let (j, v) = match self.kind {
                Kind::Classes(_) => (1 + self.y_class[r as usize], wr),
                Kind::Values => (1, wr * self.y_value[r as usize]),
            };
            hist[b * stride] += wr;
            hist[b * stride + j] += v;
            totals[0] += wr;
            totals[j] += v;
        }
        touched.sort_unstable();
        let kind = self.kind;
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
        let min_leaf = self.p.min_samples_leaf as f64;
        let mut best: Option<Split> = None;
        for &b in &touched[..touched.len().saturating_sub(1)] {
            let at = b as usize * stride;
            for j in 0..stride {
                left[j] += hist[at + j];
                right[j] = totals[j] - left[j];
            }
            if left[0] < min_leaf || right[0] < min_leaf {
                continue;
            }
            let gain = (purity(left) + purity(right) - parent) / total;
            if gain > 1e-12 && best.is_none_or(|s| gain > s.2) {
                best = Some((feature, b, gain));
            }
        }
        for &b in touched.iter() {
            hist[b as usize * stride..(b as usize + 1) * stride].iter_mut().for_each(|v| *v = 0.0);
        }
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

/// Grows the forest and returns each test row's mean leaf payload.
fn forest(d: &Data<'_>, y_class: &[usize], y_value: &[f64], kind: Kind, p: HistParams) -> Result<Array2<f64>> {
    let (x, x_test, seed) = (d.x, d.x_test, d.seed);
    let start = Instant::now();
    if x.nrows() < 2 {
        return Err(Error::TooFewRows { what: "hist_forest".into(), needed: 2, found: x.nrows() });
    }
    let bins = Bins::fit(x);
    let test_codes = Bins::codes_for(x_test, &bins.edges);
    let n = x.nrows();
    let mut seeder = rng_for(seed, "hist_forest");
    let seeds: Vec<u64> = (0..p.n_trees).map(|_| seeder.random()).collect();
    let deadline = d.clock.deadline;
    let trees: Vec<Tree> = seeds
        .par_iter()
        .map(|&s| {
            if let Some((at, limit)) = deadline {
                if Instant::now() >= at {
                    return Err(Error::TimeLimit { limit });
                }
            }
            let mut rng = rng_for(s, "tree");
            let mut w = vec![0u32; n];
            for _ in 0..n {
                w[rng.random_range(0..n)] += 1;
            }
            let mut rows: Vec<u32> = (0..n as u32).filter(|&r| w[r as usize] > 0).collect();
            let stride = match kind {
                Kind::Classes(k) => k + 1,
                Kind::Values => 2,
            };
            let mut g = Grower {
                bins: &bins,
                y_class,
                y_value,
                kind,
                p,
                rng,
                nodes: Vec::new(),
                leaves: Vec::new(),
                hist: vec![0.0; (MAX_BINS + 1) * stride],
                touched: Vec::new(),
                sums: Vec::new(),
                order: Vec::new(),
            };
            g.grow(&mut rows, &w, 0);
            let width = g.width();
            Ok(Tree { nodes: g.nodes, leaves: g.leaves, width })
        })
        .collect::<Result<_>>()?;
    d.clock.add_fit(start.elapsed());
    let start = Instant::now();
    let width = match kind {
        Kind::Classes(k) => k,
        Kind::Values => 1,
    };
    let mut out = Array2::<f64>::zeros((x_test.nrows(), width));
    for tree in &trees {
        for i in 0..x_test.nrows() {
            for (o, v) in out.row_mut(i).iter_mut().zip(tree.leaf_of(&test_codes, i)) {
                *o += v;
            }
        }
    }
    out /= trees.len() as f64;
    d.clock.add_predict(start.elapsed());
    Ok(out)
}

/// Class probabilities: the mean of the trees' leaf class frequencies.
pub(super) fn classifier(d: &Data<'_>, y: &[usize], k: usize, p: HistParams) -> Result<Array2<f64>> {
    forest(d, y, &[], Kind::Classes(k), p)
}

/// Values: the mean of the trees' leaf means.
pub(super) fn regressor(d: &Data<'_>, y: &[f64], p: HistParams) -> Result<Vec<f64>> {
    forest(d, &[], y, Kind::Values, p).map(|m| m.column(0).to_vec())
}
