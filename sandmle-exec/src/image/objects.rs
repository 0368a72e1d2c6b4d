//! Object features: the shapes an image shows, found as connected regions
//! that stand out from its background.
//!
//! Pixel means, histograms and gradient histograms say where the ink is
//! and how it is oriented, not how many things there are or what outline
//! they have: five small discs and one large one can share every grid
//! mean. A practitioner's first look at such images counts blobs; a
//! pretrained network does as much. These five numbers give the panel the
//! same reach:
//!
//! | column | what |
//! |---|---|
//! | `img_objects` | regions of at least [`min_object_area`] pixels |
//! | `img_object_area_mean` | their mean area, as a share of the image |
//! | `img_object_area_max` | the largest one's area, as a share of the image |
//! | `img_object_fill` | their mean area over their bounding box's (a square fills 1, a disc 0.79, a cross or a ring much less) |
//! | `img_foreground` | the share of pixels off the background |
//!
//! The background of plane `k` is the median of its border samples (the
//! lower middle one of the sorted samples). A pixel is foreground when any
//! plane differs from its background by more than [`OBJECT_THRESHOLD`];
//! regions are 4-connected. Everything is whole-number arithmetic and
//! row-major, so the features are the same on every run.

/// How far (of 255) a sample must differ from its plane's background for
/// its pixel to be foreground.
pub const OBJECT_THRESHOLD: u8 = 24;

/// The object features' names, in the order the image features end with them.
pub const OBJECT_FEATURES: [&str; 5] =
    ["img_objects", "img_object_area_mean", "img_object_area_max", "img_object_fill", "img_foreground"];

/// The smallest region counted as an object in an image of `pixels`
/// pixels: 4, or one 1,024th of the image when that is more (a speck of
/// noise or a stray dot is not an object).
pub fn min_object_area(pixels: usize) -> usize {
    (pixels / 1024).max(4)
}

/// The object features of colour `planes` of a `w` x `h` image (see the
/// module docs), in the order of [`OBJECT_FEATURES`].
pub(crate) fn object_features(planes: &[Vec<u8>], w: usize, h: usize) -> [f64; 5] {
    let n = w * h;
    let on_border = |i: usize| {
        let (r, c) = (i / w, i % w);
        r == 0 || r + 1 == h || c == 0 || c + 1 == w
    };
    let backgrounds: Vec<u8> = planes
        .iter()
        .map(|plane| {
            let mut border: Vec<u8> = (0..n).filter(|&i| on_border(i)).map(|i| plane[i]).collect();
            border.sort_unstable();
            border.get(border.len().saturating_sub(1) / 2).copied().unwrap_or(0)
        })
        .collect();
    let foreground: Vec<bool> =
        (0..n).map(|i| planes.iter().zip(&backgrounds).any(|(p, &b)| p[i].abs_diff(b) > OBJECT_THRESHOLD)).collect();
    let on = foreground.iter().filter(|&&f| f).count();
    let least = min_object_area(n);
    let mut seen = vec![false; n];
    let mut stack = Vec::new();
    let (mut count, mut area_sum, mut area_max, mut fill_sum) = (0usize, 0usize, 0usize, 0.0f64);
    for start in 0..n {
        if !foreground[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let (mut area, mut r0, mut r1, mut c0, mut c1) = (0usize, h, 0usize, w, 0usize);
        while let Some(i) = stack.pop() {
            area += 1;
            let (r, c) = (i / w, i % w);
            (r0, r1, c0, c1) = (r0.min(r), r1.max(r), c0.min(c), c1.max(c));
            let mut visit = |j: usize| {
                if foreground[j] && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            };
            if r > 0 {
                visit(i - w);
            }
            if r + 1 < h {
                visit(i + w);
            }
            if c > 0 {
                visit(i - 1);
            }
            if c + 1 < w {
                visit(i + 1);
            }
        }
        if area >= least {
            count += 1;
            area_sum += area;
            area_max = area_max.max(area);
            fill_sum += area as f64 / ((r1 - r0 + 1) * (c1 - c0 + 1)) as f64;
        }
    }
    let share = |a: usize| a as f64 / n as f64;
    let mean = |s: f64| if count == 0 { 0.0 } else { s / count as f64 };
    [count as f64, mean(share(area_sum)), share(area_max), mean(fill_sum), share(on)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two squares and a speck on a grey background: two objects, the
    /// speck too small to count, each square filling its box.
    #[test]
    fn squares_are_counted_and_specks_are_not() {
        let (w, h) = (16, 12);
        let mut plane = vec![100u8; w * h];
        for (r0, c0, side) in [(2, 2, 3), (6, 9, 4)] {
            for r in r0..r0 + side {
                for c in c0..c0 + side {
                    plane[r * w + c] = 200;
                }
            }
        }
        plane[10 * w + 2] = 10;
        let f = object_features(&[plane], w, h);
        assert_eq!(f[0], 2.0);
        assert!((f[1] - 12.5 / 192.0).abs() < 1e-12);
        assert!((f[2] - 16.0 / 192.0).abs() < 1e-12);
        assert_eq!(f[3], 1.0);
        assert!((f[4] - 26.0 / 192.0).abs() < 1e-12);
    }

    /// A plain image has no object and no foreground.
    #[test]
    fn a_plain_image_has_no_object() {
        assert_eq!(object_features(&[vec![7u8; 64]], 8, 8), [0.0; 5]);
    }
}
