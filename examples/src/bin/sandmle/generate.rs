//! `shrink` and `verify`.

use crate::Globals;
use crate::output::{Failure, print_json, say};
use clap::Args;
use sandmle::{Composition, env_summary};
use sandmle_core::{Environment, GateResult, Grader, WriteOptions};
use sandmle_metrics::StandardGrader;
use sandmle_synth::{StratifiedShrinker, kendall_tau};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ShrinkArgs {
    /// The seed environment (a directory, or a seed's name).
    #[arg(long = "seed-env")]
    seed_env: PathBuf,
    /// The seed of the random choices.
    #[arg(long)]
    seed: u64,
    /// Training rows of the micro task (50 to 200).
    #[arg(long = "train-rows", default_value_t = 200, value_parser = crate::caps::usize_in(crate::caps::TRAIN_ROWS))]
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
pub struct VerifyArgs {
    /// The environment (a directory, or a seed's name).
    #[arg(long)]
    env: PathBuf,
    /// Also validate the reward: the answers earn the maximum; the sample,
    /// an empty, a constant, a shuffled and hostile submissions at most the
    /// floor; a replay is identical (OpenEnv RFC 008's checks).
    #[arg(long)]
    rewards: bool,
    /// The reward scheme --rewards checks (default `released_dense`).
    #[arg(long, default_value = "released_dense", requires = "rewards")]
    reward: String,
}

/// Verifies an environment: exit 0 when every gate passes, 1 when one
/// fails, 2 when the environment cannot be read or graded at all.
pub fn verify(a: &VerifyArgs, g: &Globals) -> Result<ExitCode, Failure> {
    let dir = crate::seeds::resolve(&a.env, g)?;
    let env = Environment::read(&dir)?;
    StandardGrader.check(&env.grading_task()).map_err(|e| Failure::broken(format!("{}: {e}", dir.display())))?;
    let scheme = a
        .rewards
        .then(|| {
            sandmle_agents::reward::reward_by_name(&a.reward).ok_or_else(|| {
                let all = sandmle_agents::reward::REWARD_SCHEMES.join(", ");
                Failure::usage(format!("--reward: one of {all}, not `{}`", sandmle_core::bounded(&a.reward)))
            })
        })
        .transpose()?;
    let gates = Composition::new().verifier.verify(&env)?;
    let rewards = match &scheme {
        Some(r) => Some(
            sandmle_agents::reward_check::validate_rewards(&env, &StandardGrader, r.as_ref())
                .map_err(|e| Failure::broken(format!("{}: {e}", dir.display())))?,
        ),
        None => None,
    };
    let realism = sandmle_synth::realism_checks(&env);
    let gates_ok = gates.iter().all(|g| g.passed);
    let all = gates_ok && rewards.as_ref().is_none_or(|r| r.passed());
    if g.json {
        let mut out = json!({"passed": all, "gates": gates, "realism": realism});
        if let Some(r) = &rewards {
            out["rewards"] = json!(r);
        }
        print_json(&out);
    } else {
        for g in &gates {
            say!("{} {:<22} {}", if g.passed { "pass" } else { "FAIL" }, g.gate, g.detail);
        }
        // Reported, not judged: a real competition's table is what it is.
        for r in &realism {
            let verdict = if r.passed { "ok  " } else { "note" };
            say!("{verdict} realism {:<14} {:.3} (bound {:.2}) {}", r.check, r.value, r.bound, r.detail);
        }
        if let Some(r) = &rewards {
            say!("rewards ({}): maximum {:.4}, floor {:.4}", r.scheme, r.max, r.floor);
            for c in &r.checks {
                let verdict = if c.passed { "pass" } else { "FAIL" };
                say!("{verdict} {:<32} {:.4} (bound {:.4}) {}", c.name, c.reward, c.bound, c.detail);
            }
        }
    }
    if all {
        Ok(ExitCode::SUCCESS)
    } else {
        let failed_rewards = rewards.as_ref().map_or(0, |r| r.failed().len());
        eprintln!(
            "sandmle: {} of {} gates failed, {failed_rewards} reward check(s) failed",
            gates.len() - gates_passed(&gates),
            gates.len()
        );
        Ok(ExitCode::from(1))
    }
}
