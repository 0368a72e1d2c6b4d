//! `rollout`: one group of episodes per environment with a built-in
//! policy; trajectories as `sandmle.trajectory/v1` JSON lines, optionally
//! SFT rows and verl task rows.

use crate::Globals;
use crate::output::{Failure, Kind, print_json, say};
use clap::Args;
use sandmle_agents::rollout::{Estimator, LlmPolicy, PanelPolicy, StdlibPythonPolicy};
use sandmle_agents::trajectory::Trajectory;
use sandmle_agents::{EpisodeOptions, Policy, RolloutConfig, Task, export};
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
    /// The policy: `panel` (pipeline specs of the baseline panel),
    /// `stdlib_python` (a standard-library Python program, sandboxed) or
    /// `openai` (a model behind an OpenAI-compatible server: --base-url,
    /// --model).
    #[arg(long, default_value = "panel")]
    policy: String,
    #[command(flatten)]
    llm: crate::llm::LlmArgs,
    /// Groups run at once with `--policy openai`, and so the most requests
    /// in flight (1 to 256).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=256))]
    concurrency: u64,
    /// Sampling temperature with `--policy openai`.
    #[arg(long)]
    temperature: Option<f64>,
    /// The most tokens per turn with `--policy openai`.
    #[arg(long = "max-tokens")]
    max_tokens: Option<u32>,
    /// Rollouts per environment.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub(crate) group: u64,
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
    pub(crate) seed: u64,
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
    /// Draw this many groups with the frontier sampler instead of one group
    /// per environment: each group's task is drawn by difficulty band toward
    /// the policy's observed pass rate (1 to 100,000). Every environment
    /// needs a difficulty band.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    curriculum: Option<u64>,
    /// A reward at least this counts as a pass for `--curriculum`.
    #[arg(long = "pass-mark", default_value_t = 0.5, requires = "curriculum")]
    pub(crate) pass_mark: f64,
    /// Run programs WITHOUT a sandbox (stdlib_python only): trusted code only.
    #[arg(long)]
    unsandboxed: bool,
    #[command(flatten)]
    python: crate::sandbox::PythonArgs,
}

/// The environment directories of `--envs DIR` or `--index index.jsonl`.
pub fn env_dirs(envs: Option<&Path>, index: Option<&Path>) -> Result<Vec<PathBuf>, Failure> {
    match (envs, index) {
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
    let estimator =
        Estimator::by_name(&a.estimator).ok_or_else(|| Failure::usage("--estimator: grpo, dr_grpo or rloo"))?;
    let tools = match a.policy.as_str() {
        "panel" => "pipeline",
        "stdlib_python" | "openai" => "python",
        other => return Err(Failure::usage(format!("--policy: panel, stdlib_python or openai, not `{other}`"))),
    };
    // Parsed and checked where the server and the Python package parse them.
    let options = EpisodeOptions {
        codec: Some(a.codec.clone()),
        reward: Some(a.reward.clone()),
        step_timeout_s: Some(a.step_timeout),
        tools: Some(vec![tools.into()]),
        ..EpisodeOptions::default()
    };
    let checked = options.check(Duration::from_secs(7 * 24 * 3600)).map_err(|e| Failure::usage(format!("--{e}")))?;
    let (codec, reward, episode) = (checked.codec, checked.reward, checked.config);
    let step = episode.step_timeout;
    let model = if a.policy == "openai" { Some(a.llm.model()?) } else { None };
    let threads = if model.is_some() { a.concurrency as usize } else { rayon::current_num_threads() };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Failure::new(Kind::System, format!("thread pool: {e}")))?;
    let dirs = env_dirs(a.envs.as_deref(), a.index.as_deref())?;
    let backends = sandmle::rl_backends_with(step, a.unsandboxed, a.python.settings());
    let config = RolloutConfig { episode, codec: Arc::clone(&codec), reward, estimator, seed: a.seed, cancel: None };
    let factory_for = |task: &Task, seed: u64| -> sandmle_agents::Result<Box<dyn Policy>> {
        let env = task.environment();
        let sampling =
            sandmle_core::Sampling { temperature: a.temperature, max_tokens: a.max_tokens, ..Default::default() };
        Ok(match (&model, a.policy.as_str()) {
            (Some(m), _) => {
                let sampling = sandmle_core::Sampling { seed: Some(seed), ..sampling };
                Box::new(LlmPolicy::new(Arc::clone(m), sampling))
            }
            (None, "panel") => Box::new(PanelPolicy::new(&sandmle::panel_specs(env), 2, seed, Arc::clone(&codec))),
            (None, _) => Box::new(StdlibPythonPolicy::new(env.task(), seed, Arc::clone(&codec))),
        })
    };
    if let Some(groups) = a.curriculum {
        return crate::curriculum::curriculum(a, g, &dirs, groups as usize, &backends, &factory_for, &config, &pool);
    }
    let bar = (!g.json && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(dirs.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} environments {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let one = |i: usize, dir: &PathBuf| -> Result<(sandmle_agents::rollout::Group, Task, serde_json::Value), Failure> {
        let task = Task::read(dir).map_err(|e| Failure::from(e).with_context(dir))?;
        let factory = |_: usize, seed: u64| factory_for(&task, seed);
        let group = sandmle_agents::rollout_group(&task, &backends, a.group as usize, &factory, &config)
            .map_err(|e| Failure::from(e).with_context(dir))?;
        let row = export::verl_row(&task, config.codec.as_ref(), &config.episode, i, &dir.display().to_string());
        if let Some(bar) = &bar {
            bar.set_message(task.id().to_owned());
            bar.inc(1);
        }
        Ok((group, task, row))
    };
    let groups: Vec<_> = pool.install(|| {
        use rayon::prelude::*;
        dirs.par_iter().enumerate().map(|(i, dir)| one(i, dir)).collect::<Result<Vec<_>, Failure>>()
    })?;
    let (mut all, mut verl): (Vec<Trajectory>, Vec<serde_json::Value>) = (Vec::new(), Vec::new());
    let mut summary = Vec::new();
    for ((group, task, row), dir) in groups.into_iter().zip(&dirs) {
        let rewards: Vec<f64> = group.trajectories.iter().map(|t| t.reward).collect();
        summary.push(serde_json::json!({
            "task_id": task.id(), "path": dir, "rewards": rewards, "advantages": group.advantages.values,
            "all_equal": group.advantages.all_equal,
        }));
        verl.push(row);
        all.extend(group.trajectories);
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    write_outputs(a, g, &all, &verl, &summary)
}

/// Writes the trajectories (and the SFT and verl rows asked for) and
/// reports the groups.
pub(crate) fn write_outputs(
    a: &RolloutArgs,
    g: &Globals,
    all: &[Trajectory],
    verl: &[serde_json::Value],
    summary: &[serde_json::Value],
) -> Result<ExitCode, Failure> {
    sandmle_agents::trajectory::write_jsonl(&a.out, all).map_err(Failure::from)?;
    if let Some(path) = &a.sft {
        export::write_rows(path, &all.iter().map(export::sft_row).collect::<Vec<_>>()).map_err(Failure::from)?;
    }
    if let Some(path) = &a.verl {
        export::write_rows(path, verl).map_err(Failure::from)?;
    }
    if g.json {
        print_json(&serde_json::json!({"trajectories": all.len(), "out": a.out, "groups": summary}));
    } else {
        for s in summary {
            let band = s.get("band").map(|b| format!("  band {b}")).unwrap_or_default();
            say!(
                "{}{band}  rewards {}  advantages {}",
                s["task_id"].as_str().unwrap_or("-"),
                s["rewards"],
                s["advantages"]
            );
        }
        say!("{} trajectories written to {}", all.len(), a.out.display());
    }
    Ok(ExitCode::SUCCESS)
}
