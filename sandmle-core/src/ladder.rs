//! Medal ladders: thresholds placed between an environment's stock
//! baselines and its oracle, spaced as real leaderboards space them.
//!
//! A synthesized environment's reference leaderboard is a panel of stock
//! baselines. MLE-bench's medal rule on that panel alone puts gold at its
//! second-best entry, so stock code wins gold. When the environment knows
//! its oracle (the score of the prediction that knows the hidden rule,
//! [`crate::GradingSpec::oracle`]), the thresholds come from a ladder
//! instead:
//!
//! - the **median** is the panel's upper quartile ([`LADDER_FIELD_QUANTILE`]
//!   of the way from its worst entry to its best, interpolated): the
//!   field's median team writes stock code, but not the constants, stumps
//!   and one-neighbour models the panel spans its range with — it picks
//!   a kind of model that suits the data, as the panel's better quarter
//!   does (at the panel's plain median, a plain random forest took a
//!   medal on three environments in four once the synthesized data were
//!   learnable);
//! - the **top** of the field closes [`LADDER_TOP_SHARE`] of the gap from
//!   the best stock baseline to the oracle (the oracle itself reads the
//!   latent factors, which the columns only partly show);
//! - **gold**, **silver** and **bronze** sit at [`LADDER_GOLD`],
//!   [`LADDER_SILVER`] and [`LADDER_BRONZE`] of the way from the median to
//!   the top: the medians, over MLE-bench's 81 real leaderboards, of where
//!   each threshold sits between that leaderboard's median and its top
//!   score (`examples/scripts/ladder_fit.py` measures them);
//! - each step (median to bronze, bronze to silver, silver to gold) is at
//!   least the score's standard error over the test split when the oracle
//!   records one ([`Oracle::standard_error`]): two medals closer than that
//!   would be told apart by the split's luck, not by skill.
//!
//! Gold then needs more than the best stock baseline unless that baseline
//! is already close to the oracle (gold marks the few points left, as on a
//! real leaderboard whose top teams are close). Widened steps can push gold
//! to or past the oracle: the `thresholds_ordered` gate refuses such an
//! environment (its medals cannot be told from luck).

use crate::error::Result;
use crate::grading::{Leaderboard, Thresholds};
use crate::ports::Grader;
use crate::task::Direction;
use serde::{Deserialize, Serialize};

/// What `grading.json` records of an environment's oracle
/// ([`crate::GradingSpec::oracle`], [`crate::grade_oracle`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Oracle {
    /// The oracle's score on the test split.
    pub score: f64,
    /// That score's standard error over the test split, when it could be
    /// measured ([`crate::SE_DRAWS`] random halves).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standard_error: Option<f64>,
}

/// Where gold sits between a leaderboard's median (0) and its top (1).
pub const LADDER_GOLD: f64 = 0.820;
/// Where silver sits between a leaderboard's median (0) and its top (1).
pub const LADDER_SILVER: f64 = 0.545;
/// Where bronze sits between a leaderboard's median (0) and its top (1).
pub const LADDER_BRONZE: f64 = 0.406;
/// The share of the gap from the best stock baseline to the oracle that
/// the top of the field closes.
pub const LADDER_TOP_SHARE: f64 = 0.5;
/// Where the field's median team sits in the panel: this share of the way
/// from its worst entry to its best (the upper quartile).
pub const LADDER_FIELD_QUANTILE: f64 = 0.75;

/// The score [`LADDER_FIELD_QUANTILE`] of the way from the worst of
/// `scores` to the best (linear interpolation between order statistics,
/// numpy's default quantile).
fn field_median(scores: &[f64], direction: Direction) -> f64 {
    let mut v = scores.to_vec();
    // Worst first.
    v.sort_by(|a, b| if direction.is_lower_better() { b.total_cmp(a) } else { a.total_cmp(b) });
    let at = LADDER_FIELD_QUANTILE * (v.len().saturating_sub(1)) as f64;
    let (lo, frac) = (at.floor() as usize, at - at.floor());
    match v.get(lo + 1) {
        Some(&next) => v[lo] + frac * (next - v[lo]),
        None => v[lo],
    }
}

/// The ladder over `panel` (a leaderboard of stock baselines, best first)
/// and `oracle` (see the module docs); `None` when the panel is empty, a
/// score is not finite, or the top is no better than the median (the
/// panel's better quarter ties with its best and the oracle is no better).
pub fn ladder(panel: &Leaderboard, oracle: &Oracle, direction: Direction) -> Option<Thresholds> {
    let scores = panel.scores();
    let se = oracle.standard_error.filter(|s| s.is_finite() && *s > 0.0).unwrap_or(0.0);
    let oracle = oracle.score;
    if scores.is_empty() || !oracle.is_finite() || scores.iter().any(|s| !s.is_finite()) {
        return None;
    }
    let best = scores.iter().copied().reduce(|a, b| if direction.better(b, a) { b } else { a })?;
    let median = field_median(&scores, direction);
    let top = if direction.better(oracle, best) { best + LADDER_TOP_SHARE * (oracle - best) } else { best };
    if !direction.better(top, median) {
        return None;
    }
    // In the better direction, from the median: each step at least `se`.
    let sign = if direction.is_lower_better() { -1.0 } else { 1.0 };
    let span = sign * (top - median);
    let bronze = (LADDER_BRONZE * span).max(se);
    let silver = bronze + ((LADDER_SILVER - LADDER_BRONZE) * span).max(se);
    let gold = silver + ((LADDER_GOLD - LADDER_SILVER) * span).max(se);
    let at = |up: f64| median + sign * up;
    Some(Thresholds {
        num_teams: scores.len(),
        is_lower_better: direction.is_lower_better(),
        gold: at(gold),
        silver: at(silver),
        bronze: at(bronze),
        median,
    })
}

/// An environment's thresholds from its reference leaderboard: the
/// [`ladder`] when its oracle is known and the leaderboard is the stock
/// panel's, else `grader`'s rule ([`Grader::thresholds`], MLE-bench's).
/// The one derivation calibration and the gates share.
///
/// # Errors
/// The grader's, for a leaderboard it cannot derive thresholds from.
pub fn reference_thresholds(
    leaderboard: &Leaderboard,
    oracle: Option<&Oracle>,
    direction: Direction,
    grader: &dyn Grader,
) -> Result<Thresholds> {
    match oracle.and_then(|o| ladder(leaderboard, o, direction)) {
        Some(t) => Ok(t),
        None => grader.thresholds(leaderboard),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grading::LeaderboardEntry;

    fn board(scores: &[f64]) -> Leaderboard {
        Leaderboard {
            entries: scores
                .iter()
                .enumerate()
                .map(|(i, &score)| LeaderboardEntry { name: format!("b{i}"), score })
                .collect(),
        }
    }

    fn oracle(score: f64) -> Oracle {
        Oracle { score, standard_error: None }
    }

    #[test]
    fn thresholds_sit_between_median_and_top_in_both_directions() {
        // Upper quartile 0.75, best 0.8, oracle 1.0: the top is 0.9.
        let t = ladder(&board(&[0.8, 0.75, 0.7, 0.6, 0.5]), &oracle(1.0), Direction::HigherIsBetter).unwrap();
        assert_eq!((t.num_teams, t.is_lower_better, t.median), (5, false, 0.75));
        for (got, share) in [(t.gold, LADDER_GOLD), (t.silver, LADDER_SILVER), (t.bronze, LADDER_BRONZE)] {
            assert!((got - (0.75 + share * 0.15)).abs() < 1e-12, "{got}");
        }
        assert!(t.strictly_ordered() && t.gold < 1.0 && t.bronze > 0.75);
        // Lower is better: the upper quartile halfway between 3 and 2,
        // best 2, oracle 0, top 1.
        let t = ladder(&board(&[2.0, 3.0, 4.0]), &oracle(0.0), Direction::LowerIsBetter).unwrap();
        assert!(t.is_lower_better && t.strictly_ordered());
        assert_eq!(t.median, 2.5);
        assert!((t.gold - (2.5 - LADDER_GOLD * 1.5)).abs() < 1e-12);
    }

    #[test]
    fn an_oracle_behind_the_best_baseline_tops_the_ladder_at_the_baseline() {
        let t = ladder(&board(&[0.9, 0.8, 0.7]), &oracle(0.85), Direction::HigherIsBetter).unwrap();
        assert!((t.gold - (0.85 + LADDER_GOLD * 0.05)).abs() < 1e-12);
        assert!(t.gold < 0.9, "the best baseline is then gold");
    }

    #[test]
    fn degenerate_panels_have_no_ladder() {
        assert!(ladder(&board(&[]), &oracle(1.0), Direction::HigherIsBetter).is_none());
        assert!(ladder(&board(&[0.5, 0.5]), &oracle(0.5), Direction::HigherIsBetter).is_none());
        assert!(ladder(&board(&[0.5, 0.4]), &oracle(f64::NAN), Direction::HigherIsBetter).is_none());
    }

    /// Steps narrower than the standard error widen to it, in both
    /// directions; wide steps stay as they are.
    #[test]
    fn every_step_is_at_least_the_standard_error() {
        // Upper quartile 0.705, best 0.72, top 0.76: steps 0.0223, 0.0076
        // (widened to 0.01) and 0.0151.
        let se = Oracle { score: 0.8, standard_error: Some(0.01) };
        let t = ladder(&board(&[0.7, 0.7, 0.7, 0.72]), &se, Direction::HigherIsBetter).unwrap();
        assert!((t.median - 0.705).abs() < 1e-12, "{t:?}");
        let span = 0.76 - t.median;
        assert!((t.bronze - (t.median + LADDER_BRONZE * span)).abs() < 1e-12, "{t:?}");
        assert!((t.silver - (t.bronze + 0.01)).abs() < 1e-12, "{t:?}");
        assert!((t.gold - (t.silver + (LADDER_GOLD - LADDER_SILVER) * span)).abs() < 1e-12, "{t:?}");
        // Lower is better, upper quartile 2.5, top 1: bronze's step 0.609
        // stays, silver's (0.209) and gold's (0.413) widen to 0.5.
        let se = Oracle { score: 0.0, standard_error: Some(0.5) };
        let t = ladder(&board(&[2.0, 3.0, 4.0]), &se, Direction::LowerIsBetter).unwrap();
        assert_eq!((t.median, t.bronze), (2.5, 2.5 - LADDER_BRONZE * 1.5));
        assert!((t.silver - (t.bronze - 0.5)).abs() < 1e-12, "{t:?}");
        assert!((t.gold - (t.silver - 0.5)).abs() < 1e-12, "{t:?}");
    }
}
