//! `shrink`, `synthesize` and `verify`.

use crate::Globals;
use crate::output::{Failure, print_json, say, to_json};
use clap::Args;
use sandmle::{Composition, env_summary};
use sandmle_core::{Environment, GateResult, Grader, WriteOptions};
use sandmle_metrics::StandardGrader;
use sandmle_synth::{StratifiedShrinker, extract_dna, funnel, kendall_tau};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// A `usize` argument within `range` (a usage error, exit 2, beyond it).
fn usize_in(range: std::ops::RangeInclusive<u64>) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(range)
}

#[derive(Args)]
pub struct ShrinkArgs {
    /// The seed environment (a directory, or a seed's name).
    #[arg(long = "seed-env")]
    seed_env: PathBuf,
    /// The seed of the random choices.
    #[arg(long)]
    seed: u64,
    /// Training rows of the micro task (50 to 200).
    #[arg(long = "train-rows", default_value_t = 200, value_parser = usize_in(crate::caps::TRAIN_ROWS))]
    train_rows: usize,
    /// Where to write the environment (a directory `<out>/<env-id>`).
    #[arg(long)]
    out: PathBuf,
}

fn gates_passed(gates: &[GateResult]) -> usize {
    gates.iter().filter(|g| g.passed).count()
}

pub fn shrink(a: &ShrinkArgs, g: &Globals) -> Result<ExitCode, Failure> {
    let seed_env = Environment::read(crate::seeds::resolve(&a.seed_env, g)?)?;
    let c = Composition::new();
    let shrinker = StratifiedShrinker { train_rows: a.train_rows, ..StratifiedShrinker::default() };
    let mut env = shrinker.shrink_env(&seed_env, a.seed).map_err(|e| Failure::usage(e.to_string()))?;
    let gates = c.calibrate(&mut env)?;
    let tau = match (&seed_env.leaderboard, &env.leaderboard) {
        (Some(full), Some(micro)) => kendall_tau(full, micro),
        _ => None,
    };
    let dir = env.write_into(&a.out, &WriteOptions { overwrite: true, ..WriteOptions::default() })?;
    let passed = gates_passed(&gates);
    if g.json {
        print_json(&json!({
            "env": dir,
            "summary": env_summary(&env)?,
            "gates": gates,
            "fidelity_kendall_tau": tau,
        }));
    } else {
        say!("{}", dir.display());
        say!("{} train / {} test rows; gates passed {passed}/{}", env.train.n_rows(), env.test.n_rows(), gates.len());
        for g in gates.iter().filter(|g| !g.passed) {
            say!("  failed {}: {}", g.gate, g.detail);
        }
        match tau {
            Some(t) => say!("fidelity: Kendall's tau {t:.3} between the panel's ranking here and on the full seed"),
            None => say!("fidelity: the seed has no leaderboard to compare with"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct SynthesizeArgs {
    /// The seed environment whose DNA the candidates take (a directory, or a seed's name).
    #[arg(long = "seed-env")]
    seed_env: PathBuf,
    /// Candidates to synthesize (1 to 10,000).
    #[arg(long, value_parser = usize_in(1..=crate::caps::MAX_CANDIDATES))]
    count: usize,
    /// The seed of the run.
    #[arg(long)]
    seed: u64,
    /// Where to write the kept environments and `yield.json`.
    #[arg(long)]
    out: PathBuf,
}

pub fn synthesize(a: &SynthesizeArgs, g: &Globals) -> Result<ExitCode, Failure> {
    let seed_env = Environment::read(crate::seeds::resolve(&a.seed_env, g)?)?;
    let dna = extract_dna(&seed_env).map_err(|e| Failure::broken(e.to_string()))?;
    let c = Composition::new();
    let start = std::time::Instant::now();
    let candidates = c.generator().run(&dna, &seed_env.task().id, a.count, a.seed);
    let seconds = start.elapsed().as_secs_f64();
    std::fs::create_dir_all(&a.out).map_err(|e| Failure::usage(format!("{}: {e}", a.out.display())))?;
    let mut kept = Vec::new();
    for cand in candidates.iter().filter(|c| c.kept()) {
        if let Some(env) = &cand.env {
            let dir = env.write_into(&a.out, &WriteOptions { overwrite: true, ..WriteOptions::default() })?;
            kept.push(dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        }
    }
    let f = funnel(&candidates);
    let yield_json = json!({
        "seed_task": seed_env.task().id,
        "seed": a.seed,
        "generator": {"synth": sandmle_synth::SYNTH_VERSION, "panel": c.panel_version()},
        "funnel": to_json(&f)?,
        "kept": kept,
    });
    let bytes = serde_json::to_vec_pretty(&yield_json).map_err(|e| Failure::usage(e.to_string()))?;
    sandmle_core::write_atomic(&a.out.join("yield.json"), &[bytes, b"\n".to_vec()].concat())?;
    if g.json {
        print_json(&json!({"yield": yield_json, "seconds": seconds}));
    } else {
        say!(
            "{} candidates, {} synthesized, {} kept ({:.1} s, {:.0} per minute)",
            f.candidates,
            f.synthesized,
            f.kept,
            seconds,
            f.candidates as f64 / seconds * 60.0
        );
        for (gate, n) in &f.gates {
            say!("  through {gate:<22} {n}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct VerifyArgs {
    /// The environment (a directory, or a seed's name).
    #[arg(long)]
    env: PathBuf,
}

/// Verifies an environment: exit 0 when every gate passes, 1 when one
/// fails, 2 when the environment cannot be read or graded at all.
pub fn verify(a: &VerifyArgs, g: &Globals) -> Result<ExitCode, Failure> {
    let dir = crate::seeds::resolve(&a.env, g)?;
    let env = Environment::read(&dir)?;
    StandardGrader.check(&env.grading_task()).map_err(|e| Failure::broken(format!("{}: {e}", dir.display())))?;
    let gates = Composition::new().verifier.verify(&env)?;
    let all = gates.iter().all(|g| g.passed);
    if g.json {
        print_json(&json!({"passed": all, "gates": gates}));
    } else {
        for g in &gates {
            say!("{} {:<22} {}", if g.passed { "pass" } else { "FAIL" }, g.gate, g.detail);
        }
    }
    if all {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("sandmle: {} of {} gates failed", gates.len() - gates_passed(&gates), gates.len());
        Ok(ExitCode::from(1))
    }
}
