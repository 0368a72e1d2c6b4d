//! The numerics several crates share, one implementation each: average
//! ranks, the median and Pearson's correlation.
//!
//! Empty input is decided once, here: the median and the correlation of
//! nothing are NaN (as numpy and pandas say), and the ranks of nothing are
//! empty. Callers that want another value for an undefined statistic say so
//! where they call (for example `correlation(..)` treated as 0 by a gate).

/// 1-based ranks, ties sharing their average rank (scipy's
/// `rankdata(method="average")`). NaNs sort last, by total order.
pub fn average_ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut ranks = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j < order.len() && v[order[j]] == v[order[i]] {
            j += 1;
        }
        // A NaN equals nothing, itself included: it is a group of its own.
        j = j.max(i + 1);
        let rank = (i + 1 + j) as f64 / 2.0;
        for &k in &order[i..j] {
            ranks[k] = rank;
        }
        i = j;
    }
    ranks
}

/// pandas' median: the middle value, or the mean of the two middle values;
/// NaN for no values.
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Pearson's correlation of two equally long slices (scipy's `pearsonr`
/// statistic), clamped to `[-1, 1]`. NaN when either side is constant or
/// there are fewer than two pairs; pairs holding a NaN are not skipped
/// (they make the result NaN).
pub fn pearson_correlation(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    if n < 2 {
        return f64::NAN;
    }
    let (x, y) = (&x[..n], &y[..n]);
    if x.iter().all(|&v| v == x[0]) || y.iter().all(|&v| v == y[0]) {
        return f64::NAN;
    }
    let mx = x.iter().sum::<f64>() / n as f64;
    let my = y.iter().sum::<f64>() / n as f64;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        let (dx, dy) = (a - mx, b - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_numerics_match_scipy_and_pandas() {
        assert_eq!(average_ranks(&[3.0, 1.0, 3.0]), vec![2.5, 1.0, 2.5]);
        assert!(average_ranks(&[]).is_empty());
        assert_eq!(average_ranks(&[f64::NAN, 1.0, f64::NAN]), vec![2.0, 1.0, 3.0]);
        assert_eq!(median(&[3.0, 1.0, 2.0, 10.0]), 2.5);
        assert!(median(&[]).is_nan());
        // scipy.stats.pearsonr([1, 2, 3], [2, 4, 6.5]).statistic
        assert!((pearson_correlation(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.5]) - 0.9979487157886733).abs() < 1e-12);
        assert!(pearson_correlation(&[1.0, 1.0], &[1.0, 2.0]).is_nan());
        assert!(pearson_correlation(&[1.0], &[1.0]).is_nan());
    }
}
