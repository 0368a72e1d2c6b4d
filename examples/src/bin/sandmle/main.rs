//! `sandmle`: grade, score, import, run and generate SandMLE environments.
//!
//! Every subcommand prints JSON on stdout with `--json` and human text
//! otherwise; errors go to stderr with a non-zero exit code: 1 for an
//! invalid submission, 2 for bad arguments or a broken environment.

mod caps;
mod generate;
mod grading;
mod import;
mod output;
mod run;
mod sandbox;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// SandMLE-rs command line.
#[derive(Parser)]
#[command(name = "sandmle", version, about = "Micro-scale ML engineering environments: grade, import, run, generate")]
struct Cli {
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
    /// Synthesize candidates from a seed's DNA; keep those passing every gate.
    #[command(alias = "generate")]
    Synthesize(generate::SynthesizeArgs),
    /// Run the verification gates on an environment.
    Verify(generate::VerifyArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Evaluate(a) => grading::evaluate(&a),
        Command::Score(a) => grading::score(&a),
        Command::Thresholds(a) => grading::thresholds(&a),
        Command::Import(a) => import::import(&a),
        Command::Run(a) => run::run(&a),
        Command::Panel(a) => run::panel(&a),
        Command::Shrink(a) => generate::shrink(&a),
        Command::Synthesize(a) => generate::synthesize(&a),
        Command::Verify(a) => generate::verify(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("sandmle: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
