//! One rollout group of an LLM behind an OpenAI-compatible server (vLLM,
//! SGLang, llama.cpp's server, Ollama, a hosted API) on a bundled micro
//! environment, written as `sandmle.trajectory/v1` lines.
//!
//! ```sh
//! export SANDMLE_LLM_BASE_URL=http://127.0.0.1:8000/v1   # the server
//! export SANDMLE_LLM_MODEL=Qwen/Qwen3-8B                 # its model name
//! export SANDMLE_LLM_API_KEY=...                         # if it needs one
//! cargo run --release --example llm_rollout
//! ```
//!
//! With the variables unset it says how to set them and exits 0.

use sandmle::{load_seed, rl_backends};
use sandmle_agents::codec::codec_by_name;
use sandmle_agents::http::{HttpChatConfig, HttpChatModel};
use sandmle_agents::reward::reward_by_name;
use sandmle_agents::rollout::{Estimator, LlmPolicy, rollout_group};
use sandmle_agents::{EpisodeConfig, Policy, RolloutConfig, Task};
use sandmle_core::Sampling;
use std::sync::Arc;
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (Ok(url), Ok(model)) = (std::env::var("SANDMLE_LLM_BASE_URL"), std::env::var("SANDMLE_LLM_MODEL")) else {
        println!("Not configured: set SANDMLE_LLM_BASE_URL (for example http://127.0.0.1:8000/v1),");
        println!("SANDMLE_LLM_MODEL (the served model's name) and, if the server needs one, SANDMLE_LLM_API_KEY,");
        println!("then run `cargo run --release --example llm_rollout` again.");
        return Ok(());
    };
    let mut config = HttpChatConfig::new(url, model);
    if std::env::var("SANDMLE_LLM_API_KEY").is_ok() {
        config.api_key_env = Some("SANDMLE_LLM_API_KEY".into());
    }
    let chat: Arc<dyn sandmle_core::ChatModel> = Arc::new(HttpChatModel::new(config)?);
    let task = Task::new(load_seed("wine")?)?;
    let backends = rl_backends(Duration::from_secs(300), false);
    let rollout = RolloutConfig {
        episode: EpisodeConfig::default(),
        codec: codec_by_name("sandmle_react").ok_or("no sandmle_react codec")?,
        reward: reward_by_name("released_dense").ok_or("no released_dense reward")?,
        estimator: Estimator::Grpo,
        seed: 0,
        cancel: None,
    };
    let factory = |_: usize, seed: u64| -> sandmle_agents::Result<Box<dyn Policy>> {
        let sampling = Sampling { temperature: Some(0.7), seed: Some(seed), ..Sampling::default() };
        Ok(Box::new(LlmPolicy::new(Arc::clone(&chat), sampling)))
    };
    let group = rollout_group(&task, &backends, 4, &factory, &rollout)?;
    let out = std::path::Path::new("llm_rollout.jsonl");
    sandmle_agents::trajectory::write_jsonl(out, &group.trajectories)?;
    let rewards: Vec<f64> = group.trajectories.iter().map(|t| t.reward).collect();
    println!("rewards {rewards:?}, advantages {:?}; trajectories in {}", group.advantages.values, out.display());
    Ok(())
}
