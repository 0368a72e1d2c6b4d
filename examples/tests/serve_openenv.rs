//! What trainers build on besides the episode loop: `GET /tasks` (splits,
//! modality, difficulty, and nothing that gives the answers away), `POST
//! /mcp` (JSON-RPC as OpenEnv's validator and clients send it), and the
//! reward's components in every step's info.

mod common;

use common::serve::*;
use sandmle::serve::ServeConfig;
use serde_json::{Value, json};

async fn get(server: &Server, path: &str) -> (u16, Value) {
    let url = server.url(path);
    tokio::task::spawn_blocking(move || http("GET", &url, None)).await.unwrap()
}

async fn post(server: &Server, path: &str, body: Value) -> (u16, Value) {
    let url = server.url(path);
    let body = body.to_string();
    tokio::task::spawn_blocking(move || http("POST", &url, Some(&body))).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_list_splits_and_difficulty_and_reveal_no_answers() {
    let server = Server::start(ServeConfig::default()).await;
    let (status, list) = get(&server, "/tasks").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["num_tasks"], 1);
    let task = &list["tasks"][0];
    let keys: Vec<&str> = task.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "difficulty",
            "is_lower_better",
            "metric",
            "modality",
            "n_test",
            "n_train",
            "name",
            "split",
            "task_id",
            "task_kind"
        ]
    );
    assert_eq!(task["name"], "wine");
    // Measured at start-up: its gold comes from the same stock panel, so
    // stock baselines reach it (band 1) until thresholds sit above them.
    assert_eq!(task["difficulty"], json!({"value": 0.0, "band": 1}), "{task}");
    assert_eq!(task["modality"], "tabular");
    assert!(["train", "validation", "test"].contains(&task["split"].as_str().unwrap()));
    // Nothing of the private side: no threshold, no leaderboard score, no answer.
    let env = sandmle_core::Environment::read(sandmle::repository_seeds().join("wine")).unwrap();
    let text = list.to_string();
    let t = env.grading.thresholds.unwrap();
    for v in [t.gold, t.silver, t.bronze, t.median] {
        assert!(!text.contains(&v.to_string()), "threshold {v} in {text}");
    }
    for e in env.leaderboard.as_ref().unwrap().entries.iter() {
        assert!(!text.contains(&e.name), "leaderboard entry {} in {text}", e.name);
    }
    let target = &env.task().target_columns[0];
    assert!(!text.contains(target.as_str()), "the target's name in {text}");
    // One split at a time; a bad one is refused.
    let split = task["split"].as_str().unwrap().to_owned();
    let (_, same) = get(&server, &format!("/tasks?split={split}")).await;
    assert_eq!(same["num_tasks"], 1);
    let other = if split == "test" { "train" } else { "test" };
    let (_, none) = get(&server, &format!("/tasks?split={other}")).await;
    assert_eq!(none["num_tasks"], 0);
    let (status, _) = get(&server, "/tasks?split=holdout").await;
    assert_eq!(status, 422);
    // A reset may draw from a split.
    let mut ws = server.connect().await;
    let reply = ask(&mut ws, json!({"type": "reset", "data": {"split": split, "tools": ["pipeline"]}})).await;
    assert_eq!(reply["data"]["observation"]["info"]["task_id"], task["task_id"]);
    let reply = ask(&mut ws, json!({"type": "reset", "data": {"split": other, "tools": ["pipeline"]}})).await;
    assert_eq!(code_of(&reply), "VALIDATION_ERROR");
    // And from a difficulty band (the seed's is 1); a band not 1 to 5 is refused.
    let (_, one) = get(&server, "/tasks?band=1").await;
    assert_eq!(one["num_tasks"], 1);
    let (_, three) = get(&server, "/tasks?band=3").await;
    assert_eq!(three["num_tasks"], 0);
    assert_eq!(get(&server, "/tasks?band=9").await.0, 422);
    let reply =
        ask(&mut ws, json!({"type": "reset", "data": {"band": 1, "split": split, "tools": ["pipeline"]}})).await;
    assert_eq!(reply["data"]["observation"]["info"]["task_id"], task["task_id"], "{reply}");
    for band in [3, 7] {
        let reply = ask(&mut ws, json!({"type": "reset", "data": {"band": band, "tools": ["pipeline"]}})).await;
        assert_eq!(code_of(&reply), "VALIDATION_ERROR", "band {band}: {reply}");
    }
    server.shutdown().await;
}

async fn rpc(server: &Server, id: u64, method: &str, params: Value) -> Value {
    let (status, reply) =
        post(server, "/mcp", json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["jsonrpc"], "2.0");
    assert_eq!(reply["id"], id);
    reply
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_answers_the_validators_probe_and_plays_an_episode_in_a_session() {
    let server = Server::start(ServeConfig { max_sessions: 2, ..ServeConfig::default() }).await;
    // OpenEnv's `validate --url` posts `{}`: HTTP 200 and a JSON-RPC error.
    let (status, reply) = post(&server, "/mcp", json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(reply["jsonrpc"], "2.0");
    assert_eq!(reply["error"]["code"], -32600);
    let url = server.url("/mcp");
    let (status, reply) = tokio::task::spawn_blocking(move || http("POST", &url, Some("{not json"))).await.unwrap();
    assert_eq!((status, reply["error"]["code"].clone()), (200, json!(-32700)));
    let (status, _) = post(&server, "/mcp", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    assert_eq!(status, 202, "a notification gets no body");
    assert_eq!(rpc(&server, 1, "nope", json!({})).await["error"]["code"], -32601);
    let init = rpc(&server, 2, "initialize", json!({"protocolVersion": "2025-06-18"})).await;
    assert_eq!(init["result"]["serverInfo"]["name"], "sandmle");
    assert!(init["result"]["capabilities"]["tools"].is_object());

    let listed = rpc(&server, 3, "tools/list", json!({})).await;
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["PythonInterpreter", "RunPipeline", "Score", "Finish"]);
    assert!(listed["result"]["tools"][0]["inputSchema"]["properties"]["code"].is_object());

    let created = rpc(&server, 4, "openenv/session/create", json!({"task_id": "wine", "tools": ["pipeline"]})).await;
    let session = created["result"]["session_id"].as_str().unwrap().to_owned();
    assert_eq!(created["result"]["messages"].as_array().unwrap().len(), 2, "the prompt: system and user");
    let spec: Value = serde_json::from_str(SPEC).unwrap();
    let ran = rpc(
        &server,
        5,
        "tools/call",
        json!({"session_id": session, "name": "RunPipeline", "arguments": {"spec": spec}}),
    )
    .await;
    let result = &ran["result"];
    assert!(result["content"][0]["text"].as_str().unwrap().contains("submission.csv"), "{ran}");
    assert_eq!(result["structuredContent"]["done"], false);
    assert_eq!(result["isError"], false);
    let scored = rpc(&server, 6, "tools/call", json!({"session_id": session, "name": "Score", "arguments": {}})).await;
    assert_eq!(scored["result"]["structuredContent"]["info"]["grade"]["valid_submission"], true, "{scored}");
    let done = rpc(
        &server,
        7,
        "tools/call",
        json!({"session_id": session, "name": "Finish", "arguments": {"answer": "submission.csv"}}),
    )
    .await;
    let info = &done["result"]["structuredContent"]["info"];
    assert_eq!(done["result"]["structuredContent"]["done"], true, "{done}");
    assert!(info["total_reward"].as_f64().unwrap() > 0.2, "{info}");
    let closed = rpc(&server, 8, "openenv/session/close", json!({"session_id": session})).await;
    assert_eq!(closed["result"]["closed"], true);
    assert_eq!(rpc(&server, 9, "openenv/session/close", json!({"session_id": session})).await["error"]["code"], -32602);
    // Without a session, a call plays a fresh episode's one step.
    let fresh = rpc(
        &server,
        10,
        "tools/call",
        json!({"name": "Score", "arguments": {}, "task_id": "wine", "tools": ["pipeline"]}),
    )
    .await;
    assert_eq!(fresh["result"]["structuredContent"]["info"]["grade"]["valid_submission"], false, "{fresh}");
    // Sessions count against the cap.
    let a = rpc(&server, 11, "openenv/session/create", json!({"tools": ["pipeline"]})).await;
    let b = rpc(&server, 12, "openenv/session/create", json!({"tools": ["pipeline"]})).await;
    let c = rpc(&server, 13, "openenv/session/create", json!({"tools": ["pipeline"]})).await;
    assert!(a["result"]["session_id"].is_string() && b["result"]["session_id"].is_string());
    assert_eq!(c["error"]["code"], -32000, "{c}");
    server.shutdown().await;
}

/// Every step's info carries the reward's components and weights; they
/// sum to the episode's reward on the last step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_steps_info_carries_the_rewards_components_and_weights() {
    let server = Server::start(ServeConfig::default()).await;
    let mut ws = server.connect().await;
    let reset = ask(&mut ws, json!({"type": "reset", "data": {"tools": ["pipeline"]}})).await;
    let weights = &reset["data"]["observation"]["info"]["reward_weights"];
    assert_eq!(
        weights,
        &json!({"bronze": 0.5, "format": 0.1, "gold": 0.7, "median": 0.1, "silver": 0.6, "valid": 0.2})
    );
    let mut sum_of_steps = 0.0;
    let mut last = Value::Null;
    for turn in [
        pipeline_turn(),
        "<think>grade</think><tool_call>{\"name\": \"Score\", \"arguments\": {}}</tool_call>".to_owned(),
        "<think>done</think><answer>submission.csv</answer>".to_owned(),
    ] {
        let reply = ask(&mut ws, json!({"type": "step", "data": {"content": turn}})).await;
        let data = &reply["data"];
        sum_of_steps += data["reward"].as_f64().unwrap();
        let components = &data["observation"]["info"]["reward_components"];
        for (name, c) in components.as_object().unwrap() {
            assert_eq!(c["weight"], weights[name], "{name}");
            let (w, v, r) =
                (c["weight"].as_f64().unwrap(), c["value"].as_f64().unwrap(), c["reward"].as_f64().unwrap());
            assert!((0.0..=1.0).contains(&v) && (w * v - r).abs() < 1e-12, "{name}: {c}");
        }
        last = data["observation"]["info"].clone();
    }
    let total = last["total_reward"].as_f64().unwrap();
    let from_components: f64 =
        last["reward_components"].as_object().unwrap().values().map(|c| c["reward"].as_f64().unwrap()).sum();
    assert!((total - from_components).abs() < 1e-12 && (total - sum_of_steps).abs() < 1e-12, "{last}");
    assert_eq!(last["reward_components"]["valid"]["value"], 1.0);
    assert!(last["final_grade"].get("medal").is_some(), "the grade's view names its medal: {last}");
    server.shutdown().await;
}
