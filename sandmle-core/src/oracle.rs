//! An environment's oracle: the prediction of the rule that made its
//! labels, as the synthesizer that drew them knows it, and its score.
//!
//! A synthesizer records the prediction in the provenance's details under
//! [`ORACLE_DETAIL`] ([`OracleRecord`], the prediction in the submission's
//! form: for classification the rule's class probabilities or its most
//! probable label, for regression its conditional mean or median, as the
//! metric rewards). Calibration grades it ([`grade_oracle`]): the score is
//! written to the record and to [`crate::GradingSpec::oracle`], and the
//! prediction is dropped (it is as large as the answers and says no more
//! than the hidden rule the provenance already holds). The score is the
//! ceiling [`crate::ladder`] places the medals under and
//! [`crate::Difficulty`] measures against.

use crate::environment::Environment;
use crate::error::{Error, Result};
use crate::ladder::Oracle;
use crate::ports::Grader;
use crate::table::{Column, Table};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The key of [`crate::Provenance::details`] that holds the [`OracleRecord`].
pub const ORACLE_DETAIL: &str = "oracle";

/// What an environment records of its oracle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OracleRecord {
    /// How the prediction was made (`"hidden rule, noise integrated"`, ...).
    pub method: String,
    /// The prediction's score under the task's metric, once graded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// The standard error of that score over the test split: the standard
    /// deviation of its scores on [`SE_DRAWS`] random halves of the test
    /// rows (halves drawn without replacement: their variance is the full
    /// split's, `σ²(1/m − 1/n)` with `m = n/2`). How far apart two medal
    /// thresholds must be to tell skill from the split's luck.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standard_error: Option<f64>,
    /// The prediction before it is graded: column names (the id first) and
    /// each column's values (numbers or strings), in the answers' row order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction: Option<OraclePrediction>,
}

/// A prediction as JSON columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OraclePrediction {
    /// Column names, the id column first.
    pub columns: Vec<String>,
    /// Each column's values, as many as the answers have rows.
    pub values: Vec<Vec<serde_json::Value>>,
}

impl OraclePrediction {
    /// The prediction of a table (numbers stay numbers, every other cell is
    /// its text; a missing cell is `null`).
    pub fn from_table(table: &Table) -> Self {
        let mut columns = Vec::new();
        let mut values = Vec::new();
        for (name, col) in table.iter() {
            columns.push(name.to_owned());
            values.push(match col {
                Column::Numeric(v) => v.iter().map(|x| serde_json::json!(x)).collect(),
                _ => (0..col.len())
                    .map(|i| col.get_str(i).map_or(serde_json::Value::Null, |s| serde_json::json!(s)))
                    .collect(),
            });
        }
        OraclePrediction { columns, values }
    }

    /// The table of the prediction: a column of only numbers is numeric,
    /// any other is text.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] or [`Error::DuplicateColumn`].
    pub fn to_table(&self) -> Result<Table> {
        let mut table = Table::new();
        for (name, values) in self.columns.iter().zip(&self.values) {
            let column = if values.iter().all(serde_json::Value::is_number) {
                Column::Numeric(values.iter().map(|v| v.as_f64().unwrap_or(f64::NAN)).collect())
            } else {
                Column::text(values.iter().map(serde_json::Value::as_str))
            };
            table.push_column(name.clone(), column)?;
        }
        Ok(table)
    }
}

/// Random halves of the test rows the standard error is measured on.
pub const SE_DRAWS: usize = 100;

/// The standard deviation of `prediction`'s scores on [`SE_DRAWS`] random
/// halves of the answers' rows (the environment's seed draws them); `None`
/// when fewer than half the draws can be scored (a half holding one class
/// under ROC AUC is undefined) or the split has fewer than four rows.
fn standard_error(env: &Environment, grader: &dyn Grader, prediction: &Table) -> Result<Option<f64>> {
    use rand_chacha::rand_core::Rng;
    let n = env.answers.n_rows();
    if n < 4 || prediction.n_rows() != n {
        return Ok(None);
    }
    let mut rng = crate::rng::rng_for(env.provenance.seed, "oracle-standard-error");
    let mut scores = Vec::with_capacity(SE_DRAWS);
    let mut rows: Vec<usize> = (0..n).collect();
    for _ in 0..SE_DRAWS {
        for i in 0..n / 2 {
            // A draw in `i..n` (multiply-shift: a bias below 2^-50 here).
            let j = i + ((u128::from(rng.next_u64()) * (n - i) as u128) >> 64) as usize;
            rows.swap(i, j);
        }
        let mut half = rows[..n / 2].to_vec();
        half.sort_unstable();
        let answers = env.answers.take(&half)?;
        let task = crate::ports::GradingTask::new(&env.grading, &answers, None);
        let report = grader.grade(&task, &prediction.take(&half)?)?;
        if let (true, Some(s)) = (report.valid_submission, report.score_raw.or(report.score)) {
            scores.push(s);
        }
    }
    if scores.len() * 2 < SE_DRAWS {
        return Ok(None);
    }
    let mean = scores.iter().sum::<f64>() / scores.len() as f64;
    let var = scores.iter().map(|s| (s - mean) * (s - mean)).sum::<f64>() / (scores.len() - 1) as f64;
    Ok(Some(var.sqrt()))
}

/// Grades the oracle prediction `env`'s provenance holds, if any: records
/// its score (and the score's standard error over the test split) in the
/// record, both in `grading.json`'s [`crate::GradingSpec::oracle`], drops
/// the prediction and returns what it recorded. `Ok(None)` for an
/// environment without an oracle record (one already graded keeps its
/// recorded score, which is returned).
///
/// # Errors
/// [`Error::BrokenEnvironment`] naming the provenance when the record
/// cannot be read or the grader finds the prediction invalid (a fault of
/// the synthesizer, not of any agent); the grader's own faults.
pub fn grade_oracle(env: &mut Environment, grader: &dyn Grader) -> Result<Option<Oracle>> {
    let broken =
        |reason: String| Error::BrokenEnvironment { file: PathBuf::from("prepared/private/provenance.json"), reason };
    let Some(value) = env.provenance.details.get(ORACLE_DETAIL) else { return Ok(None) };
    let mut record: OracleRecord =
        serde_json::from_value(value.clone()).map_err(|e| broken(format!("the oracle record: {e}")))?;
    let Some(prediction) = record.prediction.take() else {
        env.grading.oracle = record.score.map(|score| Oracle { score, standard_error: record.standard_error });
        return Ok(env.grading.oracle);
    };
    let table = prediction.to_table().map_err(|e| broken(format!("the oracle's prediction: {e}")))?;
    let report = grader.grade(&env.grading_task(), &table)?;
    let score = match (report.valid_submission, report.score_raw.or(report.score)) {
        (true, Some(s)) => s,
        _ => {
            return Err(broken(format!(
                "the oracle's prediction is not a valid submission: {}",
                report.error.as_deref().unwrap_or("no score")
            )));
        }
    };
    record.score = Some(score);
    record.standard_error = standard_error(env, grader, &table)?;
    let value = serde_json::to_value(&record).map_err(|e| broken(e.to_string()))?;
    env.provenance.details.insert(ORACLE_DETAIL.into(), value);
    env.grading.oracle = Some(Oracle { score, standard_error: record.standard_error });
    Ok(env.grading.oracle)
}
