//! Image features: what the in-process models learn from on an image task.
//!
//! An image task's `train.csv` holds only the id and the label and its
//! `test.csv` only the ids; each row's image is the file
//! [`ImageSpec::file_name`](sandmle_core::ImageSpec::file_name) of its id.
//! [`image_feature_tables`] decodes every row's image (PNG, JPEG or TIFF), computes the fixed
//! features of [`ImageFeaturizer`] (downsampled pixels, colour histograms,
//! gradient-orientation histograms, per-plane mean and standard
//! deviation, and the [`objects`] it shows) and appends them to both tables, so every pipeline spec runs
//! on an image task unchanged. See [`ImageFeaturizer`] for
//! the column names and the exact definitions.
//!
//! An image that is missing or cannot be decoded is the environment's
//! fault, not the solution's: [`Error::Image`].

mod features;
mod hog;
pub mod objects;

pub use features::{GRID, HIST_BINS, HOG_BINS, HOG_CELLS, HOG_EPS, ImageFeaturizer};

use crate::error::{Error, Result};
use rayon::prelude::*;
use sandmle_core::{Column, ImageSet, ImageSpec, Pixels, PublicView, Table};
use std::borrow::Cow;

/// Decodes one image file, naming it in the error.
///
/// # Errors
/// [`Error::Image`] if `bytes` is not a PNG, JPEG or TIFF file the
/// decoders read.
pub fn decode_image(bytes: &[u8], file: &str) -> Result<Pixels> {
    sandmle_core::decode_image(bytes, file).map_err(|e| Error::Image {
        file: file.into(),
        reason: match e {
            sandmle_core::Error::InvalidEnvironment { reason } => reason,
            other => other.to_string(),
        },
    })
}

/// The images of a table's rows, in row order: borrowed from the set when
/// it holds them decoded (it encoded them), else decoded.
fn decode_rows<'i>(
    table: &Table,
    what: &str,
    id_column: &str,
    spec: &ImageSpec,
    images: &'i ImageSet,
) -> Result<Vec<Cow<'i, Pixels>>> {
    let ids = table.column(id_column)?;
    let decoded: Vec<Result<Cow<'i, Pixels>>> = (0..table.n_rows())
        .into_par_iter()
        .map(|r| {
            let id = ids.get_str(r).ok_or_else(|| Error::Image {
                file: format!("row {} of {what}", r + 1),
                reason: "the row has no id".into(),
            })?;
            let name = spec.file_name(&id);
            // Pixels the set holds (it encoded them) need no decoding.
            if let Some(pixels) = images.pixels(&name) {
                return Ok(Cow::Borrowed(pixels));
            }
            let bytes = images.get(&name).ok_or_else(|| Error::Image {
                file: spec.public_path(&id),
                reason: format!("no such file for row {} of {what}", r + 1),
            })?;
            decode_image(bytes, &spec.public_path(&id)).map(Cow::Owned)
        })
        .collect();
    // The first failure in row order, whatever the thread count.
    decoded.into_iter().collect()
}

/// A table of the features of `pixels`, one row each, in order.
fn feature_table(pixels: &[Cow<'_, Pixels>], featurizer: &ImageFeaturizer) -> Result<Table> {
    let rows: Vec<Result<Vec<f64>>> = pixels.par_iter().map(|p| featurizer.extract(p)).collect();
    let rows: Vec<Vec<f64>> = rows.into_iter().collect::<Result<_>>()?;
    // Columns filled row by row, each row read once.
    let names = featurizer.names();
    let mut columns: Vec<Vec<f64>> = names.iter().map(|_| Vec::with_capacity(rows.len())).collect();
    for row in &rows {
        for (column, &v) in columns.iter_mut().zip(row) {
            column.push(v);
        }
    }
    let mut out = Table::new();
    for (name, column) in names.into_iter().zip(columns) {
        out.push_column(name, Column::Numeric(column))?;
    }
    Ok(out)
}

/// The image features of the view's `train.csv` and `test.csv` rows, as
/// two tables of the feature columns alone (one row per table row, in
/// order); the columns [`image_feature_tables`] appends. The featurizer is
/// colour when any image of either split has colour.
///
/// # Errors
/// As [`image_feature_tables`], but for a name clash (nothing is
/// appended).
pub fn image_features(view: &PublicView<'_>) -> Result<(Table, Table)> {
    let spec = view
        .task
        .images
        .as_ref()
        .ok_or_else(|| Error::UnsupportedTask { reason: "the task has no images to featurize".into() })?;
    let id = spec.key(&view.task.id_column);
    let train = decode_rows(view.train, "train.csv", id, spec, view.images)?;
    let test = decode_rows(view.test, "test.csv", id, spec, view.images)?;
    let featurizer = ImageFeaturizer::for_images(train.iter().chain(&test).map(|p| p.as_ref()));
    Ok((feature_table(&train, &featurizer)?, feature_table(&test, &featurizer)?))
}

/// The first image feature name the view's `train.csv` already has as a
/// column, else the first `test.csv` has: the clash appending the features
/// to the tables meets first ([`image_feature_tables`]).
pub(crate) fn clashing_name<'n>(view: &PublicView<'_>, names: &'n [String]) -> Option<&'n String> {
    names.iter().find(|n| view.train.has_column(n)).or_else(|| names.iter().find(|n| view.test.has_column(n)))
}

/// The view's `train.csv` and `test.csv` with the image features of every
/// row appended (id, target and any other columns kept, in their order).
/// The featurizer is colour when any image of either split has colour.
///
/// # Errors
/// [`Error::UnsupportedTask`] if the task has no images;
/// [`Error::Image`] for a row without an id, a missing file or one that is
/// not a readable PNG (the environment is broken); [`Error::Core`] if a
/// table already has a column of a feature's name.
pub fn image_feature_tables(view: &PublicView<'_>) -> Result<(Table, Table)> {
    let (train_features, test_features) = image_features(view)?;
    let (mut train, mut test) = (view.train.clone(), view.test.clone());
    append_columns(&mut train, &train_features)?;
    append_columns(&mut test, &test_features)?;
    Ok((train, test))
}

/// Appends `features`' columns to `table`, in order.
///
/// # Errors
/// [`sandmle_core::Error::DuplicateColumn`] when `table` already has a
/// column of one of their names.
pub(crate) fn append_columns(table: &mut Table, features: &Table) -> sandmle_core::Result<()> {
    for (name, column) in features.iter() {
        table.push_column(name, column.clone())?;
    }
    Ok(())
}
