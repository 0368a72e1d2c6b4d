//! `sandmle`: grade, score, import, run and generate SandMLE environments.
//!
//! Every subcommand prints one JSON object on stdout with `--json` — its
//! result, or `{"error": {"kind", "message"}}` for any failure — and human
//! text otherwise; messages go to stderr, one bounded line. Exit codes: 0
//! success, 1 the submission or solution is at fault, 2 bad arguments or a
//! broken environment.

/// The command's allocator: mimalloc, whose arenas THP can back with
/// huge pages. Grading a million rows touches about 100 MB once: with huge
/// pages glibc's allocator took 25,000 page faults for it, mimalloc about
/// 250, and `sandmle evaluate` of a 1M-row shuffled submission ran 0.283 s
/// against 0.326 s (medians of 25 alternated runs, 2-core AMD EPYC VM).
/// `evaluate` now turns huge pages off for itself (see
/// `grading::small_pages`); with 4 KB pages the two allocators grade
/// alike (250 and 253 ms, alternated with a pandas evaluator).
/// The libraries leave the choice of allocator to their users.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod caps;
mod curriculum;
mod export;
mod fidelity;
mod foundry;
mod generate;
mod grading;
mod import;
mod llm;
mod output;
mod rollout;
mod run;
mod sandbox;
mod seeds;
mod serve;

use clap::{Parser, Subcommand};
use output::{Failure, Kind};
use std::path::PathBuf;
use std::process::ExitCode;

/// SandMLE-rs command line.
#[derive(Parser)]
#[command(name = "sandmle", version, about = "Micro-scale ML engineering environments: grade, import, run, generate")]
struct Cli {
    /// Print one JSON object on stdout for every outcome, failures included.
    #[arg(long, global = true)]
    json: bool,
    /// The folder of bundled seed environments, so that `--env` and
    /// `--seed-env` take a seed's name (default: `examples/seeds` of the
    /// repository checkout the command runs in).
    #[arg(long, global = true, value_name = "DIR")]
    seeds: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Grade a submission against an environment's private answers.
    Evaluate(grading::EvaluateArgs),
    /// Score a submission with one metric against an answers file.
    Score(grading::ScoreArgs),
    /// MLE-bench medal thresholds of a leaderboard CSV.
    Thresholds(grading::ThresholdsArgs),
    /// Import a prepared MLE-bench competition as an environment.
    Import(import::ImportArgs),
    /// Run a pipeline spec (or a program) on an environment and grade it.
    Run(run::RunArgs),
    /// Run the baseline panel and print its leaderboard.
    Panel(run::PanelArgs),
    /// Shrink a real seed to a micro environment.
    Shrink(generate::ShrinkArgs),
    /// Generate environments from seeds: the four roles, the gates, the kept
    /// environments with yield.json and index.jsonl.
    #[command(alias = "synthesize")]
    Generate(foundry::GenerateArgs),
    /// Run the verification gates on an environment.
    Verify(generate::VerifyArgs),
    /// Run RL rollout groups on environments and write trajectories.
    Rollout(rollout::RolloutArgs),
    /// Write environments in another layout (`--format sandmle-release` or `mlebench`).
    Export(export::ExportArgs),
    /// Serve environments over OpenEnv's HTTP + WebSocket protocol.
    Serve(serve::ServeArgs),
    /// Fidelity of micro environments: Kendall's tau against the full task.
    Fidelity(fidelity::FidelityArgs),
    /// List the bundled seed environments.
    Seeds,
}

/// What every subcommand is given besides its own arguments.
pub struct Globals {
    /// `--json`.
    pub json: bool,
    /// `--seeds`.
    pub seeds: Option<PathBuf>,
}

fn main() -> ExitCode {
    let wants_json = std::env::args().any(|a| a == "--json");
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion) => {
            // Help and version go to stdout, exit 0.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let text = e.render().to_string();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("bad arguments");
            let first = first.trim_start_matches("error: ");
            return output::report(
                Failure::new(Kind::BadArguments, format!("{first} (see `sandmle --help`)")),
                wants_json,
            );
        }
    };
    let g = Globals { json: cli.json, seeds: cli.seeds };
    let result = match cli.command {
        Command::Evaluate(a) => grading::evaluate(&a, &g),
        Command::Score(a) => grading::score(&a, &g),
        Command::Thresholds(a) => grading::thresholds(&a, &g),
        Command::Import(a) => import::import(&a, &g),
        Command::Run(a) => run::run(&a, &g),
        Command::Panel(a) => run::panel(&a, &g),
        Command::Shrink(a) => generate::shrink(&a, &g),
        Command::Generate(a) => foundry::generate(&a, &g),
        Command::Verify(a) => generate::verify(&a, &g),
        Command::Rollout(a) => rollout::rollout(&a, &g),
        Command::Export(a) => export::export(&a, &g),
        Command::Serve(a) => serve::serve(&a, &g),
        Command::Fidelity(a) => fidelity::fidelity(&a, &g),
        Command::Seeds => seeds::list(&g),
    };
    match result {
        Ok(code) => code,
        Err(failure) => output::report(failure, g.json),
    }
}
