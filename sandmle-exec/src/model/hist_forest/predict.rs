//! Sending test rows down a tree, eight at a time.
//!
//! One row's walk is a chain of dependent loads (node, then the row's
//! value, then the next node) ended by a branch the processor cannot
//! predict: whether this node is a leaf. Eight rows walked in lockstep
//! are eight independent chains, which the processor overlaps, and the
//! lockstep ends once for the eight, when none of them moved: a leaf's
//! NaN threshold sends every value to its right child, itself, so a row
//! that has reached its leaf stays there while the others go on. Each row's leaf payloads are
//! still added tree by tree, in tree order, so the sums are the ones a
//! row-by-row walk gives, bit for bit.
//!
//! A forest's trees walk the test rows one tree at a time, each tree
//! staying in cache while every row walks it, or, when all the trees fit
//! in cache together, block of rows by block of rows, each block staying
//! in cache while every tree walks it ([`Order`]). Each row adds its
//! leaves in tree order either way. Blocks of rows made the 10,000-row
//! prediction of a forest grown on 200 and 2,000 `flights` rows 36 % and
//! 28 % faster; forests too large for the cache walk tree by tree (by
//! blocks, 50,000 rows' forest predicted more than twice as slowly).

use super::{Node, Tree};

/// Blocks of test rows of about this many bytes go through every tree in
/// turn when the test rows take more than [`TEST_BYTES`] and the trees'
/// nodes at most [`TREE_BYTES`] (measured on a 2-core Intel Xeon
/// VM with 2 MiB of second-level cache a core: 64 KiB blocks were slower,
/// and so were larger forests, and 424 KiB of test rows, which stay in
/// cache anyway).
const ROW_BYTES: usize = 256 * 1024;
const TEST_BYTES: usize = 1 << 20;
const TREE_BYTES: usize = 4 << 20;

/// The order in which a forest's trees walk the test rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Order {
    /// One tree at a time, through every row.
    ByTree,
    /// Blocks of this many rows at a time, through every tree.
    ByRows(usize),
}

impl Order {
    /// Blocks of rows when the `rows` test rows (`width` values each) are
    /// too many for the cache and the trees fit in it together, else tree
    /// by tree (measured when each walk read a layout built from its tree:
    /// one tree's at a time stayed in the first-level cache, and all of
    /// them built at once made predictions of 177 and 828 rows slower).
    /// The walks now read the trees' own nodes, laid out for them.
    pub(super) fn for_forest(trees: &[Tree], width: usize, rows: usize) -> Order {
        let nodes: usize = trees.iter().map(|t| t.nodes.len()).sum();
        let block = (ROW_BYTES / width.max(1) / 8).max(1);
        let test_bytes = rows.saturating_mul(width).saturating_mul(8);
        if width > 0 && test_bytes > TEST_BYTES && nodes.saturating_mul(std::mem::size_of::<Node>()) <= TREE_BYTES {
            Order::ByRows(block)
        } else {
            Order::ByTree
        }
    }
}

/// Each of the `rows` test rows' sum of the trees' leaf payloads, added in
/// tree order (row-major, `out_width` numbers a row: the trees' payload
/// width); `test` holds the rows, `width` values each.
pub(super) fn leaf_sums(
    trees: &[Tree],
    test: &[f64],
    (width, rows): (usize, usize),
    out_width: usize,
    order: Order,
) -> Vec<f64> {
    add_leaf_sums(trees, test, (width, rows), out_width, order, vec![0.0; rows * out_width])
}

/// [`leaf_sums`] added to `sums`, each row's leaves after what it holds:
/// from the sums of a forest's first trees, the sums of more of them, bit
/// for bit, since each row adds its leaves in tree order either way.
pub(super) fn add_leaf_sums(
    trees: &[Tree],
    test: &[f64],
    (width, rows): (usize, usize),
    out_width: usize,
    order: Order,
    mut sums: Vec<f64>,
) -> Vec<f64> {
    debug_assert_eq!(sums.len(), rows * out_width);
    match order {
        Order::ByTree => {
            for tree in trees {
                add_tree(tree, (test, width), &mut sums);
            }
        }
        Order::ByRows(block) => {
            let block = block.max(1);
            for start in (0..rows).step_by(block) {
                let end = (start + block).min(rows);
                let out = &mut sums[start * out_width..end * out_width];
                for tree in trees {
                    add_tree(tree, (&test[start * width..end * width], width), out);
                }
            }
        }
    }
    sums
}

/// Adds `tree`'s leaf payload for each row of `test` (`width` values a
/// row) to that row of `out`: walked in lockstep ([`add_leaves`]), or row
/// by row when there are no features (each row's walk is the root leaf).
fn add_tree(tree: &Tree, (test, width): (&[f64], usize), out: &mut [f64]) {
    if width > 0 && !test.is_empty() {
        add_leaves(tree, test, width, out);
        return;
    }
    for (i, o) in out.chunks_exact_mut(tree.width).enumerate() {
        for (o, v) in o.iter_mut().zip(tree.leaf_of(&test[i * width..(i + 1) * width])) {
            *o += v;
        }
    }
}

/// Rows walked together.
const LANES: usize = 8;

/// Adds `tree`'s leaf payload for each row of `test` (row-major,
/// `width` values a row, at least one row's worth) to that row of
/// `out` (row-major, the tree's payload width a row).
pub(super) fn add_leaves(tree: &Tree, test: &[f64], width: usize, out: &mut [f64]) {
    let rows = test.len() / width.max(1);
    let steps = &tree.nodes;
    for block in (0..rows).step_by(LANES) {
        let lanes = LANES.min(rows - block);
        // Lanes past the last row repeat it; their leaves are not used.
        let base: [usize; LANES] = std::array::from_fn(|k| (block + k.min(lanes - 1)) * width);
        let mut at = [0u32; LANES];
        loop {
            let mut moved = false;
            for (a, &b) in at.iter_mut().zip(&base) {
                let s = steps[*a as usize];
                let next = s.next(*a, test[b + s.feature as usize]);
                moved |= next != *a;
                *a = next;
            }
            if !moved {
                break;
            }
        }
        for (k, &a) in at.iter().enumerate().take(lanes) {
            let leaf = steps[a as usize].payload();
            let row = &mut out[(block + k) * tree.width..(block + k + 1) * tree.width];
            for (o, v) in row.iter_mut().zip(&tree.leaves[leaf..leaf + tree.width]) {
                *o += v;
            }
        }
    }
}
