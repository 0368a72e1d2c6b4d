//! The Rust side of the Python binding's per-call overhead
//! (`python/bench/speed.py` runs this and the same calls through
//! `sandmle`): an episode on the wine seed built as `sandmle.Env` builds
//! it, timing a turn with no action, a Score turn and the advantages of a
//! group of 8. Prints one JSON object: median microseconds per call over
//! blocks of 100 calls.
//!
//! ```sh
//! cargo run --release --example call_overhead
//! ```

use sandmle_agents::codec::codec_by_name;
use sandmle_agents::reward::reward_by_name;
use sandmle_agents::rollout::{Estimator, advantages};
use sandmle_agents::{Episode, EpisodeConfig, Task, ToolSet};
use std::time::{Duration, Instant};

const BLOCKS: usize = 21;
const CALLS: usize = 100;
const NOOP: &str = "<think>Thinking it over.</think>";
const SCORE: &str = "<think>grade</think><tool_call>{\"name\": \"Score\", \"arguments\": {}}</tool_call>";
const FIT: &str = "<think>fit</think><tool_call>{\"name\": \"RunPipeline\", \"arguments\": {\"spec\": {\"steps\": [{\"op\": \"impute\", \"strategy\": \"median\"}], \"model\": {\"type\": \"logistic_regression\", \"c\": 1.0}}}}</tool_call>";

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let task = Task::read(sandmle::repository_seeds().join("wine"))?;
    let step = Duration::from_secs(300);
    let config =
        EpisodeConfig { tools: ToolSet { code: false, pipeline: true }, max_turns: 1_000, ..EpisodeConfig::default() };
    let codec = codec_by_name("sandmle_react").ok_or("codec")?;
    let reward = reward_by_name("released_dense").ok_or("reward")?;
    let mut ep = Episode::new(task, sandmle::rl_backends(step, false), codec, reward, config)?;
    let (mut noop, mut score, mut adv) = (Vec::new(), Vec::new(), Vec::new());
    let rewards = [0.1, 0.7, 0.4, 0.4, 1.0, 0.2, 0.3, 0.9];
    for _ in 0..BLOCKS {
        ep.reset()?;
        ep.step_text(FIT)?;
        let t = Instant::now();
        for _ in 0..CALLS {
            std::hint::black_box(ep.step_text(NOOP)?);
        }
        noop.push(t.elapsed().as_secs_f64() * 1e6 / CALLS as f64);
        let t = Instant::now();
        for _ in 0..CALLS {
            std::hint::black_box(ep.step_text(SCORE)?);
        }
        score.push(t.elapsed().as_secs_f64() * 1e6 / CALLS as f64);
        let t = Instant::now();
        for _ in 0..CALLS {
            std::hint::black_box(advantages(std::hint::black_box(&rewards), Estimator::Grpo));
        }
        adv.push(t.elapsed().as_secs_f64() * 1e6 / CALLS as f64);
    }
    println!(
        "{}",
        serde_json::json!({
            "step_noop_us": median(noop),
            "step_score_us": median(score),
            "group_advantages_us": median(adv),
            "blocks": BLOCKS,
            "calls_per_block": CALLS,
        })
    );
    Ok(())
}
