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
mod grow;
mod predict;
mod row_order;
mod scan;
mod shared;

use super::Data;
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

/// Grows the forest and returns each test row's mean leaf payload.
fn forest(d: &Data<'_>, y_class: &[usize], y_value: &[f64], kind: Kind, p: HistParams) -> Result<Array2<f64>> {
    let (x, x_test) = (d.x, d.x_test);
    let start = Instant::now();
    if x.nrows() < 2 {
        return Err(Error::TooFewRows { what: "hist_forest".into(), needed: 2, found: x.nrows() });
    }
    if !indices_fit(x.nrows(), x.ncols(), kind.width()) {
        let message = format!("{} rows of {} features: more than its 32-bit node indices hold", x.nrows(), x.ncols());
        return Err(Error::Model { model: "hist_forest", message });
    }
    let fitted;
    let bins = match d.bins {
        Some(shared) => shared.0.get_or_init(|| Bins::fit(x, d.columns)),
        None => {
            fitted = Bins::fit(x, d.columns);
            &fitted
        }
    };
    let training = Training { bins, n: x.nrows(), y_class, y_value, kind };
    // A forest of larger leaves replays the searches a shared forest of
    // its seed logged, where it may (see [`grow::Searched`]).
    let replay = d.forests.and_then(|s| s.cache.replay_for((d.seed, p, kind), (y_class, y_value)));
    let logs = |keep| Logs { keep, replay: replay.as_deref().map_or(&[], Vec::as_slice) };
    let grow = |p: HistParams, keep| grow_logged(&training, p, d.seed, d.clock.deadline, Search::FASTEST, logs(keep));
    // A forest whose trees are a prefix of a shared one's, or that
    // prefix cut at its depth, reads them (see [`SharedForests`]); any
    // other grows its own.
    let deadline = d.clock.deadline.is_some();
    let shared = d.forests.and_then(|s| {
        s.forest((d.seed, p, kind), (y_class, y_value), deadline, |params, keep| grow(params, keep).ok())
    });
    // A shallower member's trees are the shared ones cut at its depth.
    let cut: Option<Vec<Tree>> = match &shared {
        Some((all, Some(depth))) => all[..p.n_trees].iter().map(|t| t.cut(*depth)).collect(),
        _ => None,
    };
    let own;
    let trees: &[Tree] = match (&shared, &cut) {
        (Some((all, None)), _) => &all[..p.n_trees],
        (Some(_), Some(cut)) => cut,
        _ => {
            own = grow(p, false)?.0;
            &own
        }
    };
    d.clock.add_fit(start.elapsed());
    let start = Instant::now();
    let width = x.ncols();
    let test = x_test.as_standard_layout();
    let test = test.as_slice().unwrap_or_default();
    let out_width = kind.width();
    let order = predict::Order::for_forest(trees, width, x_test.nrows());
    let dims = (width, x_test.nrows());
    // Trees read as grown from a shared forest add to the sums of the
    // longest prefix of them already added up (see [`SharedForests`]).
    let from_prefix = match (&shared, d.forests) {
        (Some((all, None)), Some(share)) => share.cache.leaf_sums(all, x_test, p.n_trees, |from, start| {
            let start = start.unwrap_or_else(|| vec![0.0; x_test.nrows() * out_width]);
            predict::add_leaf_sums(&all[from..p.n_trees], test, dims, out_width, order, start)
        }),
        _ => None,
    };
    let sums = from_prefix.unwrap_or_else(|| predict::leaf_sums(trees, test, dims, out_width, order));
    let mut out = Array2::from_shape_vec((x_test.nrows(), out_width), sums)
        .map_err(|e| Error::Model { model: "hist_forest", message: e.to_string() })?;
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

#[cfg(test)]
mod tests {
    use super::binning::*;
    use super::*;
    use sandmle_core::rng_for;

    /// 400 rows: two continuous features (many bins), two with few values,
    /// one constant; three classes and a noisy value target.
    fn fixture() -> (Array2<f64>, Vec<usize>, Vec<f64>) {
        let mut rng = rng_for(16, "fixture");
        let x = Array2::from_shape_fn((400, 5), |(_, j)| match j {
            0 | 1 => rng.random_range(-3.0..3.0),
            2 => f64::from(rng.random_range(0..4u8)),
            3 => f64::from(rng.random_range(0..2u8)),
            _ => 1.0,
        });
        let classes = x.rows().into_iter().map(|r| usize::from(r[0] + r[2] > 1.0) + usize::from(r[1] > 1.5)).collect();
        let values = x.rows().into_iter().map(|r| r[0] * r[0] + 3.0 * r[3] + rng.random_range(-0.5..0.5)).collect();
        (x, classes, values)
    }

    fn params(max_features: usize) -> HistParams {
        HistParams { n_trees: 8, max_depth: None, min_samples_leaf: 1, max_features, bootstrap: true, keep_inner: None }
    }

    /// A node that holds only the values 0 and 10 of a feature whose
    /// training values are 0, 4, 6 and 10 (rows 4 and 6 out of the tree's
    /// bootstrap) splits at 5, midway between its own values, as
    /// scikit-learn's trees do: not at 2, the bin edge next to 0, which
    /// sent test values 2-5 to the side of 10.
    #[test]
    fn a_split_lies_midway_between_the_nodes_own_values() {
        let x = Array2::from_shape_vec((4, 1), vec![0.0, 4.0, 6.0, 10.0]).unwrap();
        let bins = Bins::fit(&x, None);
        let y = [0, 0, 1, 1];
        let mut g = Grower::new(&bins, &y, &[], Kind::Classes(2), params(1), 0, grow::Scratch::default());
        g.grow_tree(&mut [0, 3], &[1, 0, 0, 1]);
        let tree = g.finish(&mut grow::Scratch::default());
        let root = tree.nodes[0];
        assert!(!root.is_leaf() && root.feature == 0 && root.threshold == 5.0, "{:?}", tree.nodes);
        assert_eq!(tree.leaf_of(&[4.9]), &[1.0, 0.0]);
        assert_eq!(tree.leaf_of(&[5.1]), &[0.0, 1.0]);
    }

    /// [`draw`] takes the numbers `random_range` takes from the same
    /// stream: small and large ranges, offsets, and ranges near 2^31 and
    /// 2^32 whose biased zone (a second draw) is wide.
    #[test]
    fn draws_are_rands_draws() {
        let ranges =
            [(0, 1), (0, 2), (0, 3), (3, 10), (0, 1000), (0, 200_000), (5, (1 << 31) + 7), (0, u32::MAX as usize)];
        for (low, high) in ranges {
            let (mut ours, mut rands) = (rng_for(7, "draws"), rng_for(7, "draws"));
            for _ in 0..20_000 {
                assert_eq!(draw(&mut ours, low, high), rands.random_range(low..high), "{low}..{high}");
            }
        }
    }

    /// Columns come out whole and in order, across blocks (eleven columns
    /// are a block of eight and one of three) and from a matrix laid out
    /// column by column.
    #[test]
    fn each_column_is_gathered_whole_and_in_order() {
        let x = Array2::from_shape_fn((5, 11), |(i, j)| (10 * j + i) as f64);
        let by_column = x.t().as_standard_layout().t().to_owned();
        assert!(by_column.as_slice().is_none(), "laid out column by column");
        for x in [x, by_column] {
            let mut seen = Vec::new();
            for_each_column(&x, |col| seen.push(col.to_vec()));
            let columns: Vec<Vec<f64>> = x.columns().into_iter().map(|c| c.to_vec()).collect();
            assert_eq!(seen, columns);
        }
    }

    /// Columns are binned without a sort: the same edges as sorting
    /// finds, on few values (one-hot, `-0.0` beside `0.0`, exactly
    /// [`MAX_BINS`] values), on many (one more, continuous, 400 values
    /// with duplicates), and left to the sort with a NaN or with zeros of
    /// both signs making [`MAX_BINS`] values of one more bit pattern.
    #[test]
    fn columns_get_the_edges_sorting_gives() {
        let mut rng = rng_for(3, "few_distinct");
        let n = 2000;
        let columns: Vec<Vec<f64>> = vec![
            (0..n).map(|_| f64::from(rng.random_range(0..2u8))).collect(),
            (0..n).map(|_| [-0.0, 0.0, 1.5][rng.random_range(0..3usize)]).collect(),
            (0..n).map(|i| (i % MAX_BINS) as f64 * 0.25 - 3.0).collect(),
            (0..n).map(|i| (i % (MAX_BINS + 1)) as f64).collect(),
            (0..n).map(|_| rng.random_range(-1.0..1.0)).collect(),
            (0..n).map(|i| ((i * 7919) % 400) as f64 * 0.5).collect(),
            (0..n).map(|i| if i == 7 { f64::NAN } else { f64::from(rng.random_range(0..4u8)) }).collect(),
            (0..n).map(|i| if i % 256 == 255 { -0.0 } else { (i % 256) as f64 }).collect(),
        ];
        for (k, col) in columns.iter().enumerate() {
            let edges = match distinct_values(col) {
                Distinct::Few(d, _) => {
                    assert!(k < 3, "column {k}: the pass finds few values");
                    midpoints(&d)
                }
                Distinct::Many => {
                    assert!((3..6).contains(&k), "column {k}: the pass finds many values");
                    quantile_cuts(col)
                }
                Distinct::Unsure => {
                    assert!(k >= 6, "column {k}: the pass leaves it to the sort");
                    sorted_edges(col)
                }
            };
            let sorted = sorted_edges(col);
            assert_eq!(edges.len(), sorted.len(), "column {k}");
            assert!(edges.iter().zip(&sorted).all(|(a, b)| a.to_bits() == b.to_bits()), "column {k}");
        }
        assert_eq!(sorted_edges(&columns[0]), vec![0.5]);
    }

    /// Selection finds every quantile place's value a sort finds, on
    /// distinct values and on values with duplicates, from 256 rows up.
    #[test]
    fn selected_quantiles_are_the_sorted_ones() {
        let mut rng = rng_for(5, "quantiles");
        for n in [256, 257, 300, 1000, 4099] {
            for distinct in [n, 300] {
                let col: Vec<f64> = (0..n).map(|_| f64::from(rng.random_range(0..distinct as u32)) * 0.37).collect();
                let mut sorted = col.clone();
                sorted.sort_unstable_by(f64::total_cmp);
                let mut expected: Vec<f64> = (1..MAX_BINS).map(|i| sorted[i * n / MAX_BINS]).collect();
                expected.dedup();
                assert_eq!(quantile_cuts(&col), expected, "{n} rows of {distinct} values");
            }
        }
    }

    /// Each bin's least and greatest value are its rows', whichever way
    /// the column was binned: one value per bin, `-0.0` and `0.0` in one
    /// bin, two neighbouring floats whose midpoint rounds up to the second
    /// (one bin holds both), and quantile bins.
    #[test]
    fn bins_hold_the_least_and_greatest_value_of_their_rows() {
        let one = 1.0f64;
        let (a, b) = (f64::from_bits(one.to_bits() + 1), f64::from_bits(one.to_bits() + 2));
        assert_eq!(midpoints(&[a, b]), vec![b], "the midpoint rounds up");
        let mut rng = rng_for(4, "bin_bounds");
        let x = Array2::from_shape_fn((600, 4), |(i, j)| match j {
            0 => f64::from(rng.random_range(0..2u8)),
            1 => [-0.0, 0.0, 1.5][i % 3],
            2 => [a, b, 5.0][i % 3],
            _ => rng.random_range(-1.0..1.0),
        });
        let bins = Bins::fit(&x, None);
        for (f, col) in x.columns().into_iter().enumerate() {
            let n = bins.edges[f].len() + 1;
            let (mut lo, mut hi) = (vec![f64::INFINITY; n], vec![f64::NEG_INFINITY; n]);
            for (&v, &c) in col.iter().zip(&bins.codes[f]) {
                lo[c as usize] = lo[c as usize].min(v);
                hi[c as usize] = hi[c as usize].max(v);
            }
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&bins.lo[f]), bits(&lo), "feature {f}");
            assert_eq!(bits(&bins.hi[f]), bits(&hi), "feature {f}");
        }
        assert_eq!(bins.codes[2][..3], [0, 0, 2], "the two neighbours share a bin, the next is empty");
    }

    /// The short routes give what the general ones give: a column's
    /// patterns when it has at most two (zeros of both signs, infinities,
    /// a NaN, long runs, a third value late in the column) or at most
    /// [`MAX_BINS`] rows (sorted whole), and a two-bin column's codes
    /// (values on the edge, either side, NaN, infinities).
    #[test]
    fn short_routes_to_a_columns_patterns_and_codes_give_the_general_answers() {
        let mut rng = rng_for(6, "two_patterns");
        let specials = [0.0, -0.0, 1.0, -1.5, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-300];
        for case in 0..400 {
            let n = [1, 2, 255, 256, 257, 600][case % 6];
            let a = specials[rng.random_range(0..specials.len())];
            let b = specials[rng.random_range(0..specials.len())];
            let mut col: Vec<f64> = (0..n).map(|_| if rng.random_range(0..3) == 0 { b } else { a }).collect();
            if case % 5 == 0 {
                col[rng.random_range(0..n)] = 7.25;
            }
            if case % 7 == 0 {
                for v in col.iter_mut().step_by(3) {
                    *v = specials[rng.random_range(0..specials.len())] + f64::from(rng.random_range(0..40u8));
                }
            }
            let short = two_patterns(&col);
            let general = inserted_patterns(&col);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            if n <= MAX_BINS {
                // Short columns are sorted whole: the same patterns.
                match (sorted_patterns(&col), &general) {
                    (Ok(a), Ok(b)) => assert_eq!(bits(&a), bits(b), "{col:?}"),
                    (Err(Distinct::Unsure), Err(Distinct::Unsure)) => {}
                    _ => panic!("sorted and inserted patterns disagree on {col:?}"),
                }
            }
            if let Some(set) = &short {
                assert_eq!(bits(set), bits(general.as_ref().ok().unwrap()), "{col:?}");
            } else {
                // Left to the loop: a NaN or a third pattern.
                let mut patterns: Vec<u64> = col.iter().map(|x| x.to_bits()).collect();
                patterns.sort_unstable();
                patterns.dedup();
                assert!(col.iter().any(|x| x.is_nan()) || patterns.len() > 2, "{col:?}");
            }
            let edges: Vec<Vec<f64>> = vec![vec![], vec![a], vec![1.0], vec![-0.0], vec![-1.5, 1.0]];
            for e in edges.iter().filter(|e| e.iter().all(|t| !t.is_nan())) {
                let want: Vec<u8> = col.iter().map(|&v| e.partition_point(|&t| t < v) as u8).collect();
                assert_eq!(bin_codes(&col, e), want, "{e:?}");
            }
        }
    }

    /// A short column's bins from one sort of its rows are the general
    /// route's, bit for bit, and the sort declines what it cannot rank
    /// (zeros of both signs, a NaN, an infinity's NaN midpoint,
    /// neighbouring floats whose midpoint rounds up, long columns); on
    /// columns of continuous values, small integers and two values it
    /// answers.
    #[test]
    fn short_columns_ranked_in_one_sort_bin_as_the_general_route() {
        let mut rng = rng_for(7, "ranked_bins");
        let one = 1.0f64;
        let (a, b) = (f64::from_bits(one.to_bits() + 1), f64::from_bits(one.to_bits() + 2));
        let specials = [0.0, -0.0, 1.0, -1.5, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-300, a, b];
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let mut answered = 0;
        for case in 0..600 {
            let n = [1, 2, 3, 50, 200, 255, 256][case % 7];
            let mut col: Vec<f64> = match case % 4 {
                0 => (0..n).map(|_| rng.random_range(-3.0..3.0)).collect(),
                1 => (0..n).map(|_| f64::from(rng.random_range(0..9u8))).collect(),
                2 => (0..n).map(|_| f64::from(rng.random_range(0..2u8))).collect(),
                _ => (0..n).map(|_| specials[rng.random_range(0..specials.len())]).collect(),
            };
            if case % 9 == 0 {
                col[rng.random_range(0..n)] = specials[rng.random_range(0..specials.len())];
            }
            let general = column_bins(&col);
            match ranked_bins(&col) {
                Some((e, c, values)) => {
                    answered += 1;
                    assert_eq!(bits(&e), bits(&general.0), "edges of {col:?}");
                    assert_eq!(c, general.1, "codes of {col:?}");
                    assert_eq!(bits(&values), bits(&general.2), "least values of {col:?}");
                    assert_eq!(bits(&values), bits(&general.3), "greatest values of {col:?}");
                }
                None => assert!(
                    n > MAX_BINS
                        || col.iter().any(|v| !v.is_finite())
                        || (col.contains(&0.0) && col.iter().any(|v| v.to_bits() != 0.0f64.to_bits() && *v == 0.0))
                        || (col.contains(&a) && col.contains(&b)),
                    "declined {col:?}"
                ),
            }
        }
        assert!(answered > 350, "{answered} of 600 columns ranked");
        assert_eq!(ranked_bins(&[a, b, 2.0]), None, "the midpoint of two neighbours rounds onto the second");
        assert_eq!(ranked_bins(&[-0.0, 0.0, 1.0]), None, "zeros of both signs are one value to the general route");
    }

    /// Binning the caller's columns gives what binning the matrix gives,
    /// and columns that are not the matrix's shape are not read; the
    /// codes laid out row by row on first use are the row-major ones.
    #[test]
    fn bins_of_the_callers_columns_are_the_matrixs_bins() {
        let mut rng = rng_for(5, "caller_columns");
        let x = Array2::from_shape_fn((700, 12), |(i, j)| match j % 4 {
            0 => f64::from(rng.random_range(0..2u8)),
            1 => (i % 7) as f64,
            2 => rng.random_range(-1.0..1.0),
            _ => f64::from(i == 3 * j),
        });
        let owned: Vec<Vec<f64>> = x.columns().into_iter().map(|c| c.to_vec()).collect();
        let columns: Vec<&[f64]> = owned.iter().map(Vec::as_slice).collect();
        let key = |b: &Bins| {
            let bits = |v: &[Vec<f64>]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
            (
                b.codes.clone(),
                bits(&b.edges),
                bits(&b.lo),
                bits(&b.hi),
                b.records.as_ref().map(|r| (r.places.clone(), r.rows.clone())),
            )
        };
        let from_matrix = Bins::fit(&x, None);
        assert!(from_matrix.records.is_some(), "the twelve features fit in a record");
        assert_eq!(key(&Bins::fit(&x, Some(&columns))), key(&from_matrix));
        // A column short, or one too few: the matrix is binned instead.
        let short: Vec<&[f64]> = columns.iter().map(|c| &c[1..]).collect();
        assert_eq!(key(&Bins::fit(&x, Some(&short))), key(&from_matrix));
        assert_eq!(key(&Bins::fit(&x, Some(&columns[1..]))), key(&from_matrix));
        let row_major: Vec<u8> = (0..x.nrows())
            .flat_map(|r| (0..x.ncols()).map(move |f| (r, f)))
            .map(|(r, f)| from_matrix.codes[f][r])
            .collect();
        assert_eq!(from_matrix.row_codes(), row_major.as_slice());
    }

    /// Quantile bins (more distinct values than bins) cut between the
    /// largest value of the left bin and the smallest of the right one.
    #[test]
    fn quantile_bins_cut_between_the_values_they_hold() {
        let x = Array2::from_shape_fn((1000, 1), |(i, _)| i as f64);
        let bins = Bins::fit(&x, None);
        assert!(bins.edges[0].len() < 999, "quantile bins");
        let (l, r) = (bins.codes[0][100], bins.codes[0][900]);
        let t = bins.threshold(0, l, r);
        assert_eq!(t, (bins.hi[0][l as usize] + bins.lo[0][r as usize]) / 2.0);
        assert!(bins.hi[0][l as usize] >= 100.0 && bins.lo[0][r as usize] <= 900.0 && t > 100.0 && t < 900.0);
    }

    /// A cut between a bin holding only -inf and one holding only +inf
    /// (a node of quantile bins can hold just those rows): the midpoint is
    /// NaN, which marks a leaf, so the threshold is the left value, which
    /// sends each value's rows where the fit sent them.
    #[test]
    fn a_cut_between_minus_and_plus_infinity_is_a_split_not_a_leaf() {
        let inf = f64::INFINITY;
        let bins = Bins {
            codes: vec![vec![0, 1]],
            row_codes: OnceLock::new(),
            row_order: OnceLock::new(),
            edges: vec![vec![0.0]],
            lo: vec![vec![-inf, inf]],
            hi: vec![vec![-inf, inf]],
            records: None,
        };
        let t = bins.threshold(0, 0, 1);
        assert_eq!(t, -inf);
        let split = Node::split(0, 0, t, 1, 2);
        assert!(!split.is_leaf());
        assert_eq!((split.next(0, -inf), split.next(0, inf)), (1, 2));
        // A leaf keeps its payload's place and stays put.
        let leaf = Node::leaf(7, 123_456_789);
        assert!(leaf.is_leaf() && leaf.payload() == 123_456_789);
        assert_eq!((leaf.next(7, -inf), leaf.next(7, f64::NAN), leaf.next(7, 0.0)), (7, 7, 7));
        assert_eq!(std::mem::size_of::<Node>(), 16);
    }

    /// Rows walked eight at a time reach the leaves a row-by-row walk
    /// reaches, whatever the number of rows (a partial last block, one row).
    #[test]
    fn walking_rows_in_lockstep_finds_each_rows_own_leaf() {
        let (x, classes, values) = fixture();
        let bins = Bins::fit(&x, None);
        for kind in [Kind::Classes(3), Kind::Values] {
            let training = Training { bins: &bins, n: 400, y_class: &classes, y_value: &values, kind };
            let trees = grow_trees(&training, params(2), 11, None, Search::FASTEST).unwrap();
            // Test rows between and beyond the training values, NaN included.
            let mut rng = rng_for(5, "test rows");
            for rows in [1, 7, 8, 9, 13, 64, 101] {
                let test: Vec<f64> =
                    (0..rows * 5).map(|i| if i % 37 == 3 { f64::NAN } else { rng.random_range(-4.0..4.0) }).collect();
                for tree in &trees {
                    let mut walked = vec![0.0; rows * tree.width];
                    predict::add_leaves(tree, &test, 5, &mut walked);
                    let one_by_one: Vec<f64> = test.chunks(5).flat_map(|row| tree.leaf_of(row).to_vec()).collect();
                    assert_eq!(walked, one_by_one, "{rows} rows");
                }
            }
        }
    }

    /// A tree's node indices, features and leaf places are 32 bits: the
    /// forest takes tables whose every index fits below the split marker,
    /// and refuses the others with an error rather than wrapping them.
    #[test]
    fn forests_refuse_tables_whose_indices_need_more_than_32_bits() {
        assert!(indices_fit(1 << 30, 48, 2));
        assert!(indices_fit(1 << 30, 48, 1), "nodes: fewer than twice the rows");
        assert!(!indices_fit(1 << 31, 48, 2));
        assert!(!indices_fit(1 << 29, 5, 10), "ten classes a leaf");
        assert!(!indices_fit(10, u32::MAX as usize, 2), "features");
        assert!(!indices_fit(usize::MAX, 1, 2), "no overflow");
    }

    /// Blocks of test rows walked through every tree in turn add each
    /// row's leaves in the same order as trees walked one at a time, so
    /// the sums are the same bit for bit, whatever the block size.
    #[test]
    fn blocks_of_rows_and_tree_by_tree_give_the_same_sums() {
        let (x, classes, values) = fixture();
        let bins = Bins::fit(&x, None);
        let mut rng = rng_for(9, "test rows");
        let test: Vec<f64> = (0..101 * 5).map(|_| rng.random_range(-4.0..4.0)).collect();
        for kind in [Kind::Classes(3), Kind::Values] {
            let training = Training { bins: &bins, n: 400, y_class: &classes, y_value: &values, kind };
            let trees = grow_trees(&training, params(2), 5, None, Search::FASTEST).unwrap();
            let sums = |order| predict::leaf_sums(&trees, &test, (5, 101), kind.width(), order);
            let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
            let by_tree = bits(sums(predict::Order::ByTree));
            assert!(by_tree.iter().any(|&b| b != 0));
            for block in [1, 7, 8, 64, 101, 1000] {
                assert_eq!(bits(sums(predict::Order::ByRows(block))), by_tree, "blocks of {block}");
            }
        }
        // The fixture's forest is small: it walks many rows by blocks, rows
        // that fit in cache tree by tree.
        let training = Training { bins: &bins, n: 400, y_class: &classes, y_value: &values, kind: Kind::Values };
        let trees = grow_trees(&training, params(2), 5, None, Search::FASTEST).unwrap();
        assert!(matches!(predict::Order::for_forest(&trees, 5, 100_000), predict::Order::ByRows(_)));
        assert_eq!(predict::Order::for_forest(&trees, 5, 20_000), predict::Order::ByTree);
        assert_eq!(predict::Order::for_forest(&trees, 0, 100_000), predict::Order::ByTree);
    }

    #[test]
    fn batched_histograms_and_presorted_rows_grow_the_trees_the_per_feature_scan_grows() {
        let (x, classes, values) = fixture();
        let bins = Bins::fit(&x, None);
        // Two classes take the packed integer counts.
        let two: Vec<usize> = classes.iter().map(|&c| usize::from(c > 0)).collect();
        let cases = [
            (Kind::Classes(3), 2),
            (Kind::Classes(3), 5),
            (Kind::Classes(2), 2),
            (Kind::Classes(2), 5),
            (Kind::Values, 5),
            (Kind::Values, 1),
        ];
        for (kind, max_features) in cases {
            let y_class = if let Kind::Classes(2) = kind { &two } else { &classes };
            let training = Training { bins: &bins, n: 400, y_class, y_value: &values, kind };
            // Presorted trees take the two-row shortcut, the others search
            // every candidate.
            let grow_with = |batch_min_rows, presort, sort_wide, count_binary, stop_unbeatable, row_order| {
                let two_rows = presort;
                let records = false;
                let search = Search {
                    batch_min_rows,
                    presort,
                    sort_wide,
                    count_binary,
                    records,
                    two_rows,
                    stop_unbeatable,
                    row_order,
                };
                grow_trees(&training, params(max_features), 7, None, search).unwrap()
            };
            let grow = |batch_min_rows, presort, sort_wide, count_binary| {
                grow_with(batch_min_rows, presort, sort_wide, count_binary, true, true)
            };
            // Every candidate of every node searched, the plain way.
            let scan = grow_with(usize::MAX, false, true, false, false, false);
            assert!(scan.iter().all(|t| t.nodes.len() > 20), "the fixture grows real trees");
            // Features 0 and 1 have more bins than most nodes have rows,
            // features 2-4 at most four, feature 3 two.
            for count in [false, true] {
                let case = format!("{max_features} features, integer counts {count}");
                assert_eq!(scan, grow(usize::MAX, false, true, count), "{case}: every node sorted");
                assert_eq!(
                    scan,
                    grow_with(usize::MAX, false, true, count, true, false),
                    "{case}: every node sorted by ranks or counts"
                );
                assert_eq!(scan, grow(0, false, false, count), "{case}: every node batched, every histogram");
                assert_eq!(
                    scan,
                    grow(0, false, true, count),
                    "{case}: every node batched, wide ones sorted (float counts)"
                );
                assert_eq!(scan, grow(grow::BATCH_MIN_ROWS, false, true, count), "{case}: large nodes batched");
                // Presorted rows (taken when every feature is tried).
                assert_eq!(scan, grow(grow::BATCH_MIN_ROWS, true, true, count), "{case}: presorted");
                let records = grow_trees(&training, params(max_features), 7, None, Search::FASTEST).unwrap();
                assert_eq!(scan, records, "{case}: the fastest search, row records for two classes");
            }
        }
        assert!(bins.records.is_some(), "the fixture's five features fit in a record");
        // A leaf minimum of two: a two-row node with a row of weight one
        // has one side too light.
        let training = Training { bins: &bins, n: 400, y_class: &classes, y_value: &values, kind: Kind::Values };
        let p = HistParams { min_samples_leaf: 2, ..params(5) };
        let scan = Search { presort: false, two_rows: false, ..Search::FASTEST };
        let grow = |search| grow_trees(&training, p, 9, None, search).unwrap();
        assert_eq!(grow(scan), grow(Search { presort: false, ..Search::FASTEST }), "leaf minimum 2, two rows");
        assert_eq!(grow(scan), grow(Search::FASTEST), "leaf minimum 2, presorted");
        // Without bootstrap (a decision tree), every row once.
        for kind in [Kind::Classes(3), Kind::Values] {
            let training = Training { bins: &bins, n: 400, y_class: &classes, y_value: &values, kind };
            let p = HistParams { bootstrap: false, n_trees: 2, ..params(5) };
            let grow = |presort| grow_trees(&training, p, 3, None, Search { presort, ..Search::FASTEST }).unwrap();
            assert_eq!(grow(false), grow(true));
        }
    }

    /// A two-class node with at least two rows a bin for a feature counts
    /// its packed histogram, lists every bin and zeroes them after; a
    /// smaller node marks the bins it occupies and zeroes those alone.
    /// Nodes of both kinds, on features of 255, 40 and 2 bins one after
    /// another, grow the trees the per-feature float scan grows (the
    /// fixture of 400 rows never takes the whole listing for a wide
    /// feature).
    #[test]
    fn packed_counts_listed_whole_or_by_marks_grow_the_scanned_trees() {
        let mut rng = rng_for(17, "packed fixture");
        let x = Array2::from_shape_fn((2000, 3), |(_, j)| match j {
            0 => rng.random_range(-3.0..3.0),
            1 => f64::from(rng.random_range(0..40u8)),
            _ => f64::from(rng.random_range(0..2u8)),
        });
        // A rule over all three features, one label in ten flipped: deep
        // trees with nodes of every size.
        let two: Vec<usize> = x
            .rows()
            .into_iter()
            .map(|r| usize::from(r[0] + r[1] / 10.0 + r[2] > 2.0) ^ usize::from(rng.random_range(0..10u8) == 0))
            .collect();
        let bins = Bins::fit(&x, None);
        assert_eq!(bins.edges.iter().map(|e| e.len() + 1).collect::<Vec<_>>(), [255, 40, 2]);
        let training = Training { bins: &bins, n: 2000, y_class: &two, y_value: &[], kind: Kind::Classes(2) };
        let scan_search = Search {
            batch_min_rows: usize::MAX,
            presort: false,
            sort_wide: false,
            count_binary: false,
            records: false,
            two_rows: false,
            stop_unbeatable: false,
            row_order: false,
        };
        for max_features in [1, 3] {
            let grow = |search| grow_trees(&training, params(max_features), 5, None, search).unwrap();
            let scan = grow(scan_search);
            assert!(scan.iter().all(|t| t.nodes.len() > 100), "the fixture grows deep trees");
            let counts = Search { count_binary: true, ..scan_search };
            assert_eq!(scan, grow(counts), "{max_features} features, packed counts per feature");
            assert_eq!(scan, grow(Search::FASTEST), "{max_features} features, the fastest search");
        }
    }

    /// Two classes over one-hot columns (a byte shared by eight features),
    /// a flag and two continuous features: the trees grown over row
    /// records in node order are the trees the per-feature counts grow,
    /// at every node size and number of candidates.
    #[test]
    fn row_records_grow_the_trees_the_per_feature_counts_grow() {
        let mut rng = rng_for(3, "one-hot fixture");
        let x = Array2::from_shape_fn((600, 11), |(i, j)| match j {
            0 => rng.random_range(-3.0..3.0),
            1..=8 => f64::from(u8::from((i * 7 + i / 5) % 8 == j - 1)),
            9 => f64::from(rng.random_range(0..2u8)),
            _ => f64::from(rng.random_range(0..40u8)),
        });
        let y: Vec<usize> = x
            .rows()
            .into_iter()
            .map(|r| usize::from(r[0] + r[3] + r[5] - r[9] + r[10] / 20.0 + rng.random_range(-1.0..1.0) > 1.0))
            .collect();
        let bins = Bins::fit(&x, None);
        let records = bins.records.as_ref().expect("four bytes");
        assert_eq!(records.places[1..=8].iter().filter(|p| matches!(p, grow::Place::Member(1, _))).count(), 8);
        let training = Training { bins: &bins, n: 600, y_class: &y, y_value: &[], kind: Kind::Classes(2) };
        for (max_features, bootstrap) in [(1, true), (3, true), (11, true), (3, false)] {
            let p = HistParams { min_samples_leaf: 1 + max_features % 3, bootstrap, ..params(max_features) };
            let grow = |records| grow_trees(&training, p, 21, None, Search { records, ..Search::FASTEST }).unwrap();
            let per_feature = grow(false);
            assert!(per_feature.iter().all(|t| t.nodes.len() > 30), "the fixture grows real trees");
            assert_eq!(grow(true), per_feature, "{max_features} candidates, bootstrap {bootstrap}");
        }
        // A table without two-bin features: records without groups.
        let (x, classes, _) = fixture();
        let x = x.select(ndarray::Axis(1), &[0, 1, 2, 4]);
        let two: Vec<usize> = classes.iter().map(|&c| usize::from(c > 0)).collect();
        let bins = Bins::fit(&x, None);
        assert!(bins.records.as_ref().is_some_and(|r| r.places.iter().all(|p| matches!(p, grow::Place::Bin(_)))));
        let training = Training { bins: &bins, n: 400, y_class: &two, y_value: &[], kind: Kind::Classes(2) };
        let grow = |records| grow_trees(&training, params(2), 4, None, Search { records, ..Search::FASTEST }).unwrap();
        assert_eq!(grow(true), grow(false), "no groups");
    }

    /// Whether a node below node `at` (at depth `depth`) splits at depth
    /// `wanted`.
    fn splits_at(t: &Tree, at: usize, depth: u16, wanted: u16) -> bool {
        let node = t.nodes[at];
        !node.is_leaf()
            && (depth == wanted
                || splits_at(t, at + 1, depth + 1, wanted)
                || splits_at(t, node.right as usize, depth + 1, wanted))
    }

    /// With each node above [`grow::PLACED_DEPTHS`] drawing its candidates
    /// from its own place in its tree's stream, a tree grown to depth `d`
    /// (at most that) is the unlimited tree of
    /// its seed cut at `d`, node for node and payload for payload: for
    /// classes (two classes over row records included) and values,
    /// sampled candidates or all, leaf minimums, bootstrap or not, and
    /// cuts from the root down to [`grow::PLACED_DEPTHS`], past
    /// [`grow::CUT_DEPTHS`] (with one stream per depth above 6, cuts below
    /// 6 were not the trees grown).
    #[test]
    fn a_tree_grown_to_a_depth_is_the_unlimited_tree_cut_there() {
        let (x, classes, values) = fixture();
        let two: Vec<usize> = classes.iter().map(|&c| usize::from(c > 0)).collect();
        let bins = Bins::fit(&x, None);
        assert!(bins.records.is_some(), "two classes grow over row records");
        let (mut cuts, mut refused) = (0, 0);
        let kinds = [
            ("3 classes", Kind::Classes(3), &classes),
            ("2 classes", Kind::Classes(2), &two),
            ("values", Kind::Values, &classes),
        ];
        for (name, kind, y_class) in kinds {
            let training = Training { bins: &bins, n: 400, y_class, y_value: &values, kind };
            // Cuts at 7 and 8 end on split nodes of some tree of the kind.
            let mut splits_at_7 = false;
            for (max_features, min_samples_leaf, bootstrap) in [(2, 1, true), (5, 1, true), (3, 4, true), (5, 1, false)]
            {
                let p = HistParams { min_samples_leaf, bootstrap, n_trees: 4, ..params(max_features) };
                let deepest = HistParams { keep_inner: Some(8), ..p };
                let full = grow_trees(&training, deepest, 5, None, Search::FASTEST).unwrap();
                assert!(
                    full.iter().any(|t| t.cut(4).is_some_and(|c| c.nodes.len() < t.nodes.len())),
                    "{name}: deeper than 4"
                );
                splits_at_7 |= full.iter().any(|t| splits_at(t, 0, 0, 7));
                for depth in [0, 1, 2, 4, 6, 7, 8] {
                    let limited = HistParams { max_depth: Some(depth), ..p };
                    let grown = grow_trees(&training, limited, 5, None, Search::FASTEST).unwrap();
                    let cut: Vec<Tree> = full.iter().map(|t| t.cut(depth).unwrap()).collect();
                    let case = format!("{name}, {max_features} candidates, leaf {min_samples_leaf}, depth {depth}");
                    assert_eq!(cut, grown, "{case}");
                    cuts += 1;
                }
                // A cut where a node splits below the payloads kept (at
                // depth 9) is refused; one where none does is the tree.
                for t in &full {
                    assert_eq!(t.cut(9).is_none(), splits_at(t, 0, 0, 9), "{name}");
                    refused += usize::from(t.cut(9).is_none());
                }
            }
            assert!(splits_at_7, "{name}: some tree splits at depth 7");
        }
        assert_eq!(cuts, 84);
        assert!(refused > 0);
    }
}
