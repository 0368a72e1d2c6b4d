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

/// Kendall's tau over the pairs a micro task could tell apart.
#[derive(Debug, Clone, PartialEq)]
pub struct SeparableTau {
    /// Per micro leaderboard: concordant minus discordant separable pairs
    /// over the separable pairs (a micro tie counts as neither); `None`
    /// for a leaderboard that shares no separable pair.
    pub per_micro: Vec<Option<f64>>,
    /// Pairs whose full-task scores differ by more than the micro noise.
    pub separable: usize,
    /// Pairs of baselines in the full leaderboard and every micro one.
    pub pairs: usize,
}

/// Tau on the separable pairs of `full` against each of `micros`.
///
/// The micro noise of a baseline is the standard deviation of its score
/// over `micros` (the shrinks of one seed); a pair is separable when its
/// full-task scores differ by more than `sqrt(sd_a^2 + sd_b^2)`. Pairs
/// closer than that cannot be ranked by a micro task, whatever it does.
/// Baselines missing from any leaderboard are left out. With fewer than
/// two micro leaderboards there is no noise estimate and every pair is
/// separable.
pub fn separable_tau(full: &Leaderboard, micros: &[Leaderboard]) -> SeparableTau {
    let maps: Vec<BTreeMap<&str, f64>> =
        micros.iter().map(|m| m.entries.iter().map(|e| (e.name.as_str(), e.score)).collect()).collect();
    let shared: Vec<(&str, f64)> = full
        .entries
        .iter()
        .filter(|e| maps.iter().all(|m| m.contains_key(e.name.as_str())))
        .map(|e| (e.name.as_str(), e.score))
        .collect();
    let sd: Vec<f64> = shared
        .iter()
        .map(|(name, _)| {
            let v: Vec<f64> = maps.iter().filter_map(|m| m.get(name).copied()).collect();
            crate::stats::sd(&v)
        })
        .collect();
    let mut separable_pairs = Vec::new();
    let n = shared.len();
    for i in 0..n {
        for j in i + 1..n {
            let gap = (shared[i].1 - shared[j].1).abs();
            if gap > 0.0 && gap > (sd[i] * sd[i] + sd[j] * sd[j]).sqrt() {
                separable_pairs.push((i, j));
            }
        }
    }
    let per_micro = maps
        .iter()
        .map(|m| {
            if separable_pairs.is_empty() {
                return None;
            }
            let mut net = 0i64;
            for &(i, j) in &separable_pairs {
                let full_sign = (shared[i].1 - shared[j].1).signum();
                let micro_gap = m[shared[i].0] - m[shared[j].0];
                if micro_gap != 0.0 {
                    net += if micro_gap.signum() == full_sign { 1 } else { -1 };
                }
            }
            Some(net as f64 / separable_pairs.len() as f64)
        })
        .collect();
    SeparableTau { per_micro, separable: separable_pairs.len(), pairs: n * n.saturating_sub(1) / 2 }
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

    #[test]
    fn pairs_closer_than_the_micro_noise_are_not_separable() {
        let full = lb(&[("a", 0.90), ("b", 0.80), ("c", 0.795)]);
        // b and c swap between micros; a stays on top.
        let m1 = lb(&[("a", 0.85), ("b", 0.70), ("c", 0.74)]);
        let m2 = lb(&[("a", 0.86), ("b", 0.74), ("c", 0.70)]);
        let t = separable_tau(&full, &[m1.clone(), m2]);
        assert_eq!(t.pairs, 3);
        // sd of each baseline over the two micros: a 0.005, b 0.02, c 0.02.
        // a-b (0.10) and a-c (0.105) are separable, b-c (0.005) is not.
        assert_eq!(t.separable, 2);
        assert_eq!(t.per_micro, vec![Some(1.0), Some(1.0)]);
        // A micro ranking a below b is discordant on one of the two pairs.
        let swapped = lb(&[("a", 0.72), ("b", 0.73), ("c", 0.70)]);
        // (sd now: a 0.065, b 0.015, c 0.02; both pairs with a still separable.)
        let t = separable_tau(&full, &[m1, swapped]);
        assert_eq!(t.separable, 2);
        assert_eq!(t.per_micro[1], Some(0.0));
        // A baseline missing from one micro leaves every pair it is in out.
        let partial = lb(&[("a", 0.85), ("b", 0.70)]);
        assert_eq!(separable_tau(&full, &[partial.clone(), partial]).pairs, 1);
    }
}
