//! How hard an environment is for stock baselines, as a number and a band.
//!
//! `difficulty = (ceiling − best stock baseline) / (ceiling − constant)`,
//! in the metric's better direction, clipped to `[0, 1]`: the share of the
//! road from a constant prediction to the ceiling that stock baselines
//! leave to the agent. The ceiling is the environment's oracle when it
//! records one (the score of the prediction that knows the hidden rule),
//! else its gold threshold. 0: stock baselines already reach the ceiling;
//! 1: they do no better than a constant.
//!
//! Bands are fixed quintiles of the value: 1 below 0.2, 2 below 0.4, 3
//! below 0.6, 4 below 0.8, 5 from 0.8.

use crate::task::Direction;
use serde::{Deserialize, Serialize};

/// The band edges: a value below `BAND_EDGES[i]` is in band `i + 1`.
pub const BAND_EDGES: [f64; 4] = [0.2, 0.4, 0.6, 0.8];

/// What the ceiling of a [`Difficulty`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ceiling {
    /// The oracle's score (a synthesized environment's hidden rule).
    Oracle,
    /// The gold threshold (no oracle is known).
    Gold,
}

/// An environment's difficulty and what it was measured from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Difficulty {
    /// In `[0, 1]`: `(ceiling − best) / (ceiling − constant)`, in the
    /// better direction, clipped.
    pub value: f64,
    /// 1 to 5.
    pub band: u8,
    /// The ceiling's kind.
    pub ceiling: Ceiling,
    /// The ceiling's score.
    pub ceiling_score: f64,
    /// The best stock baseline's score.
    pub best_baseline: f64,
    /// The constant prediction's score.
    pub constant: f64,
}

impl Difficulty {
    /// The difficulty of scores under `direction`, or `None` when the
    /// ceiling is no better than the constant (nothing to measure against)
    /// or a score is not finite.
    pub fn measure(direction: Direction, ceiling: (Ceiling, f64), best_baseline: f64, constant: f64) -> Option<Self> {
        let (kind, top) = ceiling;
        if ![top, best_baseline, constant].iter().all(|x| x.is_finite()) || !direction.better(top, constant) {
            return None;
        }
        let gain = |x: f64| if direction.is_lower_better() { -x } else { x };
        let value = ((gain(top) - gain(best_baseline)) / (gain(top) - gain(constant))).clamp(0.0, 1.0);
        let band = 1 + BAND_EDGES.iter().filter(|e| value >= **e).count() as u8;
        Some(Difficulty { value, band, ceiling: kind, ceiling_score: top, best_baseline, constant })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_bands_and_directions() {
        let d = Difficulty::measure(Direction::HigherIsBetter, (Ceiling::Oracle, 1.0), 0.7, 0.5).unwrap();
        assert!((d.value - 0.6).abs() < 1e-12 && d.band == 4);
        let d = Difficulty::measure(Direction::LowerIsBetter, (Ceiling::Gold, 10.0), 12.0, 20.0).unwrap();
        assert!((d.value - 0.2).abs() < 1e-12 && d.band == 2);
        // Stock baselines past the ceiling: nothing left to do.
        let d = Difficulty::measure(Direction::HigherIsBetter, (Ceiling::Gold, 0.9), 0.95, 0.5).unwrap();
        assert_eq!((d.value, d.band), (0.0, 1));
        let d = Difficulty::measure(Direction::HigherIsBetter, (Ceiling::Gold, 0.9), 0.4, 0.5).unwrap();
        assert_eq!((d.value, d.band), (1.0, 5));
        assert!(Difficulty::measure(Direction::HigherIsBetter, (Ceiling::Gold, 0.5), 0.4, 0.5).is_none());
        assert!(Difficulty::measure(Direction::HigherIsBetter, (Ceiling::Gold, f64::NAN), 0.4, 0.5).is_none());
    }
}
