//! The rows' files: each row's file found by its id, training rows made
//! from files, ids re-keyed, and the bytes read into the environment.

use crate::columns::{ids, layout, text_column};
use crate::detect::base;
use crate::error::{Error, Result};
use crate::files::Files;
use crate::options::ImportOptions;
use crate::rows::{FileRow, Index, ext, without_ext};
use sandmle_core::csv::ReadOptions;
use sandmle_core::{ImageSet, MetricInput, Modality, Table};
use std::collections::BTreeSet;

/// Each id's file, and the suffix that follows ids in file names.
pub(crate) fn locate(
    files: &Files,
    index: &Index,
    ids: &[String],
    suffix: Option<&str>,
    dirs: &[String],
) -> Result<(Vec<String>, String)> {
    let mut suffix = suffix.map(str::to_owned);
    let mut out = Vec::with_capacity(ids.len());
    let mut missing = None;
    for id in ids {
        let hit = match suffix.as_deref() {
            Some(s) => index.find(files, &format!("{id}{s}"))?.filter(|(_, named)| *named || s.is_empty()),
            None => index.find(files, id)?,
        };
        match hit {
            Some((rel, named)) => {
                if suffix.is_none() {
                    suffix = Some(if named { String::new() } else { ext(base(&rel)).to_owned() });
                }
                out.push(rel);
            }
            None => {
                missing.get_or_insert(id.clone());
                out.push(String::new());
            }
        }
    }
    let suffix = suffix.unwrap_or_default();
    if let Some(id) = missing {
        return Err(layout(
            files,
            dirs.first().map_or("public", String::as_str),
            format!("a file `{id}{suffix}` for row `{id}` (looked in {})", dirs.join(", ")),
        ));
    }
    Ok((out, suffix))
}

/// (id, file) pairs, or (label, code) pairs.
pub(crate) type Pairs = Vec<(String, String)>;

/// The training table of rows made from files, their (id, file) pairs,
/// and the label codes used.
pub(crate) fn file_train(
    rows: &[FileRow],
    suffix: &str,
    id: &str,
    predictions: &[String],
    input: MetricInput,
    options: &ImportOptions,
) -> Result<(Table, Pairs, Pairs)> {
    let target = match (options.targets.as_slice(), predictions) {
        ([one], _) | ([], [one]) => one.clone(),
        _ => {
            return Err(Error::Options {
                reason: "rows made from files have one label: name its column with --targets".into(),
            });
        }
    };
    let mut pairs = Vec::with_capacity(rows.len());
    for row in rows {
        let key = if suffix.is_empty() {
            row.id.clone()
        } else if row.id.ends_with(suffix) {
            without_ext(&row.id).to_owned()
        } else {
            return Err(Error::Layout {
                path: row.rel.clone().into(),
                expected: format!("a `{suffix}` file, as the test rows' are"),
            });
        };
        pairs.push((key, row.rel.clone()));
    }
    let labels: BTreeSet<&str> = rows.iter().map(|r| r.label.as_str()).collect();
    let numeric = labels.iter().all(|l| l.parse::<f64>().is_ok());
    let probability = matches!(input, MetricInput::Probability | MetricInput::Scores);
    let mut codes = Vec::new();
    if probability && !numeric {
        let sorted: Vec<&str> = labels.iter().copied().collect();
        let [a, b] = sorted.as_slice() else {
            return Err(Error::Options {
                reason: format!("a probability metric needs two labels; the files give {}", sorted.len()),
            });
        };
        let positive = options.positive_label.as_deref().unwrap_or(b);
        if positive != *a && positive != *b {
            return Err(Error::Options { reason: format!("--positive-label `{positive}` is neither `{a}` nor `{b}`") });
        }
        let negative = if positive == *a { b } else { a };
        codes = vec![(negative.to_string(), "0".to_owned()), (positive.to_owned(), "1".to_owned())];
    }
    let label_text: Vec<String> = rows
        .iter()
        .map(|r| codes.iter().find(|(l, _)| *l == r.label).map_or_else(|| r.label.clone(), |(_, c)| c.clone()))
        .collect();
    let mut csv = csv::Writer::from_writer(Vec::new());
    let io = |e: csv::Error| Error::Options { reason: e.to_string() };
    csv.write_record([id, target.as_str()]).map_err(io)?;
    for ((key, _), label) in pairs.iter().zip(&label_text) {
        csv.write_record([key.as_str(), label.as_str()]).map_err(io)?;
    }
    let bytes = csv.into_inner().map_err(|e| Error::Options { reason: e.to_string() })?;
    let table = sandmle_core::csv::read_csv_bytes(&bytes, "train.csv", &ReadOptions::with_id(id))?;
    Ok((table, pairs, codes))
}

/// Prefixes every training id with `train_`, in the table and the pairs.
pub(crate) fn rekey(train: &mut Table, id: &str, pairs: &mut [(String, String)]) -> Result<()> {
    let new: Vec<String> = ids(train, id)?.into_iter().map(|k| format!("train_{k}")).collect();
    train.set_column(id, text_column(&new))?;
    for (key, _) in pairs.iter_mut() {
        *key = format!("train_{key}");
    }
    Ok(())
}

/// Width, height and channels shared by every image.
pub(crate) type Shape = Option<(u32, u32, u8)>;

/// Reads each row's file into `images` as `<id><suffix>`; checks it
/// decodes; the images' common shape.
pub(crate) fn collect<'a>(
    files: &Files,
    modality: Modality,
    images: &mut ImageSet,
    rows: impl Iterator<Item = (&'a str, &'a str)>,
    suffix: &str,
) -> Result<Shape> {
    let mut shape: Option<Shape> = None;
    for (id, rel) in rows {
        let bytes = files.read(rel)?;
        let what = files.origin(rel);
        let this = if modality == Modality::Audio {
            sandmle_core::decode_audio(&bytes, &what)?;
            None
        } else {
            let px = sandmle_core::decode_image(&bytes, &what)?;
            Some((px.width, px.height, px.channels))
        };
        shape = Some(match shape {
            None => this,
            Some(s) if s == this => s,
            Some(_) => None,
        });
        images.insert(format!("{id}{suffix}"), bytes.to_vec())?;
    }
    Ok(shape.flatten())
}
