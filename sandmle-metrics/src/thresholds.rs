//! Medal thresholds from a leaderboard (MLE-bench's rule). HumanRank and
//! the 5-decimal rounding live in core beside [`sandmle_core::GradeReport`].

use crate::error::{Error, Result};
use sandmle_core::Thresholds;
use sandmle_core::stats::median;

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
}
