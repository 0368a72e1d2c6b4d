//! Naive Bayes. Gaussian naive Bayes is fitted here, as scikit-learn fits
//! it; for multinomial naive Bayes smartcore fits the class statistics and
//! the probabilities are computed here from them (smartcore predicts
//! labels only).

use super::{Data, need_rows, softmax_rows};
use crate::error::{Error, Result};
use ndarray::{Array1, Array2};
use smartcore::naive_bayes::multinomial::{MultinomialNB, MultinomialNBParameters};

/// Gaussian naive Bayes, as scikit-learn's `GaussianNB` fits it: per class
/// the share of rows, the mean and the variance (two passes, `ddof = 0`)
/// of every feature, each variance increased by `var_smoothing` times the
/// largest feature variance (at least 1e-12, so a constant feature is no
/// division by zero); probabilities from the joint log-likelihood.
pub(super) fn gaussian(d: &Data<'_>, y: &[usize], k: usize, var_smoothing: f64) -> Result<Array2<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    need_rows("gaussian_nb", 2, x.nrows())?;
    let start = std::time::Instant::now();
    let p = x.ncols();
    let mut count = vec![0usize; k];
    let mut theta = Array2::<f64>::zeros((k, p));
    for (row, &c) in x.rows().into_iter().zip(y) {
        count[c] += 1;
        theta.row_mut(c).zip_mut_with(&row, |t, &v| *t += v);
    }
    for (mut t, &n) in theta.rows_mut().into_iter().zip(&count) {
        t.mapv_inplace(|v| v / n.max(1) as f64);
    }
    let mut var = Array2::<f64>::zeros((k, p));
    for (row, &c) in x.rows().into_iter().zip(y) {
        let t = theta.row(c);
        var.row_mut(c).iter_mut().zip(row).zip(t).for_each(|((s, &v), &m)| *s += (v - m) * (v - m));
    }
    let max_var = x.columns().into_iter().map(|c| c.var(0.0)).fold(0.0, f64::max);
    let eps = (var_smoothing * max_var).max(1e-12);
    for (mut v, &n) in var.rows_mut().into_iter().zip(&count) {
        v.mapv_inplace(|s| s / n.max(1) as f64 + eps);
    }
    let n = y.len() as f64;
    // Per class: ln prior - 0.5 * sum ln(2 pi var), and 1 / var.
    let base: Vec<f64> = (0..k)
        .map(|c| {
            let prior = (count[c] as f64 / n).ln();
            prior - 0.5 * var.row(c).iter().map(|v| (2.0 * std::f64::consts::PI * v).ln()).sum::<f64>()
        })
        .collect();
    clock.add_fit(start.elapsed());
    let start = std::time::Instant::now();
    let mut scores = Array2::<f64>::zeros((x_test.nrows(), k));
    let x_test = x_test.as_standard_layout();
    let (theta, var) = (theta.as_standard_layout(), var.as_standard_layout());
    let stats = (theta.as_slice().unwrap_or(&[]), var.as_slice().unwrap_or(&[]));
    let quads = quads(x_test.as_slice().unwrap_or(&[]), x_test.nrows(), stats, p, k);
    for (mut row, quads) in scores.rows_mut().into_iter().zip(quads.chunks_exact(k)) {
        for ((s, &quad), (&n, &b)) in row.iter_mut().zip(quads).zip(count.iter().zip(&base)) {
            *s = if n == 0 { f64::NEG_INFINITY } else { b - 0.5 * quad };
        }
    }
    softmax_rows(&mut scores);
    clock.add_predict(start.elapsed());
    Ok(scores)
}

/// Per row of the `n x p` row-major `x`, per class of the `k x p`
/// row-major means and variances `(theta, var)`: `sum_j (x_j - m_j)² /
/// s_j`, features in order. Where the processor has four `f64` lanes
/// ([`pulp::Arch`]), four rows are summed at a time, a lane a row: the same
/// operations in the same order, so the same bits, with a quarter of the
/// divisions' issue slots.
fn quads(x: &[f64], n: usize, (theta, var): (&[f64], &[f64]), p: usize, k: usize) -> Vec<f64> {
    if p == 0 || k == 0 {
        return vec![0.0; n * k];
    }
    struct Quads<'a>(&'a [f64], &'a [f64], &'a [f64], usize);
    impl pulp::WithSimd for Quads<'_> {
        type Output = Vec<f64>;
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, simd: S) -> Vec<f64> {
            let Quads(x, theta, var, p) = self;
            let k = theta.len() / p;
            let mut out = Vec::with_capacity(x.len() / p * k);
            let mut blocks = x.chunks_exact(4 * p);
            if S::F64_LANES == 4 {
                let mut lanes = vec![0.0; 4 * p];
                let mut q = vec![[0.0; 4]; k];
                for block in &mut blocks {
                    super::lanes::side_by_side(block, p, &mut lanes);
                    let (wide, _) = S::as_simd_f64s(&lanes);
                    for ((t, v), q) in theta.chunks_exact(p).zip(var.chunks_exact(p)).zip(&mut q) {
                        let mut acc = simd.splat_f64s(0.0);
                        for ((&xv, &m), &s) in wide.iter().zip(t).zip(v) {
                            let d = simd.sub_f64s(xv, simd.splat_f64s(m));
                            acc = simd.add_f64s(acc, simd.div_f64s(simd.mul_f64s(d, d), simd.splat_f64s(s)));
                        }
                        *q = super::lanes::four_lanes::<S>(acc);
                    }
                    for r in 0..4 {
                        out.extend(q.iter().map(|q| q[r]));
                    }
                }
            }
            let rest = if S::F64_LANES == 4 { blocks.remainder() } else { x };
            for row in rest.chunks_exact(p) {
                for (t, v) in theta.chunks_exact(p).zip(var.chunks_exact(p)) {
                    out.push(row.iter().zip(t).zip(v).map(|((&xj, &m), &s)| (xj - m) * (xj - m) / s).sum());
                }
            }
            out
        }
    }
    pulp::Arch::new().dispatch(Quads(x, theta, var, p))
}

/// Multinomial naive Bayes on non-negative integer features (counts, such
/// as the `text` step's without tf-idf).
pub(super) fn multinomial(d: &Data<'_>, y: &[usize], k: usize, alpha: f64) -> Result<Array2<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    need_rows("multinomial_nb", 2, x.nrows())?;
    let counts = |m: &Array2<f64>| -> Result<Array2<u32>> {
        if m.iter().any(|&v| v < 0.0 || v.fract() != 0.0 || v > f64::from(u32::MAX)) {
            return Err(Error::BadParameter {
                model: "multinomial_nb",
                param: "features",
                reason: "must be non-negative whole numbers (counts); use the text step without tf-idf and no scaling"
                    .into(),
            });
        }
        Ok(m.mapv(|v| v as u32))
    };
    let (xu, xu_test) = (counts(x)?, counts(x_test)?);
    let yu: Array1<u32> = y.iter().map(|&c| c as u32).collect();
    // As scikit-learn, a zero alpha is raised to 1e-10 so that no log is -inf.
    let alpha = alpha.max(1e-10);
    let model = clock
        .fit("multinomial_nb", || MultinomialNB::fit(&xu, &yu, MultinomialNBParameters::default().with_alpha(alpha)))?;
    let (flp, class_count) = (model.feature_log_prob(), model.class_count());
    let n = class_count.iter().sum::<usize>() as f64;
    let mut scores = Array2::<f64>::zeros((x_test.nrows(), k));
    for (i, row) in xu_test.rows().into_iter().enumerate() {
        for c in 0..k.min(flp.len()) {
            let dot: f64 = row.iter().zip(&flp[c]).map(|(&xj, &l)| if xj == 0 { 0.0 } else { f64::from(xj) * l }).sum();
            scores[[i, c]] = (class_count[c] as f64 / n).ln() + dot;
        }
    }
    softmax_rows(&mut scores);
    Ok(scores)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Clock;
    use ndarray::array;

    /// Four rows at a time (where the processor has the lanes) sum the
    /// same terms in the same order as one row at a time: the same bits,
    /// for row counts on both sides of a block of four.
    #[test]
    fn quads_four_rows_at_a_time_are_one_rows_bits() {
        let mut state = 3u64;
        let mut next = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 6.0 - 3.0
        };
        for (n, p, k) in [(7, 5, 3), (4, 1, 2), (3, 9, 4), (13, 202, 10), (0, 3, 2)] {
            let x: Vec<f64> = (0..n * p).map(|_| next()).collect();
            let theta: Vec<f64> = (0..k * p).map(|_| next()).collect();
            let var: Vec<f64> = (0..k * p).map(|_| next().abs() + 0.1).collect();
            let got = quads(&x, n, (&theta, &var), p, k);
            let mut want = Vec::new();
            for row in x.chunks_exact(p) {
                for (t, v) in theta.chunks_exact(p).zip(var.chunks_exact(p)) {
                    want.push(row.iter().zip(t).zip(v).map(|((&xj, &m), &s)| (xj - m) * (xj - m) / s).sum::<f64>());
                }
            }
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "n {n} p {p} k {k}");
        }
        assert_eq!(quads(&[], 3, (&[], &[]), 0, 2), vec![0.0; 6], "no features: every sum is empty");
    }

    /// `GaussianNB().fit(X, y).predict_proba(T)` in scikit-learn 1.9.1.
    #[test]
    fn gaussian_probabilities_are_scikit_learns() {
        let x = array![[0., 1.], [1., 3.], [2., 2.], [5., 1.], [6., 0.5], [7., 2.5], [3., 3.], [4., 4.]];
        let t = array![[1., 2.], [5.5, 1.], [3.5, 3.5], [10., -1.]];
        let clock = Clock::default();
        let d = Data { clock: &clock, x: &x, x_test: &t, columns: None, seed: 0 };
        let p = gaussian(&d, &[0, 0, 0, 1, 1, 1, 2, 2], 3, 1e-9).unwrap();
        let want = array![
            [0.9999999213198634, 5.0812243530601825e-09, 7.359891229645294e-08],
            [1.6242400412200786e-07, 0.9999998345625788, 3.0134170342670864e-09],
            [0.0009571842148697491, 0.00019276551879501963, 0.9988500502663352],
            [3.556260855108006e-23, 1.0, 6.744337212870535e-48],
        ];
        for (a, b) in p.iter().zip(&want) {
            assert!((a - b).abs() <= 1e-12 * b.abs().max(1e-300) + 1e-15, "{p:?}");
        }
    }
}
