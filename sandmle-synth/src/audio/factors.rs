//! What a synthesized clip is made of ([`AudioFactors`]) and how it is
//! rendered ([`render`]): a harmonic tone whose pitch may sweep, gated into
//! bursts, with tremolo, at a loudness, over background noise.

use crate::random::gaussian;
use rand::RngExt;
use sandmle_core::SeedRng;
use serde::{Deserialize, Serialize};

/// The factors' names, in [`AudioFactors::values`] order.
pub const AUDIO_FACTOR_FIELDS: [&str; 6] = ["pitch", "harmonics", "sweep", "tremolo", "bursts", "loudness"];

/// One clip's latent factors, each a position in `[0, 1]` that the
/// renderer maps to a physical quantity (see the fields), and its
/// nuisance: background noise and the tone's starting phase.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AudioFactors {
    /// Fundamental frequency: 150 Hz × 2^(3 × pitch), 150 to 1,200 Hz.
    pub pitch: f64,
    /// Harmonics: 1 + round(4 × harmonics), one to five.
    pub harmonics: f64,
    /// Pitch sweep over the clip: (2 × sweep − 1) octaves, down or up.
    pub sweep: f64,
    /// Tremolo rate: 2 + 10 × tremolo Hz, at a fixed depth.
    pub tremolo: f64,
    /// Bursts of sound: 1 + floor(3.99 × bursts), one to four.
    pub bursts: f64,
    /// Peak amplitude: 0.15 + 0.7 × loudness.
    pub loudness: f64,
    /// Background noise's standard deviation (nuisance).
    pub noise: f64,
    /// The tone's starting phase in radians (nuisance).
    pub phase: f64,
}

impl AudioFactors {
    /// Draws a clip's factors, uniform in `[0, 1]`, and its nuisance: noise
    /// up to `noise` and a uniform phase.
    pub fn draw(rng: &mut SeedRng, noise: f64) -> AudioFactors {
        let mut u = || rng.random::<f64>();
        AudioFactors {
            pitch: u(),
            harmonics: u(),
            sweep: u(),
            tremolo: u(),
            bursts: u(),
            loudness: u(),
            noise: 0.01 + noise * u(),
            phase: std::f64::consts::TAU * u(),
        }
    }

    /// The six factors, in [`AUDIO_FACTOR_FIELDS`] order.
    pub fn values(&self) -> [f64; 6] {
        [self.pitch, self.harmonics, self.sweep, self.tremolo, self.bursts, self.loudness]
    }
}

/// Ramp length at a burst's edges, in seconds (no click).
const RAMP_S: f64 = 0.005;

/// The clip's samples: `seconds` at `sample_rate`, in `[-1, 1]`, from the
/// factors alone plus background noise drawn from `rng`.
pub fn render(f: &AudioFactors, sample_rate: u32, seconds: f64, rng: &mut SeedRng) -> Vec<f32> {
    let sr = f64::from(sample_rate.max(1));
    let n = (seconds * sr).round().max(1.0) as usize;
    let duration = n as f64 / sr;
    let f0 = 150.0 * libm::pow(2.0, 3.0 * f.pitch);
    let harmonics = 1 + (4.0 * f.harmonics).round() as usize;
    let octaves = 2.0 * f.sweep - 1.0;
    let tremolo_hz = 2.0 + 10.0 * f.tremolo;
    let bursts = 1 + (3.99 * f.bursts).floor() as usize;
    let amplitude = 0.15 + 0.7 * f.loudness;
    let slots = 2 * bursts - 1;
    let slot = duration / slots as f64;
    let weights: Vec<f64> = (1..=harmonics).map(|h| 1.0 / h as f64).collect();
    let norm: f64 = weights.iter().sum();
    let mut phase = f.phase;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let t = i as f64 / sr;
        let freq = f0 * libm::pow(2.0, octaves * t / duration);
        phase += std::f64::consts::TAU * freq / sr;
        let mut tone = 0.0;
        for (h, w) in weights.iter().enumerate() {
            if freq * ((h + 1) as f64) < sr / 2.0 {
                tone += w * libm::sin((h + 1) as f64 * phase);
            }
        }
        let k = ((t / slot) as usize).min(slots - 1);
        let gate = if k.is_multiple_of(2) {
            let into = t - k as f64 * slot;
            (into / RAMP_S).min((slot - into) / RAMP_S).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let trem = 1.0 - 0.6 * (0.5 + 0.5 * libm::sin(std::f64::consts::TAU * tremolo_hz * t));
        let x = amplitude * gate * trem * tone / norm + f.noise * gaussian(rng);
        out.push(x.clamp(-1.0, 1.0) as f32);
    }
    out
}
