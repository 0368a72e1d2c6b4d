//! Quickstart: the core of SandMLE, offline, on every bundled real seed.
//!
//! For each seed: shrink it to a micro environment and calibrate it (the
//! baseline panel, the medal thresholds, the verification gates); then the
//! Foundry generates new ones from its DNA with the four built-in roles
//! (Data Strategist, ML Developer, MLOps Engineer, Technical Writer), each
//! candidate asked for a modality drawn from a mix of all eight ([`MIX`]:
//! image, table, text, image and table, audio, forecasting, graph,
//! sequence labelling). The
//! table compares the panel's ranking on micro environments with its
//! ranking on the full seed (Kendall's tau, the median over five shrinks;
//! `sandmle fidelity` has the rest) and times one pipeline step — a
//! linear model, which scales to the full seed — on the micro environment
//! and on the full seed; then it runs one RL rollout group (4 episodes of
//! the built-in `PanelPolicy`) per kept environment and shows its mean
//! reward and GRPO advantages. Environments are written under
//! `target/sandmle/quickstart/` (the Foundry's output, with `yield.json`
//! and `index.jsonl`, in its `generated/` folder).
//!
//! Run with `cargo run --release --example quickstart`.

use sandmle::fidelity::{FidelityConfig, seed_fidelity};
use sandmle::{Composition, load_seed, repository_seeds, seed_names_in};
use sandmle_agents::foundry::{FoundryConfig, SeedTask};
use sandmle_core::{Environment, GateResult, GradeReport, SubmissionForm, WriteOptions};
use sandmle_exec::{CheckedPipeline, PipelineExecutor, PipelineSpec};
use sandmle_synth::StratifiedShrinker;
use std::path::PathBuf;
use std::time::Instant;

/// Candidates synthesized per seed.
const SYNTHESIZED: usize = 3;

/// The modalities the candidates are asked for: every one there is a
/// synthesizer for, so the table shows image, multimodal, audio, graph,
/// forecasting and sequence-labelling tasks grown from table seeds (a seed
/// of classes asked for a forecast, or of values asked for a graph or a
/// sequence, keeps its own modality). Run seed 5 draws all eight.
const MIX: &str = "image=3,tabular=2,text=1,multimodal=2,audio=1,time_series=2,graph=2,sequence=2";

/// A modality's name as `task.json` writes it.
fn modality_name(m: sandmle_core::Modality) -> String {
    serde_json::to_value(m).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// A linear pipeline: logistic regression for classes, ridge for values.
fn linear_spec(env: &Environment) -> Option<CheckedPipeline> {
    let model = if env.task().submission_form() == SubmissionForm::Value {
        serde_json::json!({"type": "ridge", "alpha": 1.0})
    } else {
        serde_json::json!({"type": "logistic_regression", "c": 1.0})
    };
    let spec = serde_json::json!({
        "name": "linear",
        "steps": [
            {"op": "impute", "strategy": "median"},
            {"op": "encode", "method": "one_hot", "max_levels": 20},
            {"op": "text", "n_features": 256, "tfidf": true},
            {"op": "scale", "method": "standard"}
        ],
        "model": model,
        "clip_to_target_range": true
    });
    PipelineSpec::from_json(&spec).or_else(|_| PipelineSpec::default_forest().check()).ok()
}

/// Milliseconds of one pipeline step (preprocess, fit, predict).
fn step_ms(env: &Environment) -> Option<f64> {
    let run = PipelineExecutor::default().run(&linear_spec(env)?, &env.public_view()).ok()?;
    let t = &run.timings;
    Some((t.get("preprocess")? + t.get("fit")? + t.get("predict")?) as f64 / 1000.0)
}

/// One RL rollout group on `env` with the built-in `PanelPolicy` (pipeline
/// actions, SandMLE's format and released reward): the mean reward and the
/// GRPO advantages, for the table's last columns.
fn rl_group(env: &Environment) -> String {
    use sandmle_agents::{Policy, RolloutConfig, Task, ToolSet, rollout::PanelPolicy};
    use std::sync::Arc;
    let (Some(codec), Some(reward)) = (
        sandmle_agents::codec::codec_by_name("sandmle_react"),
        sandmle_agents::reward::reward_by_name("released_dense"),
    ) else {
        return "-".into();
    };
    let Ok(task) = Task::new(env.clone()) else { return "-".into() };
    let specs = sandmle::panel_specs(env);
    let tools = ToolSet { code: false, pipeline: true };
    let episode = sandmle_agents::EpisodeConfig { tools, ..Default::default() };
    let config = RolloutConfig {
        episode,
        codec: Arc::clone(&codec),
        reward,
        estimator: Default::default(),
        seed: 0,
        cancel: None,
    };
    let factory = |_: usize, s: u64| -> sandmle_agents::Result<Box<dyn Policy>> {
        Ok(Box::new(PanelPolicy::new(&specs, 2, s, Arc::clone(&codec))))
    };
    let backends = sandmle::rl_backends(std::time::Duration::from_secs(300), false);
    match sandmle_agents::rollout_group(&task, &backends, 4, &factory, &config) {
        Ok(g) => {
            let mean = g.trajectories.iter().map(|t| t.reward).sum::<f64>() / 4.0;
            let adv: Vec<String> = g.advantages.values.iter().map(|a| format!("{a:+.1}")).collect();
            format!("{mean:.2} [{}]", adv.join(" "))
        }
        Err(e) => format!("error: {e}"),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/sandmle/quickstart");
    let write = WriteOptions { overwrite: true, ..WriteOptions::default() };
    let c = Composition::new();
    let names = seed_names_in(&repository_seeds())?;
    let seeds: Vec<SeedTask> = names
        .iter()
        .map(|n| Ok(SeedTask { name: n.clone(), env: load_seed(n)? }))
        .collect::<sandmle_core::Result<_>>()?;
    let generated = out.join("generated");
    if generated.exists() {
        std::fs::remove_dir_all(&generated)?;
    }
    let mix = sandmle_core::Mix::parse(MIX)?;
    // Run seed 2: its draw holds every modality at least twice.
    let config = FoundryConfig { per_seed: SYNTHESIZED, run_seed: 5, mix: Some(mix), ..FoundryConfig::default() };
    let foundry = c.foundry(config);
    let report = foundry.run(&seeds, &generated, &|_, _| {})?;
    let records = sandmle_agents::foundry::read_records(&generated)?;
    println!(
        "{:<14} {:<26} {:<11} {:<10} {:>9} {:>5} {:>33} {:<34} {:>18} {:>5}  {:<28}",
        "seed",
        "environment",
        "modality",
        "kind",
        "train/test",
        "gates",
        "gold / silver / bronze / median",
        "best baseline (medal)",
        "step ms micro/full",
        "tau",
        "RL reward [GRPO advantages]"
    );
    let (mut kept_total, mut candidates_total) = (0, 0);
    let mut failures: Vec<String> = Vec::new();
    for SeedTask { name, env: seed } in &seeds {
        let name = name.clone();
        let full_ms = step_ms(seed);
        let mut envs: Vec<(String, Environment, Vec<GateResult>, Option<f64>)> = Vec::new();
        match StratifiedShrinker::default().shrink_env(seed, 1) {
            Ok(mut micro) => {
                let gates = c.calibrate(&mut micro)?;
                // The tau column: the median over five shrinks (seeds 0-4).
                let config = FidelityConfig { shrinks: 5, synthesized: 0, sensitivity: false, test_factor: 4 };
                let tau = seed_fidelity(&c, &name, seed, &config)?.tau.map(|t| t.median);
                envs.push(("shrunk".into(), micro, gates, tau));
            }
            Err(e) => println!("{name:<14} shrink: {e}"),
        }
        let f = report.yield_.seeds.get(&name).cloned().unwrap_or_default();
        kept_total += f.kept;
        candidates_total += f.candidates;
        for r in records.iter().filter(|r| r.seed_task == name) {
            if let (Some(id), Some(last)) = (&r.env_id, r.attempts.last()) {
                envs.push(("synth".into(), Environment::read(generated.join(id))?, last.gates.clone(), None));
            }
        }
        for (origin, env, gates, tau) in &envs {
            let passed = gates.iter().filter(|g| g.passed).count();
            if *origin == "shrunk" {
                env.write_into(&out, &write)?;
            }
            let t = env.grading.thresholds.as_ref();
            let thresholds = t
                .map_or("-".into(), |t| format!("{:.3} / {:.3} / {:.3} / {:.3}", t.gold, t.silver, t.bronze, t.median));
            let best = env.leaderboard.as_ref().and_then(|lb| lb.entries.first()).map_or("-".into(), |e| {
                let r = GradeReport::scored(e.score, env.task().direction, t, env.leaderboard.as_ref());
                format!("{} {:.3} ({})", e.name, e.score, r.medal().map_or("none", |m| m.as_str()))
            });
            let micro_ms = step_ms(env);
            let timing = match (micro_ms, full_ms) {
                (Some(m), Some(f)) if *origin == "shrunk" => format!("{m:.1}/{f:.1}"),
                (Some(m), _) => format!("{m:.1}/-"),
                _ => "-".into(),
            };
            let id = env.id()?;
            for g in gates.iter().filter(|g| !g.passed) {
                failures.push(format!("{id}: gate {} failed: {}", g.gate, g.detail));
            }
            println!(
                "{:<14} {:<26} {:<11} {:<10} {:>9} {:>5} {:>33} {:<34} {:>18} {:>5}  {}",
                if *origin == "shrunk" { name.as_str() } else { "  (synth)" },
                &id[..id.len().min(26)],
                modality_name(env.task().modality),
                format!("{:?}", env.task().kind).replace("Classification", "").to_lowercase(),
                format!("{}/{}", env.train.n_rows(), env.test.n_rows()),
                format!("{passed}/{}", gates.len()),
                thresholds,
                best,
                timing,
                tau.map_or("-".into(), |t| format!("{t:.2}")),
                rl_group(env),
            );
        }
    }
    for f in &failures {
        println!("{f}");
    }
    let spread: Vec<String> = report.yield_.spread.modalities.iter().map(|(m, n)| format!("{m} {n}")).collect();
    println!(
        "\n{candidates_total} candidates synthesized ({}), {kept_total} kept; environments in {}; {:.1} s in all",
        spread.join(", "),
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
