//! `fidelity`: per seed, how closely micro environments rank the baseline
//! panel as the full task does, what drives it, and whether synthesized
//! environments are as learnable as the seed (`sandmle::fidelity`).

use crate::Globals;
use crate::output::{Failure, Kind, print_json, say};
use clap::Args;
use sandmle::fidelity::{FidelityConfig, SeedFidelity, Spread, seed_fidelity};
use sandmle::program_fidelity::{ProgramFidelity, program_fidelity};
use sandmle_core::Environment;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct FidelityArgs {
    /// A seed environment (a directory or a seed's name; repeatable).
    /// Default: every bundled seed.
    #[arg(long = "seed-env")]
    seed_env: Vec<PathBuf>,
    /// Micro environments per measurement (5 to 50).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(5..=50))]
    shrinks: u64,
    /// Synthesized environments asked of the Foundry per seed (0 to 50; 0
    /// skips the learnability ratio).
    #[arg(long, default_value_t = 4, value_parser = crate::caps::usize_in(0..=50))]
    synthesized: usize,
    /// The test split of the larger-test run, as a multiple of the default (2 to 20).
    #[arg(long = "test-factor", default_value_t = 4, value_parser = crate::caps::usize_in(2..=20))]
    test_factor: usize,
    /// Skip the training-rows and test-rows sensitivity runs.
    #[arg(long = "no-sensitivity")]
    no_sensitivity: bool,
    /// Also rank these solution programs (a folder of `.py` files, as
    /// `examples/solutions/`), run in the sandbox on the full task and on
    /// each micro environment: tau among real models.
    #[arg(long)]
    programs: Option<PathBuf>,
    /// Wall-clock limit of one solution program's run in seconds (1 to 3,600).
    #[arg(long = "program-timeout", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=3600))]
    program_timeout: u64,
    /// Run the solution programs WITHOUT a sandbox: trusted code only.
    #[arg(long)]
    unsandboxed: bool,
    #[command(flatten)]
    python: crate::sandbox::PythonArgs,
}

fn spread(s: &Option<Spread>) -> String {
    s.as_ref().map_or("-".into(), |s| format!("{:.2} ({:.2}–{:.2})", s.median, s.min, s.max))
}

fn median(s: &Option<Spread>) -> String {
    s.as_ref().map_or("-".into(), |s| format!("{:.2}", s.median))
}

fn row(f: &SeedFidelity, programs: Option<&ProgramFidelity>) -> String {
    let sens: Vec<String> =
        f.sensitivity.iter().skip(1).map(|s| format!("{}/{}: {}", s.train_rows, s.test_rows, median(&s.tau))).collect();
    let base = f.sensitivity.first().map_or("-".into(), |s| format!("{}/{}", s.train_rows, s.test_rows));
    format!(
        "{:<14} {:<20} {:>18} {:>18} {:>7} {:>8}  {:<40} {:>6} {:>18}",
        f.seed,
        f.metric,
        spread(&f.tau),
        spread(&f.separable_tau),
        format!("{}/{}", f.separable_pairs.0, f.separable_pairs.1),
        base,
        sens.join("  "),
        f.learnability_ratio.map_or("-".into(), |r| format!("{r:.2}")),
        programs.map_or("-".into(), |p| spread(&p.tau)),
    )
}

pub fn fidelity(a: &FidelityArgs, g: &Globals) -> Result<ExitCode, Failure> {
    let dirs: Vec<PathBuf> = if a.seed_env.is_empty() {
        let dir = sandmle::find_seeds(g.seeds.as_deref()).map_err(|e| Failure::usage(e.to_string()))?;
        sandmle::seed_names_in(&dir)
            .map_err(|e| Failure::usage(e.to_string()))?
            .into_iter()
            .map(|n| dir.join(n))
            .collect()
    } else {
        a.seed_env.iter().map(|p| crate::seeds::resolve(p, g)).collect::<Result<_, _>>()?
    };
    let config = FidelityConfig {
        shrinks: a.shrinks,
        synthesized: a.synthesized,
        sensitivity: !a.no_sensitivity,
        test_factor: a.test_factor,
    };
    let c = sandmle::Composition::new();
    if !g.json {
        say!(
            "{:<14} {:<20} {:>18} {:>18} {:>7} {:>8}  {:<40} {:>6} {:>18}",
            "seed",
            "metric",
            "tau med (min–max)",
            "separable tau",
            "pairs",
            "trn/tst",
            "tau at train/test rows",
            "learn",
            "programs' tau"
        );
    }
    let solutions = match &a.programs {
        Some(dir) => {
            sandmle::program_fidelity::solution_programs(dir).map_err(|e| Failure::usage(e.to_string()))?;
            let timeout = std::time::Duration::from_secs(a.program_timeout);
            Some((dir, sandmle::code_executor(a.unsandboxed, a.python.settings()), timeout))
        }
        None => None,
    };
    let mut all = Vec::new();
    let mut rows = Vec::new();
    for dir in &dirs {
        let env = Environment::read(dir).map_err(|e| Failure::broken(format!("{}: {e}", dir.display())))?;
        let name = dir.file_name().map_or_else(|| env.task().id.clone(), |n| n.to_string_lossy().into_owned());
        let system = |e: sandmle_agents::Error| Failure::new(Kind::System, format!("{}: {e}", dir.display()));
        let f = seed_fidelity(&c, &name, &env, &config).map_err(system)?;
        let p = match &solutions {
            Some((programs, executor, timeout)) => {
                Some(program_fidelity(&c, &env, programs, executor.as_ref(), a.shrinks, *timeout).map_err(system)?)
            }
            None => None,
        };
        if !g.json {
            say!("{}", row(&f, p.as_ref()));
        }
        let mut value = serde_json::to_value(&f).map_err(|e| Failure::new(Kind::System, e.to_string()))?;
        if let (Some(p), Some(fields)) = (&p, value.as_object_mut()) {
            fields.insert("programs".into(), serde_json::json!(p));
        }
        rows.push(value);
        all.push((f, p));
    }
    let taus: Vec<f64> = all.iter().filter_map(|(f, _)| f.tau.as_ref().map(|t| t.median)).collect();
    let overall = Spread::of(&taus);
    let program_taus: Vec<f64> =
        all.iter().filter_map(|(_, p)| p.as_ref().and_then(|p| p.tau.as_ref()).map(|t| t.median)).collect();
    let programs_overall = Spread::of(&program_taus);
    if g.json {
        print_json(&serde_json::json!({
            "seeds": rows, "median_tau": overall, "median_program_tau": programs_overall, "shrinks": a.shrinks,
        }));
    } else {
        say!("median over seeds of the per-seed median tau: {}", median(&overall));
        if solutions.is_some() {
            say!("the same among the solution programs: {}", median(&programs_overall));
        }
    }
    Ok(ExitCode::SUCCESS)
}
