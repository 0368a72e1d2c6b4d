//! [`ImageFeaturizer`]: a fixed-length feature vector of one decoded image.

use crate::error::{Error, Result};
use sandmle_core::Pixels;

/// Side of the grid the pixels are averaged to.
pub const GRID: usize = 8;
/// Bins of each plane's histogram.
pub const HIST_BINS: usize = 8;
/// Side of the grid of gradient-histogram cells.
pub const HOG_CELLS: usize = 4;
/// Orientation bins of each gradient-histogram cell (unsigned, over `[0, π)`).
pub const HOG_BINS: usize = 8;
/// ε of the gradient histograms' per-cell L2 normalisation.
pub const HOG_EPS: f64 = 0.01;

/// Computes the image features of an image reduced to
/// [`ImageFeaturizer::channels`] colour planes.
///
/// Every image, whatever its size, is first reduced to `C` colour planes of
/// 8-bit samples (`C` = 1 grey or 3 RGB): alpha is composited over black
/// (`round(v * a / 255)`), a grey image in a colour task has its one plane
/// repeated three times, and a colour image in a grey task is turned into
/// its luma. The features are then, in this order:
///
/// | columns | what |
/// |---|---|
/// | `img_px_ch{k}_y{r}_x{c}` | plane `k`'s mean over cell `(r, c)` of an [`GRID`] x [`GRID`] grid, in `[0, 1]` |
/// | `img_hist_ch{k}_b{b}` | share of plane `k`'s samples `v` with `v / 32 == b` ([`HIST_BINS`] bins) |
/// | `img_hog_y{r}_x{c}_o{o}` | cell `(r, c)` of a [`HOG_CELLS`] x [`HOG_CELLS`] grid: gradient magnitude in orientation bin `o` of [`HOG_BINS`], L2-normalised per cell |
/// | `img_mean_ch{k}`, `img_sd_ch{k}` | plane `k`'s mean and (population) standard deviation, in `[0, 1]` |
///
/// Grid cells split the image by area: pixel `i` of `n` along an axis
/// covers `[i·G, (i+1)·G)` and cell `j` of `G` covers `[j·n, (j+1)·n)`, and
/// a pixel counts in a cell by the length of the overlap. So any size maps
/// to the same grid (a 1 x 1 image fills every cell, a 33-pixel row splits
/// its middle pixel between cells), and the pixel means are exact integer
/// sums divided once.
///
/// Gradients are taken on the grey image `(299 R + 587 G + 114 B) / 255000`
/// (ITU-R 601 luma) with central differences `g[x+1] - g[x-1]`, the border
/// pixel repeated; the orientation `atan2(gy, gx)` folded into `[0, π)`
/// falls in bin `floor(θ / (π / 8)) mod 8` (decided by exact comparisons of
/// the whole-number grey differences, with `atan2` only on diagonals); a pixel adds
/// `magnitude · overlap / G²` to its cells' bins, and each cell's 8 values
/// `h` become `h / sqrt(|h|² + ε²)` with ε = [`HOG_EPS`].
///
/// All reductions run in a fixed order (pixels row-major), so the features
/// are the same on every run and thread count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageFeaturizer {
    colour: bool,
}

impl ImageFeaturizer {
    /// Features of one grey plane.
    pub fn grey() -> Self {
        ImageFeaturizer { colour: false }
    }

    /// Features of three colour planes (R, G, B).
    pub fn colour() -> Self {
        ImageFeaturizer { colour: true }
    }

    /// The featurizer a set of images needs: colour if any of them has
    /// colour (3 or 4 channels), grey otherwise.
    pub fn for_images<'a>(images: impl IntoIterator<Item = &'a Pixels>) -> Self {
        ImageFeaturizer { colour: images.into_iter().any(|p| p.channels >= 3) }
    }

    /// Colour planes: 1 or 3.
    pub fn channels(&self) -> usize {
        if self.colour { 3 } else { 1 }
    }

    /// Number of features.
    pub fn len(&self) -> usize {
        let c = self.channels();
        c * GRID * GRID + c * HIST_BINS + HOG_CELLS * HOG_CELLS * HOG_BINS + 2 * c
    }

    /// Always `false`: there are features of every image.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The feature names, in the order [`ImageFeaturizer::extract`] gives
    /// the values.
    pub fn names(&self) -> Vec<String> {
        let c = self.channels();
        let mut names = Vec::with_capacity(self.len());
        for k in 0..c {
            for r in 0..GRID {
                for x in 0..GRID {
                    names.push(format!("img_px_ch{k}_y{r}_x{x}"));
                }
            }
        }
        for k in 0..c {
            names.extend((0..HIST_BINS).map(|b| format!("img_hist_ch{k}_b{b}")));
        }
        for r in 0..HOG_CELLS {
            for x in 0..HOG_CELLS {
                names.extend((0..HOG_BINS).map(|o| format!("img_hog_y{r}_x{x}_o{o}")));
            }
        }
        names.extend((0..c).map(|k| format!("img_mean_ch{k}")));
        names.extend((0..c).map(|k| format!("img_sd_ch{k}")));
        names
    }

    /// The features of one image, in the order of [`ImageFeaturizer::names`].
    ///
    /// # Errors
    /// [`Error::Image`] if `pixels` is malformed: a zero side, channels
    /// other than 1–4, or a sample count other than
    /// `width * height * channels`.
    pub fn extract(&self, pixels: &Pixels) -> Result<Vec<f64>> {
        let (w, h, ch) = (pixels.width as usize, pixels.height as usize, pixels.channels as usize);
        let bad = |reason: String| Error::Image { file: "pixels".into(), reason };
        if w == 0 || h == 0 {
            return Err(bad(format!("size {w}x{h}")));
        }
        if !(1..=4).contains(&ch) {
            return Err(bad(format!("{ch} channels (1 to 4 are read)")));
        }
        if pixels.data.len() != w * h * ch {
            return Err(bad(format!("{} samples for {w}x{h}x{ch}", pixels.data.len())));
        }
        let planes = self.planes(pixels);
        let mut out = Vec::with_capacity(self.len());
        let (ox, oy) = (overlaps(w, GRID), overlaps(h, GRID));
        for plane in &planes {
            let mut acc = [0u64; GRID * GRID];
            for &(y, cy, wy) in &oy {
                let row = &plane[y * w..(y + 1) * w];
                for &(x, cx, wx) in &ox {
                    acc[cy * GRID + cx] += wy * wx * u64::from(row[x]);
                }
            }
            let denom = (w * h) as f64 * 255.0;
            out.extend(acc.iter().map(|&a| a as f64 / denom));
        }
        for plane in &planes {
            let mut counts = [0u64; HIST_BINS];
            for &v in plane {
                counts[usize::from(v >> 5)] += 1;
            }
            out.extend(counts.iter().map(|&n| n as f64 / (w * h) as f64));
        }
        out.extend(hog(&planes, w, h));
        let n = (w * h) as u128;
        let mut sds = Vec::with_capacity(planes.len());
        for plane in &planes {
            let s: u128 = plane.iter().map(|&v| u128::from(v)).sum();
            let ss: u128 = plane.iter().map(|&v| u128::from(v) * u128::from(v)).sum();
            out.push(s as f64 / (n as f64 * 255.0));
            let var = (n * ss - s * s) as f64 / ((n * n) as f64 * 65025.0);
            sds.push(var.sqrt());
        }
        out.extend(sds);
        Ok(out)
    }

    /// The image's colour planes, alpha composited over black.
    fn planes(&self, p: &Pixels) -> Vec<Vec<u8>> {
        let ch = p.channels as usize;
        let n = p.width as usize * p.height as usize;
        let over = |v: u8, a: u8| ((u32::from(v) * u32::from(a) + 127) / 255) as u8;
        let colour_at = |i: usize, k: usize| -> u8 {
            let s = &p.data[i * ch..(i + 1) * ch];
            match ch {
                1 => s[0],
                2 => over(s[0], s[1]),
                3 => s[k],
                _ => over(s[k], s[3]),
            }
        };
        let src_colour = ch >= 3;
        match (self.colour, src_colour) {
            (true, true) => (0..3).map(|k| (0..n).map(|i| colour_at(i, k)).collect()).collect(),
            (true, false) => {
                let g: Vec<u8> = (0..n).map(|i| colour_at(i, 0)).collect();
                vec![g.clone(), g.clone(), g]
            }
            (false, false) => vec![(0..n).map(|i| colour_at(i, 0)).collect()],
            (false, true) => vec![
                (0..n)
                    .map(|i| {
                        let (r, g, b) = (colour_at(i, 0), colour_at(i, 1), colour_at(i, 2));
                        ((299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b) + 500) / 1000) as u8
                    })
                    .collect(),
            ],
        }
    }
}

/// The `(pixel, cell, overlap)` triples of an axis of `n` pixels split into
/// `g` cells, in pixel order (see the module docs).
fn overlaps(n: usize, g: usize) -> Vec<(usize, usize, u64)> {
    let mut out = Vec::with_capacity(n + g);
    for i in 0..n {
        let (lo, hi) = (i * g, (i + 1) * g);
        for j in lo / n..=(hi - 1) / n {
            let o = hi.min((j + 1) * n) - lo.max(j * n);
            if o > 0 {
                out.push((i, j, o as u64));
            }
        }
    }
    out
}

/// The gradient-orientation histograms of the planes' grey image.
fn hog(planes: &[Vec<u8>], w: usize, h: usize) -> Vec<f64> {
    // Each pixel's grey level as a whole number (`luma / scale` is the
    // grey image), for the orientation bins.
    let (luma, scale): (Vec<i64>, f64) = if planes.len() == 3 {
        let luma = (0..w * h)
            .map(|i| 299 * i64::from(planes[0][i]) + 587 * i64::from(planes[1][i]) + 114 * i64::from(planes[2][i]))
            .collect();
        (luma, 255_000.0)
    } else {
        (planes[0].iter().map(|&v| i64::from(v)).collect(), 255.0)
    };
    let grey: Vec<f64> = luma.iter().map(|&l| l as f64 / scale).collect();
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
            let bin = orientation_bin(dx, dy).unwrap_or_else(|| float_orientation_bin(gx, gy));
            let (ys, xs) = (&oy[sy[y]..sy[y + 1]], &ox[sx[x]..sx[x + 1]]);
            if let ([(_, cy, wy)], [(_, cx, wx)]) = (ys, xs) {
                // One cell (every pixel, when the sides are multiples of
                // the grid): the same addition, without the loops.
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
    for cell in cells.chunks_mut(HOG_BINS) {
        let norm = (cell.iter().map(|v| v * v).sum::<f64>() + HOG_EPS * HOG_EPS).sqrt();
        cell.iter_mut().for_each(|v| *v /= norm);
    }
    cells
}

/// The orientation bin of a gradient of whole numbers `(dx, dy)`, not both
/// zero: `floor(θ / (π / 8)) mod 8` of `θ = atan2(dy, dx)` folded into
/// `[0, π)`, decided by exact comparisons, without `atan2`. `None` on a
/// diagonal (`|dx| == |dy|`), where `θ` is a bin edge and the bin is the
/// one [`float_orientation_bin`] finds.
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
fn orientation_bin(dx: i64, dy: i64) -> Option<usize> {
    // Folded into [0, π): dy > 0, or dy == 0 and dx > 0.
    let (dx, dy) = if dy < 0 || (dy == 0 && dx < 0) { (-dx, -dy) } else { (dx, dy) };
    let a = dx.abs();
    if a == dy {
        return None;
    }
    // dy < (√2 - 1)·a, dy < a and dy < (√2 + 1)·a, exactly, for a > 0
    // (all false for a = 0). Each implies the next, so how many hold
    // places θ in its half: bins 3, 2, 1, 0 for dx > 0 and 4, 5, 6, 7
    // otherwise. Counted without a branch (the side a gradient falls on
    // is as good as random to the processor).
    let below_eighth = (dy + a) * (dy + a) < 2 * a * a;
    let below_diagonal = dy < a;
    let below_three_eighths = below_diagonal | ((dy - a) * (dy - a) < 2 * a * a);
    let held = usize::from(below_eighth) + usize::from(below_diagonal) + usize::from(below_three_eighths);
    Some(if dx > 0 { 3 - held } else { 4 + held })
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

    /// Both routes, the grey levels as [`hog`] computes them.
    fn both_routes(l: [i64; 4], scale: f64) -> (usize, usize) {
        let [right, left, down, up] = l;
        let g = |v: i64| v as f64 / scale;
        let (gx, gy) = (g(right) - g(left), g(down) - g(up));
        let exact = orientation_bin(right - left, down - up).unwrap_or_else(|| float_orientation_bin(gx, gy));
        (exact, float_orientation_bin(gx, gy))
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

    #[test]
    fn overlaps_cover_every_cell_with_its_length() {
        for (n, g) in [(1, 8), (3, 8), (8, 8), (32, 8), (33, 8), (5, 4)] {
            let o = overlaps(n, g);
            for j in 0..g {
                let total: u64 = o.iter().filter(|t| t.1 == j).map(|t| t.2).sum();
                assert_eq!(total, n as u64, "n {n} g {g} cell {j}");
            }
            for i in 0..n {
                let total: u64 = o.iter().filter(|t| t.0 == i).map(|t| t.2).sum();
                assert_eq!(total, g as u64, "n {n} g {g} pixel {i}");
            }
        }
    }

    #[test]
    fn names_match_values() {
        for f in [ImageFeaturizer::grey(), ImageFeaturizer::colour()] {
            let p = Pixels { width: 3, height: 5, channels: 4, data: (0..60).map(|i| (i * 4) as u8).collect() };
            assert_eq!(f.extract(&p).unwrap().len(), f.names().len());
            assert_eq!(f.names().len(), f.len());
        }
    }
}
