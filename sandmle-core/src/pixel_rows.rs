//! Image-to-image tasks whose rows are pixels: the columns they share, and
//! their DNA.
//!
//! A reconstruction task (a page to denoise, say) is scored per pixel: its
//! submission holds one row per pixel of every test image, with the id
//! `<image>_<row>_<col>` (rows and columns from 1). Such an environment's
//! tables hold the pixels as rows — [`ITEM`], [`ROW`], [`COL`] and the
//! input image's grey level [`PIXEL`], plus the target image's level in
//! `train.csv` — and [`ITEM`] is the task's group column, so a whole image
//! is kept or dropped together.
//!
//! ```
//! use sandmle_core::pixel_rows::{pixel_id, split_pixel_id};
//! assert_eq!(pixel_id("103", 2, 7), "103_2_7");
//! assert_eq!(split_pixel_id("103_2_7"), Some(("103", 2, 7)));
//! assert_eq!(split_pixel_id("103_0_7"), None);
//! ```

use crate::table::{Column, Table};
use crate::task::{Modality, TaskKind, TaskSpec};
use serde::{Deserialize, Serialize};

/// The group column: the image a pixel belongs to.
pub const ITEM: &str = "image";
/// The pixel's row, from 1.
pub const ROW: &str = "row";
/// The pixel's column, from 1.
pub const COL: &str = "col";
/// The input image's grey level at the pixel, in `[0, 1]`.
pub const PIXEL: &str = "pixel";

/// The id of a pixel: `<image>_<row>_<col>`.
pub fn pixel_id(image: &str, row: usize, col: usize) -> String {
    format!("{image}_{row}_{col}")
}

/// `(image, row, col)` of a pixel id, rows and columns whole numbers from
/// 1; `None` for anything else.
pub fn split_pixel_id(id: &str) -> Option<(&str, usize, usize)> {
    let (rest, col) = id.rsplit_once('_')?;
    let (image, row) = rest.rsplit_once('_')?;
    let number =
        |s: &str| (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse::<usize>().ok()).flatten();
    let (row, col) = (number(row)?, number(col)?);
    (!image.is_empty() && row >= 1 && col >= 1).then_some((image, row, col))
}

/// `true` if the task's rows are pixels: an image regression grouped by
/// [`ITEM`] whose tables hold [`ROW`], [`COL`] and [`PIXEL`].
pub fn is_pixel_task(task: &TaskSpec, train: &Table) -> bool {
    task.modality == Modality::Image
        && task.kind == TaskKind::Regression
        && task.images.is_none()
        && task.group_column.as_deref() == Some(ITEM)
        && [ROW, COL, PIXEL].iter().all(|c| matches!(train.column(c), Ok(Column::Numeric(_))))
}

/// The images of a per-pixel task's DNA: their size and how many there
/// are, without their content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PixelDna {
    /// Width in pixels (the median over the training images).
    pub width: u32,
    /// Height in pixels (the median).
    pub height: u32,
    /// Training images.
    pub train_images: usize,
    /// Test images.
    pub test_images: usize,
    /// Mean of the training targets (the clean images' grey level).
    pub mean_target: f64,
}
