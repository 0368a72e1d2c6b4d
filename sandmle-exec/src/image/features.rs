//! [`ImageFeaturizer`]: a fixed-length feature vector of one decoded image.

use super::objects::{OBJECT_FEATURES, object_features};
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
/// | `img_objects`, ... | the five object features of [`super::objects`]: regions off the background, their count, areas and fill |
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
        c * GRID * GRID + c * HIST_BINS + HOG_CELLS * HOG_CELLS * HOG_BINS + 2 * c + OBJECT_FEATURES.len()
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
        names.extend(OBJECT_FEATURES.iter().map(|n| (*n).to_owned()));
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
        for plane in &planes {
            let acc = grid_sums(plane, w, h);
            let denom = (w * h) as f64 * 255.0;
            out.extend(acc.iter().map(|&a| a as f64 / denom));
        }
        for plane in &planes {
            // Four sets of counts, a pixel in its place's set: in a run of
            // one level (a background) each increment would otherwise wait
            // for the one before.
            let mut lanes = [[0u64; HIST_BINS]; 4];
            let quads = plane.chunks_exact(4);
            for &v in quads.remainder() {
                lanes[0][usize::from(v >> 5)] += 1;
            }
            for quad in quads {
                for (lane, &v) in lanes.iter_mut().zip(quad) {
                    lane[usize::from(v >> 5)] += 1;
                }
            }
            let counts = (0..HIST_BINS).map(|b| lanes.iter().map(|lane| lane[b]).sum::<u64>());
            out.extend(counts.map(|n| n as f64 / (w * h) as f64));
        }
        out.extend(super::hog::hog(&planes, w, h));
        let n = (w * h) as u128;
        let mut sds = Vec::with_capacity(planes.len());
        for plane in &planes {
            // In 64 bits (under 2^48 for any image below 2^32 pixels),
            // widened for the variance's products.
            let s = u128::from(plane.iter().map(|&v| u64::from(v)).sum::<u64>());
            let ss = u128::from(plane.iter().map(|&v| u64::from(v) * u64::from(v)).sum::<u64>());
            out.push(s as f64 / (n as f64 * 255.0));
            let var = (n * ss - s * s) as f64 / ((n * n) as f64 * 65025.0);
            sds.push(var.sqrt());
        }
        out.extend(sds);
        out.extend(object_features(&planes, w, h));
        Ok(out)
    }

    /// The image's colour planes, alpha composited over black.
    fn planes(&self, p: &Pixels) -> Vec<Vec<u8>> {
        let n = p.width as usize * p.height as usize;
        // The common cases, plane by plane without a choice per sample.
        match (self.colour, p.channels) {
            (false, 1) => vec![p.data[..n].to_vec()],
            (true, 3) => {
                let mut planes: Vec<Vec<u8>> = (0..3).map(|_| Vec::with_capacity(n)).collect();
                for s in p.data[..3 * n].chunks_exact(3) {
                    for (plane, &v) in planes.iter_mut().zip(s) {
                        plane.push(v);
                    }
                }
                planes
            }
            _ => self.planes_by_sample(p),
        }
    }

    /// [`ImageFeaturizer::planes`], sample by sample, for any channels.
    fn planes_by_sample(&self, p: &Pixels) -> Vec<Vec<u8>> {
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
        match (self.colour, ch >= 3) {
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

/// A plane's [`GRID`] x [`GRID`] cell sums, each pixel times its overlap
/// with the cell (see [`ImageFeaturizer`]): whole numbers, the same in any
/// order. When [`GRID`] divides both sides, every pixel lies in one cell
/// whole, its overlap `G x G`: the cells' plain sums times `G²`, added
/// along each row's runs of a cell (32 x 32 images' cells took a tenth of
/// their features' time through the overlap triples).
fn grid_sums(plane: &[u8], w: usize, h: usize) -> [u64; GRID * GRID] {
    let mut acc = [0u64; GRID * GRID];
    if w.is_multiple_of(GRID) && h.is_multiple_of(GRID) {
        let (cell_w, cell_h) = (w / GRID, h / GRID);
        for (y, row) in plane.chunks_exact(w).enumerate() {
            let cells = &mut acc[y / cell_h * GRID..][..GRID];
            for (cell, run) in cells.iter_mut().zip(row.chunks_exact(cell_w)) {
                *cell += run.iter().map(|&v| u64::from(v)).sum::<u64>();
            }
        }
        let area = (GRID * GRID) as u64;
        acc.iter_mut().for_each(|a| *a *= area);
        return acc;
    }
    let (ox, oy) = (overlaps(w, GRID), overlaps(h, GRID));
    // The triples of each cell across (`ox` is in pixel order, so in
    // cell order), summed in a register before the cell's total.
    let columns: Vec<&[(usize, usize, u64)]> = ox.chunk_by(|a, b| a.1 == b.1).collect();
    for &(y, cy, wy) in &oy {
        let row = &plane[y * w..(y + 1) * w];
        let cells = &mut acc[cy * GRID..][..GRID];
        for column in &columns {
            let sum: u64 = column.iter().map(|&(x, _, wx)| wx * u64::from(row[x])).sum();
            cells[column[0].1] += wy * sum;
        }
    }
    acc
}

/// The `(pixel, cell, overlap)` triples of an axis of `n` pixels split into
/// `g` cells, in pixel order (see the module docs).
pub(super) fn overlaps(n: usize, g: usize) -> Vec<(usize, usize, u64)> {
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A grey image in a grey task and a colour one in a colour task take
    /// their planes whole: the planes sample by sample gives.
    #[test]
    fn whole_planes_are_the_sample_by_sample_ones() {
        for (f, channels) in [(ImageFeaturizer::grey(), 1u8), (ImageFeaturizer::colour(), 3)] {
            let data = (0..5 * 3 * usize::from(channels)).map(|i| (i * 37 % 256) as u8).collect();
            let p = Pixels { width: 5, height: 3, channels, data };
            assert_eq!(f.planes(&p), f.planes_by_sample(&p), "{channels} channels");
        }
    }

    /// Sides that [`GRID`] divides take the plain sums times `G²`; they
    /// must be the overlap triples' sums.
    #[test]
    fn whole_grid_cells_sum_what_overlaps_sum() {
        for (w, h) in [(8, 8), (32, 32), (16, 40), (64, 8)] {
            let plane: Vec<u8> = (0..w * h).map(|i| (i * 97 % 256) as u8).collect();
            let (ox, oy) = (overlaps(w, GRID), overlaps(h, GRID));
            let mut want = [0u64; GRID * GRID];
            for &(y, cy, wy) in &oy {
                for &(x, cx, wx) in &ox {
                    want[cy * GRID + cx] += wy * wx * u64::from(plane[y * w + x]);
                }
            }
            assert_eq!(grid_sums(&plane, w, h), want, "{w} x {h}");
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
