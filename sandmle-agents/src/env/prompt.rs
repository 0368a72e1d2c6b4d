//! The prompt of an episode: the codec's system message, then the task.

use super::{EpisodeConfig, Task};
use crate::codec::Codec;
use sandmle_core::{Message, RESERVED_WORKSPACE_FILES};

/// The prompt of an episode of `task`: the codec's system message, then the
/// user message with the task id, `description.md`, the public files and
/// the budgets (what [`super::Episode::reset`] returns, without opening a
/// workspace).
pub fn prompt_messages(task: &Task, codec: &dyn Codec, config: &EpisodeConfig) -> Vec<Message> {
    vec![Message::system(codec.system_prompt(&config.tools)), Message::user(user_prompt(task, config))]
}

fn user_prompt(task: &Task, c: &EpisodeConfig) -> String {
    let mut files: Vec<&str> = RESERVED_WORKSPACE_FILES.to_vec();
    files.sort_unstable();
    let mut files: String = files.iter().map(|f| format!("- {f}\n")).collect();
    let env = task.environment();
    if let Some(images) = &env.task().images {
        files.push_str(&image_line(images, env.images.len()));
    }
    format!(
        "You are solving the task below. Follow the requirements precisely.\n\n## Description\n\n## \
         Competition ID: {id}\n\n{desc}\n\n## Files provided in the working directory\n{files}\n\
         Your code must follow these requirements:\n- Load the data from the working directory; first check \
         the files and their formats (column names, types, row counts).\n- Match the exact columns of \
         sample_submission.csv and write submission.csv to the current directory.\n- Each run must finish \
         within {step}s; the episode may take up to {turns} turns and {minutes} minutes in all.\n- Use only \
         common preinstalled libraries (no installs), and do not print progress bars.\n",
        id = task.id(),
        desc = task.environment().description.trim(),
        step = c.step_timeout.as_secs_f64(),
        turns = c.max_turns,
        minutes = c.episode_time.as_secs_f64() / 60.0,
    )
}

/// The prompt's line for an image task's folder: what is in it and how a
/// row's file is named (by its id, or by the key column rows share files
/// by).
fn image_line(images: &sandmle_core::ImageSpec, count: usize) -> String {
    let size = match (images.width, images.height, images.channels) {
        (Some(w), Some(h), Some(c)) => format!(", {w}x{h} pixels, {c} channel{}", if c == 1 { "" } else { "s" }),
        _ => String::new(),
    };
    let (what, key) = match &images.key_column {
        Some(key) => (format!("files, one per `{key}` of train.csv and test.csv"), key.as_str()),
        None => ("image files, one per row of train.csv and test.csv".to_owned(), "id"),
    };
    format!("- {dir}/ ({count} {what}: {dir}/<{key}>{suffix}{size})\n", dir = images.dir, suffix = images.suffix,)
}
