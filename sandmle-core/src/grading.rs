//! Grading vocabulary: thresholds, leaderboards, the grading spec stored in
//! `grading.json`, and the report a grader returns.

use crate::csv::{ReadOptions, read_csv_bytes};
use crate::error::{Error, Result};
use crate::table::{Column, ColumnType, Table};
use crate::task::{Direction, TaskSpec};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Medal and median thresholds derived from a leaderboard.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    /// Number of leaderboard rows the thresholds come from.
    pub num_teams: usize,
    /// `true` when lower scores are better.
    pub is_lower_better: bool,
    /// A score at least this good earns gold.
    pub gold: f64,
    /// A score at least this good earns silver.
    pub silver: f64,
    /// A score at least this good earns bronze.
    pub bronze: f64,
    /// The median leaderboard score; strictly better is "above median".
    pub median: f64,
}

impl Thresholds {
    /// The direction these thresholds were derived for.
    pub fn direction(&self) -> Direction {
        if self.is_lower_better { Direction::LowerIsBetter } else { Direction::HigherIsBetter }
    }

    /// `true` if gold is strictly better than silver, silver than bronze and
    /// bronze than the median.
    pub fn strictly_ordered(&self) -> bool {
        let d = self.direction();
        d.better(self.gold, self.silver) && d.better(self.silver, self.bronze) && d.better(self.bronze, self.median)
    }

    /// `true` if gold is at least as good as silver, silver as bronze and
    /// bronze as the median: the order MLE-bench's medal rule gives every
    /// real leaderboard, ties included (a competition whose top teams share
    /// a score has gold equal to silver).
    pub fn ordered(&self) -> bool {
        let d = self.direction();
        d.at_least(self.gold, self.silver)
            && d.at_least(self.silver, self.bronze)
            && d.at_least(self.bronze, self.median)
    }
}

/// A medal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Medal {
    /// Gold.
    Gold,
    /// Silver.
    Silver,
    /// Bronze.
    Bronze,
}

impl Medal {
    /// `"gold"`, `"silver"` or `"bronze"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Medal::Gold => "gold",
            Medal::Silver => "silver",
            Medal::Bronze => "bronze",
        }
    }
}

/// Columns that name a leaderboard row, in order of preference.
const NAME_COLUMNS: &[&str] = &["name", "teamName", "teamId"];

/// One leaderboard row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardEntry {
    /// Team or solution name.
    pub name: String,
    /// Its score.
    pub score: f64,
}

/// A leaderboard, best first.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Leaderboard {
    /// The rows, best first.
    pub entries: Vec<LeaderboardEntry>,
}

impl Leaderboard {
    /// The scores in leaderboard order.
    pub fn scores(&self) -> Vec<f64> {
        self.entries.iter().map(|e| e.score).collect()
    }

    /// Reads a leaderboard CSV: the project's `name,score` files or
    /// Kaggle/MLE-bench files (a `score` column; `teamName` or `teamId`
    /// names the row). Rows must already be best first: scores that go up
    /// and down are refused, since the direction is read from the order.
    ///
    /// The file must be a regular file of at most
    /// [`crate::MAX_JSON_BYTES`] (a FIFO or a device is refused, never
    /// read).
    ///
    /// # Errors
    /// [`Error::Io`], [`Error::NotRegularFile`], [`Error::FileTooLarge`],
    /// [`Error::Csv`] or [`Error::InvalidLeaderboard`] (no `score` column,
    /// no rows, a score that is not a finite number, or rows out of order).
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = crate::fsutil::read_regular(path, crate::fsutil::MAX_JSON_BYTES)?;
        Self::from_csv_bytes(&bytes, path)
    }

    /// As [`Leaderboard::read`], from bytes; `origin` names them in errors.
    ///
    /// # Errors
    /// As [`Leaderboard::read`].
    pub fn from_csv_bytes(bytes: &[u8], origin: impl AsRef<Path>) -> Result<Self> {
        let origin = origin.as_ref();
        let bad = |reason: String| Error::InvalidLeaderboard { path: origin.to_path_buf(), reason };
        let mut options = ReadOptions::default();
        for name in NAME_COLUMNS {
            options.types.insert((*name).to_owned(), ColumnType::Text);
        }
        let table = read_csv_bytes(bytes, origin, &options)?;
        let scores = table
            .column("score")
            .map_err(|_| bad("no `score` column".into()))?
            .to_f64_lenient()
            .ok_or_else(|| bad("`score` holds a value that is not a number".into()))?;
        if scores.is_empty() {
            return Err(bad("no rows".into()));
        }
        if let Some(i) = scores.iter().position(|s| !s.is_finite()) {
            return Err(bad(format!("row {} has no finite score", i + 1)));
        }
        let ascending = scores.windows(2).all(|w| w[0] <= w[1]);
        let descending = scores.windows(2).all(|w| w[0] >= w[1]);
        if !ascending && !descending {
            return Err(bad("rows are not sorted best first (scores go up and down)".into()));
        }
        let names: Option<&Column> = NAME_COLUMNS.iter().find_map(|n| table.column(n).ok());
        let entries = scores
            .into_iter()
            .enumerate()
            .map(|(i, score)| LeaderboardEntry {
                name: names.and_then(|c| c.get_str(i)).map_or_else(|| format!("row-{}", i + 1), |s| s.into_owned()),
                score,
            })
            .collect();
        Ok(Leaderboard { entries })
    }

    /// The leaderboard as a `name,score` table.
    ///
    /// # Errors
    /// None in practice (two distinct names, equal lengths); the table
    /// constructor's checks are passed on rather than assumed.
    pub fn to_table(&self) -> Result<Table> {
        Table::from_columns([
            ("name", Column::text(self.entries.iter().map(|e| Some(e.name.as_str())))),
            ("score", Column::Numeric(self.scores())),
        ])
    }
}

/// How strictly submissions are checked beyond the column and id rules every
/// grader applies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubmissionRules {
    /// Accept columns besides the id and prediction columns (ignored).
    #[serde(default)]
    pub allow_extra_columns: bool,
    /// For one-probability-column-per-class submissions: the largest allowed
    /// `|row sum - 1|`. MLE-bench's `np.isclose(sum, 1, atol=1e-6)` accepts
    /// up to about 1.1e-5; `None` turns the check off.
    #[serde(default = "default_sum_tolerance")]
    pub probability_sum_tolerance: Option<f64>,
    /// Under a metric of class labels ([`crate::MetricInput::Labels`]): an
    /// empty cell of a text label column is a prediction of no class, so
    /// always a wrong one, rather than a missing value that makes the
    /// submission invalid. MLE-bench's graders that fill missing labels
    /// with `""` before scoring (paddy-disease-classification's) score it
    /// so; `sandmle import` sets it when a competition's own sample
    /// submission leaves its labels empty. Off by default, and not written
    /// to `grading.json` when off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub empty_labels_are_wrong: bool,
}

fn default_sum_tolerance() -> Option<f64> {
    Some(1e-5)
}

impl Default for SubmissionRules {
    fn default() -> Self {
        SubmissionRules {
            allow_extra_columns: false,
            probability_sum_tolerance: default_sum_tolerance(),
            empty_labels_are_wrong: false,
        }
    }
}

/// The content of `private/grading.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GradingSpec {
    /// The schema version ([`crate::SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The task: id and target columns, metric, direction.
    pub task: TaskSpec,
    /// Submission checks.
    #[serde(default)]
    pub submission: SubmissionRules,
    /// Medal thresholds, once a reference leaderboard exists.
    pub thresholds: Option<Thresholds>,
    /// The oracle's score and its standard error, for an environment that
    /// knows the rule behind its labels (a synthesized one): the ceiling
    /// its medal ladder sits under ([`crate::ladder`],
    /// [`crate::grade_oracle`]). Not written when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oracle: Option<crate::ladder::Oracle>,
    /// The reference leaderboard's path relative to `private/`, if any.
    pub leaderboard: Option<String>,
    /// sha256 of every other file of the environment, by path relative to
    /// the environment directory (for example `prepared/public/train.csv`).
    pub files: BTreeMap<String, String>,
}

impl GradingSpec {
    /// A spec for `task` with the default submission rules and no
    /// thresholds, leaderboard or file hashes yet (the writer fills the
    /// hashes in).
    pub fn new(task: TaskSpec) -> Self {
        GradingSpec {
            schema_version: crate::task::SCHEMA_VERSION,
            task,
            submission: SubmissionRules::default(),
            thresholds: None,
            oracle: None,
            leaderboard: None,
            files: BTreeMap::new(),
        }
    }
}

/// The result of grading one submission: the keys of SandMLE's
/// `evaluator.py` contract and MLE-bench's report, plus HumanRank.
///
/// Build one with [`GradeReport::scored`] or [`GradeReport::invalid`]; the
/// medal flags, the median flag and HumanRank follow from the score and
/// the thresholds, so implementers never set them by hand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GradeReport {
    /// The score rounded to 5 decimals, as MLE-bench's grader returns it:
    /// the value the medals and the median flag were decided on, so a
    /// client comparing `score` with the thresholds agrees with the medal
    /// (`None` when the submission is invalid).
    pub score: Option<f64>,
    /// The metric's unrounded value.
    pub score_raw: Option<f64>,
    /// Whether the submission passed validation and could be scored.
    pub valid_submission: bool,
    /// `true` when lower scores are better.
    pub is_lower_better: bool,
    /// Gold threshold, if the environment has thresholds.
    pub gold_threshold: Option<f64>,
    /// Silver threshold.
    pub silver_threshold: Option<f64>,
    /// Bronze threshold.
    pub bronze_threshold: Option<f64>,
    /// Median threshold.
    pub median_threshold: Option<f64>,
    /// Gold earned.
    pub gold_medal: bool,
    /// Silver earned (and not gold).
    pub silver_medal: bool,
    /// Bronze earned (and not silver or gold).
    pub bronze_medal: bool,
    /// Any medal earned.
    pub any_medal: bool,
    /// Strictly better than the median threshold.
    pub above_median: bool,
    /// HumanRank: `(N - position + 1) / N` against the reference leaderboard.
    pub human_rank: Option<f64>,
    /// Why the submission is invalid (one line), if it is.
    pub error: Option<String>,
}

/// The one JSON view of a grade every front end prints (`sandmle evaluate
/// --json`, the server's step info, the Python package): the report's keys
/// — SandMLE's `evaluator.py` contract and MLE-bench's report — and the
/// medal by name.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GradeView<'a> {
    /// The report.
    #[serde(flatten)]
    pub report: &'a GradeReport,
    /// `"gold"`, `"silver"`, `"bronze"` or `null`.
    pub medal: Option<Medal>,
}

impl GradeReport {
    /// The report's JSON view, with its medal by name.
    pub fn view(&self) -> GradeView<'_> {
        GradeView { report: self, medal: self.medal() }
    }

    /// A report for an invalid submission.
    pub fn invalid(direction: Direction, thresholds: Option<&Thresholds>, error: impl Into<String>) -> Self {
        GradeReport {
            score: None,
            score_raw: None,
            valid_submission: false,
            is_lower_better: direction.is_lower_better(),
            gold_threshold: thresholds.map(|t| t.gold),
            silver_threshold: thresholds.map(|t| t.silver),
            bronze_threshold: thresholds.map(|t| t.bronze),
            median_threshold: thresholds.map(|t| t.median),
            gold_medal: false,
            silver_medal: false,
            bronze_medal: false,
            any_medal: false,
            above_median: false,
            human_rank: None,
            error: Some(error.into()),
        }
    }

    /// The report for a metric value: rounded to 5 decimals as MLE-bench
    /// rounds, then placed against the thresholds with the rounded value
    /// (medals inclusive and exclusive of each other, above-median strict)
    /// and against the leaderboard (HumanRank).
    ///
    /// A score the metric cannot define (NaN, for example Pearson on a
    /// constant prediction) or an infinite one is an invalid submission
    /// with a reason: never valid without a score.
    pub fn scored(
        raw: f64,
        direction: Direction,
        thresholds: Option<&Thresholds>,
        leaderboard: Option<&Leaderboard>,
    ) -> Self {
        let mut r = GradeReport::invalid(direction, thresholds, "");
        if raw.is_nan() {
            r.error =
                Some("the metric is undefined on this submission (NaN), for example for constant predictions".into());
            return r;
        }
        if raw.is_infinite() {
            r.error = Some("the metric overflowed on this submission (its predictions are too large)".into());
            return r;
        }
        let score = round5(raw);
        r.valid_submission = true;
        r.error = None;
        r.score = Some(score);
        r.score_raw = Some(raw);
        if let Some(t) = thresholds {
            r.gold_medal = direction.at_least(score, t.gold);
            r.silver_medal = !r.gold_medal && direction.at_least(score, t.silver);
            r.bronze_medal = !r.gold_medal && !r.silver_medal && direction.at_least(score, t.bronze);
            r.any_medal = r.gold_medal || r.silver_medal || r.bronze_medal;
            r.above_median = direction.better(score, t.median);
        }
        r.human_rank = leaderboard.and_then(|lb| human_rank(score, &lb.scores(), direction));
        r
    }

    /// The medal earned, if any.
    pub fn medal(&self) -> Option<Medal> {
        if self.gold_medal {
            Some(Medal::Gold)
        } else if self.silver_medal {
            Some(Medal::Silver)
        } else if self.bronze_medal {
            Some(Medal::Bronze)
        } else {
            None
        }
    }
}

/// `round(score, 5)` as Python computes it (correctly rounded, ties to even
/// on the exact binary value), which is what MLE-bench's graders return.
pub fn round5(score: f64) -> f64 {
    if !score.is_finite() {
        return score;
    }
    format!("{score:.5}").parse().unwrap_or(score)
}

/// HumanRank: `(N - position + 1) / N` where position is 1 plus the number
/// of leaderboard scores strictly better than `score` (ties go to the
/// agent). 1.0 is first place; a score worse than every entry gets 0.
/// `None` for an empty leaderboard or a NaN score.
pub fn human_rank(score: f64, leaderboard: &[f64], direction: Direction) -> Option<f64> {
    if leaderboard.is_empty() || score.is_nan() {
        return None;
    }
    let n = leaderboard.len();
    let position = 1 + leaderboard.iter().filter(|&&s| direction.better(s, score)).count();
    Some((n + 1 - position) as f64 / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_rank_gives_ties_to_the_agent() {
        let lb = [0.9, 0.8, 0.8, 0.5];
        assert_eq!(human_rank(0.95, &lb, Direction::HigherIsBetter), Some(1.0));
        assert_eq!(human_rank(0.8, &lb, Direction::HigherIsBetter), Some(0.75));
        assert_eq!(human_rank(0.1, &lb, Direction::HigherIsBetter), Some(0.0));
        assert_eq!(human_rank(0.1, &lb, Direction::LowerIsBetter), Some(1.0));
        assert_eq!(human_rank(f64::NAN, &lb, Direction::LowerIsBetter), None);
    }

    #[test]
    fn rounding_matches_python() {
        // Python: round(0.123455, 5) == 0.12345 (the double is just below the tie).
        assert_eq!(round5(0.123455), 0.12345);
        assert_eq!(round5(1.000005), 1.00001);
        assert_eq!(round5(0.999999), 1.0);
    }

    /// The rounded score decides the medal and is the `score` a client
    /// compares with the thresholds: at +-5e-6 around each threshold, the
    /// client's comparison of `score` with the threshold agrees with the
    /// report (an rmse 2.5e-6 above bronze rounds onto bronze).
    #[test]
    fn clients_comparing_score_with_thresholds_agree_with_the_medal() {
        for lower in [false, true] {
            let (d, t) = if lower {
                (
                    Direction::LowerIsBetter,
                    Thresholds {
                        num_teams: 10,
                        is_lower_better: true,
                        gold: 0.1,
                        silver: 0.2,
                        bronze: 0.3,
                        median: 0.4,
                    },
                )
            } else {
                (
                    Direction::HigherIsBetter,
                    Thresholds {
                        num_teams: 10,
                        is_lower_better: false,
                        gold: 0.9,
                        silver: 0.8,
                        bronze: 0.7,
                        median: 0.6,
                    },
                )
            };
            for threshold in [t.gold, t.silver, t.bronze, t.median] {
                for delta in [-5e-6, -2.5e-6, -1e-7, 0.0, 1e-7, 2.5e-6, 4.9e-6, 5e-6] {
                    let r = GradeReport::scored(threshold + delta, d, Some(&t), None);
                    let s = r.score.unwrap();
                    let client_at_least = |x: f64| if lower { s <= x } else { s >= x };
                    assert_eq!(r.gold_medal, client_at_least(t.gold), "{threshold} {delta}");
                    assert_eq!(r.silver_medal, !client_at_least(t.gold) && client_at_least(t.silver));
                    assert_eq!(
                        r.bronze_medal,
                        !client_at_least(t.silver) && client_at_least(t.bronze),
                        "{threshold} {delta}"
                    );
                    assert_eq!(r.above_median, if lower { s < t.median } else { s > t.median });
                    assert_eq!(r.score_raw, Some(threshold + delta));
                }
            }
        }
        // 2.5e-6 worse than bronze under rmse: bronze, since graders round first.
        let t = Thresholds { num_teams: 10, is_lower_better: true, gold: 0.1, silver: 0.2, bronze: 0.3, median: 0.4 };
        assert!(GradeReport::scored(0.3 + 2.5e-6, Direction::LowerIsBetter, Some(&t), None).bronze_medal);
    }

    #[test]
    fn nan_and_infinite_scores_are_invalid() {
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let r = GradeReport::scored(x, Direction::HigherIsBetter, None, None);
            assert!(!r.valid_submission && r.score.is_none() && r.error.is_some());
        }
    }

    #[test]
    fn reads_kaggle_and_own_leaderboards() {
        let k = b"scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore\n0.9,11,True,2024-01-01,0.9,True\n0.8,12,True,2024-01-02,0.8,True\n";
        let lb = Leaderboard::from_csv_bytes(k, "k.csv").unwrap();
        assert_eq!(lb.scores(), vec![0.9, 0.8]);
        assert_eq!(lb.entries[0].name, "11");
        let own = crate::csv::to_csv_bytes(&lb.to_table().unwrap()).unwrap();
        assert_eq!(Leaderboard::from_csv_bytes(&own, "own.csv").unwrap(), lb);
        assert!(matches!(
            Leaderboard::from_csv_bytes(b"name,points\na,1\n", "x"),
            Err(Error::InvalidLeaderboard { .. })
        ));
        assert!(matches!(Leaderboard::from_csv_bytes(b"name,score\n", "x"), Err(Error::InvalidLeaderboard { .. })));
        assert!(matches!(Leaderboard::from_csv_bytes(b"name,score\na,\n", "x"), Err(Error::InvalidLeaderboard { .. })));
        assert!(matches!(
            Leaderboard::from_csv_bytes(b"name,score\na,inf\n", "x"),
            Err(Error::InvalidLeaderboard { .. })
        ));
        let unsorted = b"name,score\na,0.9\nb,0.5\nc,0.7\n";
        assert!(matches!(Leaderboard::from_csv_bytes(unsorted, "x"), Err(Error::InvalidLeaderboard { .. })));
    }
}
