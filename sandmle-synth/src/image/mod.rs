//! Image tasks: procedural images drawn from latent factors, labelled by
//! a hidden rule over those factors.
//!
//! [`crate::DnaSynthesizer`] takes this path when the DNA has
//! [`sandmle_core::ImageDna`] (an image seed: [`crate::extract_dna`] fills
//! it by decoding the seed's PNGs). The environment is MLE-bench's image
//! layout: `train.csv` holds `id` and the label, `test.csv` only `id`, and
//! every row's image is `public/images/<id>.png`.
//!
//! **Factors** ([`ImageFactors`]): each image is drawn from whole-number
//! factors — the main shapes' kind ([`ShapeKind`]: circle, square,
//! triangle, ring, cross) and count (1–5, on a ring around the group's
//! centre), their size, the centre's position, the orientation, the hue
//! (brightness in grey images), a stripe texture's frequency — and
//! nuisance factors: distractor dots and lines (clutter), box blur, pixel
//! noise and the background level (around the seed's mean intensity).
//! Shapes are anti-aliased polygon fills under a rotation, each pixel
//! covered by the exact area it shares with the outline; blur and noise
//! are integer arithmetic; [`sandmle_core::encode_png`] writes the
//! file, whose size depends on the canvas alone. The canvas is the seed's
//! size capped at 64 pixels (32 when the seed's is under 16) with 1 or 3
//! channels ([`canvas_for`]).
//!
//! **Rules** ([`ImageRule`], [`ImageFamily`]): a weighted sum of one to
//! three [`Term`]s of the semantic factors, with at most one product of two
//! ("how many shapes", "upper half and red", "densely striped", "a square
//! and large", or two or three random terms), standardised over the rows.
//! Two classes: 1 when score plus noise is above the quantile cut that
//! gives the DNA's positive share. More classes ([`Look`]): each class is a
//! look a person can tell — a shape kind, one of five hues, plain or
//! striped, one large shape or a group of small ones, drawn among the 100
//! so that no two are alike at a glance ([`draw_looks`]) — and an image of the class shows its look under every
//! other factor (the exact count and size, place, rotation,
//! clutter, blur, noise); labels take the DNA's shares exactly, and a
//! share of images (the label noise) shows another class's look.
//! Values: the noisy score's ranks mapped onto the DNA's target quantiles.
//! The nuisance factors never enter a rule.
//!
//! **Difficulty**: the plan's difficulty times its noise mutation is both
//! the label noise's standard deviation (in units of the score's) and the
//! nuisance level ([`Nuisance::for_difficulty`]: more clutter, blur and
//! pixel noise).
//!
//! **Privacy**: the rule is written to `provenance.json`'s `hidden_rule`,
//! and every row's factors to its `details.image_factors` (id, then the
//! codes of [`FACTOR_FIELDS`]), so the labels can be recomputed; the
//! description explains the files and never the rule. Ids are a shuffled
//! `0..rows`, so they carry no label, and a test image identical to a
//! training image is dropped.
//!
//! **Determinism**: factors draw from the plan seed's `image-factors`
//! stream, each row's distractors and noise from its own `image-{row}`
//! stream, and the rows are rendered in parallel (rayon) but collected in
//! row order, so the bytes are the same on every run and thread count.
//! Byte identity is tested on x86-64 (see [`render`] on the float
//! rasteriser).
//!
//! ```
//! use sandmle_core::testing::tiny_image_environment;
//! use sandmle_synth::{DnaSynthesizer, extract_dna};
//!
//! let dna = extract_dna(&tiny_image_environment()).unwrap();
//! assert!(dna.images.is_some() && dna.features.is_empty());
//! let env = DnaSynthesizer::default().synthesize_env(&dna, "tiny", 1).unwrap();
//! assert_eq!(env.test.names(), ["id"]);
//! assert_eq!(env.images.len(), env.train.n_rows() + env.test.n_rows());
//! ```
//!
//! Rendering speed: `cargo run --release -p sandmle-synth --example
//! image_timing` (600 images of 32 x 32 RGB on one thread; the figure is in
//! this crate's README).

mod draw;
mod dress;
mod factors;
mod multimodal;
mod pixel_table;
mod prototypes;
mod raster;
mod rule;
mod task;

pub use draw::{Canvas, render, render_png};
pub use factors::{FACTOR_FIELDS, ImageFactors, Nuisance, SHAPE_KINDS, ShapeKind};
pub(crate) use pixel_table::{pixel_grid, plan_pixel_table, realize_pixel_table};
pub use prototypes::{
    LOOK_HUES, Look, MANY_LOOKS, MIN_LOOK_DISTANCE, draw_looks, label_by_looks, look_distance, look_sizes,
};
pub use rule::{IMAGE_FAMILIES, ImageFamily, ImageRule, Term};
pub use task::{MAX_IMAGE_SIDE_DRAWN, canvas_for};
pub(crate) use task::{domain_for, plan_images, realize_images};

/// Version of the image generator, recorded in `provenance.json`'s
/// `details.image_generator_version`: bumped whenever its output changes.
pub const IMAGE_SYNTH_VERSION: &str = "4";
