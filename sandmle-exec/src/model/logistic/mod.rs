//! L2-penalised logistic regression, scikit-learn's `LogisticRegression`
//! with `solver="lbfgs"`: the same objective, the same parameters, the same
//! optimiser settings.
//!
//! With `n` training rows the objective is scikit-learn's scaled one,
//!
//! ```text
//! (1/n) sum_i loss_i + 1/(2 C n) ||W||^2
//! ```
//!
//! (`C sum_i loss_i + ||W||^2 / 2` divided by `C n`: the same minimiser).
//! The intercepts are not penalised; `c: None` drops the penalty. Two
//! classes fit one coefficient vector with the binomial loss
//! `log(1 + e^z) - y z`; more fit the full multinomial model, one vector per
//! class, with the loss `logsumexp(z) - z_y` (as scikit-learn ≥ 1.5 does for
//! lbfgs). It is minimised from zero by [`super::lbfgs`] with
//! scikit-learn's settings: memory 10, at most 100 iterations, a gradient
//! max-norm of 1e-4.
//!
//! The parameters are laid out as scikit-learn's: class-contiguous per
//! feature (`w[j * K + k]`), intercepts last. The exponential and logarithm
//! come from `libm`, so the fit is the same on every platform.

use super::lbfgs::{self, Params, Report, dot, row_dots};
use ndarray::{Array2, ArrayView2};

mod wide;

/// A fitted model: `K` coefficient vectors (one for two classes).
#[derive(Debug, Clone)]
pub(crate) struct Logistic {
    /// `d x K`, class-contiguous: `coef[j * K + k]`.
    coef: Vec<f64>,
    intercept: Vec<f64>,
    /// Classes (at least 2).
    classes: usize,
    /// The optimiser's report (iterations, why it stopped): read by the
    /// tests, kept for diagnostics.
    #[cfg_attr(not(test), allow(dead_code))]
    pub report: Report,
}

/// Why a fit was refused.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FitError {
    /// A feature value is NaN or infinite.
    NonFinite,
    /// Labels, rows or classes do not fit together.
    Shape(String),
}

impl std::fmt::Display for FitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FitError::NonFinite => f.write_str("a feature value is not finite"),
            FitError::Shape(s) => f.write_str(s),
        }
    }
}

impl Logistic {
    /// Fits on `x` (rows x features) and class indices `y` in `0..classes`;
    /// `c` is scikit-learn's `C` (positive), `None` for no penalty.
    pub(crate) fn fit(x: ArrayView2<'_, f64>, y: &[usize], classes: usize, c: Option<f64>) -> Result<Self, FitError> {
        let (n, d) = x.dim();
        if y.len() != n || n == 0 {
            return Err(FitError::Shape(format!("{n} rows and {} labels", y.len())));
        }
        if classes < 2 || y.iter().any(|&k| k >= classes) {
            return Err(FitError::Shape(format!("labels must lie in 0..{classes} with at least 2 classes")));
        }
        if let Some(c) = c.filter(|c| !(c.is_finite() && *c > 0.0)) {
            return Err(FitError::Shape(format!("C must be positive and finite, not {c}")));
        }
        if !x.iter().all(|v| v.is_finite()) {
            return Err(FitError::NonFinite);
        }
        let xs = x.as_standard_layout();
        let xs = xs.as_slice().unwrap_or(&[]);
        let k = if classes == 2 { 1 } else { classes };
        let l2 = c.map_or(0.0, |c| 1.0 / (c * n as f64));
        let mut w = vec![0.0; (d + 1) * k];
        let report = if k == 1 {
            let mut obj = Binary { x: xs, y, n, d, l2, z: Vec::new() };
            lbfgs::minimize(|w, g| obj.eval(w, g), &mut w, Params::default())
        } else {
            let mut obj = Multinomial { x: xs, y, n, d, k, l2, raw: vec![0.0; k], blocks: None };
            lbfgs::minimize(|w, g| obj.eval(w, g), &mut w, Params::default())
        };
        let intercept = w.split_off(d * k);
        Ok(Logistic { coef: w, intercept, classes, report })
    }

    /// Class probabilities of the rows of `x` (rows x classes): the
    /// sigmoid of the score for two classes (`[1 - p, p]`), the softmax of
    /// the class scores for more.
    pub(crate) fn predict_proba(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
        let k = self.intercept.len();
        let mut out = Array2::zeros((x.nrows(), self.classes));
        if k == 1 {
            // One score a row, summed from the intercept: rows four at a time.
            let xs = x.as_standard_layout();
            let mut z = Vec::new();
            row_dots(xs.as_slice().unwrap_or(&[]), x.nrows(), x.ncols(), &self.coef, self.intercept[0], &mut z);
            for (mut o, &z) in out.rows_mut().into_iter().zip(&z) {
                let p = sigmoid(z);
                (o[0], o[1]) = (1.0 - p, p);
            }
            return out;
        }
        let softmax = |raw: &[f64], mut o: ndarray::ArrayViewMut1<'_, f64>| {
            let max = raw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mut sum = 0.0;
            for (oi, r) in o.iter_mut().zip(raw) {
                *oi = libm::exp(r - max);
                sum += *oi;
            }
            o.mapv_inplace(|p| p / sum);
        };
        // Four rows at a time where the processor has the lanes: the same
        // scores, bit for bit.
        let xs = x.as_standard_layout();
        if let Some(raw) = xs.as_slice().and_then(|xs| self.wide_scores(xs, x.ncols())) {
            for (raw, o) in raw.chunks_exact(k).zip(out.rows_mut()) {
                softmax(raw, o);
            }
            return out;
        }
        let mut raw = vec![0.0; k];
        for (row, o) in x.rows().into_iter().zip(out.rows_mut()) {
            raw.copy_from_slice(&self.intercept);
            for (j, &v) in row.iter().enumerate() {
                for (r, w) in raw.iter_mut().zip(&self.coef[j * k..][..k]) {
                    *r += v * w;
                }
            }
            softmax(&raw, o);
        }
        out
    }

    /// Every row's class scores from [`wide::scores`], rows after rows,
    /// for 3 to 16 classes where the processor has four `f64` lanes.
    fn wide_scores(&self, xs: &[f64], d: usize) -> Option<Vec<f64>> {
        macro_rules! wide {
            ($($k:literal)*) => {
                match self.intercept.len() {
                    $($k => wide::scores::<$k>(xs, d, &self.coef, &self.intercept).map(|z| z.concat()),)*
                    _ => None,
                }
            };
        }
        wide!(3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    }
}

/// The binomial objective.
struct Binary<'a> {
    x: &'a [f64],
    y: &'a [usize],
    n: usize,
    d: usize,
    l2: f64,
    /// Each row's dot product with the coefficients (scratch).
    z: Vec<f64>,
}

impl Binary<'_> {
    fn eval(&mut self, w: &[f64], g: &mut [f64]) -> f64 {
        let (n, d) = (self.n, self.d);
        let (coef, b) = (&w[..d], w[d]);
        g.fill(0.0);
        row_dots(self.x, n, d, coef, 0.0, &mut self.z);
        let mut loss = 0.0;
        for ((i, &yi), &dz) in self.y.iter().enumerate().take(n).zip(&self.z) {
            let row = &self.x[i * d..][..d];
            let z = b + dz;
            let y = yi as f64;
            // log(1 + e^z) - y z, stable on both sides.
            loss += if z > 0.0 { z + libm::log1p(libm::exp(-z)) } else { libm::log1p(libm::exp(z)) } - y * z;
            let r = sigmoid(z) - y;
            for (gj, xj) in g[..d].iter_mut().zip(row) {
                *gj += r * xj;
            }
            g[d] += r;
        }
        finish(loss, w, g, n, d, 1, self.l2)
    }
}

/// The multinomial objective.
struct Multinomial<'a> {
    x: &'a [f64],
    y: &'a [usize],
    n: usize,
    d: usize,
    k: usize,
    l2: f64,
    raw: Vec<f64>,
    /// The rows four at a time for [`wide::eval`], made on its first call.
    blocks: Option<wide::RowBlocks>,
}

/// Class counts whose scores [`Multinomial::eval`] keeps in registers:
/// `$route::<K>` for those, one row at a time for more.
macro_rules! by_classes {
    ($self:ident, $w:ident, $g:ident, $route:ident; $($k:literal)*) => {
        match $self.k {
            $($k => $self.$route::<$k>($w, $g),)*
            _ => $self.eval_rows($w, $g),
        }
    };
}

impl Multinomial<'_> {
    /// The objective and its gradient (into `g`).
    ///
    /// Up to 16 classes, four rows are scored at a time where the
    /// processor has four `f64` lanes ([`wide::eval`]), else two rows at a
    /// time ([`Multinomial::eval_pairs`]), their `K` scores held in
    /// registers (a fixed `K`), each coefficient read once for all of
    /// them; more classes take one row at a time through memory. Every
    /// way, every score, the loss and every gradient entry add the same
    /// terms in the same order (features in order; rows in order), so the
    /// result is the same bit for bit.
    fn eval(&mut self, w: &[f64], g: &mut [f64]) -> f64 {
        by_classes!(self, w, g, eval_wide; 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    }

    /// [`Multinomial::eval`] without the four-lane route.
    #[cfg(test)]
    fn eval_two_lanes(&mut self, w: &[f64], g: &mut [f64]) -> f64 {
        by_classes!(self, w, g, eval_pairs; 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    }

    /// [`wide::eval`] for `K` classes, or [`Multinomial::eval_pairs`] where
    /// the processor has no four `f64` lanes.
    fn eval_wide<const K: usize>(&mut self, w: &[f64], g: &mut [f64]) -> f64 {
        wide::eval::<K>(self, w, g).unwrap_or_else(|| self.eval_pairs::<K>(w, g))
    }

    /// [`Multinomial::eval`] one row at a time, any number of classes.
    fn eval_rows(&mut self, w: &[f64], g: &mut [f64]) -> f64 {
        let (n, d, k) = (self.n, self.d, self.k);
        let (coef, b) = w.split_at(d * k);
        g.fill(0.0);
        let raw = &mut self.raw[..k];
        let mut loss = 0.0;
        for (i, &yi) in self.y.iter().enumerate().take(n) {
            let row = &self.x[i * d..][..d];
            raw.copy_from_slice(b);
            for (j, &v) in row.iter().enumerate() {
                for (r, wj) in raw.iter_mut().zip(&coef[j * k..][..k]) {
                    *r += v * wj;
                }
            }
            loss += residuals(raw, yi);
            for (j, &v) in row.iter().enumerate() {
                for (gj, r) in g[j * k..][..k].iter_mut().zip(raw.iter()) {
                    *gj += v * r;
                }
            }
            for (gb, r) in g[d * k..].iter_mut().zip(raw.iter()) {
                *gb += r;
            }
        }
        finish(loss, w, g, n, d, k, self.l2)
    }

    /// [`Multinomial::eval`] for `K` classes, two rows at a time.
    fn eval_pairs<const K: usize>(&mut self, w: &[f64], g: &mut [f64]) -> f64 {
        let (n, d) = (self.n, self.d);
        let (coef, b) = w.split_at(d * K);
        g.fill(0.0);
        let (grad, gb) = g.split_at_mut(d * K);
        let mut start = [0.0; K];
        start.iter_mut().zip(b).for_each(|(s, &b)| *s = b);
        let row = |i: usize| &self.x[i * d..][..d];
        let mut loss = 0.0;
        for i in (0..n / 2).map(|p| 2 * p) {
            let rows = ([row(i), row(i + 1)], [self.y[i], self.y[i + 1]]);
            add_rows::<K, 2>(rows, coef, &start, (grad, gb), &mut loss);
        }
        if n % 2 == 1 {
            add_rows::<K, 1>(([row(n - 1)], [self.y[n - 1]]), coef, &start, (grad, gb), &mut loss);
        }
        finish(loss, w, g, n, d, K, self.l2)
    }
}

/// `R` rows (features, class) of a `K`-class objective: each row's scores
/// from `start` (the intercepts), its loss added to `loss` and its terms to
/// the gradient `(coefficients, intercepts)`, rows in order. The `R x K`
/// scores stay in registers and each coefficient is read once for all
/// rows; every sum adds the same terms in the same order as one row at a
/// time.
#[inline]
fn add_rows<const K: usize, const R: usize>(
    (xs, ys): ([&[f64]; R], [usize; R]),
    coef: &[f64],
    start: &[f64; K],
    (grad, gb): (&mut [f64], &mut [f64]),
    loss: &mut f64,
) {
    let d = xs.iter().fold(coef.len() / K.max(1), |m, x| m.min(x.len()));
    let xs = xs.map(|x| &x[..d]);
    let mut z = [*start; R];
    for (j, wj) in coef.chunks_exact(K).take(d).enumerate() {
        let v: [f64; R] = std::array::from_fn(|r| xs[r][j]);
        for c in 0..K {
            for r in 0..R {
                z[r][c] += v[r] * wj[c];
            }
        }
    }
    for (zr, &y) in z.iter_mut().zip(&ys) {
        *loss += residuals(zr, y);
    }
    for (j, gj) in grad.chunks_exact_mut(K).take(d).enumerate() {
        let v: [f64; R] = std::array::from_fn(|r| xs[r][j]);
        for c in 0..K {
            let mut s = gj[c];
            for r in 0..R {
                s += v[r] * z[r][c];
            }
            gj[c] = s;
        }
    }
    for c in 0..K {
        let mut s = gb[c];
        for zr in &z {
            s += zr[c];
        }
        gb[c] = s;
    }
}

/// One row's loss `logsumexp(z) - z_y` (the maximum taken out of the sum),
/// and its scores `z` turned into the residuals `softmax(z) - onehot(y)`.
#[inline]
fn residuals(z: &mut [f64], y: usize) -> f64 {
    let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let zy = z[y];
    let mut sum = 0.0;
    for r in z.iter_mut() {
        *r = libm::exp(*r - max);
        sum += *r;
    }
    let loss = max + libm::log(sum) - zy;
    let inv = 1.0 / sum;
    for (c, r) in z.iter_mut().enumerate() {
        *r = *r * inv - if c == y { 1.0 } else { 0.0 };
    }
    loss
}

/// Averages the summed loss and gradient over the rows and adds the
/// penalty on the coefficients (not the intercepts).
fn finish(loss: f64, w: &[f64], g: &mut [f64], n: usize, d: usize, k: usize, l2: f64) -> f64 {
    let inv_n = 1.0 / n as f64;
    g.iter_mut().for_each(|v| *v *= inv_n);
    for (gj, wj) in g[..d * k].iter_mut().zip(&w[..d * k]) {
        *gj += l2 * wj;
    }
    let penalty = dot(&w[..d * k], &w[..d * k]);
    loss * inv_n + 0.5 * l2 * penalty
}

fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + libm::exp(-z))
    } else {
        let e = libm::exp(z);
        e / (1.0 + e)
    }
}

#[cfg(test)]
mod tests;
