//! Drawing one page: the clean text, then the damage the task's rule does
//! to it.

use crate::random::gaussian;
use rand::RngExt;
use sandmle_core::SeedRng;
use serde::{Deserialize, Serialize};

/// A page's grey levels in `[0, 1]`, row-major, `width` x `height`.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// Grey levels, row by row.
    pub levels: Vec<f64>,
}

/// A level rounded to a whole number of 255ths, as an 8-bit scan stores it.
fn byte_level(v: f64) -> f64 {
    (v.clamp(0.0, 1.0) * 255.0).round() / 255.0
}

/// A clean page: white paper, lines of words in dark ink. Each word is a
/// run of glyph columns (an ascender stroke, an x-height stroke, a dot or
/// a gap), so text has the texture of print and no two pages are alike.
pub fn clean_page(width: usize, height: usize, rng: &mut SeedRng) -> Page {
    let mut levels = vec![1.0; width * height];
    let ink: f64 = rng.random_range(0.0..0.25);
    let line: usize = rng.random_range(7..11);
    let leading: usize = rng.random_range(3..6);
    let margin: usize = rng.random_range(2..5);
    let mut y = margin;
    while y + line + margin <= height {
        let mut x = margin + rng.random_range(0..4);
        loop {
            let word: usize = rng.random_range(3..13);
            if x + word + margin > width {
                break;
            }
            for cx in x..x + word {
                let top = match rng.random_range(0..10) {
                    0..=2 => 1,        // an ascender
                    3..=7 => line / 3, // an x-height stroke
                    8 => line - 2,     // a dot
                    _ => continue,     // a gap inside the word
                };
                for cy in y + top..y + line - 1 {
                    let tone = ink + 0.05 * rng.random_range(-1.0..1.0);
                    levels[cy * width + cx] = byte_level(tone);
                }
            }
            x += word + rng.random_range(2..5);
        }
        y += line + leading;
    }
    Page { width, height, levels }
}

/// The damage a task does to its pages: one rule for every page, each
/// page's own stains and noise drawn from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Damage {
    /// The rule family (`stains`, `lighting` or `speckle`).
    pub family: String,
    /// Coffee stains a page: how many (the most).
    pub stains: usize,
    /// A stain's darkening at its centre (the most).
    pub stain_depth: f64,
    /// Uneven lighting: the fall in brightness across the page.
    pub lighting: f64,
    /// Ink bleeding into its neighbours (share of a 3 x 3 blur mixed in).
    pub bleed: f64,
    /// Sensor noise (standard deviation).
    pub noise_sd: f64,
    /// Share of pixels flipped to black or white.
    pub speckle: f64,
}

/// The rule families of page damage.
pub const PAGE_FAMILIES: [&str; 3] = ["stains", "lighting", "speckle"];

impl Damage {
    /// Draws a rule of `family`; `level` in `[0, 1]` scales every kind of
    /// damage.
    pub fn draw(family: &str, level: f64, rng: &mut SeedRng) -> Damage {
        let strength = 0.5 + level;
        let mut d = Damage {
            family: family.to_owned(),
            stains: rng.random_range(1..3),
            stain_depth: rng.random_range(0.1..0.25) * strength,
            lighting: rng.random_range(0.0..0.15) * strength,
            bleed: rng.random_range(0.0..0.3),
            noise_sd: rng.random_range(0.02..0.05) * strength,
            speckle: 0.0,
        };
        match family {
            "stains" => {
                d.stains = rng.random_range(2..5);
                d.stain_depth = rng.random_range(0.25..0.45) * strength;
            }
            "lighting" => d.lighting = rng.random_range(0.2..0.4) * strength,
            _ => d.speckle = rng.random_range(0.01..0.04) * strength,
        }
        d
    }

    /// The scanned page: `clean` blurred by the bleed, darkened by stains
    /// and lighting, with sensor noise and speckle, as 8-bit levels.
    pub fn apply(&self, clean: &Page, rng: &mut SeedRng) -> Page {
        let (w, h) = (clean.width, clean.height);
        let at = |x: usize, y: usize| clean.levels[y * w + x];
        let stains: Vec<(f64, f64, f64, f64)> = (0..rng.random_range(1..=self.stains.max(1)))
            .map(|_| {
                let r = rng.random_range(0.12..0.35) * w.max(h) as f64;
                (rng.random_range(0.0..w as f64), rng.random_range(0.0..h as f64), r, self.stain_depth)
            })
            .collect();
        let (gx, gy): (f64, f64) = (rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        let mut levels = Vec::with_capacity(w * h);
        for y in 0..h {
            for x in 0..w {
                let mut sum = 0.0;
                let mut n = 0.0;
                for yy in y.saturating_sub(1)..(y + 2).min(h) {
                    for xx in x.saturating_sub(1)..(x + 2).min(w) {
                        sum += at(xx, yy);
                        n += 1.0;
                    }
                }
                let ink = (1.0 - self.bleed) * at(x, y) + self.bleed * sum / n;
                let stain: f64 = stains
                    .iter()
                    .map(|&(cx, cy, r, depth)| {
                        let d2 = (x as f64 - cx).powi(2) + (y as f64 - cy).powi(2);
                        depth * libm::exp(-d2 / (2.0 * r * r))
                    })
                    .sum();
                let (u, v) = (x as f64 / w as f64 - 0.5, y as f64 / h as f64 - 0.5);
                let light = 1.0 - self.lighting * (0.5 + gx * u + gy * v).clamp(0.0, 1.0);
                let mut level = ink * (1.0 - stain.min(0.9)) * light + self.noise_sd * gaussian(rng);
                if self.speckle > 0.0 && rng.random_range(0.0..1.0) < self.speckle {
                    level = if rng.random_range(0..2) == 0 { 0.0 } else { 1.0 };
                }
                levels.push(byte_level(level));
            }
        }
        Page { width: w, height: h, levels }
    }
}
