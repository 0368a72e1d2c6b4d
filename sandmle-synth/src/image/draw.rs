//! Drawing one image from its factors: anti-aliased polygon fills for
//! the shapes and distractors ([`super::raster`]), then integer blur and
//! noise, then [`sandmle_core::encode_png`].
//!
//! Rasterising is single-precision float work in a fixed order (angles
//! through `libm`), the blur and noise are integer arithmetic, and the
//! noise draws from the row's own ChaCha8 stream, so one factor set and
//! stream give the same bytes on every run and thread count. Byte identity
//! is tested on x86-64; the float rasteriser is the one part whose last
//! bit another architecture could round differently.
//!
//! Grey canvases are painted in one plane: every colour is first turned
//! into its luma `(77 R + 150 G + 29 B) / 256`, so a grey image costs a
//! third of a colour one.

use super::factors::{ImageFactors, ShapeKind};
use super::raster::{Ink, Outline, Painter, Placement};
use crate::error::{Error, Result};
use rand::RngExt;
use sandmle_core::{Pixels, SeedRng, encode_png};

/// The shape of the images drawn: size and channels (1 grey or 3 RGB).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Canvas {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// 1 (grey) or 3 (RGB).
    pub channels: u8,
}

fn unsupported(reason: impl Into<String>) -> Error {
    Error::Unsupported { reason: reason.into() }
}

/// HSV (hue in degrees, saturation and value in `[0, 1]`) to 8-bit RGB.
fn hsv(hue: u16, s: f32, v: f32) -> [u8; 3] {
    let h = f32::from(hue % 360) / 60.0;
    let c = v * s;
    let x = c * (1.0 - ((h % 2.0) - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    let q = |u: f32| ((u + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    [q(r), q(g), q(b)]
}

/// The colour of the main shapes: the hue at full saturation in RGB; in
/// grey, a level that rises with the hue's warmth (`cos hue`). Either way
/// it contrasts with the background.
fn shape_colour(f: &ImageFactors, channels: u8) -> [u8; 3] {
    let dark = f.background >= 128;
    if channels == 1 {
        let warmth = (1.0 + libm::cos(f64::from(f.hue).to_radians())) / 2.0;
        let step = (70.0 + 110.0 * warmth).round() as i32;
        let b = i32::from(f.background);
        let level = if dark { b - step } else { b + step }.clamp(0, 255) as u8;
        [level; 3]
    } else {
        hsv(f.hue, 0.85, if dark { 0.45 } else { 0.95 })
    }
}

/// A colour as the canvas's levels: RGB, or its luma in the first plane.
fn levels(c: [u8; 3], channels: u8) -> [f32; 3] {
    if channels == 1 {
        let luma = (77.0 * f32::from(c[0]) + 150.0 * f32::from(c[1]) + 29.0 * f32::from(c[2])) / 256.0;
        [luma; 3]
    } else {
        c.map(f32::from)
    }
}

/// A rotation by `degrees` and a translation, through `libm`.
fn placed(degrees: f64, tx: f32, ty: f32) -> Placement {
    let r = degrees.to_radians();
    Placement { cos: libm::cos(r) as f32, sin: libm::sin(r) as f32, tx, ty }
}

/// One shape of radius `r` centred at the origin (a ring's hole wound
/// the other way; a cross's two bars overlap, covered once).
fn shape_outline(kind: ShapeKind, r: f32, out: &mut Outline) {
    match kind {
        ShapeKind::Circle => out.circle(0.0, 0.0, r, false),
        ShapeKind::Square => {
            let h = 0.85 * r;
            out.rect(-h, -h, h, h);
        }
        ShapeKind::Triangle => {
            let t = 1.15 * r;
            out.polygon([[0.0, -t], [0.866 * t, 0.5 * t], [-0.866 * t, 0.5 * t]]);
        }
        ShapeKind::Ring => {
            out.circle(0.0, 0.0, r, false);
            out.circle(0.0, 0.0, 0.55 * r, true);
        }
        ShapeKind::Cross => {
            let (l, w) = (r, 0.32 * r);
            out.rect(-l, -w, l, w);
            out.rect(-w, -l, w, l);
        }
    }
}

/// Distractors: small dots and thin lines of muted colours, drawn from
/// the row's stream.
fn draw_clutter(painter: &mut Painter, f: &ImageFactors, canvas: &Canvas, rng: &mut SeedRng) {
    let (w, h) = (canvas.width as f32, canvas.height as f32);
    let mut outline = Outline::default();
    for _ in 0..f.clutter {
        let level = rng.random_range(40..=215u8);
        let tint = rng.random_range(0..360u16);
        let ink = Ink::Solid(levels(hsv(tint, 0.25, f32::from(level) / 255.0), canvas.channels));
        let (x0, y0) = (rng.random_range(0.0..w), rng.random_range(0.0..h));
        outline.clear();
        if rng.random::<bool>() {
            let radius = rng.random_range(0.8..1.8f32);
            outline.circle(x0, y0, radius, false);
        } else {
            let (x1, y1) = (rng.random_range(0.0..w), rng.random_range(0.0..h));
            outline.stroke([x0, y0], [x1, y1], 1.0);
        }
        painter.fill(&outline, &ink, 190.0 / 255.0);
    }
}

/// The ink of the main shapes placed at `frame`: plain, or stripes of the
/// shape colour and a darker one at the factor's frequency (across the
/// shape's own frame, so they turn with it).
fn shape_ink(f: &ImageFactors, channels: u8, side: f32, frame: Placement) -> Ink {
    let main = shape_colour(f, channels);
    if f.stripes == 0 {
        return Ink::Solid(levels(main, channels));
    }
    let dim = main.map(|c| (u16::from(c) * 9 / 20) as u8);
    let period = side / f32::from(f.stripes);
    Ink::Stripes { main: levels(main, channels), dim: levels(dim, channels), frame, period }
}

/// Draws the image of `f` as pixels: background, distractors, the main
/// shapes, then blur and noise (the noise from `rng`).
///
/// # Errors
/// [`Error::Unsupported`] for a zero-sized canvas or one with other than
/// 1 or 3 channels.
pub fn render(f: &ImageFactors, canvas: &Canvas, rng: &mut SeedRng) -> Result<Pixels> {
    if canvas.channels != 1 && canvas.channels != 3 {
        return Err(unsupported(format!("images of {} channels are not drawn (1 or 3)", canvas.channels)));
    }
    if canvas.width == 0 || canvas.height == 0 {
        return Err(unsupported(format!("a {}x{} canvas", canvas.width, canvas.height)));
    }
    let (width, height) = (canvas.width as usize, canvas.height as usize);
    let background = levels([f.background; 3], canvas.channels);
    let mut painter = Painter::new(width, height, usize::from(canvas.channels), &background);
    draw_clutter(&mut painter, f, canvas, rng);
    let (w, h) = (canvas.width as f32, canvas.height as f32);
    let side = w.min(h);
    let r = side * f32::from(f.size) / 100.0 * if f.count >= 3 { 0.8 } else { 1.0 };
    let (cx, cy) = (w * f32::from(f.x) / 100.0, h * f32::from(f.y) / 100.0);
    let count = f.count.max(1);
    // Neighbours on the ring are at least 2.3 radii apart.
    let ring = if count > 1 { 1.15 * r / libm::sinf(std::f32::consts::PI / f32::from(count)) } else { 0.0 };
    let mut outline = Outline::default();
    for i in 0..count {
        let phi = (f64::from(f.angle) + 360.0 * f64::from(i) / f64::from(count)).to_radians();
        let px = cx + ring * libm::cos(phi) as f32;
        let py = cy + ring * libm::sin(phi) as f32;
        let frame = placed(f64::from(f.angle), px, py);
        outline.clear();
        shape_outline(f.shape, r, &mut outline);
        outline.transform(&frame);
        painter.fill(&outline, &shape_ink(f, canvas.channels, side, frame), 1.0);
    }
    let mut data = painter.bytes();
    box_blur(&mut data, canvas, usize::from(f.blur));
    add_noise(&mut data, f.noise, rng);
    Ok(Pixels { width: canvas.width, height: canvas.height, channels: canvas.channels, data })
}

/// [`render`], encoded as a PNG.
///
/// # Errors
/// As [`render`] and [`sandmle_core::encode_png`].
pub fn render_png(f: &ImageFactors, canvas: &Canvas, rng: &mut SeedRng) -> Result<Vec<u8>> {
    Ok(encode_png(&render(f, canvas, rng)?)?)
}

/// A separable box blur of `radius` pixels, edges clamped, integer
/// rounding: running sums, so the cost does not grow with the radius.
/// Across, each line is copied once into a buffer padded with its end
/// samples, `radius` on each side, so the sum slides over it without a
/// clamp per sample; down, one sum per sample of a row slides over whole
/// rows (the border rows repeated), a row at a time.
fn box_blur(data: &mut [u8], canvas: &Canvas, radius: usize) {
    if radius == 0 {
        return;
    }
    let (w, h, c) = (canvas.width as usize, canvas.height as usize, usize::from(canvas.channels));
    let taps = (2 * radius + 1) as u64;
    // `(sum + taps / 2) / taps` by a multiplication: with `m` the ceiling
    // of 2^32 / taps, `x · m >> 32` is `x / taps` rounded down for every
    // `x` below 2^32 / taps (its error, under x / 2^32, stays below the
    // 1 / taps that separates x / taps from the next whole number), and a
    // sum of bytes over at most 511 taps (a `u8` radius) is far below it.
    let m = (1u64 << 32).div_ceil(taps);
    let mean = |sum: u32| (((u64::from(sum) + taps / 2) * m) >> 32) as u8;
    let mut padded = vec![0u32; w + 2 * radius];
    let mut src = data.to_vec();
    for y in 0..h {
        for ch in 0..c {
            let start = y * w * c + ch;
            let pad = &mut padded;
            pad[..radius].fill(u32::from(src[start]));
            for (i, p) in pad[radius..radius + w].iter_mut().enumerate() {
                *p = u32::from(src[start + i * c]);
            }
            pad[radius + w..].fill(u32::from(src[start + (w - 1) * c]));
            let mut sum: u32 = pad[..2 * radius + 1].iter().sum();
            for i in 0..w {
                data[start + i * c] = mean(sum);
                if i + 1 < w {
                    sum = sum + pad[i + 2 * radius + 1] - pad[i];
                }
            }
        }
    }
    src.copy_from_slice(data);
    let row_len = w * c;
    let row = |y: isize| &src[y.clamp(0, h as isize - 1) as usize * row_len..][..row_len];
    let mut sums = vec![0u32; row_len];
    for d in -(radius as isize)..=radius as isize {
        sums.iter_mut().zip(row(d)).for_each(|(s, &v)| *s += u32::from(v));
    }
    for (y, out) in data.chunks_exact_mut(row_len).enumerate() {
        out.iter_mut().zip(&sums).for_each(|(o, &s)| *o = mean(s));
        let (enter, leave) = (row((y + radius + 1) as isize), row(y as isize - radius as isize));
        for ((s, &e), &l) in sums.iter_mut().zip(enter).zip(leave) {
            *s = *s + u32::from(e) - u32::from(l);
        }
    }
}

/// Adds noise of standard deviation `sd` levels to every sample: the sum
/// and difference of four random bytes (standard deviation about 147.8),
/// scaled in integers.
fn add_noise(data: &mut [u8], sd: u8, rng: &mut SeedRng) {
    if sd == 0 {
        return;
    }
    // 65536 / 147.8 ≈ 443.
    let scale = i32::from(sd) * 443;
    // The stream's bytes four to a sample, read as little-endian words
    // (`fill` on words is `fill_bytes` read so, on any processor): a word
    // per lane, several samples to an instruction.
    let mut words = vec![0u32; data.len()];
    rng.fill(&mut words[..]);
    let byte = |w: u32, k: u32| ((w >> (8 * k)) & 0xff) as i32;
    for (v, &w) in data.iter_mut().zip(&words) {
        let s = byte(w, 0) + byte(w, 1) - byte(w, 2) - byte(w, 3);
        let delta = (s * scale) >> 16;
        *v = (i32::from(*v) + delta).clamp(0, 255) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hue_zero_is_red_and_blur_keeps_a_flat_image() {
        assert_eq!(hsv(0, 1.0, 1.0), [255, 0, 0]);
        let canvas = Canvas { width: 4, height: 3, channels: 1 };
        let mut data = vec![90; 12];
        box_blur(&mut data, &canvas, 2);
        assert_eq!(data, vec![90; 12]);
        // One bright sample spreads over its 3 x 3 box (radius 1), edges clamped.
        let canvas = Canvas { width: 3, height: 3, channels: 1 };
        let mut data = vec![0, 0, 0, 0, 90, 0, 0, 0, 0];
        box_blur(&mut data, &canvas, 1);
        assert_eq!(data, vec![10, 10, 10, 10, 10, 10, 10, 10, 10]);
    }

    /// The padded running sums give each pass's clamped window average,
    /// computed here sample by sample, on every size and radius drawn
    /// (radii wider than the image included).
    #[test]
    fn box_blur_is_the_clamped_window_average_of_each_pass() {
        let pass = |src: &[u8], w: usize, h: usize, c: usize, r: isize, across: bool| -> Vec<u8> {
            let mut out = src.to_vec();
            for y in 0..h {
                for x in 0..w {
                    for ch in 0..c {
                        let at = |d: isize| {
                            let (xx, yy) = if across {
                                ((x as isize + d).clamp(0, w as isize - 1) as usize, y)
                            } else {
                                (x, (y as isize + d).clamp(0, h as isize - 1) as usize)
                            };
                            u32::from(src[(yy * w + xx) * c + ch])
                        };
                        let sum: u32 = (-r..=r).map(at).sum();
                        let taps = (2 * r + 1) as u32;
                        out[(y * w + x) * c + ch] = ((sum + taps / 2) / taps) as u8;
                    }
                }
            }
            out
        };
        let mut state = 0x0B1A_u64;
        for (w, h, c) in [(1, 1, 1), (5, 3, 1), (32, 32, 1), (7, 11, 3), (2, 9, 3)] {
            for radius in [1usize, 2, 3, 9] {
                let data: Vec<u8> = (0..w * h * c)
                    .map(|_| {
                        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                        (state >> 56) as u8
                    })
                    .collect();
                let canvas = Canvas { width: w as u32, height: h as u32, channels: c as u8 };
                let mut blurred = data.clone();
                box_blur(&mut blurred, &canvas, radius);
                let across = pass(&data, w, h, c, radius as isize, true);
                assert_eq!(blurred, pass(&across, w, h, c, radius as isize, false), "{w}x{h}x{c} radius {radius}");
            }
        }
    }
}
