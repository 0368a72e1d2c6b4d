//! `run` and `panel`.

use crate::grading::report_json;
use crate::output::{Failure, print_json, say};
use clap::Args;
use sandmle_core::{Environment, Grader, Timings, WriteOptions};
use sandmle_exec::{Panel, PipelineExecutor, PipelineSpec};
use sandmle_metrics::StandardGrader;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args)]
pub struct RunArgs {
    /// The environment directory.
    #[arg(long)]
    env: PathBuf,
    /// A pipeline spec (JSON) to run in-process.
    #[arg(long, conflicts_with = "command")]
    pipeline: Option<PathBuf>,
    /// A command to run in a sandboxed workspace (for example "python3 main.py").
    #[arg(long, requires = "code_dir")]
    command: Option<String>,
    /// The directory of the program's files (with --command).
    #[arg(long = "code-dir")]
    code_dir: Option<PathBuf>,
    /// Run the program WITHOUT a sandbox, as this user (with --command):
    /// only for trusted programs; warns on every run. Without this flag a
    /// machine where the sandbox cannot be created refuses the run (exit 2).
    #[arg(long)]
    unsandboxed: bool,
    /// Wall-clock limit in seconds (with --command).
    #[arg(long, default_value_t = 300.0)]
    timeout: f64,
    /// Where to write the submission CSV.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn timings_json(t: &Timings) -> serde_json::Value {
    serde_json::Value::Object(t.phases.iter().map(|(p, us)| (format!("{p}_us"), json!(us))).collect())
}

pub fn run(a: &RunArgs) -> Result<ExitCode, Failure> {
    let start = Instant::now();
    let env = Environment::read(&a.env)?;
    let read_env = start.elapsed();
    let (submission, mut timings, extra) = match (&a.pipeline, &a.command) {
        (Some(path), None) => {
            let text = sandmle_core::read_regular_string(path, sandmle_core::MAX_JSON_BYTES)?;
            let value: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
            let spec = PipelineSpec::from_json(&value).map_err(|e| Failure::Usage(e.to_string()))?;
            let run = PipelineExecutor.run(&spec, &env.public_view()).map_err(|e| Failure::Usage(e.to_string()))?;
            (run.submission, run.timings, json!({"executor": "pipeline", "spec": spec.name}))
        }
        (None, Some(command)) => {
            crate::sandbox::run_program(&env, command, a.code_dir.as_deref(), a.timeout, a.unsandboxed)?
        }
        _ => return Err(Failure::Usage("give --pipeline SPEC.json or --command CMD --code-dir DIR".into())),
    };
    timings.phases.insert(0, ("read_env".into(), read_env.as_micros() as u64));
    if let Some(out) = &a.out {
        let start = Instant::now();
        sandmle_core::csv::write_csv(&submission, out)?;
        timings.push("write", start.elapsed());
    }
    let start = Instant::now();
    let report = StandardGrader.grade(&env.grading_task(), &submission);
    timings.push("grade", start.elapsed());
    if a.json {
        print_json(&json!({"run": extra, "timings": timings_json(&timings), "grade": report_json(&report)}));
    } else {
        say!("{}", extra);
        for (phase, us) in &timings.phases {
            say!("{phase:<12} {:>10.3} ms", *us as f64 / 1000.0);
        }
        say!("score        {}", report.score.map_or("-".into(), |s| s.to_string()));
        say!("medal        {}", report.medal().map_or("none", |m| m.as_str()));
    }
    if report.valid_submission {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(Failure::InvalidSubmission(report.error.unwrap_or_default()))
    }
}

#[derive(Args)]
pub struct PanelArgs {
    /// The environment directory.
    #[arg(long)]
    env: PathBuf,
    /// Fit on at most this many training rows (a deterministic subsample).
    #[arg(long = "max-train-rows", default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(2..=crate::caps::MAX_PANEL_ROWS))]
    max_train_rows: u64,
    /// Write the leaderboard and its thresholds into the environment.
    #[arg(long)]
    write: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn panel(a: &PanelArgs) -> Result<ExitCode, Failure> {
    let mut env = Environment::read(&a.env)?;
    let panel = Panel { max_train_rows: Some(usize::try_from(a.max_train_rows).unwrap_or(usize::MAX)) };
    let report = panel.run(&env, &StandardGrader);
    if report.leaderboard.entries.is_empty() {
        return Err(Failure::Usage("no baseline produced a valid submission".into()));
    }
    let thresholds = StandardGrader.thresholds(&report.leaderboard)?;
    if a.json {
        print_json(&json!({"panel": report, "thresholds": thresholds}));
    } else {
        say!("panel {} on {} of {} training rows", report.version, report.train_rows_used, report.train_rows);
        for (i, e) in report.leaderboard.entries.iter().enumerate() {
            say!("{:>3}  {:<22} {:.6}", i + 1, e.name, e.score);
        }
        for e in report.entries.iter().filter(|e| e.score.is_none()) {
            say!("  -  {:<22} {}", e.name, e.error.as_deref().unwrap_or("no score"));
        }
        say!(
            "thresholds: gold {}  silver {}  bronze {}  median {}",
            thresholds.gold,
            thresholds.silver,
            thresholds.bronze,
            thresholds.median
        );
    }
    if a.write {
        let gz = env.grading.files.keys().any(|f| f.ends_with(".gz"));
        env.leaderboard = Some(report.leaderboard);
        env.grading.thresholds = Some(thresholds);
        env.provenance
            .details
            .insert("panel".into(), json!({"version": report.version, "train_rows_used": report.train_rows_used}));
        let opts = WriteOptions { overwrite: true, gzip_over_bytes: if gz { Some(1_000_000) } else { None } };
        env.write(&a.env, &opts)?;
    }
    Ok(ExitCode::SUCCESS)
}
