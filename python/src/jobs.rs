//! `evaluate`, `generate`, `reindex` and `seeds`: each composes the crates
//! as the matching `sandmle` subcommand does, so a call gives its result.

use crate::convert::{serialize_to_py, to_py};
use crate::errors::{Failure, Kind, bad, system};
use pyo3::prelude::*;
use sandmle_agents::foundry::{FoundryConfig, SeedTask, Shard};
use sandmle_core::{Environment, GradeReport, Grader, GradingBundle};
use sandmle_metrics::StandardGrader;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The evaluator's JSON of a report: the keys `sandmle evaluate --json`
/// prints (SandMLE's `evaluator.py` contract, MLE-bench's report, `medal`).
pub fn evaluator_json(report: &GradeReport) -> Value {
    serde_json::to_value(report.view()).unwrap_or_else(|_| json!({}))
}

/// Runs `f` in a pool of `threads` threads (all cores when `None`).
fn in_pool<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    match threads {
        None => Ok(f()),
        Some(0) => Err(bad("threads: at least 1")),
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| system(format!("thread pool: {e}")))?;
            Ok(pool.install(f))
        }
    }
}

/// Grades `submission_path` against the environment at `env_dir` as
/// `sandmle evaluate` does: the environment is checked first (a broken one
/// raises `BrokenEnvironment`, never a verdict); an invalid submission
/// raises `InvalidSubmission` whose `report` is the evaluator's dict.
/// Returns the evaluator's dict (`score`, `is_lower_better`, the four
/// thresholds, `valid_submission`, `medal`, `above_median`, `human_rank`,
/// `score_raw`, ...).
#[pyfunction]
pub fn evaluate<'py>(py: Python<'py>, env_dir: PathBuf, submission_path: PathBuf) -> PyResult<Bound<'py, PyAny>> {
    let output = py.detach(|| -> Result<Value, Failure> {
        let broken = |e: sandmle_core::Error| Failure::from(e).with_context(&env_dir);
        let bundle = GradingBundle::read(&env_dir).map_err(|e| Failure::from(e).with_context(&env_dir))?;
        let task = bundle.grading_task();
        StandardGrader.check(&task).map_err(broken)?;
        bundle.spec.require_thresholds().map_err(broken)?;
        let report = StandardGrader.grade_file(&task, &submission_path).map_err(broken)?;
        let output = evaluator_json(&report);
        if !report.valid_submission {
            let why = report.error.clone().unwrap_or_else(|| "invalid".into());
            return Err(Failure::new(Kind::InvalidSubmission, why).with_output(output));
        }
        Ok(output)
    })?;
    to_py(py, &output)
}

/// The seeds folder: `seeds_dir`, else `examples/seeds` of the checkout
/// holding the working directory (as the command line finds it).
fn seeds_folder(seeds_dir: Option<&Path>) -> PyResult<PathBuf> {
    sandmle::find_seeds(seeds_dir).map_err(|e| bad(e.to_string()))
}

/// The bundled seeds: `{"seeds": folder, "names": [...]}` (as `sandmle
/// seeds --json`).
#[pyfunction]
#[pyo3(signature = (seeds_dir=None))]
pub fn seeds<'py>(py: Python<'py>, seeds_dir: Option<PathBuf>) -> PyResult<Bound<'py, PyAny>> {
    let dir = seeds_folder(seeds_dir.as_deref())?;
    let names = sandmle::seed_names_in(&dir).map_err(Failure::from)?;
    to_py(py, &json!({"seeds": dir, "names": names}))
}

fn parse_shard(shard: Option<&Bound<'_, PyAny>>) -> PyResult<Shard> {
    let Some(s) = shard else { return Ok(Shard::ALL) };
    let text = if let Ok((i, n)) = s.extract::<(usize, usize)>() { format!("{i}/{n}") } else { s.extract::<String>()? };
    Shard::parse(&text).map_err(|e| Failure::from(e).into())
}

/// The Foundry over the seeds, as `sandmle generate`: `per_seed`
/// candidates of every seed in `seeds_dir` (or only `seed_envs`, names or
/// directories), the run's `seed`, `retries`, this run's `shard` (`"I/N"`
/// or `(I, N)`), into `out`. Returns the run's report (`yield`,
/// `processed`, `resumed`, `seconds`, `throughput`). `threads` caps the
/// threads (default: every core). `target_band` (1 to 5) keeps only
/// candidates of that difficulty band, as `--target-band` does. `mix`
/// (`"paper"` or `"image=3,tabular=1"`) asks each slot for a modality
/// drawn from it, as `--mix` does.
#[pyfunction]
#[pyo3(signature = (out, per_seed=10, seed=0, seeds_dir=None, seed_envs=None, retries=2, shard=None, threads=None, target_band=None, mix=None))]
#[allow(clippy::too_many_arguments)]
pub fn generate<'py>(
    py: Python<'py>,
    out: PathBuf,
    per_seed: usize,
    seed: u64,
    seeds_dir: Option<PathBuf>,
    seed_envs: Option<Vec<String>>,
    retries: u32,
    shard: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
    target_band: Option<u8>,
    mix: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let mix = mix.as_deref().map(sandmle_core::Mix::parse).transpose().map_err(|e| bad(e.to_string()))?;
    if !(1..=10_000).contains(&per_seed) {
        return Err(bad("per_seed: 1 to 10,000"));
    }
    if retries > 10 {
        return Err(bad("retries: 0 to 10"));
    }
    if target_band.is_some_and(|b| !(1..=5).contains(&b)) {
        return Err(bad("target_band: 1 to 5"));
    }
    let shard = parse_shard(shard)?;
    let report = py.detach(|| -> PyResult<Value> {
        let dirs: Vec<PathBuf> = match seed_envs {
            None => {
                let dir = seeds_folder(seeds_dir.as_deref())?;
                sandmle::seed_names_in(&dir).map_err(Failure::from)?.into_iter().map(|n| dir.join(n)).collect()
            }
            Some(names) => names
                .iter()
                .map(|n| {
                    let p = PathBuf::from(n);
                    if p.exists() { Ok(p) } else { Ok(seeds_folder(seeds_dir.as_deref())?.join(n)) }
                })
                .collect::<PyResult<_>>()?,
        };
        let seeds = dirs
            .into_iter()
            .map(|dir| {
                let name = dir.file_name().map_or_else(|| "seed".into(), |n| n.to_string_lossy().into_owned());
                let env = Environment::read(&dir).map_err(|e| Failure::from(e).with_context(&dir))?;
                Ok(SeedTask { name, env })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let config = FoundryConfig { per_seed, run_seed: seed, retries, shard, target_band, mix, ..Default::default() };
        let foundry = sandmle::Composition::new().foundry(config);
        let report = in_pool(threads, || foundry.run(&seeds, &out, &|_, _| {}))?.map_err(Failure::from)?;
        serde_json::to_value(&report).map_err(|e| system(format!("JSON: {e}")))
    })?;
    to_py(py, &report)
}

/// Rebuilds `yield.json` and `index.jsonl` in `out` from its slot records
/// (after shards ran into one folder): `sandmle generate --reindex`.
/// Returns the yield.
#[pyfunction]
pub fn reindex<'py>(py: Python<'py>, out: PathBuf) -> PyResult<Bound<'py, PyAny>> {
    let y = py.detach(|| sandmle_agents::foundry::reindex(&out)).map_err(Failure::from)?;
    serialize_to_py(py, &y)
}
