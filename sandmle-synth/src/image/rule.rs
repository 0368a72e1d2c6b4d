//! Hidden rules over image factors: [`Term`]s, their weighted
//! combinations ([`ImageRule`]) and the families they are drawn from
//! ([`ImageFamily`]).

use super::factors::{ImageFactors, SHAPE_KINDS, ShapeKind};
use crate::stats::{mean, sd};
use rand::RngExt;
use sandmle_core::SeedRng;
use serde::{Deserialize, Serialize};

/// One quantity a rule reads off an image's factors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "term", rename_all = "snake_case")]
pub enum Term {
    /// Number of main shapes (1 to 5).
    Count,
    /// Number of main shapes of one kind (0 when they are of another).
    CountOf {
        /// The kind counted.
        shape: ShapeKind,
    },
    /// 1 when the main shapes are of this kind, else 0.
    Is {
        /// The kind.
        shape: ShapeKind,
    },
    /// How high the group sits: `(50 - y) / 50`, positive in the upper half.
    Upper,
    /// How red the shapes are: `cos(hue)` (1 red, -1 cyan; brightness in grey).
    Warm,
    /// Shape radius in tenths of the shorter side.
    Size,
    /// Stripe frequency, in units of four cycles per side (0 plain).
    Stripes,
}

impl Term {
    /// The term's value on one image.
    pub fn value(self, f: &ImageFactors) -> f64 {
        match self {
            Term::Count => f64::from(f.count),
            Term::CountOf { shape } => {
                if f.shape == shape {
                    f64::from(f.count)
                } else {
                    0.0
                }
            }
            Term::Is { shape } => f64::from(u8::from(f.shape == shape)),
            Term::Upper => (50.0 - f64::from(f.y)) / 50.0,
            Term::Warm => libm::cos(f64::from(f.hue).to_radians()),
            Term::Size => f64::from(f.size) / 10.0,
            Term::Stripes => f64::from(f.stripes) / 4.0,
        }
    }
}

/// A hidden rule: a weighted sum of terms plus at most one product of two
/// terms, standardised over the task's rows (`(raw - center) / scale`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageRule {
    /// `(term, weight)`.
    pub terms: Vec<(Term, f64)>,
    /// `(a, b, weight)`: `weight * a * b`.
    pub pair: Option<(Term, Term, f64)>,
    /// Mean of the raw score over the task's rows.
    pub center: f64,
    /// Standard deviation of the raw score over the task's rows (1 if 0).
    pub scale: f64,
}

impl ImageRule {
    /// The weighted sum, unstandardised.
    pub fn raw(&self, f: &ImageFactors) -> f64 {
        let mut s: f64 = self.terms.iter().map(|&(t, w)| w * t.value(f)).sum();
        if let Some((a, b, w)) = self.pair {
            s += w * a.value(f) * b.value(f);
        }
        s
    }

    /// The standardised score of one image.
    pub fn score(&self, f: &ImageFactors) -> f64 {
        (self.raw(f) - self.center) / self.scale
    }

    /// Sets the standardisation to the mean and sd over `rows`.
    pub(crate) fn fit(&mut self, rows: &[ImageFactors]) {
        let raw: Vec<f64> = rows.iter().map(|f| self.raw(f)).collect();
        let d = sd(&raw);
        self.center = mean(&raw);
        self.scale = if d > 0.0 { d } else { 1.0 };
    }
}

/// A family of hidden rules over image factors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImageFamily {
    /// How many shapes there are, with a bonus for one kind.
    Counting,
    /// Where the shapes sit and how red they are, and both together.
    PlaceAndColour,
    /// Whether and how densely the shapes are striped.
    Texture,
    /// Which kind the shapes are, and how large.
    ShapeAndSize,
    /// Two or three semantic terms with random weights.
    Mixed,
}

/// Every image rule family, in a fixed order.
pub const IMAGE_FAMILIES: [ImageFamily; 5] = [
    ImageFamily::Counting,
    ImageFamily::PlaceAndColour,
    ImageFamily::Texture,
    ImageFamily::ShapeAndSize,
    ImageFamily::Mixed,
];

impl ImageFamily {
    /// The family's name in a plan (`"image_counting"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ImageFamily::Counting => "image_counting",
            ImageFamily::PlaceAndColour => "image_place_and_colour",
            ImageFamily::Texture => "image_texture",
            ImageFamily::ShapeAndSize => "image_shape_and_size",
            ImageFamily::Mixed => "image_mixed",
        }
    }

    /// The family a name means.
    pub fn from_name(name: &str) -> Option<ImageFamily> {
        IMAGE_FAMILIES.into_iter().find(|f| f.name() == name)
    }
}

fn signed(rng: &mut SeedRng, lo: f64, hi: f64) -> f64 {
    let w = rng.random_range(lo..hi);
    if rng.random::<bool>() { w } else { -w }
}

fn any_shape(rng: &mut SeedRng) -> ShapeKind {
    SHAPE_KINDS[rng.random_range(0..SHAPE_KINDS.len())]
}

/// Every semantic term over `shape`, in a fixed order.
fn pool(shape: ShapeKind) -> [Term; 7] {
    [Term::Count, Term::CountOf { shape }, Term::Is { shape }, Term::Upper, Term::Warm, Term::Size, Term::Stripes]
}

/// Draws a rule of `family` (unstandardised: fit it to the rows). A small
/// second term breaks the ties of the whole-number terms.
pub(crate) fn draw_rule(family: ImageFamily, rng: &mut SeedRng) -> ImageRule {
    let sign = if rng.random::<bool>() { 1.0 } else { -1.0 };
    let shape = any_shape(rng);
    let (terms, pair) = match family {
        ImageFamily::Counting => {
            (vec![(Term::Count, sign), (Term::CountOf { shape }, 0.5 * sign), (Term::Size, 0.1 * sign)], None)
        }
        ImageFamily::PlaceAndColour => {
            (vec![(Term::Upper, sign), (Term::Warm, 0.6 * sign)], Some((Term::Upper, Term::Warm, 0.8 * sign)))
        }
        ImageFamily::Texture => (vec![(Term::Stripes, sign), (Term::Size, 0.15 * sign)], None),
        ImageFamily::ShapeAndSize => (vec![(Term::Is { shape }, 1.5 * sign), (Term::Size, 0.5 * sign)], None),
        ImageFamily::Mixed => {
            let k = rng.random_range(2..=3usize);
            let mut terms: Vec<(Term, f64)> = Vec::with_capacity(k);
            let options = pool(shape);
            let mut order: Vec<usize> = (0..options.len()).collect();
            for i in 0..k {
                let j = rng.random_range(i..order.len());
                order.swap(i, j);
                terms.push((options[order[i]], signed(rng, 0.5, 1.5)));
            }
            (terms, None)
        }
    };
    ImageRule { terms, pair, center: 0.0, scale: 1.0 }
}
