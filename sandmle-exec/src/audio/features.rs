//! [`AudioFeaturizer`]: a fixed-length feature vector of one decoded clip.

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlannerScalar};
use sandmle_core::Clip;
use std::sync::Arc;

/// Mel bands of the log-mel spectrum.
pub const MEL_BANDS: usize = 32;
/// Cepstral coefficients kept (the DCT-II of the log-mel spectrum).
pub const MFCC: usize = 13;
/// Lowest and highest band edge, in Hz (the top capped at the Nyquist
/// frequency).
pub const MEL_RANGE: (f64, f64) = (20.0, 8000.0);
/// Added to a band's energy before its logarithm.
pub const LOG_FLOOR: f64 = 1e-10;

/// Computes the audio features of a clip.
///
/// The clip (mono, samples in `[-1, 1]`) is cut into frames of `n`
/// samples, `n` the power of two nearest 25 ms at its rate (256 at 8 kHz,
/// 512 at 16 kHz, 1024 at 44.1 kHz), every `n / 2` samples; a clip shorter
/// than a frame is padded with zeros to one. Each frame is windowed
/// (periodic Hann) and its power spectrum `|X_k|² / n` taken (`rustfft`'s
/// scalar FFT: the same bits on every machine). Then, in this order:
///
/// | columns | what |
/// |---|---|
/// | `aud_mel_mean_{b}`, `aud_mel_sd_{b}` | band `b` of [`MEL_BANDS`] triangular mel bands (HTK mel scale, edges evenly spaced in mel over [`MEL_RANGE`]): the mean and population standard deviation over frames of `ln(energy + 1e-10)` |
/// | `aud_mfcc_mean_{c}`, `aud_mfcc_sd_{c}` | coefficient `c` of [`MFCC`] of the orthonormal DCT-II of each frame's log-mel vector: mean and standard deviation over frames |
/// | `aud_rms_mean`, `aud_rms_sd` | each frame's root mean square (before the window) |
/// | `aud_zcr_mean` | share of adjacent sample pairs of a frame that change sign |
/// | `aud_centroid_mean`, `aud_centroid_sd` | spectral centroid in kHz (power-weighted mean frequency; 0 for a silent frame) |
/// | `aud_seconds` | the clip's length |
///
/// Every reduction runs in frame order, so the features are the same on
/// every run and thread count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AudioFeaturizer;

impl AudioFeaturizer {
    /// The feature names, in the order [`AudioFeaturizer::extract`] returns them.
    pub fn names(&self) -> Vec<String> {
        let mut n = Vec::with_capacity(self.len());
        for stat in ["mean", "sd"] {
            n.extend((0..MEL_BANDS).map(|b| format!("aud_mel_{stat}_{b:02}")));
        }
        for stat in ["mean", "sd"] {
            n.extend((0..MFCC).map(|c| format!("aud_mfcc_{stat}_{c:02}")));
        }
        n.extend(
            ["aud_rms_mean", "aud_rms_sd", "aud_zcr_mean", "aud_centroid_mean", "aud_centroid_sd", "aud_seconds"]
                .map(String::from),
        );
        n
    }

    /// How many features there are.
    pub fn len(&self) -> usize {
        2 * MEL_BANDS + 2 * MFCC + 6
    }

    /// Always `false`: there are features.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The features of `clip`, in [`AudioFeaturizer::names`] order.
    pub fn extract(&self, clip: &Clip) -> Vec<f64> {
        let rate = f64::from(clip.sample_rate.max(1));
        let n = frame_len(clip.sample_rate);
        let hop = n / 2;
        let fft: Arc<dyn Fft<f64>> = FftPlannerScalar::new().plan_fft_forward(n);
        let window: Vec<f64> =
            (0..n).map(|i| 0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / n as f64).cos()).collect();
        let bank = mel_bank(n, rate);
        let samples = &clip.samples;
        let frames = if samples.len() <= n { 1 } else { 1 + (samples.len() - n).div_ceil(hop) };
        let mut mel = vec![Stats::default(); MEL_BANDS];
        let mut mfcc = vec![Stats::default(); MFCC];
        let (mut rms, mut zcr, mut centroid) = (Stats::default(), Stats::default(), Stats::default());
        let mut buf = vec![Complex::new(0.0, 0.0); n];
        let mut scratch = vec![Complex::new(0.0, 0.0); fft.get_inplace_scratch_len()];
        let mut log_mel = [0.0; MEL_BANDS];
        for f in 0..frames {
            let start = f * hop;
            let frame: Vec<f64> = (0..n).map(|i| samples.get(start + i).map_or(0.0, |&s| f64::from(s))).collect();
            rms.push((frame.iter().map(|v| v * v).sum::<f64>() / n as f64).sqrt());
            let crossings = frame.windows(2).filter(|w| (w[0] < 0.0) != (w[1] < 0.0)).count();
            zcr.push(crossings as f64 / (n - 1) as f64);
            for (b, (v, w)) in buf.iter_mut().zip(frame.iter().zip(&window)) {
                *b = Complex::new(v * w, 0.0);
            }
            fft.process_with_scratch(&mut buf, &mut scratch);
            let power: Vec<f64> = buf[..=n / 2].iter().map(|c| c.norm_sqr() / n as f64).collect();
            let total: f64 = power.iter().sum();
            let weighted: f64 = power.iter().enumerate().map(|(k, p)| p * k as f64 * rate / n as f64).sum();
            centroid.push(if total > 0.0 { weighted / total / 1000.0 } else { 0.0 });
            for (b, filter) in bank.iter().enumerate() {
                let energy: f64 = filter.iter().map(|&(k, w)| w * power[k]).sum();
                log_mel[b] = (energy + LOG_FLOOR).ln();
                mel[b].push(log_mel[b]);
            }
            for (c, stats) in mfcc.iter_mut().enumerate() {
                stats.push(dct(&log_mel, c));
            }
        }
        let mut out = Vec::with_capacity(self.len());
        out.extend(mel.iter().map(Stats::mean));
        out.extend(mel.iter().map(Stats::sd));
        out.extend(mfcc.iter().map(Stats::mean));
        out.extend(mfcc.iter().map(Stats::sd));
        out.extend([rms.mean(), rms.sd(), zcr.mean(), centroid.mean(), centroid.sd(), clip.seconds()]);
        out
    }
}

/// The power of two nearest 25 ms of samples at `rate` (at least 64).
fn frame_len(rate: u32) -> usize {
    let target = (f64::from(rate) * 0.025).max(64.0);
    let below = 1usize << (target.log2().floor() as u32);
    if target - below as f64 <= (2 * below) as f64 - target { below } else { 2 * below }
}

fn hz_to_mel(hz: f64) -> f64 {
    2595.0 * (1.0 + hz / 700.0).log10()
}

fn mel_to_hz(mel: f64) -> f64 {
    700.0 * (10f64.powf(mel / 2595.0) - 1.0)
}

/// Each band's (bin, weight) pairs: triangles over the FFT bins of a
/// frame of `n` samples at `rate`.
fn mel_bank(n: usize, rate: f64) -> Vec<Vec<(usize, f64)>> {
    let top = MEL_RANGE.1.min(rate / 2.0);
    let (lo, hi) = (hz_to_mel(MEL_RANGE.0.min(top / 2.0)), hz_to_mel(top));
    let edges: Vec<f64> =
        (0..MEL_BANDS + 2).map(|i| mel_to_hz(lo + (hi - lo) * i as f64 / (MEL_BANDS + 1) as f64)).collect();
    let bin_hz = rate / n as f64;
    (0..MEL_BANDS)
        .map(|b| {
            let (left, centre, right) = (edges[b], edges[b + 1], edges[b + 2]);
            (0..=n / 2)
                .filter_map(|k| {
                    let f = k as f64 * bin_hz;
                    let w = if f > left && f <= centre {
                        (f - left) / (centre - left)
                    } else if f > centre && f < right {
                        (right - f) / (right - centre)
                    } else {
                        0.0
                    };
                    (w > 0.0).then_some((k, w))
                })
                .collect()
        })
        .collect()
}

/// Coefficient `c` of the orthonormal DCT-II of `x`.
fn dct(x: &[f64; MEL_BANDS], c: usize) -> f64 {
    let m = MEL_BANDS as f64;
    let sum: f64 = x
        .iter()
        .enumerate()
        .map(|(i, v)| v * (std::f64::consts::PI * c as f64 * (2 * i + 1) as f64 / (2.0 * m)).cos())
        .sum();
    sum * if c == 0 { (1.0 / m).sqrt() } else { (2.0 / m).sqrt() }
}

/// Running sums for a mean and a population standard deviation.
#[derive(Debug, Clone, Copy, Default)]
struct Stats {
    n: f64,
    sum: f64,
    sum_sq: f64,
}

impl Stats {
    fn push(&mut self, v: f64) {
        self.n += 1.0;
        self.sum += v;
        self.sum_sq += v * v;
    }

    fn mean(&self) -> f64 {
        if self.n > 0.0 { self.sum / self.n } else { 0.0 }
    }

    fn sd(&self) -> f64 {
        if self.n > 0.0 { (self.sum_sq / self.n - self.mean().powi(2)).max(0.0).sqrt() } else { 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(hz: f64, rate: u32, seconds: f64) -> Clip {
        let n = (f64::from(rate) * seconds) as usize;
        let samples = (0..n)
            .map(|i| (0.5 * (2.0 * std::f64::consts::PI * hz * i as f64 / f64::from(rate)).sin()) as f32)
            .collect();
        Clip { sample_rate: rate, channels: 1, samples }
    }

    #[test]
    fn frame_lengths_are_powers_of_two_near_25_ms() {
        assert_eq!([8000, 16000, 22050, 44100].map(frame_len), [256, 512, 512, 1024]);
    }

    #[test]
    fn a_higher_tone_has_a_higher_centroid_and_band() {
        let f = AudioFeaturizer;
        let names = f.names();
        assert_eq!(names.len(), f.len());
        let (low, high) = (f.extract(&tone(300.0, 16000, 0.5)), f.extract(&tone(3000.0, 16000, 0.5)));
        let at = |v: &[f64], name: &str| v[names.iter().position(|n| n == name).unwrap()];
        assert!((at(&low, "aud_centroid_mean") - 0.3).abs() < 0.05, "{}", at(&low, "aud_centroid_mean"));
        assert!((at(&high, "aud_centroid_mean") - 3.0).abs() < 0.1, "{}", at(&high, "aud_centroid_mean"));
        let loudest = |v: &[f64]| (0..MEL_BANDS).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap();
        assert!(loudest(&high) > loudest(&low) + 10);
        assert!((at(&low, "aud_seconds") - 0.5).abs() < 1e-9);
        assert!((at(&low, "aud_rms_mean") - 0.5 / 2f64.sqrt()).abs() < 0.01);
    }

    #[test]
    fn a_clip_shorter_than_a_frame_is_padded_and_silence_is_finite() {
        let f = AudioFeaturizer;
        let short = f.extract(&Clip { sample_rate: 8000, channels: 1, samples: vec![0.1; 10] });
        let silent = f.extract(&Clip { sample_rate: 8000, channels: 1, samples: vec![0.0; 4000] });
        assert!(short.iter().chain(&silent).all(|v| v.is_finite()));
    }
}
