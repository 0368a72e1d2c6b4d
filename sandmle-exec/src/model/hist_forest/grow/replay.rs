//! Replaying the split searches of a tree of smaller leaves.
//!
//! Two trees of one seed on one binned matrix and target, alike but for
//! their leaf minimum, draw the same bootstrap, and a node of the same
//! rows draws the same candidates: above [`PLACED_DEPTHS`] every node
//! draws from a place of its own in its tree's stream. The larger leaves
//! only forbid cuts (every other cut's gain is the same number), and a
//! search keeps the first cut of the greatest gain, so forbidding cuts
//! other than that one cannot change it: where the smaller-leaved tree's
//! best cut leaves enough weight on each side for the larger leaves, it
//! is the larger-leaved tree's best cut too, and the search draws the
//! same further candidates, if any (it stops at the same one).
//!
//! So a tree grown first logs its searches of the nodes above
//! [`PLACED_DEPTHS`] ([`Searched`]), and a tree of larger leaves of the
//! same seed replays a node's logged search instead of searching when
//!
//! - every ancestor split as the logged tree's did (the node's rows are the
//!   logged node's, and it draws the logged candidates from its place),
//!   and
//! - the logged cut leaves at least the leaf minimum of weight on each
//!   side.
//!
//! Its stream need not move past the search: the next node above
//! [`PLACED_DEPTHS`] starts at its own place, and the deeper nodes draw
//! from another stream. Anything else searches as usual: the tree is the
//! one it grows alone, node for node. The panel's forest of 100 trees with
//! leaves of 5 replays the nodes it shares with the forest of 100 of its
//! seed wherever the cut is allowed: on a `digits_png` environment it fits
//! in about 70 % of the time it took when only nodes above depth 6 could
//! replay, and then only while every node of their depth before them had
//! been searched alike. Trees grown over row records (two classes on a
//! table whose features fit one record) neither log nor replay.

use crate::model::hist_forest::Kind;
#[cfg(doc)]
use crate::model::hist_forest::grow::places::PLACED_DEPTHS;
use crate::model::hist_forest::grow::{Grower, best_grouping};
use crate::model::hist_forest::scan::{Split, node_squares, unpack};

/// One node's split search, as a tree logs it for another to replay.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::model::hist_forest) struct Searched {
    /// The tree's seed.
    seed: u64,
    /// The node's depth and its turns from the root (bit `d` set: right
    /// at depth `d`).
    place: (u16, u64),
    /// The split found.
    split: Split,
}

/// Sorts a tree's log by place, for [`Grower::replay`] to find a node's.
pub(in crate::model::hist_forest) fn sort_log(log: &mut [Searched]) {
    log.sort_unstable_by_key(|s| s.place);
}

impl Grower<'_> {
    /// The split of the node at depth `self.depth`, `turns` from the root,
    /// over `rows` at place `at` and of weight `total`: replayed from the
    /// logged tree's search of that place when it may be (`same`: its
    /// ancestors split as the logged ones did), searched otherwise, and
    /// logged when this tree logs. Also whether its children's rows are
    /// the logged tree's.
    pub(super) fn search(
        &mut self,
        rows: &[u32],
        at: usize,
        total: f64,
        turns: u64,
        same: bool,
    ) -> (Option<Split>, bool) {
        let depth = self.depth;
        self.place_draws(turns);
        let logged = if same && self.placed { self.logged_at(depth, turns) } else { None };
        let split = match logged.and_then(|s| self.replayed(s, rows, total)) {
            Some(split) => Some(split),
            None => {
                // What every candidate's class scan starts from, and the
                // gain none can beat: only for a node that is searched.
                if let Kind::Classes(k) = self.kind {
                    self.squares = node_squares(&self.sums[..=k]);
                    self.perfect = best_grouping(&self.sums[1..=k], self.squares / total, total);
                }
                self.best_split(rows, at, total)
            }
        };
        let seed = self.seed;
        // Only a node drawing from its place is logged: a deeper one's
        // draws start where the nodes grown before it left the stream,
        // where a tree of larger leaves, which stops sooner, is rarely.
        if let (Some(log), Some(split), true) = (self.log.as_mut(), split, self.placed) {
            log.push(Searched { seed, place: (depth, turns), split });
        }
        let cut = |s: Split| (s.0, s.1, s.2);
        let children_same = logged.zip(split).is_some_and(|(s, split)| cut(s.split) == cut(split));
        (split, children_same)
    }

    /// The logged search of the node at `depth`, `turns` from the root.
    fn logged_at(&self, depth: u16, turns: u64) -> Option<Searched> {
        let i = self.replay.binary_search_by_key(&(depth, turns), |s| s.place).ok()?;
        Some(self.replay[i])
    }

    /// `logged`'s split, when this node (drawing from its place, as the
    /// logged one did) may take it: the tree's seed is the logged tree's,
    /// and the cut leaves at least the leaf minimum of weight on each side
    /// of the node's `rows` (of weight `total`).
    fn replayed(&mut self, logged: Searched, rows: &[u32], total: f64) -> Option<Split> {
        if logged.seed != self.seed {
            return None;
        }
        let (feature, bin, ..) = logged.split;
        let codes = &self.bins.codes[feature];
        let goes_left = rows.iter().filter(|&&r| codes[r as usize] <= bin);
        // Whole numbers: the sum is exact in any order. A tree that counts
        // every feature in integers keeps its weights packed instead.
        let left = if self.adds.is_empty() {
            unpack(goes_left.map(|&r| self.packed[r as usize]).sum())[0]
        } else {
            goes_left.map(|&r| self.adds[r as usize].weight).sum()
        };
        let least = self.p.min_samples_leaf as f64;
        if left < least || total - left < least {
            return None;
        }
        self.replayed += 1;
        Some(logged.split)
    }
}

#[cfg(test)]
mod tests {
    use super::Searched;
    use crate::model::hist_forest::grow::{Grower, Scratch};
    use crate::model::hist_forest::{Bins, HistParams, Kind, Tree, draw};
    use ndarray::Array2;
    use rand::RngExt;
    use sandmle_core::rng_for;

    /// A tree of seed `seed` and hyper-parameters `p` over rows of
    /// multiplicities `w`, logging its searches when `log`, replaying
    /// `replay`: the tree, its log (sorted) and how many nodes it replayed.
    fn grown(
        (bins, y, values, kind): (&Bins, &[usize], &[f64], Kind),
        p: HistParams,
        (seed, w): (u64, &[u32]),
        (log, replay): (bool, &[Searched]),
    ) -> (Tree, Vec<Searched>, usize) {
        let mut g = Grower::new(bins, y, values, kind, p, seed, Scratch::default());
        // Trees grown over row records (two classes on a table of a few
        // features) neither log nor replay.
        g.records = false;
        g.log = log.then(Vec::new);
        g.replay = replay;
        let mut rows: Vec<u32> = (0..w.len() as u32).filter(|&r| w[r as usize] > 0).collect();
        g.grow_tree(&mut rows, w);
        let (mut searched, replayed) = (g.log.take().unwrap_or_default(), g.replayed);
        super::sort_log(&mut searched);
        (g.finish(&mut Scratch::default()), searched, replayed)
    }

    /// Trees of larger leaves that replay the searches of smaller-leaved
    /// trees of their seed are the trees they grow alone, node for node,
    /// for classes and values, with bootstrap weights and without,
    /// candidates drawn or every feature tried (presorted rows); and they
    /// replay many of their nodes.
    #[test]
    fn a_tree_replaying_smaller_leaves_searches_is_the_tree_it_grows_alone() {
        let mut rng = rng_for(31, "replay fixture");
        let x = Array2::from_shape_fn((300, 8), |(_, j)| {
            if j % 3 == 0 { f64::from(rng.random_range(0..4u8)) } else { rng.random_range(-3.0..3.0) }
        });
        // Four classes by a rule over four features, one label in eight
        // drawn at random: trees with pure and mixed nodes of every size.
        let classes: Vec<usize> = x
            .rows()
            .into_iter()
            .map(|r| {
                let rule = usize::from(r[1] + r[3] > 0.5) * 2 + usize::from(r[2] * r[0] > 1.0);
                if rng.random_range(0..8u8) == 0 { rng.random_range(0..4) } else { rule }
            })
            .collect();
        let values: Vec<f64> = x.rows().into_iter().map(|r| r[1] * r[2] + r[4] + rng.random_range(-0.5..0.5)).collect();
        let two: Vec<usize> = classes.iter().map(|&c| usize::from(c >= 2)).collect();
        let bins = Bins::fit(&x, None);
        let (mut replayed, mut replayed_two) = (0, 0);
        let kinds = [
            ("four classes", Kind::Classes(4), &classes[..]),
            ("two", Kind::Classes(2), &two),
            ("values", Kind::Values, &[]),
        ];
        for (name, kind, y) in kinds {
            for (max_features, bootstrap) in [(3, true), (8, true), (3, false), (8, false)] {
                for (small, large, depth) in [(1, 5, None), (1, 2, None), (2, 7, None), (1, 5, Some(4))] {
                    // A depth limit on the logging tree (as on the panel's
                    // tree of depth 6) only stops its log.
                    let p = HistParams {
                        n_trees: 1,
                        max_depth: depth,
                        min_samples_leaf: small,
                        max_features,
                        bootstrap,
                        keep_inner: None,
                    };
                    let q = HistParams { min_samples_leaf: large, max_depth: None, ..p };
                    let data = (&bins, y, &values[..], kind);
                    for seed in 0..4 {
                        let mut w = vec![u32::from(!bootstrap); 300];
                        let mut draws = rng_for(seed, "bootstrap");
                        for _ in 0..300 * usize::from(bootstrap) {
                            w[draw(&mut draws, 0, 300)] += 1;
                        }
                        let (_, log, _) = grown(data, p, (seed, &w), (true, &[]));
                        assert!(log.len() >= 3, "{name}: the smaller leaves' tree logs its searches");
                        let (alone, _, none) = grown(data, q, (seed, &w), (false, &[]));
                        let (replaying, _, n) = grown(data, q, (seed, &w), (false, &log));
                        let case =
                            format!("{name}, {max_features} features, bootstrap {bootstrap}, {small} -> {large}");
                        assert_eq!(none, 0);
                        assert_eq!(alone, replaying, "{case}, seed {seed}");
                        // Another seed's log is not this tree's.
                        let (other, _, n_other) = grown(data, q, (seed + 10, &w), (false, &log));
                        assert_eq!(n_other, 0, "{case}, another seed");
                        assert_eq!(other, grown(data, q, (seed + 10, &w), (false, &[])).0, "{case}, another seed");
                        replayed += n;
                        if matches!(kind, Kind::Classes(2)) {
                            replayed_two += n;
                        }
                    }
                }
            }
        }
        assert!(replayed > 500, "{replayed} nodes replayed");
        assert!(replayed_two > 50, "{replayed_two} nodes of two classes replayed");
    }
}
