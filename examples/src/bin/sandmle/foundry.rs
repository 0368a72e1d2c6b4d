//! `generate`: the Foundry over a folder of seed environments.

use crate::Globals;
use crate::output::{Failure, print_typed, say};
use clap::Args;
use sandmle::Composition;
use sandmle_agents::foundry::{FoundryConfig, SeedTask, Shard, reindex};
use sandmle_core::Environment;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct GenerateArgs {
    /// Only these seeds (names in the seeds folder, or directories);
    /// repeatable. Default: every environment of the seeds folder.
    #[arg(long = "seed-env")]
    seed_env: Vec<PathBuf>,
    /// Candidates per seed (1 to 10,000).
    #[arg(long = "per-seed", default_value_t = 10, value_parser = crate::caps::usize_in(1..=crate::caps::MAX_CANDIDATES))]
    per_seed: usize,
    /// The run's seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Retries of a failed candidate, each with a fresh seed (0 to 10).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=10))]
    retries: u32,
    /// Keep only candidates of this difficulty band (1, easiest for stock
    /// baselines, to 5); others are retried with fresh seeds (raise
    /// --retries for yield).
    #[arg(long = "target-band", value_parser = clap::value_parser!(u8).range(1..=5))]
    target_band: Option<u8>,
    /// Ask each candidate for a modality drawn from a mix: `paper` (the
    /// SandMLE paper's spread: image 49, tabular 25, text 10, multimodal
    /// 10, graph 4, audio 2) or `modality=weight` pairs
    /// (`image=3,tabular=1`). Default: each seed's own modality.
    #[arg(long)]
    mix: Option<String>,
    /// This run's slice of the candidates, `I/N` (for Slurm arrays and Ray
    /// jobs; N shards into one folder give the unsharded run's tree).
    #[arg(long)]
    shard: Option<String>,
    /// Only rebuild `yield.json` and `index.jsonl` from the slot records in
    /// `--out` (after copying shards' outputs together).
    #[arg(long)]
    reindex: bool,
    /// Where to write the kept environments, `yield.json` and `index.jsonl`.
    #[arg(long)]
    out: PathBuf,
    /// The roles: `builtin` (deterministic, no LLM) or `llm` (the LLM-backed
    /// roles over an OpenAI-compatible server: --base-url, --model).
    #[arg(long, default_value = "builtin")]
    roles: String,
    #[command(flatten)]
    llm: crate::llm::LlmArgs,
    /// With `--roles llm`, the ML Developer: `program` (it writes a Python
    /// program that simulates the data, run in the sandbox; image and audio
    /// plans fall back to `hardness`) or `hardness` (it sets the difficulty
    /// and mutation factors of the built-in synthesizer's data).
    #[arg(long = "llm-developer", default_value = "program")]
    llm_developer: String,
    /// Wall-clock limit of one generator program in seconds (1 to 3,600).
    #[arg(long = "program-timeout", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=3600))]
    program_timeout: u64,
    /// Run generator programs WITHOUT a sandbox: trusted models only.
    #[arg(long)]
    unsandboxed: bool,
    #[command(flatten)]
    python: crate::sandbox::PythonArgs,
}

fn seed_tasks(a: &GenerateArgs, g: &Globals) -> Result<Vec<SeedTask>, Failure> {
    let dirs: Vec<PathBuf> = if a.seed_env.is_empty() {
        let dir = sandmle::find_seeds(g.seeds.as_deref()).map_err(|e| Failure::usage(e.to_string()))?;
        sandmle::seed_names_in(&dir)?.into_iter().map(|n| dir.join(n)).collect()
    } else {
        a.seed_env.iter().map(|s| crate::seeds::resolve(s, g)).collect::<Result<_, _>>()?
    };
    dirs.into_iter()
        .map(|dir| {
            let name = dir.file_name().map_or_else(|| "seed".into(), |n| n.to_string_lossy().into_owned());
            let env = Environment::read(&dir).map_err(|e| Failure::from(e).with_context(&dir))?;
            Ok(SeedTask { name, env })
        })
        .collect()
}

pub fn generate(a: &GenerateArgs, g: &Globals) -> Result<ExitCode, Failure> {
    let agents = Failure::from;
    if a.reindex {
        let y = reindex(&a.out).map_err(agents)?;
        if g.json {
            print_typed(&y)?;
        } else {
            say!("{} candidates, {} kept", y.total.candidates, y.total.kept);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let shard = match &a.shard {
        Some(s) => Shard::parse(s).map_err(agents)?,
        None => Shard::ALL,
    };
    let mix = a.mix.as_deref().map(sandmle_core::Mix::parse).transpose().map_err(|e| Failure::usage(e.to_string()))?;
    let seeds = seed_tasks(a, g)?;
    let config = FoundryConfig {
        mix,
        per_seed: a.per_seed,
        run_seed: a.seed,
        retries: a.retries,
        shard,
        target_band: a.target_band,
        ..Default::default()
    };
    let c = Composition::new();
    let foundry = match a.roles.as_str() {
        "builtin" => c.foundry(config),
        "llm" => match a.llm_developer.as_str() {
            "hardness" => c.llm_foundry(config, a.llm.model()?),
            "program" => {
                if !a.unsandboxed && !sandmle_exec::bubblewrap_available() {
                    return Err(Failure::new(
                        crate::output::Kind::System,
                        "generator programs run sandboxed, and bubblewrap cannot run here (install it, or pass \
                         --unsandboxed for a model you trust, or --llm-developer hardness)",
                    ));
                }
                let timeout = std::time::Duration::from_secs(a.program_timeout);
                let executor = sandmle::code_executor(a.unsandboxed, a.python.settings());
                c.llm_program_foundry(config, a.llm.model()?, executor, timeout)
            }
            other => return Err(Failure::usage(format!("--llm-developer: program or hardness, not `{other}`"))),
        },
        other => return Err(Failure::usage(format!("--roles: builtin or llm, not `{other}`"))),
    };
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} candidates {elapsed}") {
            bar.set_style(style);
        }
        bar
    });
    let progress = |done: usize, total: usize| {
        if let Some(b) = &bar {
            b.set_length(total as u64);
            b.set_position(done as u64);
        }
    };
    let report = foundry.run(&seeds, &a.out, &progress).map_err(agents)?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if g.json {
        print_typed(&report)?;
    } else {
        let t = &report.yield_.total;
        say!(
            "{} candidates ({} attempts, {} lost to the LLM), {} kept, in {:.1} s ({} resumed)",
            t.candidates,
            t.attempts,
            t.llm_failures,
            t.kept,
            report.seconds,
            report.resumed
        );
        for (seed, th) in &report.throughput {
            say!("  {seed:<16} {:>4} kept  {:>7.0} per minute on one core", th.kept, th.per_minute_one_core);
        }
        for (gate, n) in &t.gates {
            say!("  through {gate:<22} {n}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
