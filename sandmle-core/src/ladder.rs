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
//! - the **median** is the panel's median (the field's median team writes
//!   stock code);
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

/// The ladder over `panel` (a leaderboard of stock baselines, best first)
/// and `oracle` (see the module docs); `None` when the panel is empty, a
/// score is not finite, or the top is no better than the median (a panel
/// whose entries all tie).
pub fn ladder(panel: &Leaderboard, oracle: &Oracle, direction: Direction) -> Option<Thresholds> {
    let scores = panel.scores();
    let se = oracle.standard_error.filter(|s| s.is_finite() && *s > 0.0).unwrap_or(0.0);
    let oracle = oracle.score;
    if scores.is_empty() || !oracle.is_finite() || scores.iter().any(|s| !s.is_finite()) {
        return None;
    }
    let best = scores.iter().copied().reduce(|a, b| if direction.better(b, a) { b } else { a })?;
    let median = crate::stats::median(&scores);
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
        // Median 0.7, best 0.8, oracle 1.0: the top is 0.9.
        let t = ladder(&board(&[0.8, 0.75, 0.7, 0.6, 0.5]), &oracle(1.0), Direction::HigherIsBetter).unwrap();
        assert_eq!((t.num_teams, t.is_lower_better, t.median), (5, false, 0.7));
        for (got, share) in [(t.gold, LADDER_GOLD), (t.silver, LADDER_SILVER), (t.bronze, LADDER_BRONZE)] {
            assert!((got - (0.7 + share * 0.2)).abs() < 1e-12, "{got}");
        }
        assert!(t.strictly_ordered() && t.gold < 1.0 && t.bronze > 0.7);
        // Lower is better: median 3, best 2, oracle 0, top 1.
        let t = ladder(&board(&[2.0, 3.0, 4.0]), &oracle(0.0), Direction::LowerIsBetter).unwrap();
        assert!(t.is_lower_better && t.strictly_ordered());
        assert!((t.gold - (3.0 - LADDER_GOLD * 2.0)).abs() < 1e-12);
    }

    #[test]
    fn an_oracle_behind_the_best_baseline_tops_the_ladder_at_the_baseline() {
        let t = ladder(&board(&[0.9, 0.8, 0.7]), &oracle(0.85), Direction::HigherIsBetter).unwrap();
        assert!((t.gold - (0.8 + LADDER_GOLD * 0.1)).abs() < 1e-12);
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
        // Median 0.7, best 0.72, top 0.76: steps 0.0244, 0.0083 (widened to
        // 0.01) and 0.0165.
        let se = Oracle { score: 0.8, standard_error: Some(0.01) };
        let t = ladder(&board(&[0.7, 0.7, 0.7, 0.72]), &se, Direction::HigherIsBetter).unwrap();
        assert_eq!(t.median, 0.7);
        assert!((t.bronze - (0.7 + LADDER_BRONZE * 0.06)).abs() < 1e-12, "{t:?}");
        assert!((t.silver - (t.bronze + 0.01)).abs() < 1e-12, "{t:?}");
        assert!((t.gold - (t.silver + (LADDER_GOLD - LADDER_SILVER) * 0.06)).abs() < 1e-12, "{t:?}");
        let se = Oracle { score: 0.0, standard_error: Some(0.5) };
        let t = ladder(&board(&[2.0, 3.0, 4.0]), &se, Direction::LowerIsBetter).unwrap();
        assert_eq!((t.median, t.bronze), (3.0, 3.0 - LADDER_BRONZE * 2.0));
        assert!((t.silver - (t.bronze - 0.5)).abs() < 1e-12, "{t:?}");
        assert!((t.gold - (t.silver - (LADDER_GOLD - LADDER_SILVER) * 2.0)).abs() < 1e-12);
    }
}
