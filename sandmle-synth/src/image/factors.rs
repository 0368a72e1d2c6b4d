//! The latent factors one image is drawn from, and the nuisance ranges a
//! difficulty sets.

use rand::RngExt;
use sandmle_core::SeedRng;
use serde::{Deserialize, Serialize};

/// The kind of the main shapes of an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeKind {
    /// A filled disc.
    Circle,
    /// A filled square.
    Square,
    /// A filled equilateral triangle.
    Triangle,
    /// A disc with a hole.
    Ring,
    /// A plus sign of two bars.
    Cross,
}

/// Every shape kind, in a fixed order (a kind's position is its code in
/// [`ImageFactors::to_codes`]).
pub const SHAPE_KINDS: [ShapeKind; 5] =
    [ShapeKind::Circle, ShapeKind::Square, ShapeKind::Triangle, ShapeKind::Ring, ShapeKind::Cross];

impl ShapeKind {
    /// The kind's name (`"circle"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ShapeKind::Circle => "circle",
            ShapeKind::Square => "square",
            ShapeKind::Triangle => "triangle",
            ShapeKind::Ring => "ring",
            ShapeKind::Cross => "cross",
        }
    }

    /// The kind's position in [`SHAPE_KINDS`].
    pub fn code(self) -> u16 {
        SHAPE_KINDS.iter().position(|k| *k == self).unwrap_or(0) as u16
    }
}

/// How much an image hides its factors: the upper bounds of the nuisance
/// factors, set by the difficulty ([`Nuisance::for_difficulty`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nuisance {
    /// Most distractor shapes and lines.
    pub max_clutter: u8,
    /// Largest box-blur radius, in pixels.
    pub max_blur: u8,
    /// Largest pixel-noise standard deviation, in levels of 255.
    pub max_noise: u8,
}

impl Nuisance {
    /// The nuisance bounds at difficulty `d` in `[0, 1]`: at 0 at most one
    /// distractor, no blur and noise of at most 3 levels; at 1 up to six
    /// distractors, blur up to 2 pixels and noise up to 24 levels.
    pub fn for_difficulty(d: f64) -> Nuisance {
        let d = if d.is_finite() { d.clamp(0.0, 1.0) } else { 0.0 };
        Nuisance {
            max_clutter: (1.0 + 5.0 * d).round() as u8,
            max_blur: (2.0 * d).round() as u8,
            max_noise: (3.0 + 21.0 * d).round() as u8,
        }
    }
}

/// The latent factors of one image. Every factor is a small whole number,
/// so a factor record is exact and short; the hidden rule reads the
/// semantic ones (shape, count, size, position, hue, stripes) and never
/// the nuisance ones (angle, clutter, blur, noise, background).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageFactors {
    /// Kind of the main shapes.
    pub shape: ShapeKind,
    /// Number of main shapes, 1 to 5, arranged on a ring around the centre.
    pub count: u8,
    /// Radius of a main shape, in percent of the shorter side (6 to 16;
    /// more for one of many looks on a canvas under 64 pixels,
    /// [`super::look_sizes`]).
    pub size: u8,
    /// Horizontal centre of the group, in percent of the width (20 to 80).
    pub x: u8,
    /// Vertical centre of the group, in percent of the height from the top
    /// (20 to 80).
    pub y: u8,
    /// Orientation of the shapes, their arrangement and their stripes, in
    /// degrees (0 to 359).
    pub angle: u16,
    /// Hue of the shapes in degrees (0 red, 120 green, 240 blue); grey
    /// images show it as brightness (red brightest, cyan darkest).
    pub hue: u16,
    /// Stripe cycles across the image's shorter side on the shapes (0: plain).
    pub stripes: u8,
    /// Number of distractor dots and lines behind the shapes.
    pub clutter: u8,
    /// Box-blur radius in pixels.
    pub blur: u8,
    /// Pixel-noise standard deviation, in levels of 255.
    pub noise: u8,
    /// Background grey level (0 to 255).
    pub background: u8,
}

/// The names of [`ImageFactors::to_codes`]'s entries, in order.
pub const FACTOR_FIELDS: [&str; 12] =
    ["shape", "count", "size", "x", "y", "angle", "hue", "stripes", "clutter", "blur", "noise", "background"];

/// Stripe frequencies drawn, half of them none.
const STRIPES: [u8; 6] = [0, 0, 0, 3, 5, 8];

impl ImageFactors {
    /// Draws one image's factors: every semantic factor uniform over its
    /// range, the nuisance factors up to `nuisance`'s bounds, the
    /// background around `background` (the seed's mean intensity, 0–255).
    pub fn draw(rng: &mut SeedRng, nuisance: &Nuisance, background: u8) -> ImageFactors {
        let shape = SHAPE_KINDS[rng.random_range(0..SHAPE_KINDS.len())];
        let count = rng.random_range(1..=5u8);
        let size = rng.random_range(6..=16u8);
        let x = rng.random_range(20..=80u8);
        let y = rng.random_range(20..=80u8);
        let angle = rng.random_range(0..360u16);
        let hue = rng.random_range(0..360u16);
        let stripes = STRIPES[rng.random_range(0..STRIPES.len())];
        let clutter = rng.random_range(0..=nuisance.max_clutter);
        let blur = rng.random_range(0..=nuisance.max_blur);
        let noise = rng.random_range(1..=nuisance.max_noise.max(1));
        let jitter = rng.random_range(-20..=20i16);
        let background = (i16::from(background) + jitter).clamp(10, 245) as u8;
        ImageFactors { shape, count, size, x, y, angle, hue, stripes, clutter, blur, noise, background }
    }

    /// The factors as whole numbers in [`FACTOR_FIELDS`] order (the shape
    /// by its [`ShapeKind::code`]): the form `provenance.json` records.
    pub fn to_codes(&self) -> [u16; 12] {
        [
            self.shape.code(),
            u16::from(self.count),
            u16::from(self.size),
            u16::from(self.x),
            u16::from(self.y),
            self.angle,
            self.hue,
            u16::from(self.stripes),
            u16::from(self.clutter),
            u16::from(self.blur),
            u16::from(self.noise),
            u16::from(self.background),
        ]
    }

    /// The factors [`ImageFactors::to_codes`] wrote, or `None` when a code
    /// is out of range.
    pub fn from_codes(codes: &[u16]) -> Option<ImageFactors> {
        let &[shape, count, size, x, y, angle, hue, stripes, clutter, blur, noise, background] = codes else {
            return None;
        };
        let byte = |v: u16| u8::try_from(v).ok();
        Some(ImageFactors {
            shape: *SHAPE_KINDS.get(usize::from(shape))?,
            count: byte(count)?,
            size: byte(size)?,
            x: byte(x)?,
            y: byte(y)?,
            angle,
            hue,
            stripes: byte(stripes)?,
            clutter: byte(clutter)?,
            blur: byte(blur)?,
            noise: byte(noise)?,
            background: byte(background)?,
        })
    }
}
