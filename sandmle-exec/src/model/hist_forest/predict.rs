//! Sending test rows down a tree, eight at a time.
//!
//! One row's walk is a chain of dependent loads (node, then the row's
//! value, then the next node) ended by a branch the processor cannot
//! predict: whether this node is a leaf. Eight rows walked in lockstep
//! are eight independent chains, which the processor overlaps, and the
//! lockstep ends once for the eight, when none of them moved: a leaf
//! here points to itself on both sides, so a row that has reached its
//! leaf stays there while the others go on. Each row's leaf payloads are
//! still added tree by tree, in tree order, so the sums are the ones a
//! row-by-row walk gives, bit for bit.

use super::{Node, Tree};

/// Rows walked together.
const LANES: usize = 8;

/// A node for walking: rows with `value <= threshold` go `left`, others
/// `right`; a leaf has both pointing to itself and its payload at `leaf`.
#[derive(Clone, Copy)]
struct Step {
    threshold: f64,
    feature: u32,
    left: u32,
    right: u32,
    leaf: u32,
}

/// A tree laid out for walking ([`Walk::add_leaves`]).
pub(super) struct Walk {
    steps: Vec<Step>,
}

impl Walk {
    /// The walking layout of `tree`; `None` if its node indices or
    /// features do not fit 32 bits.
    pub(super) fn new(tree: &Tree) -> Option<Walk> {
        let index = |i: usize| u32::try_from(i).ok();
        let steps = tree
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| match *node {
                Node::Split { feature, threshold, left, right } => Some(Step {
                    threshold,
                    feature: index(feature)?,
                    left: index(left)?,
                    right: index(right)?,
                    leaf: 0,
                }),
                Node::Leaf { at } => {
                    let me = index(i)?;
                    Some(Step { threshold: 0.0, feature: 0, left: me, right: me, leaf: index(at)? })
                }
            })
            .collect::<Option<Vec<Step>>>()?;
        Some(Walk { steps })
    }

    /// Adds `tree`'s leaf payload for each row of `test` (row-major,
    /// `width` values a row, at least one row's worth) to that row of
    /// `out` (row-major, the tree's payload width a row).
    pub(super) fn add_leaves(&self, tree: &Tree, test: &[f64], width: usize, out: &mut [f64]) {
        let rows = test.len() / width.max(1);
        let steps = &self.steps;
        for block in (0..rows).step_by(LANES) {
            let lanes = LANES.min(rows - block);
            // Lanes past the last row repeat it; their leaves are not used.
            let base: [usize; LANES] = std::array::from_fn(|k| (block + k.min(lanes - 1)) * width);
            let mut at = [0u32; LANES];
            loop {
                let mut moved = false;
                for (a, &b) in at.iter_mut().zip(&base) {
                    let s = steps[*a as usize];
                    let next = if test[b + s.feature as usize] <= s.threshold { s.left } else { s.right };
                    moved |= next != *a;
                    *a = next;
                }
                if !moved {
                    break;
                }
            }
            for (k, &a) in at.iter().enumerate().take(lanes) {
                let leaf = steps[a as usize].leaf as usize;
                let row = &mut out[(block + k) * tree.width..(block + k + 1) * tree.width];
                for (o, v) in row.iter_mut().zip(&tree.leaves[leaf..leaf + tree.width]) {
                    *o += v;
                }
            }
        }
    }
}
