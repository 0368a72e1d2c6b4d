//! Anti-aliased polygon fills on a small canvas of `f32` levels: the
//! exact area each pixel's square shares with the outline (signed-area
//! accumulation, [`ab_glyph_rasterizer`]), nonzero winding clamped at
//! full cover, blended source-over.
//!
//! Every fill rasterises into a buffer the size of its outline's bounding
//! box, not of the canvas: the images hold a handful of small shapes, so
//! a fill costs about its own area. Outlines are polygons; circles are
//! regular polygons of [`CIRCLE_SIDES`] sides, fewer for small radii (a
//! chord strays at most `r·(1 - cos(π/n))`: under 0.07 px for the
//! 12-gons of radius under 2, 0.06 px for the 24-gons under 6, 0.09 px
//! for the 32-gons up to the largest radius drawn on a 64-pixel canvas).
//! All arithmetic is `f32` in a fixed order, with `libm` for the angles.

use ab_glyph_rasterizer::{Rasterizer, point};
use std::sync::OnceLock;

/// Sides of the polygons circles are drawn as, by radius: up to 2
/// pixels, up to 6, and larger.
const CIRCLE_SIDES: [usize; 3] = [12, 24, 32];

/// The radii below which a circle takes the first and second entry of
/// [`CIRCLE_SIDES`].
const CIRCLE_RADII: [f32; 2] = [2.0, 6.0];

/// The unit circle's vertices for a polygon of `CIRCLE_SIDES[k]` sides,
/// counter-clockwise from angle 0 (in image coordinates, y down:
/// clockwise on screen).
fn unit_circle(k: usize) -> &'static [[f32; 2]] {
    static UNIT: [OnceLock<Vec<[f32; 2]>>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    UNIT[k].get_or_init(|| {
        let sides = CIRCLE_SIDES[k];
        (0..sides)
            .map(|i| {
                let a = std::f64::consts::TAU * i as f64 / sides as f64;
                [libm::cos(a) as f32, libm::sin(a) as f32]
            })
            .collect()
    })
}

/// Closed polygons (contours), each a run of vertices.
#[derive(Default)]
pub(super) struct Outline {
    points: Vec<[f32; 2]>,
    /// Where each contour ends in `points`.
    ends: Vec<usize>,
}

impl Outline {
    pub fn clear(&mut self) {
        self.points.clear();
        self.ends.clear();
    }

    /// A contour through `points`, closed back to the first.
    pub fn polygon(&mut self, points: impl IntoIterator<Item = [f32; 2]>) {
        self.points.extend(points);
        self.ends.push(self.points.len());
    }

    /// A circle of radius `r` about `(cx, cy)`; `reversed` winds it the
    /// other way (a hole in a shape wound the usual way).
    pub fn circle(&mut self, cx: f32, cy: f32, r: f32, reversed: bool) {
        let k = CIRCLE_RADII.iter().take_while(|&&limit| r >= limit).count();
        let unit = unit_circle(k);
        let at = |p: &[f32; 2]| [cx + r * p[0], cy + r * p[1]];
        if reversed {
            self.polygon(unit.iter().rev().map(at));
        } else {
            self.polygon(unit.iter().map(at));
        }
    }

    /// An axis-aligned rectangle from `(x0, y0)` to `(x1, y1)`.
    pub fn rect(&mut self, x0: f32, y0: f32, x1: f32, y1: f32) {
        self.polygon([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]);
    }

    /// A segment from `p0` to `p1` stroked `width` wide with square-cut
    /// ends (nothing when the segment has no length).
    pub fn stroke(&mut self, p0: [f32; 2], p1: [f32; 2], width: f32) {
        let (dx, dy) = (p1[0] - p0[0], p1[1] - p0[1]);
        let len = (dx * dx + dy * dy).sqrt();
        if len == 0.0 {
            return;
        }
        let (nx, ny) = (-dy / len * width / 2.0, dx / len * width / 2.0);
        self.polygon([
            [p0[0] + nx, p0[1] + ny],
            [p1[0] + nx, p1[1] + ny],
            [p1[0] - nx, p1[1] - ny],
            [p0[0] - nx, p0[1] - ny],
        ]);
    }

    /// Every vertex mapped by `t`.
    pub fn transform(&mut self, t: &Placement) {
        for p in &mut self.points {
            *p = t.apply(*p);
        }
    }

    /// Each contour's edges, closed.
    fn edges(&self) -> impl Iterator<Item = ([f32; 2], [f32; 2])> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).flat_map(move |(s, &e)| {
            let c = &self.points[s..e];
            (0..c.len()).map(move |i| (c[i], c[(i + 1) % c.len()]))
        })
    }
}

/// A rotation by an angle (cosine and sine) then a translation.
#[derive(Debug, Clone, Copy)]
pub(super) struct Placement {
    pub cos: f32,
    pub sin: f32,
    pub tx: f32,
    pub ty: f32,
}

impl Placement {
    fn apply(&self, [u, v]: [f32; 2]) -> [f32; 2] {
        [self.cos * u - self.sin * v + self.tx, self.sin * u + self.cos * v + self.ty]
    }

    /// The first coordinate of image point `(x, y)` in the placed frame.
    fn local_u(&self, x: f32, y: f32) -> f32 {
        self.cos * (x - self.tx) + self.sin * (y - self.ty)
    }
}

/// What a fill paints with: one colour, or stripes across the placed
/// frame's first axis, `period` pixels from one `main` stripe to the next,
/// the second half of each period `dim`. Colours have one level per plane.
pub(super) enum Ink {
    Solid([f32; 3]),
    Stripes { main: [f32; 3], dim: [f32; 3], frame: Placement, period: f32 },
}

impl Ink {
    /// The colour at the centre of pixel `(x, y)`.
    fn at(&self, x: usize, y: usize) -> &[f32; 3] {
        match self {
            Ink::Solid(c) => c,
            Ink::Stripes { main, dim, frame, period } => {
                let t = frame.local_u(x as f32 + 0.5, y as f32 + 0.5) / period;
                if t - t.floor() < 0.5 { main } else { dim }
            }
        }
    }
}

/// A canvas of `planes` levels a pixel (1 grey, 3 RGB), in `[0, 255]`.
pub(super) struct Painter {
    width: usize,
    height: usize,
    planes: usize,
    levels: Vec<f32>,
    raster: Rasterizer,
}

impl Painter {
    /// A canvas filled with `background`.
    pub fn new(width: usize, height: usize, planes: usize, background: &[f32; 3]) -> Painter {
        // One copy of the background pixel, doubled (a copy call per pixel
        // was a hundredth of an image task's candidate).
        let levels = background[..planes].repeat(width * height);
        Painter { width, height, planes, levels, raster: Rasterizer::new(0, 0) }
    }

    /// Fills `outline` (nonzero winding) with `ink` at opacity `alpha`:
    /// each pixel takes `level + (ink - level) · alpha · cover`, its cover
    /// the share of its square inside the outline.
    pub fn fill(&mut self, outline: &Outline, ink: &Ink, alpha: f32) {
        let Some(first) = outline.points.first() else { return };
        let (mut lo, mut hi) = (*first, *first);
        for p in &outline.points {
            lo = [lo[0].min(p[0]), lo[1].min(p[1])];
            hi = [hi[0].max(p[0]), hi[1].max(p[1])];
        }
        if !(lo[0].is_finite() && lo[1].is_finite() && hi[0].is_finite() && hi[1].is_finite()) {
            return;
        }
        if hi[0] <= 0.0 || hi[1] <= 0.0 || lo[0] >= self.width as f32 || lo[1] >= self.height as f32 {
            return;
        }
        // The box's pixels: the rasteriser writes up to the column after
        // the rightmost edge's, so the box has one column to spare.
        let (ox, oy) = (lo[0].floor(), lo[1].floor());
        let bw = (hi[0].ceil() - ox) as usize + 2;
        let bh = ((hi[1].ceil() - oy) as usize).max(1);
        self.raster.reset(bw, bh);
        for (a, b) in outline.edges() {
            self.raster.draw_line(point(a[0] - ox, a[1] - oy), point(b[0] - ox, b[1] - oy));
        }
        let (w, h, planes) = (self.width as i64, self.height as i64, self.planes);
        let (ox, oy) = (ox as i64, oy as i64);
        let levels = &mut self.levels;
        self.raster.for_each_pixel_2d(|bx, by, cover| {
            let (x, y) = (ox + i64::from(bx), oy + i64::from(by));
            let a = cover.min(1.0) * alpha;
            if a <= 0.0 || x < 0 || y < 0 || x >= w || y >= h {
                return;
            }
            let (x, y) = (x as usize, y as usize);
            let colour = ink.at(x, y);
            let px = &mut levels[(y * w as usize + x) * planes..][..planes];
            for (v, &c) in px.iter_mut().zip(colour) {
                *v += (c - *v) * a;
            }
        });
    }

    /// The levels rounded to bytes, halves up (every level is in
    /// `[0, 255]`, so `v + 0.5` truncated is `v` rounded; the cast
    /// saturates).
    pub fn bytes(&self) -> Vec<u8> {
        self.levels.iter().map(|&v| (v + 0.5) as u8).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn painted(outline: &Outline, w: usize, h: usize) -> Vec<f32> {
        let mut p = Painter::new(w, h, 1, &[0.0; 3]);
        p.fill(outline, &Ink::Solid([255.0; 3]), 1.0);
        p.levels.iter().map(|v| v / 255.0).collect()
    }

    /// A pixel-aligned square covers its pixels whole and nothing else; a
    /// square offset by half a pixel covers its border pixels by half and
    /// its corners by a quarter.
    #[test]
    fn cover_is_the_area_inside_the_outline() {
        let mut o = Outline::default();
        o.rect(1.0, 1.0, 3.0, 3.0);
        let c = painted(&o, 4, 4);
        let want = [0., 0., 0., 0., 0., 1., 1., 0., 0., 1., 1., 0., 0., 0., 0., 0.];
        assert_eq!(c, want);
        o.clear();
        o.rect(0.5, 0.5, 2.5, 2.5);
        let c = painted(&o, 3, 3);
        let want = [0.25, 0.5, 0.25, 0.5, 1.0, 0.5, 0.25, 0.5, 0.25];
        for (got, want) in c.iter().zip(want) {
            assert!((got - want).abs() < 1e-6, "{c:?}");
        }
    }

    /// A circle's pixels add up to its area, a ring's to the annulus (the
    /// inner circle wound the other way is a hole), and two overlapping
    /// squares of one winding cover their union once.
    #[test]
    fn circles_rings_and_overlaps_cover_their_area() {
        let total = |o: &Outline| painted(o, 20, 20).iter().map(|&v| f64::from(v)).sum::<f64>();
        // An n-gon of circumradius r has area n/2 r² sin(2π/n); radius 6
        // is drawn as a 32-gon, 3 as a 24-gon and 1.5 as a 12-gon.
        let gon = |n: f64, r: f64| n / 2.0 * r * r * (std::f64::consts::TAU / n).sin();
        let mut o = Outline::default();
        o.circle(10.0, 10.0, 6.0, false);
        assert!((total(&o) - gon(32.0, 6.0)).abs() < 1e-3, "{}", total(&o));
        o.circle(10.0, 10.0, 3.0, true);
        let ring = gon(32.0, 6.0) - gon(24.0, 3.0);
        assert!((total(&o) - ring).abs() < 1e-3, "{}", total(&o));
        o.clear();
        o.circle(10.3, 10.6, 1.5, false);
        assert!((total(&o) - gon(12.0, 1.5)).abs() < 1e-3, "{}", total(&o));
        o.clear();
        o.rect(2.0, 2.0, 10.0, 6.0);
        o.rect(4.0, 0.5, 8.0, 12.0);
        assert!((total(&o) - (32.0 + 46.0 - 16.0)).abs() < 1e-3, "{}", total(&o));
    }

    /// Shapes past the canvas's edges paint only the pixels on it.
    #[test]
    fn outlines_off_the_canvas_are_clipped() {
        let mut o = Outline::default();
        o.rect(-3.0, -2.0, 2.0, 1.0);
        let c = painted(&o, 3, 3);
        assert_eq!(c, [1., 1., 0., 0., 0., 0., 0., 0., 0.]);
        o.clear();
        o.rect(2.0, 2.0, 9.0, 9.0);
        assert_eq!(painted(&o, 3, 3), [0., 0., 0., 0., 0., 0., 0., 0., 1.]);
    }

    /// A stroke is the rectangle around its segment; stripes alternate
    /// each half period along the placed frame's first axis.
    #[test]
    fn strokes_and_stripes() {
        let mut o = Outline::default();
        o.stroke([0.0, 1.5], [4.0, 1.5], 1.0);
        assert_eq!(painted(&o, 4, 3), [0., 0., 0., 0., 1., 1., 1., 1., 0., 0., 0., 0.]);
        let frame = Placement { cos: 1.0, sin: 0.0, tx: 0.0, ty: 0.0 };
        let ink = Ink::Stripes { main: [200.0; 3], dim: [50.0; 3], frame, period: 4.0 };
        let row: Vec<f32> = (0..8).map(|x| ink.at(x, 0)[0]).collect();
        assert_eq!(row, [200., 200., 50., 50., 200., 200., 50., 50.]);
    }
}
