//! Audio tasks: procedural clips drawn from latent factors, labelled by a
//! hidden rule over those factors.
//!
//! [`crate::DnaSynthesizer`] takes this path when the DNA has
//! [`sandmle_core::AudioDna`] (an audio seed: [`crate::extract_dna`] fills
//! it by decoding the seed's clips). The environment keeps the import's
//! layout: `train.csv` holds `id` and the label, `test.csv` only `id`, and
//! every row's clip is `public/clips/<id>.wav`, mono 16-bit PCM.
//!
//! **Factors** ([`AudioFactors`]): each clip is a harmonic tone — its
//! pitch (150 to 1,200 Hz), its number of harmonics (one to five), a pitch
//! sweep (an octave down to an octave up), a tremolo rate, a number of
//! bursts (one to four) and a loudness — over background noise with a
//! random starting phase (the nuisance). The seed's sample rate and clip
//! length are kept, within 4 to 16 kHz and a quarter to one second.
//! [`render`] computes every sample with `libm`, and
//! [`sandmle_core::encode_wav`] writes the file: the same bytes on every
//! machine and at any thread count.
//!
//! **Rules** ([`AudioRule`]): a weighted sum of two or three centred
//! factors, with one product of two in the `audio_mixed` family,
//! standardised over the rows. Labels follow the image tasks' scheme: a
//! quantile cut for two classes, an argmax of one rule per class with
//! fitted offsets for more, ranks mapped onto the DNA's quantiles for
//! values. The nuisance never enters a rule.
//!
//! **Difficulty**: the plan's difficulty times its noise mutation is the
//! label noise (in units of the score's standard deviation) and raises
//! the background noise.
//!
//! **Privacy**: the rule is in `provenance.json`'s `hidden_rule` and every
//! row's factors in `details.audio_factors`, both private.

mod factors;
mod task;

pub use factors::{AUDIO_FACTOR_FIELDS, AudioFactors, render};
pub use task::{AUDIO_FAMILIES, AudioRule, CLIP_DIR};
pub(crate) use task::{plan_audio, realize_audio};

/// Version of the audio generator, recorded in provenance.
pub const AUDIO_SYNTH_VERSION: &str = "2";
