//! Image-to-image competitions: a submission of one row per pixel of the
//! test images (`<image>_<row>_<col>`, 1-based, as denoising-dirty-documents
//! writes it), input images beside target images of the same names.
//!
//! The environment holds the pixels as rows: `train.csv` one row per pixel
//! of every training image (`image`, `row`, `col`, the input image's
//! `pixel` and the target image's value), `test.csv` the same without the
//! target, for exactly the submission's pixels. `image` is the task's group
//! column, so a micro task keeps whole images. Values are what MLE-bench's
//! `prepare.py` computes: Pillow's `convert("L")` grey level over 255.

use crate::columns::{ids, layout};
use crate::error::{Error, Result};
use crate::files::Files;
use crate::rows::{Index, MediaDirs, without_ext};
use sandmle_core::pixel_rows::{COL, ITEM, PIXEL, ROW, pixel_id, split_pixel_id};
use sandmle_core::{Column, Modality, Pixels, Table, decode_image};
use std::collections::{BTreeMap, BTreeSet};

/// The folders of a pixel task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PixelDirs {
    /// The training inputs (`public/train`).
    pub inputs: String,
    /// The training targets, named as the inputs (`public/train_cleaned`).
    pub targets: String,
    /// The test inputs (`public/test`).
    pub test: String,
}

/// The folders of a pixel task, if the sample's ids are pixels of the test
/// folder's images and one training folder holds images named as
/// another's. `None` when the ids are not pixel ids of test images.
///
/// # Errors
/// [`Error::Layout`] when the ids are pixels but the training folders do
/// not pair up one way.
pub(crate) fn detect(files: &Files, media: Option<&MediaDirs>, sample_ids: &[String]) -> Result<Option<PixelDirs>> {
    let Some(media) = media.filter(|m| m.modality == Modality::Image) else { return Ok(None) };
    let Some(first) = sample_ids.first() else { return Ok(None) };
    let Some((image, _, _)) = split_pixel_id(first) else { return Ok(None) };
    let tests: Vec<&String> = media.test.iter().filter(|d| !media.train.contains(d)).collect();
    let [test] = tests.as_slice() else { return Ok(None) };
    if Index::new(files, std::slice::from_ref(test)).find(files, image)?.is_none()
        || !sample_ids.iter().all(|id| split_pixel_id(id).is_some())
    {
        return Ok(None);
    }
    let stems = |dir: &str| -> BTreeSet<String> {
        files.under(dir).map(|r| without_ext(r.rsplit('/').next().unwrap_or(r)).to_owned()).collect()
    };
    let name = |d: &str| d.rsplit('/').next().unwrap_or(d).to_owned();
    let all: BTreeMap<&String, BTreeSet<String>> = media.train.iter().map(|d| (d, stems(d))).collect();
    let mut pairs = Vec::new();
    for a in &media.train {
        for b in &media.train {
            if a != b && name(b).starts_with(&name(a)) && all[a] == all[b] {
                pairs.push((a.clone(), b.clone()));
            }
        }
    }
    match pairs.as_slice() {
        [(inputs, targets)] => {
            Ok(Some(PixelDirs { inputs: inputs.clone(), targets: targets.clone(), test: (*test).clone() }))
        }
        _ => Err(layout(
            files,
            "public",
            format!(
                "for a per-pixel submission (`{first}`), one training folder of input images and one of target \
                 images with the same names, the target folder's name extending the input's (`train`, \
                 `train_cleaned`); found {}",
                media.train.join(", ")
            ),
        )),
    }
}

/// Grey levels of an image in `[0, 1]`, row-major: Pillow's `convert("L")`
/// (`(19595 R + 38470 G + 7471 B + 2^15) >> 16` for colour) over 255.
fn grey(p: &Pixels) -> Vec<f64> {
    let c = usize::from(p.channels);
    p.data
        .chunks_exact(c)
        .map(|px| {
            let l = if c >= 3 {
                (19595 * u32::from(px[0]) + 38470 * u32::from(px[1]) + 7471 * u32::from(px[2]) + 0x8000) >> 16
            } else {
                u32::from(px[0])
            };
            f64::from(l) / 255.0
        })
        .collect()
}

fn decoded(files: &Files, rel: &str) -> Result<Pixels> {
    Ok(decode_image(&files.read(rel)?, &files.origin(rel))?)
}

/// The pixel rows of images: `(image, rel)` pairs in order, with a second
/// folder's image of the same name as the target when `targets` is given.
struct Rows {
    id: Vec<String>,
    image: Vec<String>,
    row: Vec<f64>,
    col: Vec<f64>,
    pixel: Vec<f64>,
    target: Vec<f64>,
}

impl Rows {
    fn new() -> Rows {
        Rows { id: vec![], image: vec![], row: vec![], col: vec![], pixel: vec![], target: vec![] }
    }

    fn add(&mut self, files: &Files, stem: &str, input: &str, target: Option<&str>) -> Result<()> {
        let p = decoded(files, input)?;
        let values = grey(&p);
        let truth = match target {
            Some(rel) => {
                let t = decoded(files, rel)?;
                if (t.width, t.height) != (p.width, p.height) {
                    return Err(layout(
                        files,
                        rel,
                        format!("an image of {} x {} pixels, as its input {input}", p.width, p.height),
                    ));
                }
                Some(grey(&t))
            }
            None => None,
        };
        let width = p.width as usize;
        for (i, v) in values.into_iter().enumerate() {
            let (r, c) = (i / width + 1, i % width + 1);
            self.id.push(pixel_id(stem, r, c));
            self.image.push(stem.to_owned());
            self.row.push(r as f64);
            self.col.push(c as f64);
            self.pixel.push(v);
            if let Some(t) = &truth {
                self.target.push(t[i]);
            }
        }
        Ok(())
    }

    fn table(self, id_column: &str, target: Option<&str>) -> Result<Table> {
        let mut t = Table::from_columns([
            (id_column.to_owned(), crate::columns::text_column(&self.id)),
            (ITEM.to_owned(), crate::columns::text_column(&self.image)),
            (ROW.to_owned(), Column::Numeric(self.row)),
            (COL.to_owned(), Column::Numeric(self.col)),
            (PIXEL.to_owned(), Column::Numeric(self.pixel)),
        ])?;
        if let Some(name) = target {
            t.push_column(name.to_owned(), Column::Numeric(self.target))?;
        }
        Ok(t)
    }
}

/// The image files of a folder by stem, in stem order.
fn by_stem(files: &Files, dir: &str) -> BTreeMap<String, String> {
    files
        .under(dir)
        .filter(|r| crate::rows::media_kind(r).is_some())
        .map(|r| (without_ext(r.rsplit('/').next().unwrap_or(r)).to_owned(), r.to_owned()))
        .collect()
}

/// The training and test tables of a pixel task: every pixel of every
/// training input with its target's value in `target`, and the test
/// images' pixels in the order of the sample submission's ids.
///
/// # Errors
/// [`Error::Layout`] naming the file for a target image whose size differs
/// from its input's, or a sample id that is no pixel of a test image;
/// image decoding errors naming the file.
pub(crate) fn tables(
    files: &Files,
    dirs: &PixelDirs,
    id_column: &str,
    target: &str,
    sample_rel: &str,
    sample_ids: &[String],
) -> Result<(Table, Table)> {
    let targets = by_stem(files, &dirs.targets);
    let mut train = Rows::new();
    for (stem, rel) in by_stem(files, &dirs.inputs) {
        let Some(t) = targets.get(&stem) else { continue };
        train.add(files, &stem, &rel, Some(t))?;
    }
    let mut test = Rows::new();
    let test_files = by_stem(files, &dirs.test);
    let wanted: BTreeSet<&str> = sample_ids.iter().filter_map(|id| split_pixel_id(id).map(|(i, _, _)| i)).collect();
    for stem in &wanted {
        let rel = test_files.get(*stem).ok_or_else(|| {
            layout(files, sample_rel, format!("pixel ids of images in {} (no image `{stem}` there)", dirs.test))
        })?;
        test.add(files, stem, rel, None)?;
    }
    let test = test.table(id_column, None)?;
    // The test rows are the sample's pixels, in the sample's order.
    let index: BTreeMap<String, usize> =
        ids(&test, id_column)?.into_iter().enumerate().map(|(i, id)| (id, i)).collect();
    let order = sample_ids
        .iter()
        .map(|id| {
            index.get(id).copied().ok_or_else(|| {
                layout(files, sample_rel, format!("pixel ids within the test images' sizes (`{id}` is outside)"))
            })
        })
        .collect::<Result<Vec<usize>>>()?;
    if order.len() != index.len() {
        return Err(Error::Layout {
            path: files.prepared().join(sample_rel),
            expected: format!("one row per pixel of the test images ({}, it has {})", index.len(), order.len()),
        });
    }
    Ok((train.table(id_column, Some(target))?, test.take(&order)?))
}
