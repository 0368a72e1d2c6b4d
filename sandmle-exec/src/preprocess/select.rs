//! `drop`, `select` and `select_best`.

use super::{Frames, TargetSignal, present};
use crate::error::{Error, Result};
use sandmle_core::Column;

pub(super) fn require(f: &Frames, columns: &[String]) -> Result<()> {
    match columns.iter().find(|c| !f.train.has_column(c)) {
        Some(c) => Err(Error::UnknownColumn { column: c.clone() }),
        None => Ok(()),
    }
}

pub(super) fn drop(f: &mut Frames, columns: &[String]) -> Result<()> {
    require(f, columns)?;
    f.train = f.train.without(columns);
    f.test = f.test.without(columns);
    Ok(())
}

pub(super) fn keep(f: &mut Frames, columns: &[String]) -> Result<()> {
    require(f, columns)?;
    f.train = f.train.select(columns)?;
    f.test = f.test.select(columns)?;
    Ok(())
}

/// Keeps the `k` numeric features most associated with the target.
pub(super) fn best(f: &mut Frames, k: usize, target: TargetSignal<'_>) -> Result<()> {
    let names = best_names(f, k, target);
    keep(f, &names)
}

/// The names [`best`] keeps, in table order.
pub(super) fn best_names(f: &Frames, k: usize, target: TargetSignal<'_>) -> Vec<String> {
    let mut scored: Vec<(f64, usize, String)> = f
        .train
        .iter()
        .enumerate()
        .filter_map(|(i, (name, col))| match col {
            Column::Numeric(v) => Some((association(v, target), i, name.to_owned())),
            _ => None,
        })
        .collect();
    // Highest association first; ties keep the earlier column.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut chosen: Vec<(usize, String)> = scored.into_iter().take(k).map(|(_, i, n)| (i, n)).collect();
    chosen.sort();
    chosen.into_iter().map(|(_, n)| n).collect()
}

/// Squared correlation with values, or the correlation ratio (share of
/// variance explained by class means) for classes; rows with a missing
/// feature are skipped; 0 when undefined.
fn association(x: &[f64], target: TargetSignal<'_>) -> f64 {
    let score = match target {
        TargetSignal::Values(y) => {
            let pairs: Vec<(f64, f64)> = x.iter().zip(y).filter(|(a, _)| !a.is_nan()).map(|(&a, &b)| (a, b)).collect();
            let n = pairs.len() as f64;
            let (mx, my) = (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n);
            let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
            for (a, b) in &pairs {
                sxy += (a - mx) * (b - my);
                sxx += (a - mx) * (a - mx);
                syy += (b - my) * (b - my);
            }
            sxy * sxy / (sxx * syy)
        }
        TargetSignal::Classes(y, k) => {
            let mut sum = vec![0.0; k];
            let mut count = vec![0.0; k];
            for (&a, &c) in x.iter().zip(y) {
                if !a.is_nan() {
                    sum[c] += a;
                    count[c] += 1.0;
                }
            }
            let n: f64 = count.iter().sum();
            let mean = present(x).sum::<f64>() / n;
            let total: f64 = present(x).map(|a| (a - mean) * (a - mean)).sum();
            let between: f64 =
                (0..k).filter(|&c| count[c] > 0.0).map(|c| count[c] * (sum[c] / count[c] - mean).powi(2)).sum();
            between / total
        }
    };
    if score.is_finite() { score } else { 0.0 }
}
