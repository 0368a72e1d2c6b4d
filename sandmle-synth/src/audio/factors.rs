//! What a synthesized clip is made of ([`AudioFactors`]) and how it is
//! rendered ([`render`]): a harmonic tone whose pitch may sweep, gated into
//! bursts, with tremolo, at a loudness, over background noise.

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

/// Two standard normal draws from one pair of uniforms (Box–Muller, both
/// of its outputs: a clip draws a noise value per sample, and the second
/// of a pair halves the logarithms and cosines).
struct NormalPairs {
    spare: Option<f64>,
}

impl NormalPairs {
    fn next(&mut self, rng: &mut SeedRng) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        let u1: f64 = 1.0 - rng.random::<f64>();
        let u2: f64 = rng.random::<f64>();
        let r = (-2.0 * libm::log(u1)).sqrt();
        let angle = std::f64::consts::TAU * u2;
        self.spare = Some(r * libm::sin(angle));
        r * libm::cos(angle)
    }
}

/// The clip's samples: `seconds` at `sample_rate`, in `[-1, 1]`, from the
/// factors alone plus background noise drawn from `rng`.
///
/// Per sample, the sweep multiplies the frequency by a constant ratio, the
/// harmonics come from one sine and cosine of the phase (`sin((h + 1)x) =
/// 2 cos x sin(hx) - sin((h - 1)x)`), the tremolo turns a phasor by a
/// constant angle, and a silent stretch between bursts computes no tone.
pub fn render(f: &AudioFactors, sample_rate: u32, seconds: f64, rng: &mut SeedRng) -> Vec<f32> {
    use std::f64::consts::TAU;
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
    // The frequency at sample i is f0 * 2^(octaves * i / n).
    let ratio = libm::pow(2.0, octaves / n as f64);
    let step = TAU * tremolo_hz / sr;
    let (step_sin, step_cos) = (libm::sin(step), libm::cos(step));
    let (mut trem_sin, mut trem_cos) = (0.0_f64, 1.0_f64);
    let mut freq = f0;
    let mut phase = f.phase.rem_euclid(TAU);
    let mut noise = NormalPairs { spare: None };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let t = i as f64 / sr;
        if i > 0 {
            freq *= ratio;
        }
        phase += TAU * freq / sr;
        if phase >= TAU {
            phase -= TAU;
        }
        let k = ((t / slot) as usize).min(slots - 1);
        let gate = if k.is_multiple_of(2) {
            let into = t - k as f64 * slot;
            (into / RAMP_S).min((slot - into) / RAMP_S).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let signal = if gate > 0.0 {
            let (s1, c1) = (libm::sin(phase), libm::cos(phase));
            let (mut below, mut harmonic) = (0.0, s1);
            let mut tone = 0.0;
            for (h, w) in weights.iter().enumerate() {
                if freq * ((h + 1) as f64) < sr / 2.0 {
                    tone += w * harmonic;
                }
                (below, harmonic) = (harmonic, 2.0 * c1 * harmonic - below);
            }
            let trem = 1.0 - 0.6 * (0.5 + 0.5 * trem_sin);
            amplitude * gate * trem * tone / norm
        } else {
            0.0
        };
        (trem_sin, trem_cos) = (trem_sin * step_cos + trem_cos * step_sin, trem_cos * step_cos - trem_sin * step_sin);
        let x = signal + f.noise * noise.next(rng);
        out.push(x.clamp(-1.0, 1.0) as f32);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clip as its formula says, sample by sample: every sine and the
    /// sweep's power computed afresh.
    fn by_formula(f: &AudioFactors, sample_rate: u32, seconds: f64) -> Vec<f64> {
        let sr = f64::from(sample_rate);
        let n = (seconds * sr).round() as usize;
        let duration = n as f64 / sr;
        let f0 = 150.0 * libm::pow(2.0, 3.0 * f.pitch);
        let harmonics = 1 + (4.0 * f.harmonics).round() as usize;
        let octaves = 2.0 * f.sweep - 1.0;
        let bursts = 1 + (3.99 * f.bursts).floor() as usize;
        let slots = 2 * bursts - 1;
        let slot = duration / slots as f64;
        let norm: f64 = (1..=harmonics).map(|h| 1.0 / h as f64).sum();
        let mut phase = f.phase;
        (0..n)
            .map(|i| {
                let t = i as f64 / sr;
                let freq = f0 * libm::pow(2.0, octaves * t / duration);
                phase += std::f64::consts::TAU * freq / sr;
                let tone: f64 = (1..=harmonics)
                    .filter(|&h| freq * (h as f64) < sr / 2.0)
                    .map(|h| libm::sin(h as f64 * phase) / h as f64)
                    .sum();
                let k = ((t / slot) as usize).min(slots - 1);
                let into = t - k as f64 * slot;
                let gate =
                    if k.is_multiple_of(2) { (into / RAMP_S).min((slot - into) / RAMP_S).clamp(0.0, 1.0) } else { 0.0 };
                let trem = 1.0 - 0.6 * (0.5 + 0.5 * libm::sin(std::f64::consts::TAU * (2.0 + 10.0 * f.tremolo) * t));
                ((0.15 + 0.7 * f.loudness) * gate * trem * tone / norm).clamp(-1.0, 1.0)
            })
            .collect()
    }

    #[test]
    fn the_recurrences_render_the_formula() {
        let mut rng = sandmle_core::rng_for(5, "factors");
        for _ in 0..6 {
            let f = AudioFactors { noise: 0.0, ..AudioFactors::draw(&mut rng, 0.1) };
            let fast = render(&f, 16_000, 1.0, &mut sandmle_core::rng_for(1, "clip"));
            let slow = by_formula(&f, 16_000, 1.0);
            assert_eq!(fast.len(), slow.len());
            let worst = fast.iter().zip(&slow).map(|(a, b)| (f64::from(*a) - b).abs()).fold(0.0, f64::max);
            assert!(worst < 1e-5, "{f:?}: {worst}");
        }
    }
}
