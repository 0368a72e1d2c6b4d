//! [`SharedForests`]: one forest grown for every member of a panel run
//! that takes a prefix of its trees.
//!
//! A forest's tree `i` grows from the `i`-th seed drawn from the forest's
//! seed, whatever the number of trees, and a test row adds its trees'
//! leaves in tree order from zero. So forests of 10, 30 and 100 trees of
//! one seed and shape are the first 10, 30 and 100 trees of one forest of
//! 100, and each one's prediction (its prefix's sums over its own count)
//! is the one it makes alone, bit for bit. The panel grows such a forest
//! once: the first member to need it grows as many trees as the most any
//! of them wants, and a member that comes after reads its prefix.
//!
//! Forests of one seed and shape but for a depth limit of at most
//! [`CUT_DEPTHS`] share too: each node above that depth draws from its
//! own place in its tree's stream, so a tree grown to depth `d` is the
//! deeper tree of its seed cut at depth `d`, node for node
//! ([`Tree::cut`](super::Tree)).
//! The forest is grown as deep as the deepest member wants (unlimited if
//! one is) and with as many trees as the most any member wants, keeping
//! the payloads of the nodes where the shallower members' cuts end, and
//! each of those reads its trees cut. Deeper limits share only with their
//! own. (A shallow member that wants more trees than the deep ones makes
//! the deep forest that large: the panel's depth-4 forest and its forest
//! of 100 have the same count.)
//!
//! A decision tree is a forest of one tree grown on every row, and shares
//! in the same way: the panel's trees of depth 1, 3 and 6 (one seed, one
//! leaf size) are one tree grown to depth 6, the other two its cuts.
//!
//! Members reading a prefix of the same trees also share their test rows'
//! leaf sums when they predict the matrix the cache was made for
//! ([`SharedForests::predicting`]): each row adds its leaves in tree
//! order from zero, so the sums of the first 30 trees are the sums of the
//! first 10 with trees 10 to 29 added, bit for bit, and a member starts
//! from the sums of the longest prefix already added up. The panel's
//! forests of 10, 30 and 100 trees walk 100 trees instead of 140.
//!
//! No member ever waits for another: a member that comes while the
//! forest is still growing grows its own trees, the same ones. Waiting
//! inside a rayon worker could deadlock (the growing member's worker,
//! waiting for its own trees, may run the waiting member's job), and would
//! park a worker either way. With one thread the members run in turn and
//! the forest is grown once; with more, at worst twice.
//!
//! A forest of the same seed and shape but for larger leaves (the panel's
//! forest of 100 with leaves of 5) draws the same bootstraps and, at every
//! node above [`PLACED_DEPTHS`](super::grow::PLACED_DEPTHS) the two share,
//! the same candidates, so where the shared forest's best cut leaves
//! enough weight on each side it is this forest's best cut too. The shared
//! forest logs its trees' split searches when such a member is planned,
//! and the member replays them where it may and searches elsewhere
//! ([`Searched`]): the trees it grows alone, in about 70 % of the time it
//! takes to search them all on an image task. A member that comes before
//! the log is kept searches every node.
//!
//! Only a fit without a deadline shares (the panel's): a member with a
//! deadline grows its own trees, within its own deadline.

use super::grow::{CUT_DEPTHS, Searched};
use super::{HistParams, Kind, Tree};
use crate::spec::{ModelSpec, PipelineSpec};
use ndarray::Array2;
use std::sync::{Arc, Mutex};

/// A shared forest: being grown by the member that came first, or grown
/// (`None` when growing it failed: each member then grows its own and
/// meets the failure itself).
enum Grown {
    Growing,
    Done(Option<Arc<Vec<Tree>>>),
}

/// Forests shared by the histogram forests of one panel run on the same
/// matrices and targets.
#[derive(Default)]
pub(crate) struct SharedForests {
    /// Per spec seed and forest shape (its tree count set to 0, and its
    /// depth limit to none when a cut can stand for it), what its members
    /// need grown.
    most: Vec<(u64, ModelSpec, Plan)>,
    /// The forests grown or growing, by what determines their trees.
    grown: Mutex<Vec<(Key, Grown)>>,
    /// The test matrix whose leaf sums are shared: its buffer's address
    /// and shape (see [`SharedForests::predicting`]).
    test: Option<(usize, usize, usize)>,
    /// Leaf sums of the test matrix over shared forests' first trees.
    sums: Mutex<Vec<PrefixSums>>,
    /// The split searches logged by shared forests that a member of larger
    /// leaves replays, by what determines them.
    logs: Mutex<Vec<(Key, ForestLogs)>>,
}

/// A shared forest's logged split searches, one list per tree.
type ForestLogs = Arc<Vec<Vec<Searched>>>;

/// The test matrix's leaf sums over a shared forest's first trees.
struct PrefixSums {
    /// The forest (its address, as [`Arc::as_ptr`] gives it).
    forest: usize,
    /// How many of its first trees are added up.
    trees: usize,
    sums: Arc<Vec<f64>>,
}

/// A row-major matrix's buffer address and shape (`None` for any other
/// layout): while the matrix lives, no other one has it.
fn identity(x: &Array2<f64>) -> Option<(usize, usize, usize)> {
    x.is_standard_layout().then(|| (x.as_ptr() as usize, x.nrows(), x.ncols()))
}

/// The forest grown for the members of one seed and shape: as many trees
/// as the most any of them wants, as deep as the deepest, keeping the
/// payloads where the others' cuts end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Plan {
    /// Trees grown.
    pub trees: usize,
    /// The depth limit they are grown with (none if a member has none).
    pub depth: Option<u16>,
    /// The deepest cut a member reads, when one is shallower.
    pub keep: Option<u16>,
    /// Whether the trees log their split searches, for a member of larger
    /// leaves and the same seed to replay.
    pub log: bool,
}

impl Plan {
    /// The plan that also serves a member of `trees` trees and depth limit
    /// `depth`.
    fn with(&mut self, trees: usize, depth: Option<u16>) {
        let deepest = match (self.depth, depth) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
        let cuts = [self.depth, depth, self.keep].into_iter().flatten().filter(|&d| deepest.is_none_or(|top| d < top));
        *self = Plan { trees: self.trees.max(trees), depth: deepest, keep: cuts.max(), log: self.log };
    }
}

/// How a histogram forest reads a [`SharedForests`]: the plan of its seed
/// and shape, which grows at least its own trees.
#[derive(Clone, Copy)]
pub(crate) struct ForestShare<'a> {
    /// The cache.
    pub cache: &'a SharedForests,
    /// What is grown into it.
    pub plan: Plan,
}

/// What a shared forest's trees depend on besides the binned matrix (one
/// per [`SharedForests`]): the seed, the hyper-parameters (its tree count
/// the number grown), the kind and the target itself, by address. An
/// address names one target only while it stays in place: a
/// [`SharedForests`] lives in one panel run's preparation, beside the
/// targets it keys on, and must not outlive them.
#[derive(Clone, Copy, PartialEq)]
struct Key {
    /// The fit's seed.
    seed: u64,
    /// The hyper-parameters, the tree count the number grown.
    params: HistParams,
    /// Classes or values.
    kind: Kind,
    /// The class and value targets' addresses and lengths.
    target: [usize; 4],
}

/// The class and value targets' addresses and lengths, as [`Key`] holds them.
fn target_of(y_class: &[usize], y_value: &[f64]) -> [usize; 4] {
    [y_class.as_ptr() as usize, y_class.len(), y_value.as_ptr() as usize, y_value.len()]
}

/// Whether trees of shape `a` replay the logged searches of trees of
/// shape `b` of the same seed: the same model and candidates, larger
/// leaves (see [`Searched`]).
fn replays(a: &ModelSpec, b: &ModelSpec) -> bool {
    match (a, b) {
        (
            ModelSpec::HistForest { min_samples_leaf: la, max_features: fa, .. },
            ModelSpec::HistForest { min_samples_leaf: lb, max_features: fb, .. },
        ) => fa == fb && la > lb,
        (
            ModelSpec::DecisionTree { min_samples_leaf: la, .. },
            ModelSpec::DecisionTree { min_samples_leaf: lb, .. },
        ) => la > lb,
        _ => false,
    }
}

/// `model`'s shape (its tree count set to 0, and its depth limit to none
/// when it is at most [`CUT_DEPTHS`]), its tree count and its depth
/// limit, when it is a histogram forest or a decision tree (one tree).
fn shape(model: &ModelSpec) -> Option<(ModelSpec, usize, Option<u16>)> {
    match *model {
        ModelSpec::HistForest { n_trees, max_depth, min_samples_leaf, max_features } => {
            let cuts = max_depth.filter(|&d| d > CUT_DEPTHS);
            let shape = ModelSpec::HistForest { n_trees: 0, max_depth: cuts, min_samples_leaf, max_features };
            Some((shape, n_trees, max_depth))
        }
        // A decision tree is a forest of one tree on every row: trees of
        // one seed and shape but for a depth limit are one tree, cut.
        ModelSpec::DecisionTree { max_depth, min_samples_leaf } => {
            let cuts = max_depth.filter(|&d| d > CUT_DEPTHS);
            Some((ModelSpec::DecisionTree { max_depth: cuts, min_samples_leaf }, 1, max_depth))
        }
        _ => None,
    }
}

impl ForestShare<'_> {
    /// The shared forest a fit of seed `seed`, hyper-parameters `p`, kind
    /// `kind` and targets `(y_class, y_value)` reads its first `p.n_trees`
    /// trees from, and the depth it cuts them at (`None`: read as grown),
    /// `grow` growing it (with the plan's tree count and depths) when no
    /// member has begun it; `None` when the fit grows its own: more trees
    /// or a depth the plan does not hold, a deadline (a shared forest
    /// would be grown within the first member's), another member growing
    /// it, or a failure growing it. `grow` is told whether to log the
    /// trees' split searches, which are then kept for members of larger
    /// leaves to replay ([`SharedForests::replay_for`]).
    pub(super) fn forest(
        &self,
        (seed, p, kind): (u64, HistParams, Kind),
        (y_class, y_value): (&[usize], &[f64]),
        deadline: bool,
        grow: impl FnOnce(HistParams, bool) -> Option<(Vec<Tree>, Vec<Vec<Searched>>)>,
    ) -> Option<(Arc<Vec<Tree>>, Option<u16>)> {
        let Plan { trees, depth, keep, log } = self.plan;
        let cut = match (p.max_depth, depth) {
            (mine, grown) if mine == grown => None,
            (Some(mine), _) if keep.is_some_and(|k| mine <= k) => Some(mine),
            _ => return None,
        };
        if trees < p.n_trees || deadline || p.keep_inner.is_some() {
            return None;
        }
        let params = HistParams { n_trees: trees, max_depth: depth, keep_inner: keep, ..p };
        let key = Key { seed, params, kind, target: target_of(y_class, y_value) };
        let grown = || {
            let (trees, logs) = grow(params, log)?;
            if log {
                self.cache.lock_logs().push((key, Arc::new(logs)));
            }
            Some(trees)
        };
        self.cache.trees(key, grown).map(|all| (all, cut))
    }
}

impl SharedForests {
    /// The cache for `specs`: the histogram forests among them that share
    /// a seed and shape grow the most trees any of them wants once, as
    /// deep as the deepest wants.
    pub(crate) fn for_specs<'s>(specs: impl IntoIterator<Item = &'s PipelineSpec>) -> SharedForests {
        let mut most: Vec<(u64, ModelSpec, Plan)> = Vec::new();
        for spec in specs {
            let Some((shape, n_trees, depth)) = shape(&spec.model) else { continue };
            match most.iter_mut().find(|(seed, s, _)| *seed == spec.seed && *s == shape) {
                Some((_, _, plan)) => plan.with(n_trees, depth),
                None => most.push((spec.seed, shape, Plan { trees: n_trees, depth, keep: None, log: false })),
            }
        }
        // A forest logs its searches when one of larger leaves replays them.
        let log: Vec<bool> = most
            .iter()
            .map(|(seed, shape, _)| most.iter().any(|(other, larger, _)| other == seed && replays(larger, shape)))
            .collect();
        for ((_, _, plan), log) in most.iter_mut().zip(log) {
            plan.log = log;
        }
        SharedForests {
            most,
            grown: Mutex::new(Vec::new()),
            test: None,
            sums: Mutex::new(Vec::new()),
            logs: Mutex::new(Vec::new()),
        }
    }

    /// The logs list, whole even if a member panicked holding it (it only
    /// pushes or reads).
    fn lock_logs(&self) -> std::sync::MutexGuard<'_, Vec<(Key, ForestLogs)>> {
        self.logs.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The searches a fit of seed `seed`, hyper-parameters `p`, kind `kind`
    /// and targets `(y_class, y_value)` replays: those logged by a shared
    /// forest of the same seed, targets, candidates and sampling with
    /// smaller leaves, when one has been grown.
    pub(super) fn replay_for(
        &self,
        (seed, p, kind): (u64, HistParams, Kind),
        (y_class, y_value): (&[usize], &[f64]),
    ) -> Option<ForestLogs> {
        let target = target_of(y_class, y_value);
        let logs = self.lock_logs();
        let (_, found) = logs.iter().find(|(k, _)| {
            (k.seed, k.kind, k.target) == (seed, kind, target)
                && (k.params.max_features, k.params.bootstrap) == (p.max_features, p.bootstrap)
                && k.params.min_samples_leaf < p.min_samples_leaf
        })?;
        Some(Arc::clone(found))
    }

    /// The cache, sharing its forests' leaf sums of `x_test` too: members
    /// that predict `x_test` itself (the same buffer and shape) add each
    /// prefix's sums once. `x_test` must live as long as the cache, as
    /// the prepared matrices it lives beside do: an address names one
    /// matrix only while it stays in place.
    pub(crate) fn predicting(self, x_test: &Array2<f64>) -> SharedForests {
        SharedForests { test: identity(x_test), ..self }
    }

    /// The leaf sums of `x_test` over the first `n` trees of `forest`, a
    /// forest of this cache read as grown: from the sums of its longest
    /// prefix already added up, `add` adding the trees from there on to
    /// them (`None` for none yet). `None` when `x_test` is not the matrix
    /// the cache predicts (the caller adds its own).
    pub(super) fn leaf_sums(
        &self,
        forest: &Arc<Vec<Tree>>,
        x_test: &Array2<f64>,
        n: usize,
        add: impl FnOnce(usize, Option<Vec<f64>>) -> Vec<f64>,
    ) -> Option<Vec<f64>> {
        if self.test.is_none() || self.test != identity(x_test) {
            return None;
        }
        let id = Arc::as_ptr(forest) as usize;
        let lock = || self.sums.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let from = lock()
            .iter()
            .filter(|p| p.forest == id && p.trees <= n)
            .max_by_key(|p| p.trees)
            .map(|p| (p.trees, Arc::clone(&p.sums)));
        let sums = match from {
            Some((count, sums)) if count == n => return Some(sums.as_ref().clone()),
            Some((count, sums)) => add(count, Some(sums.as_ref().clone())),
            None => add(0, None),
        };
        let mut kept = lock();
        if !kept.iter().any(|p| p.forest == id && p.trees == n) {
            kept.push(PrefixSums { forest: id, trees: n, sums: Arc::new(sums.clone()) });
        }
        Some(sums)
    }

    /// How `spec`'s forest shares this cache, if it is one of its forests.
    pub(crate) fn share(&self, spec: &PipelineSpec) -> Option<ForestShare<'_>> {
        let (shape, _, _) = shape(&spec.model)?;
        let (_, _, plan) = self.most.iter().find(|(seed, s, _)| *seed == spec.seed && *s == shape)?;
        Some(ForestShare { cache: self, plan: *plan })
    }

    /// The forest of `key`: grown by `grow` when no member has begun it,
    /// read when one has grown it, and `None` (the caller grows its own)
    /// while another member grows it or when growing it failed.
    fn trees(&self, key: Key, grow: impl FnOnce() -> Option<Vec<Tree>>) -> Option<Arc<Vec<Tree>>> {
        // A member that panicked while holding the lock left the list
        // whole (it only finds, pushes or sets an entry).
        let lock = || self.grown.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        {
            let mut grown = lock();
            match grown.iter().find(|(k, _)| *k == key) {
                Some((_, Grown::Done(trees))) => return trees.clone(),
                Some((_, Grown::Growing)) => return None,
                None => grown.push((key, Grown::Growing)),
            }
        }
        // Grown without the lock: other forests' members go on meanwhile.
        let trees = grow().map(Arc::new);
        if let Some((_, state)) = lock().iter_mut().find(|(k, _)| *k == key) {
            *state = Grown::Done(trees.clone());
        }
        trees
    }
}

#[cfg(test)]
mod tests;
