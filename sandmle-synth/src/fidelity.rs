//! Fidelity of a micro task: does the baseline panel rank the same way on
//! it as on the full task?

use sandmle_core::Leaderboard;
use std::collections::BTreeMap;

/// Kendall's tau-b between two leaderboards' scores over the baselines both
/// hold (by name): 1 when they rank them alike, -1 when reversed. Ties
/// count as in tau-b. `None` with fewer than two shared baselines or when
/// either side's scores are all equal.
pub fn kendall_tau(a: &Leaderboard, b: &Leaderboard) -> Option<f64> {
    let b_scores: BTreeMap<&str, f64> = b.entries.iter().map(|e| (e.name.as_str(), e.score)).collect();
    let pairs: Vec<(f64, f64)> =
        a.entries.iter().filter_map(|e| b_scores.get(e.name.as_str()).map(|&s| (e.score, s))).collect();
    let n = pairs.len();
    if n < 2 {
        return None;
    }
    let (mut concordant, mut discordant, mut ties_a, mut ties_b) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let da = (pairs[i].0 - pairs[j].0).signum();
            let db = (pairs[i].1 - pairs[j].1).signum();
            let (za, zb) = (pairs[i].0 == pairs[j].0, pairs[i].1 == pairs[j].1);
            match (za, zb) {
                (true, true) => {}
                (true, false) => ties_a += 1,
                (false, true) => ties_b += 1,
                _ if da == db => concordant += 1,
                _ => discordant += 1,
            }
        }
    }
    let denom = (((concordant + discordant + ties_a) * (concordant + discordant + ties_b)) as f64).sqrt();
    (denom > 0.0).then(|| (concordant - discordant) as f64 / denom)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandmle_core::LeaderboardEntry;

    fn lb(scores: &[(&str, f64)]) -> Leaderboard {
        Leaderboard { entries: scores.iter().map(|&(n, s)| LeaderboardEntry { name: n.into(), score: s }).collect() }
    }

    #[test]
    fn matches_scipy_kendalltau() {
        // scipy.stats.kendalltau([1, 2, 3, 4, 5], [1, 3, 2, 4, 4]).statistic
        let a = lb(&[("a", 1.0), ("b", 2.0), ("c", 3.0), ("d", 4.0), ("e", 5.0)]);
        let b = lb(&[("a", 1.0), ("b", 3.0), ("c", 2.0), ("d", 4.0), ("e", 4.0), ("z", 9.0)]);
        assert!((kendall_tau(&a, &b).unwrap() - 0.7378647873726218).abs() < 1e-12);
        assert_eq!(kendall_tau(&a, &a), Some(1.0));
        assert_eq!(kendall_tau(&a, &lb(&[("a", 1.0)])), None);
    }
}
