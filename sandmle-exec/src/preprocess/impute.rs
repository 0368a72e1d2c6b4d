//! `impute`: fill missing numeric and categorical values from training
//! statistics. Text columns are left to the `text` step, which reads a
//! missing text as an empty document.

use super::{Frames, present};
use crate::error::Result;
use crate::spec::ImputeStrategy;
use sandmle_core::Column;
use std::collections::BTreeMap;

pub(super) fn impute(f: &mut Frames, strategy: ImputeStrategy, constant: f64) -> Result<()> {
    let names: Vec<String> = f.train.names().to_vec();
    for name in names {
        let (train, test) = (f.train.column(&name)?.clone(), f.test.column(&name)?.clone());
        match (train, test) {
            (Column::Numeric(tr), Column::Numeric(te)) => {
                if !tr.iter().chain(&te).any(|x| x.is_nan()) {
                    continue;
                }
                let fill = numeric_fill(&tr, strategy, constant);
                let filled =
                    |v: Vec<f64>| Column::Numeric(v.into_iter().map(|x| if x.is_nan() { fill } else { x }).collect());
                f.set(&name, filled(tr), filled(te))?;
            }
            (tr @ Column::Categorical(_), te @ Column::Categorical(_)) => {
                if tr.missing_count() + te.missing_count() == 0 {
                    continue;
                }
                let fill = match strategy {
                    ImputeStrategy::Constant => "missing".to_owned(),
                    _ => most_frequent_level(&tr).unwrap_or_else(|| "missing".to_owned()),
                };
                let filled = |c: &Column| {
                    let values: Vec<String> =
                        (0..c.len()).map(|i| c.get_str(i).map_or_else(|| fill.clone(), |s| s.into_owned())).collect();
                    Column::categorical(values.iter().map(|s| Some(s.as_str())))
                };
                f.set(&name, filled(&tr), filled(&te))?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// The fill value of a numeric column; 0 (or the constant) when the
/// training column has no values at all.
fn numeric_fill(v: &[f64], strategy: ImputeStrategy, constant: f64) -> f64 {
    let mut values: Vec<f64> = present(v).collect();
    if values.is_empty() || strategy == ImputeStrategy::Constant {
        return constant;
    }
    match strategy {
        ImputeStrategy::Mean => values.iter().sum::<f64>() / values.len() as f64,
        ImputeStrategy::Median => crate::model::median_of(&values),
        _ => {
            values.sort_by(f64::total_cmp);
            let mut best = (values[0], 0usize);
            let mut i = 0;
            while i < values.len() {
                let run = values[i..].iter().take_while(|&&x| x == values[i]).count();
                if run > best.1 {
                    best = (values[i], run);
                }
                i += run;
            }
            best.0
        }
    }
}

/// The most frequent level (smallest on ties).
fn most_frequent_level(c: &Column) -> Option<String> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..c.len() {
        if let Some(s) = c.get_str(i) {
            *counts.entry(s.into_owned()).or_insert(0) += 1;
        }
    }
    let max = counts.values().copied().max()?;
    counts.into_iter().find(|(_, n)| *n == max).map(|(s, _)| s)
}
