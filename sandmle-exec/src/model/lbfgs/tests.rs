//! Tests of the parent module.

use super::*;

fn rosenbrock(x: &[f64], g: &mut [f64]) -> f64 {
    let (a, b) = (x[0], x[1]);
    g[0] = -2.0 * (1.0 - a) - 400.0 * a * (b - a * a);
    g[1] = 200.0 * (b - a * a);
    (1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2)
}

/// Values whose sums round differently in other orders.
fn awkward(i: usize) -> f64 {
    let v = ((i * 7919) % 1009) as f64 / 97.0 - 5.0;
    if i.is_multiple_of(5) { v * 1e8 } else { v }
}

#[test]
fn rows_summed_four_at_a_time_equal_one_dot_each() {
    for (n, d) in [(0, 3), (1, 3), (4, 7), (7, 130), (9, 1), (5, 0)] {
        let x: Vec<f64> = (0..n * d).map(awkward).collect();
        let w: Vec<f64> = (0..d).map(|j| awkward(j + 31)).collect();
        let mut out = vec![f64::NAN; 2];
        row_dots(&x, n, d, &w, 0.5, &mut out);
        assert_eq!(out.len(), n);
        for (i, z) in out.iter().enumerate() {
            let row = &x[i * d..][..d];
            let alone = row.iter().zip(&w).fold(0.5, |acc, (x, y)| acc + x * y);
            assert_eq!(z.to_bits(), alone.to_bits(), "n {n}, d {d}, row {i}");
        }
    }
}

#[test]
fn a_dot_product_adds_in_four_lanes_and_axpy_term_by_term() {
    for d in [0, 1, 3, 4, 5, 130] {
        let (a, b): (Vec<f64>, Vec<f64>) = (0..d).map(|i| (awkward(i), awkward(i + 7))).unzip();
        let lane = |l: usize| (l..d).step_by(4).fold(0.0, |acc, i| acc + a[i] * b[i]);
        let want = (lane(0) + lane(1)) + (lane(2) + lane(3));
        assert_eq!(dot(&a, &b).to_bits(), want.to_bits(), "{d} terms");
        assert_eq!(dot_portable(&a, &b).to_bits(), want.to_bits(), "{d} terms, portable");
        let mut y = b.clone();
        axpy(-0.3, &a, &mut y);
        let want: Vec<u64> = a.iter().zip(&b).map(|(x, y)| (y + -0.3 * x).to_bits()).collect();
        assert_eq!(y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want, "{d} terms, axpy");
    }
    // The longer slice's extra terms are left out.
    assert_eq!(dot(&[1.0, 2.0, 3.0], &[4.0, 5.0]), 14.0);
}

#[test]
fn finds_the_rosenbrock_minimum() {
    let mut x = [-1.2, 1.0];
    let p = Params { max_iter: 1000, pgtol: 1e-8, ftol: 0.0, ..Params::default() };
    let r = minimize(rosenbrock, &mut x, p);
    assert_eq!(r.stop, Stop::Gradient, "{r:?}");
    assert!((x[0] - 1.0).abs() < 1e-6 && (x[1] - 1.0).abs() < 1e-6, "{x:?}");
    // Like scipy's L-BFGS-B on the same problem: a few dozen iterations.
    assert!(r.iterations < 60, "{r:?}");
}

#[test]
fn a_quadratic_is_solved_in_few_iterations() {
    // f = 0.5 x'Ax - b'x with A diagonal 1..20: the minimiser is b / a.
    let n = 20;
    let fg = |x: &[f64], g: &mut [f64]| {
        let mut f = 0.0;
        for i in 0..n {
            let a = (i + 1) as f64;
            g[i] = a * x[i] - 1.0;
            f += 0.5 * a * x[i] * x[i] - x[i];
        }
        f
    };
    let mut x = vec![0.0; n];
    let r = minimize(fg, &mut x, Params { pgtol: 1e-9, ftol: 0.0, ..Params::default() });
    // At this precision the objective may stop decreasing in floating
    // point first.
    assert!(matches!(r.stop, Stop::Gradient | Stop::Reduction), "{r:?}");
    for (i, xi) in x.iter().enumerate() {
        assert!((xi - 1.0 / (i + 1) as f64).abs() < 1e-8, "{x:?}");
    }
    assert!(r.iterations <= 30, "{r:?}");
}

#[test]
fn stops_at_max_iter_and_on_a_small_gradient() {
    let mut x = [-1.2, 1.0];
    let r = minimize(rosenbrock, &mut x, Params { max_iter: 3, ..Params::default() });
    assert_eq!((r.stop, r.iterations), (Stop::MaxIter, 3));
    let mut at_min = [1.0, 1.0];
    let r = minimize(rosenbrock, &mut at_min, Params::default());
    assert_eq!((r.stop, r.iterations, r.evaluations), (Stop::Gradient, 0, 1));
}

#[test]
fn the_line_search_meets_the_strong_wolfe_conditions() {
    // phi(t) = (t - 3)^2 from t = 0 with a first step of 0.01: the
    // search extrapolates, then accepts a step near 3.
    let phi = |t: f64| ((t - 3.0).powi(2), 2.0 * (t - 3.0));
    let (t, f) = line_search(phi, 9.0, -6.0, 0.01, 50).unwrap();
    assert!(f <= 9.0 + 1e-3 * t * -6.0);
    assert!((2.0 * (t - 3.0)).abs() <= 0.9 * 6.0);
    // A function that rises steeply: the search backtracks.
    let phi = |t: f64| (-t + 1e4 * t * t, -1.0 + 2e4 * t);
    let (t, f) = line_search(phi, 0.0, -1.0, 1.0, 50).unwrap();
    assert!(f <= -1e-3 * t && (-1.0 + 2e4 * t).abs() <= 0.9, "{t} {f}");
}

#[test]
fn non_finite_objectives_are_reported_not_followed() {
    let mut x = [1.0];
    let r = minimize(
        |_, g| {
            g[0] = f64::NAN;
            0.0
        },
        &mut x,
        Params::default(),
    );
    assert_eq!(r.stop, Stop::NonFinite);
    // An objective that turns NaN away from the start: the step is
    // refused and the starting point kept.
    let mut x = [0.0];
    let r = minimize(
        |x, g| {
            g[0] = -1.0;
            if x[0] > 0.0 { f64::NAN } else { -x[0] }
        },
        &mut x,
        Params::default(),
    );
    assert_eq!((r.stop, x[0]), (Stop::LineSearch, 0.0));
}
