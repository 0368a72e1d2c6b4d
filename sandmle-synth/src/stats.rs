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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_and_normal_functions() {
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.5);
        // Values from scipy.stats.norm.cdf.
        assert!((normal_cdf(1.0) - 0.8413447460685429).abs() < 2e-7);
        assert_eq!(ranks(&[3.0, 1.0, 3.0]), vec![2.5, 1.0, 2.5]);
        assert!((correlation(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.5]) - 0.9979487157886733).abs() < 1e-12);
    }
}
