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
    pub fn to_table(&self) -> Table {
        let mut t = Table::new();
        // Two columns of equal length built here: cannot fail.
        let _ = t.push_column("name", Column::text(self.entries.iter().map(|e| Some(e.name.as_str()))));
        let _ = t.push_column("score", Column::Numeric(self.scores()));
        t
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
}

fn default_sum_tolerance() -> Option<f64> {
    Some(1e-5)
}

impl Default for SubmissionRules {
    fn default() -> Self {
        SubmissionRules { allow_extra_columns: false, probability_sum_tolerance: default_sum_tolerance() }
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
            leaderboard: None,
            files: BTreeMap::new(),
        }
    }
}

/// The result of grading one submission, with MLE-bench's report fields
/// plus HumanRank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GradeReport {
    /// The metric's value (`None` when the submission is invalid).
    pub score: Option<f64>,
    /// The score rounded to 5 decimals, as MLE-bench rounds before comparing
    /// with thresholds. Medals and the median flag use this value.
    pub score_rounded: Option<f64>,
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

impl GradeReport {
    /// A report for an invalid submission.
    pub fn invalid(direction: Direction, thresholds: Option<&Thresholds>, error: impl Into<String>) -> Self {
        GradeReport {
            score: None,
            score_rounded: None,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kaggle_and_own_leaderboards() {
        let k = b"scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore\n0.9,11,True,2024-01-01,0.9,True\n0.8,12,True,2024-01-02,0.8,True\n";
        let lb = Leaderboard::from_csv_bytes(k, "k.csv").unwrap();
        assert_eq!(lb.scores(), vec![0.9, 0.8]);
        assert_eq!(lb.entries[0].name, "11");
        let own = crate::csv::to_csv_bytes(&lb.to_table());
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
