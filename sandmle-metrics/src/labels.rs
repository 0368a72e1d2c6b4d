//! Class labels: reading them from columns, checking them as scikit-learn
//! does, and encoding truth and prediction over their sorted union.

use crate::error::{Error, Result};
use sandmle_core::{Column, format_label};

/// A column of class labels: numbers or strings.
#[derive(Debug, Clone, PartialEq)]
pub enum Labels {
    /// Numeric labels (`0, 1, 2` or `2.0`); must be whole numbers.
    Num(Vec<f64>),
    /// String labels.
    Str(Vec<String>),
}

impl From<Vec<f64>> for Labels {
    fn from(v: Vec<f64>) -> Self {
        Labels::Num(v)
    }
}

impl From<Vec<String>> for Labels {
    fn from(v: Vec<String>) -> Self {
        Labels::Str(v)
    }
}

impl From<Vec<&str>> for Labels {
    fn from(v: Vec<&str>) -> Self {
        Labels::Str(v.into_iter().map(str::to_owned).collect())
    }
}

impl Labels {
    /// Reads labels from a column: numeric columns as numbers, text and
    /// categorical columns as strings, except that a column of only
    /// `true`/`false` (any case) reads as 1/0, as a boolean column does in
    /// pandas. A missing value is an error.
    ///
    /// # Errors
    /// [`Error::NonFinite`] for a missing value.
    pub fn from_column(column: &Column, side: &'static str) -> Result<Labels> {
        if let Column::Numeric(v) = column {
            return Ok(Labels::Num(v.clone()));
        }
        let mut strings = Vec::with_capacity(column.len());
        for row in 0..column.len() {
            match column.get_str(row) {
                Some(s) => strings.push(s.into_owned()),
                None => return Err(Error::NonFinite { side, index: row }),
            }
        }
        let boolean = |s: &String| s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false");
        if !strings.is_empty() && strings.iter().all(boolean) {
            return Ok(Labels::Num(
                strings.iter().map(|s| if s.eq_ignore_ascii_case("true") { 1.0 } else { 0.0 }).collect(),
            ));
        }
        Ok(Labels::Str(strings))
    }

    /// Number of labels.
    pub fn len(&self) -> usize {
        match self {
            Labels::Num(v) => v.len(),
            Labels::Str(v) => v.len(),
        }
    }

    /// `true` if there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn kind(&self) -> &'static str {
        match self {
            Labels::Num(_) => "number",
            Labels::Str(_) => "string",
        }
    }

    /// The label of row `i` as text (whole numbers without a decimal point).
    ///
    /// # Panics
    /// If `i` is not below [`Labels::len`].
    pub fn text(&self, i: usize) -> String {
        match self {
            Labels::Num(v) => format_label(v[i]),
            Labels::Str(v) => v[i].clone(),
        }
    }

    /// Checks that numeric labels are finite whole numbers, as
    /// scikit-learn's target-type check does for classification metrics.
    pub(crate) fn check_classes(&self, side: &'static str) -> Result<()> {
        match self {
            Labels::Num(v) => check_numeric_classes(v, side),
            Labels::Str(_) => Ok(()),
        }
    }
}

/// [`Labels::check_classes`] on numeric labels, borrowed.
fn check_numeric_classes(v: &[f64], side: &'static str) -> Result<()> {
    // Most label columns hold only 0 and 1: seen in one pass without a
    // branch per row (a branch on shuffled labels is mispredicted often).
    if v.iter().fold(true, |ok, &x| ok & ((x == 0.0) | (x == 1.0))) {
        return Ok(());
    }
    for (row, &x) in v.iter().enumerate() {
        // Most labels are 0 or 1: finite and whole without a rounding call.
        if x == 0.0 || x == 1.0 {
            continue;
        }
        if !x.is_finite() {
            return Err(Error::NonFinite { side, index: row });
        }
        if x.fract() != 0.0 {
            return Err(Error::ContinuousLabels { side, value: x });
        }
    }
    Ok(())
}

/// The classes of a label column when there are at most two: each row's
/// index into the sorted distinct labels, and those labels as text. `None`
/// (after the usual checks) when there are more than two classes. Cheaper
/// than [`encode`] for the binary metrics: no sort of the whole column.
pub(crate) fn binary_classes(labels: &Labels, side: &'static str) -> Result<Option<(Vec<bool>, Vec<String>)>> {
    let v = match labels {
        Labels::Num(v) => return numeric_binary_classes(v, side),
        Labels::Str(v) => v,
    };
    if v.is_empty() {
        return Err(Error::Empty);
    }
    let mut distinct: Vec<&str> = Vec::with_capacity(3);
    for x in v {
        if !distinct.contains(&x.as_str()) {
            distinct.push(x);
            if distinct.len() > 2 {
                return Ok(None);
            }
        }
    }
    distinct.sort_unstable();
    let second = distinct.get(1).copied();
    Ok(Some((
        v.iter().map(|x| Some(x.as_str()) == second).collect(),
        distinct.iter().map(|s| (*s).to_owned()).collect(),
    )))
}

/// [`binary_classes`] of numeric labels, borrowed.
pub(crate) fn numeric_binary_classes(v: &[f64], side: &'static str) -> Result<Option<(Vec<bool>, Vec<String>)>> {
    let Some(distinct) = numeric_binary_labels(v, side)? else { return Ok(None) };
    let names = distinct.iter().map(|&x| format_label(x)).collect();
    let is_second = match distinct.get(1) {
        Some(&second) => v.iter().map(|&x| x == second).collect(),
        None => vec![false; v.len()],
    };
    Ok(Some((is_second, names)))
}

/// The sorted distinct labels of a numeric label column when there are at
/// most two, after [`numeric_binary_classes`]' checks; `None` for more.
pub(crate) fn numeric_binary_labels(v: &[f64], side: &'static str) -> Result<Option<Vec<f64>>> {
    if v.is_empty() {
        return Err(Error::Empty);
    }
    check_numeric_classes(v, side)?;
    // The check leaves finite numbers only, so `==` is the identity of a
    // class (-0 and 0 are one, as `x + 0.0` makes them). The first value
    // and the first other one are the candidates; a branch-free pass sees
    // whether every row is one of them, and a third class shows as a row
    // that is neither.
    let first = v[0] + 0.0;
    let other = v.iter().map(|&x| x + 0.0).find(|&x| x != first);
    let mut distinct = vec![first];
    if let Some(b) = other {
        if !v.iter().fold(true, |ok, &x| ok & ((x == first) | (x == b))) {
            return Ok(None);
        }
        distinct.push(b);
    }
    distinct.sort_by(f64::total_cmp);
    Ok(Some(distinct))
}

/// Truth and prediction as indices into their sorted union of labels.
#[derive(Debug, Clone)]
pub(crate) struct Encoded {
    pub truth: Vec<usize>,
    pub pred: Vec<usize>,
    pub n_classes: usize,
    /// The union's labels as text, sorted as the union is.
    pub names: Vec<String>,
}

impl Encoded {
    /// The `n_classes x n_classes` confusion matrix, rows truth, columns
    /// prediction, row-major.
    pub fn confusion(&self) -> Vec<f64> {
        let k = self.n_classes;
        let mut m = vec![0.0; k * k];
        for (&t, &p) in self.truth.iter().zip(&self.pred) {
            m[t * k + p] += 1.0;
        }
        m
    }
}

/// Checks both sides, then encodes them over the sorted union of labels
/// (numeric order for numbers, code-point order for strings).
pub(crate) fn encode(truth: &Labels, pred: &Labels) -> Result<Encoded> {
    if truth.len() != pred.len() {
        return Err(Error::LengthMismatch { truth: truth.len(), prediction: pred.len() });
    }
    if truth.is_empty() {
        return Err(Error::Empty);
    }
    truth.check_classes("truth")?;
    pred.check_classes("prediction")?;
    match (truth, pred) {
        (Labels::Num(t), Labels::Num(p)) => {
            // `+ 0.0` folds -0.0 into 0.0 so both compare as one label.
            let mut union: Vec<f64> = t.iter().chain(p).map(|x| x + 0.0).collect();
            union.sort_by(f64::total_cmp);
            union.dedup();
            let index = |x: f64| union.binary_search_by(|u| u.total_cmp(&(x + 0.0))).unwrap_or(0);
            Ok(Encoded {
                truth: t.iter().map(|&x| index(x)).collect(),
                pred: p.iter().map(|&x| index(x)).collect(),
                n_classes: union.len(),
                names: union.iter().map(|&x| format_label(x)).collect(),
            })
        }
        (Labels::Str(t), Labels::Str(p)) => {
            let mut union: Vec<&str> = t.iter().chain(p).map(String::as_str).collect();
            union.sort_unstable();
            union.dedup();
            let index = |x: &str| union.binary_search(&x).unwrap_or(0);
            Ok(Encoded {
                truth: t.iter().map(|x| index(x)).collect(),
                pred: p.iter().map(|x| index(x)).collect(),
                n_classes: union.len(),
                names: union.iter().map(|s| (*s).to_owned()).collect(),
            })
        }
        _ => Err(Error::MixedLabelTypes { truth: truth.kind(), prediction: pred.kind() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(v: &[f64]) -> Option<(Vec<bool>, Vec<String>)> {
        binary_classes(&Labels::Num(v.to_vec()), "truth").unwrap()
    }

    #[test]
    fn binary_classes_of_numbers_sort_the_two_labels_and_mark_the_greater() {
        let (second, names) = classes(&[1.0, 0.0, 1.0, 1.0]).unwrap();
        assert_eq!((second, names), (vec![true, false, true, true], vec!["0".to_owned(), "1".to_owned()]));
        // -0 and 0 are one class, whichever comes first.
        let (second, names) = classes(&[-0.0, 3.0, 0.0]).unwrap();
        assert_eq!((second, names), (vec![false, true, false], vec!["0".to_owned(), "3".to_owned()]));
        let (second, names) = classes(&[2.0, 2.0]).unwrap();
        assert_eq!((second, names), (vec![false, false], vec!["2".to_owned()]));
        // A third class anywhere, first or last.
        assert_eq!(classes(&[0.0, 1.0, 1.0, 2.0]), None);
        assert_eq!(classes(&[5.0, 0.0, 1.0]), None);
    }

    #[test]
    fn binary_classes_check_every_row_before_counting_classes() {
        // A third class early does not hide a later bad value.
        let bad = |v: &[f64]| binary_classes(&Labels::Num(v.to_vec()), "truth").unwrap_err();
        assert!(matches!(bad(&[0.0, 1.0, 2.0, f64::NAN]), Error::NonFinite { index: 3, .. }));
        assert!(matches!(bad(&[1.0, 0.5]), Error::ContinuousLabels { .. }));
        assert!(matches!(bad(&[0.0, f64::INFINITY, 0.5]), Error::NonFinite { index: 1, .. }));
    }
}
