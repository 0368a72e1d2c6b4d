//! Audio features: what the in-process models learn from on an audio task.
//!
//! An audio task keeps the image tasks' layout: `train.csv` holds the id and
//! the label, `test.csv` the ids, and each row's clip is the file
//! [`ImageSpec::file_name`](sandmle_core::ImageSpec::file_name) of its id
//! (WAV or AIFF). [`audio_features`] decodes every row's clip and computes
//! the fixed spectral features of [`AudioFeaturizer`] (log-mel band and
//! cepstral statistics, loudness, zero crossings, spectral centroid,
//! length).
//!
//! A clip that is missing or cannot be decoded is the environment's fault,
//! not the solution's: [`Error::Audio`].

mod features;

pub use features::{AudioFeaturizer, LOG_FLOOR, MEL_BANDS, MEL_RANGE, MFCC};

use crate::error::{Error, Result};
use rayon::prelude::*;
use sandmle_core::{Column, ImageSpec, PublicView, Table};

/// The audio features of the view's `train.csv` and `test.csv` rows, as
/// two tables of the feature columns alone (one row per table row, in
/// order).
///
/// # Errors
/// [`Error::UnsupportedTask`] if the task has no files; [`Error::Audio`]
/// for a row without an id, a missing file or one that is not a readable
/// WAV or AIFF file.
pub fn audio_features(view: &PublicView<'_>) -> Result<(Table, Table)> {
    let spec = view
        .task
        .images
        .as_ref()
        .ok_or_else(|| Error::UnsupportedTask { reason: "the task has no audio files to featurize".into() })?;
    let train = feature_table(view, spec, view.train, "train.csv")?;
    let test = feature_table(view, spec, view.test, "test.csv")?;
    Ok((train, test))
}

/// The features of one table's rows.
fn feature_table(view: &PublicView<'_>, spec: &ImageSpec, table: &Table, what: &str) -> Result<Table> {
    let featurizer = AudioFeaturizer;
    let id = spec.key(&view.task.id_column);
    {
        let ids = table.column(id)?;
        let rows: Vec<Result<Vec<f64>>> = (0..table.n_rows())
            .into_par_iter()
            .map(|r| {
                let row_id = ids.get_str(r).ok_or_else(|| Error::Audio {
                    file: format!("row {} of {what}", r + 1),
                    reason: format!("the row has no `{id}` naming its clip"),
                })?;
                let path = spec.public_path(&row_id);
                let bytes = view.images.get(&spec.file_name(&row_id)).ok_or_else(|| Error::Audio {
                    file: path.clone(),
                    reason: format!("no such file for row {} of {what}", r + 1),
                })?;
                let clip = sandmle_core::decode_audio(bytes, &path).map_err(|e| Error::Audio {
                    file: path.clone(),
                    reason: match e {
                        sandmle_core::Error::InvalidEnvironment { reason } => reason,
                        other => other.to_string(),
                    },
                })?;
                Ok(featurizer.extract(&clip))
            })
            .collect();
        // The first failure in row order, whatever the thread count.
        let rows: Vec<Vec<f64>> = rows.into_iter().collect::<Result<_>>()?;
        let mut columns: Vec<Vec<f64>> = (0..featurizer.len()).map(|_| Vec::with_capacity(rows.len())).collect();
        for row in &rows {
            for (column, &v) in columns.iter_mut().zip(row) {
                column.push(v);
            }
        }
        let mut t = Table::new();
        for (name, column) in featurizer.names().into_iter().zip(columns) {
            t.push_column(name, Column::Numeric(column))?;
        }
        Ok(t)
    }
}
