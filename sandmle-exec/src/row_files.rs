//! The features of a task whose rows are files beside the tables: images
//! ([`crate::image`]) or, for an audio task, clips ([`crate::audio`]).

use crate::error::Result;
use sandmle_core::{Modality, PublicView, Table};

/// The features of the view's rows' files: [`crate::audio::audio_features`]
/// for an audio task, [`crate::image::image_features`] otherwise.
///
/// # Errors
/// As the featurizer's.
pub fn file_features(view: &PublicView<'_>) -> Result<(Table, Table)> {
    match view.task.modality {
        Modality::Audio => crate::audio::audio_features(view),
        _ => crate::image::image_features(view),
    }
}
