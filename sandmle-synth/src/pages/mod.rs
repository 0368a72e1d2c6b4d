//! Page restoration: image-to-image tasks whose rows are pixels
//! ([`sandmle_core::pixel_rows`]), synthesized from a seed like
//! denoising-dirty-documents.
//!
//! [`crate::DnaSynthesizer`] takes this path when the DNA has
//! [`sandmle_core::PixelDna`] (a seed whose rows are the pixels of its
//! images). The environment keeps the seed's layout: `train.csv` one row
//! per pixel of every training page (`id` = `<image>_<row>_<col>`,
//! `image`, `row`, `col`, the scan's `pixel` and the clean page's
//! `value`), `test.csv` the same without `value`, `image` the group
//! column.
//!
//! **Pages** ([`clean_page`]): white paper with lines of words in dark
//! ink, each word a run of glyph columns (ascenders, x-height strokes,
//! dots, gaps). Two or three training pages and one to three test pages of
//! the seed's size, kept within 32-56 x 24-40 pixels.
//!
//! **Rules** ([`Damage`]): what scanning did to every page of the task —
//! ink bleeding into its neighbours, coffee stains (Gaussian darkening of
//! random centre and size), lighting falling across the page, sensor noise
//! and speckle — in one of three families that stresses one kind
//! (`stains`, `lighting`, `speckle`). Each page draws its own stains and
//! noise from the rule. A model that reads a pixel's neighbourhood (its
//! local background, the page's lighting) beats one that reads the pixel
//! alone, which beats a constant.
//!
//! **Difficulty**: the plan's difficulty times its noise mutation scales
//! every kind of damage.
//!
//! **Privacy**: the rule is in `provenance.json`'s `hidden_rule`.

mod render;
mod task;

pub use render::{Damage, PAGE_FAMILIES, Page, clean_page};
pub(crate) use task::{plan_pages, realize_pages};

/// Version of the page generator, recorded in provenance.
pub const PAGES_SYNTH_VERSION: &str = "1";
