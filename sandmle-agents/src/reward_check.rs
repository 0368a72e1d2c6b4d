//! Reward validation: does an environment's reward pay for what it should
//! and for nothing else? The checks of OpenEnv's RFC 008 that apply to a
//! graded task, run on submissions built from the environment itself.
//!
//! Two bounds frame them, both the scheme's own reward on a synthetic
//! grade (a well-formatted episode, format rate 1):
//! - the **maximum**: a score beyond every threshold and every
//!   leaderboard entry;
//! - the **floor**: a valid score below the median threshold and every
//!   leaderboard entry — what a submission earns for being valid alone.
//!
//! | check | passes when |
//! |---|---|
//! | `answers_score_the_maximum` | the answers themselves earn the maximum |
//! | `sample_at_most_floor` | the sample submission earns at most the floor |
//! | `empty_at_most_floor` | a submission with no rows earns at most the floor |
//! | `constant_at_most_floor` | a constant prediction from the training targets (majority class, base rate, mean) earns at most the floor |
//! | `shuffled_answers_at_most_floor` | the answers, each moved to another row (rotated by half), earn at most the floor |
//! | `hostile_at_most_floor` | submissions that try to break the grader — NaN, infinite and huge values, text in number columns, repeated or unknown ids, a missing or an extra column — each earn at most the floor |
//! | `replay_is_identical` | grading the answers and the sample again gives bit-identical rewards |
//!
//! A failed check is a finding about the environment's thresholds or
//! leaderboard (a median a shuffle reaches, a scheme that pays a constant),
//! not an error: the report says which and by how much.

use crate::error::Result;
use crate::reward::{Reward, RewardInput};
use sandmle_core::{Column, Environment, GradeReport, Grader, SubmissionForm, Table, TaskSpec};
use serde::{Deserialize, Serialize};

/// One check of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RewardCheck {
    /// The check's name (see the module documentation).
    pub name: String,
    /// Whether it passed.
    pub passed: bool,
    /// The reward the probe earned (the highest, for several probes).
    pub reward: f64,
    /// The bound it was held to.
    pub bound: f64,
    /// Which probe, and what it scored.
    pub detail: String,
}

/// What [`validate_rewards`] found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RewardReport {
    /// The reward scheme.
    pub scheme: String,
    /// The scheme's maximum on this environment.
    pub max: f64,
    /// Its floor: a valid submission that reaches nothing.
    pub floor: f64,
    /// Every check, in order.
    pub checks: Vec<RewardCheck>,
}

impl RewardReport {
    /// `true` when every check passed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }

    /// The names of the failed checks.
    pub fn failed(&self) -> Vec<String> {
        self.checks.iter().filter(|c| !c.passed).map(|c| c.name.clone()).collect()
    }
}

/// A short record of a report, for an index line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RewardSummary {
    /// The reward scheme.
    pub scheme: String,
    /// Whether every check passed.
    pub passed: bool,
    /// The failed checks.
    pub failed: Vec<String>,
}

impl From<&RewardReport> for RewardSummary {
    fn from(r: &RewardReport) -> Self {
        RewardSummary { scheme: r.scheme.clone(), passed: r.passed(), failed: r.failed() }
    }
}

/// The difficulty of `env` for stock baselines
/// ([`sandmle_core::Difficulty`]): what its provenance records
/// (`details.difficulty`), else measured from its leaderboard when that is
/// the stock baseline panel's (an environment the project generated or
/// shrank, or a seed imported with its panel), with its oracle
/// (`details.oracle`) or else its gold threshold as the ceiling and its
/// sample submission (a constant prediction) graded by `grader` as the
/// floor. `None` for a human leaderboard, or when nothing can be measured.
///
/// # Errors
/// The grader's faults.
pub fn difficulty_of(env: &Environment, grader: &dyn Grader) -> Result<Option<sandmle_core::Difficulty>> {
    use sandmle_core::{Ceiling, Difficulty};
    let details = &env.provenance.details;
    if let Some(recorded) = details.get("difficulty") {
        return Ok(serde_json::from_value(recorded.clone()).ok());
    }
    let stock = !env.provenance.has_real_leaderboard();
    let (Some(t), Some(best)) = (env.grading.thresholds, env.leaderboard.as_ref().and_then(|l| l.entries.first()))
    else {
        return Ok(None);
    };
    if !stock {
        return Ok(None);
    }
    let ceiling = match details.get("oracle").and_then(|o| o.get("score")).and_then(serde_json::Value::as_f64) {
        Some(oracle) => (Ceiling::Oracle, oracle),
        None => (Ceiling::Gold, t.gold),
    };
    let sample = grader.grade(&env.grading_task(), &env.sample_submission)?;
    Ok(sample.score.and_then(|c| Difficulty::measure(env.task().direction, ceiling, best.score, c)))
}

/// Tolerance of the bound comparisons (rewards are sums of a few products).
const EPS: f64 = 1e-9;

/// Runs every check on `env` with `grader` and `reward`.
///
/// # Errors
/// The grader's faults (a broken environment), and an environment without
/// thresholds.
pub fn validate_rewards(env: &Environment, grader: &dyn Grader, reward: &dyn Reward) -> Result<RewardReport> {
    let task = env.task();
    let thresholds = env.grading.require_thresholds()?;
    let gtask = env.grading_task();
    let direction = task.direction;
    let extreme = |best: bool| {
        let huge = if best == direction.is_lower_better() { -1e300 } else { 1e300 };
        GradeReport::scored(huge, direction, Some(thresholds), env.leaderboard.as_ref())
    };
    let earn =
        |report: &GradeReport| reward.reward(&RewardInput { format_rate: 1.0, grade: Some(report), thresholds }).value;
    let max = earn(&extreme(true));
    let floor = earn(&extreme(false));
    let grade = |t: &Table| grader.grade(&gtask, t);
    let answers = env.answers.clone();
    let answers_report = grade(&answers)?;
    let sample_report = grade(&env.sample_submission)?;
    let mut checks = Vec::new();
    let describe = |r: &GradeReport| match (r.valid_submission, r.score) {
        (true, Some(s)) => format!("score {s}"),
        _ => format!("invalid ({})", r.error.as_deref().unwrap_or("no score")),
    };
    let answers_reward = earn(&answers_report);
    checks.push(RewardCheck {
        name: "answers_score_the_maximum".into(),
        passed: (answers_reward - max).abs() <= EPS,
        reward: answers_reward,
        bound: max,
        detail: format!("the answers: {}", describe(&answers_report)),
    });
    let mut at_most_floor = |name: &str, probes: Vec<(String, Table)>| -> Result<()> {
        let mut worst: Option<(f64, String)> = None;
        for (label, table) in probes {
            let r = grade(&table)?;
            let v = earn(&r);
            if worst.as_ref().is_none_or(|(w, _)| v > *w) {
                worst = Some((v, format!("{label}: {}", describe(&r))));
            }
        }
        let (v, detail) = worst.unwrap_or((0.0, "no probe".into()));
        checks.push(RewardCheck { name: name.into(), passed: v <= floor + EPS, reward: v, bound: floor, detail });
        Ok(())
    };
    at_most_floor("sample_at_most_floor", vec![("the sample submission".into(), env.sample_submission.clone())])?;
    at_most_floor("empty_at_most_floor", vec![("no rows".into(), answers.take(&[])?)])?;
    at_most_floor("constant_at_most_floor", vec![("a constant from the training targets".into(), constant(env)?)])?;
    at_most_floor(
        "shuffled_answers_at_most_floor",
        vec![("the answers rotated by half".into(), rotated(&answers, task)?)],
    )?;
    at_most_floor("hostile_at_most_floor", hostile(&answers, task)?)?;
    let again = (earn(&grade(&answers)?), earn(&grade(&env.sample_submission)?));
    let first = (answers_reward, earn(&sample_report));
    checks.push(RewardCheck {
        name: "replay_is_identical".into(),
        passed: again.0.to_bits() == first.0.to_bits() && again.1.to_bits() == first.1.to_bits(),
        reward: again.0,
        bound: first.0,
        detail: "the answers and the sample graded twice".into(),
    });
    Ok(RewardReport { scheme: reward.name().to_owned(), max, floor, checks })
}

/// The answers' id column with `column` in place of every prediction
/// column.
fn with_predictions(answers: &Table, task: &TaskSpec, column: impl Fn(&str, &Column) -> Column) -> Result<Table> {
    let mut out = answers.select(&[task.id_column.as_str()])?;
    for name in &task.prediction_columns {
        out.push_column(name.clone(), column(name, answers.column(name)?))?;
    }
    Ok(out)
}

/// A constant prediction from the training targets alone.
fn constant(env: &Environment) -> Result<Table> {
    let task = env.task();
    let form = task.submission_form();
    let n = env.answers.n_rows();
    let target = task.target_columns.first().cloned().unwrap_or_default();
    let train = env.train.column(&target).ok();
    let numbers: Vec<f64> = train.and_then(Column::to_f64_lenient).unwrap_or_default();
    let mean = if numbers.is_empty() { 0.0 } else { numbers.iter().sum::<f64>() / numbers.len() as f64 };
    let labels = train.map(Column::label_texts).unwrap_or_default();
    let majority = {
        let mut counts: std::collections::BTreeMap<&String, usize> = std::collections::BTreeMap::new();
        for l in &labels {
            *counts.entry(l).or_default() += 1;
        }
        counts.into_iter().max_by_key(|(_, c)| *c).map(|(l, _)| l.clone()).unwrap_or_default()
    };
    with_predictions(&env.answers, task, |name, _| match form {
        SubmissionForm::Label | SubmissionForm::LabelList | SubmissionForm::LabelSet => {
            Column::text((0..n).map(|_| Some(majority.as_str())))
        }
        SubmissionForm::Value => Column::Numeric(vec![mean; n]),
        SubmissionForm::Probability => Column::Numeric(vec![mean.clamp(0.0, 1.0); n]),
        SubmissionForm::ClassProbabilities => {
            let share = labels.iter().filter(|l| l.as_str() == name).count() as f64 / labels.len().max(1) as f64;
            Column::Numeric(vec![share; n])
        }
        SubmissionForm::ColumnProbabilities => {
            let share = env
                .train
                .column(name)
                .ok()
                .and_then(Column::to_f64_lenient)
                .map_or(0.5, |v| v.iter().filter(|x| **x == 1.0).count() as f64 / v.len().max(1) as f64);
            Column::Numeric(vec![share; n])
        }
    })
}

/// The answers' predictions each moved `n / 2` rows down (wrapping).
fn rotated(answers: &Table, task: &TaskSpec) -> Result<Table> {
    let n = answers.n_rows();
    let order: Vec<usize> = (0..n).map(|i| (i + n / 2) % n.max(1)).collect();
    let moved = answers.take(&order)?;
    with_predictions(answers, task, |name, _| moved.column(name).cloned().unwrap_or(Column::Numeric(Vec::new())))
}

/// Submissions that try to break the grader.
fn hostile(answers: &Table, task: &TaskSpec) -> Result<Vec<(String, Table)>> {
    let n = answers.n_rows();
    let numbers = |v: f64| move |_: &str, _: &Column| Column::Numeric(vec![v; n]);
    let mut out = vec![
        ("NaN predictions".to_owned(), with_predictions(answers, task, numbers(f64::NAN))?),
        ("infinite predictions".to_owned(), with_predictions(answers, task, numbers(f64::INFINITY))?),
        ("huge predictions".to_owned(), with_predictions(answers, task, numbers(1e308))?),
        (
            "text predictions".to_owned(),
            with_predictions(answers, task, |_, _| Column::text((0..n).map(|_| Some("';DROP TABLE x;--"))))?,
        ),
    ];
    if n >= 2 {
        // The first id twice, the last one gone.
        let mut order: Vec<usize> = (0..n - 1).collect();
        order.insert(0, 0);
        out.push(("a repeated id".into(), answers.take(&order)?));
        let mut unknown = answers.clone();
        let ids: Vec<String> = (0..n).map(|i| format!("not-an-id-{i}")).collect();
        unknown.set_column(&task.id_column, Column::text(ids.iter().map(|s| Some(s.as_str()))))?;
        out.push(("unknown ids".into(), unknown));
    }
    if let Some(first) = task.prediction_columns.first() {
        out.push(("a missing column".into(), answers.without(&[first.as_str()])));
    }
    let mut extra = answers.clone();
    extra.push_column("extra_column", Column::Numeric(vec![0.0; n]))?;
    out.push(("an extra column".into(), extra));
    Ok(out)
}
