//! Small descriptive statistics used by the DNA and the generators.

use sandmle_core::NumericShape;

/// Mean of the values.
pub(crate) fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Population standard deviation.
pub(crate) fn sd(v: &[f64]) -> f64 {
    let m = mean(v);
    (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len().max(1) as f64).sqrt()
}

/// The `q`-quantile of sorted values (linear interpolation, as numpy's
/// default).
pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// The shape of the present (non-NaN) values; `None` when there are none.
pub(crate) fn shape(values: &[f64]) -> Option<NumericShape> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let (m, s) = (mean(&v), sd(&v));
    let skew = if s > 0.0 { v.iter().map(|x| ((x - m) / s).powi(3)).sum::<f64>() / v.len() as f64 } else { 0.0 };
    let mut distinct = v.clone();
    distinct.dedup();
    Some(NumericShape {
        mean: m,
        sd: s,
        skew,
        min: v[0],
        max: v[v.len() - 1],
        quantiles: [0.05, 0.25, 0.5, 0.75, 0.95].map(|q| quantile(&v, q)),
        integer: v.iter().all(|x| x.fract() == 0.0),
        distinct: distinct.len(),
    })
}

/// Pearson correlation of paired values, skipping pairs with a NaN; 0 when
/// undefined (constant sides, fewer than two pairs): an association the
/// gates and the DNA treat as absent.
pub(crate) fn correlation(x: &[f64], y: &[f64]) -> f64 {
    let (xs, ys): (Vec<f64>, Vec<f64>) =
        x.iter().zip(y).filter(|(a, b)| a.is_finite() && b.is_finite()).map(|(&a, &b)| (a, b)).unzip();
    let r = sandmle_core::stats::pearson_correlation(&xs, &ys);
    if r.is_finite() { r } else { 0.0 }
}

pub(crate) use sandmle_core::stats::average_ranks as ranks;

/// Lanes of [`correlated_pairs`]: the pairs of one column with the next
/// eight, summed side by side.
const LANES: usize = 8;

/// The pairs `(a, b)`, `a < b`, of `columns` whose [`correlation`] is
/// above `floor` in absolute value, in order of `a` then `b`, each with its
/// correlation: the same bits [`correlation`] gives pair by pair.
///
/// A column with no missing or infinite value is centred and its sum of
/// squares taken once, as [`correlation`] would for every pair it is in;
/// each pair's sum of products then runs in its own lane, row by row in
/// the same order, with the next seven columns' beside it. A seed's task
/// DNA had spent most of its time here: caravan's 85 numeric columns of
/// 5,822 rows make 3,570 pairs, which one chain of additions a pair took
/// about 80 ms over (40 % of a one-candidate `generate`). A pair with a
/// column that has a missing value drops the rows where either side is
/// missing, so it goes through [`correlation`].
pub(crate) fn correlated_pairs(columns: &[&[f64]], floor: f64) -> Vec<(usize, usize, f64)> {
    let k = columns.len();
    let n = columns.first().map_or(0, |c| c.len());
    // Complete: of the table's length, no missing or infinite value.
    let complete: Vec<bool> = columns.iter().map(|c| c.len() == n && c.iter().all(|v| v.is_finite())).collect();
    // Row by row, each column's values less its mean, with room after the
    // last column for a full lane's read.
    let stride = k + LANES - 1;
    let mut centred = vec![0.0; n * stride];
    // Per column: its sum of squares about the mean when it is complete
    // and not constant (with at least two rows).
    let mut squares: Vec<Option<f64>> = vec![None; k];
    for (j, c) in columns.iter().enumerate() {
        if !complete[j] || n < 2 || c.iter().all(|&v| v == c[0]) {
            continue;
        }
        let m = c.iter().sum::<f64>() / n as f64;
        let mut sxx = 0.0;
        for (i, v) in c.iter().enumerate() {
            let d = v - m;
            centred[i * stride + j] = d;
            sxx += d * d;
        }
        squares[j] = Some(sxx);
    }
    let mut pairs = Vec::new();
    let mut keep = |a: usize, b: usize, r: f64| {
        if r.abs() > floor {
            pairs.push((a, b, r));
        }
    };
    for a in 0..k {
        if !complete[a] {
            for b in a + 1..k {
                keep(a, b, correlation(columns[a], columns[b]));
            }
            continue;
        }
        for first in (a + 1..k).step_by(LANES) {
            let mut sums = [0.0; LANES];
            if squares[a].is_some() {
                for i in 0..n {
                    let row = &centred[i * stride..];
                    let (d, others) = (row[a], &row[first..first + LANES]);
                    for (s, o) in sums.iter_mut().zip(others) {
                        *s += d * o;
                    }
                }
            }
            for (b, sxy) in (first..k.min(first + LANES)).zip(sums) {
                let r = if !complete[b] {
                    correlation(columns[a], columns[b])
                } else if let (Some(sxx), Some(syy)) = (squares[a], squares[b]) {
                    let r = (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0);
                    if r.is_finite() { r } else { 0.0 }
                } else {
                    // A constant side or fewer than two rows.
                    0.0
                };
                keep(a, b, r);
            }
        }
    }
    pairs
}

/// The standard normal distribution function (the complementary error
/// function of Numerical Recipes, accuracy 1.2e-7; `libm`'s `exp`, so the
/// result is the same on every architecture).
pub(crate) fn normal_cdf(x: f64) -> f64 {
    const C: [f64; 10] = [
        -1.265_512_23,
        1.000_023_68,
        0.374_091_96,
        0.096_784_18,
        -0.186_288_06,
        0.278_868_07,
        -1.135_203_98,
        1.488_515_87,
        -0.822_152_23,
        0.170_872_77,
    ];
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z);
    // Horner's rule over the coefficients, highest power first.
    let poly = C.iter().rev().fold(0.0, |acc, c| acc * t + c);
    let erfc = t * libm::exp(-z * z + poly);
    if x >= 0.0 { 1.0 - erfc / 2.0 } else { erfc / 2.0 }
}

/// The standard normal quantile of `p` in (0, 1): [`normal_cdf`] inverted
/// by bisection (60 halvings of [-9, 9], beyond the accuracy of the
/// distribution function; the same bits on every architecture).
///
/// A bisection costs sixty `exp`s, and a task asks for the same `p` many
/// times over (every feature's normal scores of the same row count, every
/// row of a category's level), so each thread remembers the quantiles it
/// computed: a pure function's memo, the same bits as computing them again
/// (it cut a table task's synthesis several times over; the simulators
/// bench, `benches/simulators.rs`).
pub(crate) fn normal_quantile(p: f64) -> f64 {
    /// Quantiles kept per thread before the memo starts afresh.
    const MEMO_LIMIT: usize = 1 << 16;
    thread_local! {
        static MEMO: std::cell::RefCell<std::collections::HashMap<u64, f64>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    MEMO.with(|memo| {
        if let Some(&q) = memo.borrow().get(&p.to_bits()) {
            return q;
        }
        let q = bisect_quantile(p);
        let mut memo = memo.borrow_mut();
        if memo.len() >= MEMO_LIMIT {
            memo.clear();
        }
        memo.insert(p.to_bits(), q);
        q
    })
}

/// [`normal_quantile`] computed: the bisection.
fn bisect_quantile(p: f64) -> f64 {
    let (mut lo, mut hi) = (-9.0_f64, 9.0_f64);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if normal_cdf(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Normal scores of `values` (`Φ⁻¹((rank - 1/2) / n)`, ties sharing their
/// average rank): a variable with a standard normal spread that is a
/// monotone function of the values and of nothing else.
pub(crate) fn normal_scores(values: &[f64]) -> Vec<f64> {
    let n = values.len() as f64;
    ranks(values).iter().map(|r| normal_quantile((r - 0.5) / n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_and_normal_functions() {
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.5);
        // Values from scipy.stats.norm.cdf.
        assert!((normal_cdf(1.0) - 0.8413447460685429).abs() < 2e-7);
        // scipy.stats.norm.ppf(0.975), ppf(0.1).
        assert!((normal_quantile(0.975) - 1.959963984540054).abs() < 1e-6);
        // The memo gives the bisection's own bits, asked once or again.
        for p in [0.975, 0.1, 0.5, 1e-9, 0.3333] {
            assert_eq!(normal_quantile(p).to_bits(), bisect_quantile(p).to_bits());
            assert_eq!(normal_quantile(p).to_bits(), bisect_quantile(p).to_bits());
        }
        assert!((normal_quantile(0.1) + 1.2815515655446004).abs() < 1e-6);
        let scores = normal_scores(&[5.0, 1.0, 5.0, 3.0]);
        assert_eq!(scores[0], scores[2]);
        assert!(scores[1] < scores[3] && scores[3] < scores[0]);
        assert_eq!(ranks(&[3.0, 1.0, 3.0]), vec![2.5, 1.0, 2.5]);
        assert!((correlation(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.5]) - 0.9979487157886733).abs() < 1e-12);
    }

    /// Every pair's correlation from the lanes has the bits the pair's own
    /// [`correlation`] gives, on columns that are complete, constant,
    /// missing a value or infinite somewhere, for column counts on both
    /// sides of a lane's width and tables of 0 to 3 and 500 rows.
    #[test]
    fn correlated_pairs_are_each_pairs_correlation_bit_for_bit() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for (k, n) in [(0, 10), (1, 10), (2, 0), (3, 1), (5, 2), (9, 3), (8, 500), (19, 500)] {
            let base: Vec<f64> = (0..n).map(|_| rng.random_range(-2.0..2.0)).collect();
            let columns: Vec<Vec<f64>> = (0..k)
                .map(|j| {
                    (0..n)
                        .map(|i| match j % 6 {
                            // Correlated with the base, more or less.
                            0 | 1 => base[i] * (j as f64 + 1.0) + rng.random_range(-1.0..1.0) * j as f64,
                            2 => 3.5,
                            3 if i == n / 2 => f64::NAN,
                            4 if i == 0 => f64::INFINITY,
                            _ => -base[i] + rng.random_range(-0.5..0.5),
                        })
                        .collect()
                })
                .collect();
            let refs: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
            let mut expected = Vec::new();
            for a in 0..k {
                for b in a + 1..k {
                    expected.push((a, b, correlation(&columns[a], &columns[b]).to_bits()));
                }
            }
            let all: Vec<_> = correlated_pairs(&refs, -1.0).into_iter().map(|(a, b, r)| (a, b, r.to_bits())).collect();
            assert_eq!(all, expected, "{k} columns of {n} rows");
            let above: Vec<_> = correlated_pairs(&refs, 0.3).into_iter().map(|(a, b, r)| (a, b, r.to_bits())).collect();
            let expected_above: Vec<_> =
                expected.into_iter().filter(|&(_, _, r)| f64::from_bits(r).abs() > 0.3).collect();
            assert_eq!(above, expected_above, "{k} columns of {n} rows above 0.3");
            if n == 500 {
                assert!(above.len() >= 3, "the fixture has correlated pairs");
            }
        }
    }
}
