//! Recasting a seed's DNA into another modality, for a run whose mix
//! ([`sandmle_core::Mix`]) asks a candidate for one.
//!
//! What is predicted stays the seed's: its targets (class count and
//! balance, or value shape), metric, submission form and sizes. What the
//! rows are made of changes:
//!
//! | to | features | files |
//! |---|---|---|
//! | tabular | the seed's numeric and categorical features | none |
//! | text | those, and the seed's text features or one of [`TEXT_FEATURE`]'s shape | none |
//! | image | none | the seed's image shape, or 64 x 64 RGB |
//! | multimodal | as for tabular | as for image |
//! | audio | none | the seed's clip shape, or one second at 16 kHz |
//! | time series | a date, an entity, a covariate and an event flag ([`crate::series`]) | none |
//! | graph | as for tabular, and each row's linked rows ([`crate::graph`]) | none |
//! | sequence | a document, a position and a word ([`crate::sequence`]) | none |
//!
//! A seed whose rows are pictures, clips or words (an image, pixel-table, audio or sequence
//! seed) has no table features to keep: a recast to a table draws
//! [`generic_features`], eight features of everyday shapes (a count, an
//! age, an amount of money, a share, two measurements, two categories). A
//! page-reconstruction seed (its targets are pixels) is not recast, and only
//! a seed of one value target is recast into a forecasting task, only a
//! seed of one class target (labels or probabilities) into a graph task,
//! or, with two to ten classes, into a sequence-labelling task.

use sandmle_core::{
    AudioDna, FeatureDna, ImageDna, Modality, NumericShape, SubmissionForm, TargetDna, TaskDna, TaskKind,
};

/// The image shape of a recast to images from a seed without images:
/// MLE-bench's smallest common size, in colour.
pub const RECAST_IMAGE: ImageDna =
    ImageDna { width: 64, height: 64, channels: 3, mean_intensity: 0.45, sd_intensity: 0.25 };

/// The clip shape of a recast to audio from a seed without clips.
pub const RECAST_AUDIO: AudioDna = AudioDna { sample_rate: 16_000, seconds: 1.0, rms: 0.1 };

/// The text feature a recast to text adds to a seed without one: notes of
/// about fourteen words.
pub const TEXT_FEATURE: FeatureDna =
    FeatureDna::Text { missing_rate: 0.0, mean_tokens: 14.0, sd_tokens: 6.0, vocab_size: 600 };

/// `dna` recast into `to` (see the module docs); `None` when it cannot
/// be (a page-reconstruction seed, or a modality with no synthesizer).
/// The same modality gives `dna` unchanged.
pub fn recast(dna: &TaskDna, to: Modality) -> Option<TaskDna> {
    if to == dna.modality {
        return Some(dna.clone());
    }
    if dna.pixels.is_some() {
        return None;
    }
    let mut out = TaskDna { modality: to, images: None, audio: None, pixels: None, ..dna.clone() };
    match to {
        Modality::Tabular | Modality::Multimodal => table_features(dna, &mut out),
        Modality::Text => {
            // A sequence seed's text is its words, one a row: not notes.
            let texts: Vec<FeatureDna> = dna
                .features
                .iter()
                .filter(|f| matches!(f, FeatureDna::Text { .. }) && dna.modality != Modality::Sequence)
                .cloned()
                .collect();
            table_features(dna, &mut out);
            if texts.is_empty() {
                out.features.push(TEXT_FEATURE);
            } else {
                out.features.extend(texts);
            }
        }
        Modality::Image | Modality::Audio => {
            out.features.clear();
            out.correlations.clear();
        }
        Modality::Graph => {
            if !one_class_target(dna, usize::MAX) {
                return None;
            }
            table_features(dna, &mut out);
        }
        Modality::Sequence => {
            if !one_class_target(dna, crate::MAX_FILE_CLASSES) {
                return None;
            }
            out.features.clear();
            out.correlations.clear();
        }
        Modality::TimeSeries => {
            if dna.kind != TaskKind::Regression || !matches!(dna.targets.as_slice(), [TargetDna::Continuous { .. }]) {
                return None;
            }
            out.features.clear();
            out.correlations.clear();
        }
    }
    match to {
        Modality::Image | Modality::Multimodal => out.images = Some(dna.images.clone().unwrap_or(RECAST_IMAGE)),
        Modality::Audio => out.audio = Some(dna.audio.clone().unwrap_or(RECAST_AUDIO)),
        _ => {}
    }
    Some(out)
}

/// Whether `dna` has one class target of at most `max_classes` classes,
/// predicted as labels or probabilities.
fn one_class_target(dna: &TaskDna, max_classes: usize) -> bool {
    let form = dna.metric.submission_form(dna.kind);
    matches!(dna.targets.as_slice(), [TargetDna::Classes { shares, .. }] if shares.len() <= max_classes)
        && matches!(form, SubmissionForm::Label | SubmissionForm::Probability | SubmissionForm::ClassProbabilities)
}

/// Sets `out`'s features to `dna`'s numeric and categorical ones (their
/// correlations kept), or to [`generic_features`] when `dna`'s rows are
/// pictures, clips or words of documents, or it has none.
fn table_features(dna: &TaskDna, out: &mut TaskDna) {
    let pictures = matches!(dna.modality, Modality::Image | Modality::Audio | Modality::Sequence);
    let kept: Vec<usize> =
        (0..dna.features.len()).filter(|&i| !matches!(dna.features[i], FeatureDna::Text { .. })).collect();
    if pictures || kept.is_empty() {
        out.features = generic_features();
        out.correlations.clear();
        return;
    }
    let at = |i: usize| kept.iter().position(|&k| k == i);
    out.features = kept.iter().map(|&i| dna.features[i].clone()).collect();
    out.correlations = dna.correlations.iter().filter_map(|&(i, j, r)| Some((at(i)?, at(j)?, r))).collect();
}

fn shape(mean: f64, sd: f64, skew: f64, min: f64, max: f64, quantiles: [f64; 5], integer: bool) -> NumericShape {
    let distinct = if integer { (max - min) as usize + 1 } else { 200 };
    NumericShape { mean, sd, skew, min, max, quantiles, integer, distinct }
}

/// The features a recast to a table gives a seed with none of its own:
/// a count, an age in years, an amount of money, a share, two
/// measurements and two categories of three and five levels.
pub fn generic_features() -> Vec<FeatureDna> {
    let numeric = |shape| FeatureDna::Numeric { missing_rate: 0.0, shape };
    let categorical = |shares: &[f64]| FeatureDna::Categorical {
        missing_rate: 0.0,
        cardinality: shares.len(),
        shares: shares.to_vec(),
    };
    vec![
        numeric(shape(3.0, 1.7, 0.6, 0.0, 10.0, [1.0, 2.0, 3.0, 4.0, 6.0], true)),
        numeric(shape(42.0, 14.0, 0.4, 18.0, 90.0, [21.0, 31.0, 41.0, 52.0, 67.0], true)),
        numeric(shape(120.0, 80.0, 1.6, 5.0, 600.0, [30.0, 62.0, 100.0, 155.0, 280.0], false)),
        numeric(shape(0.5, 0.2, 0.0, 0.0, 1.0, [0.17, 0.36, 0.5, 0.64, 0.83], false)),
        numeric(shape(50.0, 10.0, 0.0, 15.0, 85.0, [33.6, 43.3, 50.0, 56.7, 66.4], false)),
        numeric(shape(7.5, 2.5, 0.3, 1.0, 16.0, [3.6, 5.8, 7.4, 9.1, 11.8], false)),
        categorical(&[0.5, 0.3, 0.2]),
        categorical(&[0.35, 0.25, 0.2, 0.12, 0.08]),
    ]
}
