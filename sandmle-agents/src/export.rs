//! Exports: SFT rows from trajectories, and one RL dataset row per
//! environment in verl's shape.
//!
//! - SFT: `{"messages": prompt + completion, "tools": [...]}` per
//!   trajectory (the chat-format rows TRL's `SFTTrainer` and most SFT
//!   stacks read; tool schemas in OpenAI's function shape).
//! - verl: `{"data_source", "prompt", "ability", "reward_model",
//!   "extra_info"}` per environment, as verl's RL datasets are laid out.
//!   `reward_model.ground_truth` is the task id, never the answers: the
//!   reward comes from running the episode in this environment.

use crate::codec::Codec;
use crate::env::{EpisodeConfig, Task, prompt_messages};
use crate::error::{Error, Result};
use crate::trajectory::Trajectory;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// The SFT row of a trajectory.
pub fn sft_row(t: &Trajectory) -> Value {
    let tools: Vec<Value> = t
        .tools
        .iter()
        .map(|s| json!({"type": "function", "function": {"name": s.name, "description": s.description, "parameters": s.parameters}}))
        .collect();
    json!({"messages": t.messages(), "tools": tools})
}

/// The verl RL dataset row of a task (`index` its position in the file,
/// `path` where the environment lives).
pub fn verl_row(task: &Task, codec: &dyn Codec, config: &EpisodeConfig, index: usize, path: &str) -> Value {
    json!({
        "data_source": "sandmle",
        "prompt": prompt_messages(task, codec, config),
        "ability": "mle",
        "reward_model": {"style": "sandmle_env", "ground_truth": task.id()},
        "extra_info": {
            "index": index,
            "task_id": task.id(),
            "env_version": task.version(),
            "env_path": path,
            "codec": codec.name(),
            "tools": codec.tools(&config.tools),
            "max_turns": config.max_turns,
        },
    })
}

/// Writes `rows` as JSON lines to `path` (replacing it).
///
/// # Errors
/// [`Error::Io`].
pub fn write_rows(path: &Path, rows: &[Value]) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    for r in rows {
        writeln!(out, "{r}").map_err(io)?;
    }
    out.flush().map_err(io)
}
