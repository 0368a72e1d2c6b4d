//! `rollout --curriculum N`: groups drawn one after another by the
//! frontier sampler over the environments' difficulty bands.

use crate::Globals;
use crate::output::Failure;
use crate::rollout::{RolloutArgs, write_outputs};
use sandmle_agents::rollout::{CurriculumGroup, Draw, FrontierSampler, rollout_curriculum};
use sandmle_agents::{Policy, RolloutConfig, Task, export};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// Makes a policy for a task, with its seed.
pub(crate) type TaskPolicies<'a> = dyn Fn(&Task, u64) -> sandmle_agents::Result<Box<dyn Policy>> + Sync + 'a;

/// `--curriculum N`: `N` groups, each on the task the frontier sampler
/// draws by band from the policy's pass rates so far.
#[allow(clippy::too_many_arguments)]
pub(crate) fn curriculum(
    a: &RolloutArgs,
    g: &Globals,
    dirs: &[PathBuf],
    groups: usize,
    backends: &sandmle_agents::Backends,
    factory_for: &TaskPolicies<'_>,
    config: &RolloutConfig,
    pool: &rayon::ThreadPool,
) -> Result<ExitCode, Failure> {
    if !(0.0..=1.0).contains(&a.pass_mark) {
        return Err(Failure::usage(format!("--pass-mark: a reward from 0 to 1, not {}", a.pass_mark)));
    }
    let mut tasks = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let task = Task::read(dir).map_err(|e| Failure::from(e).with_context(dir))?;
        let difficulty = sandmle_agents::reward_check::difficulty_of(task.environment(), backends.grader.as_ref())
            .map_err(|e| Failure::from(e).with_context(dir))?;
        let band = difficulty.map(|d| d.band).ok_or_else(|| {
            Failure::usage(format!(
                "{}: no difficulty band (a human leaderboard, or no ceiling to measure against); \
                 --curriculum draws by band",
                dir.display()
            ))
        })?;
        tasks.push((task, band));
    }
    let ids = tasks.iter().map(|(t, b)| (t.id().to_owned(), *b)).collect();
    let mut sampler = FrontierSampler::new(ids, a.seed).map_err(Failure::from)?;
    sampler.pass_mark = a.pass_mark;
    let factory = |draw: &Draw<'_>, _: usize, seed: u64| factory_for(draw.task, seed);
    let bar = (!g.json && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(groups as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} groups {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut on_group = |c: &CurriculumGroup| {
        if let Some(bar) = &bar {
            bar.set_message(format!("band {}", c.band));
            bar.inc(1);
        }
    };
    let drawn = pool
        .install(|| {
            rollout_curriculum(
                &tasks,
                &mut sampler,
                groups,
                a.group as usize,
                backends,
                &factory,
                config,
                &mut on_group,
            )
        })
        .map_err(Failure::from)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let (mut all, mut summary) = (Vec::new(), Vec::new());
    for c in drawn {
        let (task, band) = &tasks[c.task];
        let rewards: Vec<f64> = c.group.trajectories.iter().map(|t| t.reward).collect();
        summary.push(serde_json::json!({
            "task_id": task.id(), "path": dirs[c.task], "band": band, "rewards": rewards,
            "advantages": c.group.advantages.values, "all_equal": c.group.advantages.all_equal,
        }));
        all.extend(c.group.trajectories);
    }
    let verl: Vec<serde_json::Value> = tasks
        .iter()
        .zip(dirs)
        .enumerate()
        .map(|(i, ((task, _), dir))| {
            export::verl_row(task, config.codec.as_ref(), &config.episode, i, &dir.display().to_string())
        })
        .collect();
    write_outputs(a, g, &all, &verl, &summary)
}
