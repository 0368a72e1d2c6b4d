//! The Score tool's reply, in the release's layout: `Submission OK.
//! Details: {json}` with the release's metric keys, a hint when the score
//! is below bronze, or `Submission csv is invalid ... Detailed issue: ...`.

use sandmle_core::{GradeReport, Thresholds};
use serde_json::{Map, Value, json};

/// The release's key for the score.
pub const KEY_SCORE: &str = "score_primary (main competition metric for current code)";
/// The release's key for the direction.
pub const KEY_LOWER: &str = "metric_lower_is_better (true means lower score is better)";
/// The release's threshold keys, gold to median.
pub const KEY_THRESHOLDS: [&str; 4] = [
    "threshold_gold (score needed for gold tier)",
    "threshold_silver (score needed for silver tier)",
    "threshold_bronze (score needed for bronze tier)",
    "threshold_median (median submission score)",
];

/// The reply to a Score call on `report`; the thresholds are left out when
/// `show_thresholds` is false (and so is the below-bronze hint, which
/// would reveal them).
pub fn score_observation(report: &GradeReport, thresholds: &Thresholds, show_thresholds: bool) -> String {
    let Some(score) = report.score.filter(|_| report.valid_submission) else {
        let issue = report.error.as_deref().unwrap_or("the submission could not be scored");
        return format!(
            "Submission csv is invalid. Compare your submission.csv with sample_submission.csv, then revise your \
             Python code to write a new submission.csv. Detailed issue: {issue}"
        );
    };
    let mut details = Map::new();
    details.insert(KEY_SCORE.into(), json!(score));
    details.insert(KEY_LOWER.into(), json!(thresholds.is_lower_better));
    if show_thresholds {
        let t = [thresholds.gold, thresholds.silver, thresholds.bronze, thresholds.median];
        for (key, value) in KEY_THRESHOLDS.iter().zip(t) {
            details.insert((*key).into(), json!(value));
        }
    }
    details.insert("submission_path".into(), json!("submission.csv"));
    let details = Value::Object(details);
    if show_thresholds && !thresholds.direction().at_least(score, thresholds.bronze) {
        format!(
            "Submission OK. But you do not reach the bronze threshold to get the medal. Revise your Python code \
             to improve your score. Details: {details}"
        )
    } else {
        format!("Submission OK. Details: {details}")
    }
}
