//! Training targets: class labels or values, read from `train.csv`.

use crate::error::{Error, Result};
use sandmle_core::{Column, format_label};

/// A class label as found in the training target.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Label {
    Num(f64),
    Str(String),
}

impl Label {
    /// The label as text: whole numbers without a decimal point.
    pub fn text(&self) -> String {
        match self {
            Label::Num(x) => format_label(*x),
            Label::Str(s) => s.clone(),
        }
    }
}

/// Class targets: the sorted distinct labels and each row's index into them.
#[derive(Debug, Clone)]
pub(crate) struct Classes {
    pub column: String,
    pub labels: Vec<Label>,
    pub y: Vec<usize>,
}

impl Classes {
    /// Reads class labels (numbers in numeric order, otherwise strings in
    /// code-point order). A missing label is an error.
    pub fn from_column(name: &str, col: &Column) -> Result<Classes> {
        let bad =
            |row: usize| Error::BadTarget { column: name.to_owned(), row: row + 1, reason: "missing label".into() };
        match col {
            Column::Numeric(v) => {
                if let Some(row) = v.iter().position(|x| !x.is_finite()) {
                    return Err(bad(row));
                }
                let mut distinct: Vec<f64> = v.iter().map(|x| x + 0.0).collect();
                distinct.sort_by(f64::total_cmp);
                distinct.dedup();
                let y =
                    v.iter().map(|&x| distinct.binary_search_by(|d| d.total_cmp(&(x + 0.0))).unwrap_or(0)).collect();
                Ok(Classes { column: name.to_owned(), labels: distinct.into_iter().map(Label::Num).collect(), y })
            }
            _ => {
                let values: Vec<String> = (0..col.len())
                    .map(|i| col.get_str(i).map(|s| s.into_owned()).ok_or_else(|| bad(i)))
                    .collect::<Result<_>>()?;
                let mut distinct = values.clone();
                distinct.sort();
                distinct.dedup();
                let y = values.iter().map(|x| distinct.binary_search(x).unwrap_or(0)).collect();
                Ok(Classes { column: name.to_owned(), labels: distinct.into_iter().map(Label::Str).collect(), y })
            }
        }
    }

    /// Number of classes.
    pub fn k(&self) -> usize {
        self.labels.len()
    }

    /// Training share of each class.
    pub fn shares(&self) -> Vec<f64> {
        let mut counts = vec![0.0; self.k()];
        for &c in &self.y {
            counts[c] += 1.0;
        }
        counts.iter().map(|c| c / self.y.len().max(1) as f64).collect()
    }

    /// `true` if every label is a number.
    pub fn numeric(&self) -> bool {
        self.labels.iter().all(|l| matches!(l, Label::Num(_)))
    }
}

/// Reads a continuous target. A missing or non-numeric value is an error.
pub(crate) fn values(name: &str, col: &Column) -> Result<Vec<f64>> {
    let v = col.to_f64_lenient().ok_or_else(|| Error::BadTarget {
        column: name.to_owned(),
        row: (0..col.len())
            .find(|&i| col.get_str(i).is_some_and(|s| sandmle_core::parse_f64_lenient(&s).is_none()))
            .unwrap_or(0)
            + 1,
        reason: "not a number".into(),
    })?;
    if let Some(row) = v.iter().position(|x| !x.is_finite()) {
        return Err(Error::BadTarget { column: name.to_owned(), row: row + 1, reason: "missing value".into() });
    }
    Ok(v)
}
