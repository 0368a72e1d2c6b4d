//! Support vector machines: one-vs-rest SVC for classes, SVR for values.
//!
//! SVC gives margins, not probabilities: two classes get the logistic
//! function of the margin, more classes the softmax of the one-vs-rest
//! margins. These rank rows exactly as the margins do (what AUC needs) but
//! are not calibrated probabilities.

use super::{Data, need_rows, sigmoid, softmax_rows};
use crate::error::Result;
use crate::spec::Kernel as KernelSpec;
use ndarray::{Array1, Array2};
use smartcore::svm::Kernels;
use smartcore::svm::svc::{SVC, SVCParameters};
use smartcore::svm::svr::{SVR, SVRParameters};

fn kernel(spec: KernelSpec, x: &Array2<f64>) -> Result<Kernels> {
    Ok(match spec {
        KernelSpec::Linear => Kernels::linear(),
        KernelSpec::Rbf { gamma } => {
            let g = match gamma {
                // Checked positive with the spec.
                Some(g) => g,
                // scikit-learn's "scale": 1 / (p * var(X)).
                None => {
                    let var = x.var(0.0);
                    if var > 0.0 { 1.0 / (x.ncols() as f64 * var) } else { 1.0 }
                }
            };
            Kernels::rbf().with_gamma(g)
        }
    })
}

fn check(x: &Array2<f64>) -> Result<()> {
    // smartcore's SVM silently truncates rows when features outnumber them,
    // then fails on every prediction.
    need_rows(&format!("svm on {} features", x.ncols()), x.ncols().max(2), x.nrows())
}

/// The margin of a binary SVC (positive: class 1).
fn margins(d: &Data<'_>, y: &Array1<i32>, c: f64, k: &Kernels) -> Result<Vec<f64>> {
    let params = SVCParameters::default().with_c(c).with_kernel(k.clone()).with_seed(Some(d.seed));
    let model = d.clock.fit("svm", || SVC::fit(d.x, y, &params))?;
    d.clock.predict("svm", || model.decision_function(d.x_test))
}

/// Class probabilities from SVC margins.
pub(super) fn classifier(d: &Data<'_>, y: &[usize], k: usize, c: f64, spec: KernelSpec) -> Result<Array2<f64>> {
    let (x, x_test) = (d.x, d.x_test);
    check(x)?;
    let kern = kernel(spec, x)?;
    if k == 2 {
        let yb: Array1<i32> = y.iter().map(|&v| v as i32).collect();
        let m = margins(d, &yb, c, &kern)?;
        return Ok(Array2::from_shape_fn((x_test.nrows(), 2), |(i, j)| {
            let p = sigmoid(m[i]);
            if j == 1 { p } else { 1.0 - p }
        }));
    }
    let mut scores = Array2::<f64>::zeros((x_test.nrows(), k));
    for class in 0..k {
        let yc: Array1<i32> = y.iter().map(|&v| i32::from(v == class)).collect();
        let m = margins(d, &yc, c, &kern)?;
        scores.column_mut(class).assign(&Array1::from(m));
    }
    softmax_rows(&mut scores);
    Ok(scores)
}

/// Support vector regression (epsilon 0.1).
pub(super) fn regressor(d: &Data<'_>, y: &Array1<f64>, c: f64, spec: KernelSpec) -> Result<Vec<f64>> {
    let (clock, x, x_test) = (d.clock, d.x, d.x_test);
    check(x)?;
    let params = SVRParameters::default().with_c(c).with_kernel(kernel(spec, x)?);
    let model = clock.fit("svm", || SVR::fit(x, y, &params))?;
    clock.predict("svm", || model.predict(x_test))
}
