//! The multinomial objective four training rows at a time, where the
//! processor has four `f64` lanes (AVX2, found by [`pulp::Arch`]).
//!
//! [`Multinomial::eval_pairs`](super::Multinomial) holds two rows' class
//! scores in registers and walks the classes two lanes at a time. Here a
//! lane is a row: the scores of four rows for one class are one register,
//! built from a copy of the rows laid out feature by feature
//! ([`RowBlocks`], made once per fit), and the gradient is kept class by
//! class, so each class's four rows update four of its features at once.
//! Every score, loss and gradient entry is the same chain of IEEE products
//! and sums as one row at a time (features in order for a score, rows in
//! order for a gradient entry; nothing fused), so the fit is the same bit
//! for bit, in about half the arithmetic instructions.

use super::{Multinomial, residuals};
use crate::model::lanes::{four_lanes, side_by_side};
use pulp::Simd;

/// Rows per block: one per `f64` lane of a 256-bit register.
const LANES: usize = 4;

/// The first `4 · (n / 4)` training rows, four at a time, each feature's
/// four values side by side: `lanes[(b · d + j) · 4 + r]` is row `4b + r`'s
/// feature `j`; and the gradient's scratch, class by class.
pub(super) struct RowBlocks {
    lanes: Vec<f64>,
    /// `gradient[c · d + j]`: feature `j`'s entry for class `c`.
    gradient: Vec<f64>,
}

impl RowBlocks {
    /// The blocks of the `n x d` row-major `x`.
    fn new(x: &[f64], n: usize, d: usize) -> RowBlocks {
        let mut lanes = vec![0.0; n / LANES * LANES * d];
        for (block, rows) in lanes.chunks_exact_mut(LANES * d).zip(x.chunks_exact(LANES * d)) {
            side_by_side(rows, d, block);
        }
        RowBlocks { lanes, gradient: Vec::new() }
    }
}

/// [`Multinomial::eval`](super::Multinomial) for `K` classes, four rows a
/// block, when `S` has four `f64` lanes; `None` otherwise (the caller
/// takes the two-lane route).
pub(super) fn eval<const K: usize>(m: &mut Multinomial<'_>, w: &[f64], g: &mut [f64]) -> Option<f64> {
    struct Wide<'m, 'a, 'w, const K: usize>(&'m mut Multinomial<'a>, &'w [f64], &'w mut [f64]);
    impl<const K: usize> pulp::WithSimd for Wide<'_, '_, '_, K> {
        type Output = Option<f64>;
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) -> Option<f64> {
            let Wide(m, w, g) = self;
            if S::F64_LANES != LANES {
                return None;
            }
            Some(eval_in::<S, K>(simd, m, w, g))
        }
    }
    pulp::Arch::new().dispatch(Wide::<K>(m, w, g))
}

/// Every row's `K` class scores (intercepts plus features times
/// coefficients, features in order) of the `n x d` row-major `x`, rows
/// after rows, four rows a block as in [`eval`]; `None` where the
/// processor has no four `f64` lanes.
pub(super) fn scores<const K: usize>(x: &[f64], d: usize, coef: &[f64], intercept: &[f64]) -> Option<Vec<[f64; K]>> {
    struct Scores<'a, const K: usize>(&'a [f64], usize, &'a [f64], &'a [f64]);
    impl<const K: usize> pulp::WithSimd for Scores<'_, K> {
        type Output = Option<Vec<[f64; K]>>;
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) -> Self::Output {
            let Scores(x, d, coef, intercept) = self;
            if S::F64_LANES != LANES || d == 0 || intercept.len() != K || coef.len() != d * K {
                return None;
            }
            let b: [f64; K] = std::array::from_fn(|c| intercept[c]);
            let mut out = Vec::with_capacity(x.len() / d);
            let mut lanes = vec![0.0; LANES * d];
            let mut blocks = x.chunks_exact(LANES * d);
            for rows in &mut blocks {
                side_by_side(rows, d, &mut lanes);
                out.extend(block_scores::<S, K>(simd, &lanes, coef, &b));
            }
            out.extend(blocks.remainder().chunks_exact(d).map(|row| row_scores(row, coef, b)));
            Some(out)
        }
    }
    pulp::Arch::new().dispatch(Scores::<K>(x, d, coef, intercept))
}

/// Four rows' class scores from their features laid side by side
/// (`lanes[j · 4 + r]`): from the intercepts `b`, features in order.
#[inline(always)]
fn block_scores<S: Simd, const K: usize>(simd: S, lanes: &[f64], coef: &[f64], b: &[f64; K]) -> [[f64; K]; LANES] {
    let mut acc: [S::f64s; K] = std::array::from_fn(|c| simd.splat_f64s(b[c]));
    let (lanes, _) = S::as_simd_f64s(lanes);
    for (&xv, wj) in lanes.iter().zip(coef.chunks_exact(K)) {
        for (a, &wjc) in acc.iter_mut().zip(wj) {
            *a = simd.add_f64s(*a, simd.mul_f64s(xv, simd.splat_f64s(wjc)));
        }
    }
    let mut z = [[0.0; K]; LANES];
    for (c, &four) in acc.iter().enumerate() {
        for (zr, v) in z.iter_mut().zip(four_lanes::<S>(four)) {
            zr[c] = v;
        }
    }
    z
}

/// One row's class scores: from the intercepts `b`, features in order.
#[inline(always)]
fn row_scores<const K: usize>(row: &[f64], coef: &[f64], b: [f64; K]) -> [f64; K] {
    let mut z = b;
    for (&v, wj) in row.iter().zip(coef.chunks_exact(K)) {
        for (zc, &wjc) in z.iter_mut().zip(wj) {
            *zc += v * wjc;
        }
    }
    z
}

/// [`eval`] in `S`'s registers (four `f64` lanes).
#[inline(always)]
fn eval_in<S: Simd, const K: usize>(simd: S, m: &mut Multinomial<'_>, w: &[f64], g: &mut [f64]) -> f64 {
    let (x, y, n, d) = (m.x, m.y, m.n, m.d);
    let blocks = m.blocks.get_or_insert_with(|| RowBlocks::new(x, n, d));
    let (coef, b) = w.split_at(d * K);
    let gradient = &mut blocks.gradient;
    gradient.clear();
    gradient.resize(K * d, 0.0);
    let mut gb = [0.0; K];
    let mut loss = 0.0;
    let mut block_rows = blocks.lanes.chunks_exact(LANES * d).zip(x.chunks_exact(LANES * d));
    for (block, (lanes, rows)) in (&mut block_rows).enumerate() {
        let b: &[f64; K] = b.first_chunk().unwrap_or(&[0.0; K]);
        let mut z = block_scores::<S, K>(simd, lanes, coef, b);
        for (r, zr) in z.iter_mut().enumerate() {
            loss += residuals(zr, y[block * LANES + r]);
        }
        let rows: [&[f64]; LANES] = std::array::from_fn(|r| &rows[r * d..][..d]);
        add_gradient(simd, rows, &z, gradient, d);
        for (c, s) in gb.iter_mut().enumerate() {
            for zr in &z {
                *s += zr[c];
            }
        }
    }
    // The last rows, one at a time.
    for (i, row) in x.chunks_exact(d).enumerate().take(n).skip(n / LANES * LANES) {
        let mut z = row_scores(row, coef, *b.first_chunk::<K>().unwrap_or(&[0.0; K]));
        loss += residuals(&mut z, y[i]);
        add_gradient(simd, [row], &[z], gradient, d);
        for (s, zc) in gb.iter_mut().zip(&z) {
            *s += zc;
        }
    }
    for (c, column) in gradient.chunks_exact(d).enumerate() {
        for (j, &v) in column.iter().enumerate() {
            g[j * K + c] = v;
        }
    }
    g[d * K..].copy_from_slice(&gb);
    super::finish(loss, w, g, n, d, K, m.l2)
}

/// Adds `R` rows' residuals `z` times their features to the class-major
/// `gradient` (`d` features a class), each entry's terms in row order,
/// four features a register.
#[inline(always)]
fn add_gradient<S: Simd, const K: usize, const R: usize>(
    simd: S,
    rows: [&[f64]; R],
    z: &[[f64; K]; R],
    gradient: &mut [f64],
    d: usize,
) {
    let wide = rows.map(|row| S::as_simd_f64s(row).0);
    let full = d / LANES * LANES;
    for (c, column) in gradient.chunks_exact_mut(d).enumerate() {
        let s: [S::f64s; R] = std::array::from_fn(|r| simd.splat_f64s(z[r][c]));
        let (column_wide, tail) = S::as_mut_simd_f64s(column);
        for (i, gv) in column_wide.iter_mut().enumerate() {
            let mut acc = *gv;
            for r in 0..R {
                acc = simd.add_f64s(acc, simd.mul_f64s(wide[r][i], s[r]));
            }
            *gv = acc;
        }
        for (t, gv) in tail.iter_mut().enumerate() {
            for r in 0..R {
                *gv += rows[r][full + t] * z[r][c];
            }
        }
    }
}
