//! A small L-BFGS minimiser for smooth unconstrained objectives, following
//! the unconstrained path of L-BFGS-B (Byrd, Lu, Nocedal and Zhu 1995) as
//! scipy's `minimize(method="L-BFGS-B")` runs it: the inverse-Hessian
//! approximation from the last `memory` pairs scaled by `s'y / y'y`, a first
//! step of `1 / ||d||`, Moré and Thuente's line search (`ftol` 1e-3,
//! `gtol` 0.9, `xtol` 0.1) and L-BFGS-B's stopping rules: the gradient's
//! max-norm at most `pgtol`, a relative reduction of the objective at most
//! `factr * eps`, or `max_iter` iterations. A failed line search drops the
//! memory and restarts along the steepest descent once, as L-BFGS-B does.
//!
//! Everything is allocated once, before the first iteration; the sums run
//! in a fixed order, so a minimisation is deterministic.

/// The minimiser's settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Params {
    /// Correction pairs kept (scipy's `maxcor`).
    pub memory: usize,
    /// Iterations at most (scipy's `maxiter`).
    pub max_iter: usize,
    /// Stop once every gradient component is at most this in absolute value.
    pub pgtol: f64,
    /// Stop once `(f_old - f) / max(|f_old|, |f|, 1)` is at most this.
    pub ftol: f64,
    /// Objective evaluations per line search at most (scipy's `maxls`).
    pub max_ls: usize,
}

impl Default for Params {
    /// scikit-learn's `LogisticRegression(solver="lbfgs")` settings:
    /// memory 10, 100 iterations, `tol` 1e-4, `ftol` `64 * eps`, 50 line
    /// search steps.
    fn default() -> Self {
        Params { memory: 10, max_iter: 100, pgtol: 1e-4, ftol: 64.0 * f64::EPSILON, max_ls: 50 }
    }
}

/// Why the minimiser stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The gradient's max-norm reached `pgtol`.
    Gradient,
    /// The objective's relative reduction reached `ftol`.
    Reduction,
    /// `max_iter` iterations ran.
    MaxIter,
    /// The line search failed along the steepest descent too; the best
    /// point found is kept.
    LineSearch,
    /// The objective or its gradient is not finite at the starting point.
    NonFinite,
}

/// What a minimisation did.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Report {
    /// The objective at the returned point.
    pub f: f64,
    /// Iterations run.
    pub iterations: usize,
    /// Objective evaluations.
    pub evaluations: usize,
    /// Why it stopped.
    pub stop: Stop,
}

/// Minimises `fg` from `x` (overwritten with the minimiser). `fg(x, g)`
/// returns the objective at `x` and writes its gradient into `g`.
pub(crate) fn minimize(mut fg: impl FnMut(&[f64], &mut [f64]) -> f64, x: &mut [f64], p: Params) -> Report {
    let n = x.len();
    let m = p.memory.max(1);
    let mut g = vec![0.0; n];
    let mut d = vec![0.0; n];
    let mut x0 = vec![0.0; n];
    let mut g0 = vec![0.0; n];
    let mut s = vec![0.0; m * n];
    let mut y = vec![0.0; m * n];
    let mut rho = vec![0.0; m];
    let mut alpha = vec![0.0; m];
    // The pairs held, the slot of the oldest one, and H0's scale.
    let (mut col, mut head, mut gamma) = (0usize, 0usize, 1.0);

    let mut f = fg(x, &mut g);
    let mut report = Report { f, iterations: 0, evaluations: 1, stop: Stop::Gradient };
    if !f.is_finite() || !g.iter().all(|v| v.is_finite()) {
        report.stop = Stop::NonFinite;
        return report;
    }
    if max_abs(&g) <= p.pgtol {
        return report;
    }
    loop {
        // d = -H g by the two-loop recursion, newest pair first.
        for (di, gi) in d.iter_mut().zip(&g) {
            *di = -gi;
        }
        for c in (0..col).rev() {
            let slot = (head + c) % m;
            let a = rho[slot] * dot(&s[slot * n..][..n], &d);
            alpha[slot] = a;
            axpy(-a, &y[slot * n..][..n], &mut d);
        }
        if col > 0 {
            d.iter_mut().for_each(|v| *v *= gamma);
        }
        for c in 0..col {
            let slot = (head + c) % m;
            let b = rho[slot] * dot(&y[slot * n..][..n], &d);
            axpy(alpha[slot] - b, &s[slot * n..][..n], &mut d);
        }
        let gd0 = dot(&g, &d);
        if gd0 >= 0.0 || !gd0.is_finite() {
            // Not a descent direction: restart from the steepest descent.
            if col == 0 {
                report.stop = Stop::LineSearch;
                break;
            }
            (col, head, gamma) = (0, 0, 1.0);
            continue;
        }
        let stp = if report.iterations == 0 { (1.0 / norm(&d)).min(1e10) } else { 1.0 };
        x0.copy_from_slice(x);
        g0.copy_from_slice(&g);
        let f0 = f;
        let mut evaluations = 0;
        let outcome = line_search(
            |t| {
                for ((xi, x0i), di) in x.iter_mut().zip(&x0).zip(&d) {
                    *xi = x0i + t * di;
                }
                let fx = fg(x, &mut g);
                evaluations += 1;
                (fx, dot(&g, &d))
            },
            f0,
            gd0,
            stp,
            p.max_ls,
        );
        report.evaluations += evaluations;
        let Some((stp, f_new)) = outcome else {
            x.copy_from_slice(&x0);
            g.copy_from_slice(&g0);
            if col == 0 {
                report.stop = Stop::LineSearch;
                break;
            }
            (col, head, gamma) = (0, 0, 1.0);
            continue;
        };
        f = f_new;
        report.iterations += 1;
        if max_abs(&g) <= p.pgtol {
            report.stop = Stop::Gradient;
            break;
        }
        if f0 - f <= p.ftol * f0.abs().max(f.abs()).max(1.0) {
            report.stop = Stop::Reduction;
            break;
        }
        if report.iterations >= p.max_iter {
            report.stop = Stop::MaxIter;
            break;
        }
        // The new pair s = stp d, y = g - g0, kept if s'y is positive
        // enough (L-BFGS-B's test).
        let slot = (head + col) % m;
        let (sk, yk) = (&mut s[slot * n..][..n], &mut y[slot * n..][..n]);
        for i in 0..n {
            sk[i] = stp * d[i];
            yk[i] = g[i] - g0[i];
        }
        let sy = dot(sk, yk);
        let yy = dot(yk, yk);
        if sy > f64::EPSILON * (-gd0 * stp) && yy > 0.0 {
            rho[slot] = 1.0 / sy;
            gamma = sy / yy;
            if col < m {
                col += 1;
            } else {
                head = (head + 1) % m;
            }
        }
    }
    report.f = f;
    report
}

/// Moré and Thuente's line search (MINPACK-2's `dcsrch`) with L-BFGS-B's
/// constants: `phi(t)` evaluates the objective and its directional
/// derivative at step `t`; `f0` and `g0 < 0` are their values at 0. Returns
/// the accepted step and the objective there (the point `phi` evaluated
/// last), or `None` after `max_evals` evaluations or a non-finite value.
fn line_search(
    mut phi: impl FnMut(f64) -> (f64, f64),
    f0: f64,
    g0: f64,
    mut stp: f64,
    max_evals: usize,
) -> Option<(f64, f64)> {
    const FTOL: f64 = 1e-3;
    const GTOL: f64 = 0.9;
    const XTOL: f64 = 0.1;
    const STPMIN: f64 = 0.0;
    const STPMAX: f64 = 1e10;
    const XTRAPL: f64 = 1.1;
    const XTRAPU: f64 = 4.0;
    let gtest = FTOL * g0;
    let mut width = STPMAX - STPMIN;
    let mut width1 = 2.0 * width;
    let (mut stx, mut fx, mut gx) = (0.0, f0, g0);
    let (mut sty, mut fy, mut gy) = (0.0, f0, g0);
    let (mut stmin, mut stmax) = (0.0, stp + XTRAPU * stp);
    let mut brackt = false;
    let mut stage1 = true;
    for _ in 0..max_evals {
        let (f, g) = phi(stp);
        if !f.is_finite() || !g.is_finite() {
            return None;
        }
        let ftest = f0 + stp * gtest;
        if stage1 && f <= ftest && g >= 0.0 {
            stage1 = false;
        }
        // dcsrch's warnings end the search with the current step, as
        // L-BFGS-B accepts them.
        if brackt && (stp <= stmin || stp >= stmax) {
            return Some((stp, f));
        }
        if brackt && stmax - stmin <= XTOL * stmax {
            return Some((stp, f));
        }
        if stp == STPMAX && f <= ftest && g <= gtest {
            return Some((stp, f));
        }
        if stp == STPMIN && (f > ftest || g >= gtest) {
            return Some((stp, f));
        }
        if f <= ftest && g.abs() <= GTOL * (-g0) {
            return Some((stp, f));
        }
        if stage1 && f <= fx && f > ftest {
            // The modified function psi(t) = f(t) - f0 - t * gtest.
            let mut a = Point { t: stx, f: fx - stx * gtest, g: gx - gtest };
            let mut b = Point { t: sty, f: fy - sty * gtest, g: gy - gtest };
            let c = Point { t: stp, f: f - stp * gtest, g: g - gtest };
            stp = step(&mut a, &mut b, c, &mut brackt, stmin, stmax);
            (stx, fx, gx) = (a.t, a.f + a.t * gtest, a.g + gtest);
            (sty, fy, gy) = (b.t, b.f + b.t * gtest, b.g + gtest);
        } else {
            let mut a = Point { t: stx, f: fx, g: gx };
            let mut b = Point { t: sty, f: fy, g: gy };
            stp = step(&mut a, &mut b, Point { t: stp, f, g }, &mut brackt, stmin, stmax);
            (stx, fx, gx) = (a.t, a.f, a.g);
            (sty, fy, gy) = (b.t, b.f, b.g);
        }
        if brackt {
            if (sty - stx).abs() >= 0.66 * width1 {
                stp = stx + 0.5 * (sty - stx);
            }
            width1 = width;
            width = (sty - stx).abs();
            (stmin, stmax) = (stx.min(sty), stx.max(sty));
        } else {
            stmin = stp + XTRAPL * (stp - stx);
            stmax = stp + XTRAPU * (stp - stx);
        }
        stp = stp.clamp(STPMIN, STPMAX);
        if brackt && (stp <= stmin || stp >= stmax || stmax - stmin <= XTOL * stmax) {
            stp = stx;
        }
    }
    None
}

/// A step with the function value and derivative there.
#[derive(Debug, Clone, Copy)]
struct Point {
    t: f64,
    f: f64,
    g: f64,
}

/// MINPACK-2's `dcstep`: a safeguarded cubic or quadratic step from the
/// best point `x`, the other end of the interval `y` and the trial point
/// `p`; updates the interval and returns the next trial step.
fn step(x: &mut Point, y: &mut Point, p: Point, brackt: &mut bool, stpmin: f64, stpmax: f64) -> f64 {
    let sgnd = p.g * x.g.signum();
    // The minimiser of the cubic interpolating (a, fa, ga) and (b, fb, gb)
    // as `b + r (a - b)`, and its parts.
    let cubic = |a: Point, b: Point, clamp_root: bool| -> (f64, f64) {
        let theta = 3.0 * (a.f - b.f) / (b.t - a.t) + a.g + b.g;
        let s = theta.abs().max(a.g.abs()).max(b.g.abs());
        let disc = (theta / s).powi(2) - (a.g / s) * (b.g / s);
        let gamma = s * if clamp_root { disc.max(0.0) } else { disc }.sqrt();
        (theta, gamma)
    };
    let stpf = if p.f > x.f {
        // Case 1: a higher value; the minimum is bracketed.
        let (theta, mut gamma) = cubic(*x, p, false);
        if p.t < x.t {
            gamma = -gamma;
        }
        let q = ((gamma - x.g) + gamma) + p.g;
        let r = ((gamma - x.g) + theta) / q;
        let stpc = x.t + r * (p.t - x.t);
        let stpq = x.t + ((x.g / ((x.f - p.f) / (p.t - x.t) + x.g)) / 2.0) * (p.t - x.t);
        *brackt = true;
        if (stpc - x.t).abs() < (stpq - x.t).abs() { stpc } else { stpc + (stpq - stpc) / 2.0 }
    } else if sgnd < 0.0 {
        // Case 2: derivatives of opposite sign; bracketed.
        let (theta, mut gamma) = cubic(*x, p, false);
        if p.t > x.t {
            gamma = -gamma;
        }
        let q = ((gamma - p.g) + gamma) + x.g;
        let r = ((gamma - p.g) + theta) / q;
        let stpc = p.t + r * (x.t - p.t);
        let stpq = p.t + (p.g / (p.g - x.g)) * (x.t - p.t);
        *brackt = true;
        if (stpc - p.t).abs() > (stpq - p.t).abs() { stpc } else { stpq }
    } else if p.g.abs() < x.g.abs() {
        // Case 3: same sign, the derivative's magnitude decreases.
        let (theta, mut gamma) = cubic(*x, p, true);
        if p.t > x.t {
            gamma = -gamma;
        }
        let q = (gamma + (x.g - p.g)) + gamma;
        let r = ((gamma - p.g) + theta) / q;
        let stpc = if r < 0.0 && gamma != 0.0 {
            p.t + r * (x.t - p.t)
        } else if p.t > x.t {
            stpmax
        } else {
            stpmin
        };
        let stpq = p.t + (p.g / (p.g - x.g)) * (x.t - p.t);
        if *brackt {
            let t = if (stpc - p.t).abs() < (stpq - p.t).abs() { stpc } else { stpq };
            let bound = p.t + 0.66 * (y.t - p.t);
            if p.t > x.t { t.min(bound) } else { t.max(bound) }
        } else {
            let t = if (stpc - p.t).abs() > (stpq - p.t).abs() { stpc } else { stpq };
            t.clamp(stpmin, stpmax)
        }
    } else if *brackt {
        // Case 4: same sign, the derivative does not decrease; bracketed.
        let (theta, mut gamma) = cubic(p, *y, false);
        if p.t > y.t {
            gamma = -gamma;
        }
        let q = ((gamma - p.g) + gamma) + y.g;
        let r = ((gamma - p.g) + theta) / q;
        p.t + r * (y.t - p.t)
    } else if p.t > x.t {
        stpmax
    } else {
        stpmin
    };
    if p.f > x.f {
        *y = p;
    } else {
        if sgnd < 0.0 {
            *y = *x;
        }
        *x = p;
    }
    stpf
}

/// `sum a_i b_i` in four lanes: lane `l` adds the terms `i ≡ l (mod 4)`
/// in index order, and the sum is `(lane 0 + lane 1) + (lane 2 + lane 3)`.
/// A fixed order, so the same bits on every run; four chains of additions
/// where one chain through every term kept the minimiser's vectors (the
/// coefficients of every class, 2,030 numbers for 202 features and 10
/// classes) waiting on the adder: with the regulariser's sum of squares,
/// it made L-BFGS's own arithmetic almost as costly as the objective's.
///
/// Where the processor has four `f64` lanes ([`pulp::Arch`]), the four
/// lanes are one register: the same products and sums per lane.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    struct Dot<'a>(&'a [f64], &'a [f64]);
    impl pulp::WithSimd for Dot<'_> {
        type Output = f64;
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, simd: S) -> f64 {
            let Dot(a, b) = self;
            if S::F64_LANES != 4 {
                return dot_portable(a, b);
            }
            let len = a.len().min(b.len());
            let (a, b) = (&a[..len], &b[..len]);
            let ((wide_a, rest_a), (wide_b, _)) = (S::as_simd_f64s(a), S::as_simd_f64s(b));
            let mut acc = simd.splat_f64s(0.0);
            for (&x, &y) in wide_a.iter().zip(wide_b) {
                acc = simd.add_f64s(acc, simd.mul_f64s(x, y));
            }
            let mut lanes = super::lanes::four_lanes::<S>(acc);
            for (l, (x, y)) in rest_a.iter().zip(&b[len - rest_a.len()..]).enumerate() {
                lanes[l] += x * y;
            }
            (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
        }
    }
    pulp::Arch::new().dispatch(Dot(a, b))
}

/// [`dot`] on the baseline processor.
#[inline(always)]
fn dot_portable(a: &[f64], b: &[f64]) -> f64 {
    let len = a.len().min(b.len());
    let (a, b) = (&a[..len], &b[..len]);
    let mut lanes = [0.0f64; 4];
    let (quads_a, quads_b) = (a.chunks_exact(4), b.chunks_exact(4));
    let (rest_a, rest_b) = (quads_a.remainder(), quads_b.remainder());
    for (x, y) in quads_a.zip(quads_b) {
        for l in 0..4 {
            lanes[l] += x[l] * y[l];
        }
    }
    for (l, (x, y)) in rest_a.iter().zip(rest_b).enumerate() {
        lanes[l] += x * y;
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
}

/// `start + rows[r] . w` for every row, each summed in index order (a
/// fold from `start`), `N` rows at once: one
/// row's sum is a chain of dependent additions, and `N` independent chains
/// keep the adder busy. Each row's sum is the one it has alone.
pub(crate) fn dots<const N: usize>(rows: [&[f64]; N], w: &[f64], start: f64) -> [f64; N] {
    let len = rows.iter().fold(w.len(), |m, r| m.min(r.len()));
    let rows = rows.map(|r| &r[..len]);
    let mut acc = [start; N];
    for (j, &wj) in w[..len].iter().enumerate() {
        for (a, r) in acc.iter_mut().zip(&rows) {
            *a += r[j] * wj;
        }
    }
    acc
}

/// `start + row . w` for each of the `n` rows of the row-major `x` (`d`
/// wide), four rows at a time ([`dots`]), into `out` (cleared first).
pub(crate) fn row_dots(x: &[f64], n: usize, d: usize, w: &[f64], start: f64, out: &mut Vec<f64>) {
    out.clear();
    if d == 0 {
        out.resize(n, start);
        return;
    }
    let x = &x[..(n * d).min(x.len())];
    let mut blocks = x.chunks_exact(4 * d);
    for block in &mut blocks {
        let (r0, rest) = block.split_at(d);
        let (r1, rest) = rest.split_at(d);
        let (r2, r3) = rest.split_at(d);
        out.extend(dots([r0, r1, r2, r3], w, start));
    }
    out.extend(blocks.remainder().chunks_exact(d).map(|r| dots([r], w, start)[0]));
}

/// `y += a x`, four numbers a register where the processor has the lanes
/// (each the same product and sum).
fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    struct Axpy<'a>(f64, &'a [f64], &'a mut [f64]);
    impl pulp::WithSimd for Axpy<'_> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, simd: S) {
            let Axpy(a, x, y) = self;
            let len = x.len().min(y.len());
            let (x, y) = (&x[..len], &mut y[..len]);
            let ((wide_x, rest_x), (wide_y, rest_y)) = (S::as_simd_f64s(x), S::as_mut_simd_f64s(y));
            let wide_a = simd.splat_f64s(a);
            for (yi, &xi) in wide_y.iter_mut().zip(wide_x) {
                *yi = simd.add_f64s(*yi, simd.mul_f64s(wide_a, xi));
            }
            for (yi, xi) in rest_y.iter_mut().zip(rest_x) {
                *yi += a * xi;
            }
        }
    }
    pulp::Arch::new().dispatch(Axpy(a, x, y));
}

fn norm(v: &[f64]) -> f64 {
    dot(v, v).sqrt()
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m: f64, x| m.max(x.abs()))
}

#[cfg(test)]
mod tests;
