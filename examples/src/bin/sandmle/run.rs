//! `run` and `panel`.

use crate::Globals;
use crate::output::{Failure, Kind, print_json, say, to_json};
use clap::Args;
use sandmle_core::{Environment, ExecStatus, Execution, Executor, Grader, Solution, Timings, WriteOptions};
use sandmle_exec::{Panel, PipelineExecutor};
use sandmle_metrics::StandardGrader;
use serde::Serialize;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The longest `--timeout`: a week.
const MAX_TIMEOUT_S: f64 = 7.0 * 24.0 * 3600.0;

#[derive(Args)]
pub struct RunArgs {
    /// The environment directory, or a seed's name.
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
    #[command(flatten)]
    python: crate::sandbox::PythonArgs,
    /// Wall-clock limit of the run in seconds (pipelines and programs).
    #[arg(long, default_value_t = 300.0)]
    timeout: f64,
    /// Where to write the submission CSV.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// What `run` reports of the execution.
#[derive(Serialize)]
struct RunSummary<'a> {
    executor: &'a str,
    #[serde(flatten)]
    status: &'a ExecStatus,
    isolation: &'a str,
    stdout_tail: &'a str,
    stderr_tail: &'a str,
}

fn timings_json(t: &Timings) -> serde_json::Value {
    serde_json::Value::Object(t.phases.iter().map(|(p, us)| (format!("{p}_us"), json!(us))).collect())
}

fn timeout(seconds: f64) -> Result<Duration, Failure> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|t| !t.is_zero() && t.as_secs_f64() <= MAX_TIMEOUT_S)
        .ok_or_else(|| Failure::usage("--timeout must be a positive number of seconds, at most a week"))
}

/// Reads a pipeline spec file as JSON: a file that is not JSON is a bad
/// argument; JSON that is not a valid spec is the solution's fault, found
/// by the executor.
fn read_spec(path: &std::path::Path) -> Result<serde_json::Value, Failure> {
    let bad = |why: String| Failure::usage(format!("{}: {why}", path.display()));
    let text = sandmle_core::read_regular_string(path, sandmle_core::MAX_JSON_BYTES).map_err(|e| bad(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| bad(e.to_string()))
}

pub fn run(a: &RunArgs, g: &Globals) -> Result<ExitCode, Failure> {
    let limit = timeout(a.timeout)?;
    let start = Instant::now();
    let dir = crate::seeds::resolve(&a.env, g)?;
    let env = Environment::read(&dir)?;
    let read_env = start.elapsed();
    // A broken environment is found before the agent's solution runs.
    let broken = |e: sandmle_core::Error| Failure::broken(format!("{}: {e}", dir.display()));
    StandardGrader.check(&env.grading_task()).map_err(broken)?;
    env.grading.require_thresholds().map_err(broken)?;
    let execution: Execution = match (&a.pipeline, &a.command, &a.code_dir) {
        (Some(path), None, _) => {
            let solution = Solution::Pipeline(read_spec(path)?);
            PipelineExecutor::with_time_limit(limit)
                .execute(&solution, &env.public_view())
                .map_err(|e| Failure::new(Kind::System, e.to_string()))?
        }
        (None, Some(command), Some(code_dir)) => {
            crate::sandbox::run_program(&env, command, code_dir, limit, a.unsandboxed, &a.python)?
        }
        _ => return Err(Failure::usage("give --pipeline SPEC.json or --command CMD --code-dir DIR")),
    };
    let executor = if a.pipeline.is_some() { "pipeline" } else { "process" };
    let summary = to_json(&RunSummary {
        executor,
        status: &execution.status,
        isolation: &execution.isolation,
        stdout_tail: &execution.stdout_tail,
        stderr_tail: &execution.stderr_tail,
    })?;
    let mut timings = execution.timings.clone();
    timings.phases.insert(0, ("read_env".into(), u64::try_from(read_env.as_micros()).unwrap_or(u64::MAX)));
    let submission = match (&execution.status, &execution.submission) {
        (ExecStatus::Completed, Some(sub)) => sub,
        (status, _) => {
            let why = match status {
                ExecStatus::Rejected { reason } | ExecStatus::Failed { reason } => reason.clone(),
                other => format!("{other:?}"),
            };
            let last_lines: Vec<&str> = execution.stderr_tail.lines().rev().take(5).collect();
            if !last_lines.is_empty() && !g.json {
                eprintln!("{}", last_lines.into_iter().rev().collect::<Vec<_>>().join("\n"));
            }
            let output = json!({"run": summary, "timings": timings_json(&timings), "grade": null});
            return Err(Failure::solution(format!("no submission: {why}")).with_output(output));
        }
    };
    if let Some(out) = &a.out {
        let start = Instant::now();
        sandmle_core::csv::write_csv(submission, out)?;
        timings.push("write", start.elapsed());
    }
    let start = Instant::now();
    let report = StandardGrader.grade(&env.grading_task(), submission).map_err(broken)?;
    timings.push("grade", start.elapsed());
    let output = json!({
        "run": summary,
        "timings": timings_json(&timings),
        "grade": to_json(&report.view())?,
    });
    if !report.valid_submission {
        return Err(Failure::invalid(report.error.clone().unwrap_or_default()).with_output(output));
    }
    if g.json {
        print_json(&output);
    } else {
        say!("{executor}: {}", execution.isolation);
        for (phase, us) in &timings.phases {
            say!("{phase:<12} {:>10.3} ms", *us as f64 / 1000.0);
        }
        say!("score        {}", report.score.map_or("-".into(), |s| s.to_string()));
        say!("medal        {}", report.medal().map_or("none", |m| m.as_str()));
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct PanelArgs {
    /// The environment directory, or a seed's name.
    #[arg(long)]
    env: PathBuf,
    /// Fit on at most this many training rows (a deterministic subsample).
    #[arg(long = "max-train-rows", default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(2..=crate::caps::MAX_PANEL_ROWS))]
    max_train_rows: u64,
    /// Write the leaderboard and its thresholds into the environment.
    #[arg(long)]
    write: bool,
}

pub fn panel(a: &PanelArgs, g: &Globals) -> Result<ExitCode, Failure> {
    let dir = crate::seeds::resolve(&a.env, g)?;
    let mut env = Environment::read(&dir)?;
    StandardGrader.check(&env.grading_task()).map_err(|e| Failure::broken(format!("{}: {e}", dir.display())))?;
    let panel = Panel { max_train_rows: Some(usize::try_from(a.max_train_rows).unwrap_or(usize::MAX)) };
    let report = panel.run(&env, &StandardGrader)?;
    if report.leaderboard.entries.is_empty() {
        return Err(Failure::broken("no baseline produced a valid submission"));
    }
    // Under the oracle's ladder when the environment knows its oracle, as
    // calibration placed them.
    let direction = env.task().direction;
    let thresholds = sandmle_core::reference_thresholds(
        &report.leaderboard,
        env.grading.oracle.as_ref(),
        direction,
        &StandardGrader,
    )?;
    if g.json {
        print_json(&json!({"panel": to_json(&report)?, "thresholds": thresholds}));
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
        env.write(&dir, &opts)?;
    }
    Ok(ExitCode::SUCCESS)
}
