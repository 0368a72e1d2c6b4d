//! Quickstart: a real seed task through the environment format.
//!
//! Loads the bundled `wine` seed, writes it as an environment under
//! `target/sandmle/quickstart/`, reads it back (checking every file's
//! sha256), grades the sample submission and prints a short summary.
//!
//! Run with `cargo run --release --example quickstart`.

use sandmle_core::{Environment, Grader, WriteOptions};
use sandmle_examples::load_seed;
use sandmle_metrics::StandardGrader;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/sandmle/quickstart");
    let seed = load_seed("wine")?;
    let dir = seed.write_into(&out, &WriteOptions { overwrite: true, ..WriteOptions::default() })?;
    let env = Environment::read(&dir)?;
    let report = StandardGrader.grade(&env.grading_task(), &env.sample_submission);
    let task = env.task();
    println!("environment   {}", dir.display());
    println!("task          {} ({:?}, {:?})", task.id, task.kind, task.modality);
    println!("train / test  {} / {} rows, {} columns", env.train.n_rows(), env.test.n_rows(), env.train.n_cols());
    println!("metric        {} ({:?})", task.metric.name, task.direction);
    println!("files         {} verified by sha256", env.grading.files.len() + 1);
    println!("sample score  {}", report.score.map_or("-".into(), |s| format!("{s:.5}")));
    Ok(())
}
