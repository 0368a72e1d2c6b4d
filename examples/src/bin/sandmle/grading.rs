//! `evaluate`, `score` and `thresholds`.

use crate::Globals;
use crate::output::{Failure, fmt_opt, print_json, print_typed, say, to_json};
use clap::Args;
use sandmle_core::csv::{ReadOptions, read_csv};
use sandmle_core::{
    ColumnType, GradeReport, Grader, GradingBundle, GradingSpec, GradingTask, Leaderboard, MetricSpec, SubmissionRules,
    TaskKind, TaskSpec,
};
use sandmle_metrics::{StandardGrader, StandardMetric};
use serde::Serialize;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct EvaluateArgs {
    /// The environment directory (holding `prepared/`), or a seed's name.
    #[arg(long)]
    env: PathBuf,
    /// The submission CSV.
    #[arg(long = "submission_path", alias = "submission-path")]
    submission_path: PathBuf,
    /// Add the reward of this scheme on the submission (`released_dense`,
    /// `paper_dense`, `sparse`, `human_rank`): `reward` and
    /// `reward_components` in the output. There is no transcript, so the
    /// format term is 0.
    #[arg(long)]
    reward: Option<String>,
    /// With --reward: also write `{"reward", <component>: value, "score",
    /// "human_rank"}` (flat numbers, Harbor's `reward.json`) to this file,
    /// whatever the verdict.
    #[arg(long = "reward-json", requires = "reward")]
    reward_json: Option<PathBuf>,
    /// With --reward: also write the reward alone (Harbor's `reward.txt`).
    #[arg(long = "reward-txt", requires = "reward")]
    reward_txt: Option<PathBuf>,
}

/// The reward of `scheme` on `report`, into the output and the files asked
/// for.
fn add_reward(
    a: &EvaluateArgs,
    scheme: &str,
    bundle: &GradingBundle,
    report: &GradeReport,
    output: &mut serde_json::Value,
) -> Result<(), Failure> {
    use sandmle_agents::reward::{REWARD_SCHEMES, RewardInput, reward_by_name};
    let reward = reward_by_name(scheme)
        .ok_or_else(|| Failure::usage(format!("--reward: one of {}", REWARD_SCHEMES.join(", "))))?;
    let thresholds = bundle.spec.require_thresholds().map_err(|e| Failure::broken(e.to_string()))?;
    let value = reward.reward(&RewardInput { format_rate: 0.0, grade: Some(report), thresholds });
    output["reward"] = json!(value.value);
    output["reward_scheme"] = json!(scheme);
    output["reward_components"] = json!(value.components);
    let mut flat = serde_json::Map::new();
    flat.insert("reward".into(), json!(value.value));
    for (name, c) in &value.components {
        flat.insert(name.clone(), json!(c.value));
    }
    flat.insert("valid_submission".into(), json!(if report.valid_submission { 1.0 } else { 0.0 }));
    if let Some(s) = report.score {
        flat.insert("score".into(), json!(s));
    }
    if let Some(h) = report.human_rank {
        flat.insert("human_rank".into(), json!(h));
    }
    let io = |p: &PathBuf, e: sandmle_core::Error| {
        Failure::new(crate::output::Kind::System, format!("{}: {e}", p.display()))
    };
    if let Some(p) = &a.reward_json {
        sandmle_core::write_atomic(p, serde_json::Value::Object(flat).to_string().as_bytes()).map_err(|e| io(p, e))?;
    }
    if let Some(p) = &a.reward_txt {
        sandmle_core::write_atomic(p, format!("{}\n", value.value).as_bytes()).map_err(|e| io(p, e))?;
    }
    Ok(())
}

/// Grades a submission file, the environment checked first: a broken
/// environment is an exit-2 failure naming its file, never a verdict on
/// the submission.
pub fn evaluate(a: &EvaluateArgs, g: &Globals) -> Result<ExitCode, Failure> {
    if let Some(scheme) = &a.reward
        && sandmle_agents::reward::reward_by_name(scheme).is_none()
    {
        let all = sandmle_agents::reward::REWARD_SCHEMES.join(", ");
        return Err(Failure::usage(format!("--reward: one of {all}, not `{}`", sandmle_core::bounded(scheme))));
    }
    small_pages();
    let dir = crate::seeds::resolve(&a.env, g)?;
    let bundle = GradingBundle::read(&dir)?;
    let task = bundle.grading_task();
    // Indexed once: the check finds repeated ids with it, grading places
    // the submission's ids with it.
    let index = task.index_answers();
    let task = task.with_answer_index(index.as_ref());
    let broken = |e: sandmle_core::Error| Failure::broken(format!("{}: {e}", dir.display()));
    StandardGrader.check(&task).map_err(broken)?;
    bundle.spec.require_thresholds().map_err(broken)?;
    let report = StandardGrader.grade_file(&task, &a.submission_path).map_err(broken)?;
    let mut output = to_json(&report.view())?;
    if let Some(scheme) = &a.reward {
        add_reward(a, scheme, &bundle, &report, &mut output)?;
    }
    // The process ends here: the answers and their index (a million rows)
    // are left to the operating system rather than dropped cell by cell and
    // unmapped.
    std::mem::forget(index);
    std::mem::forget(bundle);
    if !report.valid_submission {
        let why = report.error.clone().unwrap_or_else(|| "invalid".into());
        return Err(Failure::invalid(why).with_output(output));
    }
    if g.json {
        print_json(&output);
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
    Ok(ExitCode::SUCCESS)
}

/// Turns transparent huge pages off for this process (Linux; a failure
/// leaves them as they were), for `evaluate` and `score`. Grading touches
/// each page of its memory about once, and a fault on a huge page zeroes
/// 2 MB: when the kernel has no zeroed huge page at hand, that made
/// `evaluate` of a million rows take 0.25 to 0.33 s where 4 KB pages take
/// 0.23 to 0.24 s (alternated with a pandas evaluator, as
/// `compare_sklearn.py` runs it, 2-core AMD EPYC VM). Huge pages win only
/// on a quiet machine (0.20 s there, but some runs 0.33 s).
fn small_pages() {
    #[cfg(target_os = "linux")]
    let _ = nix::sys::prctl::set_thp_disable(true);
}

#[derive(Args)]
pub struct ScoreArgs {
    /// Canonical metric name (see the metric catalogue).
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
}

#[derive(Serialize)]
struct ScoreOutput<'a> {
    metric: &'a str,
    #[serde(flatten)]
    report: &'a GradeReport,
}

pub fn score(a: &ScoreArgs, g: &Globals) -> Result<ExitCode, Failure> {
    small_pages();
    let mut metric_spec = MetricSpec::named(&a.metric);
    if let Some(k) = a.k {
        metric_spec.params.insert("k".into(), json!(k));
    }
    let metric = StandardMetric::from_spec(&metric_spec)?;
    let mut options = ReadOptions::with_id(a.id_column.clone());
    if metric.info().input.label_text() {
        // Every column but the id is a label list: read them as text.
        let header = read_csv(&a.answers, &options).map_err(|e| Failure::usage(e.to_string()))?;
        for c in header.names().iter().filter(|n| **n != a.id_column) {
            options.types.insert(c.clone(), ColumnType::Text);
        }
    }
    let answers = read_csv(&a.answers, &options).map_err(|e| Failure::usage(e.to_string()))?;
    let columns: Vec<String> = answers.names().iter().filter(|n| **n != a.id_column).cloned().collect();
    if !answers.has_column(&a.id_column) || columns.is_empty() {
        return Err(Failure::usage(format!(
            "{}: the answers need the id column `{}` and at least one target column",
            a.answers.display(),
            a.id_column
        )));
    }
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
            images: None,
            train_only_columns: Vec::new(),
            group_column: None,
        })
    };
    let task = GradingTask::new(&spec, &answers, None);
    let answers_fault = |e: sandmle_core::Error| Failure::usage(format!("{}: {e}", a.answers.display()));
    StandardGrader.check(&task).map_err(answers_fault)?;
    let report = StandardGrader.grade_file(&task, &a.submission).map_err(answers_fault)?;
    let output = ScoreOutput { metric: &a.metric, report: &report };
    if !report.valid_submission {
        let why = report.error.clone().unwrap_or_else(|| "invalid".into());
        return Err(Failure::invalid(why).with_output(to_json(&output)?));
    }
    if g.json {
        print_typed(&output)?;
    } else {
        say!("{} = {}", a.metric, fmt_opt(report.score_raw));
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct ThresholdsArgs {
    /// The leaderboard CSV (a `score` column, best first).
    #[arg(long)]
    leaderboard: PathBuf,
}

pub fn thresholds(a: &ThresholdsArgs, g: &Globals) -> Result<ExitCode, Failure> {
    let lb = Leaderboard::read(&a.leaderboard).map_err(|e| Failure::usage(e.to_string()))?;
    let t = StandardGrader.thresholds(&lb).map_err(|e| Failure::usage(e.to_string()))?;
    if g.json {
        print_typed(&t)?;
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
