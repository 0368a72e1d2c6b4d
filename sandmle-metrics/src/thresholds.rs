//! Medal thresholds from a leaderboard (MLE-bench's rule), HumanRank and
//! MLE-bench's 5-decimal rounding.

use crate::error::{Error, Result};
use sandmle_core::{Direction, Thresholds};

/// The 1-based leaderboard positions of gold, silver and bronze for a
/// leaderboard of `n` rows (MLE-bench's `rank_score`, after Kaggle's
/// progression system).
pub fn medal_positions(n: usize) -> (usize, usize, usize) {
    // int(n * 0.1) etc. equal integer division for every n that fits in
    // memory (checked against Python up to 200,000).
    if n < 100 {
        ((n / 10).max(1), (n / 5).max(1), (n * 2 / 5).max(1))
    } else if n < 250 {
        (10, (n / 5).max(1), (n * 2 / 5).max(1))
    } else if n < 1000 {
        (10 + n / 500, 50, 100)
    } else {
        (10 + n / 500, n / 20, n / 10)
    }
}

/// pandas' median: the middle value, or the mean of the two middle values.
pub fn median(scores: &[f64]) -> f64 {
    let mut v = scores.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Thresholds from leaderboard scores, best first: MLE-bench's positions,
/// pandas' median, and lower-is-better iff the first score is strictly
/// below the last.
///
/// # Errors
/// [`Error::EmptyLeaderboard`].
pub fn thresholds_from_scores(scores: &[f64]) -> Result<Thresholds> {
    let (Some(&first), Some(&last)) = (scores.first(), scores.last()) else {
        return Err(Error::EmptyLeaderboard);
    };
    let n = scores.len();
    let (g, s, b) = medal_positions(n);
    let at = |pos: usize| scores[pos.clamp(1, n) - 1];
    Ok(Thresholds {
        num_teams: n,
        is_lower_better: first < last,
        gold: at(g),
        silver: at(s),
        bronze: at(b),
        median: median(scores),
    })
}

/// HumanRank: `(N - position + 1) / N` where position is 1 plus the number
/// of leaderboard scores strictly better than `score` (ties go to the
/// agent). 1.0 is first place; a score worse than every entry gets 0.
pub fn human_rank(score: f64, leaderboard: &[f64], direction: Direction) -> Option<f64> {
    if leaderboard.is_empty() || score.is_nan() {
        return None;
    }
    let n = leaderboard.len();
    let position = 1 + leaderboard.iter().filter(|&&s| direction.better(s, score)).count();
    Some((n + 1 - position) as f64 / n as f64)
}

/// `round(score, 5)` as Python computes it (correctly rounded, ties to even
/// on the exact binary value).
pub fn round5(score: f64) -> f64 {
    if !score.is_finite() {
        return score;
    }
    format!("{score:.5}").parse().unwrap_or(score)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_follow_each_branch() {
        assert_eq!(medal_positions(5), (1, 1, 2));
        assert_eq!(medal_positions(99), (9, 19, 39));
        assert_eq!(medal_positions(100), (10, 20, 40));
        assert_eq!(medal_positions(249), (10, 49, 99));
        assert_eq!(medal_positions(250), (10, 50, 100));
        assert_eq!(medal_positions(999), (11, 50, 100));
        assert_eq!(medal_positions(1000), (12, 50, 100));
        assert_eq!(medal_positions(4540), (19, 227, 454));
    }

    #[test]
    fn human_rank_gives_ties_to_the_agent() {
        let lb = [0.9, 0.8, 0.8, 0.5];
        assert_eq!(human_rank(0.95, &lb, Direction::HigherIsBetter), Some(1.0));
        assert_eq!(human_rank(0.8, &lb, Direction::HigherIsBetter), Some(0.75));
        assert_eq!(human_rank(0.1, &lb, Direction::HigherIsBetter), Some(0.0));
        assert_eq!(human_rank(0.1, &lb, Direction::LowerIsBetter), Some(1.0));
    }

    #[test]
    fn rounding_matches_python() {
        // Python: round(0.123455, 5) == 0.12345 (the double is just below the tie).
        assert_eq!(round5(0.123455), 0.12345);
        assert_eq!(round5(1.000005), 1.00001);
        assert_eq!(round5(0.999999), 1.0);
    }
}
