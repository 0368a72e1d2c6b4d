//! Fidelity among real models: does a micro environment rank agent-style
//! solution programs the way the full task does?
//!
//! The baseline panel's tau ([`crate::fidelity`]) is measured over stock
//! pipelines, many of which a micro task separates trivially from strong
//! ones. Here the contestants are programs an agent would write (pandas and
//! scikit-learn scripts: a forest, gradient boosting, tuned gradient
//! boosting, a tuned linear model, kNN, a stack; `examples/solutions/` holds
//! the committed set). Each runs in the process executor's sandbox on the
//! seed's full task and on each of its micro environments (the default
//! shrinker, shrink seeds `0..shrinks`), with a `task.json` beside it that
//! says what the description says (id, target and prediction columns, task
//! kind, metric, modality, image folder). Its submission is graded; a
//! program that fails on a micro environment is left out of that
//! environment's ranking, and one that fails on the full task out of every
//! ranking. Tau is Kendall's tau-b between each micro ranking and the full
//! one ([`sandmle_synth::kendall_tau`]).

use crate::Composition;
use crate::fidelity::Spread;
use rayon::prelude::*;
use sandmle_agents::{Error, Result};
use sandmle_core::{Environment, ExecStatus, Executor, Leaderboard, LeaderboardEntry, Program, Solution};
use sandmle_synth::{StratifiedShrinker, kendall_tau};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One program's scores on a seed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProgramScores {
    /// The program's file name without `.py`.
    pub program: String,
    /// Its score on the full task (`None`: it failed).
    pub full: Option<f64>,
    /// Its score on each micro environment, in the order of
    /// [`ProgramFidelity::shrink_seeds`].
    pub micro: Vec<Option<f64>>,
}

/// A seed's fidelity among the solution programs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProgramFidelity {
    /// Every program's scores.
    pub programs: Vec<ProgramScores>,
    /// Tau between each micro ranking and the full one.
    pub tau: Option<Spread>,
    /// The shrink seeds of the micro environments (a shrink that fails
    /// is left out).
    pub shrink_seeds: Vec<u64>,
    /// Runs that failed, of all runs.
    pub failed_runs: (usize, usize),
    /// Why each failed run failed (`program on environment: reason`), in
    /// run order.
    pub failures: Vec<String>,
}

/// The solution programs of `dir`: its `.py` files other than the shared
/// `common.py`, by name.
///
/// # Errors
/// [`Error::Io`] when the folder cannot be read; [`Error::BadSetting`]
/// when it holds fewer than two programs.
pub fn solution_programs(dir: &Path) -> Result<Vec<String>> {
    let io = |source| Error::Io { path: dir.to_path_buf(), source };
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".py")).map(str::to_owned))
        .filter(|n| n != "common")
        .collect();
    names.sort();
    if names.len() < 2 {
        return Err(Error::BadSetting {
            setting: "programs",
            reason: format!("{}: fewer than two solution programs to rank", dir.display()),
        });
    }
    Ok(names)
}

/// What the description tells an agent, for the programs to read.
fn task_json(env: &Environment) -> serde_json::Value {
    let t = env.task();
    serde_json::json!({
        "id_column": t.id_column,
        "target_columns": t.target_columns,
        "prediction_columns": t.prediction_columns,
        "kind": t.kind,
        "metric": t.metric.name,
        "modality": t.modality,
        "images": t.images.as_ref().map(|i| serde_json::json!({"dir": i.dir, "suffix": i.suffix, "column": i.key_column})),
    })
}

/// Runs `program` (a file of `dir`) on `env` and grades its submission:
/// `Ok(Err(why))` when the program failed or its submission is invalid.
fn score(
    c: &Composition,
    executor: &dyn Executor,
    dir: &Path,
    program: &str,
    env: &Environment,
    timeout: Duration,
) -> Result<std::result::Result<f64, String>> {
    let code = tempfile::Builder::new()
        .prefix("sandmle-solution-")
        .tempdir()
        .map_err(|source| Error::Io { path: std::env::temp_dir(), source })?;
    let copy =
        |from: PathBuf, to: PathBuf| std::fs::copy(&from, &to).map_err(|source| Error::Io { path: from, source });
    for entry in std::fs::read_dir(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?.flatten() {
        if entry.path().extension().is_some_and(|e| e == "py") {
            copy(entry.path(), code.path().join(entry.file_name()))?;
        }
    }
    let task = code.path().join("task.json");
    std::fs::write(&task, task_json(env).to_string()).map_err(|source| Error::Io { path: task, source })?;
    let solution = Solution::Program(Program {
        command: vec!["python3".into(), format!("{program}.py")],
        code_dir: code.path().to_path_buf(),
        timeout,
    });
    let run = executor.execute(&solution, &env.public_view())?;
    let submission = match (run.status, run.submission) {
        (ExecStatus::Completed, Some(submission)) => submission,
        (status, _) => {
            let last = run.stderr_tail.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default();
            return Ok(Err(sandmle_core::bounded(&format!("{status:?}: {last}"))));
        }
    };
    let grade = c.grader.grade(&env.grading_task(), &submission)?;
    Ok(match (grade.valid_submission, grade.score) {
        (true, Some(score)) => Ok(score),
        _ => Err(sandmle_core::bounded(&format!("an invalid submission: {}", grade.error.unwrap_or_default()))),
    })
}

fn board(programs: &[String], scores: &[Option<f64>]) -> Leaderboard {
    let entries = programs
        .iter()
        .zip(scores)
        .filter_map(|(p, s)| s.map(|score| LeaderboardEntry { name: p.clone(), score }))
        .collect();
    Leaderboard { entries }
}

/// Measures `seed_env` over the programs of `dir` (see the module docs),
/// `shrinks` micro environments, each run limited to `timeout`.
///
/// # Errors
/// The executor's and grader's system faults; a folder that cannot be read.
pub fn program_fidelity(
    c: &Composition,
    seed_env: &Environment,
    dir: &Path,
    executor: &dyn Executor,
    shrinks: u64,
    timeout: Duration,
) -> Result<ProgramFidelity> {
    let programs = solution_programs(dir)?;
    let shrinker = StratifiedShrinker::default();
    let mut envs = vec![seed_env.clone()];
    let mut shrink_seeds = Vec::new();
    for s in 0..shrinks {
        if let Ok(env) = shrinker.shrink_env(seed_env, s) {
            envs.push(env);
            shrink_seeds.push(s);
        }
    }
    let jobs: Vec<(usize, usize)> = (0..envs.len()).flat_map(|e| (0..programs.len()).map(move |p| (e, p))).collect();
    let runs: Vec<std::result::Result<f64, String>> = jobs
        .par_iter()
        .map(|&(e, p)| score(c, executor, dir, &programs[p], &envs[e], timeout))
        .collect::<Result<_>>()?;
    let failures: Vec<String> = jobs
        .iter()
        .zip(&runs)
        .filter_map(|(&(e, p), r)| {
            let at = if e == 0 { "the full task".to_owned() } else { format!("shrink {}", shrink_seeds[e - 1]) };
            r.as_ref().err().map(|why| format!("{} on {at}: {why}", programs[p]))
        })
        .collect();
    let scores: Vec<Option<f64>> = runs.iter().map(|r| r.as_ref().ok().copied()).collect();
    let at = |e: usize| &scores[e * programs.len()..(e + 1) * programs.len()];
    let full = board(&programs, at(0));
    let taus: Vec<f64> = (1..envs.len()).filter_map(|e| kendall_tau(&full, &board(&programs, at(e)))).collect();
    let failed = scores.iter().filter(|s| s.is_none()).count();
    Ok(ProgramFidelity {
        programs: programs
            .iter()
            .enumerate()
            .map(|(p, name)| ProgramScores {
                program: name.clone(),
                full: at(0)[p],
                micro: (1..envs.len()).map(|e| at(e)[p]).collect(),
            })
            .collect(),
        tau: Spread::of(&taus),
        shrink_seeds,
        failed_runs: (failed, scores.len()),
        failures,
    })
}
