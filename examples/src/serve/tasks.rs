//! The task list trainers build their datasets from: `GET /tasks`.
//!
//! Each environment the server offers, in the catalogue's order (the
//! `--index` file's, or the `--envs` folder's sorted names), with what a
//! trainer selects by and nothing a policy could use to cheat: no answers,
//! no thresholds, no leaderboard, no hidden rule.
//!
//! ```json
//! {"num_tasks": 2, "tasks": [
//!   {"task_id": "…", "name": "wine", "split": "train", "modality": "tabular",
//!    "task_kind": "multiclass_classification", "metric": "accuracy",
//!    "is_lower_better": false, "n_train": 150, "n_test": 28,
//!    "difficulty": {"value": 0.42, "band": 3}}]}
//! ```
//!
//! **Splits** are fixed by the task id alone, so a task keeps its split
//! across servers, catalogues and releases: the first four bytes of
//! `sha256(task_id)`, read as a big-endian number, modulo 100 — below 80
//! `train`, below 90 `validation`, else `test`. `GET /tasks?split=train`
//! lists one split, and the reset option `split` draws a task from it;
//! `GET /tasks?band=3` and the reset option `band` do the same for a
//! difficulty band.
//!
//! **Difficulty** (`{"value", "band"}`) is how hard the task is for stock
//! baselines: what the environment records, else measured when the server
//! starts from its panel leaderboard, ceiling (oracle or gold) and sample
//! submission ([`sandmle_agents::reward_check::difficulty_of`]); `null`
//! for a human leaderboard.

use super::Shared;
use axum::extract::{RawQuery, State};
use axum::response::{IntoResponse, Response};
use sandmle_agents::Task;
use serde_json::{Value, json};
use std::sync::Arc;

/// The splits, in order.
pub const SPLITS: [&str; 3] = ["train", "validation", "test"];

/// The split of a task, from its id alone (see the module documentation).
pub fn split_of(task_id: &str) -> &'static str {
    let digest = sandmle_core::sha256_hex(task_id.as_bytes());
    let head = u32::from_str_radix(digest.get(..8).unwrap_or("0"), 16).unwrap_or(0);
    match head % 100 {
        0..80 => "train",
        80..90 => "validation",
        _ => "test",
    }
}

/// One task's entry, with its difficulty as measured when the server
/// started (see [`sandmle_agents::reward_check::difficulty_of`]).
pub fn entry(name: &str, task: &Task, difficulty: Option<&sandmle_core::Difficulty>) -> Value {
    let env = task.environment();
    let spec = env.task();
    let to_name = |v: Value| v.as_str().map(str::to_owned).unwrap_or_default();
    json!({
        "task_id": task.id(),
        "name": name,
        "split": split_of(task.id()),
        "modality": to_name(json!(spec.modality)),
        "task_kind": to_name(json!(spec.kind)),
        "metric": spec.metric.name,
        "is_lower_better": spec.direction.is_lower_better(),
        "n_train": env.train.n_rows(),
        "n_test": env.test.n_rows(),
        "difficulty": difficulty.map(|d| json!({"value": d.value, "band": d.band})),
    })
}

/// The `split` of `GET /tasks`'s query string, if it names one.
fn split_in(query: Option<&str>) -> Option<&str> {
    query?.split('&').find_map(|pair| pair.strip_prefix("split="))
}

/// The `band` of `GET /tasks`'s query string, if it names one: `Some(Err)`
/// for one that is not 1 to 5.
fn band_in(query: Option<&str>) -> Option<Result<u8, ()>> {
    let b = query?.split('&').find_map(|pair| pair.strip_prefix("band="))?;
    Some(b.parse::<u8>().ok().filter(|b| (1..=5).contains(b)).ok_or(()))
}

pub(super) async fn http_tasks(State(shared): State<Arc<Shared>>, RawQuery(query): RawQuery) -> Response {
    let split = split_in(query.as_deref());
    if let Some(split) = split
        && !SPLITS.contains(&split)
    {
        let e = super::protocol::WireError::new(
            super::protocol::ErrorCode::ValidationError,
            format!("split: one of {}", SPLITS.join(", ")),
        );
        return super::http::http_error(&e);
    }
    let band = match band_in(query.as_deref()) {
        Some(Err(())) => {
            let e = super::protocol::WireError::new(
                super::protocol::ErrorCode::ValidationError,
                "band: one of 1, 2, 3, 4, 5",
            );
            return super::http::http_error(&e);
        }
        Some(Ok(b)) => Some(b),
        None => None,
    };
    let tasks: Vec<Value> = shared
        .catalog
        .tasks
        .iter()
        .zip(&shared.difficulty)
        .filter(|((_, t), _)| split.is_none_or(|s| s == split_of(t.id())))
        .filter(|(_, d)| band.is_none_or(|b| d.is_some_and(|d| d.band == b)))
        .map(|((name, t), d)| entry(name, t, d.as_ref()))
        .collect();
    axum::Json(json!({"num_tasks": tasks.len(), "tasks": tasks})).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_are_a_function_of_the_id_in_about_eight_one_one_parts() {
        let mut counts = [0usize; 3];
        for i in 0..10_000 {
            let s = split_of(&format!("task-{i}"));
            counts[SPLITS.iter().position(|x| *x == s).unwrap()] += 1;
        }
        assert!((7_700..8_300).contains(&counts[0]), "{counts:?}");
        assert!((800..1_200).contains(&counts[1]) && (800..1_200).contains(&counts[2]), "{counts:?}");
        // Pinned (computed with Python's hashlib): a task keeps its split.
        assert_eq!(split_of("abc"), "train");
        assert_eq!(split_of("task-3"), "validation");
        assert_eq!(split_of("task-38"), "test");
    }
}
