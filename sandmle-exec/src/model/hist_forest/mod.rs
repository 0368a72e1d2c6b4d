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
//! tried only if none of them can be cut, being constant in the node),
//! Gini impurity for classes and squared error for values, leaves of at
//! least `min_samples_leaf` rows (counted with bootstrap multiplicity). As
//! in scikit-learn, a node that is not pure splits on its best cut even
//! when that cut gains nothing, and a split's threshold lies midway between
//! the largest value on its left and the smallest on its right among the
//! node's own rows (bins only say where cuts may fall; prediction compares
//! values with thresholds). A leaf keeps its class frequencies; the
//! forest's probabilities are their mean over trees, as in scikit-learn.
//! Every random choice comes from ChaCha8 seeded per tree, and trees are
//! combined in index order, so the result does not depend on the thread
//! count.

mod binning;
mod fit;
mod grow;
mod predict;
mod row_order;
mod scan;
mod shared;

use super::{Caches, Data};
use crate::error::{Error, Result};
use binning::{column_bins, ranked_bins};
use grow::Grower;
use ndarray::Array2;
use rand::Rng;
use rand::RngExt;
use rayon::prelude::*;
use row_order::RowOrder;
use sandmle_core::{SeedRng, rng_for};
use std::sync::OnceLock;
use std::time::Instant;

pub(in crate::model) use fit::{classifier, regressor};
pub(crate) use shared::{ForestShare, SharedForests};

const MAX_BINS: usize = 255;

/// The binned training matrix, shared by the histogram forests and trees
/// of one panel run on the same matrices (the first to need it bins it).
#[derive(Default)]
pub(crate) struct SharedBins(std::sync::OnceLock<Bins>);

/// Binned features: per feature, each row's bin and the bin upper edges.
struct Bins {
    /// `codes[f][row]`.
    codes: Vec<Vec<u8>>,
    /// The same codes row by row, `row_codes[row * features + f]`, made
    /// by the first search that reads codes row by row ([`Bins::row_codes`]):
    /// trees grown over [`grow::Records`] never do.
    row_codes: OnceLock<Vec<u8>>,
    /// Every feature's rows in bin order, made by the first search that
    /// sorts a node's rows by a feature's bins ([`Bins::row_order`]), when
    /// the table has at most [`RowOrder::MAX_ROWS`] rows and
    /// [`RowOrder::MAX_CELLS`] cells.
    row_order: OnceLock<Option<RowOrder>>,
    /// `edges[f][b]`: values `<= edges[f][b]` fall in bins `0..=b`.
    edges: Vec<Vec<f64>>,
    /// `lo[f][b]`, `hi[f][b]`: the smallest and largest training value in
    /// bin `b` of feature `f` (equal when a bin holds one distinct value).
    lo: Vec<Vec<f64>>,
    hi: Vec<Vec<f64>>,
    /// Each row's bins in one record, when the features fit in one.
    records: Option<grow::Records>,
}

impl Bins {
    /// Bins `x`, whose columns are `columns` when the caller holds them
    /// (the same values, read without gathering them out of `x`).
    fn fit(x: &Array2<f64>, columns: Option<&[&[f64]]>) -> Bins {
        let m = x.ncols();
        let (mut edges, mut codes) = (Vec::with_capacity(m), Vec::with_capacity(m));
        let (mut lo, mut hi) = (Vec::with_capacity(m), Vec::with_capacity(m));
        let each_column = |f: &mut dyn FnMut(&[f64])| match columns {
            Some(cols) if cols.len() == m && cols.iter().all(|c| c.len() == x.nrows()) => {
                cols.iter().for_each(|c| f(c))
            }
            _ => for_each_column(x, f),
        };
        each_column(&mut |col| {
            let (e, c, l, h) = match ranked_bins(col) {
                Some((e, c, values)) => (e, c, values.clone(), values),
                None => column_bins(col),
            };
            edges.push(e);
            codes.push(c);
            lo.push(l);
            hi.push(h);
        });
        let n_bins: Vec<usize> = edges.iter().map(|e| e.len() + 1).collect();
        let records = grow::Records::new(&codes, &n_bins, x.nrows());
        Bins { codes, row_codes: OnceLock::new(), row_order: OnceLock::new(), edges, lo, hi, records }
    }

    /// The codes row by row (see `row_codes`), laid out on first use.
    fn row_codes(&self) -> &[u8] {
        self.row_codes.get_or_init(|| Self::row_major(&self.codes))
    }

    /// Every feature's rows in bin order (see [`RowOrder`]), laid out on
    /// first use; `None` for more than [`RowOrder::MAX_ROWS`] rows or
    /// [`RowOrder::MAX_CELLS`] cells.
    fn row_order(&self) -> Option<&RowOrder> {
        self.row_order.get_or_init(|| RowOrder::new(&self.codes)).as_ref()
    }

    /// The value threshold of a cut of feature `f` between the node's
    /// occupied bins `left` and `right` (`left < right`): the midpoint of
    /// the largest value on the left and the smallest on the right, as
    /// scikit-learn places it (halves added, so no overflow; the left value
    /// when rounding reaches the right one).
    fn threshold(&self, f: usize, left: u8, right: u8) -> f64 {
        let (a, b) = (self.hi[f][left as usize], self.lo[f][right as usize]);
        let t = a / 2.0 + b / 2.0;
        // A NaN (the midpoint of -inf and +inf) is the left value too:
        // a node's NaN threshold would mark a leaf ([`Node`]).
        if t == b || !t.is_finite() { a } else { t }
    }

    /// Column-major codes laid out row by row.
    fn row_major(codes: &[Vec<u8>]) -> Vec<u8> {
        let rows = codes.first().map_or(0, Vec::len);
        let mut out = vec![0u8; rows * codes.len()];
        for (f, col) in codes.iter().enumerate() {
            for (r, &b) in col.iter().enumerate() {
                out[r * codes.len() + f] = b;
            }
        }
        out
    }
}

/// Calls `f` with each column of `x` in order, as a contiguous slice: a
/// row-major matrix's columns are gathered a block at a time, in one pass
/// over the rows per block, where a pass per column would read every
/// cache line of the matrix once per column.
fn for_each_column(x: &Array2<f64>, mut f: impl FnMut(&[f64])) {
    const BLOCK: usize = 8;
    let (n, m) = x.dim();
    let Some(data) = x.as_slice() else {
        // Not row-major: a column at a time.
        for col in x.columns() {
            f(&col.to_vec());
        }
        return;
    };
    let mut block = vec![vec![0.0; n]; BLOCK.min(m)];
    for start in (0..m).step_by(BLOCK) {
        let width = BLOCK.min(m - start);
        for (r, row) in data.chunks_exact(m).enumerate() {
            for (col, &v) in block.iter_mut().zip(&row[start..start + width]) {
                col[r] = v;
            }
        }
        for col in &block[..width] {
            f(col);
        }
    }
}

/// What a leaf predicts: class frequencies or a mean.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Classes(usize),
    Values,
}

impl Kind {
    /// Numbers per leaf: class frequencies, or one mean.
    fn width(self) -> usize {
        match self {
            Kind::Classes(k) => k,
            Kind::Values => 1,
        }
    }
}

/// A tree node, in the layout the walks of [`predict`] read: rows whose
/// value of `feature` is at most `threshold` go left, to the next node
/// (a tree's nodes are in depth-first order, each split's left child right
/// after it), the others to node `right`. A leaf's threshold is a NaN,
/// which no value is at most, and its `right` is itself, so a walk that
/// reaches a leaf stays there; the NaN's low 32 bits hold the place of the
/// leaf's payload in [`Tree::leaves`]. Split thresholds are never NaN
/// ([`Bins::threshold`]).
///
/// A node takes 16 bytes: the nodes are most of a grown forest's memory,
/// and each tree's are written to freshly mapped pages, so their size is
/// what the fit pays in page faults. [`forest`] refuses tables whose trees
/// would need indices of more than 32 bits.
#[derive(Debug, Clone, Copy)]
struct Node {
    threshold: f64,
    feature: u32,
    right: u32,
}

impl Node {
    /// The largest index a node holds, plus one ([`indices_fit`]).
    const INDICES: u32 = u32::MAX;

    /// The bits of a leaf's threshold, but for its payload's place: a
    /// quiet NaN.
    const LEAF: u64 = 0x7FF8_0000_0000_0000;

    /// Split `me` on `feature` at `threshold` (not NaN), into nodes `left`
    /// (which is `me + 1`) and `right`.
    fn split(me: usize, feature: usize, threshold: f64, left: usize, right: usize) -> Node {
        debug_assert_eq!(left, me + 1, "a split's left child follows it");
        debug_assert!(!threshold.is_nan());
        Node { threshold, feature: index(feature), right: index(right) }
    }

    /// Leaf number `me`, its payload from `at` in the tree's leaves.
    fn leaf(me: usize, at: usize) -> Node {
        Node { threshold: f64::from_bits(Node::LEAF | u64::from(index(at))), feature: 0, right: index(me) }
    }

    /// Whether the node is a leaf.
    fn is_leaf(&self) -> bool {
        self.threshold.is_nan()
    }

    /// A leaf's payload place in [`Tree::leaves`].
    fn payload(&self) -> usize {
        self.threshold.to_bits() as u32 as usize
    }

    /// Where node `me` (this node) sends a row whose value of its feature
    /// is `value`: itself if it is a leaf. Chosen without a branch: which
    /// way a row goes is as good as random to the processor.
    #[inline]
    fn next(&self, me: u32, value: f64) -> u32 {
        // (An `if`, a mask or a pair indexed by the comparison each
        // compiled to a branch, and the walks took 2.5 times as long.)
        std::hint::select_unpredictable(value <= self.threshold, me.wrapping_add(1), self.right)
    }
}

/// Nodes are equal when their bits are (a leaf's NaN threshold included).
impl PartialEq for Node {
    fn eq(&self, other: &Node) -> bool {
        (self.threshold.to_bits(), self.feature, self.right) == (other.threshold.to_bits(), other.feature, other.right)
    }
}

/// A node index, feature or payload place as 32 bits: lossless for the
/// trees [`forest`] grows, which [`indices_fit`] checks first.
fn index(i: usize) -> u32 {
    debug_assert!(i < Node::INDICES as usize);
    i as u32
}

/// Whether every index of a forest on `rows` rows of `features` features,
/// `width` numbers a leaf, fits below [`Node::INDICES`]: a tree has fewer
/// than `2 * rows` nodes and at most `rows` leaves.
fn indices_fit(rows: usize, features: usize, width: usize) -> bool {
    let most = rows.saturating_mul(width.max(2)).max(features);
    most < Node::INDICES as usize
}

/// One tree: nodes and leaf payloads (`width` numbers per leaf).
#[derive(Debug, Clone, PartialEq)]
struct Tree {
    nodes: Vec<Node>,
    leaves: Vec<f64>,
    width: usize,
    /// The nodes that split at the depths [`HistParams::keep_inner`]
    /// asked for, in node order, and their payloads (`width` numbers each,
    /// what each would hold as a leaf): where [`Tree::cut`] may end.
    inner_nodes: Vec<u32>,
    inner: Vec<f64>,
}

impl Tree {
    /// The tree cut at depth `depth`: each node there that splits made a
    /// leaf of the payload it keeps, the nodes and leaves renumbered as a
    /// tree grown to that depth numbers them. Each node above
    /// [`grow::PLACED_DEPTHS`] draws from its own place in its tree's
    /// stream, so for `depth` at most that, it is the tree of the same
    /// seed grown with `max_depth` `depth`, node for node. `None` when a node to be cut
    /// kept no payload (the tree was grown without asking for it).
    fn cut(&self, depth: u16) -> Option<Tree> {
        let mut out =
            Tree { nodes: Vec::new(), leaves: Vec::new(), width: self.width, inner_nodes: vec![], inner: vec![] };
        self.copy_cut(0, 0, depth, &mut out)?;
        Some(out)
    }

    /// Copies node `at` (at depth `depth`) and what lies below it, down
    /// to depth `cut`, into `out`; returns its index there.
    fn copy_cut(&self, at: usize, depth: u16, cut: u16, out: &mut Tree) -> Option<usize> {
        let node = *self.nodes.get(at)?;
        let id = out.nodes.len();
        let payload = if node.is_leaf() {
            Some(&self.leaves[node.payload()..][..self.width])
        } else if depth >= cut {
            let k = self.inner_nodes.binary_search(&index(at)).ok()?;
            Some(&self.inner[k * self.width..][..self.width])
        } else {
            None
        };
        if let Some(payload) = payload {
            out.nodes.push(Node::leaf(id, out.leaves.len()));
            out.leaves.extend_from_slice(payload);
            return Some(id);
        }
        out.nodes.push(node);
        let left = self.copy_cut(at + 1, depth + 1, cut, out)?;
        let right = self.copy_cut(node.right as usize, depth + 1, cut, out)?;
        out.nodes[id] = Node::split(id, node.feature as usize, node.threshold, left, right);
        Some(id)
    }

    /// The leaf payload of a row given its values (`row[f]` for feature `f`).
    fn leaf_of(&self, row: &[f64]) -> &[f64] {
        let (mut at, mut node) = (0, self.nodes[0]);
        while !node.is_leaf() {
            at = node.next(at, row[node.feature as usize]);
            node = self.nodes[at as usize];
        }
        &self.leaves[node.payload()..][..self.width]
    }
}

/// Forest hyper-parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct HistParams {
    pub n_trees: usize,
    pub max_depth: Option<u16>,
    pub min_samples_leaf: usize,
    pub max_features: usize,
    /// Each tree on a bootstrap sample (a forest) or on every row once (a
    /// decision tree).
    pub bootstrap: bool,
    /// Keep the payloads of the nodes that split at depths up to this
    /// one, so that the trees can be cut there ([`Tree::cut`]).
    pub keep_inner: Option<u16>,
}

/// What the trees are grown on: the binned training rows and their target.
#[derive(Clone, Copy)]
struct Training<'a> {
    bins: &'a Bins,
    /// Training rows.
    n: usize,
    y_class: &'a [usize],
    y_value: &'a [f64],
    kind: Kind,
}

/// How a tree's split search is carried out (never what it finds).
#[derive(Clone, Copy)]
struct Search {
    /// Nodes of at least this many rows take the batched histogram path.
    batch_min_rows: usize,
    /// Trees whose nodes try every feature scan presorted rows.
    presort: bool,
    /// Batched nodes sort the rows of candidates with more bins than the
    /// node has rows instead of building their histograms.
    sort_wide: bool,
    /// Class nodes count a two-bin candidate's upper bin, and with two
    /// classes every candidate's histogram in packed integers.
    count_binary: bool,
    /// Two-class trees that count every candidate keep their rows'
    /// records in node order, when the table has records.
    records: bool,
    /// Nodes of two rows compare each candidate's two bins and search
    /// only the first of each order.
    two_rows: bool,
    /// Class nodes search no candidate after a cut none can beat (the
    /// best grouping of their classes).
    stop_unbeatable: bool,
    /// Nodes sort their rows by a candidate's bins through its row order
    /// ([`RowOrder`]) when the table has row orders.
    row_order: bool,
}

impl Search {
    const FASTEST: Search = Search {
        batch_min_rows: grow::BATCH_MIN_ROWS,
        presort: true,
        sort_wide: true,
        count_binary: true,
        records: true,
        two_rows: true,
        stop_unbeatable: true,
        row_order: true,
    };
}

/// `rng.random_range(low..high)`: the same number from the same stream,
/// inlined. A bootstrap sample is a draw per training row and a node draws
/// each candidate (a value tree, all of them); rand's sampler is a call per
/// draw. For ranges below 2^32 rand multiplies one 32-bit draw by the
/// range and draws a second only when the first's low half falls in the
/// biased zone (its single-sample method, which `random_range` uses);
/// larger ranges are left to rand. Test `draws_are_rands_draws` pins the
/// equality, so a change of rand's method fails it rather than changing
/// the trees.
#[inline]
fn draw(rng: &mut SeedRng, low: usize, high: usize) -> usize {
    let Ok(range) = u32::try_from(high - low) else {
        return rng.random_range(low..high);
    };
    let m = u64::from(rng.next_u32()) * u64::from(range);
    let (mut result, lo) = ((m >> 32) as u32, m as u32);
    if lo > range.wrapping_neg() {
        let new_hi = ((u64::from(rng.next_u32()) * u64::from(range)) >> 32) as u32;
        result += u32::from(lo.checked_add(new_hi).is_none());
    }
    low + result as usize
}

/// [`grow_logged`]'s trees, neither logging nor replaying.
#[cfg(test)]
fn grow_trees(
    t: &Training<'_>,
    p: HistParams,
    seed: u64,
    deadline: Option<(Instant, std::time::Duration)>,
    search: Search,
) -> Result<Vec<Tree>> {
    Ok(grow_logged(t, p, seed, deadline, search, Logs::default())?.0)
}

/// Split searches logged by the trees of a forest, for a forest of larger
/// leaves to replay (see [`grow::Searched`]).
#[derive(Clone, Copy, Default)]
struct Logs<'a> {
    /// Log each tree's searches.
    keep: bool,
    /// Each tree's logged searches (its place: the `i`-th tree replays
    /// the `i`-th log), from a forest of this one's seed, matrix, target,
    /// candidates and sampling, with smaller leaves.
    replay: &'a [Vec<grow::Searched>],
}

/// Grows `p.n_trees` trees, each from its own seed drawn from `seed`, in
/// index order whatever the thread count; logging each tree's searches
/// when `logs.keep`, and replaying `logs.replay` where it may (the same
/// trees).
fn grow_logged(
    t: &Training<'_>,
    p: HistParams,
    seed: u64,
    deadline: Option<(Instant, std::time::Duration)>,
    search: Search,
    logs: Logs<'_>,
) -> Result<(Vec<Tree>, Vec<Vec<grow::Searched>>)> {
    let Training { bins, n, y_class, y_value, kind } = *t;
    let mut seeder = rng_for(seed, "hist_forest");
    let seeds: Vec<u64> = (0..p.n_trees).map(|_| seeder.random()).collect();
    // Each thread reuses its buffers across the trees it grows.
    let grown: Vec<(Tree, Vec<grow::Searched>)> = seeds
        .par_iter()
        .enumerate()
        .map_init(grow::Scratch::default, |scratch, (i, &s)| {
            if let Some((at, limit)) = deadline
                && Instant::now() >= at
            {
                return Err(Error::TimeLimit { limit });
            }
            let mut rng = rng_for(s, "tree");
            let (mut w, mut rows) = (std::mem::take(&mut scratch.w), std::mem::take(&mut scratch.rows));
            w.clear();
            w.resize(n, u32::from(!p.bootstrap));
            if p.bootstrap {
                for _ in 0..n {
                    w[draw(&mut rng, 0, n)] += 1;
                }
            }
            // The rows drawn, listed without a branch per row (which rows
            // a bootstrap draws is as good as random to the processor).
            rows.clear();
            rows.resize(n, 0);
            let mut k = 0;
            for (r, &weight) in w.iter().enumerate() {
                rows[k] = r as u32;
                k += usize::from(weight > 0);
            }
            rows.truncate(k);
            let mut g = Grower::new(bins, y_class, y_value, kind, p, s, std::mem::take(scratch));
            g.batch_min_rows = search.batch_min_rows;
            g.presort = search.presort;
            g.sort_wide = search.sort_wide;
            g.count_binary = search.count_binary;
            g.records = search.records;
            g.two_rows = search.two_rows;
            g.stop_unbeatable = search.stop_unbeatable;
            g.row_order = search.row_order;
            g.log = logs.keep.then(Vec::new);
            g.replay = logs.replay.get(i).map_or(&[], Vec::as_slice);
            g.grow_tree(&mut rows, &w);
            let mut log = g.log.take().unwrap_or_default();
            grow::sort_log(&mut log);
            let tree = g.finish(scratch);
            (scratch.w, scratch.rows) = (w, rows);
            Ok((tree, log))
        })
        .collect::<Result<_>>()?;
    Ok(grown.into_iter().unzip())
}

#[cfg(test)]
mod tests;
