//! The generic random helpers of the generators: normal draws, the inverse
//! distribution function through a shape's quantiles, and shuffling. Every
//! one draws from an explicitly seeded [`SeedRng`] and uses `libm` for
//! transcendental functions, so the streams are the same on every
//! architecture.

use rand::RngExt;
use sandmle_core::{NumericShape, SeedRng};

/// A standard normal draw (Box–Muller; `libm` keeps it the same on every
/// architecture).
pub(crate) fn gaussian(rng: &mut SeedRng) -> f64 {
    // Box–Muller on two uniforms in (0, 1].
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * libm::log(u1)).sqrt() * libm::cos(std::f64::consts::TAU * u2)
}

/// The inverse distribution function through a shape's quantiles.
pub(crate) fn from_uniform(shape: &NumericShape, u: f64) -> f64 {
    let q = shape.quantiles;
    let knots =
        [(0.0, shape.min), (0.05, q[0]), (0.25, q[1]), (0.5, q[2]), (0.75, q[3]), (0.95, q[4]), (1.0, shape.max)];
    let i = knots.iter().position(|k| k.0 >= u).unwrap_or(knots.len() - 1).max(1);
    let ((p0, v0), (p1, v1)) = (knots[i - 1], knots[i]);
    let x = if p1 > p0 { v0 + (v1 - v0) * (u - p0) / (p1 - p0) } else { v1 };
    if shape.integer { x.round() } else { x }
}

/// Fisher–Yates shuffle with the seeded generator.
pub(crate) fn shuffle<T>(v: &mut [T], rng: &mut SeedRng) {
    for i in (1..v.len()).rev() {
        let j = rng.random_range(0..=i);
        v.swap(i, j);
    }
}
