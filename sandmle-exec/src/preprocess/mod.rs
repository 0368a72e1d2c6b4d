//! Preprocessing steps, each fitted on the training rows and applied to
//! training and test rows alike.

mod encode;
mod impute;
mod scale;
mod select;
mod text;

use crate::error::{Error, Result};
use crate::spec::Step;
use ndarray::Array2;
use sandmle_core::{Column, Table};

/// What the target tells a supervised step (`select_best`).
#[derive(Debug, Clone, Copy)]
pub(crate) enum TargetSignal<'a> {
    /// Class indices and the class count.
    Classes(&'a [usize], usize),
    /// Values.
    Values(&'a [f64]),
}

/// The feature tables being transformed.
#[derive(Debug, Clone)]
pub(crate) struct Frames {
    pub train: Table,
    pub test: Table,
}

impl Frames {
    /// Applies one step.
    pub fn apply(&mut self, step: &Step, target: TargetSignal<'_>) -> Result<()> {
        match step {
            Step::Drop { columns } => select::drop(self, columns),
            Step::Select { columns } => select::keep(self, columns),
            Step::SelectBest { k } => select::best(self, *k, target),
            Step::Impute { strategy, value } => impute::impute(self, *strategy, value.unwrap_or(0.0)),
            Step::Scale { method } => scale::scale(self, *method),
            Step::Encode { method, max_levels } => encode::encode(self, *method, max_levels.unwrap_or(20)),
            Step::Text { n_features, ngram_max, tfidf } => {
                text::hash_text(self, n_features.unwrap_or(256), ngram_max.unwrap_or(1), *tfidf)
            }
        }
    }

    /// The frames after `step` when it keeps named columns (`select`,
    /// `select_best`), made from `self` without copying the columns it
    /// leaves out; `None` for any other step. The same frames as
    /// [`Frames::apply`] on a copy.
    pub fn narrowed(&self, step: &Step, target: TargetSignal<'_>) -> Option<Result<Frames>> {
        let names = match step {
            Step::Select { columns } => select::require(self, columns).map(|()| columns.clone()),
            Step::SelectBest { k } => Ok(select::best_names(self, *k, target)),
            _ => return None,
        };
        Some(names.and_then(|names| Ok(Frames { train: self.train.select(&names)?, test: self.test.select(&names)? })))
    }

    /// The final numeric matrices, checking that every feature is numeric
    /// and complete.
    pub fn matrices(&self) -> Result<(Array2<f64>, Array2<f64>)> {
        if self.train.n_cols() == 0 {
            return Err(Error::NoFeatures);
        }
        for (name, col) in self.train.iter() {
            let Column::Numeric(v) = col else {
                return Err(Error::NonNumericFeature { column: name.to_owned() });
            };
            let test = self.test.numeric(name).map_err(|_| Error::NonNumericFeature { column: name.to_owned() })?;
            if v.iter().chain(test).any(|x| !x.is_finite()) {
                return Err(Error::MissingValues { column: name.to_owned() });
            }
        }
        let names = self.train.names().to_vec();
        Ok((to_array2(&self.train, &names)?, to_array2(&self.test, &names)?))
    }

    /// Replaces column `name` in both tables.
    pub(crate) fn set(&mut self, name: &str, train: Column, test: Column) -> Result<()> {
        self.train.set_column(name, train)?;
        self.test.set_column(name, test)?;
        Ok(())
    }
}

/// The named numeric columns of a table as a row-major `rows x columns`
/// matrix (missing values stay NaN).
fn to_array2(t: &Table, names: &[String]) -> Result<Array2<f64>> {
    let cols = names.iter().map(|n| t.numeric(n)).collect::<sandmle_core::Result<Vec<_>>>()?;
    Ok(Array2::from_shape_fn((t.n_rows(), cols.len()), |(r, c)| cols[c][r]))
}

/// The present values of a numeric column.
pub(crate) fn present(v: &[f64]) -> impl Iterator<Item = f64> + '_ {
    v.iter().copied().filter(|x| !x.is_nan())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ScaleMethod;

    fn frames() -> Frames {
        let column =
            |k: usize, n: usize| Column::Numeric((0..n).map(|r| ((r * (k + 3)) % 7) as f64 + k as f64).collect());
        let table = |n: usize| Table::from_columns((0..6).map(|k| (format!("f{k}"), column(k, n)))).unwrap();
        Frames { train: table(12), test: table(5) }
    }

    /// A step that keeps named columns, made from borrowed frames, gives
    /// the frames that step gives applied to a copy, and its errors; any
    /// other step is left to `apply`.
    #[test]
    fn narrowed_frames_are_the_step_applied_to_a_copy() {
        let y: Vec<usize> = (0..12).map(|r| r % 3).collect();
        let values: Vec<f64> = (0..12).map(|r| (r * r) as f64).collect();
        for target in [TargetSignal::Classes(&y, 3), TargetSignal::Values(&values)] {
            let steps = [
                Step::SelectBest { k: 1 },
                Step::SelectBest { k: 4 },
                Step::SelectBest { k: 9 },
                Step::Select { columns: vec!["f4".into(), "f1".into()] },
            ];
            for step in steps {
                let mut copy = frames();
                copy.apply(&step, target).unwrap();
                let narrowed = frames().narrowed(&step, target).unwrap().unwrap();
                assert_eq!((&narrowed.train, &narrowed.test), (&copy.train, &copy.test), "{step:?}");
            }
        }
        let missing = Step::Select { columns: vec!["f9".into()] };
        let y = TargetSignal::Classes(&y, 3);
        assert!(matches!(frames().narrowed(&missing, y), Some(Err(Error::UnknownColumn { .. }))));
        assert!(frames().narrowed(&Step::Scale { method: ScaleMethod::Standard }, y).is_none());
    }
}
