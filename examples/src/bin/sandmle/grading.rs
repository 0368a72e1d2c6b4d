//! `evaluate`, `score` and `thresholds`.

use crate::output::{Failure, fmt_opt, print_json, say};
use clap::Args;
use sandmle_core::csv::{ReadOptions, read_csv};
use sandmle_core::{
    ColumnType, GradeReport, Grader, GradingBundle, GradingSpec, GradingTask, Leaderboard, MetricSpec, SubmissionRules,
    TaskKind, TaskSpec,
};
use sandmle_metrics::{Input, StandardGrader, StandardMetric};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct EvaluateArgs {
    /// The environment directory (holding `prepared/`).
    #[arg(long)]
    env: PathBuf,
    /// The submission CSV.
    #[arg(long = "submission_path", alias = "submission-path")]
    submission_path: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// The report as JSON with the keys of SandMLE's evaluator contract.
pub fn report_json(r: &GradeReport) -> serde_json::Value {
    json!({
        "score": r.score,
        "score_rounded": r.score_rounded,
        "is_lower_better": r.is_lower_better,
        "gold_threshold": r.gold_threshold,
        "silver_threshold": r.silver_threshold,
        "bronze_threshold": r.bronze_threshold,
        "median_threshold": r.median_threshold,
        "valid_submission": r.valid_submission,
        "medal": r.medal().map(|m| m.as_str()),
        "gold_medal": r.gold_medal,
        "silver_medal": r.silver_medal,
        "bronze_medal": r.bronze_medal,
        "any_medal": r.any_medal,
        "above_median": r.above_median,
        "human_rank": r.human_rank,
        "error": r.error,
    })
}

pub fn evaluate(a: &EvaluateArgs) -> Result<ExitCode, Failure> {
    let bundle = GradingBundle::read(&a.env)?;
    let task = bundle.grading_task();
    StandardMetric::from_spec(&task.spec.task.metric)?;
    let report = match StandardGrader.read_submission(&task, &a.submission_path) {
        Ok(sub) => {
            StandardGrader.grade_checked(&task, &sub).map_err(|e| Failure::Usage(format!("broken environment: {e}")))?
        }
        Err(e) => GradeReport::invalid(task.spec.task.direction, task.spec.thresholds.as_ref(), e.to_string()),
    };
    if a.json {
        print_json(&report_json(&report));
    } else {
        say!("score            {}", fmt_opt(report.score));
        say!("medal            {}", report.medal().map_or("none", |m| m.as_str()));
        say!(
            "thresholds       gold {}  silver {}  bronze {}  median {}  ({} is better)",
            fmt_opt(report.gold_threshold),
            fmt_opt(report.silver_threshold),
            fmt_opt(report.bronze_threshold),
            fmt_opt(report.median_threshold),
            if report.is_lower_better { "lower" } else { "higher" }
        );
        say!("above median     {}", report.above_median);
        say!("human rank       {}", fmt_opt(report.human_rank));
    }
    match (report.valid_submission, report.error) {
        (false, Some(e)) => Err(Failure::InvalidSubmission(e)),
        (false, None) => Err(Failure::InvalidSubmission("unknown reason".into())),
        _ => Ok(ExitCode::SUCCESS),
    }
}

#[derive(Args)]
pub struct ScoreArgs {
    /// Canonical metric name (see the sandmle-metrics catalogue).
    #[arg(long)]
    metric: String,
    /// `k` for `map_at_k` (1 to 1,000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=crate::caps::MAX_K))]
    k: Option<u64>,
    /// The answers CSV: id column and the true target column(s).
    #[arg(long)]
    answers: PathBuf,
    /// The submission CSV: id column and the same column(s).
    #[arg(long)]
    submission: PathBuf,
    /// The id column.
    #[arg(long = "id-column", default_value = "id")]
    id_column: String,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn score(a: &ScoreArgs) -> Result<ExitCode, Failure> {
    let mut metric_spec = MetricSpec::named(&a.metric);
    if let Some(k) = a.k {
        metric_spec.params.insert("k".into(), json!(k));
    }
    let metric = StandardMetric::from_spec(&metric_spec)?;
    let mut options = ReadOptions::with_id(a.id_column.clone());
    let header = read_csv(&a.answers, &options)?;
    let columns: Vec<String> = header.names().iter().filter(|n| **n != a.id_column).cloned().collect();
    if !header.has_column(&a.id_column) || columns.is_empty() {
        return Err(Failure::Usage(format!(
            "{}: the answers need the id column `{}` and at least one target column",
            a.answers.display(),
            a.id_column
        )));
    }
    let answers = if metric.info().input == Input::LabelLists {
        for c in &columns {
            options.types.insert(c.clone(), ColumnType::Text);
        }
        read_csv(&a.answers, &options)?
    } else {
        header
    };
    let spec = GradingSpec {
        submission: SubmissionRules { allow_extra_columns: true, ..SubmissionRules::default() },
        ..GradingSpec::new(TaskSpec {
            id: "score".into(),
            modality: sandmle_core::Modality::Tabular,
            kind: TaskKind::Regression,
            id_column: a.id_column.clone(),
            target_columns: columns.clone(),
            prediction_columns: columns,
            metric: metric_spec,
            direction: metric.info().direction,
        })
    };
    let task = GradingTask { spec: &spec, answers: &answers, leaderboard: None };
    let outcome =
        StandardGrader.read_submission(&task, &a.submission).and_then(|sub| StandardGrader.score(&task, &sub));
    let score = outcome.map_err(|e| {
        if e.is_environment_fault() {
            Failure::Usage(format!("{}: {e}", a.answers.display()))
        } else {
            Failure::InvalidSubmission(e.to_string())
        }
    })?;
    let shown = (!score.is_nan()).then_some(score);
    if a.json {
        print_json(&json!({
            "metric": a.metric,
            "score": shown,
            "is_lower_better": metric.info().direction.is_lower_better(),
        }));
    } else {
        say!("{} = {}", a.metric, fmt_opt(shown));
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct ThresholdsArgs {
    /// The leaderboard CSV (a `score` column, best first).
    #[arg(long)]
    leaderboard: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn thresholds(a: &ThresholdsArgs) -> Result<ExitCode, Failure> {
    let lb = Leaderboard::read(&a.leaderboard)?;
    let t = StandardGrader.thresholds(&lb)?;
    if a.json {
        print_json(&serde_json::to_value(t).unwrap_or_default());
    } else {
        say!(
            "{} teams, {} is better: gold {}  silver {}  bronze {}  median {}",
            t.num_teams,
            if t.is_lower_better { "lower" } else { "higher" },
            t.gold,
            t.silver,
            t.bronze,
            t.median
        );
    }
    Ok(ExitCode::SUCCESS)
}
