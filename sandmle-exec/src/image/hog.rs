//! The gradient-orientation histograms of an image's grey levels (the
//! `img_hog_*` features of [`ImageFeaturizer`](super::ImageFeaturizer)).
//!
//! A pixel adds its gradient's magnitude times its overlap with a cell
//! over the cell's area to one orientation bin of each cell it overlaps,
//! pixels in row-major order. When both sides are multiples of
//! [`HOG_CELLS`] (the 32 x 32 images the image seeds draw, say) every
//! pixel lies in one cell and its overlap is the cell's area: it adds its
//! magnitude itself, and [`whole_cell_sums`] adds the same numbers in the
//! same order as [`split_cell_sums`], the route for any size, a row's
//! magnitudes computed together before they are added up. With the
//! orientation's fold chosen without a branch (and the intensity
//! histogram, in `features.rs`, counted in four lanes), a `digits_png`
//! environment's 1,028 grey 32 x 32 images featurize in about half the
//! time (profile samples of ten panel runs: 800 before, 436 after), the
//! same features bit for bit.

use super::features::{HOG_BINS, HOG_CELLS, HOG_EPS, overlaps};

// A pixel's `magnitude · G² / G²` is its magnitude exactly only when `G²`
// is a power of two ([`whole_cell_sums`]).
const _: () = assert!(HOG_CELLS.is_power_of_two());

/// The gradient-orientation histograms of the planes' grey image.
pub(super) fn hog(planes: &[Vec<u8>], w: usize, h: usize) -> Vec<f64> {
    // Each pixel's grey level as a whole number, exactly in `f64` (`luma /
    // scale` is the grey image), for the orientation bins.
    let (luma, scale): (Vec<f64>, f64) = if planes.len() == 3 {
        let luma = (0..w * h)
            .map(|i| {
                let l = 299 * u32::from(planes[0][i]) + 587 * u32::from(planes[1][i]) + 114 * u32::from(planes[2][i]);
                f64::from(l)
            })
            .collect();
        (luma, 255_000.0)
    } else {
        (planes[0].iter().map(|&v| f64::from(v)).collect(), 255.0)
    };
    let grey: Vec<f64> = luma.iter().map(|&l| l / scale).collect();
    // The diagonals' bins are a function of the gradient alone, kept from
    // image to image on the thread.
    thread_local! {
        static DIAGONALS: std::cell::RefCell<Diagonals> = std::cell::RefCell::new(Diagonals::default());
    }
    let mut cells = DIAGONALS.with_borrow_mut(|diagonals| {
        if w.is_multiple_of(HOG_CELLS) && h.is_multiple_of(HOG_CELLS) {
            whole_cell_sums(&luma, &grey, w, h, diagonals)
        } else {
            split_cell_sums(&luma, &grey, w, h, diagonals)
        }
    });
    for cell in cells.chunks_mut(HOG_BINS) {
        let norm = (cell.iter().map(|v| v * v).sum::<f64>() + HOG_EPS * HOG_EPS).sqrt();
        cell.iter_mut().for_each(|v| *v /= norm);
    }
    cells
}

/// The cells' sums for any size: each pixel's overlaps with the cells.
fn split_cell_sums(luma: &[f64], grey: &[f64], w: usize, h: usize, diagonals: &mut Diagonals) -> Vec<f64> {
    let (ox, oy) = (overlaps(w, HOG_CELLS), overlaps(h, HOG_CELLS));
    // Each pixel's first overlap triple, to walk its cells.
    let first = |o: &[(usize, usize, u64)], n: usize| {
        let mut start = vec![0usize; n + 1];
        for (k, &(i, _, _)) in o.iter().enumerate().rev() {
            start[i] = k;
        }
        start[n] = o.len();
        start
    };
    let (sx, sy) = (first(&ox, w), first(&oy, h));
    let cell_area = (HOG_CELLS * HOG_CELLS) as f64;
    let mut cells = vec![0f64; HOG_CELLS * HOG_CELLS * HOG_BINS];
    for y in 0..h {
        let (up, down) = (y.saturating_sub(1), (y + 1).min(h - 1));
        for x in 0..w {
            let (left, right) = (x.saturating_sub(1), (x + 1).min(w - 1));
            let gx = grey[y * w + right] - grey[y * w + left];
            let gy = grey[down * w + x] - grey[up * w + x];
            let mag = (gx * gx + gy * gy).sqrt();
            if mag == 0.0 {
                continue;
            }
            let dx = luma[y * w + right] - luma[y * w + left];
            let dy = luma[down * w + x] - luma[up * w + x];
            let code = orientation_code(dx, dy);
            let bin = if code == DIAGONAL { diagonals.bin(gx, gy) } else { usize::from(code) };
            let (ys, xs) = (&oy[sy[y]..sy[y + 1]], &ox[sx[x]..sx[x + 1]]);
            if let ([(_, cy, wy)], [(_, cx, wx)]) = (ys, xs) {
                // One cell (most pixels): the same addition, without the
                // loops.
                cells[(cy * HOG_CELLS + cx) * HOG_BINS + bin] += mag * (wy * wx) as f64 / cell_area;
                continue;
            }
            for &(_, cy, wy) in ys {
                for &(_, cx, wx) in xs {
                    cells[(cy * HOG_CELLS + cx) * HOG_BINS + bin] += mag * (wy * wx) as f64 / cell_area;
                }
            }
        }
    }
    cells
}

/// [`split_cell_sums`] when both sides are multiples of [`HOG_CELLS`]:
/// a pixel's overlap with its one cell is `G x G` (it never straddles two
/// cells), so it adds `magnitude · G² / G²`, its magnitude exactly (a
/// product and a quotient by `G²`, a power of two), to its cell's bin: the
/// same numbers, added to each bin in the same row-major order.
///
/// A row is done in three passes, compiled for AVX2 where the processor
/// has it ([`pulp::Arch`]; IEEE square roots, products and sums, nothing
/// fused, so the same bits either way): every magnitude (four square roots
/// to an instruction), every orientation bin, then the additions, the
/// row's cells in turn pixel by pixel (pixel `k` of the first cell, of the
/// second, ..., then pixel `k + 1`). Each bin still takes its cell's
/// pixels in row-major order, but two additions to one bin are never
/// back to back: each waited on the one before (a store, then its load)
/// when a cell's neighbouring pixels shared a bin. A pixel of no gradient
/// adds its zero magnitude to a bin instead of a branch (every sum is
/// `+0.0` or more, which adding `+0.0` leaves as it is).
fn whole_cell_sums(luma: &[f64], grey: &[f64], w: usize, h: usize, diagonals: &mut Diagonals) -> Vec<f64> {
    struct Sums<'a>(&'a [f64], &'a [f64], usize, usize, &'a mut Diagonals);
    impl pulp::WithSimd for Sums<'_> {
        type Output = Vec<f64>;
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _simd: S) -> Vec<f64> {
            let Sums(luma, grey, w, h, diagonals) = self;
            whole_cell_sums_in(luma, grey, w, h, diagonals)
        }
    }
    pulp::Arch::new().dispatch(Sums(luma, grey, w, h, diagonals))
}

/// [`whole_cell_sums`]' work, inlined into each processor's route.
#[inline(always)]
fn whole_cell_sums_in(luma: &[f64], grey: &[f64], w: usize, h: usize, diagonals: &mut Diagonals) -> Vec<f64> {
    let mut cells = vec![0f64; HOG_CELLS * HOG_CELLS * HOG_BINS];
    let cell_w = w / HOG_CELLS;
    let mut mags = vec![0f64; w];
    let mut codes = vec![0u8; w];
    for y in 0..h {
        let (up, down) = (y.saturating_sub(1), (y + 1).min(h - 1));
        let (row, above, below) = (&grey[y * w..][..w], &grey[up * w..][..w], &grey[down * w..][..w]);
        let magnitude = |gx: f64, gy: f64| (gx * gx + gy * gy).sqrt();
        // Central differences inside the row, the border pixel repeated at
        // its ends (`w` is at least `HOG_CELLS`).
        let inside = row[2..].iter().zip(&row[..w - 2]).zip(below[1..].iter().zip(&above[1..]));
        for (m, ((r, l), (b, a))) in mags[1..w - 1].iter_mut().zip(inside) {
            *m = magnitude(r - l, b - a);
        }
        mags[0] = magnitude(row[1] - row[0], below[0] - above[0]);
        mags[w - 1] = magnitude(row[w - 1] - row[w - 2], below[w - 1] - above[w - 1]);
        let (l_row, l_up, l_down) = (&luma[y * w..][..w], &luma[up * w..][..w], &luma[down * w..][..w]);
        let code =
            |x: usize, left: usize, right: usize| orientation_code(l_row[right] - l_row[left], l_down[x] - l_up[x]);
        let inside = l_row[2..].iter().zip(&l_row[..w - 2]).zip(l_down[1..].iter().zip(&l_up[1..]));
        for (c, ((r, l), (d, u))) in codes[1..w - 1].iter_mut().zip(inside) {
            *c = orientation_code(r - l, d - u);
        }
        codes[0] = code(0, 0, 1);
        codes[w - 1] = code(w - 1, w - 2, w - 1);
        for x in 0..w {
            if codes[x] == DIAGONAL {
                // No gradient: bin 0, which its zero magnitude leaves as
                // it is. A diagonal: atan2's bin.
                let (left, right) = (x.saturating_sub(1), (x + 1).min(w - 1));
                codes[x] = if l_row[right] == l_row[left] {
                    0
                } else {
                    diagonals.bin(row[right] - row[left], below[x] - above[x]) as u8
                };
            }
        }
        let cell_row = &mut cells[y * HOG_CELLS / h * HOG_CELLS * HOG_BINS..][..HOG_CELLS * HOG_BINS];
        for k in 0..cell_w {
            for (c, cell) in cell_row.chunks_exact_mut(HOG_BINS).enumerate() {
                let x = c * cell_w + k;
                cell[usize::from(codes[x])] += mags[x];
            }
        }
    }
    cells
}

/// The orientation bin of a gradient of whole numbers `(dx, dy)`:
/// `floor(θ / (π / 8)) mod 8` of `θ = atan2(dy, dx)` folded into
/// `[0, π)`, decided by exact comparisons, without `atan2`; [`DIAGONAL`]
/// on a diagonal (`|dx| == |dy|`, no gradient included), where `θ` is a
/// bin edge and the bin is the one [`float_orientation_bin`] finds.
///
/// Why this is the bin of the grey image's own gradient: the grey levels
/// are these numbers divided by one constant `c` (255 or 255,000), so the
/// gradient has the same signs and zeros and, but for rounding, the same
/// angle. Rounding the levels moves the angle by a few ulps of `c / m`
/// (`m = max(|dx|, |dy|)`, at most 255,000), under 1e-10 / m. The bin
/// edges at odd multiples of π/8 have the irrational slopes `√2 ∓ 1`, and
/// a ratio of whole numbers `p / q` stays more than `0.3 / q²` away from
/// either in angle (their continued fractions are `[0; 2, 2, 2, ...]` and
/// `[2; 2, 2, ...]`): over a thousand times farther than rounding can move
/// it. The edges at 0 and π/2 are met exactly on both sides (a zero
/// difference is an exact zero), and the diagonals are left to the
/// floating-point route. `orientation_bins_agree_with_atan2` checks it.
///
/// `dx` and `dy` are whole numbers of magnitude at most 255,000, so every
/// sum, product and square here is a whole number below 2^53, exact in
/// `f64`, and each comparison the one whole numbers give. No branch: a
/// noisy image's gradients point anywhere, as good as random to the
/// processor, and a row's codes are found four lanes at a time where the
/// processor has them ([`whole_cell_sums`]).
#[inline(always)]
fn orientation_code(dx: f64, dy: f64) -> u8 {
    // Folded into [0, π): negated when dy < 0, or dy == 0 and dx < 0.
    // The fold keeps |dx| and makes dy |dy|; it only decides whether the
    // folded dx is positive.
    let flip = (dy < 0.0) | ((dy == 0.0) & (dx < 0.0));
    let positive = if flip { dx < 0.0 } else { dx > 0.0 };
    let (a, dy) = (dx.abs(), dy.abs());
    // dy < (√2 - 1)·a, dy < a and dy < (√2 + 1)·a, exactly, for a > 0
    // (all false for a = 0). Each implies the next, so how many hold
    // places θ in its half: bins 3, 2, 1, 0 for dx > 0 and 4, 5, 6, 7
    // otherwise.
    let below_eighth = (dy + a) * (dy + a) < 2.0 * a * a;
    let below_diagonal = dy < a;
    let below_three_eighths = below_diagonal | ((dy - a) * (dy - a) < 2.0 * a * a);
    let held = u8::from(below_eighth) + u8::from(below_diagonal) + u8::from(below_three_eighths);
    let bin = if positive { 3 - held } else { 4 + held };
    if a == dy { DIAGONAL } else { bin }
}

/// [`orientation_code`] of a diagonal: past every bin.
const DIAGONAL: u8 = HOG_BINS as u8;

/// One image's diagonal gradients' bins ([`float_orientation_bin`]), by
/// their signs and the quotient `|gy / gx|`.
///
/// libm's `atan2(y, x)` of finite, nonzero `x` and `y` with `|y / x|`
/// between 2^-64 and 2^64 is `atan(|y / x|)` placed by the two signs
/// alone (negated, or taken from π), so the bin is a function of those
/// three. A diagonal's quotient lies within a few ulps of 1: the bins of
/// quotients within [`Diagonals::ULPS`] of it are kept in a table by signs
/// and distance, and diagonals call `atan2` a few times a thread instead
/// of once each.
struct Diagonals {
    /// Per signs, per quotient `1 + (i - ULPS)` ulps of 1's bits: the bin,
    /// or [`Diagonals::UNKNOWN`].
    bins: [[u8; 2 * Diagonals::ULPS]; 4],
}

impl Default for Diagonals {
    fn default() -> Self {
        Diagonals { bins: [[Diagonals::UNKNOWN; 2 * Diagonals::ULPS]; 4] }
    }
}

impl Diagonals {
    /// Quotients kept on each side of 1, in steps of its bits.
    const ULPS: usize = 512;
    /// No bin found yet.
    const UNKNOWN: u8 = u8::MAX;

    /// [`float_orientation_bin`] of a gradient whose parts are finite and
    /// nonzero (a diagonal's: its quotient near 1).
    fn bin(&mut self, gx: f64, gy: f64) -> usize {
        let signs = usize::from(gy.is_sign_negative()) | usize::from(gx.is_sign_negative()) << 1;
        let q = (gy / gx).abs();
        let at = (q.to_bits() as i64 - 1f64.to_bits() as i64).checked_add(Self::ULPS as i64);
        let Some(slot) = at.and_then(|a| usize::try_from(a).ok()).filter(|&a| a < 2 * Self::ULPS) else {
            return float_orientation_bin(gx, gy);
        };
        let known = &mut self.bins[signs][slot];
        if *known == Self::UNKNOWN {
            *known = float_orientation_bin(gx, gy) as u8;
        }
        usize::from(*known)
    }
}

/// The orientation bin of a floating-point gradient, not both zero:
/// `floor(θ / (π / 8)) mod 8` of `θ = atan2(gy, gx)` folded into `[0, π)`.
fn float_orientation_bin(gx: f64, gy: f64) -> usize {
    let mut theta = libm::atan2(gy, gx);
    if theta < 0.0 {
        theta += std::f64::consts::PI;
    }
    ((theta / (std::f64::consts::PI / HOG_BINS as f64)).floor() as usize) % HOG_BINS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`orientation_code`] of whole numbers, `None` on a diagonal.
    fn orientation_bin(dx: i64, dy: i64) -> Option<usize> {
        let code = orientation_code(dx as f64, dy as f64);
        (code != DIAGONAL).then_some(usize::from(code))
    }

    /// Both routes, the grey levels as [`hog`] computes them.
    fn both_routes(l: [i64; 4], scale: f64) -> (usize, usize) {
        let [right, left, down, up] = l;
        let g = |v: i64| v as f64 / scale;
        let (gx, gy) = (g(right) - g(left), g(down) - g(up));
        let exact = orientation_bin(right - left, down - up).unwrap_or_else(|| float_orientation_bin(gx, gy));
        (exact, float_orientation_bin(gx, gy))
    }

    #[test]
    fn whole_cells_add_what_split_cells_add() {
        // Noise, flat runs (zero gradients), diagonals (the atan2 route)
        // and lumas of colour images, on sides that are multiples of 4.
        let mut state = 0xC0FFEE_u64;
        let mut next = |m: u64| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % m
        };
        for (w, h, scale, top) in
            [(32, 32, 255.0, 256), (4, 4, 255.0, 256), (8, 20, 255.0, 3), (64, 12, 255_000.0, 255_001)]
        {
            for image in 0..20 {
                let luma: Vec<f64> = (0..w * h)
                    .map(|i| match image % 4 {
                        0 => next(top) as f64,
                        1 => ((i % w + i / w) % 7) as f64,
                        2 => {
                            if next(5) == 0 {
                                next(top) as f64
                            } else {
                                0.0
                            }
                        }
                        _ => ((i % w) * 3 + (i / w) * 3) as f64,
                    })
                    .collect();
                let grey: Vec<f64> = luma.iter().map(|&l| l / scale).collect();
                let mut d = Diagonals::default();
                let (a, b) = (
                    whole_cell_sums(&luma, &grey, w, h, &mut d),
                    split_cell_sums(&luma, &grey, w, h, &mut Diagonals::default()),
                );
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&a), bits(&b), "{w} x {h}, image {image}");
                assert!(a.iter().any(|&v| v > 0.0), "{w} x {h}, image {image}: a gradient somewhere");
            }
        }
    }

    #[test]
    fn orientation_bins_agree_with_atan2() {
        let mut checked = 0;
        // Grey: every difference, at the bottom and the top of the range.
        for dx in -255i64..=255 {
            for dy in -255i64..=255 {
                if (dx, dy) == (0, 0) {
                    continue;
                }
                for (bx, by) in [(0, 0), (255, 255), (128, 7)] {
                    let (right, left) =
                        if dx >= 0 { (bx.max(dx), bx.max(dx) - dx) } else { (bx.min(255 + dx), bx.min(255 + dx) - dx) };
                    let (down, up) =
                        if dy >= 0 { (by.max(dy), by.max(dy) - dy) } else { (by.min(255 + dy), by.min(255 + dy) - dy) };
                    let (a, b) = both_routes([right, left, down, up], 255.0);
                    assert_eq!(a, b, "grey dx {dx} dy {dy} base {bx} {by}");
                    checked += 1;
                }
            }
        }
        // Colour lumas up to 255,000: the best approximations of √2 ∓ 1
        // (and their neighbours), scaled, on large levels, where rounding
        // moves the angle most; then pseudo-random levels.
        let (mut p, mut q) = (1i64, 2i64);
        let mut pairs = Vec::new();
        while q <= 255_000 {
            for (a, b) in [(p, q), (q - p, q), (p + q, q), (q + (q - p), q)] {
                for d in -2..=2 {
                    pairs.push((b, a + d));
                }
            }
            (p, q) = (q, 2 * q + p);
        }
        let mut state = 0x5EED_u64;
        let mut next = |m: i64| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % m as u64) as i64
        };
        for _ in 0..200_000 {
            pairs.push((next(510_001) - 255_000, next(510_001) - 255_000));
        }
        for (dx, dy) in pairs {
            if dx.abs() > 255_000 || dy.abs() > 255_000 || (dx, dy) == (0, 0) {
                continue;
            }
            for (sx, sy) in [(1, 1), (-1, 1), (1, -1), (-1, -1)] {
                let (dx, dy) = (sx * dx, sy * dy);
                let right = 255_000.min(255_000 + dx);
                let down = 255_000.min(255_000 + dy);
                let (a, b) = both_routes([right, right - dx, down, down - dy], 255_000.0);
                assert_eq!(a, b, "colour dx {dx} dy {dy}");
                checked += 1;
            }
        }
        assert!(checked > 1_500_000, "{checked}");
    }

    /// The memo of diagonal bins gives atan2's bin for every diagonal of
    /// grey levels (every pair of levels a difference apart, all four sign
    /// pairs) and for colour lumas, whether it computes or recalls it.
    #[test]
    fn diagonal_bins_are_atan2s() {
        let mut checked = 0;
        let mut memo = Diagonals::default();
        let mut check = |gx: f64, gy: f64, memo: &mut Diagonals| {
            let want = float_orientation_bin(gx, gy);
            assert_eq!(memo.bin(gx, gy), want, "gx {gx:e} gy {gy:e}");
            assert_eq!(Diagonals::default().bin(gx, gy), want, "fresh: gx {gx:e} gy {gy:e}");
            checked += 1;
        };
        let g = |l: i64, scale: f64| l as f64 / scale;
        for d in [1i64, 2, 3, 7, 64, 255] {
            for a in d..=255 {
                for b in (d..=255).step_by(5) {
                    for (sx, sy) in [(1, 1), (-1, 1), (1, -1), (-1, -1)] {
                        let gx = sx as f64 * (g(a, 255.0) - g(a - d, 255.0));
                        let gy = sy as f64 * (g(b, 255.0) - g(b - d, 255.0));
                        check(gx, gy, &mut memo);
                    }
                }
            }
        }
        let mut state = 0xD1A6_u64;
        let mut next = |m: i64| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % m as u64) as i64
        };
        for _ in 0..100_000 {
            let d = 1 + next(255_000);
            let (a, b) = (d + next(255_001 - d), d + next(255_001 - d));
            let (sx, sy) = (1 - 2 * next(2), 1 - 2 * next(2));
            let gx = sx as f64 * (g(a, 255_000.0) - g(a - d, 255_000.0));
            let gy = sy as f64 * (g(b, 255_000.0) - g(b - d, 255_000.0));
            check(gx, gy, &mut memo);
        }
        assert!(checked > 200_000, "{checked}");
    }

    #[test]
    fn orientation_bins_by_hand() {
        // (dx, dy) -> bin: the axes, each side of √2 - 1 and √2 + 1, and
        // the folded half-plane.
        for ((dx, dy), bin) in [
            ((5, 0), 0),
            ((-5, 0), 0),
            ((0, 5), 4),
            ((0, -5), 4),
            ((100, 41), 0),
            ((100, 42), 1),
            ((100, 241), 2),
            ((100, 242), 3),
            ((-100, 242), 4),
            ((-100, 241), 5),
            ((-100, 42), 6),
            ((-100, 41), 7),
            ((100, -41), 7),
            ((-100, -41), 0),
        ] {
            assert_eq!(orientation_bin(dx, dy), Some(bin), "({dx}, {dy})");
        }
        assert_eq!(orientation_bin(3, 3), None);
        assert_eq!(orientation_bin(-3, 3), None);
    }
}
