//! The test-size rule shared by the shrinker and the synthesizer.

use sandmle_core::SubmissionForm;

/// Test rows for a micro task: for classes, enough for the rarest class to
/// show about 20 times, `clamp(ceil(20 / p_min), 100, 1000)` with `p_min`
/// the smallest class share; for values, 100; never more than `available`.
pub fn test_rows_for(form: SubmissionForm, class_shares: &[f64], available: usize) -> usize {
    let wanted = if form == SubmissionForm::Value || class_shares.is_empty() {
        100
    } else {
        let p_min = class_shares.iter().copied().filter(|&s| s > 0.0).fold(1.0, f64::min);
        ((20.0 / p_min).ceil() as usize).clamp(100, 1000)
    };
    wanted.min(available)
}
