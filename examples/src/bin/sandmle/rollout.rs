//! `rollout`: one group of episodes per environment with a built-in
//! policy; trajectories as `sandmle.trajectory/v1` JSON lines, optionally
//! SFT rows and verl task rows.

use crate::Globals;
use crate::output::{Failure, Kind, print_json, say};
use clap::Args;
use sandmle_agents::codec::{CODECS, codec_by_name};
use sandmle_agents::reward::{REWARD_SCHEMES, reward_by_name};
use sandmle_agents::rollout::{Estimator, PanelPolicy, StdlibPythonPolicy};
use sandmle_agents::trajectory::Trajectory;
use sandmle_agents::{EpisodeConfig, Policy, RolloutConfig, Task, ToolSet, export};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct RolloutArgs {
    /// A folder of environment directories.
    #[arg(long, conflicts_with = "index")]
    envs: Option<PathBuf>,
    /// A manifest of environments (JSON lines with a `path` field).
    #[arg(long)]
    index: Option<PathBuf>,
    /// The policy: `panel` (pipeline specs of the baseline panel) or
    /// `stdlib_python` (a standard-library Python program, sandboxed).
    #[arg(long, default_value = "panel")]
    policy: String,
    /// Rollouts per environment.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=256))]
    group: u64,
    /// The reward scheme.
    #[arg(long, default_value = "released_dense")]
    reward: String,
    /// The text format.
    #[arg(long, default_value = "sandmle_react")]
    codec: String,
    /// The advantage estimator: grpo, dr_grpo or rloo.
    #[arg(long, default_value = "grpo")]
    estimator: String,
    /// The seed of the groups.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Wall-clock limit of one step in seconds.
    #[arg(long, default_value_t = 300.0)]
    step_timeout: f64,
    /// Where to write the trajectories (JSON lines).
    #[arg(long)]
    out: PathBuf,
    /// Also write SFT rows (`{messages, tools}`) here.
    #[arg(long)]
    sft: Option<PathBuf>,
    /// Also write one verl RL dataset row per environment here.
    #[arg(long)]
    verl: Option<PathBuf>,
    /// Run programs WITHOUT a sandbox (stdlib_python only): trusted code only.
    #[arg(long)]
    unsandboxed: bool,
}

fn env_dirs(a: &RolloutArgs) -> Result<Vec<PathBuf>, Failure> {
    match (&a.envs, &a.index) {
        (Some(dir), None) => {
            let names = sandmle::seed_names_in(dir).map_err(|e| Failure::usage(e.to_string()))?;
            if names.is_empty() {
                return Err(Failure::usage(format!("{}: no environment directories", dir.display())));
            }
            Ok(names.into_iter().map(|n| dir.join(n)).collect())
        }
        (None, Some(index)) => {
            let text = sandmle_core::read_regular_string(index, sandmle_core::MAX_JSON_BYTES)
                .map_err(|e| Failure::usage(e.to_string()))?;
            let base = index.parent().unwrap_or(Path::new("."));
            let mut dirs = Vec::new();
            for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                let v: serde_json::Value = serde_json::from_str(line)
                    .map_err(|e| Failure::usage(format!("{}:{}: {e}", index.display(), i + 1)))?;
                let path = v
                    .get("path")
                    .and_then(|p| p.as_str())
                    .ok_or_else(|| Failure::usage(format!("{}:{}: no `path` field", index.display(), i + 1)))?;
                let p = PathBuf::from(path);
                dirs.push(if p.is_absolute() { p } else { base.join(p) });
            }
            Ok(dirs)
        }
        _ => Err(Failure::usage("give --envs DIR or --index index.jsonl")),
    }
}

pub fn rollout(a: &RolloutArgs, g: &Globals) -> Result<ExitCode, Failure> {
    let codec =
        codec_by_name(&a.codec).ok_or_else(|| Failure::usage(format!("--codec: one of {}", CODECS.join(", "))))?;
    let reward = reward_by_name(&a.reward)
        .ok_or_else(|| Failure::usage(format!("--reward: one of {}", REWARD_SCHEMES.join(", "))))?;
    let estimator =
        Estimator::by_name(&a.estimator).ok_or_else(|| Failure::usage("--estimator: grpo, dr_grpo or rloo"))?;
    let step = Duration::try_from_secs_f64(a.step_timeout)
        .ok()
        .filter(|d| !d.is_zero() && d.as_secs() <= 7 * 24 * 3600)
        .ok_or_else(|| Failure::usage("--step-timeout must be a positive number of seconds, at most a week"))?;
    let tools = match a.policy.as_str() {
        "panel" => ToolSet { code: false, pipeline: true },
        "stdlib_python" => ToolSet::default(),
        other => return Err(Failure::usage(format!("--policy: panel or stdlib_python, not `{other}`"))),
    };
    let dirs = env_dirs(a)?;
    let backends = sandmle::rl_backends(step, a.unsandboxed);
    let episode = EpisodeConfig { tools, step_timeout: step, ..EpisodeConfig::default() };
    let config = RolloutConfig { episode, codec: Arc::clone(&codec), reward, estimator, seed: a.seed };
    let bar = (!g.json && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(dirs.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} environments {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let (mut all, mut verl): (Vec<Trajectory>, Vec<serde_json::Value>) = (Vec::new(), Vec::new());
    let mut summary = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        let task = Task::read(dir).map_err(|e| Failure::broken(format!("{}: {e}", dir.display())))?;
        let env = task.environment();
        let specs = sandmle::panel_specs(env);
        let spec = env.task().clone();
        let policy = a.policy.clone();
        let codec = Arc::clone(&codec);
        let factory = move |_: usize, seed: u64| -> sandmle_agents::Result<Box<dyn Policy>> {
            Ok(if policy == "panel" {
                Box::new(PanelPolicy::new(&specs, 2, seed, Arc::clone(&codec)))
            } else {
                Box::new(StdlibPythonPolicy::new(&spec, seed, Arc::clone(&codec)))
            })
        };
        let group = sandmle_agents::rollout_group(&task, &backends, a.group as usize, &factory, &config)
            .map_err(|e| Failure::new(Kind::System, format!("{}: {e}", dir.display())))?;
        let rewards: Vec<f64> = group.trajectories.iter().map(|t| t.reward).collect();
        summary.push(serde_json::json!({
            "task_id": task.id(), "path": dir, "rewards": rewards, "advantages": group.advantages.values,
            "all_equal": group.advantages.all_equal,
        }));
        verl.push(export::verl_row(&task, config.codec.as_ref(), &config.episode, i, &dir.display().to_string()));
        all.extend(group.trajectories);
        if let Some(bar) = &bar {
            bar.set_message(task.id().to_owned());
            bar.inc(1);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let write_err = |e: sandmle_agents::Error| Failure::new(Kind::System, e.to_string());
    sandmle_agents::trajectory::write_jsonl(&a.out, &all).map_err(write_err)?;
    if let Some(path) = &a.sft {
        export::write_rows(path, &all.iter().map(export::sft_row).collect::<Vec<_>>()).map_err(write_err)?;
    }
    if let Some(path) = &a.verl {
        export::write_rows(path, &verl).map_err(write_err)?;
    }
    if g.json {
        print_json(&serde_json::json!({"trajectories": all.len(), "out": a.out, "groups": summary}));
    } else {
        for s in &summary {
            say!("{}  rewards {}  advantages {}", s["task_id"].as_str().unwrap_or("-"), s["rewards"], s["advantages"]);
        }
        say!("{} trajectories written to {}", all.len(), a.out.display());
    }
    Ok(ExitCode::SUCCESS)
}
