//! What the four-lane kernels share (kNN's distances, the multinomial
//! objective, naive Bayes' scores, L-BFGS's dot product): rows laid side
//! by side, a lane a row, and a register's lanes read back.
//!
//! Each kernel runs where [`pulp::Arch`] finds four `f64` lanes (AVX2)
//! and keeps every lane's operations those of the portable route, so both
//! give the same bits.

/// Four rows of `d` values (`rows`, row-major) into `lanes`, each
/// feature's four values side by side: `lanes[j · 4 + r]` is row `r`'s
/// value `j`.
pub(super) fn side_by_side(rows: &[f64], d: usize, lanes: &mut [f64]) {
    for (r, row) in rows.chunks_exact(d.max(1)).take(4).enumerate() {
        for (j, &v) in row.iter().enumerate() {
            lanes[j * 4 + r] = v;
        }
    }
}

/// The lanes of `v`, a register of four `f64`s, read from a copy: a
/// reference into an array of registers would keep the whole array in
/// memory through the loop that fills it.
#[inline(always)]
pub(super) fn four_lanes<S: pulp::Simd>(v: S::f64s) -> [f64; 4] {
    let copy = v;
    let read: &[f64] = pulp::bytemuck::cast_slice(std::slice::from_ref(&copy));
    let mut out = [0.0; 4];
    out.iter_mut().zip(read).for_each(|(o, &r)| *o = r);
    out
}
