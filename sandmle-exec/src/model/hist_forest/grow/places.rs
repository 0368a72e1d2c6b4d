//! Where a tree's nodes draw their candidate features: a place of their
//! own in the tree's stream above [`PLACED_DEPTHS`], one shared stream below.

use super::*;

/// Forests and trees of a depth limit of at most this share the deeper
/// forest of their seed, cut at their depth ([`Tree::cut`]). A cut is the
/// tree grown to that depth for any limit up to [`PLACED_DEPTHS`] (every
/// node above it draws from its own place); the limit is kept small
/// because the shared forest keeps the payload of each inner node down
/// to the deepest cut asked for.
pub(crate) const CUT_DEPTHS: u16 = 6;

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
pub(crate) const PLACED_DEPTHS: u16 = 8;

/// Stream `k` of the node draws of the tree of seed `seed`: 0 for the
/// nodes above [`PLACED_DEPTHS`], each at its place, 1 for the deeper
/// ones.
pub(super) fn node_stream(seed: u64, k: usize) -> SeedRng {
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
pub(super) fn node_place(depth: u16, turns: u64, features: usize) -> Option<u128> {
    let window = (2 * features as u128).next_power_of_two().trailing_zeros().max(20);
    let fits = u32::from(depth) + 1 + window <= 68;
    (depth < PLACED_DEPTHS && fits).then(|| ((1u128 << depth) | u128::from(turns)) << window)
}

/// The turns from the root of the right child of the node at `depth`,
/// `turns` from the root: bit `depth` set (none past 64 bits, where no
/// node has a place).
pub(crate) fn right_turns(turns: u64, depth: u16) -> u64 {
    turns | 1u64.checked_shl(depth.into()).unwrap_or(0)
}
