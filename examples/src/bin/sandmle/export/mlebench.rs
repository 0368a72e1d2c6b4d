//! `--format mlebench`: each environment as an MLE-bench competition, so
//! MLE-bench's own `grade-sample` and `grade` commands grade it.
//!
//! ```text
//! OUT/
//!   competitions/<task>/    # copy into mlebench/competitions/ (the registry)
//!     config.yaml  description.md  grade.py  prepare.py  leaderboard.csv
//!     checksums.yaml  sandmle_task.json
//!   data/<task>/prepared/   # pass OUT/data as MLE-bench's --data-dir
//!     public/   description.md  train.csv  test.csv  sample_submission.csv
//!     private/  answers.csv
//! ```
//!
//! - `grade.py` validates a submission as `sandmle evaluate` does and
//!   scores it with scikit-learn's function for the metric (the table is
//!   in the README); an invalid submission raises MLE-bench's
//!   `InvalidSubmissionError`, so its report says `valid_submission:
//!   false`.
//! - `leaderboard.csv` is the environment's own when MLE-bench's medal
//!   rule over it gives the environment's thresholds (every panel-calibrated
//!   and imported environment). Otherwise it is ten rows built so the rule
//!   gives exactly those thresholds (`human_rank` then differs from
//!   `sandmle evaluate`'s).
//! - `prepare.py` refuses to run: the data are already prepared.
//! - `sandmle_task.json` is the task spec, so `sandmle import
//!   --competition OUT/data/<task> --task …/sandmle_task.json --leaderboard
//!   …/leaderboard.csv` rebuilds an environment that grades identically.
//! - Gzip-stored tables are written decompressed (MLE-bench reads plain
//!   `.csv`), and `checksums.yaml` holds MD5s, as MLE-bench's do.

use super::{Source, copy_tree, plain_table, write};
use crate::output::{Failure, Kind};
use md5::{Digest, Md5};
use sandmle_core::{Environment, Grader, Leaderboard, LeaderboardEntry, Thresholds};
use sandmle_metrics::StandardGrader;
use serde_json::json;
use std::path::Path;

const GRADE_TEMPLATE: &str = include_str!("mlebench_grade.py");

const PREPARE: &str = r#""""Written by `sandmle export --format mlebench`: the data are already prepared."""


def prepare(raw, public, private):
    raise RuntimeError("this competition was exported by sandmle with its data prepared; nothing to prepare")
"#;

/// A YAML scalar: JSON's double-quoted strings are valid YAML.
fn yaml(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_owned() }
}

/// Ten scores, best first, over which MLE-bench's rule (fewer than 100
/// teams: gold at position 1, silver 2, bronze 4, the median of all) gives
/// `t`; the last rows are worse than the median so the order shows the
/// direction.
fn leaderboard_for(t: &Thresholds) -> Leaderboard {
    let worse = if t.is_lower_better { 1.0 } else { -1.0 };
    let step = (t.gold - t.median).abs().max(1.0);
    let tail = t.median + worse * step;
    let scores = [t.gold, t.silver, t.bronze, t.bronze, t.median, t.median, tail, tail, tail, tail];
    let entries = scores
        .iter()
        .enumerate()
        .map(|(i, &score)| LeaderboardEntry { name: format!("threshold-{i}"), score })
        .collect();
    Leaderboard { entries }
}

fn leaderboard_csv(lb: &Leaderboard) -> String {
    let mut out = String::from("teamName,score\n");
    for e in &lb.entries {
        out.push_str(&format!("{},{}\n", csv_field(&e.name), e.score));
    }
    out
}

/// The leaderboard to ship: the environment's own if it gives its
/// thresholds, else one built to.
fn leaderboard(env: &Environment, t: &Thresholds) -> Result<Leaderboard, Failure> {
    if let Some(lb) = &env.leaderboard
        && StandardGrader.thresholds(lb).is_ok_and(|derived| &derived == t)
    {
        return Ok(lb.clone());
    }
    let built = leaderboard_for(t);
    let derived = StandardGrader.thresholds(&built).map_err(|e| Failure::new(Kind::System, e.to_string()))?;
    let same = derived.gold == t.gold
        && derived.silver == t.silver
        && derived.bronze == t.bronze
        && derived.median == t.median
        && derived.is_lower_better == t.is_lower_better;
    if !same {
        return Err(Failure::broken(format!(
            "{}: no leaderboard gives its thresholds under MLE-bench's rule (are they ordered?)",
            env.task().id
        )));
    }
    Ok(built)
}

fn md5_hex(bytes: &[u8]) -> String {
    Md5::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn title(env: &Environment, name: &str) -> String {
    env.description
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or(name)
        .to_owned()
}

/// Writes the MLE-bench layout of `sources` into `out`; answers the
/// summary (`tasks`, `skipped`).
pub fn write_all(sources: &[Source], out: &Path) -> Result<serde_json::Value, Failure> {
    let mut tasks = Vec::new();
    for Source { dir, name } in sources {
        let broken = |e: sandmle_core::Error| Failure::broken(format!("{}: {e}", dir.display()));
        let env = Environment::read(dir).map_err(broken)?;
        StandardGrader.check(&env.grading_task()).map_err(broken)?;
        let thresholds = *env.grading.require_thresholds().map_err(broken)?;
        let registry = out.join("competitions").join(name);
        let prepared = out.join("data").join(name).join("prepared");
        let mut public_sums = Vec::new();
        for f in ["train.csv", "test.csv", "sample_submission.csv"] {
            let bytes = plain_table(dir, &format!("prepared/public/{f}"))?;
            public_sums.push((f, md5_hex(&bytes)));
            write(&prepared.join("public").join(f), bytes)?;
        }
        write(&prepared.join("public/description.md"), &env.description)?;
        let answers = plain_table(dir, "prepared/private/answers.csv")?;
        let answers_sum = md5_hex(&answers);
        write(&prepared.join("private/answers.csv"), answers)?;
        // Files beside the tables (an image task's folders) go as they are.
        let public = dir.join("prepared/public");
        let listing = |e: std::io::Error| Failure::new(Kind::System, format!("{}: {e}", public.display()));
        for entry in std::fs::read_dir(&public).map_err(listing)? {
            let entry = entry.map_err(listing)?;
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                copy_tree(&entry.path(), &prepared.join("public").join(entry.file_name()))?;
            }
        }

        let task = env.task();
        let spec = json!({
            "id_column": task.id_column, "prediction_columns": task.prediction_columns,
            "metric": task.metric.name, "params": task.metric.params,
            "allow_extra_columns": env.grading.submission.allow_extra_columns,
            "probability_sum_tolerance": env.grading.submission.probability_sum_tolerance,
            "empty_labels_are_wrong": env.grading.submission.empty_labels_are_wrong,
        });
        let spec_literal =
            serde_json::to_string(&spec.to_string()).map_err(|e| Failure::new(Kind::System, e.to_string()))?;
        write(&registry.join("grade.py"), GRADE_TEMPLATE.replace("__SPEC__", &spec_literal))?;
        write(&registry.join("prepare.py"), PREPARE)?;
        write(&registry.join("description.md"), &env.description)?;
        write(&registry.join("leaderboard.csv"), leaderboard_csv(&leaderboard(&env, &thresholds)?))?;
        let task_json = serde_json::to_string_pretty(task).map_err(|e| Failure::new(Kind::System, e.to_string()))?;
        write(&registry.join("sandmle_task.json"), task_json + "\n")?;
        let mut checksums = format!("private:\n  answers.csv: {answers_sum}\npublic:\n");
        for (f, sum) in &public_sums {
            checksums.push_str(&format!("  {f}: {sum}\n"));
        }
        write(&registry.join("checksums.yaml"), checksums)?;
        let module = format!("mlebench.competitions.{name}");
        let config = format!(
            "id: {id}\nname: {title}\ncompetition_type: simple\nawards_medals: true\nprizes: null\n\
             description: {description}\n\ndataset:\n  answers: {answers}\n  sample_submission: {sample}\n\n\
             grader:\n  name: {metric}\n  grade_fn: {grade_fn}\n\npreparer: {preparer}\n",
            id = yaml(name),
            title = yaml(&title(&env, name)),
            description = yaml(&format!("mlebench/competitions/{name}/description.md")),
            answers = yaml(&format!("{name}/prepared/private/answers.csv")),
            sample = yaml(&format!("{name}/prepared/public/sample_submission.csv")),
            metric = yaml(&task.metric.name),
            grade_fn = yaml(&format!("{module}.grade:grade")),
            preparer = yaml(&format!("{module}.prepare:prepare")),
        );
        write(&registry.join("config.yaml"), config)?;
        tasks.push(name.clone());
    }
    Ok(json!({"tasks": tasks, "skipped": []}))
}
